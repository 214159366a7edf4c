"""Contradictions inside one document: two sentences about the same thing that cannot both hold.

Two sentences are about the same thing when they are similar enough (MiniLM's cosine when an
embedding model is given, else shared content words). They then contradict when

- they set different values of one kind (durations compared in days, amounts, percentages,
  counts, how often something happens, as times a year: "monthly" / "quarterly", "every 12
  months" = "once a year") for the same case: values after "under / over / more than / between …"
  are the case a rule applies to, not the rule, so "under $5,000: one quote" and "over $50,000: a
  tender" are two cases, not a conflict, and "must not work more than 35 hours" sets a limit; nor
  are two sentences that name other cases by number ("less than 5 years" / "5 or more years",
  "delays of 15 to 29 minutes" / "30 to 59 minutes", `case_numbers`), a rule beside its special
  case ("more than 4 mice"), or two sentences written to one pattern that name two cases ("each
  assignment … 7 days" / "each quiz … 3 days", `parallel_cases`);
- one forbids or restricts what the other allows, or requires what the other waives, for the same
  act ("must not take part" / "may take part"; "must be changed" / "do not need to be changed";
  "must be accompanied" / "may move around unaccompanied") and cases that overlap ("more than £500
  must be approved" / "£500 or less need not be" are two cases);
- one says a thing will not be done and the other that it will ("will not be paid" / "will be paid").

A sentence that opens with the case it covers ("If you received bonus leave, it will not be paid
out") beside one that does not, or that opens by linking itself to the rule before it ("However, a
cylinder may be unchained while it is moved"), is a rule and its stated exception, not a
contradiction. A permission limited to one thing ("may be used only for fuel") restricts the rest,
so it opposes no prohibition; percentages of different things ("40% of the annual budget" / "75%
of the meetings") are not one value. Two sentences that each name groups of one kind of the
corpus's glossary (its `named_groups`), and none the same ("an Apprentice may claim 40%" / "a
Trainee or Intern may claim 50%"), are rules for different groups; without a glossary no sentence
names one. A worked
example ("For example, a 9-mile journey costs £5", "… can therefore claim £20") applies the rules
and is compared with nothing.

Values come from `governance.contradictions.extract_values`, the same reader that compares a claim
with the library, so both find the same numbers; how often comes from `frequencies` here.
"""

from __future__ import annotations

import difflib
import functools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

import numpy as np
from spacy.lang.en.stop_words import STOP_WORDS

from governance.contradictions import TIMES_WORDS, WORD_NUMBERS, counts_corpus_unit, extract_values
from governance.critic import lexicon as lx
from governance.critic.cues import Cues, base_form, is_timed_act, kept_on, opening_clause_end, verb_forms
from pipeline.language.statements import same_statement
from pipeline.language.text import NUMBER, content_terms, named_spans

_T = TypeVar("_T")


def _read_once(read: Callable[[Cues], _T]) -> Callable[[Cues], _T]:
    """`read` of a sentence's cues, kept on its doc after the first call (`kept_on`): the pair loop
    of `contradictions` reads each sentence once for every other sentence of the document."""

    @functools.wraps(read)
    def once(cues: Cues) -> _T:
        return kept_on(cues.doc, ("conflicts", read.__name__), lambda: read(cues))

    return once


Embed = Callable[[list[str]], np.ndarray]

# How similar two sentences must be to be compared, by MiniLM cosine or by the share of content
# words: two different numbers are common between sentences on neighbouring subjects ("25 days of
# leave a year" / "up to five days may be carried over"), so values are compared only between
# near-paraphrases; opposed stances on a shared act are rarer and need less. Chosen on the train
# and dev parts of data/critic (governance.critic.evaluate), where they separate every pair.
SAME_TOPIC = {"cosine": {"values": 0.72, "stance": 0.45}, "overlap": {"values": 0.6, "stance": 0.3}}

_DAYS = {"days": 1.0, "weeks": 7.0, "months": 30.0, "years": 365.0}
_CONDITION_BEFORE = re.compile(
    r"(?:\bunder|\bover|\babove|\bbelow|\bexceeding|\bless than|\bmore than|\bfewer than|\bgreater than|\bbetween|\band)\s*$",
    re.I,
)
# "no more than", "must not work more than", "cannot be less than £5": a limit, not a case.
_NEGATED_THAN = re.compile(
    r"(?:\b(?:no|not|never|cannot)|n't)(?:\s+[a-z]+){0,3}\s+(?:more|less|fewer|longer|shorter)\s+than\s*[^\w\s]?$", re.I
)
_NEAR = 80  # how far before or after a value its cue words are looked for (characters)


def _negated_limit(sentence: str, at: int) -> bool:
    """Whether the number at `at` follows a negated "more / less than": the limit a rule sets."""
    return bool(_NEGATED_THAN.search(sentence[max(0, at - _NEAR) : at]))


_CONDITION_AFTER = re.compile(r"^\s*(?:\+|or (?:more|less|over|above|under|below)\b|and (?:over|above)\b)", re.I)
# A leading case: "For laboratory courses, …", "If you are a contractor, …".
_LEADING_CASE = re.compile(r"^\s*(?:for|if|when|where|in the case of)\b([^,:;]{3,80})[,:]", re.I)
# A worked example or a consequence drawn from the rules ("For example, a 9-mile journey costs £5";
# "A man can therefore give up to 5 donations in 12 months") applies the rules to one case; its
# figures differ from the rule's by arithmetic, not by disagreement.
_WORKED_EXAMPLE = re.compile(
    r"^\s*(?:for example|for instance|e\.g\.|as an example|so (?:a|an|the)\b)|\b(?:therefore|thus)\b", re.I
)
# A sentence that opens by linking itself to the rule before it states that rule's exception:
# "However, a cylinder may be unchained while it is being moved".
_LINKED_EXCEPTION = re.compile(r"^\s*(?:however|nevertheless|exceptionally|as an exception)\b", re.I)
_FIRST_PERIOD = re.compile(r"\bfirst\s+(day|week|month|year)\b", re.I)
# How often something happens, as times a year: "twice a year", "once every three years", "every
# 60 days", "monthly", "each week". A period's length in days; a term is a third of a school year.
_PERIOD_DAYS = {
    "day": 1.0, "week": 7.0, "fortnight": 14.0, "month": 365 / 12, "quarter": 365 / 4,
    "term": 365 / 3, "semester": 365 / 2, "year": 365.0,
}  # fmt: skip
_ADVERBS = {"daily": "day", "weekly": "week", "fortnightly": "fortnight", "monthly": "month",
            "quarterly": "quarter", "annually": "year", "yearly": "year"}  # fmt: skip
_WORD_NUMBER = "|".join(WORD_NUMBERS)
_COUNT = rf"\d+|{_WORD_NUMBER}"
_UNIT = "|".join(_PERIOD_DAYS)
_FREQUENCY = re.compile(
    rf"\b(?:(?P<times>once|twice|thrice|(?P<n>{_COUNT})\s+times)\s+)?"
    rf"(?:(?P<per>a|an|per|each|every|in\s+(?:any|each|every|a))\s+(?:(?P<k>{_COUNT})[\s-]+)?(?P<unit>{_UNIT})s?\b"
    rf"|(?P<adverb>{'|'.join(_ADVERBS)})\b)",
    re.I,
)
_WILL = re.compile(r"\bwill\s+(not\s+)?be\s+(\w+)", re.I)


@dataclass(frozen=True)
class Quantity:
    kind: str  # "duration" (in days), "amount", "percent", "count:<unit>", "date", …
    value: float | str
    text: str
    condition: bool  # the case a rule applies to ("over $500"), not what it sets
    low: float  # the range a condition covers
    high: float
    start: int  # where it stands in its sentence
    end: int
    of: frozenset[str] = frozenset()  # a percentage: the stems of what it is a share of ("of the annual budget")


# The range of values a number naming a case covers, open at both ends: (low, high); see
# `case_numbers`.
CaseNumber = tuple[float, float]


def _number(word: str) -> float:
    low = word.lower()
    return float(WORD_NUMBERS.get(low) or low)


def frequencies(sentence: str) -> list[tuple[float, str, int, int]]:
    """How often `sentence` says something happens: (times a year, words, start, end). A period
    alone counts only after "every" ("every two years"); "each year" or "a month" alone is the
    span an amount covers ("25 days of leave each year"), not how often."""
    found = []
    for m in _FREQUENCY.finditer(sentence):
        times = m.group("times")
        per = (m.group("per") or "").lower()
        if m.group("k") and per != "every" and not per.startswith("in"):
            continue  # "twice a 3 weeks" is no English; "once in any 3 years" is
        if m.group("adverb"):
            days = _PERIOD_DAYS[_ADVERBS[m.group("adverb").lower()]]
        elif times or per == "every":
            days = _PERIOD_DAYS[m.group("unit").lower()] * (_number(m.group("k")) if m.group("k") else 1.0)
        else:
            continue
        count = TIMES_WORDS.get((times or "").lower()) or (_number(m.group("n")) if m.group("n") else 1.0)
        found.append((float(f"{count * 365 / days:.2g}"), m.group(0), m.start(), m.end()))
    return found


def quantities(sentence: str) -> list[Quantity]:
    found = []
    rates = frequencies(sentence)
    values = [
        (v.kind, v.value, v.text, v.start, v.end)
        for v in extract_values(sentence)
        if not any(start < v.end and v.start < end for _, _, start, end in rates)
    ]
    values += [("frequency", str(rate), text, start, end) for rate, text, start, end in rates]
    values += [
        ("count:" + m.group(1).lower() + "s", "1", m.group(0), m.start(), m.end())
        for m in _FIRST_PERIOD.finditer(sentence)
    ]
    for kind, raw, text, start, end in values:
        value: float | str = raw
        if kind.startswith("count:") and kind[6:] in _DAYS:
            kind, value = "duration", float(raw) * _DAYS[kind[6:]]
        elif kind in ("amount", "percent", "frequency") or kind.startswith("count:"):
            try:
                value = float(raw)
            except ValueError:
                value = raw
        # what stands just before and after it: the cue words are short, and a bounded window keeps
        # a sentence of ten thousand values linear (a whole prefix per value made it quadratic)
        before, after = sentence[max(0, start - _NEAR) : start], sentence[end : end + _NEAR]
        # a value before a colon names the case ("15+ years: 8 hours per pay period")
        condition = bool(_CONDITION_BEFORE.search(before) or _CONDITION_AFTER.match(after) or ":" in after[:40])
        if condition and _negated_limit(sentence, start):
            condition = False  # "must not work more than 35 hours": the limit the rule sets
        low, high = float("-inf"), float("inf")
        if condition and isinstance(value, float):
            words = (before[-14:] + " " + after[:10]).lower()
            if re.search(r"under|below|less than|fewer than|or less|or under", words):
                high = value
            else:
                low = value
        of = _share_of(after) if kind == "percent" else frozenset()
        found.append(Quantity(kind, value, text, condition, low, high, start, end, of))
    return found


# "of the …" before what a percentage is a share of
_SHARE_OF = re.compile(r"^\s*(?:of\s+(?:(?:the|a|an|their|his|her|its|each|every|all|any|your|our|this|that)\s+)?)?")


def _share_of(after: str) -> frozenset[str]:
    """What a percentage is a share of: the content words just after it, up to the first small word
    ("40% of the annual budget" → annual, budget; "75% meeting attendance" → meeting,
    attendance); empty when nothing names it ("40% or more")."""
    words = []
    for word in re.findall(r"[A-Za-z][\w-]*|\S", _SHARE_OF.sub("", after, count=1))[:3]:
        if not word[0].isalpha() or word.lower() in STOP_WORDS:
            break
        words.append(base_form(word.lower()))
    return frozenset(words)


def _same_share(a: Quantity, b: Quantity) -> bool:
    """Two values of one kind that could be the same figure: percentages of different things
    ("40% of the annual budget" / "75% of the meetings") are not."""
    return not (a.of and b.of) or bool(a.of & b.of)


# "only" after these opens a condition ("may be used only if …"): a permission in that case, not a
# limit on what is allowed.
_ONLY_IN_CASE = frozenset({"if", "where", "when", "whenever", "after", "once", "with", "until", "provided", "in"})


def _limited(cues: Cues) -> bool:
    """A permission limited to one thing, time or person, which restricts everything else:
    "may be used only for fuel", "is permitted only at weekends", "Only the named cardholder may
    use the card"."""
    doc = cues.doc
    for cue in cues.all("permit"):
        for t in doc[max(0, cue.start - 5) : cue.end + 6]:
            if t.lower_ == "only" and t.i + 1 < len(doc) and doc[t.i + 1].lower_ not in _ONLY_IN_CASE:
                return True
    return False


@_read_once
def _stance(cues: Cues) -> str:
    if cues.has("forbid") or cues.has("restrict"):
        return "forbid"
    if cues.has("exempt"):
        return "waive"
    if cues.has("oblige"):
        return "require"
    if cues.has("permit"):
        return "" if _limited(cues) else "allow"
    return ""


_OPPOSED = {frozenset({"forbid", "allow"}), frozenset({"require", "waive"})}


@_read_once
def _stems(cues: Cues) -> set[str]:
    return {base_form(t.text) for t in cues.doc if t.is_alpha and len(t) > 3}


_STANCE_CUES = ("forbid", "restrict", "exempt", "oblige", "permit")
_PREDICATES = frozenset({"allowed", "permitted", "acceptable", "prohibited", "optional", "mandatory", "required"})
_FILLERS = frozenset({"be", "been", "not", "never", "only", "also", "to", "n't", "need", "do", "does", "have"})


@_read_once
def _action(cues: Cues) -> set[str]:
    """The stems of what the stance is about: the words after the modal ("must not take part"), or
    the subject of a predicate ("Private use … is allowed")."""
    doc = cues.doc
    for kind in _STANCE_CUES:
        for cue in cues.all(kind):
            if doc[cue.start].lower_ in _PREDICATES:
                return {base_form(t.text) for t in doc[: cue.start] if t.is_alpha and len(t) > 2 and not t.is_stop}
            words = [t for t in doc[cue.end : cue.end + 6] if t.is_alpha and t.lower_ not in _FILLERS]
            return {base_form(t.text) for t in words[:2]}
    return set()


@_read_once
def _condition(cues: Cues) -> tuple[set[str], bool] | None:
    """An "if …" condition's stems, and whether it is negated ("if you do not hold a clearance")."""
    doc = cues.doc
    for t in doc:
        if t.lower_ in ("if", "unless"):
            clause = [x for x in doc[t.i + 1 : t.i + 12] if x.text not in (",", ".")]
            negated = t.lower_ == "unless" or any(x.lower_ in ("not", "n't", "no") for x in clause)
            return {base_form(x.text) for x in clause if x.is_alpha and len(x) > 3 and not x.is_stop}, negated
    return None


def _complementary(a: Cues, b: Cues) -> bool:
    """Two rules for opposite cases: "if you … hold a clearance" / "if you do not hold a clearance"."""
    ca, cb = _condition(a), _condition(b)
    return bool(ca and cb and ca[1] != cb[1] and ca[0] & cb[0])


def _opens_with_a_case(cues: Cues) -> bool:
    """The sentence opens with the case it covers ("If you received bonus leave …, it …"), after a
    "However," or not."""
    doc = cues.doc
    after_however = len(doc) > 1 and doc[0].lower_ == "however" and doc[1].text == ","
    return opening_clause_end(doc[2:] if after_however else doc, ("if", "unless")) is not None


def _leading_case(text: str) -> set[str]:
    m = _LEADING_CASE.match(text)
    return set(content_terms(m.group(1))) if m else set()


_SUBJECT_END = frozenset(
    "must shall should may can could will would need needs is are was were has have do does cannot".split()
)


@_read_once
def _subject(cues: Cues) -> tuple[str, frozenset[str]]:
    """The head noun of the sentence's subject and its modifiers: "An undergraduate student may …"
    → ("student", {"undergraduate"})."""
    words = []
    for t in cues.doc:
        if t.lower_ in _SUBJECT_END or t.text in (",", ";", ":"):
            break
        if t.is_alpha and not t.is_stop:
            words.append(base_form(t.text))
    if not words:
        return "", frozenset()
    return words[-1], frozenset(words[:-1])


def _different_groups(a: Cues, b: Cues) -> bool:
    """Parallel rules for two groups: the same head, other modifiers ("undergraduate student" /
    "postgraduate student")."""
    (head_a, mods_a), (head_b, mods_b) = _subject(a), _subject(b)
    return bool(head_a) and head_a == head_b and bool(mods_a) and bool(mods_b) and mods_a != mods_b


_DEMONSTRATIVES = frozenset({"this", "these", "that", "those", "such"})


def _other_case(a: Cues, b: Cues) -> bool:
    """One sentence's subject is another case than the rule beside it: "Other sensitive
    information … may be kept …", or a thing named before ("This allowance …") that is not the
    other's subject."""
    for doc in (a.doc, b.doc):
        words = [t.lower_ for t in doc[:3]]
        if "other" in words[:2] and "the" not in words[:1]:
            return True
        if words[:1] and words[0] in _DEMONSTRATIVES and _subject(a)[0] != _subject(b)[0]:
            return True
    return False


def _main_act(cues: Cues) -> str:
    """The stem of the first verb of an act that happens at a time ("acknowledged", "send")."""
    return next((base_form(t.text) for t in cues.doc if is_timed_act(t)), "")


def _different_acts(act_a: str, act_b: str) -> bool:
    """Two time limits for two acts (`_main_act`s: "acknowledged within 5 days" / "send a response
    within 20")."""
    return bool(act_a and act_b and act_a != act_b)


_VALUE_WORDS = (
    frozenset(WORD_NUMBERS)
    | frozenset(_PERIOD_DAYS)
    | frozenset(f"{u}s" for u in _PERIOD_DAYS)
    | frozenset(
        {"hour", "hours", "minute", "minutes", "working", "calendar", "school", "college", "per", "cent", "percent"}
    )
)
_VERB_FORMS = verb_forms(lx.TIMED_VERBS | lx.ORGANISATION_VERBS | lx.READER_VERBS)
_ROMAN = re.compile(r"^[ivx]+$")  # "Stage I" / "Stage II": "i" is no pronoun here


def _is_value_word(word: str) -> bool:
    """A number, a unit or a sign ("7", "seven", "days", "%", "£"): what the values say, not the case."""
    return word in _VALUE_WORDS or any(c.isdigit() for c in word) or not any(c.isalpha() for c in word)


# Words for aligning two sentences: "full-time", "Ph.D" and "14th" stay one word, and "8pm" is a
# number and a word, as `quantities` reads it (`pipeline.language.text.tokens` keeps "8pm" whole,
# which makes "8pm … midnight" / "midnight … 6am" one case, not two).
_ALIGNED_WORD = re.compile(r"[^\W\d_]+(?:[.'’-]\w+)*|\d+(?:[.,:]\d+)*(?:st|nd|rd|th|%)?")


def _aligned_words(text: str, values: list[Quantity]) -> list[str]:
    """The words of `text` for aligning, each value ("every six months", "£250") as one "#"."""
    words, at = [], 0
    for q in sorted(values, key=lambda q: q.start):
        if q.start < at:
            continue
        words += [w.lower() for w in _ALIGNED_WORD.findall(text[at : q.start])] + ["#"]
        at = q.end
    return words + [w.lower() for w in _ALIGNED_WORD.findall(text[at:])]


def _names(words: list[str]) -> set[str]:
    """The words that can name a case ("assignment", "full-time", "II"): not function words, values,
    verbs or adverbs, which two wordings of one rule swap freely ("kept" / "stored", "remotely")."""
    return {
        w
        for w in words
        if (w not in STOP_WORDS or _ROMAN.match(w)) and not _is_value_word(w) and not _is_verb_or_adverb(w)
    }


def _is_verb_or_adverb(word: str) -> bool:
    return word in _VERB_FORMS or word in lx.IRREGULAR_PARTICIPLES or word.endswith(("ed", "ing", "ly"))


def parallel_cases(a: str, b: str, values_a: list[Quantity], values_b: list[Quantity]) -> bool:
    """Two sentences written to one pattern that differ, beside their values, in a word or two that
    names the case ("each assignment … 7 days" / "each quiz … 3 days"; "Phase I … week 15" /
    "Phase II … week 16"; "Level I warrants … $250,000" / "Level II warrants … $5 million"):
    parallel rules for two cases, not one rule stated twice. difflib aligns the words; the pattern
    must cover half of them (a paraphrase that contradicts rarely keeps the other's wording that
    closely). Chosen on the training data: of the sentences flagged for a contradiction it clears
    46 of 449 false and 2 of 177 true ones on the pair data, 3 of 80 false and 1 of 71 true on the
    training part, none on the development parts."""
    words_a, words_b = _aligned_words(a, values_a), _aligned_words(b, values_b)
    match = difflib.SequenceMatcher(a=words_a, b=words_b, autojunk=False)
    if match.ratio() < 0.5:
        return False
    for op, i1, i2, j1, j2 in match.get_opcodes():
        if op != "replace" or i2 - i1 > 2 or j2 - j1 > 2:
            continue
        names_a, names_b = _names(words_a[i1:i2]), _names(words_b[j1:j2])
        if names_a and names_b and names_a != names_b:
            return True
    return False


# A number as the value reader writes it (`NUMBER`: linear on any text, and "3.2.1" is no number).
_NUMBER = rf"(?:{NUMBER}|{_WORD_NUMBER})\b"
_SIGN = r"[^\w\s]?"  # a sign before a number ("£500"), whichever sign a corpus writes
# A number that names the case a rule covers, not what the rule sets: "more than 4 mice", "aged
# 16 or over", "grade 9 and above", "delays of 15 to 29 minutes". "No more than 12 tables" and
# "must not work more than 48 hours" set a limit, so a negation shortly before "more / less than"
# keeps it out (`_NEGATED_THAN`). "One" counts only as a value ("more than one week"), not as a
# word ("under one licence").
_CASE_NUMBER = re.compile(
    rf"\b(?P<than>more|greater|older|longer|fewer|less|younger|shorter)\s+than\s+{_SIGN}(?P<n1>{_NUMBER})"
    rf"|\b(?P<side>under|over|above|below|exceeding|aged)\s+{_SIGN}(?P<n2>{_NUMBER})"
    rf"|(?P<n3>{_NUMBER})\s+(?:[a-z]+\s+)?(?:or|and)\s+(?P<after>more|over|above|older|fewer|less|under|below|younger)\b"
    rf"|\b(?P<low>{_NUMBER})\s*(?:to|-|–)\s*{_SIGN}(?P<high>{_NUMBER})",
    re.I,
)
_DOWNWARD = frozenset({"fewer", "less", "younger", "shorter", "under", "below"})


def _case_number(m: re.Match[str], group: str, read: dict[int, float]) -> float | None:
    """The number of `group`, as the value reader read it where it read one (`read`: position →
    value; "two weeks" = 14 days, as "14 days" is), else as written; None for a bare "one"."""
    if m.start(group) in read:
        return read[m.start(group)]
    if m.group(group).lower() == "one":
        return None
    return _number(m.group(group).replace(",", ""))


def case_numbers(sentence: str, values: list[Quantity]) -> frozenset[CaseNumber]:
    """The numbers of `sentence` (whose `quantities` are `values`) that name the case it covers,
    as the open ranges they cover: "5 or more years" and "more than five years" → (1825, inf),
    "less than 5" → (-inf, 5), "15 to 29 minutes" → (15, 29)."""
    read: dict[int, float] = {}  # each position a value covers → that value, the first one listed
    for q in values:
        if isinstance(q.value, float):
            for at in range(q.start, q.end):
                read.setdefault(at, q.value)
    found = set()
    for m in _CASE_NUMBER.finditer(sentence):
        if m.group("low"):
            low, high = _case_number(m, "low", read), _case_number(m, "high", read)
            if low is not None and high is not None:
                found.add((low, high))
            continue
        if m.group("than") and _negated_limit(sentence, m.start("n1")):
            continue  # "no more than 12 tables", "shall not spend more than 60 minutes": the limit set
        cue = (m.group("than") or m.group("side") or m.group("after")).lower()
        number = _case_number(m, next(g for g in ("n1", "n2", "n3") if m.group(g)), read)
        if number is not None:
            found.add((float("-inf"), number) if cue in _DOWNWARD else (number, float("inf")))
    return frozenset(found)


def _separate_cases(a: frozenset[CaseNumber], b: frozenset[CaseNumber]) -> bool:
    """Both sentences name their cases by number and no case of one overlaps a case of the other:
    "more than £1,000" / "£1,000 or less", "under 11" / "aged 11 to 17"."""
    return bool(a and b) and all(max(low_a, low_b) >= min(high_a, high_b) for low_a, high_a in a for low_b, high_b in b)


def _value_conflict(a: list[Quantity], b: list[Quantity]) -> tuple[Quantity, Quantity] | None:
    """Two different values of one kind for the same case; None when the cases differ or the
    sentences share a value of that kind (then they speak of the same figure)."""
    cases_a = {(q.kind, q.value, q.low, q.high) for q in a if q.condition}
    cases_b = {(q.kind, q.value, q.low, q.high) for q in b if q.condition}
    shared_kinds = {c[0] for c in cases_a} & {c[0] for c in cases_b}
    if any({c for c in cases_a if c[0] == kind} != {c for c in cases_b if c[0] == kind} for kind in shared_kinds):
        return None  # rules for different cases
    rules_a = [q for q in a if not q.condition]
    rules_b = [q for q in b if not q.condition]
    for qa in rules_a:
        same_kind = [qb for qb in rules_b if qb.kind == qa.kind and _same_share(qa, qb)]
        if same_kind and all(qb.value != qa.value for qb in same_kind):
            if not {q.value for q in a if q.kind == qa.kind} & {q.value for q in b if q.kind == qa.kind}:
                return qa, same_kind[0]
    return None


def _overlapping_cases(a: list[Quantity], b: list[Quantity]) -> bool:
    return any(
        qa.condition
        and qb.condition
        and qa.kind == qb.kind
        and max(qa.low, qb.low) < min(qa.high, qb.high)
        and (qa.low, qa.high) != (qb.low, qb.high)
        for qa in a
        for qb in b
    )


def _stance_conflict(a: Cues, b: Cues) -> str:
    if _complementary(a, b):
        return ""
    stances = frozenset({_stance(a), _stance(b)})
    if stances in _OPPOSED and _action(a) & _action(b):
        verb = "forbids" if "forbid" in stances else "requires"
        other = "allows" if "allow" in stances else "waives"
        return f"one {verb} what the other {other}"
    # "must … be accompanied" / "may move around … unaccompanied"
    for first, second in ((a, b), (b, a)):
        if _stance(first) == "require" and _stance(second) == "allow":
            for t in second.doc:
                if t.lower_.startswith("un") and len(t) > 5 and base_form(t.text[2:]) in _stems(first):
                    return f'one requires what the other allows "{t.text}"'
    for neg_a, verb_a in _WILL.findall(a.text):
        for neg_b, verb_b in _WILL.findall(b.text):
            if bool(neg_a) != bool(neg_b) and base_form(verb_a) == base_form(verb_b):
                return f"one says it will be {verb_a.lower()}, the other that it will not"
    return ""


# Rows of the similarity matrix worked out at a time: memory grows with the document's length,
# not with its square (a 10 MB text file holds some 80,000 sentences; their full matrix, 25 GB).
_BLOCK = 256
# The most similar sentences each sentence is compared with (`related_pairs`). The contradictions
# found on every labelled, training and demo text are the same with it as without, and so on the ten
# demo policies joined (973 sentences, where 39 have more related sentences, up to 182), while a
# list of 3,000 alike items gives 384,000 pairs to compare instead of 4.5 million.
CLOSEST = 128


def related_pairs(
    sentences: Sequence[str], embed: Embed | None, floor: float, closest: int = CLOSEST
) -> list[tuple[int, int, float]]:
    """(i, j, similarity) for every pair i < j whose topic similarity is at least `floor` and where
    one of the two is among the other's `closest` most similar sentences, in order of i then j:
    MiniLM cosine with `embed`, else the share of the shorter sentence's content words that the
    other has too.
    Worked out a block of rows at a time, so no n × n matrix is ever held, and at most `closest`
    pairs a sentence are kept, so a document of many alike sentences (a list of 3,000 "- a") gives
    at most n × `closest` pairs to compare, not n²."""
    n = len(sentences)
    if n < 2:
        return []
    kept: dict[tuple[int, int], float] = {}
    if embed is not None:
        vectors = np.asarray(embed(list(sentences)), dtype=np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True) + 1e-9
        for start in range(0, n, _BLOCK):
            block = vectors[start : start + _BLOCK] @ vectors.T
            rows, cols = np.nonzero(block >= floor)  # row by row, each row's columns in order
            other = cols != rows + start
            rows, cols = rows[other], cols[other]
            _keep_closest(kept, rows + start, cols, block[rows, cols], closest)
    else:
        from scipy.sparse import csr_matrix

        terms = [sorted(set(content_terms(s))) for s in sentences]
        vocabulary: dict[str, int] = {}
        columns = [vocabulary.setdefault(t, len(vocabulary)) for ts in terms for t in ts]
        offsets = np.cumsum([0] + [len(ts) for ts in terms])
        words = csr_matrix((np.ones(len(columns)), columns, offsets), shape=(n, max(len(vocabulary), 1)))
        sizes = np.diff(offsets)
        for start in range(0, n, _BLOCK):
            shared = (words[start : start + _BLOCK] @ words.T).tocoo()  # words two sentences share
            other = shared.col != shared.row + start
            rows, cols, counts = shared.row[other] + start, shared.col[other], shared.data[other]
            scores = (counts / np.minimum(sizes[rows], sizes[cols])).astype(np.float32)  # shared / shorter
            close = scores >= floor
            _keep_closest(kept, rows[close], cols[close], scores[close], closest)
    return [(i, j, kept[i, j]) for i, j in sorted(kept)]


def _keep_closest(kept: dict, rows: np.ndarray, cols: np.ndarray, scores: np.ndarray, closest: int) -> None:
    """Into `kept`, keyed (i, j) with i < j: each row's `closest` highest-scoring columns (ties to
    the lower column). Rows come in increasing order; a pair keeps the similarity its lower row
    gave where that row kept it (the product's two halves may differ in the last bit)."""
    order = np.lexsort((cols, -scores, rows))
    rows, cols, scores = rows[order], cols[order], scores[order]
    rank = np.arange(len(rows)) - np.searchsorted(rows, rows, side="left")  # place within its row
    best = rank < closest
    for i, j, score in zip(rows[best].tolist(), cols[best].tolist(), scores[best].tolist(), strict=True):
        if i < j:
            kept[i, j] = score
        else:
            kept.setdefault((j, i), score)


def _named_groups(text: str) -> dict[str, frozenset[str]]:
    """The glossary's named groups `text` mentions, by kind ("grades" → {"Apprentice"}); none
    without a glossary."""
    named: dict[str, set[str]] = {}
    for _, _, kind, name in named_spans(text):
        named.setdefault(kind, set()).add(name)
    return {kind: frozenset(names) for kind, names in named.items()}


def _other_groups(a: dict[str, frozenset[str]], b: dict[str, frozenset[str]]) -> bool:
    """Both name groups of one kind and share none of them: "Apprentice" / "Trainee or Intern"."""
    return any(kind in b and not names & b[kind] for kind, names in a.items())


def contradictions(cues: Sequence[Cues], embed: Embed | None = None) -> list[tuple[int, int, str]]:
    """(i, j, why) for every pair of sentences of one document that contradict, i < j."""
    texts = [c.text for c in cues]
    threshold = SAME_TOPIC["cosine" if embed is not None else "overlap"]
    related = related_pairs(texts, embed, min(threshold.values()))
    # what each sentence says, read once (a sentence stands in many of the pairs below)
    amounts = [quantities(t) for t in texts]
    cases = [_leading_case(t) for t in texts]
    opens = [_opens_with_a_case(c) for c in cues]
    acts = [_main_act(c) for c in cues]
    numbered = [case_numbers(t, v) for t, v in zip(texts, amounts, strict=True)]
    examples = [bool(_WORKED_EXAMPLE.search(t)) for t in texts]
    exceptions = [bool(_LINKED_EXCEPTION.match(t)) for t in texts]
    groups = [_named_groups(t) for t in texts]
    found = []
    for i, j, topic in related:
        if examples[i] or examples[j] or topic < threshold["stance"]:
            continue  # a worked example applies the rules; its figures differ by arithmetic
        if exceptions[j]:
            continue  # "However, …": the stated exception to a rule before it
        if cases[i] and cases[j] and cases[i] != cases[j]:
            continue  # "For theory courses, …" / "For laboratory courses, …": two cases
        if _other_groups(groups[i], groups[j]):
            continue  # "an Apprentice …" / "a Trainee …": rules for two named groups
        if _different_groups(cues[i], cues[j]) or _other_case(cues[i], cues[j]):
            continue
        if opens[i] != opens[j]:
            continue  # "If you received bonus leave, it will not be paid out": the rule's stated exception
        values = None
        # values are compared for one numbered case only: "Every cage is changed once a week" /
        # "Cages housing more than 4 mice are changed twice a week" are a rule and its special case
        if topic >= threshold["values"] and not _different_acts(acts[i], acts[j]) and numbered[i] == numbered[j]:
            values = _value_conflict(amounts[i], amounts[j])
            if values and parallel_cases(texts[i], texts[j], amounts[i], amounts[j]):
                values = None
            # A document counts many parts of a scheme in its own units ("the written test carries 15
            # points" / "the practical test is … of 10 points"): two such counts disagree only where
            # the sentences are one statement, as answers and the library's conflict scan judge it
            if values and counts_corpus_unit(values[0].kind):
                values = values if same_statement(texts[i], texts[j], topic if embed is not None else None) else None
        if values:
            found.append((i, j, f'"{values[0].text}" here, "{values[1].text}" there'))
            continue
        stance = "" if _separate_cases(numbered[i], numbered[j]) else _stance_conflict(cues[i], cues[j])
        stances = {_stance(cues[i]), _stance(cues[j])}
        if (
            not stance
            and _overlapping_cases(amounts[i], amounts[j])
            and stances in ({"allow", "require"}, {"allow", "forbid"})
        ):
            stance = "overlapping cases with different rules"
        if stance:
            found.append((i, j, stance))
    return found
