"""`python -m pipeline ask` and the `pipeline.eval` contract read the same WARRANT_LLM_* setting."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import run_module, subprocess_env
from tests.fake_llm import FakeLLM, evidence_of


def _script(request: dict) -> str:
    n = next(n for n, r in evidence_of(request) if "revaluation" in r["section"].lower())
    return f"The revaluation fee is Rs. 500 per course [{n}]. The Dean may waive it for students in hardship [{n}]."


@pytest.fixture(scope="module")
def fake():
    with FakeLLM(_script) as server:
        yield server


def _env(home: Path, fake: FakeLLM) -> dict[str, str]:
    env = subprocess_env(home)
    env.update(WARRANT_LLM_BASE_URL=fake.base_url, WARRANT_LLM_MODEL="fake-model", WARRANT_LLM_TIMEOUT_S="20")
    return env


def test_ask_cli_prints_the_verified_answer_and_what_was_removed(tmp_path, tiny_docs, fake):
    env = _env(tmp_path / "home", fake)
    ingested = run_module("pipeline", "ingest", str(tiny_docs), env=env, timeout=600)
    assert ingested.returncode == 0, ingested.stderr
    done = run_module("pipeline", "ask", "What is the revaluation fee?", env=env, timeout=600)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("The revaluation fee is Rs. 500 per course. [1]\n")
    assert "written by: the language model (fake-model)" in done.stdout
    assert 'removed: "The Dean may waive it for students in hardship."' in done.stdout
    assert "answers written by fake-model" in done.stderr


def test_eval_contract_in_generative_mode(tmp_path, tiny_docs, fake):
    questions = tmp_path / "q.jsonl"
    questions.write_text(
        json.dumps({"id": "fee", "question": "What is the revaluation fee?"})
        + "\n"
        + json.dumps({"id": "curfew", "question": "What is the hostel curfew?"})
        + "\n"
    )
    out = tmp_path / "out.jsonl"
    fake.requests.clear()
    done = run_module(
        "pipeline.eval",
        "--docs",
        str(tiny_docs),
        "--questions",
        str(questions),
        "--out",
        str(out),
        env=_env(tmp_path / "home", fake),
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    fee, curfew = [json.loads(line) for line in out.read_text().splitlines()]
    assert fee["decision"] == "answer" and fee["answer"] == "The revaluation fee is Rs. 500 per course. [1]"
    assert "Dean" not in fee["answer"]
    assert curfew["decision"] == "abstain"
    assert len(fake.requests) == 1  # only the answered question went to the model
