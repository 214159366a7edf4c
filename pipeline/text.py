"""Lexical helpers shared by the support score, the synthesiser and the verifier.

Deliberately simple and deterministic: lower-cased word tokens, a small stop list, a light
suffix stemmer, and number/quantity extraction that keeps the unit ("Rs. 500", "7 days",
"week 2", "40%") because units are what make two numbers comparable.
"""

from __future__ import annotations

import functools
import re
import unicodedata

_WORD = re.compile(r"[a-z0-9]+(?:[.\-][a-z0-9]+)*")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\"'])")
_ABBREV_END = re.compile(r"\b(?:Rs|Dr|Mr|Ms|Mrs|Prof|No|e\.g|i\.e|etc|vs|St|Sec)\.$")

STOPWORDS = frozenset(
    """a about above after again against all also am an and any are as at be because been before
    being below between both but by can could did do does doing done during each either else
    ever every few for from further get gets getting got had has have having he her here hers him
    his how i if in into is it its itself just let like may me might more most much must my myself
    need needs no nor not now of off on once only or other our ours out over own per please same
    shall she should so some such than that the their theirs them then there these they this those
    through to too under until up upon us very via was we were what when where which while who whom
    whose why will with within without would yes yet you your yours yourself tell know want wanted
    anyone someone something thing things able allowed kindly hi hello hey dear regarding say says
    said one ones many lot lots really actually currently exactly happen happens happened go goes
    going went gone long soon quickly still another chance instead different good bad see find
    finds found come comes put puts give gives given keep kept happen end ends ended way ways
    anything everything nothing kind sort bit also already even much""".split()
)

# Words so common in this kind of corpus that they say little about what is being asked.
GENERIC_TERMS = frozenset(
    """student students policy policies institute university rule rules section course courses
    semester hit halden""".split()
)

_NEGATIONS = frozenset({"not", "no", "never", "cannot", "can't", "nor", "without", "neither", "none"})


def normalise_text(text: str) -> str:
    """NFKC, straight quotes and dashes, unified whitespace; keeps line structure."""
    text = unicodedata.normalize("NFKC", text)
    text = (
        text.replace("\u2018", "'").replace("\u2019", "'").replace("\u201c", '"').replace("\u201d", '"')
        .replace("\u2013", "-").replace("\u2014", " - ").replace("\u20b9", "Rs. ").replace("\u00a0", " ")
    )
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = re.sub(r"[ \t]+", " ", text)
    text = "".join(ch for ch in text if ch == "\n" or ch == "\t" or unicodedata.category(ch)[0] != "C")
    return re.sub(r"\n{3,}", "\n\n", text).strip()


@functools.lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A light suffix stripper: enough to match fee/fees, register/registration/registered."""
    if len(word) <= 3 or not word.isalpha():
        return word
    for suffix, min_len in (
        ("ations", 4), ("ation", 4), ("ments", 4), ("ment", 4), ("ings", 4), ("ing", 4),
        ("ities", 4), ("ity", 4), ("ies", 3), ("ied", 3), ("ness", 4), ("ers", 4), ("er", 4),
        ("ed", 4), ("es", 4), ("s", 3),
    ):
        if word.endswith(suffix) and len(word) - len(suffix) >= min_len:
            base = word[: -len(suffix)]
            if suffix in ("ies", "ied", "ities", "ity") :
                base += "y" if suffix in ("ies", "ied") else ""
            if suffix == "s" and base.endswith("s"):
                return word
            return base
    return word


def tokens(text: str) -> list[str]:
    return _WORD.findall(text.lower())


# "Section 5.1" is a pointer to another part of a policy and "the Academic Section" an office;
# neither is a section of a course, which is what a student asking about "a section" means.
_NOT_A_SECTION = re.compile(r"\bsections?\s+\d+(?:\.\d+)*|\bacademic\s+section\b", re.IGNORECASE)


def _without_section_names(text: str) -> str:
    return _NOT_A_SECTION.sub(lambda m: "academic-office" if m.group(0)[0] in "aA" else " ", text)


def is_number(term: str) -> bool:
    """A token that is a number ("3", "7.5"): a count or amount, not a word the evidence must share."""
    return term.replace(".", "").isdigit()


def content_terms(text: str) -> list[str]:
    """Stemmed tokens that carry meaning (no stop words, no one-letter tokens), in order."""
    out = []
    for tok in tokens(_without_section_names(text)):
        if tok in STOPWORDS or len(tok) < 2:
            continue
        out.append(stem(tok))
    return out


def term_set(text: str) -> set[str]:
    return set(content_terms(text))


_NUMBER = re.compile(
    r"(?P<cur>rs\.?\s*)?(?P<num>\d+(?:,\d{3})*(?:\.\d+)?)\s*(?P<unit>%|percent|per cent|"
    r"(?:calendar |working |instructional )?(?:days?|weeks?|months?|years?|hours?|credits?|marks?|"
    r"students?|members?|pages?|words?|attempts?|times|semesters?|courses?|withdrawals?))?",
    re.IGNORECASE,
)
_WEEK_NUMBER = re.compile(r"\bweeks?\s+(\d+)(?:\s*(?:-|to|and)\s*(\d+))?", re.IGNORECASE)


def quantities(text: str) -> set[str]:
    """Numbers with their kind, e.g. {"rs:500", "pct:40", "day:7", "week#:2"}; bare numbers as "n:5"."""
    found: set[str] = set()
    low = text.lower()
    for m in _WEEK_NUMBER.finditer(low):
        found.add(f"week#:{m.group(1)}")
        if m.group(2):
            found.add(f"week#:{m.group(2)}")
    for m in _NUMBER.finditer(low):
        num = m.group("num").replace(",", "")
        if re.fullmatch(r"\d+\.\d+", num) and not m.group("cur") and not m.group("unit"):
            continue  # section numbers such as 4.2
        start = m.start("num")
        if start > 0 and low[start - 1] in "0123456789.":
            continue
        if m.group("cur"):
            found.add(f"rs:{num}")
        elif m.group("unit"):
            unit = m.group("unit").split()[-1].rstrip("s")
            unit = "pct" if unit in ("%", "percent", "cent") else unit
            found.add(f"{unit}:{num}")
        else:
            found.add(f"n:{num}")
    return found


def numbers(text: str) -> set[str]:
    """The bare numeric values in text (units dropped), for the verifier's number check."""
    return {q.split(":", 1)[1] for q in quantities(text)}


def has_negation(text: str) -> bool:
    low = text.lower()
    return any(tok in _NEGATIONS for tok in tokens(low)) or "n't" in low


def split_sentences(text: str) -> list[str]:
    """Sentences of a chunk; list items and lines ending without a stop become their own sentence."""
    sentences: list[str] = []
    for block in re.split(r"\n\s*\n|\n(?=\s*(?:[-*+]|\d+[.)])\s)", text):
        block = " ".join(line.strip() for line in block.strip().splitlines())
        block = re.sub(r"^(?:[-*+]|\d+[.)])\s+", "", block).strip()
        if not block:
            continue
        pieces = _SENTENCE_END.split(block)
        merged: list[str] = []
        for piece in pieces:
            if merged and _ABBREV_END.search(merged[-1]):
                merged[-1] = f"{merged[-1]} {piece}"
            else:
                merged.append(piece)
        sentences.extend(p.strip() for p in merged if p.strip())
    return sentences


def slugify(text: str, max_len: int = 60) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", normalise_text(text).lower()).strip("-")
    return slug[:max_len].strip("-") or "section"


# Domain synonyms, applied after stemming, so that paraphrases meet the policy's own words.
SYNONYMS = {
    "cost": "fee", "charge": "fee", "price": "fee", "pay": "fee", "payment": "fee", "paid": "fee",
    "recheck": "revalu", "rechecking": "revalu", "re-evaluation": "revalu", "reevaluation": "revalu",
    "remark": "revalu", "re-check": "revalu", "revaluat": "revalu", "reassess": "revalu",
    "due": "deadline", "cutoff": "deadline", "cut-off": "deadline", "lastdate": "deadline",
    "mentor": "advisor", "adviser": "advisor", "advise": "advisor", "advis": "advisor",
    "lab": "laboratory", "labs": "laboratory", "practical": "laboratory",
    "internal": "internal", "intern": "internship",
    "exam": "examination", "examin": "examination", "exams": "examination",
    "mark": "mark", "score": "mark", "grade": "grade",
    "drop": "drop", "withdraw": "withdrawal", "withdrawn": "withdrawal",
    "hod": "hod", "head": "hod",
    "sem": "semester", "end-sem": "end-semester", "endsem": "end-semester", "mid-sem": "mid-semester",
    "sick": "medical", "ill": "medical", "illness": "medical", "hospital": "medical",
    "hospitalis": "medical", "hospitaliz": "medical",
    "mistake": "error", "glitch": "error", "wrong": "error", "incorrect": "error",
    "sheet": "script", "paper": "script",
    "copy": "photocopy", "scann": "photocopy", "scan": "photocopy",
    "hand": "submit", "upload": "submit", "submission": "submit",
    "lose": "penalty", "deduct": "penalty", "deduction": "penalty", "fine": "penalty",
    "switch": "change", "swap": "change", "transfer": "change",
    "submitt": "submit", "result": "outcome", "e-mail": "email",
}


def canonical_terms(text: str) -> list[str]:
    """Content terms with domain synonyms folded together."""
    return [SYNONYMS.get(t, t) for t in content_terms(text)]


def canonical_terms_with_surface(text: str) -> list[tuple[str, str]]:
    """(canonical term, the word as written) for each content word, in order."""
    out = []
    for tok in tokens(_without_section_names(text)):
        if tok in STOPWORDS or len(tok) < 2:
            continue
        stemmed = stem(tok)
        out.append((SYNONYMS.get(stemmed, stemmed), tok))
    return out
