"""The critic's trained flagger (governance/critic/flagger.py, models/critic.pt): it decides the four
sentence flags where the rules' word lists do not reach, the document's settlements still hold, and
its training command runs. Every sentence here was written for these tests (none is in data/critic)."""

from __future__ import annotations

from pathlib import Path

import pytest

from governance.critic.critic import critique_text
from governance.critic.flagger import LEARNED, FlaggerInput, SentenceFlagger, load_flagger
from tests.conftest import run_module


@pytest.fixture(scope="module")
def flagger() -> SentenceFlagger:
    return load_flagger()


def flags_of(text: str, flagger: SentenceFlagger | None) -> dict[str, list[str]]:
    return {s.text: s.flags for s in critique_text(text, "test.md", flagger=flagger).sentences}


def one(sentence: str, flagger: SentenceFlagger | None) -> list[str]:
    return flags_of(f"# Policy\n\n## 1. Rule\n\n{sentence}\n", flagger)[sentence]


def test_the_flagger_flags_wording_the_rules_word_lists_do_not_hold(flagger):
    rules, model = None, flagger
    for sentence, flag in (
        ("Equipment is to be checked at sensible intervals.", "vague"),
        ("Residents should keep noise to a level that does not disturb neighbours unduly.", "vague"),
        ("Applicants are vetted before they start.", "no_owner"),
        ("Rooms must be left in a decent state.", "vague"),
    ):
        assert flag not in one(sentence, rules), sentence  # what the rules alone miss
        assert flag in one(sentence, model), sentence
    for complete in (
        "The Finance Manager signs off every invoice over 500 pounds within five working days.",
        "Keys are handed back at the end of each shift to the duty supervisor.",
    ):
        assert one(complete, model) == [], complete


def test_consequences_and_missing_parts_stay_with_the_rules_whatever_the_model_says(flagger):
    text = (
        "# Hall Hire\n\n## 1. Keys\n\nHirers must return the keys to the caretaker promptly.\n\n"
        "Keys must be returned as set out in section 7.\n\n"
        "## 2. Breaches\n\nA breach of this policy may lead to the booking being cancelled.\n"
    )
    rules, model = flags_of(text, None), flags_of(text, flagger)
    for sentence in rules:
        assert ("no_consequence" in rules[sentence]) == ("no_consequence" in model[sentence]), sentence
    pointing = "Keys must be returned as set out in section 7."
    assert model[pointing] == rules[pointing] and "dangling_reference" in model[pointing]
    assert "no_owner" not in model[pointing] and "no_deadline" not in model[pointing]


def test_the_flagger_keeps_the_rules_words_as_evidence_where_they_agree(flagger):
    text = "# Policy\n\n## 1. Rule\n\nManagers should check timesheets regularly.\n"
    sentence = critique_text(text, "t.md", flagger=flagger).sentences[0]
    vague = [f for f in sentence.findings if f.flag == "vague"]
    assert vague and vague[0].evidence == "regularly"


def test_a_missing_or_foreign_model_file_is_refused_with_what_to_do(tmp_path: Path):
    with pytest.raises(FileNotFoundError, match="train one"):
        SentenceFlagger.load(tmp_path / "none.pt")
    other = tmp_path / "other.pt"
    import torch

    torch.save({"format": "something-else"}, other)
    with pytest.raises(ValueError, match="not a critic model"):
        SentenceFlagger.load(other)


def test_the_flagger_smoke_trains_in_seconds_and_the_critic_reads_with_it(tmp_path: Path):
    out = tmp_path / "critic.pt"
    result = run_module("governance.critic.train_flagger", "--smoke", "--out", str(out), "--threads", "1")
    assert result.returncode == 0, result.stderr[-2000:]
    trained = SentenceFlagger.load(out)
    assert set(trained.thresholds) == set(LEARNED) and trained.metrics["learn_sentences"] > 0
    probs = trained.probabilities([FlaggerInput("1. Keys", "Keys must be returned.", ""), FlaggerInput("", "Hi.", "")])
    assert probs.shape == (2, len(LEARNED)) and ((probs >= 0) & (probs <= 1)).all()
    critique = critique_text("# P\n\n## 1. Keys\n\nKeys must be returned.\n", "p.md", flagger=trained)
    assert set(critique.sentences[0].flags) <= set(LEARNED)


def test_nothing_quoted_from_a_measuring_set_or_held_out_trains_the_flagger():
    from governance.critic.evaluate import TRAINING, load, training_documents

    everything = load() + load(TRAINING)
    quoted = {d.doc for d in everything if d.source.startswith("18F handbook")}  # policy-dev's pages
    assert quoted  # the labelled set does quote them: they measure, they must not train
    used = {d.doc for d in training_documents()}
    assert used and not used & quoted
    assert not used & {d.doc for d in everything if d.split == "heldout"}


def test_a_sentence_longer_than_the_flagger_reads_is_critiqued_not_an_error(flagger):
    """A 200-token sentence (legal drafting has them) used to raise a tokenizer "truncation error"
    from the whole critique; it is read cut to what the model reads, and the next sentence too."""
    long = "Staff must " + " and ".join(f"complete task {i} of the annual compliance review" for i in range(20)) + "."
    flags = flags_of(f"# Policy\n\n## 1. Duties\n\n{long} Managers must approve leave requests.\n", flagger)
    assert list(flags) == [long, "Managers must approve leave requests."]
    assert "no_consequence" in flags[long]
