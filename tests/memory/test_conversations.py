"""Conversations in a user's memory: the list, the current one, reopening, deleting, votes."""

from __future__ import annotations

import pytest

from governance.identity import Identity
from memory.service import MemoryService
from pipeline.ground.records import Answer

ADA = Identity("local:ada", "ada")
GRACE = Identity("local:grace", "grace")


@pytest.fixture()
def memory(tmp_path):
    return MemoryService(tmp_path / "users", query_log_path=tmp_path / "query_log.jsonl")


def _turn(memory, who, session, text):
    memory.record_turn(who, session, text, Answer(text=f"reply to {text}", decision="answer"))


def test_conversations_are_listed_newest_first_titled_by_their_first_question(memory):
    first = memory.new_session(ADA)
    _turn(memory, ADA, first, "What is the revaluation fee?")
    _turn(memory, ADA, first, "and the deadline?")
    second = memory.new_session(ADA)
    _turn(memory, ADA, second, "How many books may I borrow at a time as an undergraduate student of the institute?")
    listed = memory.conversations(ADA)
    assert [c["session_id"] for c in listed] == [second, first]
    assert listed[1]["title"] == "What is the revaluation fee?" and listed[1]["turns"] == 2
    assert listed[0]["title"].endswith("…") and len(listed[0]["title"]) <= 61
    assert listed[0]["started"][:4].isdigit() and len(listed[0]["started"]) == len("2026-01-01 10:00")


def test_a_new_conversation_stays_current_before_its_first_turn(memory):
    old = memory.new_session(ADA)
    _turn(memory, ADA, old, "What is the revaluation fee?")
    fresh = memory.new_session(ADA)
    assert memory.current_session(ADA) == fresh  # a reload shows the new, empty one, not `old`
    memory.open_session(ADA, old)
    assert memory.current_session(ADA) == old


def test_another_users_conversation_can_be_neither_opened_nor_deleted_nor_rated(memory):
    grace = memory.new_session(GRACE)
    _turn(memory, GRACE, grace, "grace's question")
    with pytest.raises(ValueError):
        memory.open_session(ADA, grace)
    with pytest.raises(ValueError):
        memory.delete_conversation(ADA, grace)
    with pytest.raises(ValueError):
        memory.rate_turn(ADA, grace, 0, "down", "spam")
    assert memory.conversations(ADA) == [] and memory.history(GRACE, grace)[0].get("feedback") is None
    assert memory.current_session(GRACE) == grace


def test_deleting_a_conversation_removes_its_turns_and_it_is_no_longer_current(memory):
    keep, drop = memory.new_session(ADA), memory.new_session(ADA)
    _turn(memory, ADA, keep, "kept")
    _turn(memory, ADA, drop, "dropped")
    assert memory.delete_conversation(ADA, drop) == 1
    assert [c["title"] for c in memory.conversations(ADA)] == ["kept"]
    assert memory.current_session(ADA) == keep  # the current one was deleted: the latest left


def test_a_vote_is_kept_with_its_turn_and_can_be_changed_or_taken_back(memory):
    s = memory.new_session(ADA)
    _turn(memory, ADA, s, "q0")
    _turn(memory, ADA, s, "q1")
    memory.rate_turn(ADA, s, 1, "down", "  It left out the deadline.  ")
    assert memory.history(ADA, s)[1]["feedback"]["vote"] == "down"
    assert memory.history(ADA, s)[1]["feedback"]["comment"] == "It left out the deadline."
    memory.rate_turn(ADA, s, 1, "up")
    changed = memory.history(ADA, s)[1]["feedback"]
    assert (changed["vote"], changed["comment"]) == ("up", "")  # the new vote replaces vote and comment
    memory.rate_turn(ADA, s, 1, "")
    assert memory.history(ADA, s)[1]["feedback"]["vote"] == ""
    assert "feedback" not in memory.history(ADA, s)[0]
    with pytest.raises(ValueError):
        memory.rate_turn(ADA, s, 5, "up")
    with pytest.raises(ValueError):
        memory.rate_turn(ADA, s, 0, "sideways")
