import json
import re

from tests.conftest import run_module


def test_eval_contract_on_a_tiny_corpus(tmp_path, tiny_docs):
    questions = tmp_path / "q.jsonl"
    questions.write_text(
        json.dumps({"id": "a1", "question": "What is the revaluation fee?", "extra": 1})
        + "\n"
        + json.dumps({"id": "u1", "question": "What is the parking permit fee for visitors' cars?"})
        + "\n"
        + "{not json\n"
        + json.dumps({"id": "e1", "question": "  "})
        + "\n",
        encoding="utf-8",
    )
    out = tmp_path / "out.jsonl"
    home = tmp_path / "must-stay-empty"
    result = run_module(
        "pipeline.eval", "--docs", str(tiny_docs), "--questions", str(questions), "--out", str(out), home=home
    )
    assert result.returncode == 0, result.stderr
    assert "q.jsonl:3" in result.stderr and "q.jsonl:4" in result.stderr
    assert not home.exists()  # a temporary state directory, never the configured one
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["id"] for r in rows] == ["a1", "u1", "e1"]
    for row in rows:
        assert set(row) == {"id", "decision", "answer", "citations", "support", "tau", "latency_ms"}
    answered, unanswerable = rows[0], rows[1]
    assert answered["decision"] == "answer" and "Rs. 500" in answered["answer"]
    assert answered["citations"][0]["doc"] == "fees.md"
    assert set(answered["citations"][0]) == {"doc", "chunk_id", "quote"}
    # One quote per cited answer sentence, each that sentence as the chunk has it (not run together).
    quotes = [c["quote"] for c in answered["citations"]]
    plain_answer = answered["answer"].replace("**", "")
    assert len(quotes) == len(re.findall(r"\[\d+\]", answered["answer"])) >= 1
    assert all(q and q in plain_answer for q in quotes)
    assert answered["support"] >= answered["tau"]
    assert unanswerable["decision"] == "abstain" and unanswerable["citations"] == []
    assert unanswerable["support"] < unanswerable["tau"]


def test_eval_contract_missing_file_is_a_clear_error(tmp_path, tiny_docs):
    result = run_module(
        "pipeline.eval",
        "--docs",
        str(tiny_docs),
        "--questions",
        str(tmp_path / "nope.jsonl"),
        "--out",
        str(tmp_path / "o.jsonl"),
        timeout=120,
    )
    assert result.returncode == 2 and "does not exist" in result.stderr
    assert "Traceback" not in result.stderr
