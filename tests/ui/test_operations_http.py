"""The running app over plain HTTP: `/metrics` answers only a scraper with the token, counts the
turns users had, and the new admin endpoints (groups, a document's audience) refuse a student."""

from __future__ import annotations

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

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
        event, _ = call(client, base, "ask", "What is the revaluation fee?", [], "")
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
    assert not audit.exists() or "groups_change" not in audit.read_text(encoding="utf-8")
