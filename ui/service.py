"""The service layer: one object the Gradio handlers and the scenario runner both call.

Handlers stay thin: they take the identity from the authenticated request and call a method
here. Every method that acts for a user takes that `Identity` and checks its role itself.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from filelock import FileLock

from governance.accounts import AccountStore, ensure_demo_accounts
from governance.audit import AuditLog
from governance.identity import ROLES, Identity, PermissionDenied, require
from governance.service import GovernanceService
from memory.service import MemoryService, user_key
from pipeline.answer.clarify import pick_option, scoped_question
from pipeline.engine import AnswerEngine, please_ask
from pipeline.ground.config import Config
from pipeline.ground.freshness import MISSING, FileStamp, file_stamp
from pipeline.ground.keys import audit_key
from pipeline.ground.querylog import append_query_log
from pipeline.ground.records import Answer
from pipeline.ground.storage import JSONDocument, check_file, tighten_permissions
from pipeline.language import glossary
from pipeline.retrieve.passages import DocumentView, document_around
from pipeline.suggestions import example_questions

_LOG = logging.getLogger("warrant.service")
MAX_MESSAGE_CHARS = 2000
_GREETING = re.compile(
    r"^\s*(hi|hello|hey|good (morning|afternoon|evening)|thanks|thank you)\b"
    r"(\s+(again|there|everyone|all|warrant|so much))*[\s!.,]*$",
    re.I,
)


def greeting(words: glossary.Glossary | None = None) -> str:
    """The reply to "hello": the glossary's `subject` and, when it lists some, its `topics`."""
    words = words or glossary.active()
    topics = f" - {', '.join(words.topics)} -" if words.topics else ""
    return f"Hello! Ask me about {words.subject}{topics} and I'll answer with citations."


@dataclass
class TurnResult:
    answer: Answer
    session_id: str
    notes: list[str] = field(default_factory=list)  # one-line confirmations shown with the reply


class WarrantService:
    def __init__(self, config: Config, embed_model=None, progress: Callable | None = None) -> None:
        self.config = config
        config.home.mkdir(parents=True, exist_ok=True)
        tighten_permissions(config.home)  # 0700 folders, owner-only files, also for older state
        self.damaged = [
            d
            for d in (check_file(config.home / name) for name in ("accounts.json", "tickets.json", "settings.json"))
            if d
        ]
        self.engine = AnswerEngine(config, embed_model=embed_model)
        self.audit = AuditLog(config.audit_path, key=audit_key(config))
        # Several processes may start together on one new index (a Chroma server): one ingests,
        # the others wait for it and then find the chunks there.
        with FileLock(str(config.home / "first_ingest.lock")):
            if self.engine.index.count() == 0:
                report = self.engine.ingest(config.docs_dir, progress=progress)
                self.audit.append(
                    "ingest",
                    "system",
                    documents=report.documents,
                    chunks=report.chunks_total,
                    added=report.chunks_added,
                    folder=str(config.docs_dir),
                )
        self.memory = MemoryService(config.users_dir)
        self.governance = GovernanceService(self.engine, self.audit, config)
        self.accounts = AccountStore(config.home / "accounts.json")
        self._settings_stamp = MISSING
        self._examples: tuple[FileStamp, list[str]] = (MISSING, [])
        self._examples_lock = threading.Lock()
        self.follow_other_processes()

    def chat(
        self,
        identity: Identity,
        text: str,
        session_id: str | None = None,
        on_token: Callable[[str], None] | None = None,
    ) -> TurnResult:
        """One chat turn for the authenticated `identity`; persists it in that user's history.
        `on_token(text so far)` streams an LLM-written answer before it is verified (see
        pipeline/answer/generate.py); the returned answer is the verified one.

        Every turn leaves one query-log line (pipeline.ground.querylog): a policy question's is
        written by the engine, every other kind here, and a turn that fails leaves an "error" line
        naming the exception's class before the exception goes on to the caller."""
        require(identity, "chat")
        started = time.perf_counter()
        try:
            self.follow_other_processes()
            session_id = session_id or self.memory.new_session(identity)
            return self._chat(identity, text, session_id, on_token, started)
        except Exception as exc:
            failed = Answer(text="", decision="error", reason="the turn failed")
            try:
                self._log_turn(identity, session_id or "", failed, "error", started, error=type(exc).__name__)
            except OSError:  # a log that cannot be written must not hide the turn's own error
                _LOG.exception("the failed turn could not be logged")
            raise

    def _chat(
        self,
        identity: Identity,
        text: str,
        session_id: str,
        on_token: Callable[[str], None] | None,
        started: float,
    ) -> TurnResult:
        text = (text or "").strip()
        if not text or len(text) > MAX_MESSAGE_CHARS:
            answer = (
                Answer(text=please_ask(), decision="out_of_scope", reason="empty message")
                if not text
                else Answer(
                    text=f"That message is {len(text):,} characters long; please keep it "
                    f"under {MAX_MESSAGE_CHARS:,} characters, one question at a time.",
                    decision="out_of_scope",
                    reason="message too long",
                )
            )
            self._log_turn(identity, session_id, answer, "refused", started)
            return TurnResult(answer, session_id)
        notes, only_memory = self.memory.learn(identity, session_id, text)
        kind = ""
        if only_memory:
            answer = Answer(
                text=" ".join(notes) or "Noted.", decision="memory", query=text, reason="preference or fact stored"
            )
            kind = "memory"
        elif self.memory.is_about_me(text):
            answer = self.memory.answer_about_me(identity, text)
            kind = "about_me"
        elif _GREETING.match(text):
            answer = Answer(
                text=greeting(),
                decision="out_of_scope",
                query=text,
                reason="greeting",
            )
            kind = "greeting"
        else:  # the engine writes this turn's line, with its stage timings
            rewritten, within_doc = self._continue_clarification(identity, session_id, text)
            if not within_doc:
                # Spelling first, so the follow-up rewrite reads the words as the corpus writes them.
                spelled = self.engine.correct_spelling(text).text
                rewritten = self.memory.rewrite(identity, session_id, spelled) or (spelled if spelled != text else "")
            answer = self.engine.ask(
                text,
                self.memory.style(identity),
                rewritten=rewritten,
                actor=user_key(identity),
                session=session_id,
                on_token=on_token,
                audience=identity.audience,
                within_doc=within_doc,
            )
            answer = self.governance.on_chat_turn(identity, text, answer)
        self.memory.record_turn(identity, session_id, text, answer)
        if kind:
            self._log_turn(identity, session_id, answer, kind, started)
        return TurnResult(answer, session_id, notes)

    def _log_turn(
        self, identity: Identity, session_id: str, answer: Answer, kind: str, started: float, error: str = ""
    ) -> None:
        """The query-log line of a turn the engine did not log: its kind and time, no text."""
        answer.timings_ms = {**answer.timings_ms, "total": round((time.perf_counter() - started) * 1000, 2)}
        append_query_log(
            self.config.query_log_path, answer, actor=user_key(identity), session=session_id, kind=kind, error=error
        )

    def _continue_clarification(self, identity: Identity, session_id: str, text: str) -> tuple[str, str]:
        """When the conversation's last reply asked to clarify and `text` picks one of its options
        (by number, by words, or a click on its button): (the original question narrowed to that
        option, the option's document). Otherwise ("", "")."""
        last = self.memory.last_turn(identity, session_id) or {}
        answer = last.get("answer") or {}
        options = answer.get("clarify_options") or []
        if answer.get("decision") != "clarify" or not options:
            return "", ""
        picked = pick_option(text, options)
        if picked is None:
            return "", ""
        option = options[picked]
        original = answer.get("rewritten_query") or answer.get("query") or last.get("user_text", "")
        return scoped_question(original, option), str(option.get("doc_id") or "")

    # -- conversations (the chat tab's list) -------------------------------------------------------
    def current_conversation(self, identity: Identity) -> tuple[str, list[dict]]:
        """The conversation a page load shows: the one the caller last started or opened (even
        when it holds no turn yet), else their latest; (id, turns)."""
        session_id = self.memory.current_session(identity)
        return session_id, self.memory.history(identity, session_id)

    def conversation(self, identity: Identity, session_id: str) -> list[dict]:
        """The turns of the caller's own conversation `session_id` (none for an unknown id)."""
        require(identity, "chat")
        return self.memory.history(identity, session_id) if session_id else []

    def conversations(self, identity: Identity) -> list[dict]:
        """The caller's conversations, newest first (id, title, started, updated, turns)."""
        return self.memory.conversations(identity)

    def open_conversation(self, identity: Identity, session_id: str) -> list[dict]:
        """Reopen one of the caller's conversations; its turns. Another user's id is not found."""
        return self.memory.open_session(identity, session_id)

    def delete_conversation(self, identity: Identity, session_id: str) -> str:
        """Delete one of the caller's conversations and the votes given in it."""
        turns = self.memory.history(identity, session_id)
        removed = self.memory.delete_conversation(identity, session_id)
        for turn in turns:
            if (turn.get("feedback") or {}).get("vote"):
                self.governance.feedback.record(user_key(identity), session_id, turn, "")
        return f"Deleted the conversation ({removed} turn{'s' if removed != 1 else ''})."

    def rate_answer(self, identity: Identity, session_id: str, turn: int, vote: str, comment: str = "") -> str:
        """The caller's thumbs up/down ("up", "down", "" to take it back) and optional comment on
        one reply of their own conversation: kept with the turn, and without their name for Insights."""
        stored = self.memory.rate_turn(identity, session_id, turn, vote, comment)
        feedback = stored["feedback"]
        self.governance.feedback.record(user_key(identity), session_id, stored, feedback["vote"], feedback["comment"])
        if not feedback["vote"]:
            return "Your vote was taken back."
        return "Thank you: your comment was saved with your vote." if feedback["comment"] else "Thank you for the vote."

    def clear_history(self, identity: Identity) -> int:
        """Delete every conversation of the caller, and the votes given in them; how many turns went."""
        removed = self.memory.clear_history(identity)
        self.governance.feedback.forget(user_key(identity))
        return removed

    def forget_me(self, identity: Identity) -> dict:
        """Delete the caller's memory file, anonymise their query-log lines, remove their votes."""
        result = self.memory.forget_me(identity, self.config.query_log_path)
        result["votes_removed"] = self.governance.feedback.forget(user_key(identity))
        return result

    def claim_to_file(self, identity: Identity, session_id: str) -> str:
        """The policy-change claim the caller made in their conversation's latest reply ("" if none),
        to prefill the claim form."""
        require(identity, "file_claim")
        last = self.memory.last_turn(identity, session_id) if session_id else None
        claim = ((last or {}).get("answer") or {}).get("policy_claim") or {}
        return str(claim.get("statement") or claim.get("claim") or "")

    # -- reading the documents ---------------------------------------------------------------------
    def passage(self, identity: Identity, chunk_id: str) -> DocumentView | None:
        """A cited chunk in its document, for the document view (None: no such chunk, or one the
        caller's groups may not read)."""
        require(identity, "chat")
        return document_around(self.engine.index, chunk_id, identity.audience)

    def example_questions(self) -> list[str]:
        """Up to four questions from the documents' headings that Warrant answers (for the empty
        chat); worked out once per state of the index."""
        stamp = file_stamp(self.engine.term_stats_path)
        with self._examples_lock:
            if self._examples[0] != stamp:
                self._examples = (stamp, example_questions(self.engine))
            return list(self._examples[1])

    def open_ticket_count(self, identity: Identity) -> int:
        """Open claims waiting for review (reviewers and admins)."""
        return len(self.governance.list_tickets(identity, "open"))

    # -- accounts and sessions (the login page, the admin tab) -----------------------------------
    def ensure_demo_accounts(self) -> dict[str, str]:
        """First start: create student/reviewer/admin; returns passwords generated now (print once)."""
        return ensure_demo_accounts(self.accounts, self.config.home, self.config.demo_password)

    def login(self, username: str, password: str, address: str = "") -> Identity:
        """The Identity for these credentials; raises LoginRefused (wrong, or throttled) otherwise.

        `address` is the client's address, for the per-address throttle."""
        return self.accounts.authenticate(username, password, address=address).identity()

    def logout(self, username: str) -> None:
        """End every session of this account on the server (copied cookies stop working too)."""
        if self.accounts.get(username) is not None:
            self.accounts.end_sessions(username)

    def identity_for(self, username: str) -> Identity | None:
        """The Identity of an authenticated username with its current role (None if it is gone)."""
        account = self.accounts.get(username)
        return account.identity() if account else None

    def sso_identity(
        self, subject_id: str, username: str, display_name: str = "", groups: list[str] | None = None
    ) -> Identity:
        """The account of an SSO user, created with the `user` role on first login. `groups`: the
        provider's groups claim (governance.auth_oidc.sso_groups), which replaces the account's
        groups at each sign-in; None when the provider sent no such claim (the groups stay)."""
        account = self.accounts.get(username)
        if account is None:
            account = self.accounts.create(
                username, None, "user", display_name=display_name, provider="oidc", user_id=subject_id
            )
            self.audit.append("account_created", "system", username=username, role="user", provider="oidc")
        elif account.user_id != subject_id:
            raise PermissionDenied("That username belongs to another account; ask an admin.")
        if groups is not None:
            old, new = self.accounts.set_groups(account.username, groups)
            if old != new:
                self.audit.append(
                    "groups_change", "system", username=account.username, old=list(old), new=list(new), source="oidc"
                )
            account = self.accounts.get(account.username) or account
        return account.identity()

    def list_accounts(self, identity: Identity) -> list[dict]:
        require(identity, "manage_accounts")
        return [
            {
                "username": a.username,
                "role": a.role,
                "display_name": a.display_name,
                "provider": a.provider,
                "groups": ", ".join(a.groups),
            }
            for a in self.accounts.list()
        ]

    def set_groups(self, identity: Identity, username: str, groups: str) -> str:
        """Admins: the groups whose restricted documents an account may read ("" for none); audited."""
        require(identity, "manage_accounts")
        target = self.accounts.get(username)
        if target is None:
            raise ValueError(f"No account named {username!r}.")
        old, new = self.accounts.set_groups(target.username, groups)
        if old != new:
            self.audit.append(
                "groups_change", identity.username, username=target.username, old=list(old), new=list(new)
            )
        return f"{target.username}: groups {', '.join(new) or 'none'}."

    def read_document(self, identity: Identity, doc_id: str) -> list[dict]:
        """A document as a reader sees it: its active chunks in order (section, text), only when
        the caller may read it. A restricted document outside the caller's audience is answered
        exactly as one that does not exist, so the view does not reveal that it does."""
        require(identity, "chat")
        return self.governance.documents.readable(identity.audience, doc_id)

    def create_account(self, identity: Identity, username: str, password: str, role: str = "user") -> str:
        require(identity, "manage_accounts")
        account = self.accounts.create(username, password, role)
        self.audit.append("account_created", identity.username, username=account.username, role=account.role)
        return f"Created {account.username} ({account.role})."

    def set_role(self, identity: Identity, username: str, role: str) -> str:
        require(identity, "manage_accounts")
        if role not in ROLES:
            raise ValueError(f"Role must be one of: {', '.join(ROLES)}.")
        target = self.accounts.get(username)
        if target is None:
            raise ValueError(f"No account named {username!r}.")
        admins = [a for a in self.accounts.list() if a.role == "admin"]
        if target.role == "admin" and role != "admin" and len(admins) == 1:
            raise ValueError("That is the last admin account; make another admin first.")
        old, new = self.accounts.set_role(target.username, role)
        self.audit.append("role_change", identity.username, username=target.username, old=old, new=new)
        return f"{target.username}: {old} -> {new}."

    def set_tau(self, identity: Identity, value: float) -> str:
        """Change the support threshold now and for later starts (`<home>/settings.json`); audited."""
        require(identity, "set_tau")
        self.follow_other_processes()
        old = self.engine.tau
        self.engine.tau = float(value)
        self._save_settings({"tau": self.engine.tau})
        self.audit.append("tau_change", identity.username, old=old, new=self.engine.tau)
        return f"τ changed from {old:.2f} to {self.engine.tau:.2f}."

    def operator_metrics(self):
        """The Prometheus metrics of this state directory (governance.metrics), for `/metrics`."""
        from governance.metrics import OperatorMetrics

        return OperatorMetrics(self.config.query_log_path, self.governance.tickets, self.engine.index)

    def answer_backend(self, identity: Identity) -> dict:
        """Admins: which backend writes answers (extractive, or the configured LLM) and its last error."""
        require(identity, "set_tau")
        from pipeline.answer.llm import EXTRACTIVE_STATUS

        generator = self.engine.generator
        return (generator.backend.status() if generator is not None else EXTRACTIVE_STATUS).to_dict()

    def new_session(self, identity: Identity) -> str:
        require(identity, "chat")
        return self.memory.new_session(identity)

    def follow_other_processes(self) -> None:
        """Re-read the runtime settings (τ) when another process sharing this state directory
        changed them: one stat() per call, a read only when `settings.json` was replaced. The
        engine does the same for the index's term statistics before each question."""
        stamp = file_stamp(self.settings_path)
        if stamp != self._settings_stamp:
            self._settings_stamp = stamp
            self._load_settings()

    @property
    def settings_path(self):
        return self.config.home / "settings.json"

    def _load_settings(self) -> None:
        settings = JSONDocument(self.settings_path).read()
        if isinstance(settings.get("tau"), (int, float)):
            self.engine.tau = float(settings["tau"])

    def _save_settings(self, changes: dict) -> None:
        JSONDocument(self.settings_path).update(changes)
