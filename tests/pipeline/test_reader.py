"""The reader (pipeline.gate.reader) on a tiny corpus of our own, through the real engine: it picks
the sentence that answers, not the one that shares the question's words; it keeps the gate silent
when the text states the rule for another group only; and it trains in seconds (CI's smoke run)."""

from pathlib import Path

import numpy as np
import pytest

from tests.conftest import engine_over
from tests.pipeline.tiny_corpora import STAFF_HANDBOOK


@pytest.fixture(scope="module")
def handbook_engine(tmp_path_factory, embed_model):
    return engine_over(tmp_path_factory.mktemp("reader"), embed_model, {"staff-handbook.md": STAFF_HANDBOOK})


def first_sentence(answer) -> str:
    return answer.citations[0].sentence_quotes()[0] if answer.citations else ""


def test_who_approves_is_answered_with_the_sentence_naming_the_approver(handbook_engine):
    answer = handbook_engine.ask("Who approves a leave of absence?", log=False)
    assert answer.decision == "answer", (answer.support, answer.reason)
    assert "Director of People" in first_sentence(answer), answer.text
    assert answer.text.index("Director of People") < answer.text.index("[1]")


def test_a_yes_no_question_is_answered_with_the_sentence_that_settles_it(handbook_engine):
    answer = handbook_engine.ask("Do I get overtime pay for a training day?", log=False)
    assert answer.decision == "answer", (answer.support, answer.reason)
    assert first_sentence(answer) == "Overtime is not paid for training days."


def test_a_rule_stated_for_another_group_does_not_answer(handbook_engine):
    answered = handbook_engine.ask("How much notice must a permanent employee give before resigning?", log=False)
    near_miss = handbook_engine.ask("How much notice must a contractor give before leaving?", log=False)
    assert answered.decision == "answer" and "four weeks" in answered.text
    assert near_miss.decision != "answer", (near_miss.support, near_miss.text)
    assert near_miss.support.reader < answered.support.reader


def test_a_question_longer_than_the_reader_reads_gets_a_decision_not_an_error(handbook_engine):
    """A question of about 100 tokens (well under the engine's character limit) used to raise a
    tokenizer "truncation error" from the reader; it is cut to leave the sentence room, and read."""
    question = (
        "Who approves a leave of absence" + ", and what if I am ill or away on a course or caring for someone" * 6 + "?"
    )
    answer = handbook_engine.ask(question, log=False)
    assert answer.decision in ("answer", "abstain", "clarify"), answer.decision
    reader = handbook_engine.reader
    p = reader.probabilities(
        question, ["Staff Handbook: 1. Leave of absence: Salary is not paid during a leave of absence."]
    )
    assert p.shape == (1,) and 0.0 <= float(p[0]) <= 1.0


def test_the_reader_reads_the_answering_sentence_higher_than_its_neighbours(handbook_engine):
    reader = handbook_engine.reader
    question = "Who approves a leave of absence?"
    sentences = [
        "Each request for a leave of absence is approved by the Director of People.",
        "A request for a leave of absence is made in writing at least one month before it starts.",
        "Salary is not paid during a leave of absence.",
    ]
    p = reader.probabilities(question, [f"Staff Handbook: 1. Leave of absence: {s}" for s in sentences])
    assert int(np.argmax(p)) == 0, p
    assert reader.probabilities(question, []).shape == (0,)


def test_the_reader_smoke_trains_in_seconds(tmp_path: Path):
    from tests.conftest import run_module

    out = tmp_path / "reader.pt"
    result = run_module(
        "pipeline.evaluation.train_reader", "--smoke", "--out", str(out), "--checkpoint", str(tmp_path / "ck.pt")
    )
    assert result.returncode == 0, result.stderr[-2000:]
    from pipeline.gate.reader import Reader

    reader = Reader.load(out, precision="fp32")
    assert reader.probabilities("Who approves?", ["The Dean approves.", "Fees are paid online."]).shape == (2,)
    assert reader.info.max_length == 80


def test_the_reader_reads_pairs_from_many_threads_as_from_one():
    # the fast tokenizer keeps its truncation and padding as state on one shared object, and the
    # reader calls it two ways (to fit the question, then the padded pairs): two questions read at
    # once (a message's parts, two users' questions) got unpadded rows ("Unable to create tensor",
    # the golden run's crash) or "Already borrowed" (transformers issue 47085)
    from concurrent.futures import ThreadPoolExecutor

    from pipeline.gate.reader import ReaderNet

    net = ReaderNet.fresh()
    asks = [
        (
            f"How many days of leave {i} may a member of staff take {'in their first year ' * (i % 4)}?",
            [f"Staff may take {d} days of leave a year{' after probation' * (d % 5)}." for d in range(1, 2 + i % 12)],
        )
        for i in range(48)
    ]

    def token_ids(ask):
        return net.inputs([ask[0]] * len(ask[1]), ask[1])["input_ids"].tolist()

    alone = [token_ids(a) for a in asks]
    with ThreadPoolExecutor(max_workers=8) as pool:
        together = list(pool.map(token_ids, asks * 40))
    assert together == alone * 40
