"""Measure the critic on the labelled set (data/critic) beside two trivial baselines.

    python -m governance.critic.evaluate [--split heldout|<a development part>|all] [--embed] [--json OUT]
        [--second-labels FILE] [--errors] [--rules-only]

Prints precision, recall and F1 per flag and their mean (macro F1) for the critic as shipped (the
rules, with the trained flagger of models/critic.pt deciding three sentence flags) and for its rules
alone (`--json` adds the counts behind them: sentences labelled, flagged and found per flag),
with `--embed` for a logistic regression per flag on MiniLM embeddings (fitted on the train part, or
for `heldout` on every development part and the training part), for a keyword-only baseline (each
flag fires on its trigger words, with no reading of the sentence) and for the majority baseline (no
flag on any sentence: most sentences have none of each). Each labelled document is rebuilt under
its headings, one labelled sentence a paragraph, so the critic sees the same sentences the labels
name. `--errors` lists the critic's mistakes; use it on the development parts only (`DEVELOPMENT`:
train, test, dev, dev2, dev3, dev4, dev5; `heldout` is the measuring part; data/critic/README.md). Not
imported by the app.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from governance.critic import lexicon as lx
from governance.critic.conflicts import Embed, quantities
from governance.critic.critic import critique
from governance.critic.flagger import DEFAULT_MODEL, SentenceFlagger, load_flagger
from governance.critic.reading import PolicyText, read_sections
from governance.critic.records import FLAGS

DATA = Path(__file__).resolve().parents[2] / "data" / "critic"
SPLIT_SEED = 31
# the parts the critic was developed on, in the order they were written; "heldout" is measured only
DEVELOPMENT = ("train", "test", "dev", "dev2", "dev3", "dev4", "dev5")
# Documents quoted from the 18F handbook pages that ../shared/data/policy-dev holds: that set only
# measures, so nothing is trained, tuned or fitted on them (they are labelled and measured here).
MEASURING_SET_SOURCE = "18F handbook"
TRAINING = DATA / "training"  # the training part (data/critic/training/README.md)


@dataclass(frozen=True)
class LabelledDocument:
    doc: str
    title: str
    split: str
    sections: list[tuple[str, list[tuple[str, frozenset[str]]]]]  # heading → (sentence, flags)
    source: str = ""

    def trainable(self) -> bool:
        """Not quoted from a measuring set's pages (`MEASURING_SET_SOURCE`): may train or tune."""
        return not self.source.startswith(MEASURING_SET_SOURCE)

    def sentences(self) -> list[tuple[str, frozenset[str]]]:
        return [s for _, group in self.sections for s in group]

    def policy_text(self) -> PolicyText:
        return read_sections(
            ((h, "\n\n".join(t for t, _ in group)) for h, group in self.sections), self.doc, self.title
        )


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def load(folder: Path = DATA) -> list[LabelledDocument]:
    docs = _rows(folder / "documents.jsonl")
    rows = _rows(folder / "sentences.jsonl")
    out = []
    for doc in docs:
        sections: list[tuple[str, list[tuple[str, frozenset[str]]]]] = []
        for row in (r for r in rows if r["doc"] == doc["doc"]):
            unknown = set(row["flags"]) - set(FLAGS)
            if unknown:
                raise ValueError(f"{row['id']}: unknown flags {sorted(unknown)}")
            if not sections or sections[-1][0] != row["section"]:
                sections.append((row["section"], []))
            sections[-1][1].append((row["text"], frozenset(row["flags"])))
        out.append(LabelledDocument(doc["doc"], doc["title"], doc["split"], sections, doc.get("source", "")))
    return out


def training_documents(folder: Path = DATA) -> list[LabelledDocument]:
    """The documents a model may learn and tune on: the development parts of `folder` and its
    training part, less any quoted from a measuring set's pages; never the held-out part."""
    training = folder / TRAINING.name
    docs = [d for d in load(folder) if d.split in DEVELOPMENT] + (load(training) if training.is_dir() else [])
    return [d for d in docs if d.trainable()]


def assign_split(docs: dict[str, list[frozenset[str]]], seed: int = SPLIT_SEED, share: float = 1 / 3) -> set[str]:
    """The test documents: taken in a random order seeded with `seed`, a document joins the test
    part while that part holds under `share` of the sentences (10 % slack), unless it would carry
    more than half of some flag's positives into it. The documents of every other part (`dev` …
    `dev4`, `dev5`, `heldout`), written after the first measurement, were never part of the draw."""
    order = sorted(docs)
    random.Random(seed).shuffle(order)
    total = sum(len(v) for v in docs.values())
    positives = Counter(f for flags in docs.values() for fl in flags for f in fl)
    test: set[str] = set()
    sentences, counts = 0, Counter[str]()
    for doc in order:
        here = Counter(f for fl in docs[doc] for f in fl)
        if sentences + len(docs[doc]) > share * total * 1.1:
            continue
        if any(counts[f] + here[f] > positives[f] / 2 for f in here):
            continue
        test.add(doc)
        sentences += len(docs[doc])
        counts += here
    return test


Predictor = Callable[[LabelledDocument], list[set[str]]]


def critic_predictor(embed: Embed | None = None, flagger: SentenceFlagger | None = None) -> Predictor:
    def predict(doc: LabelledDocument) -> list[set[str]]:
        result = critique(doc.policy_text(), embed, flagger)
        labelled = [t for t, _ in doc.sentences()]
        read = [s.text for s in result.sentences]
        if read != labelled:
            raise ValueError(f"{doc.doc}: the critic read other sentences than the labels name")
        return [set(s.flags) for s in result.sentences]

    return predict


_KEYWORDS = {
    "vague": re.compile(
        r"\b(?:" + "|".join(sorted(re.escape(w) for w in (*lx.VAGUE_WORDS, *lx.VAGUE_PHRASES, *lx.HEDGES))) + r")\b",
        re.I,
    ),
    "no_owner": re.compile(r"\b(?:be|is|are|been|being)\s+\w+ed\b", re.I),
    "modal": re.compile(r"\b(?:must|shall|should|required)\b", re.I),
    "consequence": re.compile("|".join(lx.CONSEQUENCE_PATTERNS), re.I),
    "reference": re.compile(
        r"\b(?:section|clause|paragraph|appendix|annex|schedule|part|table|figure)\s+[0-9A-Z]", re.I
    ),
}


def keyword_predictor(doc: LabelledDocument) -> list[set[str]]:
    """Each flag on its trigger words alone: the baseline a rule list without reading gives."""
    texts = [t for t, _ in doc.sentences()]
    values = [{(q.kind, q.value) for q in quantities(t)} for t in texts]
    out = []
    for i, text in enumerate(texts):
        flags = set()
        if _KEYWORDS["vague"].search(text):
            flags.add("vague")
        if _KEYWORDS["no_owner"].search(text) and " by " not in text:
            flags.add("no_owner")
        if _KEYWORDS["modal"].search(text):
            if not re.search(r"\d", text):
                flags.add("no_deadline")
            if not _KEYWORDS["consequence"].search(text):
                flags.add("no_consequence")
        kinds = {k for k, _ in values[i]}
        if any(
            {k for k, _ in other} & kinds and not values[i] <= other
            for j, other in enumerate(values)
            if j != i and other
        ):
            flags.add("contradiction")
        if _KEYWORDS["reference"].search(text):
            flags.add("dangling_reference")
        out.append(flags)
    return out


def embedding_classifier(train: list[LabelledDocument], embed: Embed) -> Predictor:
    """A logistic regression per flag on MiniLM sentence embeddings, fitted on `train`: what a
    small trained classifier learns from this many sentences, without the critic's reading."""
    from sklearn.linear_model import LogisticRegression

    texts = [t for d in train for t, _ in d.sentences()]
    gold = [f for d in train for _, f in d.sentences()]
    vectors = np.asarray(embed(texts))
    models = {
        flag: LogisticRegression(max_iter=2000, class_weight="balanced").fit(vectors, [flag in g for g in gold])
        for flag in FLAGS
    }

    def predict(doc: LabelledDocument) -> list[set[str]]:
        x = np.asarray(embed([t for t, _ in doc.sentences()]))
        said = {flag: model.predict(x) for flag, model in models.items()}
        return [{flag for flag in FLAGS if said[flag][i]} for i in range(len(x))]

    return predict


def majority_predictor(doc: LabelledDocument) -> list[set[str]]:
    return [set() for _ in doc.sentences()]


@dataclass(frozen=True)
class Score:
    precision: float  # found / flagged
    recall: float  # found / support
    f1: float
    support: int  # sentences labelled with the flag
    flagged: int  # sentences the system flagged
    found: int  # of those, labelled with the flag


def score(docs: list[LabelledDocument], predict: Predictor) -> dict[str, Score]:
    tp, fp, fn = Counter[str](), Counter[str](), Counter[str]()
    for doc in docs:
        for (_, gold), guess in zip(doc.sentences(), predict(doc), strict=True):
            for flag in FLAGS:
                tp[flag] += flag in gold and flag in guess
                fp[flag] += flag not in gold and flag in guess
                fn[flag] += flag in gold and flag not in guess
    out = {}
    for flag in FLAGS:
        p = tp[flag] / (tp[flag] + fp[flag]) if tp[flag] + fp[flag] else 0.0
        r = tp[flag] / (tp[flag] + fn[flag]) if tp[flag] + fn[flag] else 0.0
        f1 = 2 * p * r / (p + r) if p + r else 0.0
        out[flag] = Score(p, r, f1, tp[flag] + fn[flag], tp[flag] + fp[flag], tp[flag])
    return out


def macro_f1(scores: dict[str, Score]) -> float:
    return sum(s.f1 for s in scores.values()) / len(scores)


def errors(docs: list[LabelledDocument], predict: Predictor) -> list[str]:
    lines = []
    for doc in docs:
        for (text, gold), guess in zip(doc.sentences(), predict(doc), strict=True):
            if set(gold) != guess:
                missed, extra = sorted(set(gold) - guess), sorted(guess - set(gold))
                lines.append(f"{doc.doc}: missed {missed} extra {extra}: {text}")
    return lines


def second_labeller(labels: Path, folder: Path = DATA) -> Predictor:
    """Another labeller's flags (`{"id", "flags"}` per line, ids as in `folder`'s sentences.jsonl)
    scored as if they were a system: how far two people reading the same guidelines agree."""
    flags = {row["id"]: set(row["flags"]) for row in _rows(labels)}
    ids = {(r["doc"], r["text"]): r["id"] for r in _rows(folder / "sentences.jsonl")}
    return lambda doc: [flags[ids[(doc.doc, text)]] for text, _ in doc.sentences()]


def kappa(docs: list[LabelledDocument], predict: Predictor, flag: str) -> float:
    """Cohen's kappa between the labels and `predict` on one flag."""
    pairs = [
        (flag in gold, flag in guess) for d in docs for (_, gold), guess in zip(d.sentences(), predict(d), strict=True)
    ]
    n = len(pairs)
    observed = sum(a == b for a, b in pairs) / n
    pa, pb = sum(a for a, _ in pairs) / n, sum(b for _, b in pairs) / n
    expected = pa * pb + (1 - pa) * (1 - pb)
    return (observed - expected) / (1 - expected) if expected < 1 else 1.0


def _embedder() -> Embed:
    from pipeline.ingest.embedding import MiniLMEmbedding

    model = MiniLMEmbedding()
    return lambda texts: np.asarray(model.embed_many(texts))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m governance.critic.evaluate", description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=("heldout", *DEVELOPMENT, "all"), default="heldout")
    parser.add_argument("--data", type=Path, default=DATA, help="folder with documents.jsonl and sentences.jsonl")
    parser.add_argument(
        "--embed",
        action="store_true",
        help="pair contradictions by MiniLM cosine, as the app does, and add a classifier on MiniLM embeddings",
    )
    parser.add_argument("--json", type=Path, metavar="OUT", help="also write the scores as JSON")
    parser.add_argument(
        "--second-labels",
        type=Path,
        metavar="FILE",
        help="another labeller's flags for the same sentences (data/critic/second-labeller.jsonl: the parts a second labeller wrote): "
        "scored like a system, with Cohen's kappa per flag",
    )
    parser.add_argument("--errors", action="store_true", help="list the critic's mistakes (not on the heldout part!)")
    parser.add_argument(
        "--rules-only", action="store_true", help="leave the trained flagger out (the critic is its rules)"
    )
    parser.add_argument("--flagger", type=Path, default=DEFAULT_MODEL, help="the trained flagger (models/critic.pt)")
    args = parser.parse_args(argv)
    everything = load(args.data)
    docs = [d for d in everything if args.split == "all" or d.split == args.split]
    embed = _embedder() if args.embed else None
    flagger = None if args.rules_only else load_flagger(args.flagger)
    systems: dict[str, Predictor] = {"critic": critic_predictor(embed, flagger)}
    if flagger is not None:
        systems["rules only"] = critic_predictor(embed)
    if embed is not None:
        # fitted on the train part, or on the flagger's data when the held-out part is measured
        fitted = (
            training_documents(args.data)
            if args.split == "heldout"
            else [d for d in everything if d.split == "train" and d.trainable()]
        )
        systems["embedding classifier"] = embedding_classifier(fitted, embed)
    if args.second_labels:
        systems["second labeller"] = second_labeller(args.second_labels, args.data)
    systems["keyword baseline"] = keyword_predictor
    systems["majority baseline"] = majority_predictor
    results = {name: score(docs, predict) for name, predict in systems.items()}
    sentences = sum(len(d.sentences()) for d in docs)
    print(f"{args.split} part: {len(docs)} documents, {sentences} sentences")
    print(f"{'flag':<20}{'support':>8}" + "".join(f"{name:>22}" for name in results))
    for flag in FLAGS:
        cells = "".join(
            f"{r[flag].f1:>10.3f} (P {r[flag].precision:.2f} R {r[flag].recall:.2f})"[-22:].rjust(22)
            for r in results.values()
        )
        print(f"{flag:<20}{results['critic'][flag].support:>8}{cells}")
    print(f"{'macro F1':<28}" + "".join(f"{macro_f1(r):>22.3f}" for r in results.values()))
    if args.second_labels:
        kappas = {flag: kappa(docs, systems["second labeller"], flag) for flag in FLAGS}
        print("Cohen's kappa, second labeller: " + ", ".join(f"{f} {k:.2f}" for f, k in kappas.items()))
    if args.errors:
        print("\n".join(errors(docs, systems["critic"])))
    if args.json:
        report = {
            "split": args.split,
            "documents": len(docs),
            "sentences": sentences,
            "embed": args.embed,
            "systems": {
                name: {"macro_f1": round(macro_f1(r), 4), "flags": {f: s.__dict__ for f, s in r.items()}}
                for name, r in results.items()
            },
        }
        args.json.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
