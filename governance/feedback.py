"""Votes on answers for the Insights tab: thumbs up or down, an optional comment, never a name.

A user's vote is kept with the turn in their own memory file (`memory.service.MemoryService.
rate_turn`); a copy without who voted goes to `<home>/feedback.json` for reviewers and admins:
the question, the reply's decision, text and σ, the vote, the comment and when. Entries are keyed
by a hash of (the voter's file key, conversation, turn), so a changed vote replaces the earlier
one and a vote taken back removes it; "forget me" removes every entry of that voter (`forget`).
Nothing here returns the voter's key.
"""

from __future__ import annotations

import csv
import hashlib
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

from tinydb import Query

from governance.identity import Identity, require
from pipeline.ground.storage import JSONFile

CSV_COLUMNS = ("when", "vote", "decision", "sigma", "question", "answer", "comment")
_ANSWER_CHARS = 600
# A cell a spreadsheet would read as a formula: =, +, - or @ first (after any spaces), or a tab or
# carriage return (OWASP, "CSV injection").
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


@dataclass(frozen=True)
class FeedbackEntry:
    """One vote as reviewers see it (no voter)."""

    when: str  # YYYY-MM-DD HH:MM, UTC
    vote: str  # "up" | "down"
    decision: str
    sigma: float | None
    question: str
    answer: str
    comment: str

    @property
    def day(self) -> str:
        return self.when[:10]


def spreadsheet_text(value: object) -> object:
    """`value` as a spreadsheet shows it as text: a formula-like string gets a leading apostrophe."""
    if isinstance(value, str) and value.lstrip(" ").startswith(_FORMULA_START):
        return "'" + value
    return value


def _entry_key(actor: str, session_id: str, turn: int) -> str:
    return hashlib.sha256(f"{actor}\x00{session_id}\x00{turn}".encode()).hexdigest()[:32]


class FeedbackLog:
    """The reviewers' copy of every vote, in one locked, atomically written TinyDB file."""

    def __init__(self, path: Path) -> None:
        self.store = JSONFile(path)

    def record(self, actor: str, session_id: str, turn: dict, vote: str, comment: str = "") -> None:
        """Keep (or, for vote "", remove) the vote of voter `actor` on a stored conversation turn."""
        key = _entry_key(actor, session_id, int(turn.get("turn", 0)))
        with self.store.open() as db:
            table = db.table("feedback")
            if not vote:
                table.remove(Query().key == key)
                return
            answer = turn.get("answer") or {}
            support = answer.get("support") or {}
            table.upsert(
                {
                    "key": key,
                    "actor": actor,
                    "when": time.strftime("%Y-%m-%d %H:%M", time.gmtime()),
                    "vote": vote,
                    "comment": comment,
                    "decision": str(answer.get("decision") or turn.get("decision") or ""),
                    "sigma": support.get("sigma"),
                    "question": str(turn.get("user_text") or ""),
                    "answer": str(answer.get("text") or "")[:_ANSWER_CHARS],
                },
                Query().key == key,
            )

    def forget(self, actor: str) -> int:
        """Remove every vote of one voter ("forget me"); returns how many."""
        with self.store.open() as db:
            return len(db.table("feedback").remove(Query().actor == actor))

    def entries(self, identity: Identity) -> list[FeedbackEntry]:
        """Every vote, newest first (reviewers and admins)."""
        require(identity, "review_tickets")
        with self.store.open() as db:
            rows = db.table("feedback").all()
        entries = [
            FeedbackEntry(
                str(r.get("when", "")),
                str(r.get("vote", "")),
                str(r.get("decision", "")),
                r.get("sigma") if isinstance(r.get("sigma"), (int, float)) else None,
                str(r.get("question", "")),
                str(r.get("answer", "")),
                str(r.get("comment", "")),
            )
            for r in rows
        ]
        return sorted(entries, key=lambda e: e.when, reverse=True)

    def write_csv(self, identity: Identity, path: Path) -> int:
        """Every vote as a CSV row (`CSV_COLUMNS`), each text cell safe to open in a spreadsheet."""
        entries = self.entries(identity)
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "w", newline="", encoding="utf-8") as fh:
            writer = csv.writer(fh)
            writer.writerow(CSV_COLUMNS)
            for e in entries:
                row = [e.when, e.vote, e.decision, "" if e.sigma is None else round(e.sigma, 3)]
                writer.writerow([spreadsheet_text(v) for v in [*row, e.question, e.answer, e.comment]])
        return len(entries)


def votes_by_day(entries: list[FeedbackEntry]) -> dict[str, dict[str, int]]:
    """{day: {"up": n, "down": m}}, days in order: the rate of helpful answers over time."""
    days: dict[str, Counter[str]] = defaultdict(Counter)
    for e in entries:
        days[e.day][e.vote] += 1
    return {day: {"up": days[day]["up"], "down": days[day]["down"]} for day in sorted(days)}
