"""Check the hand-written reader training set in this folder: docs/*.md and questions.jsonl.

Run from anywhere: `python data/reader/validate.py` (standard library only). It checks that

- every document has YAML front matter with doc_id, title, version, effective_date and owner, a
  `# Title`, and a body of 1,500-3,000 words;
- every question line is a JSON object with the fields of the README, its id is unique, its kind is
  one of the six kinds, and `answerable` agrees with the kind;
- every `sentences[i]` and `near` occurs verbatim in its document (after collapsing whitespace) AND
  is a whole unit of it: a whole sentence of a paragraph or list item, a whole list item, a whole
  lead-in line, or a whole Markdown table row (see `units`);
- answerable questions have an answer and 1-3 sentences and no `near`; unanswerable ones have no
  answer and no sentences, a `why`, and (near_miss) a `near` sentence;
- there are at least --min-per-doc questions per document and --min-total in all.

It prints counts by document and kind, the kinds' shares, and exits 1 when anything is wrong.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
KINDS_ANSWERABLE = {
    "direct": True,
    "who": True,
    "yesno": True,
    "number": True,
    "near_miss": False,
    "not_covered": False,
}
TARGET_SHARE = {"direct": 0.30, "who": 0.12, "yesno": 0.13, "number": 0.10, "near_miss": 0.25, "not_covered": 0.10}
FRONT_MATTER_KEYS = ("doc_id", "title", "version", "effective_date", "owner")
FIELDS = {
    "id": str,
    "doc": str,
    "question": str,
    "answerable": bool,
    "kind": str,
    "answer": str,
    "sentences": list,
    "near": str,
    "why": str,
}
# A sentence ends at . ! or ? followed by white space and a capital, a digit or an opening quote/bracket.
# The documents avoid abbreviations with full stops ("e.g.", "Dr.") so that this rule is exact for them.
SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9(\"'“‘£€$])")
LIST_MARKER = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
TABLE_RULE = re.compile(r"^\|?\s*:?-{3,}")
WORD = re.compile(r"[a-z0-9]+")


def collapse(text: str) -> str:
    """The text with every run of white space replaced by one space, stripped."""
    return " ".join(text.split())


def split_front_matter(text: str) -> tuple[dict[str, str], str]:
    """The front matter's top-level `key: value` pairs and the body after it."""
    if not text.startswith("---\n"):
        return {}, text
    end = text.find("\n---\n", 4)
    if end < 0:
        return {}, text
    meta: dict[str, str] = {}
    for line in text[4:end].splitlines():
        key, sep, value = line.partition(":")
        if sep and key.strip():
            meta[key.strip()] = value.strip().strip('"')
    return meta, text[end + 5 :]


def units(body: str) -> set[str]:
    """The whole units a question may cite: table rows (the line as written), list items, and the
    sentences of paragraphs and list items. Headings and table header/rule lines are not units."""
    found: set[str] = set()
    lines = body.splitlines()
    for index, raw in enumerate(lines):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("|"):
            is_header = index + 1 < len(lines) and TABLE_RULE.match(lines[index + 1].strip()) is not None
            if not TABLE_RULE.match(line) and not is_header:
                found.add(collapse(line))
            continue
        item = LIST_MARKER.sub("", line)
        if item != line:
            found.add(collapse(item))
        found.update(collapse(part) for part in SENTENCE_END.split(item) if part.strip())
    return found


def overlap(question: str, sentence: str) -> float:
    """Share of the question's content words (4+ letters) that also occur in the sentence."""
    q = {w for w in WORD.findall(question.lower()) if len(w) >= 4}
    s = set(WORD.findall(sentence.lower()))
    return len(q & s) / len(q) if q else 0.0


def check_docs(docs_dir: Path, problems: list[str]) -> dict[str, tuple[str, set[str], int]]:
    """Each document's collapsed body, its units and its word count, by file name."""
    docs: dict[str, tuple[str, set[str], int]] = {}
    for path in sorted(docs_dir.glob("*.md")):
        meta, body = split_front_matter(path.read_text(encoding="utf-8"))
        missing = [key for key in FRONT_MATTER_KEYS if not meta.get(key)]
        if missing:
            problems.append(f"{path.name}: front matter lacks {', '.join(missing)}")
        if not re.search(r"^# \S", body, re.MULTILINE):
            problems.append(f"{path.name}: no '# Title' heading")
        words = len(body.split())
        if not 1500 <= words <= 3000:
            problems.append(f"{path.name}: {words} words, outside 1,500-3,000")
        docs[path.name] = (collapse(body), units(body), words)
    if not docs:
        problems.append(f"no documents in {docs_dir}")
    return docs


def check_cited(where: str, text: str, doc: tuple[str, set[str], int], problems: list[str]) -> None:
    """A cited sentence must occur verbatim in its document and be one whole unit of it."""
    flat = collapse(text)
    if flat not in doc[0]:
        problems.append(f"{where}: not verbatim in the document: {text!r}")
    elif flat not in doc[1]:
        problems.append(f"{where}: occurs, but is not a whole sentence, list item or table row: {text!r}")


def check_question(record: dict[str, object], docs: dict[str, tuple[str, set[str], int]], problems: list[str]) -> None:
    """Field types, kind/answerable agreement, and the cited sentences of one question."""
    qid = str(record.get("id", "?"))
    for field, expected in FIELDS.items():
        if not isinstance(record.get(field), expected):
            problems.append(f"{qid}: field {field!r} missing or not {expected.__name__}")
            return
    doc = docs.get(str(record["doc"]))
    if doc is None:
        problems.append(f"{qid}: unknown doc {record['doc']!r}")
        return
    kind = str(record["kind"])
    if kind not in KINDS_ANSWERABLE:
        problems.append(f"{qid}: invalid kind {kind!r}")
        return
    answerable = KINDS_ANSWERABLE[kind]
    cited = record["sentences"]
    sentences = [str(s) for s in cited] if isinstance(cited, list) else []
    if record["answerable"] is not answerable:
        problems.append(
            f"{qid}: answerable={record['answerable']} but kind {kind} is {'' if answerable else 'un'}answerable"
        )
    if not str(record["question"]).strip():
        problems.append(f"{qid}: empty question")
    if answerable:
        if not 1 <= len(sentences) <= 3:
            problems.append(f"{qid}: answerable questions cite 1-3 sentences, not {len(sentences)}")
        if not str(record["answer"]).strip():
            problems.append(f"{qid}: answerable question without an answer")
        if record["near"]:
            problems.append(f"{qid}: answerable question with a near sentence")
    else:
        if sentences or record["answer"]:
            problems.append(f"{qid}: unanswerable question with sentences or an answer")
        if not str(record["why"]).strip():
            problems.append(f"{qid}: unanswerable question without a why")
        if kind == "near_miss" and not str(record["near"]).strip():
            problems.append(f"{qid}: near_miss question without a near sentence")
    for number, sentence in enumerate(sentences):
        check_cited(f"{qid} sentences[{number}]", sentence, doc, problems)
    if record["near"]:
        check_cited(f"{qid} near", str(record["near"]), doc, problems)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=Path, default=HERE / "docs")
    parser.add_argument("--questions", type=Path, default=HERE / "questions.jsonl")
    parser.add_argument("--min-per-doc", type=int, default=150)
    parser.add_argument("--min-total", type=int, default=1200)
    args = parser.parse_args()

    problems: list[str] = []
    docs = check_docs(args.docs, problems)
    ids: Counter[str] = Counter()
    texts: set[tuple[str, str]] = set()
    by_doc: dict[str, Counter[str]] = defaultdict(Counter)
    overlaps: list[float] = []
    for number, line in enumerate(args.questions.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            problems.append(f"line {number}: not JSON ({error})")
            continue
        if not isinstance(record, dict):
            problems.append(f"line {number}: not a JSON object")
            continue
        ids[str(record.get("id"))] += 1
        key = (str(record.get("doc")), collapse(str(record.get("question", ""))).lower())
        if key in texts:
            problems.append(f"{record.get('id')}: the same question text appears twice for {key[0]}")
        texts.add(key)
        check_question(record, docs, problems)
        by_doc[str(record.get("doc"))][str(record.get("kind"))] += 1
        if record.get("kind") == "near_miss" and record.get("near"):
            overlaps.append(overlap(str(record["question"]), str(record["near"])))
    problems.extend(f"id {qid!r} used {count} times" for qid, count in ids.items() if count > 1)

    kinds = list(KINDS_ANSWERABLE)
    total: Counter[str] = Counter()
    print(f"{'document':28} {'words':>5} " + " ".join(f"{k:>11}" for k in kinds) + f" {'total':>6}")
    for name in sorted(set(docs) | set(by_doc)):
        counts = by_doc[name]
        total.update(counts)
        words = docs[name][2] if name in docs else 0
        print(f"{name:28} {words:>5} " + " ".join(f"{counts[k]:>11}" for k in kinds) + f" {sum(counts.values()):>6}")
        if name in docs and sum(counts.values()) < args.min_per_doc:
            problems.append(f"{name}: {sum(counts.values())} questions, fewer than {args.min_per_doc}")
    grand = sum(total.values())
    print(f"{'all':28} {'':>5} " + " ".join(f"{total[k]:>11}" for k in kinds) + f" {grand:>6}")
    if grand:
        print("share (target)".ljust(34) + " ".join(f"{total[k] / grand:>5.0%} ({TARGET_SHARE[k]:.0%})" for k in kinds))
    answerable = sum(total[k] for k in kinds if KINDS_ANSWERABLE[k])
    print(f"answerable {answerable}, unanswerable {grand - answerable}")
    if overlaps:
        print(
            f"near_miss: mean share of the question's content words found in its near sentence {sum(overlaps) / len(overlaps):.2f}"
        )
    if grand < args.min_total:
        problems.append(f"{grand} questions in all, fewer than {args.min_total}")
    for problem in problems:
        print("PROBLEM:", problem)
    print(f"{len(problems)} problem(s)" if problems else "OK: all checks passed")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
