"""The one text module: how contractions are read (pipeline.language.text.tokens)."""

import pytest

from pipeline.language.text import canonical_terms, has_negation, tokens


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I've been invited", ["i", "been", "invited"]),
        ("I'll need a desk", ["i", "need", "a", "desk"]),
        ("you're, we'd, it's, I'm", ["you", "we", "it", "i"]),
        ("the student's fee", ["the", "student", "fee"]),
        ("I\u2019ve got it", ["i", "got", "it"]),
    ],
)
def test_contraction_clitics_are_not_words(text: str, expected: list[str]):
    assert tokens(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("my phone hasn't arrived", ["my", "phone", "has", "not", "arrived"]),
        ("can't", ["can", "not"]),
        ("won't", ["will", "not"]),
        ("didn't", ["did", "not"]),
    ],
)
def test_nt_becomes_not(text: str, expected: list[str]):
    assert tokens(text) == expected
    assert has_negation(text)


def test_a_question_in_the_first_person_asks_for_no_clitic():
    """'I've' once gave the term 've', which no evidence contains: a missing need of every such question."""
    assert canonical_terms("I've been invited to present. I'll need a day off; it hasn't been approved.") == [
        "invit",
        "present",
        "day",
        "approv",
    ]
