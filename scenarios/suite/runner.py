"""Drives the scenario sessions through `ui.service.WarrantService`, the layer the Gradio UI calls.

Each chat turn runs twice, back to back on the same index: the system (`service.chat`, with
memory, gate, verifier and governance) and the standard-RAG baseline (`service.engine.ask(...,
gated=False)`: same retrieval and synthesiser, no gate, no verifier, no memory). Ticket actions
(file, review) go through `service.governance`; where a method the scenario needs does not exist
yet, that step is recorded as not evaluable instead of failing the run.
"""

from __future__ import annotations

import inspect
import json
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from governance.identity import Identity, PermissionDenied
from pipeline.evaluation.golden import answer_sentences_text, unsupported_sentences
from pipeline.ground.records import Answer
from scenarios.suite.metrics import Outcome

SESSIONS_DIR = Path(__file__).resolve().parent / "sessions"
_MARKED = re.compile(r"(.+?)\s*\[(\d+)\](?:\s+|$)")


@dataclass
class RunResult:
    system: list[Outcome] = field(default_factory=list)
    baseline: list[Outcome] = field(default_factory=list)
    sessions: int = 0
    turns: int = 0
    # Pairs of active chunks that contradict each other (governance.conflicts), counted before the
    # first turn and after every approved ticket: an approval must leave none it did not find.
    library_contradictions: dict = field(default_factory=dict)


def count_contradictions(service) -> dict:
    """The active library's contradicting chunk pairs now: how many, and which."""
    from governance.conflicts import library_conflicts

    found = library_conflicts(service.engine.index)
    return {"pairs": len(found), "conflicts": [c.label() for c in found]}


def load_sessions(folder: Path = SESSIONS_DIR, only: list[str] | None = None) -> list[dict]:
    """Scenario files in name order (sessions of one user follow one another in that order)."""
    sessions = []
    for path in sorted(folder.glob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        data.setdefault("name", path.stem)
        if only and not any(o == data["name"] or o == path.stem or o in data["name"] for o in only):
            continue
        sessions.append(data)
    return sessions


def identity_for(session: dict) -> Identity:
    name = session["user"]
    return Identity(f"local:{name}", name, session.get("role", "user"), name.title())


# -- checking one answer ---------------------------------------------------------------------------


class _Chunks:
    """Chunk metadata and text by id, read from the live index (new versions appear after approval)."""

    def __init__(self, engine) -> None:
        self.engine = engine
        self.cache: dict[str, tuple[dict, str]] = {}

    def get(self, ids: list[str]) -> dict[str, tuple[dict, str]]:
        missing = [i for i in ids if i not in self.cache]
        for node in self.engine.index.get_nodes(missing) if missing else []:
            self.cache[node.node_id] = (dict(node.metadata), node.get_content())
        return {i: self.cache[i] for i in ids if i in self.cache}


def section_match(gold: str, cited: str) -> bool:
    return cited == gold or cited.startswith(gold + ".") or gold.startswith(cited + ".")


def _cites(expected: list[str], cited: list[tuple[str, list[str]]]) -> bool:
    for item in expected:
        doc, _, section = item.partition(" ")
        if any(d == doc and any(section_match(section, n) for n in numbers) for d, numbers in cited):
            return True
    return False


def _norm(text: str) -> str:
    return " ".join(text.lower().split())


def _uncited(text: str) -> bool:
    """True when an answer has content outside any `sentence [n]` unit."""
    rest = "".join(_MARKED.sub("", line.lstrip("- ")) for line in text.splitlines())
    return len(re.findall(r"[A-Za-z]", rest)) >= 3


def score_answer(outcome: Outcome, answer: Answer, chunks: _Chunks) -> None:
    """Fill `outcome` from `answer` and run the checks its expectation asks for."""
    e = outcome.expect
    outcome.decision = answer.decision
    outcome.text = answer.text
    outcome.policy_claim = answer.policy_claim is not None
    if answer.support is not None:
        outcome.sigma, outcome.tau = round(answer.support.sigma, 4), round(answer.support.tau, 4)
    found = chunks.get([c.chunk_id for c in answer.citations])
    cited = [
        (m.get("doc_id", ""), [n for n in str(m.get("section_numbers", "")).split(",") if n]) for m, _ in found.values()
    ]
    outcome.cited = [f"{d} {','.join(n)}" for d, n in cited]
    if answer.decision == "answer":
        total, bad = unsupported_sentences(answer, {k: t for k, (_, t) in found.items()})
        outcome.sentences, outcome.unsupported = total, bad
        outcome.uncited_text = _uncited(answer_sentences_text(answer))
    want = e.get("decision", "any")
    checks = outcome.checks
    if want == "answer":
        checks["decision"] = answer.decision == "answer"
    elif want == "abstain":
        checks["decision"] = answer.decision in ("abstain", "out_of_scope", "clarify")
    elif want == "not_answer":
        checks["decision"] = answer.decision != "answer"
    elif want == "claim":
        checks["decision"] = answer.policy_claim is not None
    elif want in ("clarify", "memory", "out_of_scope"):
        checks["decision"] = answer.decision == want
    text = _norm(answer.text)
    if e.get("cite"):
        checks["cite"] = _cites(e["cite"], cited)
    if e.get("facts"):
        checks["facts"] = all(_norm(f) in text for f in e["facts"])
    if e.get("must_not"):
        checks["must_not"] = not any(_norm(f) in text for f in e["must_not"])
    if e.get("claim_section"):
        blob = json.dumps(answer.policy_claim or {}, default=str).lower()
        doc, _, section = e["claim_section"].partition(" ")
        checks["claim_section"] = answer.policy_claim is not None and (
            _cites([e["claim_section"]], cited) or (doc in blob and section in blob)
        )
    if e.get("no_claim"):
        checks["no_claim"] = answer.policy_claim is None
    style = e.get("style") or {}
    if style:
        lines = [ln for ln in answer.text.splitlines() if ln.strip()]
        ok = answer.decision == "answer"
        if style.get("format") == "bullets":
            ok = ok and bool(lines) and all(ln.lstrip().startswith("- ") for ln in lines)
        if style.get("length") == "brief":
            ok = ok and len(_MARKED.findall(answer.text.replace("\n", " "))) <= 2
        checks["style"] = ok


def _check_memory(outcome: Outcome, service, identity: Identity) -> None:
    e = outcome.expect
    if not (e.get("remembers") or e.get("remembers_fact")):
        return
    try:
        view = service.memory.view(identity)
    except Exception as exc:
        outcome.note = f"memory.view failed: {exc}"
        view = {"preferences": {}, "facts": []}
    if e.get("remembers"):
        prefs = view.get("preferences", {})
        outcome.checks["remembers"] = all(
            _norm(str(v)) == _norm(str(prefs.get(k, ""))) for k, v in e["remembers"].items()
        )
    if e.get("remembers_fact"):
        facts = {_norm(f["key"]): _norm(str(f["value"])) for f in view.get("facts", [])}
        outcome.checks["remembers_fact"] = all(
            _norm(v) in facts.get(_norm(k), "") for k, v in e["remembers_fact"].items()
        )


# -- governance actions, called defensively ------------------------------------------------------------

_ARG_NAMES = {
    "claim": ("claim", "text", "claim_text", "statement"),
    "proof": ("proof", "evidence", "proof_text"),
    "new_text": ("new_text", "proposed_text", "replacement", "new_version"),
    "decision": ("decision", "verdict", "action", "outcome"),
    "note": ("note", "comment", "reason", "notes"),
}


def _call(method, identity: Identity, values: dict, positional: list | None = None):
    """Call `method(identity, *positional, **kwargs)` passing only the values it has parameters for."""
    params = inspect.signature(method).parameters
    kwargs = {}
    for key, value in values.items():
        for name in _ARG_NAMES.get(key, (key,)):
            if name in params:
                kwargs[name] = value
                break
    return method(identity, *(positional or []), **kwargs)


def _ticket_id(result) -> str:
    if isinstance(result, (str, int)):
        return str(result)
    if isinstance(result, dict):
        return str(result.get("ticket_id") or result.get("id") or "")
    return str(getattr(result, "ticket_id", "") or getattr(result, "id", "") or "")


def _ticket_status(result) -> str:
    if isinstance(result, dict):
        return str(result.get("status", ""))
    return str(getattr(result, "status", "") or "")


def run_action(
    step: dict,
    outcome: Outcome,
    service,
    identity: Identity,
    tickets: dict[str, str],
    reviewed: dict[str, str],
    after_approval: list[dict] | None = None,
) -> None:
    gov = service.governance
    want = step.get("expect", {}).get("ticket", "")
    started = time.perf_counter()
    try:
        if step["action"] == "file_ticket":
            if not hasattr(gov, "file_ticket"):
                outcome.evaluable, outcome.note = False, "governance.file_ticket does not exist yet"
                return
            result = _call(gov.file_ticket, identity, {k: step[k] for k in ("claim", "proof", "new_text") if k in step})
            tickets[step["label"]] = _ticket_id(result)
            outcome.decision = "filed"
            outcome.checks["ticket"] = bool(tickets[step["label"]])
        elif step["action"] == "review":
            if not hasattr(gov, "decide"):
                outcome.evaluable, outcome.note = False, "governance.decide does not exist yet"
                return
            ticket = tickets.get(step["label"])
            if not ticket:
                outcome.evaluable, outcome.note = False, f"no ticket was filed for {step['label']!r}"
                return
            try:
                result = _call(
                    gov.decide, identity, {"decision": step["decision"], "note": "scenario review"}, [ticket]
                )
            except PermissionDenied as exc:
                outcome.decision, outcome.text = "denied", str(exc)
                outcome.checks["ticket"] = want == "denied"
                return
            status = _ticket_status(result)
            if not status and hasattr(gov, "get_ticket"):
                try:
                    status = _ticket_status(_call(gov.get_ticket, identity, {}, [ticket]))
                except Exception:
                    status = ""
            outcome.decision = status or step["decision"]
            word = {"approved": ("approv", "implement"), "rejected": ("reject",)}.get(want, (want,))
            outcome.checks["ticket"] = any(w in outcome.decision.lower() for w in word)
            reviewed[step["label"]] = outcome.decision
            if after_approval is not None and outcome.decision == "approved":
                after_approval.append({"ticket": step["label"], **count_contradictions(service)})
        else:
            outcome.evaluable, outcome.note = False, f"unknown action {step['action']!r}"
    except (TypeError, AttributeError, NotImplementedError) as exc:
        outcome.evaluable, outcome.note = False, f"{step['action']} not callable as expected: {exc}"
    except (PermissionDenied, ValueError, KeyError) as exc:
        outcome.decision, outcome.text = "error", str(exc)
        outcome.checks["ticket"] = want == "denied" and isinstance(exc, PermissionDenied)
    finally:
        outcome.latency_ms = round((time.perf_counter() - started) * 1000, 2)


# -- the run -----------------------------------------------------------------------------------------


def run_sessions(service, sessions: list[dict], progress=None) -> RunResult:
    result = RunResult(sessions=len(sessions))
    after_approval: list[dict] = []
    result.library_contradictions = {"start": count_contradictions(service), "after_approvals": after_approval}
    chunks = _Chunks(service.engine)
    tickets: dict[str, str] = {}
    reviewed: dict[str, str] = {}  # ticket label -> status reached through a reviewer's decision
    users: dict[str, Identity] = {}
    for session in sessions:
        identity = identity_for(session)
        users[identity.user_id] = identity
        session_id = None
        for index, step in enumerate(session["turns"]):
            result.turns += 1
            base = {
                "session": session["name"],
                "user": session["user"],
                "index": index,
                "category": step.get("category", ""),
                "expect": dict(step.get("expect") or {}),
            }
            if "action" in step:
                outcome = Outcome(kind="action", say=f"{step['action']} {step.get('label', '')}".strip(), **base)
                run_action(step, outcome, service, identity, tickets, reviewed, after_approval)
                result.system.append(outcome)
                continue
            text = step["say"]
            system = Outcome(kind="chat", say=text, **base)
            started = time.perf_counter()
            try:
                turn = service.chat(identity, text, session_id)
                session_id = turn.session_id
                system.latency_ms = round((time.perf_counter() - started) * 1000, 2)
                score_answer(system, turn.answer, chunks)
                _check_memory(system, service, identity)
            except PermissionDenied as exc:
                system.decision, system.text = "denied", str(exc)
                system.checks["decision"] = False
            baseline = Outcome(kind="chat", say=text, **base)
            started = time.perf_counter()
            answer = service.engine.ask(text, gated=False, log=False)
            baseline.latency_ms = round((time.perf_counter() - started) * 1000, 2)
            score_answer(baseline, answer, chunks)
            if baseline.expect.get("remembers") or baseline.expect.get("remembers_fact"):
                baseline.checks["remembers"] = False  # a standard RAG pipeline keeps no memory
            result.system.append(system)
            result.baseline.append(baseline)
            after = step.get("expect", {}).get("after")
            if after and after not in reviewed:  # the review it depends on could not run
                for o in (system, baseline):
                    o.evaluable, o.note = False, f"depends on the review of ticket {after!r}, which did not run"
            if progress:
                progress(session["name"], index, system)
    result.system.extend(isolation_audit(service, users, sessions))
    return result


def isolation_audit(service, users: dict[str, Identity], sessions: list[dict]) -> list[Outcome]:
    """One check per user: their memory view holds none of the facts other users stated."""
    stated: dict[str, set[str]] = {}
    for session in sessions:
        for step in session["turns"]:
            e = step.get("expect") or {}
            values = list((e.get("remembers_fact") or {}).values())
            if values:
                stated.setdefault(f"local:{session['user']}", set()).update(_norm(v) for v in values)
    outcomes = []
    for user_id, identity in users.items():
        outcome = Outcome(
            session="(end of run)",
            user=identity.username,
            index=0,
            category="isolation",
            kind="isolation_audit",
            say="memory view",
            expect={},
        )
        try:
            blob = _norm(json.dumps(service.memory.view(identity), default=str))
        except Exception as exc:
            outcome.evaluable, outcome.note = False, f"memory.view failed: {exc}"
            outcomes.append(outcome)
            continue
        foreign = [v for other, values in stated.items() if other != user_id for v in values if v in blob]
        outcome.checks["isolation"] = not foreign
        outcome.note = f"foreign facts: {foreign}" if foreign else ""
        outcomes.append(outcome)
    return outcomes
