"""A cited chunk opened in its document, and the empty chat's example questions, over a real index."""

from __future__ import annotations

from pipeline.ground.audience import PUBLIC, Audience, audience_metadata
from pipeline.ground.records import Chunk
from pipeline.ingest.index import chunk_to_node
from pipeline.retrieve.passages import document_around
from pipeline.suggestions import example_question, example_questions


def _chunk_id(engine, section_words: str) -> str:
    metas = engine.index.collection.get(include=["metadatas"])
    return next(i for i, m in zip(metas["ids"], metas["metadatas"], strict=True) if section_words in m["section"])


def test_a_cited_chunk_opens_in_its_document_in_order_and_marked(tiny_engine):
    view = document_around(tiny_engine.index, _chunk_id(tiny_engine, "Revaluation Fee"))
    assert view is not None and view.title == "Examination Fees Policy" and view.in_force
    assert [p.section for p in view.passages] == ["1. Purpose", "2. Revaluation Fee", "3. Photocopy Fee"]
    assert [p.cited for p in view.passages] == [False, True, False]
    assert view.section_path == ["Examination Fees Policy", "2. Revaluation Fee"]
    assert document_around(tiny_engine.index, "no::such::chunk") is None


def test_a_chunk_with_a_page_shows_it_in_the_section_path(tiny_engine):
    chunk = Chunk(
        "handbook::rules::1", "handbook", "Handbook", "4. Rules", "4", "Rules apply.", "1", "", "", "h.pdf", 0, "1"
    )
    tiny_engine.index.add_nodes([chunk_to_node(chunk, page="12")])
    view = document_around(tiny_engine.index, "handbook::rules::1")
    assert view is not None and view.section_path == ["Handbook", "4. Rules", "page 12"] and view.cited.page == "12"


def test_a_restricted_document_opens_only_for_its_groups(tiny_engine):
    chunk = Chunk("staff::pay::1", "staff", "Staff Pay", "1. Pay", "1", "Pay is monthly.", "1", "", "", "s.md", 0, "1")
    node = chunk_to_node(chunk)
    node.metadata.update(audience_metadata(["staff"]))
    tiny_engine.index.add_nodes([node])
    assert document_around(tiny_engine.index, "staff::pay::1", PUBLIC) is None  # as if it did not exist
    assert document_around(tiny_engine.index, "staff::pay::1", Audience.of(["students"])) is None
    view = document_around(tiny_engine.index, "staff::pay::1", Audience.of(["staff"]))
    assert view is not None and view.cited.text == "Pay is monthly."


def test_example_questions_come_from_headings_and_are_answered(tiny_engine):
    assert example_question("2. Revaluation Fee") == "What does the policy say about revaluation fee?"
    assert example_question("4.1 B.Tech Eligibility") == "What does the policy say about B.Tech eligibility?"
    assert example_question("Part 3") == "" and example_question("") == ""
    examples = example_questions(tiny_engine)
    assert examples and all(q.startswith("What does the policy say about") for q in examples)
    assert all(tiny_engine.ask(q, log=False).decision == "answer" for q in examples)
    assert not tiny_engine.config.query_log_path.exists()  # trying examples leaves no trace in the log
