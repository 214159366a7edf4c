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


def _split_by_joining(text: str) -> list[str]:
    """split_sentences as it was first written: each piece joined onto the sentence before it and
    the whole sentence searched again (quadratic in a run of abbreviations, the same sentences)."""
    import re

    from pipeline.language.text import _SENTENCE_END, LIST_MARKER, _continues_initialism, _lexicon

    sentences: list[str] = []
    for block in re.split(rf"\n\s*\n|\n(?=\s*{LIST_MARKER})", text):
        block = re.sub(rf"^{LIST_MARKER}\s*", "", " ".join(line.strip() for line in block.strip().splitlines())).strip()
        merged: list[str] = []
        for piece in _SENTENCE_END.split(block) if block else []:
            if merged and (_lexicon().abbreviation_end.search(merged[-1]) or _continues_initialism(merged[-1], piece)):
                merged[-1] = f"{merged[-1]} {piece}"
            else:
                merged.append(piece)
        sentences.extend(p.strip() for p in merged if p.strip())
    return sentences


def test_sentences_after_abbreviations_are_cut_as_joining_and_searching_would(tmp_path):
    import random

    from pipeline.language import glossary

    (tmp_path / "glossary.yaml").write_text("abbreviations: [Dept, Approx, U. S]\n")
    before = glossary.active()
    glossary.use(glossary.Glossary.load(tmp_path))
    try:
        units = ["U.S. ", "U. S. ", "Mr. ", "Dept. ", "Approx. ", "e.g. The ", "A.B. ", "xA.B. ", "Prof. ", "etc. And "]
        units += ["The end. ", "No. 5 ", "i.e. X ", "vs. The ", "\n\n", "\n- ", "\n3. ", "a ", "Q. ", "Staff ", "(See "]
        rng = random.Random(5)
        for _ in range(2000):
            text = "".join(rng.choice(units) for _ in range(rng.randint(1, 30)))
            assert split_sentences(text) == _split_by_joining(text), text
    finally:
        glossary.use(before)


def test_a_run_of_abbreviations_is_cut_at_once():
    # each piece after "U.S." was joined to the sentence and the sentence searched again: 40,000
    # characters of "U.S. " took 20 s, so a hostile upload or message held its worker for hours
    import time

    slowest = []
    for unit in ("U.S. ", "Mr. ", "e.g. The "):
        text = (unit * 40_000)[:40_000]
        started = time.perf_counter()
        sentences = split_sentences(text)
        slowest.append((round(time.perf_counter() - started, 2), unit))
        assert len(sentences) == 1 and len(sentences[0]) == len(text.strip())
    # each takes well under a second now; a stall, not a speed target
    assert max(slowest)[0] < 3.0, sorted(slowest, reverse=True)
