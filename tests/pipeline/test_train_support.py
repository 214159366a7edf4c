"""The training command runs end to end on a few examples (the full training is a command)."""

import pytest
import torch

from pipeline.evaluation.squad import SQUAD_FILE, split_articles
from tests.conftest import run_module


def test_split_is_by_article_fixed_by_seed_and_disjoint():
    titles = [f"article-{i}" for i in range(16)]
    first, again = split_articles(titles, 13), split_articles(titles, 13)
    assert first == again
    parts = [set(first[p]) for p in ("train", "calibration", "heldout")]
    assert sum(len(p) for p in parts) == 16 and len(set.union(*parts)) == 16
    assert len(first["heldout"]) >= 4


@pytest.mark.skipif(not SQUAD_FILE.is_file(), reason="SQuAD 2.0 file not beside the repository")
def test_smoke_training_writes_a_model_that_loads(tmp_path):
    out = tmp_path / "smoke.pt"
    run = run_module("pipeline.evaluation.train_support", "--smoke", "--out", str(out), timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "heldout_pair_auroc" in run.stdout
    state = torch.load(out, weights_only=False)
    assert state["trained_layers"] == 1 and state["split"]["heldout"]

    from pipeline.gate.answerability import AnswerabilityModel

    model = AnswerabilityModel.load(out)
    probabilities = model.score("Who was the Norse leader?", ["Rollo was the Norse leader.", "It rained."])
    assert probabilities.shape == (2,) and ((0 <= probabilities) & (probabilities <= 1)).all()
