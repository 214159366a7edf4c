"""A reply to a clarifying question: which option it picks, and the question it then asks."""

from __future__ import annotations

import pytest

from pipeline.answer.clarify import option_label, pick_option, scoped_question

OPTIONS = [
    {"doc_id": "exams", "title": "Examination Registration Policy", "section": "5.1 Examination Fee"},
    {"doc_id": "add-drop", "title": "Course Add, Drop and Withdrawal Policy", "section": "7.4 Fees and Refunds"},
    {"doc_id": "reval", "title": "Revaluation and Answer-Script Review Policy", "section": "5.1 Deadline and Fee"},
]


@pytest.mark.parametrize(
    ("reply", "picked"),
    [
        ("The examination one", 0),  # the issue's own reply
        ("the revaluation one", 2),
        ("I meant the withdrawal policy", 1),
        ("2", 1),
        ("option 3", 2),
        ("the second one", 1),
        ("the last one", 2),
        (option_label(OPTIONS[2]), 2),  # what a click on the option's button sends
    ],
)
def test_a_reply_picks_an_option_by_words_number_or_click(reply, picked):
    assert pick_option(reply, OPTIONS) == picked


@pytest.mark.parametrize(
    "reply",
    [
        "fees",  # a word every option has picks none of them
        "policy",
        "What is the late fee for withdrawal?",  # "late" is in no option: a new question
        "What is the fee in the second semester?",  # an ordinal inside a question of its own
        "4",  # no fourth option
        "When is the deadline?",  # shares "deadline" with an option, but asks a question of its own
        "How many courses can I apply for revaluation in one examination session?",
    ],
)
def test_a_reply_that_picks_no_single_option_is_a_question_of_its_own(reply):
    assert pick_option(reply, OPTIONS) is None


def test_the_scoped_question_keeps_the_question_and_names_the_option():
    assert (
        scoped_question("fees?", OPTIONS[2]) == "fees: Revaluation and Answer-Script Review Policy, Deadline and Fee?"
    )
