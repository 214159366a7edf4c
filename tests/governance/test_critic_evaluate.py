"""The critic's labelled set (data/critic) and its measurement command,
`python -m governance.critic.evaluate`."""

from __future__ import annotations

import json
from pathlib import Path

from governance.critic.evaluate import assign_split, critic_predictor, load
from governance.critic.records import FLAGS
from tests.conftest import run_module


def test_the_labelled_set_is_large_enough_and_its_split_is_the_seeded_one():
    docs = load()
    sentences = [flags for d in docs for _, flags in d.sentences()]
    assert len(sentences) >= 200
    recorded = {d.doc for d in docs if d.split == "test"}
    drawn = {
        d.doc: [f for _, f in d.sentences()]
        for d in docs
        if d.split not in ("dev", "dev2", "dev3", "dev4", "dev5", "heldout")
    }  # came later
    assert recorded == assign_split(drawn)
    for part in ("train", "test"):
        flags = [f for d in docs if d.split == part for _, fl in d.sentences() for f in fl]
        assert all(flags.count(flag) >= 5 for flag in FLAGS), part  # every flag has positives to score


def test_the_critic_reads_the_sentences_the_labels_name():
    predict = critic_predictor()
    for doc in load():
        assert len(predict(doc)) == len(doc.sentences())  # raises if the critic split them otherwise


def test_the_measurement_command_scores_the_critic_beside_the_baselines(tmp_path: Path):
    out = tmp_path / "scores.json"
    done = run_module("governance.critic.evaluate", "--split", "test", "--json", str(out))
    assert done.returncode == 0, done.stderr
    assert "macro F1" in done.stdout and "keyword baseline" in done.stdout
    report = json.loads(out.read_text())
    assert report["split"] == "test" and report["sentences"] >= 100
    systems = report["systems"]
    assert set(systems) == {"critic", "rules only", "keyword baseline", "majority baseline"}
    assert systems["majority baseline"]["macro_f1"] == 0.0
    assert systems["critic"]["macro_f1"] > systems["keyword baseline"]["macro_f1"] + 0.15
    assert systems["rules only"]["macro_f1"] > systems["keyword baseline"]["macro_f1"] + 0.15
    assert set(systems["critic"]["flags"]) == set(FLAGS)
    for flag, counts in systems["critic"]["flags"].items():  # the counts behind each precision and recall
        assert counts["support"] >= 5 and counts["found"] <= min(counts["support"], counts["flagged"]), flag
        assert counts["precision"] == counts["found"] / counts["flagged"], flag
        assert counts["recall"] == counts["found"] / counts["support"], flag


def test_kappa_is_one_for_the_labels_themselves_and_zero_for_a_constant_guess():
    from governance.critic.evaluate import kappa

    docs = [d for d in load() if d.split == "train"]
    assert kappa(docs, lambda d: [set(f) for _, f in d.sentences()], "no_owner") == 1.0
    assert abs(kappa(docs, lambda d: [{"no_owner"} for _ in d.sentences()], "no_owner")) < 1e-9
