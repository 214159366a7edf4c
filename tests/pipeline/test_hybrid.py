"""Hybrid retrieval (pipeline.retrieve.hybrid): BM25 over the dense candidates, fused by reciprocal rank."""

from dataclasses import replace
from pathlib import Path

from llama_index.core.schema import NodeWithScore, TextNode

from pipeline.ingest.term_stats import TermStats
from pipeline.language.text import canonical_terms
from pipeline.retrieve.hybrid import bm25_scores, fuse
from tests.pipeline.tiny_corpora import TRAVEL_REQUESTS

TEXTS = [
    "Travellers book flights through the approved agency.",
    "Hotels are booked through the approved agency for every trip.",
    "Claims are made on Form Q-17 within ten working days of return.",
    "The supervisor approves every trip before it is booked.",
]


def _node(i: int, text: str, cosine: float) -> NodeWithScore:
    return NodeWithScore(
        node=TextNode(text=text, id_=f"c{i}", metadata={"title": "Travel", "section": f"{i}"}), score=cosine
    )


def test_bm25_ranks_the_text_holding_the_rare_query_word_first():
    stats = TermStats(TEXTS)
    scores = bm25_scores(canonical_terms("Which form do I use for a claim?"), TEXTS, stats)
    assert max(range(len(TEXTS)), key=lambda i: scores[i]) == 2
    assert scores[0] == scores[3] == 0.0
    # a word every text shares weighs less than one only the claims text has
    rare, common = (
        bm25_scores(canonical_terms("form"), TEXTS[2:3], stats)[0],
        bm25_scores(canonical_terms("agency"), TEXTS[0:1], stats)[0],
    )
    assert rare > common > 0


def test_fusion_moves_a_lexical_match_ahead_of_its_dense_neighbours():
    stats = TermStats(TEXTS)
    nodes = [_node(i, t, c) for i, (t, c) in enumerate(zip(TEXTS, (0.61, 0.60, 0.58, 0.50), strict=True))]
    fused = fuse(nodes, canonical_terms("Which form do I use for a claim?"), stats, keep=2)
    assert [n.node.node_id for n in fused] == ["c2", "c0"]
    assert fused[0].score == 0.58  # the cosine stays the score: σ still reads it


def test_fusion_keeps_the_dense_order_when_no_word_matches():
    stats = TermStats(TEXTS)
    nodes = [_node(i, t, 0.6 - i / 100) for i, t in enumerate(TEXTS)]
    fused = fuse(nodes, canonical_terms("Is parking free for visitors?"), stats, keep=3)
    assert [n.node.node_id for n in fused] == ["c0", "c1", "c2"]
    assert fuse(nodes, [], stats, keep=2) == nodes[:2]


def test_the_engine_retrieves_the_section_that_shares_the_questions_words(tmp_path: Path, embed_model):
    """With one chunk kept, MiniLM alone picks 'Booking the trip'; fused with BM25 over its 20 closest
    chunks, the engine picks 'Claims after the trip', the section that answers."""
    from pipeline.engine import AnswerEngine
    from pipeline.ground.config import load_config

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "travel-forms.md").write_text(TRAVEL_REQUESTS, encoding="utf-8")
    config = replace(load_config().with_home(tmp_path / "home"), docs_dir=docs, top_k=1)
    assert config.fusion_pool == 20
    engine = AnswerEngine(config, embed_model=embed_model)
    engine.ingest(docs)
    question = "Which form do I use to claim my trip costs?"

    nodes, _ = engine.retrieve(question)
    assert nodes[0].node.metadata["section"].startswith("3. Claims after the trip")
    engine.fusion_pool = 0
    dense, _ = engine.retrieve(question)
    assert dense[0].node.metadata["section"].startswith("4. Booking the trip")


def test_the_fusion_pool_is_read_from_the_environment(monkeypatch):
    from pipeline.ground.config import load_config

    monkeypatch.setenv("WARRANT_FUSION_POOL", "0")
    assert load_config().fusion_pool == 0
    monkeypatch.setenv("WARRANT_FUSION_POOL", "-3")
    assert load_config().fusion_pool == 0


def test_a_new_glossary_is_read_by_the_next_ranking(tmp_path: Path):
    """Term counts are cached per text; a glossary that folds 'holiday' into 'leave' must reach them."""
    from pipeline.language import glossary

    texts = ["Annual leave is booked with the manager.", "Parking permits are issued by the office."]
    stats = TermStats(texts)
    before = bm25_scores(canonical_terms("holiday"), texts, stats)
    (tmp_path / "glossary.yaml").write_text("synonyms:\n  leave: [holiday]\n", encoding="utf-8")
    glossary.use(glossary.Glossary.load(tmp_path))
    after = bm25_scores(canonical_terms("holiday"), texts, TermStats(texts))
    assert before == [0.0, 0.0]
    assert after[0] > 0 and after[1] == 0.0
