"""pipeline.language.spelling and its use by the engine: a typo'd question is searched as the
corpus writes it, says so, and is not logged as an abstention (a knowledge gap)."""

from __future__ import annotations

from collections import Counter

from pipeline.language.spelling import SpellingCorrector

WORDS = Counter({"revaluation": 12, "deadline": 7, "photocopy": 5, "script": 4, "answer": 9, "register": 3})


def test_a_misspelt_corpus_word_is_corrected_and_reported():
    fixed = SpellingCorrector(WORDS).correct("wat is the revalution deadlin?")
    assert fixed.text == "wat is the revaluation deadline?"
    assert fixed.changes == (("revalution", "revaluation"), ("deadlin", "deadline"))
    assert fixed.describe() == "revalution → revaluation, deadlin → deadline"


def test_the_case_of_a_corrected_word_is_kept():
    assert SpellingCorrector(WORDS).correct("Revalution fee?").text == "Revaluation fee?"


def test_known_words_names_and_codes_are_left_alone():
    speller = SpellingCorrector(WORDS)
    # English words the corpus does not use: the question must still be about them
    assert not speller.correct("What is the hostel curfew and the parking fee?").changed
    # names, acronyms, codes, programme names, numbers and contractions
    assert not speller.correct("Does Dr. Revalutin use the ERPX portal for CS101 in M.Tech? Isn't it 3x?").changed
    # an inflection of a corpus word ("registered") and a word of the glossary ("recheck")
    speller = SpellingCorrector(WORDS, knows_term=lambda term: term == "regist")
    assert not speller.correct("I registered for a recheck").changed


def test_a_short_word_with_several_near_words_is_left_alone():
    assert not SpellingCorrector(Counter({"what": 3, "who": 3, "why": 3})).correct("wht is it").changed


def test_the_engine_searches_the_corrected_question_and_says_so(tiny_engine):
    from governance.insights import abstained, read_log

    answer = tiny_engine.ask("What is the revalution fee for a corse?")
    assert answer.decision == "answer"
    assert answer.rewritten_query == "What is the revaluation fee for a course?"
    assert "Rs. 500" in answer.text
    assert "spelling corrected: revalution → revaluation, corse → course" in answer.reason
    assert not abstained(read_log(tiny_engine.config.query_log_path))  # no knowledge gap filed


def test_a_correctly_spelt_question_is_searched_as_asked(tiny_engine):
    assert tiny_engine.ask("What is the revaluation fee?").rewritten_query == ""
