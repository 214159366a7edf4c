"""What the critic says about a document: the flags, one finding per flag and sentence, and the
critique of a whole document, as plain records (and the dicts `--json` prints)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

# The flags, in the order they are shown, with the words a policy owner reads.
FLAGS: dict[str, str] = {
    "vague": "vague quantity or discretion",
    "no_owner": "no one named to act or approve",
    "no_deadline": "required action without a time",
    "no_consequence": "obligation without a consequence",
    "contradiction": "contradicts another sentence",
    "dangling_reference": "refers to a part that is not there",
}


@dataclass(frozen=True)
class Finding:
    """One flag on one sentence: the words that raised it and what to do about it."""

    flag: str  # a key of FLAGS
    evidence: str  # the words in the sentence that raised it ("" when it is an absence)
    advice: str  # one line for the policy owner
    other: int | None = None  # contradiction: the index of the sentence it disagrees with


@dataclass(frozen=True)
class CriticisedSentence:
    index: int  # position in the document, from 0
    section: str  # the heading it stands under ("" before the first)
    text: str
    findings: tuple[Finding, ...] = ()

    @property
    def flags(self) -> list[str]:
        return list(dict.fromkeys(f.flag for f in self.findings))


@dataclass(frozen=True)
class DocumentCritique:
    """Every sentence of one document with its findings (sentences without findings included), or
    of its first part when the critic stopped early: `unread` counts the sentences after it."""

    name: str  # a file name or a document id
    title: str
    sentences: list[CriticisedSentence] = field(default_factory=list)
    unread: int = 0

    def flagged(self) -> list[CriticisedSentence]:
        return [s for s in self.sentences if s.findings]

    def counts(self) -> dict[str, int]:
        """Sentences per flag, every flag listed (0 included), in FLAGS' order."""
        return {flag: sum(flag in s.flags for s in self.sentences) for flag in FLAGS}

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "title": self.title,
            "sentences": len(self.sentences),
            "unread": self.unread,
            "counts": self.counts(),
            "findings": [
                {
                    "index": s.index,
                    "section": s.section,
                    "text": s.text,
                    "flags": s.flags,
                    "details": [asdict(f) for f in s.findings],
                }
                for s in self.flagged()
            ],
        }
