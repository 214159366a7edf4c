"""Votes on answers as reviewers see them: no voter, one entry per reply, formula-safe CSV."""

from __future__ import annotations

import csv

import pytest

from governance.feedback import FeedbackLog, votes_by_day
from governance.identity import Identity, PermissionDenied

REVIEWER = Identity("local:rita", "rita", "reviewer")
STUDENT = Identity("local:ada", "ada", "user")
TURN = {
    "turn": 3,
    "user_text": "What is the revaluation fee?",
    "answer": {"decision": "answer", "text": "The fee is Rs. 500. [1]", "support": {"sigma": 0.71}},
}


@pytest.fixture()
def log(tmp_path):
    return FeedbackLog(tmp_path / "feedback.json")


def test_a_changed_vote_replaces_the_earlier_one_and_a_withdrawn_vote_is_gone(log):
    log.record("actor-a", "s1", TURN, "down", "missing the deadline")
    log.record("actor-a", "s1", TURN, "up")
    entries = log.entries(REVIEWER)
    assert [(e.vote, e.comment, e.question, e.sigma) for e in entries] == [("up", "", TURN["user_text"], 0.71)]
    log.record("actor-a", "s1", TURN, "")
    assert log.entries(REVIEWER) == []


def test_reviewers_never_see_the_voter_and_students_see_nothing(log):
    log.record("actor-a", "s1", TURN, "down", "wrong")
    assert "actor-a" not in repr(log.entries(REVIEWER))
    with pytest.raises(PermissionDenied):
        log.entries(STUDENT)


def test_forget_removes_only_that_voters_entries(log):
    log.record("actor-a", "s1", TURN, "down")
    log.record("actor-b", "s1", TURN, "up")  # same session id and turn, another voter: another entry
    assert log.forget("actor-a") == 1
    assert [e.vote for e in log.entries(REVIEWER)] == ["up"]


def test_the_csv_shows_formula_like_cells_as_text(log, tmp_path):
    log.record("actor-a", "s1", TURN, "down", '=HYPERLINK("http://evil.example","click")')
    log.record("actor-a", "s2", {**TURN, "user_text": "+1 what is the fee?"}, "down", "-2+3")
    path = tmp_path / "out" / "feedback.csv"
    assert log.write_csv(REVIEWER, path) == 2
    rows = list(csv.DictReader(path.open(encoding="utf-8")))
    cells = {cell for row in rows for cell in row.values()}
    assert '\'=HYPERLINK("http://evil.example","click")' in cells and "'+1 what is the fee?" in cells
    assert "'-2+3" in cells and not any(c.startswith(("=", "+", "-", "@")) for c in cells)


def test_votes_by_day_counts_up_and_down(log):
    log.record("actor-a", "s1", TURN, "down")
    log.record("actor-a", "s2", TURN, "up")
    log.record("actor-b", "s1", TURN, "up")
    (counts,) = votes_by_day(log.entries(REVIEWER)).values()
    assert counts == {"up": 2, "down": 1}
