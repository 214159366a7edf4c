"""The two engines the benchmark compares: Warrant's `AnswerEngine` and LlamaIndex's standard
`RetrieverQueryEngine` over the same Chroma index, retriever and embedding, with an LLM-free
synthesiser (`no_text`), so both sides embed, retrieve and build a response but neither calls an LLM."""

from __future__ import annotations

from pipeline.ground.config import Config


def make_engine(config: Config, embed_model):
    from pipeline.engine import AnswerEngine

    return AnswerEngine(config, embed_model=embed_model)


def make_baseline(engine):
    """LlamaIndex's standard query engine over the same index, retriever and embedding; no LLM."""
    from llama_index.core import get_response_synthesizer
    from llama_index.core.query_engine import RetrieverQueryEngine

    return RetrieverQueryEngine.from_args(
        engine.index.retriever(engine.top_k),
        response_synthesizer=get_response_synthesizer(response_mode="no_text"),
    )


RERANK_MAX_TOKENS = 160  # a chunk's first ~110 words after the question, as this baseline always read


def make_reranker_baseline(engine):
    """LlamaIndex's `RetrieverQueryEngine` with its `SentenceTransformerRerank` over the same top-k:
    the standard way to put a cross-encoder behind a retriever. The cross-encoder is MiniLM itself
    (the same model and size as Warrant's reader, with an untrained head: only its cost matters
    here), reading each (question, chunk) pair up to RERANK_MAX_TOKENS, where Warrant's reader reads
    (question, sentence) pairs of at most 80."""
    from llama_index.core import get_response_synthesizer
    from llama_index.core.postprocessor import SentenceTransformerRerank
    from llama_index.core.query_engine import RetrieverQueryEngine

    from pipeline.ingest.embedding import model_path

    reranker = SentenceTransformerRerank(top_n=engine.top_k, model=model_path(), device="cpu")
    reranker._model.max_length = RERANK_MAX_TOKENS
    return RetrieverQueryEngine.from_args(
        engine.index.retriever(engine.top_k),
        node_postprocessors=[reranker],
        response_synthesizer=get_response_synthesizer(response_mode="no_text"),
    )
