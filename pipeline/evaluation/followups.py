"""How well follow-ups are made self-contained: `python -m pipeline.evaluation.followups`.

Each line of a follow-up set (data/followups/*.jsonl) is a short conversation: the earlier
questions (`history`, oldest first), the follow-up (`question`) and the text that should be
searched (`expected`), with its `kind` (ellipsis, pronoun, what_about, programme, topic_switch).
The earlier questions are passed through the rewriter first, as the chat does (memory keeps each
question as it was searched), so a chain of follow-ups is measured as it happens.

A pair is right when the searched text (the rewrite, or the question itself when none is made)
holds the expected content words and no others: the same stemmed terms, synonyms folded, numbers
kept, one stem a prefix of the other allowed ("regist" for "registr"). Word order, function words
and the glossary's generic terms ("student") do not count: retrieval reads the first two not at
all and gives the last little weight.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from pipeline.answer.rewrite import rewrite_followup
from pipeline.ground.config import REPO_ROOT
from pipeline.language import glossary
from pipeline.language.text import canonical_terms, is_generic, numbers

DEFAULT_SET = REPO_ROOT / "data" / "followups" / "dev.jsonl"
DEFAULT_DOCS = REPO_ROOT / "data" / "policies"
_PREFIX = 5  # shortest shared stem prefix that counts as the same word


@dataclass(frozen=True)
class FollowupResult:
    id: str
    kind: str
    searched: str
    expected: str
    missing: tuple[str, ...]
    extra: tuple[str, ...]

    @property
    def right(self) -> bool:
        return not self.missing and not self.extra


def _terms(text: str) -> set[str]:
    return {t for t in canonical_terms(text) if not is_generic(t)} | numbers(text)


def _same(a: str, b: str) -> bool:
    return a == b or (min(len(a), len(b)) >= _PREFIX and (a.startswith(b) or b.startswith(a)))


def searched_text(question: str, history: list[str]) -> str:
    """What the chat searches for `question` after `history`: each earlier question rewritten in turn."""
    earlier: list[str] = []
    for asked in history:
        earlier.append(rewrite_followup(asked, earlier) or asked)
    return rewrite_followup(question, earlier) or question


def judge(item: dict) -> FollowupResult:
    searched = searched_text(item["question"], list(item.get("history", [])))
    got, want = _terms(searched), _terms(item["expected"])
    return FollowupResult(
        id=item["id"],
        kind=item.get("kind", ""),
        searched=searched,
        expected=item["expected"],
        missing=tuple(sorted(w for w in want if not any(_same(w, g) for g in got))),
        extra=tuple(sorted(g for g in got if not any(_same(g, w) for w in want))),
    )


def load_set(path: Path) -> list[dict]:
    return [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pipeline.evaluation.followups", description=__doc__)
    parser.add_argument(
        "--set", type=Path, default=DEFAULT_SET, help="a follow-up set (default data/followups/dev.jsonl)"
    )
    parser.add_argument("--docs", type=Path, default=DEFAULT_DOCS, help="the documents whose glossary.yaml to use")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every pair, not only the wrong ones")
    args = parser.parse_args(argv)
    glossary.use(glossary.Glossary.load(args.docs))
    results = [judge(item) for item in load_set(args.set)]
    for r in results:
        if args.verbose or not r.right:
            mark = "ok  " if r.right else "FAIL"
            print(f"{mark} {r.id}: searched {r.searched!r}; expected {r.expected!r}", end="")
            print(f" (missing {', '.join(r.missing)})" if r.missing else "", end="")
            print(f" (extra {', '.join(r.extra)})" if r.extra else "")
    kinds = Counter(r.kind for r in results)
    right = Counter(r.kind for r in results if r.right)
    for kind in sorted(kinds):
        print(f"{kind:14} {right[kind]:3d}/{kinds[kind]:<3d} {right[kind] / kinds[kind]:.2f}")
    total = sum(right.values())
    print(f"{'all':14} {total:3d}/{len(results):<3d} {total / max(len(results), 1):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
