"""The short form of the scenario benchmark: a few sessions end to end, plus the metric rules."""

from __future__ import annotations

import json

import pytest

from scenarios.suite.metrics import METRIC_KEYS, Outcome, compute, percentile
from scenarios.suite.runner import load_sessions

SHORT = ["s01_asha_first_session", "s13_ed_unanswerable", "s17_mallory_cross_user", "s18_mallory_injection"]


def test_scenario_files_cover_the_required_size_and_categories():
    sessions = load_sessions()
    turns = [t for s in sessions for t in s["turns"]]
    assert len(sessions) >= 22 and len(turns) >= 150
    categories = {t.get("category") for t in turns}
    for needed in (
        "introduction",
        "preference_learning",
        "profile_recall",
        "basic_policy",
        "followup",
        "two_sections",
        "unanswerable",
        "out_of_scope",
        "ambiguous",
        "contradiction_claim",
        "review",
        "after_review",
        "cross_user_probe",
        "prompt_injection",
        "returning_user",
    ):
        assert needed in categories, needed
    assert {s["role"] for s in sessions} == {"user", "reviewer", "admin"}


def _chat(expect: dict, decision: str, **kw) -> Outcome:
    return Outcome(
        session="s",
        user="u",
        index=0,
        category=kw.pop("category", "x"),
        kind="chat",
        say="q",
        expect=expect,
        decision=decision,
        **kw,
    )


def test_baseline_answer_where_abstention_expected_counts_every_sentence_as_hallucinated():
    outcomes = [
        _chat({"decision": "abstain"}, "answer", sentences=3, unsupported=0),
        _chat({"decision": "answer"}, "answer", sentences=2, unsupported=0, checks={"cite": True}),
    ]
    metrics = compute(outcomes)
    assert metrics["hallucination_rate"] == 0.6
    assert metrics["abstention_recall"] == 0.0
    assert metrics["abstention_precision"] is None  # nothing was withheld: undefined, not 1.0


def test_abstention_precision_penalises_withheld_answerable_turns():
    outcomes = [_chat({"decision": "abstain"}, "abstain"), _chat({"decision": "answer"}, "abstain")]
    assert compute(outcomes)["abstention_precision"] == 0.5


def test_not_evaluable_steps_are_left_out_of_task_success():
    ok = _chat({"decision": "memory"}, "memory", checks={"decision": True})
    skipped = Outcome(
        session="s",
        user="u",
        index=1,
        category="review",
        kind="action",
        say="review",
        expect={"ticket": "approved"},
        evaluable=False,
    )
    metrics = compute([ok, skipped])
    assert metrics["task_success"] == 1.0 and metrics["contradiction_resolution"] is None


def test_percentile_is_nearest_rank():
    assert percentile([5, 1, 3, 2, 4], 50) == 3 and percentile(list(range(1, 101)), 95) == 95


@pytest.fixture(scope="module")
def short_report(tmp_path_factory, embed_model):
    from scenarios.suite.benchmark import run

    root = tmp_path_factory.mktemp("scenarios")
    report = run(root / "home", root / "out", only=SHORT, loo=True, loo_limit=3, embed_model=embed_model, quiet=True)
    return report, root


def test_short_run_writes_json_markdown_and_plots(short_report):
    _report, root = short_report
    out = root / "out"
    for name in ("latest.json", "latest.md", "sigma.png", "metrics.png", "turns.jsonl"):
        assert (out / name).stat().st_size > 0, name
    saved = json.loads((out / "latest.json").read_text(encoding="utf-8"))
    assert set(METRIC_KEYS) <= set(saved["metrics"]) and set(METRIC_KEYS) <= set(saved["baseline"])
    assert saved["sessions"] == len(SHORT) and saved["turns"] >= 25
    assert saved["loo_abstention_rate"] is not None and saved["loo_items"] == 3
    assert (root / "home" / "audit.jsonl").exists()  # --home is kept, audit log included


def test_short_run_keeps_memory_isolated_and_gates_better_than_the_baseline(short_report):
    report, root = short_report
    metrics, baseline = report["metrics"], report["baseline"]
    assert metrics["memory_isolation_integrity"] == 1.0
    assert metrics["abstention_recall"] > baseline["abstention_recall"]
    rows = [json.loads(line) for line in (root / "out" / "turns.jsonl").read_text(encoding="utf-8").splitlines()]
    assert all(r["unsupported"] == 0 for r in rows if r["side"] == "system")  # the verifier drops them
    assert metrics["policy_claim_false_alarm_rate"] == 0.0
    assert metrics["personalization_accuracy"] == 1.0 and baseline["personalization_accuracy"] == 0.0


def test_short_run_learns_the_profile_and_answers_the_fee_with_its_section(short_report, tmp_path):
    _report, root = short_report
    rows = [json.loads(line) for line in (root / "out" / "turns.jsonl").read_text(encoding="utf-8").splitlines()]
    system = {(r["session"], r["index"]): r for r in rows if r["side"] == "system"}
    assert system[("s01_asha_first_session", 1)]["passed"]  # "I'm a third-year B.Tech CSE student."
    fee = system[("s01_asha_first_session", 3)]
    assert fee["passed"] and "Rs. 500" in fee["text"] and any(c.startswith("revaluation 5.1") for c in fee["cited"])


class _FakeGovernance:
    """Stands in for the governance service's ticket methods (#6) to pin the runner's adapter."""

    def __init__(self) -> None:
        self.tickets: dict[str, dict] = {}

    def file_ticket(self, identity, claim: str, proof: str = "") -> dict:
        ticket = {"id": f"T{len(self.tickets) + 1}", "status": "open", "claim": claim}
        self.tickets[ticket["id"]] = ticket
        return ticket

    def decide(self, identity, ticket_id: str, decision: str, note: str = "") -> dict:
        from governance.identity import require

        require(identity, "review_tickets")
        self.tickets[ticket_id]["status"] = "implemented" if decision == "approve" else "rejected"
        return self.tickets[ticket_id]


def test_ticket_actions_reach_the_governance_service_and_respect_roles():
    from types import SimpleNamespace

    from governance.identity import Identity
    from scenarios.suite.runner import run_action

    service = SimpleNamespace(governance=_FakeGovernance())
    user, reviewer = Identity("local:u", "u", "user"), Identity("local:r", "r", "reviewer")
    tickets, reviewed = {}, {}

    def step(action: dict, who) -> Outcome:
        outcome = Outcome(
            session="s",
            user=who.username,
            index=0,
            category="review",
            kind="action",
            say=action["action"],
            expect=action["expect"],
        )
        run_action(action, outcome, service, who, tickets, reviewed)
        return outcome

    filed = step(
        {"action": "file_ticket", "claim": "The fee is now Rs. 750.", "label": "fee", "expect": {"ticket": "filed"}},
        user,
    )
    denied = step({"action": "review", "label": "fee", "decision": "approve", "expect": {"ticket": "denied"}}, user)
    approved = step(
        {"action": "review", "label": "fee", "decision": "approve", "expect": {"ticket": "approved"}}, reviewer
    )
    assert filed.passed and denied.passed and approved.passed
    assert reviewed == {"fee": "implemented"} and service.governance.tickets["T1"]["claim"] == "The fee is now Rs. 750."


def test_ticket_actions_are_not_evaluable_while_governance_lacks_them():
    from types import SimpleNamespace

    from governance.identity import Identity
    from scenarios.suite.runner import run_action

    outcome = Outcome(
        session="s", user="u", index=0, category="ticket", kind="action", say="file", expect={"ticket": "filed"}
    )
    run_action(
        {"action": "file_ticket", "claim": "x", "label": "x", "expect": {"ticket": "filed"}},
        outcome,
        SimpleNamespace(governance=object()),
        Identity("local:u", "u"),
        {},
        {},
    )
    assert not outcome.evaluable and "file_ticket" in outcome.note
