"""Governance as the service layer sees it. STUB to be built by the governance issue (#6).

Contract used by ui/service.py, the review tab and the scenario runner:
- `on_chat_turn(identity, text, answer) -> Answer`: when `text` claims a policy changed, set
  `answer.policy_claim` (claim, conflicting cited section, offer to file) and say so in the text.
- ticket methods (`file_ticket`, `list_tickets`, `get_ticket`, `decide`) each take the acting
  `Identity` and check its role on the server.
"""

from __future__ import annotations

from governance.audit import AuditLog
from governance.claims import detect_claim
from governance.identity import Identity
from pipeline.config import Config
from pipeline.records import Answer


class GovernanceService:
    def __init__(self, engine, audit: AuditLog, config: Config) -> None:
        self.engine = engine
        self.audit = audit
        self.config = config

    def on_chat_turn(self, identity: Identity, text: str, answer: Answer) -> Answer:
        claim = detect_claim(text)
        if claim is not None:
            answer.policy_claim = {"text": claim.text, "subject": claim.subject}
        return answer
