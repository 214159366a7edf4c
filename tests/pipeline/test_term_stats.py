"""Term statistics: counted once, stored under the index's fingerprint, reused across restarts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipeline.engine import AnswerEngine
from pipeline.ingest.index import ChunkIndex
from pipeline.ingest.term_stats import TermStats

TEXTS = ["The revaluation fee is Rs. 500 per course.", "A fine of Rs. 5 per day is charged."]


def test_saved_counts_load_only_under_the_same_fingerprint(tmp_path: Path):
    stats = TermStats(TEXTS)
    stats.save(tmp_path / "term_stats.json", {"active": 2})

    same, other = TermStats(), TermStats()
    assert same.load(tmp_path / "term_stats.json", {"active": 2})
    assert same.documents == 2 and same.idf("revaluation") == stats.idf("revaluation")
    assert not other.load(tmp_path / "term_stats.json", {"active": 3})
    assert other.documents == 0
    assert not list(tmp_path.glob(".term_stats.*"))  # the temporary file was renamed into place


def test_unreadable_file_is_ignored(tmp_path: Path):
    (tmp_path / "term_stats.json").write_text("{not json", encoding="utf-8")
    stats = TermStats()
    assert not stats.load(tmp_path / "term_stats.json", {"active": 2})
    assert not stats.load(tmp_path / "missing.json", {"active": 2})


def test_stats_survive_a_restart_without_rereading_the_chunks(
    tiny_engine, embed_model, monkeypatch: pytest.MonkeyPatch
):
    assert tiny_engine.term_stats_path.is_file()
    before = tiny_engine.stats

    def no_reading(self):
        raise AssertionError("texts were read back although the stored counts match the index")

    monkeypatch.setattr(ChunkIndex, "active_texts", no_reading)
    restarted = AnswerEngine(tiny_engine.config, embed_model=embed_model)
    assert restarted.stats.documents == before.documents > 0
    assert restarted.stats.idf("revaluation") == before.idf("revaluation")
    assert restarted.ask("What is the revaluation fee?", log=False).decision == "answer"


def test_a_changed_index_triggers_a_rebuild(tiny_engine, embed_model):
    chunks = tiny_engine.index.get_nodes(where={"status": "active"})
    tiny_engine.index.delete([chunks[0].node_id])  # changed behind the engine's back, no refresh

    restarted = AnswerEngine(tiny_engine.config, embed_model=embed_model)
    assert restarted.stats.documents == len(chunks) - 1
    stored = json.loads(restarted.term_stats_path.read_text(encoding="utf-8"))
    assert stored["documents"] == len(chunks) - 1
    assert stored["fingerprint"]["active"] == len(chunks) - 1


def test_refresh_rewrites_the_stored_counts(tiny_engine, tiny_docs: Path):
    stamp = tiny_engine.term_stats_path.stat().st_mtime_ns
    (tiny_docs / "extra.md").write_text(
        "---\ntitle: Hostel Rules\n---\n# Hostel Rules\n## 1. Visitors\n"
        + "Visitors must leave the hostel by nine in the evening and sign the register at the gate. " * 4,
        encoding="utf-8",
    )
    tiny_engine.ingest(tiny_docs)
    stored = json.loads(tiny_engine.term_stats_path.read_text(encoding="utf-8"))
    assert stored["documents"] == tiny_engine.stats.documents
    assert tiny_engine.term_stats_path.stat().st_mtime_ns >= stamp
    assert "hostel" in stored["df"] or any(k.startswith("hostel") for k in stored["df"])
