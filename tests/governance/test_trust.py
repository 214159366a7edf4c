"""The trust score orders the queue and explains itself."""

from __future__ import annotations

from pathlib import Path

import pytest

from governance.trust import trust_score
from pipeline.language import glossary
from pipeline.language.glossary import Glossary

REPO = Path(__file__).resolve().parents[2]

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


@pytest.fixture()
def active():
    """Restore whatever glossary was in use when the test ends."""
    before = glossary.active()
    yield glossary.use
    glossary.use(before)


def _official(statement: str, proof: str) -> bool:
    return any("official source" in r for r in trust_score(statement, "user", proof).reasons)


def test_the_organisations_own_bodies_count_as_official_only_with_its_glossary(active):
    proof = "Notice from the Registrar: the revaluation fee is Rs. 800 per course."
    active(Glossary.load(REPO / "data" / "policies"))
    assert _official(CLAIM, proof)
    assert _official(CLAIM, "See https://www.example.ac.in/fees.")
    assert not _official(CLAIM, "See https://www.example.ac.in.attacker.com/fees.")
    active(Glossary())
    assert not _official(CLAIM, proof)
    assert not _official(CLAIM, "See https://www.example.ac.in/fees.")


def test_a_generic_official_document_counts_with_any_glossary(active):
    for words in (Glossary.load(REPO / "data" / "policies"), Glossary()):
        active(words)
        assert _official(CLAIM, "Circular 7/2026: the revaluation fee is Rs. 800 per course.")


# Texts that made the money, count and percent patterns rescan from every digit (issue 27: a
# pasted proof of "12" * 10000 held the server for 52 s), and one that made the overlap check
# between matches quadratic ("1%" ten thousand times).
PATHOLOGICAL = ("12", "1,", "5,,", "%1", "Rs.1", "1 jan ", "1 ", "week 1")


def test_a_pathological_proof_of_the_largest_accepted_size_is_read_at_once(active):
    import time

    from governance.contradictions import extract_values
    from governance.service import MAX_PROOF_TEXT_CHARS

    active(Glossary.load(REPO / "data" / "policies"))  # Rs, rupees: the demo's money patterns
    slowest = []
    for unit in PATHOLOGICAL:
        proof = (unit * MAX_PROOF_TEXT_CHARS)[:MAX_PROOF_TEXT_CHARS]
        started = time.perf_counter()
        trust_score(CLAIM, "user", proof)
        extract_values(proof)
        slowest.append((round(time.perf_counter() - started, 2), unit))
    # each takes milliseconds now; before, the first took minutes. A stall, not a speed target.
    assert max(slowest)[0] < 3.0, sorted(slowest, reverse=True)


def test_trust_reads_a_bounded_part_of_the_proof():
    from governance.trust import MAX_READ_CHARS

    hidden = "x " * MAX_READ_CHARS + "Circular 7/2026: the revaluation fee is Rs. 800 per course."
    assert "does not state the claimed value" in " ".join(trust_score(CLAIM, "user", hidden).reasons)
