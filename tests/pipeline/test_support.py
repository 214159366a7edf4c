import math

import pytest
from llama_index.core.schema import NodeWithScore, TextNode

from pipeline.gate.support import SupportPostprocessor, consistency_of, coverage_of
from pipeline.ingest.term_stats import TermStats

CHUNKS = [
    "The revaluation fee is Rs. 500 per course and is paid online.",
    "The fee for a photocopy of an answer script is Rs. 300 per course.",
    "A student may borrow up to 4 books for 14 days from the library.",
]


def _node(text: str, cosine: float, doc_id: str = "fees") -> NodeWithScore:
    node = TextNode(text=text, metadata={"doc_id": doc_id, "title": "Fees", "section": "2. Fees"})
    return NodeWithScore(node=node, score=math.exp(cosine - 1))  # what Chroma returns


def test_coverage_drops_when_a_key_term_is_absent():
    stats = TermStats(CHUNKS)
    present, _ = coverage_of("What is the revaluation fee per course?", CHUNKS[:1], stats)
    absent, missing = coverage_of("What is the revaluation fee for a PhD thesis?", CHUNKS[:1], stats)
    assert present > absent
    assert "phd" in missing and "thesis" in missing


def test_coverage_counts_numbers_in_the_query():
    stats = TermStats(CHUNKS)
    right, _ = coverage_of("Is the revaluation fee Rs. 500?", CHUNKS[:1], stats)
    wrong, missing = coverage_of("Is the revaluation fee Rs. 800?", CHUNKS[:1], stats)
    assert right > wrong and "800" in missing


def test_missing_numbers_are_named_in_the_order_the_question_says_them():
    # a set's order changes from run to run; the abstention message must not
    stats = TermStats(CHUNKS)
    _, missing = coverage_of("Is it 91 days, 17 weeks, 63 courses, Rs. 800 or 42%?", CHUNKS[:1], stats)
    assert [m for m in missing if m.isdigit()] == ["91", "17", "63", "800", "42"]


def test_two_chunks_with_different_fees_for_the_same_thing_lower_consistency():
    agree = consistency_of(
        ["The revaluation fee is Rs. 500 per course.", "Students pay the revaluation fee of Rs. 500 per course online."]
    )
    disagree = consistency_of(
        ["The revaluation fee is Rs. 500 per course.", "The revaluation fee is Rs. 800 per course."]
    )
    assert agree == 1.0
    assert disagree < agree


def test_must_versus_must_not_lowers_consistency():
    assert (
        consistency_of(
            [
                "Laboratory marks count towards the internal assessment mark.",
                "Laboratory marks do not count towards the internal assessment mark.",
            ]
        )
        < 1.0
    )


def test_different_programmes_are_not_a_conflict():
    assert (
        consistency_of(
            [
                "For B.Tech students the minimum load is 16 credits per semester.",
                "For M.Tech students the minimum load is 12 credits per semester.",
            ]
        )
        == 1.0
    )


@pytest.fixture()
def gate():
    return SupportPostprocessor(TermStats(CHUNKS), lambda_sim=0.6, lambda_coverage=0.3, lambda_consistency=0.1, tau=0.5)


def test_gate_at_above_and_below_tau(gate):
    query = "What is the revaluation fee?"
    support, _, _ = gate.score(query, [_node(CHUNKS[0], 0.7)])
    for tau, expected in (
        (support.sigma, "answer"),
        (support.sigma - 0.001, "answer"),
        (support.sigma + 0.001, "abstain"),
    ):
        gate.tau = tau
        result = gate.gate(query, [_node(CHUNKS[0], 0.7)])
        assert result.decision == expected, (tau, result)
        assert result.support.sigma == support.sigma


def test_score_parts_are_attached_to_nodes_and_recover_cosine(gate):
    support, evidence, _ = gate.score("What is the revaluation fee?", [_node(CHUNKS[0], 0.7)])
    assert support.sim == pytest.approx(0.7, abs=1e-4)
    meta = evidence[0].node.metadata
    assert meta["support_sigma"] == support.sigma and meta["support_coverage"] == support.coverage
    assert support.sigma == pytest.approx(
        0.6 * support.sim + 0.3 * support.coverage + 0.1 * support.consistency, abs=1e-3
    )


def test_postprocessor_returns_no_nodes_below_tau(gate):
    from llama_index.core.schema import QueryBundle

    gate.tau = 0.99
    assert gate.postprocess_nodes([_node(CHUNKS[0], 0.7)], QueryBundle("revaluation fee?")) == []


def test_short_query_split_across_topics_asks_to_clarify(gate):
    nodes = [_node(CHUNKS[0], 0.55, "revaluation"), _node(CHUNKS[1], 0.54, "photocopy")]
    assert gate.gate("What is the fee?", nodes).decision == "clarify"
    assert gate.gate("What is the revaluation fee per course?", nodes).decision != "clarify"


def test_nothing_retrieved_abstains(gate):
    result = gate.gate("anything", [])
    assert result.decision == "abstain" and result.support.sigma < gate.tau


def test_sim_is_the_best_sentence_of_the_closest_chunks_not_the_blurred_chunk(tmp_path, embed_model):
    """One answering sentence among unrelated ones: the chunk's vector blurs it, the sentence's does not."""
    import numpy as np

    from pipeline.ingest.sentence_vectors import SentenceVectorStore

    answer = "Employees may carry over at most five days of unused annual leave into the next year."
    chunk = " ".join(
        [
            "Parking permits are issued by the facilities office at the start of each quarter.",
            answer,
            "The cafeteria serves breakfast from seven until ten on working days.",
            "Visitors must sign in at the front desk and wear a badge at all times.",
        ]
    )
    question = "How many days of annual leave can I carry over into next year?"
    q = np.asarray(embed_model.get_query_embedding(question))
    chunk_cos = float(q @ np.asarray(embed_model.get_text_embedding(chunk)))
    sentence_cos = float(q @ np.asarray(embed_model.get_text_embedding(answer)))
    store = SentenceVectorStore(tmp_path, embed_model.get_text_embedding_batch)
    post = SupportPostprocessor(TermStats([chunk]), sentence_vectors=store, rules=frozenset())

    by_sentence, _, _ = post.score(question, [_node(chunk, chunk_cos)], list(q))
    post.sim_chunks = 0
    by_chunk, _, _ = post.score(question, [_node(chunk, chunk_cos)], list(q))

    assert sentence_cos > chunk_cos + 0.05
    assert by_sentence.sim == pytest.approx(sentence_cos, abs=0.01)  # float16 storage
    assert by_chunk.sim == pytest.approx(chunk_cos, abs=0.01)
