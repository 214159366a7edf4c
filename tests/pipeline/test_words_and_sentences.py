"""How text is cut into words and sentences: letters of any script, and initialisms."""

from pipeline.gate.support import coverage_of
from pipeline.ingest.term_stats import TermStats
from pipeline.language.text import content_terms, split_sentences


def test_an_initialism_before_a_name_does_not_end_the_sentence():
    text = "Travel inside the U.S. Government network is covered. The U.K. Civil Service code applies too."
    assert split_sentences(text) == [
        "Travel inside the U.S. Government network is covered.",
        "The U.K. Civil Service code applies too.",
    ]


def test_an_initialism_before_a_sentence_opener_ends_the_sentence():
    assert split_sentences("Staff may work from anywhere in the U.S. The office stays open.") == [
        "Staff may work from anywhere in the U.S.",
        "The office stays open.",
    ]


def test_a_time_of_day_still_ends_its_sentence():
    assert split_sentences("Doors open at 9 a.m. Visitors must sign in.") == [
        "Doors open at 9 a.m.",
        "Visitors must sign in.",
    ]


def test_accented_and_non_latin_words_stay_whole():
    assert {"règle", "zürich", "télétravail"} <= set(content_terms("Quelle est la règle du télétravail à Zürich ?"))
    assert "مرحبا" in content_terms("مرحبا")


def test_an_abstention_names_an_accented_word_as_asked():
    chunks = ["Staff may work from home two days a week with their manager's approval."]
    _, missing = coverage_of("Quelle est la règle du télétravail ?", chunks, TermStats(chunks))
    assert "règle" in missing and "gle" not in missing
