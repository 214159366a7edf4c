"""How long the policy critic takes, by document size, as the app runs it and by rules alone.

`python -m scenarios.bench.critic [--repeat N] [--copies 1,2]` prints one JSON object:

- `per_document`: each demo policy (`data/policies`) critiqued N times; seconds per critique
  (median, p95 over all documents and repeats) with MiniLM pairing and the trained flagger, as the
  Documents tab runs it (`app`), and by the rules with word pairing (`rules`), the path without a
  model (`python -m governance documents critique` when no model loads);
- `library`: the demo policies joined into one document, `copies` times over with every number
  shifted per copy (so copies are near-paraphrases that differ in their values, the worst case for
  the contradiction pairs): sentences, seconds by both paths, and the part of the app's seconds
  spent embedding the sentences (as the app does, on every critique);
- `long_sentence`: a single 20,000-character sentence of each repeated unit, by rules (the
  readers of values, cases and clauses must stay linear in a sentence's length).

Run on a quiet machine: the numbers are wall-clock seconds of one process with one thread.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path

import numpy as np

from scenarios.bench.stats import summarise

POLICIES = Path(__file__).resolve().parents[2] / "data" / "policies"
LONG_UNITS = ("$1 ", "1 to 2 ", "more than 1 ", "the manager must ", "if you must ", "staff is to be ")


class _TimedEmbed:
    """The app's MiniLM vectors for the critic (`governance.critic.service.embedder`); `spent`
    counts the seconds spent encoding since it was last set to 0."""

    def __init__(self) -> None:
        from governance.critic.service import embedder
        from pipeline.ingest.embedding import MiniLMEmbedding

        embed = embedder(MiniLMEmbedding(memo_texts=0))  # each repeat embeds afresh
        if embed is None:  # only without a model, and one is given here
            raise RuntimeError("the critic's embedder needs a sentence model")
        self._embed = embed
        self.spent = 0.0

    def __call__(self, texts: list[str]) -> np.ndarray:
        started = time.perf_counter()
        try:
            return self._embed(texts)
        finally:
            self.spent += time.perf_counter() - started


def _timed(run) -> float:
    started = time.perf_counter()
    run()
    return time.perf_counter() - started


def _shifted(text: str, by: int) -> str:
    return re.sub(r"\d+", lambda m: str(int(m.group()) + by), text)


def run(repeat: int, copies: list[int]) -> dict:
    from governance.critic.critic import critique_text
    from governance.critic.flagger import DEFAULT_MODEL, load_flagger
    from governance.critic.reading import read_policy

    embed = _TimedEmbed()
    flagger = load_flagger(DEFAULT_MODEL)
    texts = {p.name: p.read_text(encoding="utf-8") for p in sorted(POLICIES.glob("*.md"))}
    critique_text(next(iter(texts.values())), "warm.md", "", embed, flagger)  # load and warm both models

    app, rules = [], []
    for _ in range(repeat):
        for name, text in texts.items():
            app.append(_timed(lambda t=text, n=name: critique_text(t, n, "", embed, flagger)))
            rules.append(_timed(lambda t=text, n=name: critique_text(t, n)))
    out: dict = {
        "repeat": repeat,
        "per_document": {"documents": len(texts), "app_s": summarise(app), "rules_s": summarise(rules)},
        "library": [],
        "long_sentence": {},
    }

    for k in copies:
        joined = "\n\n".join(_shifted(t, c) for c in range(k) for t in texts.values())
        sentences = len(read_policy(joined, "library.md").sentences)
        app_s, embed_s, rules_s = [], [], []
        for _ in range(repeat):
            embed.spent = 0.0
            app_s.append(_timed(lambda j=joined: critique_text(j, "library.md", "", embed, flagger)))
            embed_s.append(embed.spent)
            rules_s.append(_timed(lambda j=joined: critique_text(j, "library.md")))
        out["library"].append(
            {
                "copies": k,
                "characters": len(joined),
                "sentences": sentences,
                "app_s": summarise(app_s),
                "app_embedding_s": summarise(embed_s),
                "rules_s": summarise(rules_s),
            }
        )

    for unit in LONG_UNITS:
        text = "# P\n\n## 1. Rule\n\n" + (unit * 20_000)[:20_000] + "a or more.\n"
        out["long_sentence"][unit.strip()] = summarise(
            [_timed(lambda t=text: critique_text(t, "long.md")) for _ in range(repeat)]
        )
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m scenarios.bench.critic", description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="critiques of each text (default 3)")
    parser.add_argument("--copies", default="1,2", help="sizes of the joined library, in copies (default 1,2)")
    args = parser.parse_args(argv)
    from pipeline.ground.config import set_offline_environment

    set_offline_environment()
    copies = [int(c) for c in args.copies.split(",") if c.strip()]
    print(json.dumps(run(max(1, args.repeat), copies), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
