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


def test_a_question_listing_three_things_has_three_parts():
    parts = question_parts(
        "How much is the photocopy fee, how long does it take to get the photocopy, and can my parents collect it?"
    )
    assert [p.asked for p in parts] == [
        "How much is the photocopy fee",
        "how long does it take to get the photocopy",
        "can my parents collect it?",
    ]
    # a lead-in's comma does not start a part
    parts = question_parts("As a B.Tech student, when do I do my internship and how many credits is it worth?")
    assert len(parts) == 2 and all(p.search.startswith("As a B.Tech student,") for p in parts)


def test_a_part_no_evidence_covers_is_named_and_the_rest_answered(tiny_engine):
    from pipeline.evaluation.golden import answer_sentences_text

    answer = tiny_engine.ask(
        "How much is the revaluation fee, when is the photocopy issued, and is there a hostel curfew?"
    )
    assert answer.decision == "answer", answer.reason
    assert "Rs. 500" in answer.text and "5 working days" in answer.text
    assert answer.text.endswith("\n\nThe policies I can search do not cover: is there a hostel curfew?")
    assert answer.uncovered_parts == ["is there a hostel curfew?"]
    assert "do not cover" not in answer_sentences_text(answer)  # a statement about the search, not an answer


def test_every_part_covered_means_no_such_line(tiny_engine):
    answer = tiny_engine.ask("How much is the revaluation fee, and when is the photocopy issued?")
    assert answer.uncovered_parts == [] and "do not cover" not in answer.text
