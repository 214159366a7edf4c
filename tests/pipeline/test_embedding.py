"""The traced query encoder gives the eager model's vectors, and the embedding falls back without it."""

import numpy as np

from pipeline.embedding import TracedQueryEncoder, query_encoder


QUESTIONS = ["What is the revaluation fee?",
             "Can I withdraw from a course in week 9 if I was in hospital for two weeks?",
             "lab"]


def test_query_vectors_match_the_eager_model(embed_model):
    for question in QUESTIONS:
        traced = np.asarray(embed_model.get_query_embedding(question))
        eager = np.asarray(embed_model._encode([question])[0])
        assert np.abs(traced - eager).max() < 1e-5
        assert abs(np.linalg.norm(traced) - 1.0) < 1e-5
    assert query_encoder(embed_model.device) is not None  # the fast path was the one measured above


def test_a_question_and_its_parts_embedded_together_match_one_at_a_time(embed_model):
    # different lengths, so the shorter texts are padded in the shared pass
    together = np.asarray(embed_model.query_embeddings(QUESTIONS))
    alone = np.asarray([embed_model._encode([q])[0] for q in QUESTIONS])
    assert together.shape == (3, 384)
    assert np.abs(together - alone).max() < 1e-5


def test_a_model_that_cannot_be_traced_leaves_no_encoder():
    class Untraceable:
        def tokenize(self, texts):
            raise RuntimeError("no tokenizer")

    assert TracedQueryEncoder.build(Untraceable()) is None
