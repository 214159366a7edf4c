"""The direct answer: a short first line that states what was asked, before the cited sentences.

"What is the revaluation fee?" → "Rs. 500 per course [1]"; "Who approves a reduced credit load?"
→ "The HoD [2]"; "Can I register late for the summer term?" → "No. Late registration is not
available for the summer term. [1]". The line is always a span of one of the answer's cited
sentences, with that sentence's marker, so it is checked against its chunk like any other
sentence ("cited or silent"); when no sentence settles the question plainly there is no line.

This module does not choose or order the answer's sentences (the synthesiser does); it reads the
question record and the sentences chosen, and finds in them what the question asks for:

- A value: the question asks how much (money), what share (a percentage), how long, when, or how
  many; the line is the sentence's quantities of that kind with the words that bound them ("until
  the end of week 14 of the semester", "at least 16 and at most 26 credits", "Rs. 500 per course").
- A name: "who approves/decides/… X?"; the line is who does it in the sentence ("… is approved by
  the HoD", "The CoE publishes …").
- Yes or No: a yes/no question whose sentence holds most of its words and its numbers, states or
  denies it once, and sets no condition ("only", "unless", "if", "at most"…): "No." when it denies,
  "Yes." when it states; the sentence follows in the same line and is not repeated below it.

Every sentence that speaks of the question's words (half of them, weighted by how specific they
are) is read, and a line is given only when those that answer agree (the photocopy fee's Rs. 300
beside the revaluation fee's Rs. 500 does not count against it: it does not speak of
revaluation), or when `relevance` (the reader's score of each sentence, say) puts one clearly
ahead of every one that says otherwise. MiniLM's sentence cosine is not used for this:
it ranked "the final list … by the end of week 3" above "the add/drop period ends on Friday of
week 2" for "until when can I add or drop a course?".
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from pipeline.answer.synthesis import CitedSentence
from pipeline.ground.records import AnswerStyle
from pipeline.language.question import Question
from pipeline.language.stemming import stem
from pipeline.language.text import (
    canonical_terms,
    corpus_unit_kinds,
    has_negation,
    is_generic,
    money_words,
    quantities,
    quantity_spans,
    tokens,
)
from pipeline.language.word_rarity import specificity

# What a question asks for, by its form (general English), and the quantity kinds that answer it
# (pipeline.language.text.quantities; "count"/"time" add the glossary's own units).
_DURATION = ("day", "week", "month", "year", "hour")  # with "minutes" and "seconds" (see `_wanted`)
_VALUE_QUESTIONS: tuple[tuple[re.Pattern[str], tuple[str, ...], str], ...] = (
    (re.compile(r"\bhow\s+much\b", re.I), ("money",), ""),
    (re.compile(r"\b(?:percentage|percent|what\s+share|weightage)\b|%", re.I), ("pct",), ""),
    (re.compile(r"\bhow\s+(?:long|soon)\b|\bhow\s+many\s+(?:days|weeks|months|hours|years)\b", re.I), _DURATION, ""),
    (
        re.compile(
            r"^\s*(?:and\s+)?(?:by\s+|until\s+|till\s+)?when\b|\b(?:deadline|last\s+(?:day|date)|which\s+week)\b", re.I
        ),
        ("week#", "month", *_DURATION),
        "time",
    ),
    (re.compile(r"\bhow\s+many\b", re.I), ("attempt", "member", "page", "word", "time"), "count"),
)
# "What is the minimum attendance…", "what's the pass mark…": a what-question about an amount.
_AMOUNT_ASKED = re.compile(r"^\s*(?:and\s+)?what(?:\s+is|\s+are|'s)\s+the\s+((?:[\w-]+\s+){0,2}[\w-]+)\b", re.I)
_AMOUNT_WORDS = frozenset(
    "minimum maximum limit deadline penalty duration period threshold amount number total weightage percentage".split()
)
_ANY_AMOUNT = frozenset({"money", "pct", "week#", "month", *_DURATION, "attempt", "member", "page", "word"})
# "… and how much is the fee?": a second question in the same sentence; one line cannot answer both.
_SECOND_ASK = re.compile(
    r"\band\s+(?:(?:for|by|until|in|from)\s+)?(?:how|what|when|who|whom|which|where|why|can|could|is|are|do|does|will)\b",
    re.I,
)
_WHO = re.compile(r"^\s*(?:and\s+)?who\s+(\w+)", re.I)
# Words that may stand before a quantity as part of it ("until the end of week 14", "at most 20").
_BEFORE = frozenset(
    "within by until till before after from at least most up to only not more less than the end start "
    "beginning of on in over under maximum minimum total a an".split()
)
# Words that may follow a quantity as part of it ("Rs. 500 per course", "week 14 of the semester").
_AFTER = frozenset("per of for each a an the".split())
_CLAUSE_END = re.compile(r"[,;:()]|\.\s|\.$")
_BOUNDARY = frozenset("and or but which who whom that if unless when where while because so".split())
_MAX_SPAN_WORDS = 14
# Words a span does not end on (English prepositions, articles, conjunctions, "only", "not"): the
# noun phrase it cut into ended before them.
_DANGLING = frozenset(
    "of on in at by for to from with within until till before after over under into than and or nor but "
    "only not the a an per".split()
)
# A sentence that sets a condition does not settle a yes/no question by itself.
_CONDITION = re.compile(
    r"\b(?:only|unless|except|provided|subject\s+to|if|when|whether|at\s+least|at\s+most|up\s+to|"
    r"until|till|within|before|after|but|however|otherwise)\b",
    re.I,
)
# A sentence that says "yes" grants, allows or requires something; one that only names it ("It
# covers … late registration, … summer term examinations") does not.
_AFFIRMS = re.compile(
    r"\b(?:may|can|must|shall)\b|\b(?:is|are)\s+(?:also\s+)?(?:allowed|permitted|available|eligible|required|"
    r"entitled|compulsory|mandatory)\b",
    re.I,
)
_RELATIVE = re.compile(r"\b(?:who|which|that|whose)\b", re.I)
_CLEAR_MARGIN = 0.05  # relevance by which the sentence led with must beat one stating another value
_SETTLES = 0.75  # share of the yes/no question's specific words the sentence must hold
_COVERS = 0.5  # share a sentence must hold to answer at all (weighted as in `_coverage`)
_PREFIX = 5  # stems sharing this many letters count as one word ("regist", "registr")


@dataclass(frozen=True)
class DirectAnswer:
    """The first line: `text` (a span of one cited sentence, or "Yes."/"No." and that sentence)
    with that sentence's marker; `restates_whole`: the line holds the whole sentence, so the
    sentence is not repeated below it. An empty `text` records a sentence that states several
    values apart, which disagrees with any one of them and is never shown."""

    text: str
    sentence: CitedSentence
    restates_whole: bool = False

    @property
    def line(self) -> str:
        return f"{self.text} [{self.sentence.citation}]"

    def as_cited(self) -> CitedSentence:
        """The line as a sentence for the verifier (pipeline.answer.verify)."""
        return CitedSentence(self.text, self.sentence.citation, self.sentence.chunk_id)


def direct_answer(
    question: Question,
    sentences: Sequence[CitedSentence],
    relevance: Sequence[float] | None = None,
    headings: Mapping[str, str] | None = None,
) -> DirectAnswer | None:
    """The direct answer to `question` from the chosen `sentences`, or None when none settles it
    plainly, when they disagree (two fees, "yes" and "no") and `relevance` does not single one out
    by a clear margin, or when the question asks several things (each part has its own sentences).
    `headings`: chunk id → its document title and section heading, read with each sentence to
    judge whether it speaks of the question ("Late registration is not available for the summer
    term" under "Summer Term Examinations" speaks of exams)."""
    if not sentences or question.parts or _SECOND_ASK.search(question.text):
        return None
    read: Callable[[CitedSentence], DirectAnswer | None]
    kinds, counted = _wanted(question.text)
    if question.polar and question.sentences and question.polar == question.sentences[-1]:
        read = lambda s: _yes_or_no(question, s, (headings or {}).get(s.chunk_id, ""))  # noqa: E731
    elif who := _WHO.match(question.text):
        verb = who.group(1)
        read = lambda s: _name(verb, s)  # noqa: E731
    elif kinds or counted:
        read = lambda s: _value(s, kinds, counted)  # noqa: E731
    else:
        return None
    found = [
        (s, d)
        for s in sentences
        if _coverage(question, s, (headings or {}).get(s.chunk_id, "")) >= _COVERS and (d := read(s)) is not None
    ]
    if relevance is None or len(relevance) != len(sentences):
        relevance = [0.0] * len(sentences)  # no score to tell sentences apart: they must agree
    return _agreed(found, sentences, relevance)


def _agreed(
    found: list[tuple[CitedSentence, DirectAnswer]], sentences: Sequence[CitedSentence], relevance: Sequence[float]
) -> DirectAnswer | None:
    """The most relevant answer found (the first of equals), unless a sentence that says otherwise
    is within `_CLEAR_MARGIN` of it."""
    if not found:
        return None
    scores = {id(s): relevance[i] for i, s in enumerate(sentences)}
    # a sentence stating several values apart (text "") disagrees with any one of them
    ranked = sorted(found, key=lambda pair: (not pair[1].text, -scores[id(pair[0])]))
    best = ranked[0][1]
    if not best.text:
        return None
    rivals = [scores[id(s)] for s, d in ranked[1:] if not d.text or _says(d) != _says(best)]
    if rivals and scores[id(ranked[0][0])] - max(rivals) < _CLEAR_MARGIN:
        return None
    return best


def _says(direct: DirectAnswer) -> tuple[str, frozenset[str]]:
    """What a direct answer asserts, to tell agreement: its quantities, or its "yes"/"no", or its name."""
    if direct.restates_whole:
        return direct.text.split(".", 1)[0].lower(), frozenset()
    stated = frozenset(quantities(direct.text))
    return ("" if stated else " ".join(tokens(direct.text))), stated


def _coverage(question: Question, sentence: CitedSentence, heading: str = "") -> float:
    """The share of the question's specific words the sentence (read with its `heading`) holds,
    each weighted by how specific it is in English (pipeline.language.word_rarity): "revaluation"
    counts for more than "fee"."""
    weights: dict[str, float] = {}
    for term, surface in question.terms_with_surface:
        if not is_generic(term):
            weights[term] = max(weights.get(term, 0.0), specificity(surface))
    held = set(canonical_terms(f"{heading} {sentence.text}"))
    total = sum(weights.values())
    found = sum(w for t, w in weights.items() if any(_same(t, h) for h in held))
    return found / total if total else 0.0


def arrange(
    direct: DirectAnswer | None, sentences: list[CitedSentence], style: AnswerStyle
) -> tuple[DirectAnswer | None, list[CitedSentence]]:
    """What is shown under the direct answer: the cited sentences without the one the line
    restates whole, and in a brief answer only the one it comes from; markers renumbered in the
    order they are read, the line's first."""
    if direct is None:
        return None, sentences
    rest = [s for s in sentences if not (direct.restates_whole and s == direct.sentence)]
    if style.length == "brief":
        rest = [s for s in rest if s == direct.sentence]
    numbers: dict[str, int] = {}
    for s in [direct.sentence, *rest]:
        numbers.setdefault(s.chunk_id, len(numbers) + 1)

    def renumbered(s: CitedSentence) -> CitedSentence:
        return CitedSentence(s.text, numbers[s.chunk_id], s.chunk_id)

    lead = DirectAnswer(direct.text, renumbered(direct.sentence), direct.restates_whole)
    return lead, [renumbered(s) for s in rest]


def render_with_direct_answer(
    direct: DirectAnswer | None,
    sentences: list[CitedSentence],
    style: AnswerStyle,
    render: Callable[[list[CitedSentence], AnswerStyle], str],
) -> str:
    """The answer text: the direct answer's line, then `sentences` (as `arrange` left them) the
    way `render` writes them."""
    if direct is None:
        return render(sentences, style)
    if style.format == "bullets":
        return "\n".join([f"- {direct.line}", *([render(sentences, style)] if sentences else [])])
    return f"{direct.line}\n\n{render(sentences, style)}" if sentences else direct.line


def cited_sentences(direct: DirectAnswer | None, sentences: list[CitedSentence]) -> list[CitedSentence]:
    """The chunk sentences the answer rests on, for its citations: the line's own sentence too."""
    if direct is None:
        return sentences
    return [direct.sentence, *(s for s in sentences if s != direct.sentence)]


def _wanted(text: str) -> tuple[frozenset[str], frozenset[str]]:
    """(the quantity kinds that answer the question, stems of the nouns a bare number may count);
    both empty when it asks for no value. "How many times": times only, not the students of the
    same sentence; "how many items": numbers of items; "how long": durations, minutes too."""
    if set(tokens(text.lower())) & money_words():
        return frozenset({"money"}), frozenset()
    many = re.search(r"\bhow\s+many\s+([a-z]+)", text, re.I)
    if many and (unit := _unit_kind_of(many.group(1))):
        return frozenset({unit}), frozenset()
    if many and (noun := _counted_noun(text)):
        return frozenset(), frozenset({noun})
    for pattern, kinds, own in _VALUE_QUESTIONS:
        if pattern.search(text):
            wanted = frozenset(kinds) | (corpus_unit_kinds(own) if own else frozenset())
            return wanted, frozenset({"minut", "second"} if wanted & set(_DURATION) else ())
    amount = _AMOUNT_ASKED.search(text)
    if amount and (set(amount.group(1).lower().split()) & _AMOUNT_WORDS or _names_unit(amount.group(1))):
        return _ANY_AMOUNT | corpus_unit_kinds("count") | corpus_unit_kinds("time"), frozenset()
    return frozenset(), frozenset()


def _unit_kind_of(word: str) -> str:
    """The kind `quantities` files "2 <word>" under ("credits" → credit), or "" for no unit."""
    kinds = {q.split(":", 1)[0] for q in quantities(f"2 {word}")}
    return "" if kinds == {"n"} or not kinds else kinds.pop()


def _names_unit(words: str) -> bool:
    """Words that name a unit the corpus counts in ("pass mark": mark)."""
    units = corpus_unit_kinds("count") | corpus_unit_kinds("time")
    return any(q.split(":", 1)[0] in units for w in words.split() for q in quantities(f"2 {w}"))


def _value(
    sentence: CitedSentence, kinds: frozenset[str], counted: frozenset[str] = frozenset()
) -> DirectAnswer | None:
    """The sentence's quantities of the wanted kinds (or bare numbers before a `counted` noun:
    "2 office hours" for "how many office hours", "20 minutes" for "how long"), with the words that
    bound them and the numbers listed with them ("weeks 5, 10 and 14"); None when they stand apart
    in the sentence ("opens in week 12 … closes at the end of week 13" is two answers)."""
    text = sentence.text
    found = [(a, b, q.split(":", 1)[0]) for a, b, q in quantity_spans(text)]
    found = [(a, b, k) for a, b, k in found if not re.search(r"\bsections?\s*$", text[:a], re.I)]
    wanted = [(a, b) for a, b, k in found if k in kinds]
    # a bare number before the counted noun is read with it ("6 items", "20 minutes")
    wanted += [(a, _after_next_word(text, b)) for a, b, k in found if k == "n" and _next_word_stem(text, b) in counted]
    wanted.sort()
    if not wanted:
        return None
    start, end = wanted[0]
    ends = dict(wanted)
    for a, b, k in found:
        if a < end:
            continue
        between = text[end:a]
        listed = k == "n" and re.fullmatch(r"\s*(?:,|,?\s+(?:and|or|to))\s*", between)
        if a in ends or listed:
            b = max(b, ends.get(a, b))
            words = between.lower().replace(",", " ").split()
            if any(w not in _BEFORE and w not in ("and", "or") for w in words) or re.search(r"[;:()]", between):
                return DirectAnswer("", sentence)  # several values apart: it says something else
            end = max(end, b)
    start = _extend_left(text, start)
    end = _extend_right(text, end)
    span = text[start:end].strip(" ,;:.")
    if not span or len(span.split()) > _MAX_SPAN_WORDS or re.search(r"[;:()]|,\s(?!\d)", span):
        return DirectAnswer("", sentence)
    return DirectAnswer(span[0].upper() + span[1:], sentence)


def _after_next_word(text: str, at: int) -> int:
    following = re.match(r"\s*[A-Za-z]+", text[at:])
    return at + following.end() if following else at


def _next_word_stem(text: str, at: int) -> str:
    following = re.match(r"\s*([A-Za-z]+)", text[at:])
    return stem(following.group(1).lower()) if following else ""


def _counted_noun(question: str) -> str:
    """The stem of the noun a how-many question counts ("how many peer mentors does…" → mentor)."""
    match = re.search(
        r"\bhow\s+many\s+((?:[a-z-]+\s+){0,2}?)([a-z]+)\s+(?:do|does|can|is|are|will|must|should|may|per|in|for)\b",
        question,
        re.I,
    )
    return stem(match.group(2).lower()) if match else ""


def _extend_left(text: str, start: int) -> int:
    """Back over the words that bound a quantity ("until the end of", "at most"); a span does not
    start with "of", "the", "a" or "an" ("Friday of week 2" gives "week 2")."""
    words = list(re.finditer(r"\S+", text[:start]))
    taken: list[re.Match[str]] = []
    for m in reversed(words):
        if m.group(0).lower() not in _BEFORE:
            break
        taken.insert(0, m)
    while taken and taken[0].group(0).lower() in ("of", "the", "a", "an"):
        taken.pop(0)
    return taken[0].start() if taken else start


def _extend_right(text: str, end: int) -> int:
    """Through "per course", "of the semester", "of the publication of results": words of a noun
    phrase after the quantity, to the end of the clause, and not ending on a word that cannot end
    one ("of the revaluation outcome only on the ground" gives "of the revaluation outcome")."""
    following = list(re.finditer(r"[^\s,;:()]+", text[end:]))
    if not following or following[0].group(0).lower() not in _AFTER or text[end : following[0].start() + end].strip():
        return end
    ends = [end]  # where the span may end: after each word taken
    words = [""]
    for m in following[:6]:
        word = m.group(0)
        if word.lower().strip(".") in _BOUNDARY or _CLAUSE_END.search(text[ends[-1] : end + m.start()]):
            break
        ends.append(end + m.end())
        words.append(word.lower().strip("."))
        if word.endswith("."):
            break
    while len(ends) > 1 and words[-1] in _DANGLING:
        ends.pop()
        words.pop()
    return ends[-1]


def _name(verb: str, sentence: CitedSentence) -> DirectAnswer | None:
    """Who does what the question asks ("who approves X?"): the noun phrase after "by" in a
    passive ("approved by the HoD") or the subject before the verb ("The HoD approves …")."""
    root = stem(verb.lower())[:_PREFIX]
    text = sentence.text
    for m in re.finditer(r"[A-Za-z]+", text):
        if stem(m.group(0).lower())[:_PREFIX] != root or len(root) < 3:
            continue
        after = re.match(
            r"\s+by\s+((?:the\s+|a\s+|an\s+)?[^,;.()]+?)(?=\s+(?:on|in|at|for|within|after|before|and|or|if|unless|when|who|which|that)\b|[,;.()]|$)",
            text[m.end() :],
        )
        if after:
            return _named(after.group(1), sentence)
        before = text[: m.start()].strip()
        if before and not _RELATIVE.search(before) and len(before.split()) <= 6 and before[0].isupper():
            return _named(re.sub(r"\s+(?:must|shall|may|will|can|should|also)$", "", before), sentence)
        return None
    return None


def _named(phrase: str, sentence: CitedSentence) -> DirectAnswer | None:
    phrase = phrase.strip()
    if not phrase or len(phrase.split()) > 8 or not any(w[0].isupper() for w in phrase.split()):
        return None  # "a student", "the instructor concerned": no name to lead with
    return DirectAnswer(phrase[0].upper() + phrase[1:], sentence)


def _yes_or_no(question: Question, sentence: CitedSentence, heading: str = "") -> DirectAnswer | None:
    text = sentence.text
    if has_negation(question.polar) or _CONDITION.search(text):
        return None
    if not quantities(question.polar) <= quantities(text):
        return None  # "after week 6" asked, "week 8" stated: not a plain yes or no
    asked = {t for t, _ in question.polar_terms if not is_generic(t)}
    if len(asked) < 2 or _coverage(question, sentence, heading) < _SETTLES:
        return None
    negations = sum(1 for w in tokens(text) if w in {"not", "no", "never", "cannot", "nor", "none"})
    negations += text.lower().count("n't")
    if negations > 1 or (negations == 1 and _RELATIVE.search(text)):
        return None  # "a student who does not attend…": the "not" is not the answer's
    if negations == 0 and (
        _RELATIVE.search(text)
        or not _AFFIRMS.search(text)
        or not _states_all(question, text)
        or not quantities(text) <= quantities(question.polar)
    ):
        return None  # "Yes" only for a sentence that grants or requires it in the question's every word
    word = "No." if negations == 1 else "Yes."
    return DirectAnswer(f"{word} {text}", sentence, restates_whole=True)


def _states_all(question: Question, text: str) -> bool:
    held = set(canonical_terms(text))
    asked = {t for t, _ in question.polar_terms if not is_generic(t)}
    return all(any(_same(t, h) for h in held) for t in asked)


def _same(a: str, b: str) -> bool:
    return a == b or (min(len(a), len(b)) >= _PREFIX and (a.startswith(b) or b.startswith(a)))
