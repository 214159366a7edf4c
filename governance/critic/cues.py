"""The cues of one sentence: which words make it a rule, an obligation or a prohibition, which are
vague, which set a time, which name a consequence or an owner.

spaCy's rule-based English tokenizer (no trained model: none is on the package registries here)
splits the sentence the same way every time, contractions and hyphens included ("don't" → do +
n't, "case-by-case" → five tokens), and its `Matcher`/`PhraseMatcher` find the lexicon's words and
phrases on lower-cased tokens. What the matchers cannot see (a participle after a form of *be*,
the clause an instruction starts) is read from the token sequence here.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import TypeVar, cast

import spacy
from spacy.language import Language
from spacy.matcher import Matcher, PhraseMatcher
from spacy.tokens import Doc, Span, Token

from governance.critic import lexicon as lx
from pipeline.language.stemming import stem

_T = TypeVar("_T")


@functools.lru_cache(maxsize=1)
def nlp() -> Language:
    """English tokenizer only: `spacy.blank("en")` loads no model and needs no download."""
    return spacy.blank("en")


# The longest stretch without whitespace that spaCy's tokenizer reads whole. It strips a stretch's
# leading and trailing punctuation one character at a time and reads what is left again, so a run
# of 4,000 brackets took 4 s and 100 KB of them most of an hour; no word of a policy is this long.
_LONGEST_STRETCH = 100
_LONG_STRETCH = re.compile(rf"\S{{{_LONGEST_STRETCH + 1},}}")


def tokenize(text: str) -> Doc:
    """`text` cut into tokens by spaCy's English tokenizer, the Doc's text exactly `text`; a stretch
    without whitespace longer than `_LONGEST_STRETCH` characters is cut into pieces of that length
    first, each read on its own."""
    language = nlp()
    if not _LONG_STRETCH.search(text):
        return language.make_doc(text)
    parts, at = [], 0
    for m in _LONG_STRETCH.finditer(text):
        parts.append(text[at : m.start()])
        parts += [m.group(0)[k : k + _LONGEST_STRETCH] for k in range(0, len(m.group(0)), _LONGEST_STRETCH)]
        at = m.end()
    parts.append(text[at:])
    return Doc.from_docs([language.make_doc(part) for part in parts if part], ensure_whitespace=False)


@dataclass
class _Matchers:
    phrases: PhraseMatcher
    patterns: Matcher


@functools.lru_cache(maxsize=1)
def _matchers() -> _Matchers:
    language = nlp()
    phrases = PhraseMatcher(language.vocab, attr="LOWER")
    for name, items in (
        ("vague_phrase", lx.VAGUE_PHRASES),
        ("vague", lx.VAGUE_QUANTITY_PHRASES),
        ("hedge", lx.HEDGES),
        ("vague_time", lx.VAGUE_TIMES),
        ("time", lx.TIME_PHRASES),
    ):
        phrases.add(name, [language.make_doc(item) for item in items])
    patterns = Matcher(language.vocab)
    anything: dict = {}
    patterns.add("vague", [[{"LOWER": {"IN": sorted(lx.VAGUE_WORDS)}}]])
    # "most" as a quantifier ("most office supplies", "most of"), not a superlative ("most economical")
    plural = {"LOWER": {"REGEX": r"^[a-z]+s$"}}
    patterns.add(
        "vague",
        [
            [{"LOWER": "most"}, {"LOWER": "of"}],
            [{"LOWER": "most"}, plural],
            [{"LOWER": "most"}, {"IS_ALPHA": True}, plural],
            [{"LOWER": "most"}, {"LOWER": {"IN": ["people", "staff"]}}],
        ],
    )
    patterns.add(
        "vague_phrase",
        [
            [{"LOWER": {"IN": ["where", "when", "if", "as"]}}, {**anything, "OP": "{0,2}"}, {"LOWER": "necessary"}],
            # "where this can be done": where possible
            [
                {"LOWER": {"IN": ["where", "when", "if"]}},
                {"LOWER": {"IN": ["this", "it", "that"]}},
                {"LOWER": "can"},
                {"LOWER": "be"},
                {"LOWER": "done"},
            ],
        ],
    )
    # discretion left to someone is vague wherever it stands; "at your discretion" is the reader's choice
    patterns.add("hedge", [[{"LOWER": {"NOT_IN": ["your"]}}, {"LOWER": "discretion"}]])
    patterns.add(
        "time",
        [
            [{"LOWER": "by"}, {"LIKE_NUM": True}],
            # "within 30 days", "within a week", "within their first month" (not "within the plan")
            [{"LOWER": "within"}, {"LIKE_NUM": True}],
            [{"LOWER": "within"}, {"LOWER": {"IN": ["a", "an"]}}, {"LOWER": {"IN": sorted(lx.PERIODS | {"hour"})}}],
            [{"LOWER": "within"}, {"IS_ALPHA": True, "OP": "?"}, {"LOWER": {"IN": ["first", "same", "next"]}}],
            [{"LOWER": "by"}, {"LOWER": {"IN": sorted(lx.MONTHS | lx.WEEKDAYS | {"noon", "midnight", "then"})}}],
            [{"LOWER": "on"}, {"LOWER": {"REGEX": "^(" + "|".join(sorted(lx.WEEKDAYS)) + ")s?$"}}],
            [{"LOWER": "on"}, {"LOWER": "the"}, {"LOWER": {"IN": ["first", "last", "same", "next"]}}],
            [{"LOWER": {"IN": ["each", "per", "a", "once", "twice"]}}, {"LOWER": {"IN": sorted(lx.PERIODS)}}],
            # "every 90 days", "every scheduled work day", "every time" (not "every reported incident")
            [
                {"LOWER": "every"},
                {"LIKE_NUM": True, "OP": "?"},
                {"IS_ALPHA": True, "OP": "{0,2}"},
                {"LOWER": {"IN": sorted(lx.PERIODS | {"hour", "hours", "minutes", "time", "other"})}},
            ],
            [{"LIKE_NUM": True}, {"LOWER": {"IN": sorted(lx.PERIODS)}}, {"LOWER": {"IN": ["before", "after", "of"]}}],
            # "by the last working day of …", "in week 1", "on each examination day", "at every meeting"
            [{"LOWER": "by"}, {"LOWER": "the"}, {"LOWER": {"IN": ["first", "last", "next", "close"]}}],
            [
                {"LOWER": {"IN": ["in", "by", "during", "before"]}},
                {"LOWER": {"IN": sorted(lx.PERIODS)}},
                {"LIKE_NUM": True},
            ],
            [
                {"LOWER": {"IN": ["on", "at", "in"]}},
                {"LOWER": {"IN": ["each", "every"]}},
                {"IS_ALPHA": True, "OP": "{0,2}"},
                {"LOWER": {"IN": sorted(lx.PERIODS | lx.OCCASIONS)}},
            ],
        ],
    )
    return _Matchers(phrases, patterns)


@dataclass(frozen=True)
class Cue:
    kind: str
    text: str
    start: int  # token index
    end: int


@dataclass
class Cues:
    """The cues found in one sentence, by kind, in order."""

    text: str
    doc: Doc
    found: dict[str, list[Cue]] = field(default_factory=dict)

    def add(self, kind: str, start: int, end: int) -> None:
        self.found.setdefault(kind, []).append(Cue(kind, self.doc[start:end].text, start, end))

    def has(self, kind: str) -> bool:
        return bool(self.found.get(kind))

    def all(self, kind: str) -> list[Cue]:
        return self.found.get(kind, [])

    def first(self, kind: str) -> str:
        return self.found[kind][0].text if self.found.get(kind) else ""


def base_form(word: str) -> str:
    """The stem a verb form is compared by: "approved" → "approv", "told" → "tell"."""
    word = word.lower()
    return stem(lx.IRREGULAR_PARTICIPLES.get(word, word))


def verb_forms(verbs: frozenset[str]) -> frozenset[str]:
    """A verb's written forms: base, -s, -ed, -ing (regular spelling) and the irregular participles."""
    forms = set()
    for verb in verbs:
        forms |= {verb, verb + "s", verb + "es", verb + "ed", verb + "d", verb + "ing"}
        if verb.endswith("e"):
            forms |= {verb[:-1] + "ing", verb[:-1] + "ed"}
        if verb.endswith("y"):
            forms |= {verb[:-1] + "ies", verb[:-1] + "ied"}
        if len(verb) > 2 and verb[-1] in "tgpdlr" and verb[-2] in "aeiou" and verb[-3] not in "aeiou":
            forms |= {verb + verb[-1] + "ed", verb + verb[-1] + "ing"}  # submitted, logging
    forms |= {p for p, base in lx.IRREGULAR_PARTICIPLES.items() if base in verbs}
    return frozenset(forms)


_ORGANISATION_FORMS = verb_forms(lx.ORGANISATION_VERBS)
_TIMED_FORMS = verb_forms(lx.TIMED_VERBS)
_PHRASAL_TIMED_FORMS = verb_forms(frozenset({"follow", "top"}))  # only with "up"
_HANDING_FORMS = verb_forms(frozenset({"provide", "pass"}))  # only with a recipient


def is_participle(token: Token) -> bool:
    low = token.lower_
    return low in lx.IRREGULAR_PARTICIPLES or (len(low) > 3 and low.endswith(("ed", "en")))


def is_organisation_act(token: Token) -> bool:
    """A form of a verb the organisation does ("reviewed"; "carried" only in "carried out")."""
    low = token.lower_
    if low in ("carried", "carry") and token.i + 1 < len(token.doc) and token.doc[token.i + 1].lower_ == "out":
        return True
    return low in _ORGANISATION_FORMS


def is_timed_act(token: Token) -> bool:
    """A form of a verb whose act happens at a time ("submit", "notified", "follow up", "topped
    up", "provide / pass … to someone"); nouns ("approval") are not."""
    doc, low = token.doc, token.lower_
    if low in _PHRASAL_TIMED_FORMS:
        return token.i + 1 < len(doc) and doc[token.i + 1].lower_ == "up"
    if low in _HANDING_FORMS:
        # "provide their recommendation to the panel" hands something over; "provide a laptop" supplies
        for t in doc[token.i + 1 : token.i + 9]:
            if t.text in (",", ";", "."):
                break
            if t.lower_ == "to":
                return True
        return False
    return low in _TIMED_FORMS


def _negated_after(doc: Doc, i: int) -> bool:
    """A modal at `i` is negated: "must not", "should NOT", "must never", "can't", "may also not"."""
    following = [t.lower_ for t in doc[i + 1 : i + 3]]
    return bool(following) and (
        following[0] in ("not", "never", "n't") or following[:2] in (["also", "not"], ["only", "not"])
    )


def _negated_before(doc: Doc, i: int) -> bool:
    return any(t.lower_ in ("not", "n't", "never") for t in doc[max(0, i - 2) : i])


def opening_clause_end(tokens: Doc | Span, openers: Collection[str]) -> int | None:
    """The index of the comma that ends the subordinate clause `tokens` open with, when one of
    `openers` opens it ("If you detect …, do not …"); else None."""
    if not len(tokens) or tokens[0].lower_ not in openers:
        return None
    return next((t.i for t in tokens if t.text == ","), None)


def clause_starts(doc: Doc) -> list[int]:
    """Where an instruction may start: the sentence's start, after "Please", after a leading
    subordinate clause's comma ("If you detect …, do not …"), and after a semicolon, a colon or a
    dash ("be mindful of budget -- do not exceed …")."""
    starts = [0]
    comma = opening_clause_end(doc, lx.LEADING_WORDS)
    if comma is not None:
        starts.append(comma + 1)
    starts += [t.i + 1 for t in doc if t.text in (";", ":", "—", "–") or (t.text.endswith("--") and t.i)]
    out = []
    for start in starts:
        while start < len(doc) and doc[start].lower_ in ("please", "then", "also", "just", "so", "and", ","):
            start += 1
        if start < len(doc):
            out.append(start)
    return out


def kept_on(doc: Doc, key: tuple, make: Callable[[], _T]) -> _T:
    """`make()` for `doc`, worked out the first time `key` is asked and kept in the doc's
    `user_data` (spaCy keys its own entries there by tuples too): for what a rule reads of a
    sentence many times over, once per token or once per pair of sentences."""
    kept = cast("dict[tuple, _T]", doc.user_data)
    if key not in kept:
        kept[key] = make()
    return kept[key]


def clause_opener(doc: Doc, i: int, openers: tuple[str, ...], stops: frozenset[str] = frozenset()) -> str:
    """The word of `openers` ("if", "when" …) that opens the clause token `i` (0 to len(doc))
    stands in, or "": read back from `i` to a comma, semicolon or colon, or to a word of `stops`.

    The answer for every token is worked out in one pass (`_clause_openers`) and kept on the doc:
    reading back afresh for each token took time growing with the square of the sentence's length
    (a minute for a 20,000-character sentence without commas)."""
    table = kept_on(doc, ("clause_opener", openers, stops), lambda: _clause_openers(doc, openers, stops))
    return table[min(max(i, 0), len(doc))]


def _clause_openers(doc: Doc, openers: tuple[str, ...], stops: frozenset[str]) -> list[str]:
    """`clause_opener` for every position 0 to len(doc), in one pass."""
    table = [""]
    for t in doc:
        if t.text in (",", ";", ":") or t.lower_ in stops:
            table.append("")
        elif t.lower_ in openers:
            table.append(t.lower_)
        else:
            table.append(table[-1])
    return table


def in_case(doc: Doc, i: int, openers: tuple[str, ...]) -> bool:
    """Token `i` stands in a relative clause ("who must travel") or in a clause that one of
    `openers` opens ("if you need to"): it describes a case, it requires nothing."""
    if i and doc[i - 1].lower_ in ("who", "that", "which"):
        return True
    return bool(clause_opener(doc, i, openers))


_NOT_A_VERB = frozenset(
    "the a an your their his her its our this that these those each every all any which whom".split()
)


def is_be_to(doc: Doc, i: int) -> bool:
    """Token `i` starts a duty stated with *be to* ("Managers are to record …", "is to be
    arranged"), not a purpose ("The aim of this policy is to …", "The review is to confirm …") or
    a place ("is to the left")."""
    if doc[i].lower_ not in ("is", "are", "am", "'re", "'m") or i + 2 >= len(doc) or doc[i + 1].lower_ != "to":
        return False
    verb = doc[i + 2]
    if not verb.is_alpha or verb.lower_ in _NOT_A_VERB or verb.like_num:
        return False
    if any(t.lower_ in ("what", "how", "where") for t in doc[max(0, i - 2) : i]):
        return False  # "what is to be done"
    # the words before it: where the first purpose noun and the first act noun stand, read once a doc
    first_purpose, first_act = kept_on(doc, ("be_to_subject",), lambda: _first_purpose_and_act(doc))
    if first_purpose < i:
        return False
    # "The review is to confirm that …": what the review is for; "The review is to be held …" is a duty
    return verb.lower_ == "be" or not first_act < i


def _first_purpose_and_act(doc: Doc) -> tuple[int, int]:
    """The positions of the first of `lx.PURPOSE_NOUNS` and of `lx.ACT_NOUNS` in `doc` (its length
    where there is none): one pass, so `is_be_to` asks of every token in linear time."""
    end = len(doc)
    purpose = next((t.i for t in doc if t.lower_ in lx.PURPOSE_NOUNS), end)
    act = next((t.i for t in doc if t.lower_ in lx.ACT_NOUNS), end)
    return purpose, act


def _deontic(cues: Cues) -> None:
    doc = cues.doc
    for token in doc:
        low, i = token.lower_, token.i
        if clause_opener(doc, i, ("because",)):
            continue  # "… because you may be responsible for the fee": a reason, not a rule
        if low in ("must", "shall", "should", "need", "needs", "have", "has", "required", "needed") and (
            in_case(doc, i, lx.CONDITION_OPENERS) or any(t.lower_ in ("what", "how") for t in doc[max(0, i - 3) : i])
        ):
            continue  # "if you need to …", "explains what employees need to do": a case or a description
        nxt = doc[i + 1].lower_ if i + 1 < len(doc) else ""
        if is_be_to(doc, i) and not in_case(doc, i, lx.CONDITION_OPENERS):
            cues.add("oblige", i, i + 2)
        elif low in ("duty", "duties") and i and doc[i - 1].lower_ in ("the", "a", "their", "its", "'s", "his", "her"):
            # "It is the duty of the line manager to hold …", "has a duty to report …"
            if any(t.lower_ == "to" for t in doc[i + 1 : i + 8]) and not in_case(doc, i, lx.CONDITION_OPENERS):
                cues.add("oblige", i, i + 1)
        elif low in ("must", "shall", "should", "ought"):
            if _negated_after(doc, i):
                cues.add("forbid", i, min(len(doc), i + 2))
            elif nxt == "only" or (i + 2 < len(doc) and doc[i + 2].lower_ == "only"):
                cues.add("restrict", i, i + 1)
            else:
                cues.add("oblige", i, i + 1)
        elif low in ("may", "can", "could"):
            tail = [t.lower_ for t in doc[i + 1 : i + 4]]
            if _negated_after(doc, i):
                rest = tail[1:] if tail[:1] in (["not"], ["n't"], ["never"]) else tail[2:]
                if rest[:1] == ["be"] and len(doc) > i + 3 and is_participle(doc[i + 3]):
                    cues.add("forbid", i, i + 4)  # "cannot be connected", "may not be used"
            elif tail[:2] == ["only", "be"] and len(doc) > i + 3 and is_participle(doc[i + 3]):
                cues.add("restrict", i, i + 4)  # "can only be created by …": a restriction on an act
            else:
                cues.add("permit", i, i + 1)
        elif low in ("need", "needs"):
            if _negated_before(doc, i) or nxt == "not":
                cues.add("exempt", i, i + 1)
            elif i and doc[i - 1].lower_ in ("that", "which"):
                pass  # "a machine that needs to match …" describes, requires nothing
            elif nxt == "to" or (nxt and nxt not in ("for", "it", "them", "this", "that", "and", "or", ".", ",")):
                if i == 0 or doc[i - 1].lower_ not in ("who", "they", "what", "you", "we", "i") or nxt == "to":
                    cues.add("oblige", i, i + 1)
        elif low in ("have", "has") and nxt == "to":
            cues.add("exempt" if _negated_before(doc, i) else "oblige", i, i + 2)
        elif (
            low in ("required", "needed") and i > 0 and (doc[i - 1].lower_ in lx.BE_FORMS or doc[i - 1].lower_ == "not")
        ):
            nothing = _negated_before(doc, i) or any(t.lower_ == "no" for t in doc[max(0, i - 5) : i])
            cues.add("exempt" if nothing else "oblige", i, i + 1)  # "no further action is needed"
        elif low in ("require", "requires") or (low == "mandatory" and not (nxt[:1].isalpha() and nxt != "for")):
            cues.add("oblige", i, i + 1)  # "is mandatory (for …)", not "the mandatory training"
        elif low in ("optional", "exempt"):
            cues.add("exempt", i, i + 1)
        elif (
            low == "responsible"
            and i > 1
            and doc[i - 1].lower_ == "be"
            and doc[i - 2].lower_ in ("may", "might", "could")
        ):
            pass  # "you may be responsible for paying the fee": a liability, not a duty
        elif low == "responsibility" or (low == "responsible" and nxt == "for"):
            owned = {t.lower_ for t in doc[i + 1 : i + 4]}
            if not (owned & {"this", "these"} and owned & {"policy", "standard", "procedure", "code"}):
                cues.add("oblige", i, i + 1)  # "is responsible for this policy" owns it, requires nothing
        elif low == "expected" and nxt in ("to", "that") and i > 0 and doc[i - 1].lower_ in lx.BE_FORMS:
            cues.add("oblige", i, i + 2)  # "you're expected to …", "It is expected that you …"
        elif low == "expectation" and nxt in lx.BE_FORMS and i + 2 < len(doc) and doc[i + 2].lower_ in ("to", "that"):
            cues.add("oblige", i, i + 3)  # "the expectation is to bill at least 32 hours"
        elif low in ("critical", "crucial", "essential", "vital", "imperative") and nxt == "that":
            cues.add("oblige", i, i + 2)
        elif (low in ("prohibited", "forbidden", "banned") and i and doc[i - 1].lower_ in lx.BE_FORMS | {"not"}) or (
            low in ("permitted", "allowed") and _negated_before(doc, i)
        ):
            cues.add("forbid", i, i + 1)
        elif low in ("permitted", "allowed", "entitled", "eligible", "acceptable", "reimbursable", "okay"):
            cues.add("permit", i, i + 1)
    # "No more than two members may …", "No gift may …"
    if len(doc) > 1 and doc[0].lower_ == "no" and any(t.lower_ in ("may", "can", "shall") for t in doc[:12]):
        cues.add("forbid", 0, 1)
    # "only approved smartphones … can be connected": a restriction on a passive act
    for token in doc:
        if token.lower_ == "only":
            for t in doc[token.i + 1 : token.i + 8]:
                if t.lower_ in ("can", "may") and t.i + 2 < len(doc) and doc[t.i + 1].lower_ == "be":
                    if is_participle(doc[t.i + 2]):
                        cues.add("forbid", token.i, t.i + 3)
                    break


def _instructions(cues: Cues) -> None:
    doc = cues.doc
    if re.search(lx.POINTER, cues.text, re.I):
        return  # "Contact your Timekeeper if you have questions": help offered, nothing required
    starts = clause_starts(doc)
    if starts and doc[starts[0]].lower_ in lx.IMPERATIVE_VERBS:
        # "Keep … tidy and don't leave food out": a prohibition coordinated with an instruction
        starts += [t.i + 1 for t in doc[:-2] if t.lower_ in ("and", "but") and doc[t.i + 1].lower_ in ("do", "never")]
    for start in starts:
        first = doc[start].lower_
        nxt = doc[start + 1].lower_ if start + 1 < len(doc) else ""
        after = doc[start + 2].lower_ if start + 2 < len(doc) else ""
        if first == "avoid":
            cues.add("forbid", start, start + 1)  # "Avoid making …" forbids what follows
        elif (first in ("do", "did") and nxt in ("not", "n't")) or first == "never":
            verb = after if first != "never" else nxt
            if verb not in lx.NOT_PROHIBITIONS:
                cues.add("forbid", start, min(len(doc), start + 3))
        elif first == "only" and nxt in lx.IMPERATIVE_VERBS:
            cues.add("forbid", start, start + 2)
        elif first in lx.IMPERATIVE_VERBS and nxt not in ("of", "with", "is", "are", "was", "by", "for", "to"):
            if not (start > 0 and doc[start - 1].lower_ in ("to",)):
                cues.add("imperative", start, start + 1)


def _passives(cues: Cues) -> None:
    """`be` + participle, adverbs between allowed: "must be recorded", "will then be recorded"."""
    doc = cues.doc
    for token in doc:
        if token.lower_ not in lx.BE_FORMS:
            continue
        j = token.i + 1
        while j < len(doc) and doc[j].lower_.endswith("ly") and not is_participle(doc[j]):
            j += 1
        if j < len(doc) and is_participle(doc[j]):
            cues.add("passive", token.i, j + 1)


def read_cues(sentence: str) -> Cues:
    """Every cue of one sentence."""
    # A typographic apostrophe reads as a plain one ("don’t" → do + n't), one character for one,
    # so the cues' positions in the sentence do not move.
    doc = tokenize(sentence.replace("’", "'"))
    cues = Cues(sentence, doc)
    matchers = _matchers()
    vocab = nlp().vocab.strings
    for match_id, start, end in [*matchers.phrases(doc), *matchers.patterns(doc)]:
        cues.add(vocab[match_id], start, end)
    # "no matter how many hours": a question word, not a vague quantity
    cues.found["vague"] = [c for c in cues.all("vague") if not (c.start and doc[c.start - 1].lower_ == "how")]
    # "etc." in running text, not in a parenthesis of examples (brackets counted as the tokens pass,
    # so a sentence of many "etc." is read in one pass)
    opened = closed = 0
    for token in doc:
        if token.lower_ in ("etc", "etc.") and opened <= closed:
            cues.add("vague", token.i, token.i + 1)
        opened, closed = opened + token.text.count("("), closed + token.text.count(")")
    # "as soon as you're aware" is a moment; "as soon as possible" is not
    for cue in cues.all("vague_time"):
        if cue.text.lower().startswith("as soon"):
            cues.found["time"] = [c for c in cues.all("time") if not (cue.start <= c.start < cue.end)]
    for token in doc:
        if token.lower_ == "soon" and token.i >= 1 and doc[token.i - 1].lower_ == "as" and not cues.has("vague_time"):
            cues.add("time", token.i - 1, token.i + 1)
    _deontic(cues)
    _instructions(cues)
    _passives(cues)
    low = sentence.lower()
    for pattern in lx.CONSEQUENCE_PATTERNS:
        for m in re.finditer(pattern, low):
            cues.found.setdefault("consequence", []).append(Cue("consequence", sentence[m.start() : m.end()], -1, -1))
    if (
        (cues.has("consequence") or re.search(lx.ENFORCEMENT, low))
        and re.search(lx.WHOLE_DOCUMENT, low)
        and re.search(lx.BREACH, low)
    ):
        cues.add("enforcement", 0, len(doc))
    deferral = re.search(lx.DEFERRAL, low)
    if deferral:
        cues.found["deferral"] = [Cue("deferral", sentence[deferral.start() : deferral.end()], -1, -1)]
    if any(t.lower_ in lx.NORMATIVE_WORDS for t in doc) or any(
        cues.has(kind) for kind in ("oblige", "forbid", "restrict", "imperative")
    ):
        cues.add("normative", 0, 0)
    return cues
