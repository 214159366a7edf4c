"""A message that repeats itself is read once (pipeline.language.repetition)."""

from pipeline.language.repetition import read_once


def test_a_passage_pasted_many_times_is_kept_once():
    clause = "the committee shall consider the matter at its next meeting and"
    once = read_once(" ".join([clause] * 30))
    assert once.text == clause and once.repeats == 29


def test_the_last_copy_may_be_cut_short():
    once = read_once("What is the fee? What is the fee? What is the fee? What is")
    assert once.text == "What is the fee?" and once.repeats == 3


def test_a_sentence_said_again_is_dropped_and_the_rest_kept():
    once = read_once("When is the deadline? Thanks. When is  the DEADLINE?")
    assert once.text == "When is the deadline? Thanks." and once.repeats == 1


def test_a_message_without_repeats_comes_back_unchanged():
    for message in (
        "What is the fee for a photocopy of an answer script?",
        "Is it 10 10 or 20?",
        "bye",
        "Two days?  Or three days?",
        "",
    ):
        assert read_once(message).text == message and read_once(message).repeats == 0


def test_repeated_words_inside_a_question_are_not_a_repeat_of_the_message():
    message = "fee fee fee for revaluation"
    assert read_once(message).text == message


def test_a_repeated_question_is_judged_as_the_question_itself(tiny_engine):
    single = tiny_engine.ask("What is the revaluation fee?", log=False)
    repeated = tiny_engine.ask("What is the revaluation fee? " * 40, log=False)
    assert repeated.decision == single.decision == "answer"
    assert repeated.support.sigma == single.support.sigma
    assert repeated.text == single.text
    assert "repeated passage once (39 repeat(s) left out)" in repeated.reason


def test_a_repeated_statement_scores_as_its_single_copy(tiny_engine):
    clause = "the committee shall consider the matter at its next meeting and"
    single = tiny_engine.ask(clause, log=False)
    repeated = tiny_engine.ask(" ".join([clause] * 30), log=False)
    assert repeated.decision == single.decision
    assert repeated.support.sigma == single.support.sigma
    assert tiny_engine.judge(" ".join([clause] * 30)).support.sigma == single.support.sigma
