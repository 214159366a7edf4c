"""How much a claim deserves a reviewer's attention: a score in [0, 1] with the reasons for it.

The score orders the queue; it never decides. A reviewer sees every reason next to the number.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

from governance.contradictions import extract_values
from pipeline.language import glossary
from pipeline.language.text import content_terms

# What marks an official document in any organisation; the organisation's own bodies and web
# domains come from its glossary (official_sources, official_domains).
_OFFICIAL_IN_ENGLISH = (
    "circular",
    "notification",
    "notice no",
    "office order",
    "gazette",
    "official",
    "minutes of",
    "memo",
)
_ROLE_WEIGHT = {"user": 0.0, "reviewer": 0.15, "admin": 0.15}
# The most of a proof the score reads (a pasted proof is limited to this; a file's text may add as
# much again). Every pattern run on it is linear (pipeline.language.text.AMOUNT), so reading it costs
# milliseconds and a pasted proof cannot hold the server (issue 27).
MAX_READ_CHARS = 20_000


@functools.cache
def _official() -> re.Pattern[str]:
    """The marks of an official source: generic English words, then the active glossary's bodies
    (whole words, any case, any spacing) and https addresses on its domains."""
    words = glossary.active()
    phrases = [r"\s+".join(map(re.escape, p.split())) for p in (*_OFFICIAL_IN_ENGLISH, *words.official_sources)]
    marks = [r"(?<!\w)(?:" + "|".join(sorted(phrases, key=len, reverse=True)) + r")(?!\w)"]
    if words.official_domains:
        domains = "|".join(re.escape(d) for d in sorted(words.official_domains, key=len, reverse=True))
        # The host must end in the domain: "https://hr.example.org/x" counts, "https://example.org.evil.com" not.
        marks.append(r"https?://(?:[\w-]+\.)+(?:" + domains + r")(?!\.?[\w-])")
    return re.compile("|".join(marks), re.IGNORECASE)


glossary.on_change(_official.cache_clear)  # another corpus, other bodies


@dataclass(frozen=True)
class TrustScore:
    score: float
    reasons: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"score": self.score, "reasons": list(self.reasons)}


def proof_matches_claim(statement: str, proof_text: str) -> bool:
    """The proof states the claimed value(s) and shares most of the claim's content words."""
    if not proof_text.strip():
        return False
    claimed = {(v.kind, v.value) for v in extract_values(statement)}
    in_proof = {(v.kind, v.value) for v in extract_values(proof_text)}
    terms = set(content_terms(statement))
    shared = len(terms & set(content_terms(proof_text))) / max(1, len(terms))
    return shared >= 0.5 and (not claimed or claimed <= in_proof)


def trust_score(statement: str, reporter_role: str, proof_text: str = "", has_proof_file: bool = False) -> TrustScore:
    """The score with its reasons; reads at most `MAX_READ_CHARS` of the proof."""
    proof_text = (proof_text or "")[:MAX_READ_CHARS]
    score = 0.2
    reasons = ["base 0.20 for any claim"]
    weight = _ROLE_WEIGHT.get(reporter_role, 0.0)
    if weight:
        score += weight
        reasons.append(f"+{weight:.2f} reporter is a {reporter_role}")
    else:
        reasons.append(f"+0.00 reporter role is {reporter_role}")
    if proof_text.strip() or has_proof_file:
        score += 0.2
        reasons.append("+0.20 proof attached")
    else:
        reasons.append("+0.00 no proof attached")
    if proof_matches_claim(statement, proof_text):
        score += 0.3
        reasons.append("+0.30 proof text states the claimed value")
    elif proof_text.strip():
        reasons.append("+0.00 proof text does not state the claimed value")
    source = _official().search(f"{statement}\n{proof_text}")
    if source:
        score += 0.15
        reasons.append(f"+0.15 names an official source ({' '.join(source.group(0).split())[:40]})")
    return TrustScore(round(min(score, 1.0), 2), reasons)
