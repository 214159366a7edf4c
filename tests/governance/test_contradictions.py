"""Contradictions are pairs of spans, found by kind and context, and become replacement text."""

from __future__ import annotations

from governance.contradictions import closest, extract_values, find_contradictions, propose_replacement

FEES = (
    "The revaluation fee is Rs. 500 per course. A student applies within 7 calendar days. "
    "The fee for a photocopy of an answer script is Rs. 300 per course."
)


def test_amount_difference_is_a_pair_of_spans():
    found = closest(find_contradictions("The revaluation fee is now Rs. 800 per course.", "c1", FEES, "2"))
    assert len(found) == 1
    c = found[0]
    assert c.kind == "amount" and (c.claim_value, c.chunk_value) == ("800", "500")
    assert c.claim_span["text"] == "Rs. 800"
    assert FEES[c.chunk_span["start"] : c.chunk_span["end"]] == "Rs. 500"


def test_agreeing_claim_has_no_contradiction():
    assert find_contradictions("The revaluation fee is now Rs. 500 per course.", "c1", FEES) == []


def test_unrelated_value_is_not_paired():
    assert find_contradictions("The library fine is now Rs. 10 per day.", "c1", FEES) == []


def test_week_percent_and_count_kinds():
    kinds = {v.kind for v in extract_values("week 3, 50%, Rs. 2,000, 6 members, twice, 2026-08-01")}
    assert kinds == {"week_number", "percent", "amount", "count:people", "count:times", "date"}


def test_polarity_difference():
    chunk = "Laboratory marks of an integrated course count towards the internal assessment of the course."
    found = find_contradictions("Lab marks no longer count towards the internal assessment.", "c2", chunk)
    assert [c.kind for c in found] == ["polarity"]
    assert found[0].chunk_span["text"] == chunk


def test_replacement_substitutes_the_claimed_value_in_the_chunk_style():
    found = closest(find_contradictions("The revaluation fee is now Rs. 800 per course.", "c1", FEES))
    new = propose_replacement(FEES, found)
    assert "The revaluation fee is Rs. 800 per course." in new
    assert "Rs. 300" in new  # the photocopy fee is untouched


def test_a_corpus_counts_its_own_units_only_through_its_glossary(tmp_path):
    """'30 advisees' against 'at most 20 students' is a contradiction only where the glossary says
    what an advisee counts; without a glossary neither is a count (the code knows no corpus's units)."""
    from pipeline.language import glossary
    from pipeline.language.glossary import Glossary

    chunk = "Each faculty advisor is assigned at most 20 students at any time."
    claim = "Each faculty advisor can now take up to 30 advisees."
    before = glossary.active()
    try:
        glossary.use(Glossary.load(tmp_path))
        assert extract_values("20 students and 3 credits") == []
        assert find_contradictions(claim, "c1", chunk) == []
        (tmp_path / "glossary.yaml").write_text(
            "count_units: [student]\ncounts_as: {advisee: student, student: member}\n", encoding="utf-8"
        )
        glossary.use(Glossary.load(tmp_path))
        assert [v.kind for v in extract_values("20 students, 30 advisees, 6 members")] == ["count:people"] * 3
        found = find_contradictions(claim, "c1", chunk)
        assert [(c.kind, c.claim_value, c.chunk_value) for c in found] == [("count:people", "30", "20")]
        (tmp_path / "glossary.yaml").write_text("counts_as: {advisee: tutee, tutee: advisee}\n", encoding="utf-8")
        glossary.use(Glossary.load(tmp_path))
        assert [v.kind for v in extract_values("30 advisees")] == ["count:tutees"]  # a loop stops where it closes
    finally:
        glossary.use(before)
