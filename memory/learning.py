"""What a chat message teaches about its author: answer preferences, profile fields, personal facts.

Plain patterns, deliberately narrow: a missed preference costs the user one click in the
"My memory" tab, while a wrong one silently reshapes every answer. Anything that talks about a
policy (fees, deadlines, rules...) is never stored as a personal fact, so memory can never end up
holding, and later repeating, a policy "fact".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pipeline.language.text import first_named, split_sentences

PREFERENCE_KEYS = ("length", "format", "show_quotes", "programme", "year", "department")
PREFERENCE_CHOICES = {
    "length": ("brief", "standard", "detailed"),
    "format": ("prose", "bullets"),
    "show_quotes": (True, False),
}

# Words that make a "my X" phrase a policy matter, not something about the user.
POLICY_WORDS = frozenset(
    """
fee fees deadline deadlines policy policies rule rules limit limits penalty penalties fine fines
refund refunds weightage eligibility eligible requirement requirements minimum maximum
pass mark marks grade grades credit credits window procedure process charge charges cost costs
duration period date dates
""".split()
)


@dataclass(frozen=True)
class Learned:
    kind: str  # "preference" | "fact"
    key: str
    value: object
    note: str  # the one-line confirmation shown with the reply


_PREFERENCE_PATTERNS: list[tuple[re.Pattern, str, object, str]] = [
    (
        re.compile(
            r"\b(keep|make) (your |the |my )?(answers?|replies|responses|it|them) (short|brief|concise)(er)?\b"
            r"|\b(short|shorter|brief|concise) (answers?|replies|responses)\b|\bbe (brief|concise)\b",
            re.I,
        ),
        "length",
        "brief",
        "Noted: I'll keep answers brief.",
    ),
    (
        re.compile(
            r"\b(more|full) details?\b|\b(detailed|longer|fuller) (answers?|replies|responses)\b"
            r"|\bexplain (things )?in (full |more )?detail\b",
            re.I,
        ),
        "length",
        "detailed",
        "Noted: I'll give detailed answers.",
    ),
    (
        re.compile(r"\b(normal|standard|regular|medium)[- ]length\b", re.I),
        "length",
        "standard",
        "Noted: I'll give standard-length answers.",
    ),
    (
        re.compile(
            r"\b(no|don'?t use|stop using|without) bullet(s| points?)?\b|\b(in|use|write in) (prose|paragraphs)\b", re.I
        ),
        "format",
        "prose",
        "Noted: I'll answer in prose.",
    ),
    (
        re.compile(r"\b(use|with|in|as|prefer|give me) (bullet|bulleted)( points?| lists?|s)?\b|\bas a list\b", re.I),
        "format",
        "bullets",
        "Noted: I'll use bullet points.",
    ),
    (
        re.compile(
            r"\b(don'?t|do not|stop|no need to) (show|include)(ing)? (the )?quotes\b|\bhide (the )?quotes\b"
            r"|\bwithout quotes\b",
            re.I,
        ),
        "show_quotes",
        False,
        "Noted: I won't show quotes from the sources.",
    ),
    (
        re.compile(r"\b(show|include) (me )?(the )?quotes\b|\bwith quotes\b", re.I),
        "show_quotes",
        True,
        "Noted: I'll show quotes from the sources.",
    ),
]

_YEAR_WORDS = {
    "first": 1,
    "1st": 1,
    "second": 2,
    "2nd": 2,
    "third": 3,
    "3rd": 3,
    "fourth": 4,
    "4th": 4,
    "final": 4,
    "fifth": 5,
    "5th": 5,
}
_YEAR = re.compile(
    r"\b(first|1st|second|2nd|third|3rd|fourth|4th|fifth|5th|final)[- ]year\b|\bin (my )?year ([1-5])\b", re.I
)
# "I'm a third-year B.Tech CSE student", "I am in the M.Tech programme", "I study MCA"
_SELF_PROFILE = re.compile(
    r"\b(i'?m|i am|i study|i'm studying|i am studying|i'm doing|i am doing|i'm enrolled in|"
    r"i am enrolled in|i'm in|i am in|my (programme|program|branch|department|year) is)\b",
    re.I,
)

# "my advisor is Dr. Rao", "my roll number is 21CS042"
_MY_X_IS = re.compile(r"\bmy ([a-z][a-z '\-]{1,40}?) (is|are|was) ((?:(?:Dr|Mr|Ms|Mrs|Prof)\.\s*)?[^.?!;]+)", re.I)
# "I registered for the May exams", "I applied for revaluation in Maths"
_I_DID = re.compile(r"\bi(?:'ve| have)? (registered|enrolled|applied|signed up|opted) (for|in) ([^.?!;]+)", re.I)

_FILLER = re.compile(
    r"\b(please|pls|and|also|from now on|going forward|in future|thanks?|thank you|ok(ay)?|"
    r"so|then|too|always|for me|i'?d like|i would like|you|can|could|would|should)\b",
    re.I,
)


def _clean(value: str) -> str:
    return re.sub(r"\s+", " ", value).strip(" ,.;:!\"'")


def _is_question(sentence: str) -> bool:
    s = sentence.strip().lower()
    return s.endswith("?") or bool(
        re.match(
            r"^(what|who|which|when|where|why|how|is|are|do|does|can|could|"
            r"should|will|would|am)\b",
            s,
        )
    )


def sentences(text: str) -> list[str]:
    """The sentences of a chat message, line by line, split as policy text is (pipeline.language.text), so
    "my advisor is Dr. Rao" or the corpus glossary's abbreviations ("Rs. 500") do not end one."""
    return [s for line in text.splitlines() for s in split_sentences(line)]


def learn_from(text: str) -> tuple[list[Learned], str]:
    """What `text` teaches, and what is left of it once those statements are taken out.

    The remainder is the part the engine should still answer ("" when the message was only a
    preference or a statement about oneself).
    """
    learned: list[Learned] = []
    remainder: list[str] = []
    for sentence in sentences(text):
        found = [] if _is_question(sentence) else _learn_sentence(sentence)
        if found:
            learned.extend(found)
        else:
            remainder.append(sentence)
    rest = " ".join(remainder).strip()
    if rest and not re.sub(r"[\W_]+", "", _FILLER.sub(" ", rest)):
        rest = ""
    return learned, rest


def _learn_sentence(sentence: str) -> list[Learned]:
    found: list[Learned] = []
    for pattern, key, value, note in _PREFERENCE_PATTERNS:
        if pattern.search(sentence) and not any(f.key == key for f in found):
            found.append(Learned("preference", key, value, note))
    if _SELF_PROFILE.search(sentence):
        found.extend(_profile(sentence))
    for m in _MY_X_IS.finditer(sentence):
        key = _clean(m.group(1)).lower()
        value = _clean(re.split(r",|\s+(?:and|but|so|because|which)\s+", m.group(3))[0])
        if key in ("programme", "program", "branch", "department", "year") or not value:
            continue
        if set(re.findall(r"[a-z]+", key)) & POLICY_WORDS or len(key.split()) > 4:
            continue
        found.append(Learned("fact", key, value, f"Noted: your {key} is {value}."))
    for m in _I_DID.finditer(sentence):
        verb, prep, what = m.group(1).lower(), m.group(2).lower(), _clean(m.group(3))
        if what:
            key = f"{verb} {prep}"
            found.append(Learned("fact", key, what, f"Noted: you {key} {what}."))
    return found


def _profile(sentence: str) -> list[Learned]:
    found: list[Learned] = []
    programme = first_named(sentence, "programmes")  # the corpus glossary's programmes
    if programme:
        name = programme[0]
        found.append(Learned("preference", "programme", name, f"Noted: your programme is {name}."))
    year = _YEAR.search(sentence)
    if year:
        n = _YEAR_WORDS[year.group(1).lower()] if year.group(1) else int(year.group(3))
        found.append(Learned("preference", "year", n, f"Noted: you are in year {n}."))
    department = first_named(sentence, "departments")  # the corpus glossary's departments
    if department:
        name = department[0]
        found.append(Learned("preference", "department", name, f"Noted: your department is {name}."))
    return found


def merge_notes(learned: list[Learned]) -> list[str]:
    """One confirmation line per message: profile fields are folded into a single note."""
    profile = {item.key: item.value for item in learned if item.key in ("programme", "year", "department")}
    notes = [item.note for item in learned if item.key not in profile]
    if profile:
        labels = {"programme": "programme", "year": "year", "department": "department"}
        parts = [f"{labels[k]} {profile[k]}" for k in ("programme", "year", "department") if k in profile]
        line = "Noted: " + ", ".join(parts) + "."
        if "programme" in profile:
            line += " I'll put rules for your programme first when the policies have them."
        notes.insert(0, line)
    return [" ".join(notes)] if notes else []
