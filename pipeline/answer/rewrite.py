"""History-aware rewrite: make an elliptical follow-up self-contained before retrieval.

"what about labs?" or "and the fee for that?" retrieve nothing useful on their own. We rewrite
them from the user's previous question in the same session, by rule, not by a model: either
substitute the previous topic for a pronoun ("that", "it"), or pair the new focus with the previous
question's last subject ("what about postgraduates?" after "pass mark for undergraduate students?"
→ "pass mark for postgraduates?"). The rewrite only changes
what is *retrieved*; the answer still has to pass the support gate on its own evidence.
"""

from __future__ import annotations

import re

_ELLIPTIC_START = re.compile(
    r"^\s*(what about|how about|and what about|and for|and the|and in|and if|and|"
    r"what if|same for|also for|for|in|what of)\b",
    re.I,
)
_LEAD_IN = re.compile(
    r"^\s*(and what about|what about|how about|what of|same for|also for|and for|and in|and|also|for|in)\b[\s,]*", re.I
)
_PRONOUN = re.compile(r"\b(that|this|it|those|these|them|the same)\b", re.I)
_STOP = frozenset(
    """
a an the and or but if of for to in on at by with from about as into is are was were be been being do does
did can could should would will shall may might must have has had i me my we our you your it its this that
these those they them their what which who whom when where why how there here not no please tell know
get apply applying want need much many long also any some more than then so just again same
""".split()
)
_MAX_FOLLOWUP_WORDS = 9
# "In how many courses can I apply for a re-mark?" opens like "in year 2?" but asks a whole
# question of its own: a question word and two subject words after "in"/"for" make it complete.
_PREPOSITION_START = re.compile(r"^\s*(for|in)\b", re.I)
_QUESTION_WORD = re.compile(
    r"\b(how|what|when|which|who|whom|where|why|can|could|do|does|is|are|will|may|must)\b", re.I
)
_GENERIC_HEADS = frozenset(
    {
        "period",
        "fee",
        "fees",
        "deadline",
        "limit",
        "limits",
        "requirement",
        "window",
        "procedure",
        "rules",
        "policy",
        "date",
    }
)


def _content(text: str) -> list[str]:
    return [w for w in re.findall(r"[a-z0-9][a-z0-9.\-]*", text.lower()) if w not in _STOP]


def needs_rewrite(question: str) -> bool:
    """A short question that leans on what came before: "what about…", "and…", or a bare pronoun."""
    words = question.split()
    content = _content(question)
    # Length alone does not make a question self-contained: "and how long do I have to apply for
    # it?" has ten words and no subject of its own.
    if not words or (len(words) > _MAX_FOLLOWUP_WORDS and len(content) > 2):
        return False
    if _ELLIPTIC_START.match(question):
        return not (_PREPOSITION_START.match(question) and _QUESTION_WORD.search(question) and len(content) >= 2)
    return bool(_PRONOUN.search(question)) and len(content) <= 3


def topic_of(question: str) -> str:
    """The previous question's subject words, in order ("How do I apply for a transcript?" → "transcript")."""
    return " ".join(dict.fromkeys(_content(question)))


def rewrite_followup(question: str, history: list[str]) -> str:
    """A self-contained version of `question` given earlier questions (oldest first); "" when not needed.

    `history` should hold the earlier questions *as retrieved* (their own rewrite when they had one)
    so that a chain of follow-ups keeps its topic.
    """
    question = (question or "").strip()
    previous = next((h.strip() for h in reversed(history) if h and h.strip()), "")
    if not previous or not needs_rewrite(question):
        return ""
    topic = topic_of(previous)
    if not topic:
        return ""
    body = question.rstrip("?!. ")
    if _PRONOUN.search(body):
        substituted = _LEAD_IN.sub("", _PRONOUN.sub(topic, body, count=1)).strip()
        return f"{substituted}?"
    focus = _LEAD_IN.sub("", body).strip()
    if not focus:
        return ""
    return f"{_replace_last_subject(previous.rstrip('?!. '), focus)}?"


def _replace_last_subject(previous: str, focus: str) -> str:
    """Swap the previous question's last run of content words for the new focus.

    "what about X?" contrasts X with what was last asked about: "pass mark for undergraduate students"
    + "what about postgraduates?" → "pass mark for postgraduates". Falls back to pairing when nothing matches.
    """
    words = previous.split()
    is_content = [bool(_content(w)) for w in words]
    end = max((i for i, c in enumerate(is_content) if c), default=-1)
    if end < 0:
        return f"{previous} - {focus}"
    start = end
    while start > 0 and is_content[start - 1]:
        start -= 1
    if start == 0:  # the whole question is its subject: keep it and add the focus
        return f"{previous} - {focus}"
    head = words[end].lower().strip("?!.,")
    keep_head = end > start and head in _GENERIC_HEADS  # "add/drop period" → "withdrawal period"
    return " ".join([*words[:start], focus, *words[end if keep_head else end + 1 :]])
