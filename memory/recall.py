"""Questions about oneself, answered from the user's own memory and labelled as memory.

A question is "about me" only when it asks for something the user could have told us (their
programme, their advisor, what they registered for). Anything with a policy word ("what is my
revaluation fee?", "what is my minimum attendance?") is a policy question and goes to the
cited-or-silent engine: memory never supplies a policy fact.
"""

from __future__ import annotations

import re

from memory.learning import POLICY_WORDS

LABEL = "From what you told me (memory, not policy):"

_PROFILE_QUESTIONS = [
    (
        re.compile(
            r"\b(what|which) (programme|program|course|degree) (am i|do i study|am i (in|doing|enrolled in))\b"
            r"|\bwhat am i studying\b|\b(what|which)(?:'s| is) my (programme|program|degree)\b",
            re.I,
        ),
        "programme",
    ),
    (
        re.compile(r"\b(what|which) year (am i|of study am i)\b|\b(what|which)(?:'s| is) my year( of study)?\b", re.I),
        "year",
    ),
    (
        re.compile(
            r"\b(what|which) (department|branch|dept) (am i|do i belong)\b|\b(what|which)(?:'s| is) my (department|branch|dept)\b",
            re.I,
        ),
        "department",
    ),
]
_ALL = re.compile(
    r"\bwhat (do|did) you (know|remember|store) about me\b|\bwhat have i told you\b"
    r"|\b(show|list|what is|what's) (me )?(in )?my (memory|facts|preferences|profile)\b",
    re.I,
)
_MY_X = re.compile(r"\b(?:who|what|which|when)(?:'s| is| are| was| were)? my ([a-z][a-z '\-]{1,40}?)\s*\??\s*$", re.I)
_DID_I = re.compile(
    r"\bwhat (did|have) i (registered|register|enrolled|enroll|applied|apply|signed up|sign up|opted|opt) "
    r"(for|in)\b",
    re.I,
)
_VERB_BASE = {
    "register": "registered",
    "enroll": "enrolled",
    "apply": "applied",
    "sign up": "signed up",
    "opt": "opted",
}


def about_me_target(text: str) -> str | None:
    """What the question asks about the user: a profile field, a fact key, "*" for everything.

    None when it is not a question about the user (or it is a policy question in disguise).
    """
    t = text.strip()
    words = set(re.findall(r"[a-z]+", t.lower()))
    if words & POLICY_WORDS:
        return None
    if _ALL.search(t):
        return "*"
    for pattern, field in _PROFILE_QUESTIONS:
        if pattern.search(t) and ("?" in t or re.match(r"^(what|which|who)\b", t, re.I)):
            return field
    m = _DID_I.search(t)
    if m:
        verb = m.group(2).lower()
        verb = _VERB_BASE.get(verb, verb)
        return f"{verb} {m.group(3).lower()}"
    m = _MY_X.search(t)
    if m and len(m.group(1).split()) <= 3:
        return m.group(1).strip().lower()
    return None


def describe(key: str, value: object) -> str:
    if key == "year":
        return f"you are in year {value}"
    if key in ("programme", "department"):
        return f"your {key} is {value}"
    if key in ("length", "format", "show_quotes"):
        return f"your answer {key.replace('_', ' ')} preference is {value}"
    if " " in key and key.split()[0] in {"registered", "enrolled", "applied", "signed", "opted"}:
        return f"you {key} {value}"
    return f"your {key} is {value}"
