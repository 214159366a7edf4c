"""Memory as the chat turn sees it. STUB to be deepened by the memory issue (#5).

The interface (used by ui/service.py and the scenario runner) is the contract; the bodies here
are the simplest working version: conversations persisted per user, nothing learned yet.
"""

from __future__ import annotations

import hashlib
import threading
import time
import uuid
from pathlib import Path

from tinydb import Query, TinyDB

from governance.identity import Identity
from pipeline.records import Answer, AnswerStyle


def user_key(identity: Identity) -> str:
    """The file-name-safe key of an authenticated identity (never derived from typed text)."""
    return hashlib.sha256(identity.user_id.encode("utf-8")).hexdigest()[:32]


class MemoryService:
    def __init__(self, users_dir: Path) -> None:
        self.users_dir = Path(users_dir)
        self.users_dir.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()

    def _db(self, identity: Identity) -> TinyDB:
        return TinyDB(self.users_dir / f"{user_key(identity)}.json")

    # -- conversations --------------------------------------------------------------------------
    def new_session(self, identity: Identity) -> str:
        return uuid.uuid4().hex[:16]

    def record_turn(self, identity: Identity, session_id: str, text: str, answer: Answer) -> None:
        with self._lock:
            db = self._db(identity)
            db.table("conversations").insert({
                "session_id": session_id, "ts": time.time(), "user_text": text, "answer": answer.to_dict(),
            })
            db.close()

    def history(self, identity: Identity, session_id: str) -> list[dict]:
        with self._lock:
            db = self._db(identity)
            rows = db.table("conversations").search(Query().session_id == session_id)
            db.close()
        return sorted(rows, key=lambda r: r["ts"])

    def sessions(self, identity: Identity) -> list[str]:
        """The user's session ids, most recent last."""
        with self._lock:
            db = self._db(identity)
            rows = db.table("conversations").all()
            db.close()
        order: dict[str, float] = {}
        for r in rows:
            order[r["session_id"]] = max(order.get(r["session_id"], 0), r["ts"])
        return sorted(order, key=order.get)

    # -- learning and answering from memory (issue #5) -------------------------------------------
    def learn(self, identity: Identity, session_id: str, text: str) -> tuple[list[str], bool]:
        """Extract preferences/facts from a message: (one-line confirmations, message was only that)."""
        return [], False

    def is_about_me(self, text: str) -> bool:
        return False

    def answer_about_me(self, identity: Identity, text: str) -> Answer:
        return Answer(text="I don't have anything stored about you yet.", decision="memory", query=text)

    def style(self, identity: Identity) -> AnswerStyle:
        return AnswerStyle()

    def rewrite(self, identity: Identity, session_id: str, text: str) -> str:
        """A self-contained version of an elliptical follow-up, or "" when none is needed."""
        return ""
