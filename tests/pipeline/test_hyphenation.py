"""A word broken across lines at a hyphen is joined as it was written: a typesetter's break closes
up, a compound keeps its own hyphen."""

from __future__ import annotations

import pytest

from pipeline.language.hyphenation import join_line_break


@pytest.mark.parametrize(
    "first, second, word",
    [
        ("re-", "valuation", "revaluation"),  # a closed prefix
        ("examina-", "tions", "examinations"),  # a break inside a word
        ("com-", "mittee", "committee"),
        ("any-", "one", "anyone"),  # a common word, though both halves are words
        ("under-", "graduate", "undergraduate"),
        ("no-", "dues", "no-dues"),  # "nodues" is no word
        ("self-", "assessment", "self-assessment"),
        ("full-", "time", "full-time"),  # two words of their own, "fulltime" rare
        ("well-", "known", "well-known"),
        ("part-time-", "student", "part-time-student"),
        ("Vice-", "Chancellor", "Vice-Chancellor"),  # a capital after the break: a name
        ("2025-", "26", "2025-26"),
        ("no\u00ad", "dues", "no-dues"),  # a soft hyphen is a hyphen at a line's end
    ],
)
def test_a_line_break_hyphen_is_joined_as_written(first, second, word):
    assert join_line_break(first, second) == word
