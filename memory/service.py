"""Memory as the chat turn and the "My memory" tab see it: one user's preferences, facts, history.

Every method takes the authenticated `Identity` and reaches only that identity's file, whose
name is a hash of `identity.user_id`; no method takes a user id, a file name or another user's
session from input. A session id is only ever looked up inside the caller's own file, so another
user's session id finds nothing.
"""

from __future__ import annotations

import hashlib
import time
import uuid
from pathlib import Path

from tinydb import Query

from governance.identity import Identity, require
from memory.learning import PREFERENCE_CHOICES, PREFERENCE_KEYS, learn_from, merge_notes
from memory.recall import LABEL, about_me_target, describe
from memory.store import UserStore
from pipeline.answer.rewrite import rewrite_followup
from pipeline.ground.querylog import anonymise_actor
from pipeline.ground.records import Answer, AnswerStyle

_DEFAULTS = {
    "length": "standard",
    "format": "prose",
    "show_quotes": True,
    "programme": "",
    "year": "",
    "department": "",
}
_POLICY_DECISIONS = ("answer", "abstain", "clarify")
_HISTORY_FOR_REWRITE = 4
_CURRENT = "current_session"
_TITLE_CHARS = 60
FEEDBACK_VOTES = ("up", "down", "")
MAX_FEEDBACK_CHARS = 1000


def user_key(identity: Identity) -> str:
    """The file-name-safe key of an authenticated identity (never derived from typed text).

    Hashing the raw account id means `../`, `/`, NUL or a Unicode look-alike in it can neither
    escape `users_dir` nor collide with another account's file.
    """
    raw = identity.user_id.encode("utf-8", errors="surrogatepass")
    return hashlib.sha256(raw).hexdigest()[:32]


def _today(ts: float) -> str:
    return time.strftime("%Y-%m-%d", time.gmtime(ts))


def _minute(ts: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.gmtime(ts))


def _title(first_question: str) -> str:
    """A conversation's title: its first message, on one line, cut at a word near 60 characters."""
    text = " ".join(str(first_question or "").split()) or "(empty)"
    if len(text) <= _TITLE_CHARS:
        return text
    return text[:_TITLE_CHARS].rsplit(" ", 1)[0].rstrip(",;:") + "…"


class MemoryService:
    def __init__(self, users_dir: Path, query_log_path: Path | None = None) -> None:
        self.users_dir = Path(users_dir).resolve()
        self.users_dir.mkdir(parents=True, exist_ok=True)
        self.query_log_path = Path(query_log_path) if query_log_path else self.users_dir.parent / "query_log.jsonl"

    def _store(self, identity: Identity) -> UserStore:
        path = self.users_dir / f"{user_key(identity)}.json"
        if path.resolve().parent != self.users_dir:  # cannot happen with a hex key; kept as a tripwire
            raise PermissionError("refusing a memory file outside the users folder")
        return UserStore(path)

    # -- conversations --------------------------------------------------------------------------
    def new_session(self, identity: Identity) -> str:
        """A fresh conversation id, which becomes the caller's current conversation (what a page
        load shows, even before it holds a turn)."""
        session_id = uuid.uuid4().hex[:16]
        self._set_current(identity, session_id)
        return session_id

    def current_session(self, identity: Identity) -> str:
        """The conversation the caller last started or opened; else their latest; else a new one."""
        require(identity, "chat")
        with self._store(identity).open() as db:
            marker = db.table("meta").get(Query().key == _CURRENT)
        if isinstance(marker, dict) and marker.get("value"):
            return str(marker["value"])
        sessions = self.sessions(identity)
        return sessions[-1] if sessions else self.new_session(identity)

    def open_session(self, identity: Identity, session_id: str) -> list[dict]:
        """Make one of the caller's own conversations the current one; its turns. A conversation
        id that is not the caller's (another user's, or none) is refused like one that never was."""
        turns = self.history(identity, session_id)
        if not turns:
            raise ValueError("That conversation was not found; it may have been deleted.")
        self._set_current(identity, session_id)
        return turns

    def conversations(self, identity: Identity) -> list[dict]:
        """The caller's conversations, newest first: id, title (the first question), when it
        started and was last used (YYYY-MM-DD HH:MM, UTC), and how many turns it holds."""
        require(identity, "chat")
        with self._store(identity).open() as db:
            rows = db.table("conversations").all()
        by_session: dict[str, list[dict]] = {}
        for row in rows:
            by_session.setdefault(row["session_id"], []).append(row)
        listed = []
        for session_id, turns in by_session.items():
            turns.sort(key=lambda r: (r["ts"], r.get("turn", 0)))
            listed.append(
                {
                    "session_id": session_id,
                    "title": _title(turns[0].get("user_text", "")),
                    "started": _minute(turns[0]["ts"]),
                    "updated": _minute(turns[-1]["ts"]),
                    "turns": len(turns),
                    "last_ts": turns[-1]["ts"],
                }
            )
        return sorted(listed, key=lambda c: -c["last_ts"])

    def delete_conversation(self, identity: Identity, session_id: str) -> int:
        """Delete one of the caller's conversations (every turn of it); returns how many turns went.
        If it was the current one, no conversation is current until the next is started or opened."""
        require(identity, "own_memory")
        with self._store(identity).open() as db:
            removed = db.table("conversations").remove(Query().session_id == session_id)
            db.table("meta").remove((Query().key == _CURRENT) & (Query().value == session_id))
        if not removed:
            raise ValueError("That conversation was not found; it may have been deleted already.")
        return len(removed)

    def last_turn(self, identity: Identity, session_id: str) -> dict | None:
        """The latest turn of the caller's conversation `session_id`, or None."""
        turns = self.history(identity, session_id)
        return turns[-1] if turns else None

    def rate_turn(self, identity: Identity, session_id: str, turn: int, vote: str, comment: str = "") -> dict:
        """Store the caller's vote ("up", "down", or "" to take it back) and optional comment with
        turn number `turn` of their conversation; returns the turn as stored. Voting again replaces
        the earlier vote and comment; taking the vote back drops the comment too."""
        require(identity, "chat")
        if vote not in FEEDBACK_VOTES:
            raise ValueError("A vote is up, down, or none.")
        comment = (comment or "").strip()[:MAX_FEEDBACK_CHARS]
        with self._store(identity).open() as db:
            table = db.table("conversations")
            where = (Query().session_id == session_id) & (Query().turn == int(turn))
            row = table.get(where)
            if not isinstance(row, dict):
                raise ValueError("There is no such answer in this conversation to rate.")
            feedback = {"vote": vote, "comment": comment if vote else "", "ts": time.time()}
            table.update({"feedback": feedback}, where)
        return {**row, "feedback": feedback}

    def _set_current(self, identity: Identity, session_id: str) -> None:
        require(identity, "chat")
        with self._store(identity).open() as db:
            db.table("meta").upsert({"key": _CURRENT, "value": session_id, "ts": time.time()}, Query().key == _CURRENT)

    def record_turn(self, identity: Identity, session_id: str, text: str, answer: Answer) -> None:
        """Persist one turn with its Answer metadata (decision, σ parts, citations, rewritten query)."""
        require(identity, "chat")
        support = answer.support
        with self._store(identity).open() as db:
            table = db.table("conversations")
            turn = table.count(Query().session_id == session_id)
            table.insert(
                {
                    "session_id": session_id,
                    "turn": turn,
                    "ts": time.time(),
                    "user_text": text,
                    "decision": answer.decision,
                    "rewritten_query": answer.rewritten_query,
                    "sigma": support.sigma if support else None,
                    "citations": [f"{c.title}, {c.section}" for c in answer.citations],
                    "answer": answer.to_dict(),
                }
            )

    def history(self, identity: Identity, session_id: str) -> list[dict]:
        require(identity, "chat")
        with self._store(identity).open() as db:
            rows = db.table("conversations").search(Query().session_id == session_id)
        return sorted(rows, key=lambda r: (r["ts"], r.get("turn", 0)))

    def sessions(self, identity: Identity) -> list[str]:
        """The user's session ids, most recent last."""
        require(identity, "chat")
        with self._store(identity).open() as db:
            rows = db.table("conversations").all()
        order: dict[str, float] = {}
        for r in rows:
            order[r["session_id"]] = max(order.get(r["session_id"], 0), r["ts"])
        return sorted(order, key=lambda sid: order[sid])

    # -- learning -------------------------------------------------------------------------------
    def learn(self, identity: Identity, session_id: str, text: str) -> tuple[list[str], bool]:
        """Store preferences/facts stated in `text`: (one-line confirmations, message was only that)."""
        require(identity, "chat")
        learned, rest = learn_from(text or "")
        if not learned:
            return [], False
        now = time.time()
        with self._store(identity).open() as db:
            turn = db.table("conversations").count(Query().session_id == session_id)
            source = {"session_id": session_id, "turn": turn, "ts": now, "statement": text[:500]}
            for item in learned:
                table = db.table("preferences" if item.kind == "preference" else "facts")
                table.upsert({"key": item.key, "value": item.value, **source}, Query().key == item.key)
        return merge_notes(learned), not rest

    # -- answering from memory ------------------------------------------------------------------
    def is_about_me(self, text: str) -> bool:
        return about_me_target(text or "") is not None

    def answer_about_me(self, identity: Identity, text: str) -> Answer:
        """An answer drawn only from what this user told us, labelled as memory, never as policy."""
        require(identity, "own_memory")
        target = about_me_target(text or "") or "*"
        prefs, facts = self._preferences(identity), self._facts(identity)
        if target == "*":
            items = [(k, r) for k, r in prefs.items() if r["value"] not in ("", None)] + list(facts.items())
        elif target in prefs or target in ("programme", "year", "department"):
            items = [(target, prefs[target])] if target in prefs and prefs[target]["value"] not in ("", None) else []
        else:
            items = [(k, r) for k, r in facts.items() if k == target] or [
                (k, r) for k, r in facts.items() if target in k or k in target
            ]
        if not items:
            what = "anything about you" if target == "*" else f"your {target}"
            text_out = (
                f"You haven't told me {what} yet, and the policies can't know it. You can tell me "
                '(for example "my advisor is Dr. Rao") or set it in the My memory tab.'
            )
            return Answer(text=text_out, decision="memory", query=text, reason="about-me question; nothing stored")
        parts = [f"{describe(k, r['value'])} (you told me on {_today(r['ts'])})" for k, r in items]
        return Answer(
            text=f"{LABEL} " + "; ".join(parts) + ".",
            decision="memory",
            query=text,
            reason="answered from the user's own memory, not from the policies",
        )

    def style(self, identity: Identity) -> AnswerStyle:
        """Form only: length, format, quotes, programme-first. Never evidence, never σ."""
        require(identity, "chat")
        prefs = {k: r["value"] for k, r in self._preferences(identity).items()}
        length, fmt = prefs.get("length"), prefs.get("format")
        return AnswerStyle(
            length=length if length in PREFERENCE_CHOICES["length"] else "standard",
            format=fmt if fmt in PREFERENCE_CHOICES["format"] else "prose",
            show_quotes=bool(prefs.get("show_quotes", True)),
            programme=str(prefs.get("programme") or ""),
        )

    def rewrite(self, identity: Identity, session_id: str, text: str) -> str:
        """A self-contained version of an elliptical follow-up, or "" when none is needed.

        Statements already learned from the message are taken out first, so "I'm a B.Tech
        student. What is the pass mark?" retrieves with the question alone.
        """
        require(identity, "chat")
        learned, rest = learn_from(text or "")
        question = rest if learned and rest else (text or "")
        earlier = [
            r.get("rewritten_query") or r["user_text"]
            for r in self.history(identity, session_id)
            if r.get("decision") in _POLICY_DECISIONS
        ][-_HISTORY_FOR_REWRITE:]
        rewritten = rewrite_followup(question, earlier)
        if rewritten:
            return rewritten
        return question if question != (text or "") else ""

    # -- the "My memory" tab ----------------------------------------------------------------------
    def view(self, identity: Identity) -> dict:
        """Everything held about the caller: preferences (with defaults), facts, history counts."""
        require(identity, "own_memory")
        prefs = self._preferences(identity)
        with self._store(identity).open() as db:
            rows = db.table("conversations").all()
        return {
            "preferences": {k: (prefs[k]["value"] if k in prefs else _DEFAULTS[k]) for k in PREFERENCE_KEYS},
            "facts": [
                {"key": k, "value": r["value"], "learned": _today(r["ts"]), "statement": r.get("statement", "")}
                for k, r in sorted(self._facts(identity).items())
            ],
            "sessions": len({r["session_id"] for r in rows}),
            "turns": len(rows),
        }

    def update_preference(self, identity: Identity, key: str, value: object) -> str:
        require(identity, "own_memory")
        if key not in PREFERENCE_KEYS:
            raise ValueError(f"Unknown preference {key!r}; choose one of: {', '.join(PREFERENCE_KEYS)}.")
        if key == "show_quotes" and isinstance(value, str):
            value = value.strip().lower() in ("true", "yes", "on", "1", "show")
        if key in ("length", "format") and value not in PREFERENCE_CHOICES[key]:
            raise ValueError(f"{key} must be one of: {', '.join(map(str, PREFERENCE_CHOICES[key]))}.")
        if isinstance(value, str):
            value = value.strip()[:80]
        self._upsert(identity, "preferences", key, value)
        return f"Saved: {key} = {value}."

    def update_fact(self, identity: Identity, key: str, value: str) -> str:
        require(identity, "own_memory")
        key, value = (key or "").strip().lower()[:60], (value or "").strip()[:300]
        if not key or not value:
            raise ValueError("A fact needs both a name and a value.")
        self._upsert(identity, "facts", key, value)
        return f"Saved: your {key} is {value}."

    def delete_item(self, identity: Identity, kind: str, key: str) -> bool:
        """Delete one preference (back to its default) or fact; True when something was removed."""
        require(identity, "own_memory")
        table = {"preference": "preferences", "fact": "facts"}.get(kind)
        if table is None:
            raise ValueError("kind must be 'preference' or 'fact'.")
        with self._store(identity).open() as db:
            return bool(db.table(table).remove(Query().key == key))

    def delete_fact(self, identity: Identity, key: str) -> bool:
        return self.delete_item(identity, "fact", key)

    def clear_history(self, identity: Identity) -> int:
        """Remove every conversation turn of the caller; returns how many were removed."""
        require(identity, "own_memory")
        with self._store(identity).open() as db:
            table = db.table("conversations")
            count = len(table)
            table.truncate()
        return count

    def forget_me(self, identity: Identity, query_log_path: Path | None = None) -> dict:
        """Delete the caller's file and anonymise their lines in the query log."""
        require(identity, "own_memory")
        removed = self._store(identity).delete()
        anonymised = anonymise_actor(Path(query_log_path or self.query_log_path), user_key(identity))
        return {"file_removed": removed, "log_lines_anonymised": anonymised}

    # -- helpers --------------------------------------------------------------------------------
    def _rows(self, identity: Identity, table: str) -> dict[str, dict]:
        with self._store(identity).open() as db:
            return {r["key"]: dict(r) for r in db.table(table).all()}

    def _preferences(self, identity: Identity) -> dict[str, dict]:
        return self._rows(identity, "preferences")

    def _facts(self, identity: Identity) -> dict[str, dict]:
        return self._rows(identity, "facts")

    def _upsert(self, identity: Identity, table: str, key: str, value: object) -> None:
        with self._store(identity).open() as db:
            db.table(table).upsert(
                {
                    "key": key,
                    "value": value,
                    "session_id": "",
                    "turn": None,
                    "ts": time.time(),
                    "statement": "set in the My memory tab",
                },
                Query().key == key,
            )
