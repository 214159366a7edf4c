"""Sentence embeddings beside the index: stored at ingest, filled when missing, used to pick sentences."""

import numpy as np
from llama_index.core.schema import NodeWithScore

from pipeline.answer.synthesis import ExtractiveSynthesizer
from pipeline.engine import AnswerEngine
from pipeline.ground.config import load_config
from pipeline.ground.records import AnswerStyle, Chunk
from pipeline.ingest.index import chunk_to_node
from pipeline.ingest.sentence_vectors import SentenceVectorStore
from pipeline.language.text import split_sentences


def _active(engine) -> list[tuple[str, str]]:
    return [(n.node_id, n.get_content()) for n in engine.index.get_nodes(where={"status": "active"})]


def test_ingest_stores_one_vector_per_sentence_and_they_survive_a_restart(tiny_engine, embed_model):
    chunks = _active(tiny_engine)
    assert tiny_engine.index.sentence_vectors.count() == len(chunks)
    config = load_config().with_home(tiny_engine.config.home)
    reopened = AnswerEngine(config, embed_model=embed_model)
    chunk_id, text = chunks[0]
    vectors = reopened.index.sentence_vectors.get([(chunk_id, text)])[chunk_id]
    assert vectors.shape == (len(split_sentences(text)), 384)
    expected = np.asarray(embed_model.get_text_embedding(split_sentences(text)[0]))
    assert float(vectors[0] @ expected) > 0.999  # stored as float16: close, not bit-equal


def test_deleting_a_chunk_deletes_its_sentence_vectors(tiny_engine):
    chunk_id, _ = _active(tiny_engine)[0]
    tiny_engine.index.delete([chunk_id])
    assert tiny_engine.index.sentence_vectors._read([chunk_id]) == {}


def test_missing_vectors_are_computed_when_first_needed(tmp_path, embed_model):
    calls: list[int] = []

    def embed(texts):
        calls.append(len(texts))
        return embed_model.get_text_embedding_batch(texts)

    store = SentenceVectorStore(tmp_path, embed)
    text = "The revaluation fee is Rs. 500 per course. The fee is refunded when marks increase."
    first = store.get([("c1", text)])
    second = store.get([("c1", text)])
    assert calls == [2]  # embedded once, read back the second time
    assert np.allclose(first["c1"], second["c1"])


def test_chunks_added_without_sentence_vectors_still_answer(tiny_engine):
    chunk = Chunk(
        chunk_id="extra::hostel::abc",
        doc_id="extra",
        title="Hostel Policy",
        section="1. Hostel Fee",
        section_numbers="1",
        text="The hostel fee is Rs. 9,000 per semester. It is paid before week 1.",
        version="1.0",
        effective_date="2026-07-01",
        owner="Warden",
        source="extra.md",
        position=0,
        content_hash="abc",
    )
    tiny_engine.index.add_nodes([chunk_to_node(chunk)], sentence_vectors=False)
    tiny_engine.refresh()
    assert tiny_engine.index.sentence_vectors._read([chunk.chunk_id]) == {}
    answer = tiny_engine.ask("What is the hostel fee per semester?")
    assert answer.decision == "answer" and "9,000" in answer.text
    assert tiny_engine.index.sentence_vectors._read([chunk.chunk_id])  # filled on first use


def test_similarity_picks_the_sentence_that_answers_over_the_one_that_repeats_words(tiny_engine):
    from llama_index.core.schema import TextNode

    text = (
        "The student is responsible for meeting the faculty advisor and for replying to the advisor. "
        "Each faculty advisor is assigned at most 20 students."
    )
    node = NodeWithScore(node=TextNode(id_="n1", text=text, metadata={"section": "3.1 Advisees"}), score=0.6)
    synth = ExtractiveSynthesizer(tiny_engine.stats)
    brief = AnswerStyle(length="brief")
    question = "How many students can a single faculty advisor be responsible for?"
    sentences = split_sentences(text)
    # Without similarity the word overlap ("responsible", "faculty advisor") keeps the sentence
    # that repeats the question's words in the answer ...
    lexical_only = synth.select(question, [node], brief)
    assert sentences[0] in [s.text for s in lexical_only]
    # ... given the question's cosine to each sentence (here a clear gap), only the one holding the answer stays.
    cosines = [0.05, 0.95]
    picked = synth.select(question, [node], brief, {"n1": cosines})
    assert [s.text for s in picked] == [sentences[1]]


def test_until_when_prefers_a_point_in_time_and_how_long_a_span(tiny_engine):
    from llama_index.core.schema import TextNode

    # Sentences over 18 words: a brief answer then keeps only the best one.
    text = (
        "The faculty advisor decides every add and drop request submitted by a student through the "
        "ERP portal within 2 working days. "
        "The add and drop period for all students and all courses of the semester closes at 5 p.m. "
        "on Friday of week 2."
    )
    node = NodeWithScore(node=TextNode(id_="n1", text=text, metadata={"section": "3.1"}), score=0.6)
    synth = ExtractiveSynthesizer(tiny_engine.stats)
    brief = AnswerStyle(length="brief")
    span, point = split_sentences(text)
    assert synth.select("Until when can I add or drop a course?", [node], brief)[0].text == point
    assert (
        synth.select("How long does the advisor take to decide an add or drop request?", [node], brief)[0].text == span
    )


def test_a_programme_named_in_the_question_overrides_the_profile_programme(tiny_engine):
    from llama_index.core.schema import TextNode

    text = (
        "For B.Tech students, the maximum credit load is 26 credits per semester. "
        "For M.Tech students, the maximum credit load is 24 credits per semester."
    )
    node = NodeWithScore(node=TextNode(id_="n1", text=text, metadata={"section": "5.2"}), score=0.6)
    synth = ExtractiveSynthesizer(tiny_engine.stats)
    btech, mtech = split_sentences(text)
    profile_mtech = AnswerStyle(programme="M.Tech")
    assert synth.select("What is the maximum credit load?", [node], profile_mtech)[0].text == mtech
    assert synth.select("As a B.Tech student, what is my maximum credit load?", [node], profile_mtech)[0].text == btech


def test_ingest_embeds_each_distinct_text_once_in_one_pass(tiny_engine, monkeypatch):
    """A chunk's text and its sentences go through the model together; a repeated sentence once."""
    calls: list[list[str]] = []
    real = tiny_engine.index.embed_texts

    def embed_texts(texts):
        calls.append(list(texts))
        return real(texts)

    monkeypatch.setattr(tiny_engine.index, "embed_texts", embed_texts)
    clause = "Appeals are decided by the Dean within 10 working days of the request."
    chunks = [
        Chunk(
            chunk_id=f"extra::s{i}::h{i}",
            doc_id="extra",
            title="Appeals Policy",
            section=f"{i}. Appeals",
            section_numbers=str(i),
            text=f"An appeal for case {i} is filed online. {clause}",
            version="1.0",
            effective_date="2026-07-01",
            owner="Dean",
            source="extra.md",
            position=i,
            content_hash=f"h{i}",
        )
        for i in (1, 2)
    ]
    tiny_engine.index.add_nodes([chunk_to_node(c) for c in chunks])
    assert len(calls) == 1  # chunks and sentences in one call
    assert len(calls[0]) == 2 + 3  # two chunk texts, two first sentences, the shared clause once
    stored = tiny_engine.index.sentence_vectors._read([c.chunk_id for c in chunks])
    assert [m.shape[0] for m in stored.values()] == [2, 2]
    expected = np.asarray(tiny_engine.embed_model.get_text_embedding(clause))
    assert all(float(m[1] @ expected) > 0.999 for m in stored.values())


def test_a_brief_answer_leads_from_the_section_the_standard_answer_leads_with(tiny_engine):
    """A sentence of a lower-ranked section that shares more of the question's words (here "course")
    does not take the lead of a brief answer from the top section's answer."""
    from llama_index.core.schema import TextNode

    top = "The add and drop period ends on Friday of week 2 at 5 p.m."
    lower = (
        "The final list of registered courses at the close of the add and drop period is sent to "
        "each department by the end of week 3 and becomes every student's official course registration."
    )
    nodes = [
        NodeWithScore(node=TextNode(id_="n1", text=top, metadata={"section": "3.1 Duration"}), score=0.74),
        NodeWithScore(node=TextNode(id_="n2", text="Advisors decide requests.", metadata={"section": "10"}), score=0.7),
        NodeWithScore(node=TextNode(id_="n3", text=lower, metadata={"section": "3.3 Record"}), score=0.69),
    ]
    synth = ExtractiveSynthesizer(tiny_engine.stats)
    question = "Until when can I add or drop a course?"
    standard = synth.select(question, nodes, AnswerStyle())
    brief = synth.select(question, nodes, AnswerStyle(length="brief"))
    assert standard[0].text == top
    assert brief[0].text == top and len(brief) <= 2
