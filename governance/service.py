"""Governance as the service layer sees it: claims in chat, tickets, review, corpus evolution, audit.

Every public method takes the acting `Identity` (from the authenticated session) and checks its
role here, on the server, before doing anything; hiding a tab is presentation, not security.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from governance.audit import AuditLog, VerifyResult
from governance.claims import change_cue, detect_claim
from governance.conflicts import Conflict, restatement_test
from governance.contradictions import closest, find_contradictions, propose_replacement
from governance.critic.service import PolicyCritic
from governance.evolution import CorpusEvolution, Hook
from governance.feedback import FeedbackLog
from governance.gap_resolution import GapResolver
from governance.identity import Identity, PermissionDenied, require
from governance.insights import Insights
from governance.library import ChangeResult, DocumentLibrary, PreparedDocument, Progress
from governance.proof import ProofRefused, read_upload, store_proof
from governance.rule_search import find_rule_statements
from governance.tickets import STATUSES, Ticket, TicketStore, new_ticket_id, now_iso
from governance.trust import trust_score
from governance.update_check import kept_unchanged, post_update_check
from pipeline.ground.audience import PUBLIC, Audience
from pipeline.ground.config import Config
from pipeline.ground.records import Answer, Citation
from pipeline.ground.storage import lock_for
from pipeline.ingest.index import ACTIVE

MAX_CLAIM_CHARS = 2000
MAX_PROOF_TEXT_CHARS = 20_000
MAX_SECTION_CHARS = 20_000  # the text of a section a reviewer adds
ANALYSE_TOP = 3  # retrieved chunks compared with a claim that states no value (a polarity change)
DECIDABLE = ("open", "failed")  # a failed approval changed nothing: it can be edited and decided again
_APPROVE = {"approve", "approved", "accept", "accepted", "implement"}
_REJECT = {"reject", "rejected", "decline", "declined"}


@dataclass
class ClaimAnalysis:
    """What a claim affects: every statement of the claimed rule in the active library (as
    contradictions with the chunks they stand in), the rules themselves, and the statements
    that lean on them (flagged for the reviewer)."""

    contradictions: list[dict] = field(default_factory=list)
    affected: list[dict] = field(default_factory=list)
    rules: list[dict] = field(default_factory=list)
    dependents: list[dict] = field(default_factory=list)


def _affected_entry(node) -> dict:
    meta = node.metadata
    return {
        "chunk_id": node.node_id,
        "doc_id": meta.get("doc_id", ""),
        "title": meta.get("title", ""),
        "section": meta.get("section", ""),
        "version": meta.get("version", ""),
        "effective_date": meta.get("effective_date", ""),
        "text": node.get_content(),
    }


class GovernanceService:
    def __init__(self, engine, audit: AuditLog, config: Config) -> None:
        self.engine = engine
        self.audit = audit
        self.config = config
        self.tickets = TicketStore(config.home / "tickets.json")
        self.evolution = CorpusEvolution(engine.index, config.home / "apply_journal.json")
        self.proofs_dir = config.home / "proofs"
        # Decisions and crash recovery hold one lock across threads and processes: two app
        # processes never apply (or recover) ticket changes at the same time, and the second
        # to decide a ticket finds it already decided.
        self._lock = lock_for(config.home / "governance")
        # Replaceable (tests make it fail to exercise the rollback).
        self.post_check: Callable[[Ticket, dict], dict] = lambda ticket, plan: post_update_check(
            self.engine, ticket, plan
        )
        self.recover()
        self.documents = DocumentLibrary(engine, audit, config)  # rolls back a half-done document change
        self.insights = Insights(
            engine.index, self.tickets, config.query_log_path, config.query_log_days, GapResolver(engine)
        )
        self.critic = PolicyCritic(engine.index, engine.embed_model)  # read-only: uploads and the library
        self.feedback = FeedbackLog(config.home / "feedback.json")  # votes on answers, without names

    # -- chat ---------------------------------------------------------------------------------------
    def on_chat_turn(self, identity: Identity, text: str, answer: Answer) -> Answer:
        """When `text` claims a policy changed: keep the cited answer, name the conflict, offer a ticket.

        The conflict is looked for first in the chunks the answer cites, then, when none of them
        conflicts (or the gate abstained and nothing is cited), among the chunks closest to the
        claim itself, as a filed ticket would be analysed: whether the claim's section is found
        does not depend on whether the question around it could be answered."""
        claim = detect_claim(text)
        if claim is None:
            return answer
        cited = {c.chunk_id: c for c in answer.citations}
        # Every statement of the claimed value's rule the claimant may read, the cited ones first; a
        # claim that states no value (a polarity change) is compared with the cited chunks.
        contradictions = self.analysis(
            claim.statement, claim.cue, polarity=False, audience=identity.audience
        ).contradictions
        contradictions.sort(key=lambda c: c["chunk_id"] not in cited)
        if not contradictions:
            found = []
            for node in self.engine.index.get_nodes(list(cited)):
                found += find_contradictions(claim.statement, node.node_id, node.text, node.metadata.get("section", ""))
            contradictions = [c.to_dict() for c in closest(found)]
        citation: dict | None = None
        if contradictions and contradictions[0]["chunk_id"] in cited:
            citation = _citation_dict(cited[contradictions[0]["chunk_id"]])
        else:
            if not contradictions:
                contradictions, affected = self.analyse(claim.statement, identity.audience)
            else:
                affected = [_affected_entry(n) for n in self.engine.index.get_nodes([contradictions[0]["chunk_id"]])]
            if contradictions:
                chunk = next(a for a in affected if a["chunk_id"] == contradictions[0]["chunk_id"])
                citation = {
                    "n": None,  # not among the answer's citations: named by its section, not a marker
                    "doc_id": chunk["doc_id"],
                    "chunk_id": chunk["chunk_id"],
                    "title": chunk["title"],
                    "section": chunk["section"],
                    "quote": contradictions[0]["chunk_span"]["text"],
                }
            elif cited:
                citation = _citation_dict(next(iter(cited.values())))
        answer.policy_claim = {
            "text": claim.text,
            "claim": claim.text,
            "statement": claim.statement,
            "subject": claim.subject,
            "conflicting_citation": citation,
            "contradictions": contradictions,
            "conflicts": bool(contradictions),
            "offer_ticket": True,
        }
        note = self._claim_note(claim.statement, citation, contradictions)
        answer.policy_claim["note"] = note  # a notice about the user's claim, not an answer sentence
        answer.text = f"{answer.text}\n\n{note}"
        return answer

    @staticmethod
    def _claim_note(statement: str, citation: dict | None, contradictions: list[dict]) -> str:
        offer = (
            "If you believe the policy has changed, you can file this claim for review, with any proof "
            'you have ("File a claim" below the chat). The policy as written stays in force until a '
            "reviewer approves a change."
        )
        if citation is None:
            return f'You said: "{statement}" I could not find the section this refers to. {offer}'
        marker = f"[{citation['n']}] " if citation.get("n") else ""
        where = f"{marker}{citation['title']}, {citation['section']}"
        if contradictions:
            c = contradictions[0]
            return (
                f'Note: you said "{c["claim_span"]["text"]}", which conflicts with {where}: the current '
                f'policy says "{c["chunk_span"]["text"]}". {offer}'
            )
        return f"Note: you described a change to what {where} says. {offer}"

    # -- tickets ------------------------------------------------------------------------------------
    def analyse(self, statement: str, audience: Audience = PUBLIC) -> tuple[list[dict], list[dict]]:
        """Contradictions between `statement` and the active chunks `audience` may read (the
        claimant's: a claim is compared only with text its author can read), and those chunks."""
        found = self.analysis(statement, audience=audience)
        return found.contradictions, found.affected

    def analysis(
        self, statement: str, cue: str = "", polarity: bool = True, audience: Audience = PUBLIC
    ) -> ClaimAnalysis:
        """What `statement` affects among the active chunks `audience` may read. A claimed value
        ("60%") is looked for in every statement of its rule across that part of the library
        (governance.rule_search); a claim without one ("no longer count"), with `polarity`, among
        the closest chunks, as a negation."""
        nodes = [n for n in self.engine.index.get_nodes(where={"status": ACTIVE}) if audience.can_read(n.metadata)]
        rules, found, dependents = find_rule_statements(
            statement, cue or change_cue(statement), nodes, self.engine.stats.idf, restatement_test(self.engine.index)
        )
        if found:
            by_id = {n.node_id: n for n in nodes}
            contradictions = [c.to_dict() for c in found]
            chunk_ids = dict.fromkeys(c["chunk_id"] for c in contradictions)
            return ClaimAnalysis(
                contradictions,
                [_affected_entry(by_id[i]) for i in chunk_ids],
                [r.to_dict() for r in rules],
                dependents,
            )
        if not polarity:
            return ClaimAnalysis()
        hits, _ = self.engine.retrieve(statement, audience)
        closest_nodes = {hit.node.node_id: hit.node for hit in hits[:ANALYSE_TOP]}
        near = []
        for node in closest_nodes.values():
            near += find_contradictions(statement, node.node_id, node.get_content(), node.metadata.get("section", ""))
        contradictions = [c.to_dict() for c in closest(near)]
        chunk_ids = dict.fromkeys(c["chunk_id"] for c in contradictions)
        return ClaimAnalysis(contradictions, [_affected_entry(closest_nodes[i]) for i in chunk_ids])

    def file_ticket(
        self,
        identity: Identity,
        claim: str,
        proof_text: str = "",
        proof_file: str | Path | bytes | None = None,
        proof_name: str = "",
        new_text: str = "",
    ) -> Ticket:
        """File a claim for review; refuses bad uploads (ProofRefused, a ValueError) with a clear message."""
        require(identity, "file_claim")
        claim = (claim or "").strip()
        if not claim:
            raise ValueError("Please write the claim: what you believe the policy now says.")
        if len(claim) > MAX_CLAIM_CHARS:
            raise ValueError(f"Please keep the claim under {MAX_CLAIM_CHARS:,} characters.")
        proof_text = (proof_text or "").strip()
        if len(proof_text) > MAX_PROOF_TEXT_CHARS:
            raise ValueError(f"Pasted proof is limited to {MAX_PROOF_TEXT_CHARS:,} characters; upload a file instead.")
        stored = None
        if proof_file is not None and proof_file != "":
            if isinstance(proof_file, (bytes, bytearray)):
                data, name = bytes(proof_file), proof_name
            else:
                data, name = read_upload(proof_file, proof_name or None)
            stored = store_proof(data, name, self.proofs_dir)
        detected = detect_claim(claim)
        statement = detected.statement if detected else claim
        evidence = "\n".join(t for t in (proof_text, stored.text if stored else "") if t)
        trust = trust_score(statement, identity.role, evidence, has_proof_file=stored is not None)
        found = self.analysis(statement, detected.cue if detected else "", audience=identity.audience)
        contradictions, affected = found.contradictions, found.affected
        replacements = {
            a["chunk_id"]: propose_replacement(a["text"], [c for c in contradictions if c["chunk_id"] == a["chunk_id"]])
            for a in affected
        }
        if new_text.strip() and len(affected) == 1:
            replacements[affected[0]["chunk_id"]] = new_text.strip()
        ticket = Ticket(
            ticket_id=new_ticket_id(),
            claim=claim,
            statement=statement,
            reporter_id=identity.user_id,
            reporter_name=identity.username,
            reporter_role=identity.role,
            proof_text=proof_text,
            proof_file=stored.to_dict() if stored else None,
            trust=trust.to_dict(),
            contradictions=contradictions,
            affected=affected,
            replacements=replacements,
            rules=found.rules,
            dependents=found.dependents,
        )
        self.tickets.save(ticket)
        self.audit.append(
            "ticket_created",
            identity.username,
            ticket_id=ticket.ticket_id,
            claim=claim,
            reporter_id=identity.user_id,
            trust=trust.score,
            proof=(stored.kind if stored else ("text" if proof_text else "none")),
        )
        self.audit.append(
            "contradiction_analysis",
            "system",
            ticket_id=ticket.ticket_id,
            affected=[a["chunk_id"] for a in affected],
            contradictions=[
                {
                    "kind": c["kind"],
                    "chunk_id": c["chunk_id"],
                    "claim": c["claim_span"]["text"],
                    "chunk": c["chunk_span"]["text"][:200],
                }
                for c in contradictions
            ],
            dependents=[f"{d['section']}: {d['value']}" for d in found.dependents],
        )
        return ticket

    def list_tickets(self, identity: Identity, status: str | None = None, mine: bool = False) -> list[Ticket]:
        """Reviewers and admins see the queue; anyone else sees only the claims they filed."""
        if status and status not in STATUSES:
            raise ValueError(f"Status must be one of: {', '.join(STATUSES)}.")
        if mine or not identity.can("review_tickets"):
            require(identity, "own_tickets")
            return self.tickets.list(status or None, reporter_id=identity.user_id)
        require(identity, "review_tickets")
        return self.tickets.list(status or None)

    def get_ticket(self, identity: Identity, ticket_id: str) -> Ticket:
        require(identity, "own_tickets")
        ticket = self.tickets.get(str(ticket_id or "").strip())
        if ticket is None or (ticket.reporter_id != identity.user_id and not identity.can("review_tickets")):
            # The same answer for "missing" and "someone else's": ids are not an oracle.
            raise PermissionDenied("No such ticket among the ones you may see.")
        return ticket

    def edit_replacement(self, identity: Identity, ticket_id: str, chunk_id: str, text: str) -> Ticket:
        require(identity, "review_tickets")
        with self._lock:
            ticket = self._decidable(identity, ticket_id, "edited")
            if chunk_id not in ticket.replacements:
                raise ValueError("That chunk is not one this ticket affects.")
            if not (text or "").strip():
                raise ValueError("The replacement text cannot be empty.")
            ticket.replacements[chunk_id] = text.strip()
            self.tickets.save(ticket)
            kept = chunk_id in kept_unchanged(ticket)
            self.audit.append(
                "ticket_edited", identity.username, ticket_id=ticket.ticket_id, chunk_id=chunk_id, kept_unchanged=kept
            )
            return ticket

    def keep_unchanged(self, identity: Identity, ticket_id: str, chunk_id: str) -> Ticket:
        """Leave one affected section as it is (the reviewer judges it states another rule): its
        replacement becomes its current text, the approval skips it, the post-update check names it."""
        ticket = self.get_ticket(identity, ticket_id)
        current = next((a["text"] for a in ticket.affected if a["chunk_id"] == chunk_id), None)
        if current is None:
            raise ValueError("That chunk is not one this ticket affects.")
        return self.edit_replacement(identity, ticket_id, chunk_id, current)

    def set_addition(self, identity: Identity, ticket_id: str, doc_id: str, heading: str, text: str) -> Ticket:
        """Approve a claim that adds a rule as a new section: the document and heading the reviewer
        picks, the text they write (versioned, audited and checked on approval like any change)."""
        require(identity, "review_tickets")
        doc_id, heading, text = str(doc_id or "").strip(), " ".join(str(heading or "").split()), (text or "").strip()
        if not heading:
            raise ValueError("Give the new section a heading.")
        if len(heading) > 200:
            raise ValueError("Please keep the heading under 200 characters.")
        if not text:
            raise ValueError("Write the text of the new section.")
        if len(text) > MAX_SECTION_CHARS:
            raise ValueError(f"Please keep the new section under {MAX_SECTION_CHARS:,} characters.")
        with self._lock:
            ticket = self._decidable(identity, ticket_id, "edited")
            if not self.engine.index.collection.get(where={"$and": [{"doc_id": doc_id}, {"status": ACTIVE}]}, limit=1)[
                "ids"
            ]:
                raise ValueError(f"No active document {doc_id!r}; pick one from the list.")
            ticket.addition = {"doc_id": doc_id, "heading": heading, "text": text}
            self.tickets.save(ticket)
            self.audit.append(
                "ticket_edited", identity.username, ticket_id=ticket.ticket_id, addition=f"{doc_id} §{heading}"
            )
            return ticket

    def documents_for_additions(self, identity: Identity) -> list[tuple[str, str]]:
        """(title, doc_id) of the active documents a new section can go under."""
        require(identity, "review_tickets")
        metas = self.engine.index.collection.get(where={"status": ACTIVE}, include=["metadatas"])["metadatas"] or []
        titles = {str(m.get("doc_id", "")): str(m.get("title", "")) for m in metas}
        return sorted(((title or doc_id, doc_id) for doc_id, title in titles.items()), key=lambda x: x[0].lower())

    def file_conflict_ticket(self, identity: Identity, conflict: Conflict) -> Ticket:
        """A conflict between two active documents, for reviewers: both sections are affected,
        the reviewer edits the one that is wrong (or both), and approval checks they agree."""
        require(identity, "ingest")
        nodes = {n.node_id: n for n in self.engine.index.get_nodes(list(conflict.chunks))}
        if len(nodes) != 2 or any(n.metadata.get("status") != ACTIVE for n in nodes.values()):
            raise ValueError("Both sections of the conflict must be in the active library.")
        affected = [_affected_entry(nodes[c]) for c in conflict.chunks]
        (ta, tb), (sa, sb) = conflict.titles, conflict.sections
        claim = (
            f"{ta} §{sa} and {tb} §{sb} disagree ({conflict.what}): "
            f"“{conflict.sentences[0]}” / “{conflict.sentences[1]}”"
        )
        ticket = Ticket(
            ticket_id=new_ticket_id(),
            claim=claim[:MAX_CLAIM_CHARS],
            statement=conflict.sentences[0],
            reporter_id=identity.user_id,
            reporter_name=identity.username,
            reporter_role=identity.role,
            trust={"score": 1.0, "reasons": ["found by the library's conflict scan when a document was added"]},
            affected=affected,
            replacements={a["chunk_id"]: a["text"] for a in affected},
            kind="conflict",
            conflict=conflict.to_dict(),
        )
        self.tickets.save(ticket)
        self.audit.append(
            "conflict_ticket_created",
            identity.username,
            ticket_id=ticket.ticket_id,
            chunks=list(conflict.chunks),
            what=conflict.what,
        )
        return ticket

    def versions_after(self, identity: Identity, ticket_id: str) -> dict[str, dict]:
        """What an approved ticket left active: affected chunk id (or, for an added section, the
        new chunk's id) → {"chunk_id", "text", "version"} of the version now in force."""
        ticket = self.get_ticket(identity, ticket_id)
        out: dict[str, dict] = {}
        for node in self.engine.index.get_nodes(ticket.new_chunk_ids):
            meta = node.metadata
            out[str(meta.get("supersedes") or node.node_id)] = {
                "chunk_id": node.node_id,
                "text": node.get_content(),
                "version": str(meta.get("version", "")),
                "status": str(meta.get("status", "")),
                "section": str(meta.get("section", "")),
                "title": str(meta.get("title", "")),
            }
        return out

    # -- documents and the conflicts they bring ----------------------------------------------------
    def add_documents(
        self,
        identity: Identity,
        prepared: list[PreparedDocument],
        confirmed: Iterable[str] = (),
        progress: Progress | None = None,
    ) -> tuple[list[ChangeResult], list[Ticket]]:
        """Add documents; each conflict the admin confirmed (by `Conflict.key`, as the check step
        listed them) becomes a ticket for reviewers."""
        keys = set(confirmed)
        conflicts = [c for c in self.documents.conflicts(prepared) if c.key in keys] if keys else []
        results = self.documents.add(identity, prepared, progress)
        return results, [self.file_conflict_ticket(identity, c) for c in conflicts]

    def replace_document(
        self,
        identity: Identity,
        doc_id: str,
        prepared: PreparedDocument,
        confirmed: Iterable[str] = (),
        progress: Progress | None = None,
    ) -> tuple[ChangeResult, list[Ticket]]:
        """Replace a document by a new version; confirmed conflicts become tickets, as for `add_documents`."""
        keys = set(confirmed)
        conflicts = [c for c in self.documents.conflicts([prepared], replacing=doc_id) if c.key in keys] if keys else []
        result = self.documents.replace(identity, doc_id, prepared, progress)
        return result, [self.file_conflict_ticket(identity, c) for c in conflicts]

    def _decidable(self, identity: Identity, ticket_id: str, doing: str) -> Ticket:
        ticket = self.get_ticket(identity, ticket_id)
        if ticket.status not in DECIDABLE:
            raise ValueError(
                f"Ticket {ticket.ticket_id} is already {ticket.status}; only open tickets "
                f"(or failed approvals) can be {doing}; nothing changed."
            )
        return ticket

    # -- decisions ----------------------------------------------------------------------------------
    def decide(
        self, identity: Identity, ticket_id: str, decision: str, reason: str, hook: Hook | None = None
    ) -> Ticket:
        """Approve (apply, check, commit or roll back) or reject an open ticket; a reason is required."""
        require(identity, "review_tickets")
        verdict = (decision or "").strip().lower()
        if verdict not in _APPROVE | _REJECT:
            raise ValueError("The decision must be approve or reject.")
        reason = (reason or "").strip()
        if not reason:
            raise ValueError("Please give a reason for the decision; the reporter and the audit log see it.")
        with self._lock:
            ticket = self._decidable(identity, ticket_id, "decided")
            if ticket.reporter_id == identity.user_id:
                raise PermissionDenied("You filed this claim, so another reviewer or an admin must decide it.")
            if verdict in _REJECT:
                ticket.status, ticket.decision_reason = "rejected", reason
                ticket.decided_by, ticket.decided_at = identity.username, now_iso()
                self.tickets.save(ticket)
                self.audit.append("ticket_rejected", identity.username, ticket_id=ticket.ticket_id, reason=reason)
                return ticket
            return self._approve(identity, ticket, reason, hook)

    def _approve(self, identity: Identity, ticket: Ticket, reason: str, hook: Hook | None) -> Ticket:
        kept = kept_unchanged(ticket)
        changes = {cid: text for cid, text in ticket.replacements.items() if cid not in kept}
        if not changes and not ticket.addition:
            raise ValueError(
                "This ticket changes no section of the current library: approve it as an addition "
                "(pick the document and heading of a new section and write its text), or reject it with a reason."
                if not ticket.replacements
                else "Every affected section is kept unchanged, so there is nothing to change; "
                "edit one, or reject the ticket with a reason."
            )
        plan = self.evolution.plan(ticket.ticket_id, changes, addition=ticket.addition)
        plan.update(decided_by=identity.username, reason=reason)
        # The journal first: a crash after the approval record is then always followed, at the next
        # start, by a record of what became of it (completed or rolled back).
        self.evolution.write_journal(plan)  # from here on a crash is recoverable
        self.audit.append(
            "ticket_approved",
            identity.username,
            ticket_id=ticket.ticket_id,
            reason=reason,
            kept_unchanged=sorted(kept),
            addition=f"{ticket.addition['doc_id']} §{ticket.addition['heading']}" if ticket.addition else "",
            # flagged statements the reviewer left as they were (still word for word in the text)
            dependents_unedited=[
                f"{d['section']}: {d['value']}"
                for d in ticket.dependents
                if d["chunk_id"] in changes and d["sentence"] in changes[d["chunk_id"]]
            ],
        )
        done = self.evolution.apply(plan, hook)
        old_ids, new_ids = [o["id"] for o in plan["old"]], [n["id"] for n in plan["new"]]
        self.audit.append(
            "chunks_deprecated", "system", ticket_id=ticket.ticket_id, chunk_ids=old_ids, superseded_by=new_ids
        )
        self.audit.append(
            "chunks_created",
            "system",
            ticket_id=ticket.ticket_id,
            chunk_ids=new_ids,
            versions=[n["metadata"]["version"] for n in plan["new"]],
            effective_date=plan["new"][0]["metadata"]["effective_date"] if plan["new"] else "",
            applied=done,
        )
        self.engine.refresh()
        check = self.post_check(ticket, plan)
        self.audit.append("post_update_check", "system", ticket_id=ticket.ticket_id, **check)
        if hook:
            hook("checked")
        ticket.decided_by, ticket.decided_at, ticket.check = identity.username, now_iso(), check
        if not check["passed"]:
            undone = self.evolution.rollback(plan)
            self.engine.refresh()
            self.evolution.clear_journal()
            ticket.status = "failed"
            ticket.decision_reason = (
                f"{reason} (approved, but the post-update check failed: {check['reason']}; the change was rolled back)"
            )
            self.tickets.save(ticket)
            self.audit.append(
                "apply_rolled_back", "system", ticket_id=ticket.ticket_id, reason=check["reason"], **undone
            )
            return ticket
        plan["phase"] = "committed"
        self.evolution.write_journal(plan)
        if hook:
            hook("committed")
        return self._commit(ticket, plan, reason, identity.username)

    def _commit(self, ticket: Ticket, plan: dict, reason: str, reviewer: str) -> Ticket:
        ticket.status, ticket.decision_reason = "approved", reason
        ticket.decided_by = ticket.decided_by or reviewer
        ticket.decided_at = ticket.decided_at or now_iso()
        ticket.new_chunk_ids = [n["id"] for n in plan["new"]]
        self.tickets.save(ticket)
        self.audit.append(
            "ticket_implemented",
            reviewer,
            ticket_id=ticket.ticket_id,
            deprecated=[o["id"] for o in plan["old"]],
            created=ticket.new_chunk_ids,
        )
        self.evolution.clear_journal()
        return ticket

    # -- crash recovery -----------------------------------------------------------------------------
    def recover(self) -> str:
        """Finish or undo an apply left behind by a killed process; "" when there was none."""
        with self._lock:
            plan = self.evolution.read_journal()
            if plan is None:
                return ""
            ticket = self.tickets.get(plan["ticket_id"])
            if plan.get("phase") == "committed":
                self.evolution.apply(plan)
                self.engine.refresh()
                if ticket is not None and ticket.status != "approved":
                    self._commit(ticket, plan, plan.get("reason", ""), plan.get("decided_by", "system"))
                self.evolution.clear_journal()
                self.audit.append("apply_recovered", "system", ticket_id=plan["ticket_id"], action="completed")
                return "completed"
            undone = self.evolution.rollback(plan)
            self.engine.refresh()
            if ticket is not None and ticket.status in DECIDABLE:
                ticket.notes.append(f"{now_iso()}: an approval was interrupted and rolled back; decide again.")
                self.tickets.save(ticket)
            self.evolution.clear_journal()
            self.audit.append("apply_recovered", "system", ticket_id=plan["ticket_id"], action="rolled_back", **undone)
            self.audit.append(
                "apply_rolled_back",
                "system",
                ticket_id=plan["ticket_id"],
                reason="the approval was interrupted (the process stopped); nothing of it stands",
            )
            return "rolled_back"

    # -- audit --------------------------------------------------------------------------------------
    def audit_records(self, identity: Identity, limit: int = 500) -> list[dict]:
        require(identity, "read_audit")
        return self.audit.records()[-limit:]

    def verify_audit(self, identity: Identity) -> VerifyResult:
        require(identity, "verify_audit")
        return self.audit.verify()


__all__ = ["GovernanceService", "ProofRefused"]


def _citation_dict(citation: Citation) -> dict:
    """A citation of the answer as the claim notice names it."""
    return {
        "n": citation.n,
        "doc_id": citation.doc_id,
        "chunk_id": citation.chunk_id,
        "title": citation.title,
        "section": citation.section,
        "quote": citation.quote,
    }
