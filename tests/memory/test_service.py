"""MemoryService without the engine: learning, the memory view and its edits, forget-me, file safety."""

from __future__ import annotations

import json
import threading

import pytest

from governance.identity import Identity, PermissionDenied
from memory.service import MemoryService, user_key
from pipeline.ground.records import Answer, AnswerStyle

ADA = Identity("local:ada", "ada")
GRACE = Identity("local:grace", "grace")


@pytest.fixture()
def memory(tmp_path):
    return MemoryService(tmp_path / "users", query_log_path=tmp_path / "query_log.jsonl")


def test_preferences_learned_from_chat_shape_the_style(memory):
    s = memory.new_session(ADA)
    notes, only = memory.learn(ADA, s, "keep answers short and use bullet points from now on")
    assert only and len(notes) == 1 and "brief" in notes[0]
    memory.learn(ADA, s, "I'm a third-year B.Tech CSE student")
    assert memory.style(ADA) == AnswerStyle(length="brief", format="bullets", show_quotes=True, programme="B.Tech")
    assert memory.style(GRACE) == AnswerStyle()


def test_later_statement_updates_the_fact_instead_of_duplicating(memory):
    s = memory.new_session(ADA)
    memory.learn(ADA, s, "my advisor is Dr. Rao")
    memory.record_turn(ADA, s, "my advisor is Dr. Rao", Answer(text="Noted.", decision="memory"))
    memory.learn(ADA, s, "my advisor is Prof. Iyer")
    facts = memory.view(ADA)["facts"]
    assert [(f["key"], f["value"]) for f in facts] == [("advisor", "Prof. Iyer")]
    raw = memory._facts(ADA)["advisor"]
    assert raw["session_id"] == s and raw["turn"] == 1 and raw["ts"] > 0


def test_about_me_answer_is_labelled_memory_and_names_only_the_callers_facts(memory):
    memory.learn(ADA, "s", "my advisor is Dr. Rao")
    memory.learn(GRACE, "t", "my advisor is Dr. Menon")
    answer = memory.answer_about_me(ADA, "who is my advisor?")
    assert answer.decision == "memory" and answer.citations == [] and answer.support is None
    assert answer.text.startswith("From what you told me (memory, not policy):")
    assert "Dr. Rao" in answer.text and "Menon" not in answer.text
    unknown = memory.answer_about_me(GRACE, "what programme am I in?")
    assert unknown.decision == "memory" and "haven't told me" in unknown.text


def test_memory_tab_edits_and_deletes_items(memory):
    memory.learn(ADA, "s", "my advisor is Dr. Rao. use bullet points")
    memory.update_preference(ADA, "length", "detailed")
    memory.update_fact(ADA, "hostel", "Block C")
    view = memory.view(ADA)
    assert view["preferences"]["length"] == "detailed" and view["preferences"]["format"] == "bullets"
    assert {f["key"] for f in view["facts"]} == {"advisor", "hostel"}
    assert memory.delete_fact(ADA, "advisor")
    assert memory.delete_item(ADA, "preference", "format")
    view = memory.view(ADA)
    assert [f["key"] for f in view["facts"]] == ["hostel"] and view["preferences"]["format"] == "prose"
    with pytest.raises(ValueError):
        memory.update_preference(ADA, "length", "enormous")
    with pytest.raises(ValueError):
        memory.update_preference(ADA, "user_id", "local:grace")


def test_clear_history_removes_turns_but_keeps_preferences(memory):
    s = memory.new_session(ADA)
    memory.learn(ADA, s, "keep answers short")
    for i in range(3):
        memory.record_turn(ADA, s, f"q{i}", Answer(text="a", decision="abstain"))
    assert memory.clear_history(ADA) == 3
    assert memory.history(ADA, s) == [] and memory.sessions(ADA) == []
    assert memory.style(ADA).length == "brief"


def test_forget_me_deletes_the_file_and_anonymises_only_the_callers_log_lines(memory, tmp_path):
    memory.learn(ADA, "s", "my advisor is Dr. Rao")
    memory.learn(GRACE, "t", "my advisor is Dr. Menon")
    log = tmp_path / "query_log.jsonl"
    log.write_text(
        "".join(
            json.dumps({"actor": user_key(who), "session": "x", "query": f"{who.username} asks", "rewritten_query": ""})
            + "\n"
            for who in (ADA, GRACE, ADA)
        )
    )
    result = memory.forget_me(ADA)
    assert result == {"file_removed": True, "log_lines_anonymised": 2}
    assert not (memory.users_dir / f"{user_key(ADA)}.json").exists()
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert [r["query"] for r in lines] == ["", "grace asks", ""]
    assert "ada" not in log.read_text()
    assert memory.view(ADA)["facts"] == [] and memory.view(GRACE)["facts"][0]["value"] == "Dr. Menon"


@pytest.mark.parametrize(
    "user_id",
    [
        "local:../grace",
        "local:/etc/passwd",
        "local:ada\x00grace",
        "local:gr\u0430ce",  # Cyrillic а
        "../../../tmp/x",
        "local:grace/../../ada",
        "local:\ud800",
    ],
)
def test_hostile_account_ids_map_to_distinct_safe_files_inside_users_dir(memory, user_id):
    hostile = Identity(user_id, user_id)
    memory.learn(GRACE, "g", "my advisor is Dr. Menon")
    memory.learn(hostile, "h", "my advisor is Mallory")
    files = sorted(p.name for p in memory.users_dir.glob("*.json"))  # beside them: .lock and .bak companions
    assert len(files) == 2
    assert all(p.parent == memory.users_dir for p in memory.users_dir.iterdir())
    assert user_key(hostile) != user_key(GRACE) and len(user_key(hostile)) == 32
    assert memory.view(GRACE)["facts"][0]["value"] == "Dr. Menon"
    assert "Menon" not in memory.answer_about_me(hostile, "who is my advisor?").text


def test_reading_memory_creates_no_file(memory):
    memory.view(ADA)
    memory.answer_about_me(ADA, "who is my advisor?")
    memory.history(ADA, "nope")
    assert [p for p in memory.users_dir.iterdir() if not p.name.endswith(".lock")] == []  # a lock holds no data


def test_another_users_session_id_finds_nothing(memory):
    s = memory.new_session(GRACE)
    memory.record_turn(GRACE, s, "grace's secret question", Answer(text="a", decision="abstain"))
    assert memory.history(ADA, s) == []
    assert memory.rewrite(ADA, s, "and the fee for that?") == ""


def test_memory_methods_require_an_identity(memory):
    with pytest.raises(PermissionDenied):
        memory.view(None)
    with pytest.raises(PermissionDenied):
        memory.forget_me(Identity("x", "x", role="nobody"))


def test_parallel_users_never_see_each_others_memory(memory):
    users = [Identity(f"local:user{i}", f"user{i}") for i in range(6)]
    errors: list[str] = []

    def talk(i: int, who: Identity) -> None:
        s = memory.new_session(who)
        for n in range(10):
            memory.learn(who, s, f"my locker is L{i}-{n}")
            memory.record_turn(who, s, f"question {i}-{n}", Answer(text="a", decision="abstain"))
        memory.learn(who, s, "keep answers short" if i % 2 else "use bullet points")

    threads = [threading.Thread(target=talk, args=(i, u)) for i, u in enumerate(users)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i, who in enumerate(users):
        view = memory.view(who)
        if view["facts"] != [{**view["facts"][0], "key": "locker", "value": f"L{i}-9"}]:
            errors.append(f"{who.username}: {view['facts']}")
        assert view["turns"] == 10
        (s,) = memory.sessions(who)
        assert [r["user_text"] for r in memory.history(who, s)] == [f"question {i}-{n}" for n in range(10)]
        style = memory.style(who)
        assert (style.length, style.format) == (("brief", "prose") if i % 2 else ("standard", "bullets"))
    assert errors == []
