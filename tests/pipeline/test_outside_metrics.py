"""The outside harness's metrics: the max-cosine baseline reads the best chunk, not σ's sim part."""

from pipeline.evaluation.outside import Outcome, OutsideItem, metrics


def test_the_max_cosine_baseline_is_the_best_chunk_not_the_sentence_sim():
    items = [OutsideItem("a", "q1", True), OutsideItem("b", "q2", True), OutsideItem("c", "q3", False)]
    out = Outcome(
        decisions=["answer", "answer", "abstain"],
        sigma=[0.9, 0.8, 0.1],
        sim=[0.9, 0.8, 0.1],  # the sentence similarity ranks perfectly ...
        best_chunk=[0.2, 0.3, 0.7],  # ... the plain chunk cutoff ranks backwards
        coverage=[1.0, 1.0, 0.0],
        consistency=[1.0, 1.0, 1.0],
        texts=["x", "y", ""],
        quotes=[[], [], []],
        latency_ms=[1.0, 2.0, 3.0],
    )
    result = metrics(items, out)
    assert result["sigma_auroc"] == 1.0
    assert result["max_cosine_auroc"] == 0.0
    assert result["answer_rate"] == 1.0 and result["abstain_recall"] == 1.0
