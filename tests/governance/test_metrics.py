"""The operator's metrics from the shared state: turns by decision, errors, latency histograms, open
tickets and index size, parsed back with prometheus-client's own parser; turns another process
logged are counted too."""

from __future__ import annotations

import dataclasses

import pytest
from prometheus_client.parser import text_string_to_metric_families

from governance.identity import Identity
from pipeline.ground.config import load_config
from pipeline.ground.querylog import anonymise_actor
from tests.conftest import run_module

STUDENT = Identity("local:stu", "stu", "user")


@pytest.fixture()
def service(tmp_path, tiny_docs_in_rupees, embed_model):
    from ui.service import WarrantService

    config = dataclasses.replace(load_config().with_home(tmp_path / "home"), docs_dir=tiny_docs_in_rupees)
    return WarrantService(config, embed_model=embed_model)


def _samples(metrics) -> dict[tuple, float]:
    text = metrics.exposition().decode("utf-8")
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def test_metrics_count_turns_errors_latency_tickets_and_chunks(service, monkeypatch):
    metrics = service.operator_metrics()
    service.chat(STUDENT, "What is the revaluation fee?")
    service.chat(STUDENT, "hello")
    samples = _samples(metrics)
    assert samples[("warrant_turns_total", (("decision", "answer"), ("kind", "policy")))] == 1
    assert samples[("warrant_turns_total", (("decision", "out_of_scope"), ("kind", "greeting")))] == 1
    assert samples[("warrant_turn_latency_seconds_count", (("stage", "retrieval"),))] == 1
    assert samples[("warrant_turn_latency_seconds_count", (("stage", "total"),))] == 2
    assert samples[("warrant_turn_latency_seconds_bucket", (("le", "+Inf"), ("stage", "total")))] == 2
    assert samples[("warrant_turn_latency_seconds_sum", (("stage", "retrieval"),))] > 0
    assert samples[("warrant_open_tickets", ())] == 0
    active = service.engine.index.count()
    assert samples[("warrant_index_chunks", (("status", "active"),))] == active > 0

    service.governance.file_ticket(STUDENT, "The revaluation fee is now Rs. 800 per course.")
    monkeypatch.setattr(service.engine.index.collection, "query", lambda *a, **k: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        service.chat(STUDENT, "How do I apply for a photocopy?")
    monkeypatch.undo()
    samples = _samples(metrics)  # only the lines since the last scrape are read
    assert samples[("warrant_errors_total", (("error", "ZeroDivisionError"),))] == 1
    assert samples[("warrant_turns_total", (("decision", "answer"), ("kind", "policy")))] == 1
    assert samples[("warrant_open_tickets", ())] == 1

    anonymise_actor(service.config.query_log_path, "nobody-matches")  # the file is replaced: read again
    assert _samples(metrics)[("warrant_turns_total", (("decision", "answer"), ("kind", "policy")))] == 1


def test_turns_of_another_process_on_the_same_state_are_counted(service):
    metrics = service.operator_metrics()
    service.chat(STUDENT, "What is the revaluation fee?")
    assert _samples(metrics)[("warrant_turns_total", (("decision", "answer"), ("kind", "policy")))] == 1
    env_home = service.config.home
    asked = run_module("pipeline", "ask", "What is the photocopy fee?", home=env_home)
    assert asked.returncode == 0, asked.stderr
    assert _samples(metrics)[("warrant_turns_total", (("decision", "answer"), ("kind", "policy")))] == 2
