"""The query log tells the truth about every chat turn, written by the real chat path
(`WarrantService.chat`): stage timings, every kind of turn, failures with their class, and what
Insights makes of it - latency by stage, the error rate, abstention reasons, gaps resolved later."""

from __future__ import annotations

import dataclasses
import json

import pytest

from governance.identity import Identity
from pipeline.ground.config import load_config

STUDENT = Identity("local:stu", "stu", "user")
REVIEWER = Identity("local:rev", "rev", "reviewer")
ADMIN = Identity("local:adm", "adm", "admin")
PARKING_Q = "Where can students park their cars on campus?"
PARKING = """# Campus Parking

## 1. Student parking
Students park their cars in the north car park, with a parking permit from the estates office.
The permit costs Rs. 400 per semester and is shown on the dashboard at all times.
"""


@pytest.fixture()
def service(tmp_path, tiny_docs_in_rupees, embed_model):
    from ui.service import WarrantService

    config = dataclasses.replace(load_config().with_home(tmp_path / "home"), docs_dir=tiny_docs_in_rupees)
    return WarrantService(config, embed_model=embed_model)


def _log(service) -> list[dict]:
    path = service.config.query_log_path
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()] if path.exists() else []


def test_a_policy_turn_logs_the_timings_of_its_stages(service):
    answer = service.chat(STUDENT, "What is the revaluation fee?").answer
    (line,) = _log(service)
    timings = line["timings_ms"]
    for stage in ("embed", "retrieve", "support", "synthesise", "verify", "total"):
        assert timings.get(stage, 0) > 0, stage
    assert timings["total"] == answer.timings_ms["total"]
    data = service.governance.insights.overview(REVIEWER)
    assert data["latency_p50"] == timings["total"]
    latency = service.governance.insights.operations(REVIEWER)["latency"]
    day = line["ts"][:10]
    assert latency["retrieval"][day]["p50"] == pytest.approx(timings["embed"] + timings["retrieve"])
    assert latency["answer"][day]["p95"] > 0 and latency["llm"][day]["p50"] is None


def test_every_turn_is_logged_with_its_kind_and_no_private_text(service):
    messages = [
        "hello",
        "my advisor is Dr. Rao",
        "who is my advisor?",
        "",
        "x" * 2001,
        "Approve ticket 12 now.",
        "What is the revaluation fee?",
    ]
    for text in messages:
        service.chat(STUDENT, text)
    lines = _log(service)
    assert [line["kind"] for line in lines] == [
        "greeting",
        "memory",
        "about_me",
        "refused",
        "refused",
        "declined",
        "policy",
    ]
    assert all(line["timings_ms"]["total"] > 0 for line in lines)
    assert all(line["actor"] and line["session"] for line in lines)
    raw = service.config.query_log_path.read_text(encoding="utf-8")
    assert "Rao" not in raw and "hello" not in raw and "xxxx" not in raw
    assert lines[-1]["query"] == "What is the revaluation fee?" and lines[-2]["query"] == "Approve ticket 12 now."


def test_a_failed_turn_is_logged_with_its_error_class(service, monkeypatch):
    def broken(*args, **kwargs):
        raise ConnectionResetError("the vector store went away")

    service.chat(STUDENT, "What is the revaluation fee?")
    monkeypatch.setattr(service.engine.index.collection, "query", broken)
    with pytest.raises(ConnectionResetError):
        service.chat(STUDENT, "How do I apply for a photocopy of my answer script?")
    last = _log(service)[-1]
    assert (last["kind"], last["decision"], last["error"]) == ("error", "error", "ConnectionResetError")
    assert last["query"] == "" and last["timings_ms"]["total"] > 0
    ops = service.governance.insights.operations(REVIEWER)
    assert ops["error_rate"] == 0.5 and ops["error_classes"] == [("ConnectionResetError", 1)]


def test_abstention_reasons_are_grouped(service):
    for question in (PARKING_Q, "Is there a hostel curfew at night?", "Can I bring my dog to the library?"):
        assert service.chat(STUDENT, question).answer.decision == "abstain"
    reasons = dict(service.governance.insights.operations(REVIEWER)["abstention_reasons"])
    assert sum(reasons.values()) == 3
    assert all("σ" not in r.split(":")[-1] and not any(ch.isdigit() for ch in r) for r in reasons)


def test_a_gap_that_a_later_document_answers_is_marked_resolved(service, tmp_path):
    from governance.insights import write_gaps_csv

    assert service.chat(STUDENT, PARKING_Q).answer.decision == "abstain"
    insights = service.governance.insights
    (before,) = [g for g in insights.gaps(REVIEWER) if any(q.question == PARKING_Q for q in g.questions)]
    assert before.status == "open"
    library = service.governance.documents
    library.add(ADMIN, [library.prepare(PARKING.encode(), "campus-parking.md")])
    (after,) = [g for g in insights.gaps(REVIEWER) if any(q.question == PARKING_Q for q in g.questions)]
    assert after.status == "resolved"
    assert after.questions[0].resolved_by.startswith("campus-parking §")
    csv_path = tmp_path / "gaps.csv"
    write_gaps_csv(insights.gaps(REVIEWER), csv_path)
    assert PARKING_Q not in csv_path.read_text(encoding="utf-8")  # the export lists what is still open
