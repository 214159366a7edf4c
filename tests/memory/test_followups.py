"""pipeline.answer.rewrite: elliptical follow-ups become self-contained; full questions are left alone.

(Lives here with the memory tests because the follow-up history comes from memory.)
"""

from __future__ import annotations

from pipeline.answer.rewrite import needs_rewrite, rewrite_followup


def test_what_about_pairs_the_new_focus_with_the_previous_question():
    out = rewrite_followup("what about labs?", ["Is revaluation available for theory exams?"])
    assert "revaluation" in out.lower() and "labs" in out.lower()


def test_pronoun_is_replaced_by_the_previous_topic():
    assert rewrite_followup("and the fee for that?", ["How do I apply for revaluation?"]) == "the fee for revaluation?"


def test_self_contained_question_needs_no_rewrite():
    assert rewrite_followup("What is the fee for revaluation?", ["How do I apply for revaluation?"]) == ""
    assert not needs_rewrite("How many credits can a B.Tech student register for in one semester?")


def test_no_history_means_no_rewrite():
    assert rewrite_followup("what about labs?", []) == ""


def test_uses_the_most_recent_question():
    out = rewrite_followup("and the fee for that?", ["How do I drop a course?", "How do I get a photocopy?"])
    assert "photocopy" in out and "drop" not in out


def test_a_long_follow_up_without_a_subject_of_its_own_is_rewritten():
    out = rewrite_followup("And how long do I have to apply for it?", ["What is the revaluation fee?"])
    assert out == "how long do I have to apply for revaluation fee?"


def test_a_long_self_contained_question_is_left_alone():
    question = "Can I still write the end-semester exam for a course I withdrew from in week 5?"
    assert rewrite_followup(question, ["What is the revaluation fee?"]) == ""


def test_a_question_that_opens_with_in_or_for_can_be_whole():
    assert (
        rewrite_followup(
            "In how many courses can I apply for revaluation?",
            ["What's the maximum number of credits I can register for?"],
        )
        == ""
    )
    assert needs_rewrite("For M.Tech?") and needs_rewrite("and for labs?")
