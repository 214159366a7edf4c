"""The traced query encoder gives the eager model's vectors, and the embedding falls back without it."""

import numpy as np

from pipeline.ingest.embedding import TracedQueryEncoder, query_encoder

QUESTIONS = [
    "What is the revaluation fee?",
    "Can I withdraw from a course in week 9 if I was in hospital for two weeks?",
    "lab",
]


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


def test_token_groups_keep_each_pass_within_the_budget_shortest_first():
    from pipeline.ingest.embedding import token_groups

    lengths = [120, 8, 30, 8, 300, 60, 9]
    groups = token_groups(lengths, budget=128)
    assert sorted(i for g in groups for i in g) == list(range(len(lengths)))
    assert [lengths[g[0]] for g in groups] == sorted(lengths[g[0]] for g in groups)
    for g in groups:
        assert len(g) == 1 or len(g) * max(lengths[i] for i in g) <= 128
    assert [4] in groups  # longer than the budget: a pass of its own


def test_embed_many_gives_each_text_the_vector_encode_gives_it(embed_model):
    texts = [*QUESTIONS, "The revaluation fee is Rs. 500 per course. " * 6]
    embed_model.memo.clear()  # embedded now, in passes, not recalled from an earlier test
    embed_model_budget = embed_model.ingest_token_budget
    try:
        embed_model.ingest_token_budget = 40  # several passes of different shapes
        grouped = np.asarray(embed_model.embed_many(texts))
    finally:
        embed_model.ingest_token_budget = embed_model_budget
    alone = np.asarray([embed_model._encode([t])[0] for t in texts])
    assert grouped.shape == (4, 384)
    assert np.abs(grouped - alone).max() < 1e-5


def test_embed_many_embeds_each_text_once_while_it_is_remembered(encoder_calls):
    from pipeline.ingest.embedding import MiniLMEmbedding

    encoded = encoder_calls
    model = MiniLMEmbedding(memo_texts=3)
    first = model.embed_many(["fee", "late fee", "fee"])
    second = model.embed_many(["late fee", "refund"])
    assert encoded == [["fee", "late fee"], ["refund"]]  # each distinct text once; "late fee" recalled
    assert second[0] == first[1] and first[0] == first[2]
    model.embed_many(["deposit", "fine"])  # the memo holds 3: "fee" and "late fee" go, least recent first
    model.embed_many(["late fee", "refund"])
    assert encoded[-1] == ["late fee"]
    forgetful = MiniLMEmbedding(memo_texts=0)
    forgetful.embed_many(["fee"])
    forgetful.embed_many(["fee"])
    assert encoded[-2:] == [["fee"], ["fee"]]


def test_embedding_from_many_threads_gives_the_vectors_of_one():
    # embed_many counted tokens on the model's tokenizer (no padding) while another thread's encode
    # or question (padded) used it: the fast tokenizer keeps those settings as state on one object,
    # so an upload being indexed beside chat questions failed now and then ("Unable to create
    # tensor", "Already borrowed": transformers issue 47085; about 1 call in 70 here before)
    from concurrent.futures import ThreadPoolExecutor

    from pipeline.ingest.embedding import MiniLMEmbedding

    model = MiniLMEmbedding(memo_texts=0)  # the app's model, every call reaching the encoder
    texts = [f"Staff may take {d} days of leave a year{' after probation' * (d % 7)}." for d in range(40)]
    calls = [(k % 2 == 1, k % 7) for k in range(800)]

    def embed(call):
        many, k = call
        return np.asarray(model.embed_many(texts[k:]) if many else model._encode(texts[: 3 + k % 5]))

    alone = {call: embed(call) for call in set(calls)}
    with ThreadPoolExecutor(max_workers=8) as pool:
        together = list(pool.map(embed, calls))
    for call, got in zip(calls, together, strict=True):
        np.testing.assert_allclose(got, alone[call], atol=1e-5)
