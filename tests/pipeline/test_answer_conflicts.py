"""An answer whose cited sentences disagree says so and names whom to ask (pipeline/answer/conflicts.py)."""

from __future__ import annotations

import json

import pytest

from pipeline.language.statements import disagreement
from tests.pipeline.tiny_corpora import REMOTE_WORK, STAFF_HANDBOOK

QUESTION = "How many days per week can employees work remotely?"


@pytest.fixture()
def two_policies_engine(tmp_path, tiny_docs, embed_model):
    from pipeline.engine import AnswerEngine
    from pipeline.ground.config import load_config

    (tiny_docs / "remote-work.md").write_text(REMOTE_WORK, encoding="utf-8")
    (tiny_docs / "staff-handbook.md").write_text(STAFF_HANDBOOK, encoding="utf-8")
    engine = AnswerEngine(load_config().with_home(tmp_path / "home"), embed_model=embed_model)
    engine.ingest(tiny_docs)
    return engine


def test_an_answer_citing_two_policies_that_disagree_says_so_and_names_whom_to_ask(two_policies_engine):
    answer = two_policies_engine.ask(QUESTION)
    assert answer.decision == "answer", answer.reason
    cited = {c.doc_id for c in answer.citations}
    assert {"remote-work", "staff-handbook"} <= cited, answer.text
    assert len(answer.conflicts) == 1 and answer.conflicts[0]["what"] == "day 2 vs 3"
    note = answer.conflict_note
    assert note.startswith("These two policies disagree:") and answer.text.endswith(note)
    assert "up to 2 days per week" in note and "up to 3 days" in note
    assert "Ask the Human Resources Office or the Registrar's Office." in note
    by_doc = {c.doc_id: c.n for c in answer.citations}
    assert f"[{by_doc['remote-work']}]" in note and f"[{by_doc['staff-handbook']}]" in note


def test_the_conflict_is_logged_with_the_turn(two_policies_engine):
    two_policies_engine.ask(QUESTION)
    record = json.loads(two_policies_engine.config.query_log_path.read_text(encoding="utf-8").splitlines()[-1])
    (logged,) = record["conflicts"]
    assert sorted(c.split("::")[0] for c in logged["chunks"]) == ["remote-work", "staff-handbook"]
    assert logged["what"] == "day 2 vs 3" and "up to 2 days per week" in logged["sentences"][0] + logged["sentences"][1]


def test_an_answer_whose_sources_agree_has_no_conflict_note(two_policies_engine):
    answer = two_policies_engine.ask("How many days of annual leave does each employee receive?")
    assert answer.decision == "answer" and answer.conflicts == [] and answer.conflict_note == ""
    assert "disagree" not in answer.text


def test_the_conflict_note_is_not_scored_as_an_answer_sentence(two_policies_engine):
    from pipeline.evaluation.golden import answer_sentences_text, unsupported_sentences

    answer = two_policies_engine.ask(QUESTION)
    chunks = {c.chunk_id: two_policies_engine.index.get_nodes([c.chunk_id])[0].get_content() for c in answer.citations}
    assert "disagree" not in answer_sentences_text(answer)
    assert unsupported_sentences(answer, chunks)[1] == 0


@pytest.mark.parametrize(
    ("a", "b", "cosine", "expected"),
    [
        (
            "Employees may work remotely for up to 2 days per week.",
            "Employees may work remotely for up to 3 days per week.",
            0.95,
            "day 2 vs 3",
        ),
        (
            "Employees may work remotely for up to 2 days per week.",
            "Employees may work remotely for up to 2 days per week.",
            0.99,
            "",
        ),
        # the same frame, a different subject: embeddings apart
        (
            "The DoAA decides the appeal within 7 working days.",
            "The review committee decides the appeal within 10 working days.",
            0.71,
            "",
        ),
        # different programmes state different rules
        (
            "A B.Tech student passes with at least 40% of the marks.",
            "An M.Tech student passes with at least 50% of the marks.",
            0.93,
            "",
        ),
        (
            "Reference books can be borrowed by students.",
            "Reference books cannot be borrowed by students.",
            0.95,
            "negation",
        ),
    ],
)
def test_disagreement_is_the_same_statement_with_other_facts(a, b, cosine, expected):
    assert disagreement(a, b, cosine) == expected
