"""The reader's training pairs: (question, candidate sentence read with its heading, label).

A question comes with the candidates Warrant's gate would read for it, each labelled 1 when it
holds the answer and 0 otherwise; a "group" is one question with its candidates. Sources:

- `../shared/data/answerability/` (its README gives sources and licences): SQuAD 2.0's 19 training
  articles with their adversarial unanswerable questions, SQuAD 1.1's 13 articles, SelQA answer
  sentence selection, COVID-QA. For a SQuAD or COVID-QA question the candidates are the sentences
  of its paragraph closest to it (MiniLM cosine) and the closest sentences of *other* paragraphs
  of the same article — the related rule a near-miss gets answered with today; a sentence holding
  an answer span is 1. A sentence elsewhere that holds the answer text too is left out, not
  labelled 0.
- qualifier swaps: from an answerable question, one that its answering sentence no longer answers —
  a number, a name or a group word that the two share is exchanged for another ("…in 1973?" →
  "…in 1975?"); every candidate of the swapped question is 0.
- `data/reader/` (CC0, written for Warrant): 1,539 questions in the words of employees, students and
  members over eight fictional organisations' policies, a quarter of them near-misses with the
  tempting sentence named. Chunked by Warrant's own chunker, read under "title: section".

`../shared/data/squad2/` and `../shared/data/policy-dev/` are measuring sets: nothing here reads them.
Split: 3 SQuAD 2.0 articles, a tenth of SelQA questions and of COVID-QA articles, and 2 of the 8
policy documents are the `tune` split (checkpoint choice, and the gate's λ and τ); the rest `train`.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from pipeline.gate.reader import heading_for
from pipeline.gate.readings import is_fragment
from pipeline.ground.config import REPO_ROOT
from pipeline.ingest.chunking import chunk_document
from pipeline.ingest.documents import read_document
from pipeline.language.text import split_sentences

ANSWERABILITY = REPO_ROOT.parent / "shared" / "data" / "answerability"
POLICY = REPO_ROOT / "data" / "reader"
TUNE_SQUAD2_ARTICLES = 3
TUNE_SHARE = 0.1  # of SelQA questions and COVID-QA articles
TUNE_POLICY_DOCS = 2
OWN_LIMIT = 8  # sentences of the answering paragraph, closest first
OTHER_LIMIT = 4  # closest sentences of other paragraphs
POLICY_CANDIDATES = 12

# General-English group words a rule is stated for; a qualifier swap exchanges one for another.
GROUP_WORDS = (
    "students undergraduates postgraduates employees interns contractors managers supervisors staff "
    "visitors members children adults women men teachers officers residents citizens workers "
    "patients doctors nurses soldiers"
).split()
_NUMBER = re.compile(r"\b\d[\d,.]*\b")
_NAME = re.compile(r"\b[A-Z][a-z]+(?:\s+[A-Z][a-z]+)*\b")


@dataclass
class Candidate:
    text: str
    label: int
    kind: str  # own | other | swap | near


@dataclass
class Group:
    """One question and the candidate sentences the reader is trained to judge for it."""

    source: str
    split: str  # train | tune
    question: str
    answerable: bool
    candidates: list[Candidate] = field(default_factory=list)
    headings: list[str] = field(default_factory=list)  # one per candidate

    def add(self, text: str, label: int, kind: str, heading: str) -> None:
        self.candidates.append(Candidate(text, label, kind))
        self.headings.append(heading)


class SentenceEncoder:
    """MiniLM sentence vectors (normalised), each distinct text encoded once."""

    def __init__(self) -> None:
        from pipeline.ingest.embedding import load_sentence_model

        self._model = load_sentence_model()
        self._cache: dict[str, np.ndarray] = {}

    def __call__(self, texts: list[str]) -> np.ndarray:
        todo = sorted({t for t in texts if t not in self._cache})
        if todo:
            vectors = self._model.encode(todo, batch_size=64, normalize_embeddings=True, show_progress_bar=False)
            self._cache.update(zip(todo, np.asarray(vectors, dtype=np.float32), strict=True))
        if not texts:
            return np.zeros((0, 384), dtype=np.float32)
        return np.stack([self._cache[t] for t in texts])


def _spans(context: str) -> list[tuple[str, int, int]]:
    """The context's sentences with their character spans."""
    out, position = [], 0
    for sentence in split_sentences(context):
        start = context.find(sentence[:30], position)
        if start < 0:
            start = context.find(sentence.split()[0], position) if sentence.split() else position
            start = max(start, position)
        out.append((sentence, start, start + len(sentence)))
        position = start + 1
    return out


def _holding(spans: list[tuple[str, int, int]], answers: list[tuple[int, int]]) -> set[int]:
    """Indices of the sentences an answer span (start, length) falls in."""
    hit = set()
    for start, length in answers:
        end = start + max(1, length)
        for i, (_, a, b) in enumerate(spans):
            if a <= start <= b or (start <= a < end):
                hit.add(i)
    return hit


def _squad_groups(path: Path, source: str, encode: SentenceEncoder, tune_titles: set[str]) -> Iterator[Group]:
    for article in json.loads(path.read_text(encoding="utf-8"))["data"]:
        title = article["title"].replace("_", " ")
        split = "tune" if article["title"] in tune_titles else "train"
        paragraphs = [_spans(p["context"]) for p in article["paragraphs"]]
        flat = [(pi, si, s) for pi, spans in enumerate(paragraphs) for si, (s, _, _) in enumerate(spans)]
        vectors = encode([s for _, _, s in flat])
        for pi, paragraph in enumerate(article["paragraphs"]):
            spans = paragraphs[pi]
            for qa in paragraph["qas"]:
                impossible = bool(qa.get("is_impossible"))
                answers = qa.get("answers") or []
                gold = set() if impossible else _holding(spans, [(a["answer_start"], len(a["text"])) for a in answers])
                if not impossible and not gold:
                    continue
                similarity = vectors @ encode([qa["question"]])[0]
                own = sorted((i for i, f in enumerate(flat) if f[0] == pi), key=lambda i: -similarity[i])
                kept = [flat[i][1] for i in own[:OWN_LIMIT]]
                kept += [g for g in sorted(gold) if g not in kept]
                group = Group(source, split, qa["question"], not impossible)
                for si in kept:
                    group.add(spans[si][0], int(si in gold), "own", title)
                texts = [a["text"].lower() for a in answers]
                others = (i for i in np.argsort(-similarity) if flat[i][0] != pi)
                added = 0
                for i in others:
                    if added == OTHER_LIMIT:
                        break
                    if not any(t and t in flat[i][2].lower() for t in texts):
                        group.add(flat[i][2], 0, "other", title)
                        added += 1
                yield group


def _selqa_groups(rng: random.Random) -> Iterator[Group]:
    for name in ("selqa-dev.json", "selqa-test.json"):
        for item in json.loads((ANSWERABILITY / name).read_text(encoding="utf-8")):
            answers = set(item.get("answers") or [])
            candidates = item["candidates"][:16]
            if not candidates:
                continue
            split = "tune" if rng.random() < TUNE_SHARE else "train"
            if answers and not answers & set(range(len(candidates))):
                continue
            heading = f"{item.get('article', '')}: {item.get('section', '')}".strip(": ")
            group = Group("selqa", split, item["question"], bool(answers))
            for i, text in enumerate(candidates):
                group.add(text, int(i in answers), "own", heading)
            yield group


def _covid_groups(encode: SentenceEncoder, rng: random.Random) -> Iterator[Group]:
    for article in json.loads((ANSWERABILITY / "covidqa.json").read_text(encoding="utf-8"))["data"]:
        split = "tune" if rng.random() < TUNE_SHARE else "train"
        for paragraph in article["paragraphs"]:
            context = paragraph["context"]
            title = context.strip().splitlines()[0][:120] if context.strip() else ""
            spans = [s for s in _spans(context) if 4 <= len(s[0].split()) <= 80]
            if not spans:
                continue
            vectors = encode([s for s, _, _ in spans])
            for qa in paragraph["qas"]:
                answers = qa.get("answers") or []
                gold = _holding(spans, [(a["answer_start"], len(a["text"])) for a in answers])
                if not gold:
                    continue
                group = Group("covidqa", split, qa["question"], True)
                for g in sorted(gold)[:3]:
                    group.add(spans[g][0], 1, "own", title)
                texts = [a["text"].lower()[:60] for a in answers]
                added = 0
                for i in np.argsort(-(vectors @ encode([qa["question"]])[0])):
                    if added == 6:
                        break
                    if i not in gold and not any(t and t in spans[i][0].lower() for t in texts):
                        group.add(spans[i][0], 0, "other", title)
                        added += 1
                yield group


def qualifier_swap(group: Group, names: list[str], rng: random.Random) -> Group | None:
    """The question with one qualifier its answering sentence states exchanged for another, so
    that no candidate answers it; None when the question and the sentence share none."""
    positive = " ".join(c.text for c in group.candidates if c.label)
    if not positive:
        return None
    question = group.question
    options: list[tuple[str, re.Match[str] | str]] = [
        ("number", m) for m in _NUMBER.finditer(question) if m.group() in positive
    ]
    heading = group.headings[0] if group.headings else ""
    options += [
        ("name", m)
        for m in _NAME.finditer(question)
        if m.start() > 0 and m.group() in positive and m.group() not in heading
    ]
    options += [("group", w) for w in GROUP_WORDS if re.search(rf"\b{w}\b", question.lower()) and w in positive.lower()]
    if not options:
        return None
    kind, found = rng.choice(options)
    if isinstance(found, str):  # a group word
        others = [w for w in GROUP_WORDS if w != found and w not in positive.lower()]
        text = re.sub(rf"\b{found}\b", rng.choice(others), question, count=1, flags=re.IGNORECASE)
    elif kind == "number":
        try:
            value = float(found.group().replace(",", ""))
        except ValueError:
            return None
        step = rng.choice([1, 2, 3, 5, 10]) * rng.choice([-1, 1]) if value > 12 else rng.choice([1, 2, 3])
        new = value + step
        if new <= 0 or str(int(new)) in positive:
            return None
        text = question[: found.start()] + (f"{int(new)}" if new == int(new) else f"{new:g}") + question[found.end() :]
    else:
        choices = [n for n in names if n not in positive and n not in question]
        if not choices:
            return None
        text = question[: found.start()] + rng.choice(choices) + question[found.end() :]
    swapped = Group(f"{group.source}+swap", group.split, text, False)
    for c, heading in zip(group.candidates, group.headings, strict=True):
        swapped.add(c.text, 0, "swap" if c.label else c.kind, heading)
    return swapped


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9£$€%]+", text.lower()))


def _same_sentence(chunk_sentence: str, labelled: str) -> bool:
    """A chunk's sentence is the labelled one (a table row comes back as 'Header: value; …')."""
    a, b = " ".join(chunk_sentence.split()).lower(), " ".join(labelled.split()).lower().strip("| ")
    if a == b or (len(b) > 20 and (b in a or a in b)):
        return True
    wa, wb = _words(chunk_sentence), _words(labelled)
    return bool(wb) and len(wa & wb) / len(wb) >= 0.85 and len(wa & wb) / max(1, len(wa)) >= 0.6


def _policy_sentences(path: Path) -> list[tuple[str, str]]:
    """(sentence, heading) of a policy document as Warrant chunks and reads it."""
    document = read_document(path, path.parent)
    rows = []
    for chunk in chunk_document(document):
        read_under = heading_for(document.title, chunk.section or "")
        sentences = split_sentences(chunk.text)
        rows += [(s, read_under) for s in sentences if not is_fragment(s, chunk.section or "", len(sentences))]
    return rows


def policy_groups(encode: SentenceEncoder, seed: int, folder: Path = POLICY) -> Iterator[Group]:
    """The hand-written policy questions, each with the document's closest sentences (and its
    answering and tempting sentences, wherever they rank)."""
    documents = sorted((folder / "docs").glob("*.md"))
    tune = set(random.Random(seed).sample([d.name for d in documents], min(TUNE_POLICY_DOCS, len(documents))))
    sentences = {d.name: _policy_sentences(d) for d in documents}
    vectors = {name: encode([s for s, _ in rows]) for name, rows in sentences.items()}
    for line in (folder / "questions.jsonl").open(encoding="utf-8"):
        item = json.loads(line)
        rows = sentences[item["doc"]]
        gold = {i for i, (s, _) in enumerate(rows) for label in item["sentences"] if _same_sentence(s, label)}
        near = {i for i, (s, _) in enumerate(rows) if item.get("near") and _same_sentence(s, item["near"])}
        if item["answerable"] and not gold:
            continue  # its sentence was cut otherwise by the chunker: no clean label
        order = list(np.argsort(-(vectors[item["doc"]] @ encode([item["question"]])[0])))
        kept = order[:POLICY_CANDIDATES] + [i for i in sorted(gold | near) if i not in order[:POLICY_CANDIDATES]]
        group = Group("policy", "tune" if item["doc"] in tune else "train", item["question"], bool(item["answerable"]))
        for i in kept:
            group.add(rows[i][0], int(i in gold), "near" if i in near else "own", rows[i][1])
        yield group


def build(out: Path, seed: int = 13) -> dict:
    """Write every group as one JSON line; return counts by source and split."""
    rng = random.Random(seed)
    encode = SentenceEncoder()
    squad2 = ANSWERABILITY / "squad2-train-articles.json"
    titles = sorted(a["title"] for a in json.loads(squad2.read_text(encoding="utf-8"))["data"])
    tune_titles = set(random.Random(seed).sample(titles, TUNE_SQUAD2_ARTICLES))
    groups = list(_squad_groups(squad2, "squad2", encode, tune_titles))
    groups += _squad_groups(ANSWERABILITY / "squad11-train-articles.json", "squad11", encode, set())
    groups += _selqa_groups(rng)
    groups += _covid_groups(encode, rng)
    names: dict[str, list[str]] = {}
    for g in groups:
        names.setdefault(g.headings[0] if g.headings else "", []).extend(
            m.group() for c in g.candidates for m in _NAME.finditer(c.text) if m.start() > 0
        )
    swaps = [
        qualifier_swap(g, sorted(set(names.get(g.headings[0], []))), rng) for g in groups if g.answerable and g.headings
    ]
    groups += [s for s in swaps if s is not None]
    groups += policy_groups(encode, seed)
    out.parent.mkdir(parents=True, exist_ok=True)
    counts: dict[str, dict[str, int]] = {}
    with open(out, "w", encoding="utf-8") as fh:
        for g in groups:
            fh.write(json.dumps(asdict(g)) + "\n")
            row = counts.setdefault(
                f"{g.source}/{g.split}", {"questions": 0, "unanswerable": 0, "pairs": 0, "positive": 0}
            )
            row["questions"] += 1
            row["unanswerable"] += not g.answerable
            row["pairs"] += len(g.candidates)
            row["positive"] += sum(c.label for c in g.candidates)
    return {"tune_squad2_articles": sorted(tune_titles), "groups": counts}


def load_groups(path: Path) -> list[dict]:
    return [json.loads(line) for line in Path(path).open(encoding="utf-8") if line.strip()]
