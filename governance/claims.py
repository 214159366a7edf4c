"""Detecting, in a chat message, a claim that a policy changed ("the revaluation fee is now 800").

A claim is a statement, never a question or a request, that asserts a change: a change cue
("now", "no longer", "has been raised", "moved to", "I heard ...") together with something that can
differ from the corpus (a number, a week, or a polarity such as "no longer count"). Rules are
deliberately conservative: a false alarm turns an ordinary question into a ticket offer, which is
worse than missing a claim (the user can always file one from the "My claims" view).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Openings that make a message a question or a request, even without a question mark.
_QUESTION_OR_REQUEST = re.compile(
    r"^(what|when|where|who|whom|whose|which|why|how|is|are|am|was|were|do|does|did|can|could|"
    r"should|shall|would|will|may|might|must|has|have|had|if|tell|explain|write|translate|list|"
    r"show|give|describe|summari[sz]e|compare|please|help|find|check|let me know|any idea|"
    r"i (?:want|would like|need) to know|i wonder|i'm wondering|i am wondering|can you|could you)\b",
    re.IGNORECASE,
)
_REPORTED = re.compile(
    r"^(?:i(?:'ve| have)? heard|i read|i was told|someone (?:said|told me)|apparently|rumou?r has it|"
    r"my (?:friend|senior|advisor|classmate)s? (?:said|says|told me)|they said|news:?)\b[\s,:]*(?:that\s+)?",
    re.IGNORECASE,
)
_CHANGE_CUE = re.compile(
    r"\b(now|no longer|not any ?more|any ?more|from now on|henceforth|instead|"
    r"(?:has|have|had) (?:been|gone|moved|changed|risen|fallen|dropped|increased|decreased)|"
    r"(?:was|were|is|are|got) (?:changed|raised|increased|reduced|lowered|cut|moved|extended|shortened|"
    r"scrapped|abolished|removed|halved|doubled)|"
    r"raised|increased|reduced|lowered|cut|moved|extended|shortened|scrapped|abolished|halved|doubled|"
    r"changed to|goes up|went up|gone up|goes down|went down|gone down)\b",
    re.IGNORECASE,
)
_VALUE = re.compile(
    r"\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|twice|thrice|half|double)\b", re.IGNORECASE
)
_POLARITY = re.compile(
    r"\b(no longer|not any ?more|(?:is|are) not|isn't|aren't|never|scrapped|abolished|"
    r"removed|optional|mandatory|compulsory|not required|no need)\b",
    re.IGNORECASE,
)
# Statements about the speaker (memory facts and preferences) are never policy claims.
_ABOUT_ME = re.compile(
    r"^(?:i am|i'm|i prefer|my name|call me|remember|i study|i like|please remember)\b", re.IGNORECASE
)


@dataclass(frozen=True)
class Claim:
    text: str  # the message as typed, trimmed
    statement: str  # the asserted content, without "I heard that ..." (used as the check question)
    subject: str = ""  # the words before the change cue, e.g. "The revaluation fee"
    cue: str = ""  # the change cue that made it a claim
    reported: bool = False  # "I heard ..." (hearsay) rather than a direct assertion


# When the change happened or takes effect ("last month", "from this semester"): says nothing of
# which rule changed, so it is no part of the claim's subject.
_WHEN = re.compile(
    r"\b(?:(?:from|since|as of|with effect from|starting|beginning)\s+)?"
    r"(?:(?:last|this|next|the coming|the current|the new)\s+(?:week|month|semester|term|year|academic year|session)|"
    r"(?:from|since|as of)\s+(?:now|today|now on)|recently|lately|henceforth)\b",
    re.IGNORECASE,
)


def without_when(text: str) -> str:
    """`text` without the words that say when a change happened ("last month", "from this semester")."""
    return " ".join(_WHEN.sub(" ", text or "").split())


def change_cue(text: str) -> str:
    """The words that say a change happened ("changed to", "now", "has been cut"), or ""."""
    found = _CHANGE_CUE.search(text or "")
    return found.group(0) if found else ""


def is_question(text: str) -> bool:
    text = text.strip()
    return text.endswith("?") or bool(_QUESTION_OR_REQUEST.match(text))


def detect_claim(text: str) -> Claim | None:
    """A statement (not a question) asserting a policy differs from what it is; else None."""
    text = (text or "").strip()
    if not text or len(text) > 600 or "?" in text:
        return None
    reported = _REPORTED.match(text)
    statement = text[reported.end() :].strip() if reported else text
    if not statement or is_question(statement) or _ABOUT_ME.match(statement):
        return None
    cue = _CHANGE_CUE.search(statement)
    if cue is None:
        return None
    if not (_VALUE.search(statement) or _POLARITY.search(statement)):
        return None
    statement = statement[0].upper() + statement[1:]
    subject = statement[: cue.start()].strip(" ,.")
    return Claim(text=text, statement=statement, subject=subject, cue=cue.group(0).lower(), reported=bool(reported))
