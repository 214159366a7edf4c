"""A question is analysed once into one record, and each step of an answer reads that record."""

import sys
from collections import Counter

from pipeline.language import text
from pipeline.language.question import analyse_question
from pipeline.language.question_parts import question_parts
from pipeline.language.text import canonical_terms, canonical_terms_with_surface, quantities, split_sentences

TWO_PARTS = "Is the revaluation fee Rs. 500, and how many days do I have to apply?"


def test_analyse_question_holds_what_the_text_functions_say():
    question = analyse_question(TWO_PARTS)
    assert question.text == TWO_PARTS
    assert question.terms == tuple(dict.fromkeys(canonical_terms(TWO_PARTS)))
    assert question.terms_with_surface == tuple(canonical_terms_with_surface(TWO_PARTS))
    assert question.terms == ("revalu", "fee", "rs", "500", "day", "appli")
    assert question.quantities == frozenset(quantities(TWO_PARTS)) == {"money:500"}
    assert question.sentences == tuple(split_sentences(TWO_PARTS)) == (TWO_PARTS,)
    assert list(question.parts) == question_parts(TWO_PARTS)
    assert [p.focus for p in question.parts] == ["Is the revaluation fee Rs. 500", "how many days do I have to apply?"]
    # a yes/no question: its asking sentence is the whole text, so its words are the text's own
    assert question.polar == TWO_PARTS and question.polar_terms == question.terms_with_surface
    assert {"is", "the", "how", "500"} <= question.words


def test_a_record_passed_in_is_not_analysed_again():
    question = analyse_question(TWO_PARTS)
    assert analyse_question(question) is question


def test_a_question_of_several_sentences_keeps_its_yes_no_sentence():
    question = analyse_question("I missed the exam. Can I take a make-up test?")
    assert question.sentences == ("I missed the exam.", "Can I take a make-up test?")
    assert question.polar == "Can I take a make-up test?"
    assert question.polar_terms == tuple(canonical_terms_with_surface("Can I take a make-up test?"))
    assert question.parts == ()
    assert analyse_question("What is the fee?").polar == ""


def _count_calls_on(monkeypatch, query: str) -> Counter:
    """Count calls of the text module's question functions whose argument is `query`, wherever a
    pipeline module imported them (`from pipeline.language.text import …` binds the name in each module)."""
    counts: Counter = Counter()
    for name in ("canonical_terms", "canonical_terms_with_surface", "quantities", "split_sentences"):
        original = getattr(text, name)

        def counted(arg, *args, _name=name, _original=original, **kwargs):
            if arg == query:
                counts[_name] += 1
            return _original(arg, *args, **kwargs)

        for module in list(sys.modules.values()):
            if getattr(module, "__name__", "").startswith("pipeline") and getattr(module, name, None) is original:
                monkeypatch.setattr(module, name, counted)
    return counts


def test_one_ask_analyses_the_question_once(tiny_engine, monkeypatch):
    counts = _count_calls_on(monkeypatch, TWO_PARTS)
    answer = tiny_engine.ask(TWO_PARTS, log=False)
    assert answer.decision == "answer", answer.reason
    # before the record: split into sentences 4 times, tokenised 4 times, quantities read twice
    assert counts["canonical_terms"] + counts["canonical_terms_with_surface"] <= 1, counts
    assert counts["split_sentences"] <= 1 and counts["quantities"] <= 1, counts
