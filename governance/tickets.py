"""Review tickets: one policy-change claim each, kept in TinyDB at `<home>/tickets.json`.

The file is written through `pipeline.ground.storage` (atomic replace, cross-process lock, a damaged
file recovered from its last good copy).

A ticket is a plain record. The store only reads and writes; who may do what is checked by
`GovernanceService`, and what an approval does to the corpus lives in `governance.evolution`.
"""

from __future__ import annotations

import time
import uuid
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

from tinydb import Query

from pipeline.ground.storage import JSONFile

STATUSES = ("open", "approved", "rejected", "failed")


def now_iso() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


@dataclass
class Ticket:
    ticket_id: str
    claim: str  # as the reporter wrote it
    statement: str  # the asserted content, used as the post-update check's question
    reporter_id: str
    reporter_name: str
    reporter_role: str
    created_at: str = field(default_factory=now_iso)
    proof_text: str = ""
    proof_file: dict | None = None  # StoredProof.to_dict()
    trust: dict = field(default_factory=dict)  # {"score", "reasons"}
    contradictions: list[dict] = field(default_factory=list)
    affected: list[dict] = field(default_factory=list)  # {"chunk_id", "doc_id", "title", "section", "version", "text"}
    replacements: dict[str, str] = field(default_factory=dict)  # chunk_id -> proposed new text
    # "change" (a claim), "conflict" (two documents disagree, found when one was added)
    kind: str = "change"
    rules: list[dict] = field(default_factory=list)  # governance.rule_search.Rule.to_dict(), one per claimed value
    # statements that lean on the claimed rule, flagged for the reviewer's edit (rule_search)
    dependents: list[dict] = field(default_factory=list)
    addition: dict | None = None  # a new section the reviewer adds: {"doc_id", "heading", "text"}
    conflict: dict | None = None  # for a conflict ticket: governance.conflicts.Conflict.to_dict()
    status: str = "open"
    decision_reason: str = ""
    decided_by: str = ""
    decided_at: str = ""
    new_chunk_ids: list[str] = field(default_factory=list)
    check: dict = field(default_factory=dict)  # the post-update check's result
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> Ticket:
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in names})


def new_ticket_id() -> str:
    return "T-" + uuid.uuid4().hex[:10]


class TicketStore:
    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._file = JSONFile(self.path, indent=1)

    def save(self, ticket: Ticket) -> Ticket:
        with self._file.open() as db:
            db.upsert(ticket.to_dict(), Query().ticket_id == ticket.ticket_id)
        return ticket

    def get(self, ticket_id: str) -> Ticket | None:
        with self._file.open() as db:
            row = db.get(Query().ticket_id == str(ticket_id))
        return Ticket.from_dict(dict(row)) if row else None

    def list(self, status: str | None = None, reporter_id: str | None = None) -> list[Ticket]:
        with self._file.open() as db:
            rows = [dict(r) for r in db.all()]
        tickets = [Ticket.from_dict(r) for r in rows]
        if status:
            tickets = [t for t in tickets if t.status == status]
        if reporter_id is not None:
            tickets = [t for t in tickets if t.reporter_id == reporter_id]
        return sorted(tickets, key=lambda t: t.created_at, reverse=True)
