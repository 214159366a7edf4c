"""Two questions in one message: each part is found, and each part's answer is in the answer."""

import pytest

from pipeline.language.question_parts import question_parts


@pytest.mark.parametrize(
    "question, focuses",
    [
        (
            "When is the mid-semester lab viva held and how many marks does it carry?",
            ["When is the mid-semester lab viva held", "how many marks does it carry?"],
        ),
        # the lead-in sets the scene for both parts, so both are searched with it
        (
            "If I withdraw from a course, what grade appears on my transcript, and when does exam "
            "registration close for my remaining courses?",
            ["what grade appears on my transcript", "when does exam registration close for my remaining courses?"],
        ),
        # a programme named before the question goes with every part
        (
            "For an M.Tech student, how many credits is thesis Phase I and how are the thesis marks split?",
            ["M.Tech: how many credits is thesis Phase I", "M.Tech: how are the thesis marks split?"],
        ),
    ],
)
def test_parts_and_what_each_is_ranked_on(question, focuses):
    assert [p.focus for p in question_parts(question)] == focuses


def test_every_part_is_searched_with_the_scene_setting_words():
    parts = question_parts(
        "If I add a course during the add/drop period, from when is my attendance "
        "counted, and how low can my attendance go with medical condonation?"
    )
    assert len(parts) == 2
    assert all(p.search.startswith("If I add a course during the add/drop period,") for p in parts)


def test_a_part_that_refers_back_keeps_its_context():
    parts = question_parts("I forgot to register for my exams. Is it too late, and how much will it cost me?")
    assert [p.focus for p in parts] == [p.search for p in parts]
    assert all(p.search.startswith("I forgot to register for my exams.") for p in parts)


@pytest.mark.parametrize(
    "question",
    [
        "Can I add and drop courses in week 3?",  # "and" joins two verbs, not two questions
        "If I want both a photocopy and a revaluation, how much will I pay?",
        "What is the revaluation fee?",
        "How are marks split, and is that so?",  # a part with no word of its own
    ],
)
def test_one_question_is_not_split(question):
    assert question_parts(question) == []


def test_each_part_of_a_two_part_question_is_answered(tiny_engine):
    # Both parts in one section; ranked on the whole question, the fee sentence would win every slot.
    answer = tiny_engine.ask("How much is the revaluation fee, and when is the photocopy issued?")
    assert answer.decision == "answer", answer.reason
    assert "Rs. 500" in answer.text and "5 working days" in answer.text
