"""The service layer: one object the Gradio handlers and the scenario runner both call.

Handlers stay thin: they take the identity from the authenticated request and call a method
here. Every method that acts for a user takes that `Identity` and checks its role itself.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable

from governance.audit import AuditLog
from governance.service import GovernanceService
from governance.identity import Identity, require
from memory.service import MemoryService, user_key
from pipeline.config import Config
from pipeline.engine import AnswerEngine
from pipeline.records import Answer

MAX_MESSAGE_CHARS = 2000
_GREETING = re.compile(r"^\s*(hi|hello|hey|good (morning|afternoon|evening)|thanks|thank you)\b[\s!.,]*$", re.I)


@dataclass
class TurnResult:
    answer: Answer
    session_id: str
    notes: list[str] = field(default_factory=list)  # one-line confirmations shown with the reply


class WarrantService:
    def __init__(self, config: Config, embed_model=None, progress: Callable | None = None) -> None:
        self.config = config
        config.home.mkdir(parents=True, exist_ok=True)
        self.engine = AnswerEngine(config, embed_model=embed_model)
        self.audit = AuditLog(config.audit_path)
        if self.engine.index.count() == 0:
            report = self.engine.ingest(config.docs_dir, progress=progress)
            self.audit.append("ingest", "system", documents=report.documents, chunks=report.chunks_total,
                              added=report.chunks_added, folder=str(config.docs_dir))
        self.memory = MemoryService(config.users_dir)
        self.governance = GovernanceService(self.engine, self.audit, config)

    def chat(self, identity: Identity, text: str, session_id: str | None = None) -> TurnResult:
        """One chat turn for the authenticated `identity`; persists it in that user's history."""
        require(identity, "chat")
        text = (text or "").strip()
        session_id = session_id or self.memory.new_session(identity)
        if not text:
            return TurnResult(Answer(text="Please type a question about the academic policies.",
                                     decision="out_of_scope", reason="empty message"), session_id)
        if len(text) > MAX_MESSAGE_CHARS:
            return TurnResult(Answer(text=f"That message is {len(text):,} characters long; please keep it "
                                     f"under {MAX_MESSAGE_CHARS:,} characters, one question at a time.",
                                     decision="out_of_scope", reason="message too long"), session_id)
        notes, only_memory = self.memory.learn(identity, session_id, text)
        if only_memory:
            answer = Answer(text=" ".join(notes) or "Noted.", decision="memory", query=text,
                            reason="preference or fact stored")
        elif self.memory.is_about_me(text):
            answer = self.memory.answer_about_me(identity, text)
        elif _GREETING.match(text):
            answer = Answer(text="Hello! Ask me about the academic policies - add/drop, exams, "
                            "revaluation, internships, projects - and I'll answer with citations.",
                            decision="out_of_scope", query=text, reason="greeting")
        else:
            rewritten = self.memory.rewrite(identity, session_id, text)
            answer = self.engine.ask(text, self.memory.style(identity), rewritten=rewritten,
                                     actor=user_key(identity), session=session_id)
            answer = self.governance.on_chat_turn(identity, text, answer)
        self.memory.record_turn(identity, session_id, text, answer)
        return TurnResult(answer, session_id, notes)
