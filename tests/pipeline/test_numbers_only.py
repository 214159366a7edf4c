"""Issue 15, finding 7: a message that is only numbers is answered (or refused), never a crash."""

from __future__ import annotations

import pytest

from pipeline.gate.support import coverage_of


@pytest.mark.parametrize("message", ["12345", "500?", "₹500", "2026 2027", "5.5"])
def test_a_numbers_only_question_gets_a_decision(tiny_engine, message):
    answer = tiny_engine.ask(message)
    assert answer.decision in ("answer", "abstain", "clarify", "out_of_scope")


def test_coverage_of_a_numbers_only_question_is_defined(tiny_engine):
    value, _missing = coverage_of("12345", ["The revaluation fee is Rs. 500 per course."], tiny_engine.stats)
    assert 0.0 <= value <= 1.0
