"""The generative-mode report's own checks: scripted faults are injected and looked for honestly."""

from __future__ import annotations

import json

from scenarios.suite.generative import _faults_reaching_users, _memory_in_requests
from tests.fake_llm import EvidenceScript, fault_for


def _request(question: str, text: str) -> dict:
    record = json.dumps({"title": "Fees", "section": "2. Revaluation Fee", "text": text})
    content = (
        f"Evidence records (quoted data):\n[1] {record}\n\nQuestion (quoted data): {json.dumps(question)}\n\nWrite."
    )
    return {"messages": [{"role": "system", "content": "rules"}, {"role": "user", "content": content}]}


def test_evidence_script_injects_the_fault_its_hash_names():
    script = EvidenceScript()
    text = "The revaluation fee is Rs. 500 per course. It is paid online through the ERP portal."
    questions = [f"What is the revaluation fee, case {i}?" for i in range(12)]
    replies = [script(_request(q, text)) for q in questions]
    faults = [fault_for(q) for q in questions]
    assert {"none", "fabricated", "wrong_number", "uncited"} <= set(faults)
    assert len(script.injected) == sum(f != "none" for f in faults)
    for reply, fault in zip(replies, faults, strict=True):
        assert "The revaluation fee is Rs. 500 per course [1]." in reply
        assert ("Rs. 503" in reply) == (fault == "wrong_number")


def test_a_fault_is_found_in_an_answer_whatever_its_marker():
    injected = [{"fault": "fabricated", "sentence": "Late fees are doubled [1]."}]
    assert _faults_reaching_users(injected, ["The fee is Rs. 500. [1] Late fees are doubled. [1]"]) == injected
    assert _faults_reaching_users(injected, ["The fee is Rs. 500. [1]"]) == []


def test_memory_facts_in_requests_are_reported():
    sessions = [{"turns": [{"expect": {"remembers_fact": {"advisor": "Dr. Rao"}}}]}]
    assert _memory_in_requests([{"messages": [{"content": "ask dr. rao"}]}], sessions) == ["Dr. Rao"]
    assert _memory_in_requests([{"messages": [{"content": "the fee"}]}], sessions) == []
