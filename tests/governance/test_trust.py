"""The trust score orders the queue and explains itself."""

from __future__ import annotations

from governance.trust import trust_score

CLAIM = "The revaluation fee is now Rs. 800 per course."


def test_bare_student_claim_scores_low():
    t = trust_score(CLAIM, "user")
    assert t.score == 0.2 and any("no proof" in r for r in t.reasons)


def test_matching_official_proof_scores_high_with_reasons():
    t = trust_score(CLAIM, "reviewer", "Circular 7/2026: the revaluation fee is Rs. 800 per course.")
    assert t.score >= 0.9
    joined = " ".join(t.reasons)
    assert "reviewer" in joined and "proof attached" in joined and "claimed value" in joined and "official" in joined


def test_proof_with_another_value_does_not_count_as_matching():
    t = trust_score(CLAIM, "user", "The revaluation fee is Rs. 500 per course.")
    assert "does not state the claimed value" in " ".join(t.reasons)
