"""An answer whose cited sentences disagree says so and names whom to ask (pipeline/answer/conflicts.py)."""

from __future__ import annotations

import json

import pytest

from pipeline.language.statements import disagreement
from tests.pipeline.tiny_corpora import REMOTE_WORK, STAFF_HANDBOOK_REMOTE_WORK

QUESTION = "How many days per week can employees work remotely?"


def _engine(tmp_path, docs, embed_model, **changes):
    import dataclasses

    from pipeline.engine import AnswerEngine
    from pipeline.ground.config import load_config

    config = dataclasses.replace(load_config().with_home(tmp_path / "home"), **changes)
    engine = AnswerEngine(config, embed_model=embed_model)
    engine.ingest(docs)
    return engine


@pytest.fixture()
def two_policies(tiny_docs):
    (tiny_docs / "remote-work.md").write_text(REMOTE_WORK, encoding="utf-8")
    (tiny_docs / "staff-handbook.md").write_text(STAFF_HANDBOOK_REMOTE_WORK, encoding="utf-8")
    return tiny_docs


@pytest.fixture()
def two_policies_engine(tmp_path, two_policies, embed_model):
    return _engine(tmp_path, two_policies, embed_model)


@pytest.fixture()
def one_policy_engine(tmp_path, tiny_docs, embed_model):
    """One policy whose summary states the rule with another number than its own section."""
    (tiny_docs / "remote-work.md").write_text(REMOTE_WORK + SUMMARY_OF_REMOTE_WORK, encoding="utf-8")
    return _engine(tmp_path, tiny_docs, embed_model)


# A summary section that restates the rule with another number: the gate asks which policy only
# between documents (pipeline.gate.support), so this answer cites both sections.
SUMMARY_OF_REMOTE_WORK = """
## 3. Summary
Employees may work remotely for up to 3 days per week with the approval of their line manager.
"""


def test_two_policies_that_disagree_are_offered_as_a_choice(two_policies_engine):
    """With the gate's clarify rule in force, sentences of two documents that answer equally well
    and say different things make a clarification (main's gate), not an answer with a note."""
    answer = two_policies_engine.ask(QUESTION)
    assert answer.decision == "clarify", answer.reason
    assert {o["doc_id"] for o in answer.clarify_options} >= {"remote-work", "staff-handbook"}


def test_an_answer_citing_two_policies_that_disagree_says_so_and_names_whom_to_ask(tmp_path, two_policies, embed_model):
    from pipeline.ground.config import load_config

    rules = tuple(r for r in load_config().rules if r != "clarify")  # WARRANT_RULES without "clarify"
    answer = _engine(tmp_path, two_policies, embed_model, rules=rules).ask(QUESTION)
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


def test_an_answer_citing_two_sections_of_one_policy_that_disagree_says_so(one_policy_engine):
    answer = one_policy_engine.ask(QUESTION)
    assert answer.decision == "answer", answer.reason
    assert len({c.chunk_id for c in answer.citations}) >= 2, answer.text
    assert len(answer.conflicts) == 1 and answer.conflicts[0]["what"] == "day 2 vs 3"
    note = answer.conflict_note
    assert note.startswith("These two sections of the Remote Work Policy disagree:") and answer.text.endswith(note)
    assert note.endswith("Ask the Human Resources Office.")


def test_the_conflict_is_logged_with_the_turn(one_policy_engine):
    one_policy_engine.ask(QUESTION)
    record = json.loads(one_policy_engine.config.query_log_path.read_text(encoding="utf-8").splitlines()[-1])
    (logged,) = record["conflicts"]
    assert sorted(c.split("::")[1] for c in logged["chunks"]) == ["2-remote-work-days", "3-summary"]
    assert logged["what"] == "day 2 vs 3" and "up to 2 days per week" in logged["sentences"][0] + logged["sentences"][1]


def test_an_answer_whose_sources_agree_has_no_conflict_note(two_policies_engine):
    answer = two_policies_engine.ask("How many days of annual leave does each employee receive?")
    assert answer.decision == "answer" and answer.conflicts == [] and answer.conflict_note == ""
    assert "disagree" not in answer.text


def test_the_conflict_note_is_not_scored_as_an_answer_sentence(one_policy_engine):
    from pipeline.evaluation.golden import answer_sentences_text, unsupported_sentences

    answer = one_policy_engine.ask(QUESTION)
    assert answer.conflict_note, answer.text
    chunks = {c.chunk_id: one_policy_engine.index.get_nodes([c.chunk_id])[0].get_content() for c in answer.citations}
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
