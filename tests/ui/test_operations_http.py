"""The running app over plain HTTP: `/metrics` answers only a scraper with the token, counts the
turns users had, the new admin endpoints (groups, a document's audience) refuse a student, and a
document restricted to a group stays out of what a student outside it is shown."""

from __future__ import annotations

import json

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.conftest import TINY_FEES, TINY_LIBRARY
from tests.governance.test_audiences import TRACES
from tests.pipeline.test_audience import HR_PAY, QUESTION
from tests.ui.server import call, login, running_app

TOKEN = "metrics-token-for-tests-0123456789"


@pytest.fixture(scope="module")
def app():
    with running_app(extra_env={"WARRANT_METRICS_TOKEN": TOKEN}) as served:
        yield served


def test_metrics_need_the_token_and_count_the_turns(app):
    base, _ = app
    for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": TOKEN}):
        refused = httpx.get(base + "/metrics", headers=headers)
        assert refused.status_code == 401 and "warrant_" not in refused.text
    with httpx.Client() as client:
        login(client, base, "student")
        event, _ = call(client, base, "ask", "What is the revaluation fee?", "")
        assert event == "complete"
    scraped = httpx.get(base + "/metrics", headers={"Authorization": f"Bearer {TOKEN}"})
    assert scraped.status_code == 200 and scraped.headers["content-type"].startswith("text/plain")
    samples = {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(scraped.text)
        for s in family.samples
    }
    assert samples[("warrant_turns_total", (("decision", "answer"), ("kind", "policy")))] >= 1
    assert samples[("warrant_turn_latency_seconds_count", (("stage", "total"),))] >= 1
    assert samples[("warrant_index_chunks", (("status", "active"),))] > 0
    assert ("warrant_open_tickets", ()) in samples


def test_a_student_cannot_set_groups_or_a_documents_audience(app):
    base, home = app
    with httpx.Client() as client:
        login(client, base, "student")
        _, data = call(client, base, "set_groups", "student", "hr")
        assert "does not allow" in data[0]
        _, data = call(client, base, "documents_audience", "advising", "hr")
        assert "does not allow" in data[0]
    audit = home / "audit.jsonl"  # none at all when nothing was recorded since the start
    records = [json.loads(line) for line in audit.read_text(encoding="utf-8").splitlines()] if audit.exists() else []
    assert not [r for r in records if r["actor"] == "student"]


@pytest.fixture(scope="module")
def hr_app(tmp_path_factory):
    """The app over the tiny library and an HR-only document (its front matter names the audience)."""
    docs = tmp_path_factory.mktemp("hr-docs")
    for name, text in (("fees.md", TINY_FEES), ("library.md", TINY_LIBRARY), ("hr-pay.md", HR_PAY)):
        (docs / name).write_text(text, encoding="utf-8")
    with running_app(timeout_s=1200, docs=docs) as served:
        yield served


def test_a_student_outside_the_audience_gets_an_abstention_that_does_not_reveal_the_document(hr_app):
    base, _ = hr_app
    with httpx.Client() as admin, httpx.Client() as student, httpx.Client() as reviewer:
        for client, name in ((admin, "admin"), (student, "student"), (reviewer, "reviewer")):
            login(client, base, name)
        event, outside = call(student, base, "ask", QUESTION, "")
        shown = json.dumps(outside)
        assert event == "complete" and "No answer" in shown
        assert not [t for t in TRACES if t in shown]
        _, data = call(student, base, "documents_chunks", "hr-pay")  # the library view: staff only
        assert "does not allow" in data[0] and not [t for t in TRACES if t in json.dumps(data)]

        _, data = call(admin, base, "set_groups", "student", "HR")
        assert data[0] == "student: groups hr."
        _, inside = call(student, base, "ask", QUESTION, "")  # the next turn reads the account's groups
        assert "three weeks" in json.dumps(inside) and "Staff Redundancy Payments" in json.dumps(inside)

        # The reviewer, in no group, sees neither the document's sections nor its questions in Insights.
        _, gap = call(student, base, "ask", "Is redundancy notice shorter for staff on probation?", "")
        assert "No answer" in json.dumps(gap)  # a knowledge gap whose nearest section is the HR document's
        event, insights = call(reviewer, base, "insights_refresh")
        assert event == "complete"
        gaps = 7  # the knowledge-gaps table among the refresh's outputs (the open conflicts follow it)
        assert "probation" not in json.dumps(insights[gaps]) and not [t for t in TRACES if t in json.dumps(insights)]
        call(admin, base, "set_groups", "reviewer", "hr")
        _, insights = call(reviewer, base, "insights_refresh")
        assert "probation" in json.dumps(insights[gaps]) and "hr-pay" in json.dumps(insights[gaps])
