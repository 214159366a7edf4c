"""Documents only some groups may read, on a real Chroma index with the real model: the audience is
filtered in the vector store query, so a reader outside it gets exactly the answer of a library
without the document; σ's term statistics count only what everyone may read."""

from __future__ import annotations

import pytest
from llama_index.core.schema import QueryBundle

from pipeline.ground.audience import EVERYTHING, PUBLIC, RESTRICTED_KEY, Audience, normalise_groups
from pipeline.ground.records import Chunk
from pipeline.ingest.index import chunk_to_node

HR_PAY = """---
doc_id: hr-pay
title: Staff Redundancy Payments
version: 1.0
owner: Human Resources
audience: HR
---

# Staff Redundancy Payments

## 1. Severance
A staff member whose post is made redundant receives a severance payment of three weeks of salary
for each completed year of service, paid with the final salary. The payment is tax-free up to the
statutory limit and is confirmed in writing by the payroll office.

## 2. Notice
Redundancy notice is given at least twelve weeks before the last working day. During the notice
period the staff member may take paid time off to attend interviews for other posts.
"""
QUESTION = "How much severance does a redundant staff member receive?"
# Its words are partly in the public documents: σ's coverage weighs each word by the term statistics,
# so counting the restricted document there would change σ (0.2604 against 0.2580, measured).
NEAR_QUESTION = "Can staff take paid time off for interviews during the notice period?"
HR = Audience.of(["hr"])


@pytest.fixture()
def engines(tmp_path, tiny_docs, embed_model):
    """(the library with the HR document, the same library without it)."""
    from pipeline.engine import AnswerEngine
    from pipeline.ground.config import load_config

    with_hr = tmp_path / "with-hr"
    with_hr.mkdir()
    for doc in tiny_docs.iterdir():
        (with_hr / doc.name).write_text(doc.read_text(encoding="utf-8"), encoding="utf-8")
    (with_hr / "hr-pay.md").write_text(HR_PAY, encoding="utf-8")
    built = []
    for name, folder in (("a", with_hr), ("b", tiny_docs)):
        engine = AnswerEngine(load_config().with_home(tmp_path / name), embed_model=embed_model)
        engine.ingest(folder)
        built.append(engine)
    return built[0], built[1]


def _chunk(chunk_id: str, doc_id: str, title: str, section: str, text: str) -> Chunk:
    return Chunk(chunk_id, doc_id, title, section, "", text, "1.0", "", "", "", 0, chunk_id[-6:])


def _shown(answer) -> tuple:
    """Everything a reader sees of an answer (σ and its parts, the text, the sections named)."""
    return (
        answer.decision,
        answer.text,
        answer.support,
        answer.reason,
        [c.chunk_id for c in answer.citations],
        answer.nearest_sections,
        answer.clarify_options,
    )


def test_a_reader_outside_the_audience_gets_the_answer_of_a_library_without_the_document(engines):
    with_hr, without = engines
    for question in (QUESTION, NEAR_QUESTION):
        outside = with_hr.ask(question, log=False)  # PUBLIC: everyone's documents only
        assert _shown(outside) == _shown(without.ask(question, log=False))
        assert outside.decision == "abstain"
        for trace in ("hr-pay", "Redundancy", "Severance", "Human Resources"):
            assert trace not in str(_shown(outside))
    member = with_hr.ask(QUESTION, log=False, audience=HR)
    assert member.decision == "answer" and member.citations[0].doc_id == "hr-pay"
    assert "three weeks" in member.text


def test_the_audience_is_filtered_in_the_vector_store_query(engines, monkeypatch):
    with_hr, _ = engines
    embedding = with_hr.embed_model.get_query_embedding(QUESTION)
    closest = with_hr.index.retriever(1, EVERYTHING).retrieve(QueryBundle(QUESTION, embedding=embedding))
    assert closest[0].node.metadata["doc_id"] == "hr-pay"
    seen: list = []
    query = with_hr.index.collection.query

    def spy(*args, **kwargs):
        seen.append(kwargs.get("where"))
        return query(*args, **kwargs)

    monkeypatch.setattr(with_hr.index.collection, "query", spy)
    # Top 1 of what the reader may read: a filter after the search would leave nothing here.
    public = with_hr.index.retriever(1, PUBLIC).retrieve(QueryBundle(QUESTION, embedding=embedding))
    assert len(public) == 1 and public[0].node.metadata["doc_id"] != "hr-pay"
    assert seen and RESTRICTED_KEY in str(seen[-1])


def test_restricted_words_weigh_as_unknown_words_in_the_term_statistics(engines):
    with_hr, without = engines
    assert with_hr.stats.documents == without.stats.documents
    assert not with_hr.stats.knows("redund") and not with_hr.stats.knows("sever")
    assert with_hr.stats.idf("sever") == with_hr.stats.idf("never-seen-word")


def test_chunks_indexed_before_audiences_are_everyones(engines):
    with_hr, _ = engines
    old = chunk_to_node(_chunk("legacy::1::x", "legacy", "Parking Rules", "1. Parking", "Cars park in lot B."))
    old.embedding = with_hr.embed_model.get_text_embedding("Parking Rules. 1. Parking.\nCars park in lot B.")
    with_hr.index.vector_store.add([old])  # as an older version wrote it: no audience keys at all
    assert "audience" not in with_hr.index.get_nodes(["legacy::1::x"])[0].metadata
    assert with_hr.index.has_restricted()  # so the filtered search runs
    found = with_hr.index.retriever(1, PUBLIC).retrieve(QueryBundle("Where do cars park?", embedding=old.embedding))
    assert found[0].node.node_id == "legacy::1::x"


def test_a_chunk_added_without_an_audience_takes_its_documents(engines):
    with_hr, _ = engines
    chunk = _chunk("hr-pay::3::new", "hr-pay", "Staff Redundancy Payments", "3. Appeals", "Appeals go to HR.")
    with_hr.index.add_nodes([chunk_to_node(chunk)])  # a ticket's new version names no audience
    meta = with_hr.index.get_nodes(["hr-pay::3::new"])[0].metadata
    assert meta[RESTRICTED_KEY] is True and meta["audience"] == "hr" and meta["reader_hr"] is True
    assert not PUBLIC.can_read(meta) and HR.can_read(meta)


def test_the_front_matter_audience_applies_again_when_the_folder_is_ingested(engines, tmp_path):
    with_hr, _ = engines
    folder = tmp_path / "with-hr"
    (folder / "hr-pay.md").write_text(HR_PAY.replace("audience: HR", "audience: everyone"), encoding="utf-8")
    with_hr.ingest(folder)
    assert with_hr.ask(QUESTION, log=False).decision == "answer"
    assert not with_hr.index.has_restricted()


def test_group_names_are_checked():
    assert normalise_groups(" HR, finance ,hr") == ("finance", "hr")
    assert normalise_groups("everyone") == () and normalise_groups("") == ()
    for bad in ("h r", "../x", "x" * 41, "-x"):
        with pytest.raises(ValueError):
            normalise_groups(bad)
