"""pipeline.answer.table_rows: a table row in an answer reads "M.Tech student: 6 items, 21 days",
checked against its chunk, with the chunk's own words kept in the citation."""

from __future__ import annotations

from pipeline.answer.synthesis import CitedSentence
from pipeline.answer.table_rows import read_rows, row_as_read
from tests.conftest import TINY_LIBRARY

# The tiny corpus's library policy (its front matter and title), its sections replaced by a table.
LIBRARY = (
    TINY_LIBRARY[: TINY_LIBRARY.index("## 1.")]
    + """## 1. Loan Limits
The number of items a member may borrow and the loan period depend on the member category.

| Member | Items | Loan period |
|---|---|---|
| B.Tech student | 4 items | 14 days |
| M.Tech student | 6 items | 21 days |
| PhD scholar | 8 items | 30 days |

Reference books cannot be borrowed by any member.

## 2. Overdue Items
A fine of Rs. 5 per day is charged for each overdue item.
"""
)


def test_a_row_reads_label_first_with_the_headers_it_needs():
    assert row_as_read("Member: M.Tech student; Items: 6 items; Loan period: 21 days") == (
        "M.Tech student: 6 items, 21 days"
    )
    assert row_as_read("Expense: Meals; Limit: 50 dollars per day; Receipt needed: No") == (
        "Meals: 50 dollars per day, Receipt needed: No"
    )
    assert row_as_read("Week: 5; Review: first review; Marks: 20") == "Week 5: first review, Marks: 20"


def test_a_sentence_that_is_no_row_is_left_as_it_is():
    for sentence in ("The fee is Rs. 500 per course.", "Note: this applies to everyone; see Section 5."):
        assert row_as_read(sentence) == sentence


def test_a_row_is_shown_as_read_only_when_it_passes_the_verifier():
    row = CitedSentence("Member: M.Tech student; Items: 6 items; Loan period: 21 days", 1, "c1")
    shown, as_written = read_rows([row], {"c1": "- " + row.text})
    assert shown[0].text == "M.Tech student: 6 items, 21 days"
    assert as_written(shown) == [row]  # citations quote the chunk as written
    # a chunk that does not hold the row's words: the row is not rewritten
    shown, _ = read_rows([row], {"c1": "Something else entirely."})
    assert shown == [row]


def test_a_row_level_question_is_answered_with_the_row(tmp_path, embed_model):
    from tests.conftest import engine_over

    engine = engine_over(tmp_path, embed_model, {"library.md": LIBRARY})
    answer = engine.ask("How many items can an M.Tech student borrow?", log=False)
    assert answer.decision == "answer", answer.reason
    assert "M.Tech student: 6 items, 21 days [1]" in answer.text
    assert "|" not in answer.text and "Member:" not in answer.text
    assert "Member: M.Tech student; Items: 6 items; Loan period: 21 days" in answer.citations[0].quotes
