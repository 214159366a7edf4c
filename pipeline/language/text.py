"""Lexical helpers shared by the support score, the synthesiser and the verifier.

Deliberately simple and deterministic: lower-cased word tokens, a small stop list, the Snowball
English stemmer (pipeline.language.stemming), and number/quantity extraction that keeps the unit ("$500", "7 days", "week 2",
"40%") because units are what make two numbers comparable.

Everything that belongs to one organisation's corpus — its synonyms, its too-common words, the
names of its programmes and roles, how it writes money — comes from the active glossary
(pipeline.language.glossary); the tables built from it here are rebuilt when another glossary comes
into use.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass

from pipeline.language import glossary as _glossary
from pipeline.language.stemming import stem

# A word is letters and digits of any script ("règle", "Zürich"), joined by inner dots or hyphens.
_WORD = re.compile(r"[^\W_]+(?:[.\-][^\W_]+)*")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\"'])")
# English abbreviations whose full stop does not end a sentence; a glossary adds its own ("Dept").
_ABBREVIATIONS = ("Dr", "Mr", "Ms", "Mrs", "Prof", "No", r"e\.g", r"i\.e", "etc", "vs", "St", "Sec")
# An initialism ("U.S.", "U.K."): its full stop ends the sentence only when the next word is one
# that opens sentences (a function word: "… in the U.S. The office …"), not a name or noun
# ("the U.S. Government").
_INITIALISM_END = re.compile(r"(?:\b[A-Z]\.){2,}$")

STOPWORDS = frozenset(
    """a about above after again against all also am an and any are as at be because been before
    being below between both but by can could did do does doing done during each either else
    ever every few for from further get gets getting got had has have having he her here hers him
    his how i if in into is it its itself just let like may me might more most much must my myself
    need needs no nor not now of off on once only or other our ours out over own per please same
    shall she should so some such than that the their theirs them then there these they this those
    through to too under until up upon us very via was we were what when where which while who whom
    whose why will with within without would yes yet you your yours yourself tell know want wanted
    anyone someone something thing things able allowed kindly hi hello hey dear regarding say says
    said one ones many lot lots really actually currently exactly happen happens happened go goes
    going went gone long soon quickly still another chance instead different good bad see find
    finds found come comes put puts give gives given keep kept happen end ends ended way ways
    anything everything nothing kind sort bit also already even much""".split()
)

# Words any policy corpus uses too often to tell its sections apart; a glossary adds its own.
_GENERIC_WORDS = ("policy", "policies", "rule", "rules", "section")
# General English words that ask about money; a glossary adds its own and its currency words.
MONEY_WORDS = frozenset(
    "fee fees cost costs charge charges charged pay paid payment payments stipend stipends "
    "price money remuneration honorarium".split()
)
_MONEY_NOUNS = ("fee", "stipend", "honorarium", "remuneration", "money")
# Every currency sign Unicode knows ($, €, £, ¥, ₹, …: category Sc): a sign says "money" in any
# corpus. Currency words and abbreviations ("Rs.", "EUR", "euros") come from the glossary.
_CURRENCY_SIGNS = tuple(c for c in map(chr, range(0x20, 0x20D0)) if unicodedata.category(c) == "Sc")

_NEGATIONS = frozenset({"not", "no", "never", "cannot", "can't", "nor", "without", "neither", "none"})


def normalise_text(text: str) -> str:
    """NFKC, straight quotes and dashes, unified whitespace; keeps line structure."""
    text = unicodedata.normalize("NFKC", text)
    text = (
        text.replace("\u2018", "'")
        .replace("\u2019", "'")
        .replace("\u201c", '"')
        .replace("\u201d", '"')
        .replace("\u2013", "-")
        .replace("\u2014", " - ")
        .replace("\u00a0", " ")
    )
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = re.sub(r"[ \t]+", " ", text)
    text = "".join(ch for ch in text if ch == "\n" or ch == "\t" or unicodedata.category(ch)[0] != "C")
    return re.sub(r"\n{3,}", "\n\n", text).strip()


# English contractions: "n't" is a negation ("hasn't" -> "has not"); the other clitics ("I've",
# "I'll", "you're", "it's", "we'd", "I'm") add nothing a policy could contain. Without this the
# counted as words the evidence lacked. Apostrophes are straightened first (normalise_text's rule).
_NOT_CLITIC = re.compile(r"\b([a-z]+)n't\b")  # "hasn't" -> "has"; "can't" -> "ca"
_IRREGULAR_NOT = {"ca": "can", "wo": "will", "sha": "shall"}
_OTHER_CLITIC = re.compile(r"(?<=[a-z])'(?:ve|ll|re|d|s|m)\b")


def _expand_contractions(low: str) -> str:
    low = low.replace("\u2019", "'").replace("\u2018", "'")
    if "'" not in low:
        return low
    low = _NOT_CLITIC.sub(lambda m: f"{_IRREGULAR_NOT.get(m.group(1), m.group(1))} not", low)
    return _OTHER_CLITIC.sub("", low)


def tokens(text: str) -> list[str]:
    return _WORD.findall(_expand_contractions(text.lower()))


# "Section 5.1" is a pointer to another part of a policy, not a section of a course, which is what
# someone asking about "a section" means. Offices named in the glossary ("the Academic Section")
# are read as one word of their own, so their words do not count as the words they are made of.
_SECTION_POINTER = re.compile(r"\bsections?\s+\d+(?:\.\d+)*", re.IGNORECASE)


def _without_section_names(text: str) -> str:
    text = _SECTION_POINTER.sub(" ", text)
    offices = _lexicon().offices
    return offices.sub(lambda m: "office-" + slugify(m.group(0)), text) if offices else text


def is_number(term: str) -> bool:
    """A token that is a number ("3", "7.5"): a count or amount, not a word the evidence must share."""
    return term.replace(".", "").isdigit()


def _content_words(text: str) -> list[str]:
    """The tokens that carry meaning (no stop words, no one-letter tokens), in order, unstemmed."""
    return [tok for tok in tokens(text) if tok not in STOPWORDS and len(tok) >= 2]


def content_terms(text: str) -> list[str]:
    """Stemmed tokens that carry meaning (no stop words, no one-letter tokens), in order."""
    return [stem(tok) for tok in _content_words(_without_section_names(text))]


def term_set(text: str) -> set[str]:
    return set(content_terms(text))


# -- the active glossary, compiled -------------------------------------------------------------

# A number as amounts are written ("1,500", "2.5"), in linear time on any text: it starts only
# where no number it could extend ends (not after a digit, nor after "digit,"), and its parts are
# possessive, so a long run of digits is read once instead of once from every digit (a pasted
# "1212…" stalled the server for a minute; issue 27). `AMOUNT` is the same, in group `num`.
_NOT_AFTER_A_NUMBER = r"(?<!\d)(?<!\d,)"
_DIGITS = r"\d++(?:,\d++)*+(?:\.\d++)?+"
NUMBER = _NOT_AFTER_A_NUMBER + _DIGITS
AMOUNT = rf"{_NOT_AFTER_A_NUMBER}(?P<num>{_DIGITS})"

# General English units after a number; a corpus's own ("3 credits", "2 semesters") come from its
# glossary's count_units and time_units.
_UNIT_WORDS = r"days?|weeks?|months?|years?|hours?|members?|pages?|words?|attempts?|times"


def _units(glossary: _glossary.Glossary) -> str:
    own = [re.escape(word) + "s?" for word in (*glossary.count_units, *glossary.time_units)]
    words = "|".join((_UNIT_WORDS, *own))
    return rf"%|percent|per cent|(?:calendar |working |instructional )?(?:{words})"


def _unit_kind(unit: str) -> str:
    """The kind a quantity is filed under: its unit's last word, singular ("working days" → "day")."""
    kind = unit.split()[-1].rstrip("s")
    return "pct" if kind in ("%", "percent", "cent") else kind


def _alias_pattern(alias: str) -> str:
    """An alias as a regex: a dot may be left out or followed by a space ("m.sc", "msc", "m. sc")."""
    parts = [re.escape(p) for p in alias.rstrip(".").split(".")]
    return r"\.?\s?".join(parts).replace(r"\ ", r"\s+") + (r"\.?" if alias.endswith(".") else "")


def _name_alias_pattern(name: str, alias: str) -> str:
    """An alias of a named group as a regex, in any case, except the name itself where it is an
    acronym that is also an everyday English word ("IT", "ME", "US" beside "it", "me", "us"): that
    one matches only as written. Everyday means Zipf ≥ 5 in wordfreq's English list."""
    from pipeline.language.word_rarity import zipf

    if alias == name.lower() and name.isupper() and name.isalpha() and zipf(alias) >= 5.0:
        return f"(?-i:{_alias_pattern(name)})"
    return _alias_pattern(alias)


@dataclass(frozen=True)
class _Lexicon:
    """Tables built from one glossary: stems, patterns and sets that the functions below read."""

    synonyms: dict[str, str]  # stem of a variant → stem of its canonical word
    generic: frozenset[str]  # canonical terms
    currency_terms: frozenset[str]  # canonical terms of alphabetic currency words ("eur", "euro")
    currency_after: frozenset[str]  # currency words that may follow the amount ("500 euros")
    money_words: frozenset[str]  # surface words that ask about money
    money_terms: frozenset[str]  # canonical terms that show evidence speaks of money
    number: re.Pattern[str]
    abbreviation_end: re.Pattern[str]
    # how many of a sentence's last characters the end patterns read: the longest abbreviation and
    # its stop (or two initials, "S.A."), and the character before it for the word boundary
    end_reach: int
    named: dict[str, dict[str, re.Pattern[str]]]  # kind → name → pattern of its aliases
    offices: re.Pattern[str] | None  # the glossary's office names, or None
    money: tuple[re.Pattern[str], ...]  # an amount of money with its currency before or after it
    unit_kinds: dict[str, frozenset[str]]  # "count"/"time" → the glossary's units, as quantities() files them


def _plain_terms(text: str) -> list[str]:
    """content_terms without the glossary's office names: what the lexicon itself is built from."""
    return [stem(tok) for tok in _content_words(_SECTION_POINTER.sub(" ", text))]


def _build_lexicon(glossary: _glossary.Glossary) -> _Lexicon:
    synonyms = glossary.synonym_stems()

    def canonical(word: str) -> set[str]:
        return {synonyms.get(t, t) for t in _plain_terms(word)}

    currency_words = [c.lower() for c in glossary.currency if c.replace(".", "").isalpha()]
    currency = sorted({c.lower() for c in (*_CURRENCY_SIGNS, *glossary.currency)}, key=len, reverse=True)
    prefix = "|".join(re.escape(c) for c in currency)
    suffix = "|".join(re.escape(c) for c in sorted(currency_words, key=len, reverse=True))
    units = _units(glossary)
    unit = f"{suffix}|{units}" if suffix else units
    number = re.compile(
        rf"(?P<cur>(?:{prefix})\.?\s*)?(?P<num>\d+(?:,\d{{3}})*(?:\.\d+)?)\s*(?P<unit>{unit})?", re.IGNORECASE
    )
    money = (re.compile(rf"(?:{prefix})\.?\s*+{AMOUNT}", re.IGNORECASE),) + (
        (re.compile(rf"{AMOUNT}\s*+(?:{suffix})\b", re.IGNORECASE),) if suffix else ()
    )
    abbreviated = (*_ABBREVIATIONS, *(re.escape(a.rstrip(".")) for a in glossary.abbreviations))
    abbreviations = "|".join(abbreviated)
    named = {
        kind: {
            name: re.compile(
                r"(?<!\w)(?:" + "|".join(_name_alias_pattern(name, a) for a in aliases) + r")s?(?!\w)", re.I
            )
            for name, aliases in names.items()
        }
        for kind, names in glossary.named_groups.items()
    }
    currency_terms = set().union(*(canonical(c) for c in currency_words)) if currency_words else set()
    money_terms = set().union(*(canonical(w) for w in (*_MONEY_NOUNS, *glossary.money_words)))
    return _Lexicon(
        synonyms=synonyms,
        generic=frozenset(set().union(*(canonical(w) for w in (*_GENERIC_WORDS, *glossary.generic_terms)))),
        currency_terms=frozenset(currency_terms),
        currency_after=frozenset(currency_words),
        money_words=MONEY_WORDS | frozenset(glossary.money_words) | frozenset(currency_words),
        money_terms=frozenset(money_terms | currency_terms),
        number=number,
        abbreviation_end=re.compile(rf"\b(?:{abbreviations})\.$"),
        end_reach=2 + max(4, *(len(a.replace("\\", "")) for a in abbreviated)),
        named=named,
        money=money,
        unit_kinds={
            "count": frozenset(map(_unit_kind, glossary.count_units)),
            "time": frozenset(map(_unit_kind, glossary.time_units)),
        },
        offices=re.compile(r"(?<!\w)(?:" + "|".join(_alias_pattern(o) for o in glossary.offices) + r")(?!\w)", re.I)
        if glossary.offices
        else None,
    )


@functools.lru_cache(maxsize=1)
def _lexicon() -> _Lexicon:
    return _build_lexicon(_glossary.active())


_glossary.on_change(_lexicon.cache_clear)


def is_generic(term: str) -> bool:
    """A canonical term too common in the corpus to say what is being asked ("policy", "student")."""
    return term in _lexicon().generic


def is_currency(term: str) -> bool:
    """A canonical term that only says an amount is money ("eur" in "EUR 500")."""
    return term in _lexicon().currency_terms


def corpus_unit_kinds(kind: str) -> frozenset[str]:
    """The glossary's "count" or "time" units, filed as quantities() files them ("credit")."""
    return _lexicon().unit_kinds.get(kind, frozenset())


def money_words() -> frozenset[str]:
    """Words (as written) that make a question ask about money."""
    return _lexicon().money_words


def money_patterns() -> tuple[re.Pattern[str], ...]:
    """Regexes for an amount of money as the corpus writes it ("$40", "Rs. 500", "40 euros"); each
    has the number in its group `num`."""
    return _lexicon().money


def money_terms() -> frozenset[str]:
    """Canonical terms that show a text speaks of money (fee, stipend, the corpus's currency words)."""
    return _lexicon().money_terms


def named_in(text: str, kind: str | None = None) -> frozenset[str]:
    """The glossary's named groups (of `kind`, or of every kind) that `text` mentions."""
    groups = _lexicon().named
    kinds = [kind] if kind is not None else list(groups)
    return frozenset(name for k in kinds for name, pattern in groups.get(k, {}).items() if pattern.search(text))


def named_spans(text: str) -> list[tuple[int, int, str, str]]:
    """Every mention of one of the glossary's named groups in `text`: (start, end, kind, name), in order."""
    return sorted(
        (m.start(), m.end(), kind, name)
        for kind, names in _lexicon().named.items()
        for name, pattern in names.items()
        for m in pattern.finditer(text)
    )


def first_named(text: str, kind: str) -> tuple[str, str] | None:
    """(name, the words as written) of the first group of `kind` that `text` mentions, or None."""
    found = [
        (m.start(), name, m.group(0))
        for name, pattern in _lexicon().named.get(kind, {}).items()
        for m in [pattern.search(text)]
        if m
    ]
    if not found:
        return None
    _, name, written = min(found)
    return name, written


_WEEK_NUMBER = re.compile(r"\bweeks?\s+(\d+)(?:\s*(?:-|to|and)\s*(\d+))?", re.IGNORECASE)


def quantities(text: str) -> set[str]:
    """Numbers with their kind, e.g. {"money:500", "pct:40", "day:7", "week#:2"}; bare numbers as "n:5"."""
    return {quantity for _, _, quantity in quantity_spans(text)}


def quantity_spans(text: str) -> list[tuple[int, int, str]]:
    """Where `quantities` finds each quantity: (start, end, "kind:value"), in order of the text
    ("week 2" is both "week#:2" over the whole phrase and "n:2" over the number)."""
    found: list[tuple[int, int, str]] = []
    low = text.lower()
    lexicon = _lexicon()
    for m in _WEEK_NUMBER.finditer(low):
        found.append((m.start(), m.end(), f"week#:{m.group(1)}"))
        if m.group(2):
            found.append((m.start(), m.end(), f"week#:{m.group(2)}"))
    for m in lexicon.number.finditer(low):
        num = m.group("num").replace(",", "")
        if re.fullmatch(r"\d+\.\d+", num) and not m.group("cur") and not m.group("unit"):
            continue  # section numbers such as 4.2
        start = m.start("num")
        if start > 0 and low[start - 1] in "0123456789.":
            continue
        unit = m.group("unit")
        if m.group("cur") or (unit and unit in lexicon.currency_after):
            kind = "money"
        elif unit:
            kind = _unit_kind(unit)
        else:
            kind = "n"
        found.append((m.start(), m.end(), f"{kind}:{num}"))
    return sorted(found)


def numbers(text: str) -> set[str]:
    """The bare numeric values in text (units dropped), for the verifier's number check."""
    return {q.split(":", 1)[1] for q in quantities(text)}


def has_negation(text: str) -> bool:
    low = text.lower()
    return any(tok in _NEGATIONS for tok in tokens(low)) or "n't" in low


# A list item's marker at the start of a line: "- ", "* ", "+ ", "3. ", "3) ".
LIST_MARKER = r"(?:[-*+]|\d+[.)])\s"


def _continues_initialism(before: str, piece: str) -> bool:
    """`piece` goes on the sentence that ends with an initialism: its first word is not one that
    opens a sentence."""
    if not _INITIALISM_END.search(before):
        return False
    first = tokens(piece[:40])
    return bool(first) and first[0] not in STOPWORDS


def split_sentences(text: str) -> list[str]:
    """Sentences of a chunk; list items and lines ending without a stop become their own sentence."""
    lexicon = _lexicon()
    abbreviation_end, end_reach = lexicon.abbreviation_end, lexicon.end_reach
    sentences: list[str] = []
    for block in re.split(rf"\n\s*\n|\n(?=\s*{LIST_MARKER})", text):
        block = " ".join(line.strip() for line in block.strip().splitlines())
        block = re.sub(rf"^{LIST_MARKER}\s*", "", block).strip()
        if not block:
            continue
        pieces = _SENTENCE_END.split(block)
        # pieces joined after an abbreviation or initialism, each sentence's pieces kept in a list
        # and its end read from a bounded tail: a long run of "U.S. U.S. …" was joined and searched
        # afresh for every piece, time growing with the square of its length
        merged: list[list[str]] = []
        tail = ""  # the last end_reach characters of the sentence being built
        for piece in pieces:
            if merged and (abbreviation_end.search(tail) or _continues_initialism(tail, piece)):
                merged[-1].append(piece)
                tail = f"{tail} {piece}"[-end_reach:]
            else:
                merged.append([piece])
                tail = piece[-end_reach:]
        sentences.extend(sentence for sentence in (" ".join(parts).strip() for parts in merged) if sentence)
    return sentences


def slugify(text: str, max_len: int = 60) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", normalise_text(text).lower()).strip("-")
    return slug[:max_len].strip("-") or "section"


def canonical_terms(text: str) -> list[str]:
    """Content terms with the glossary's synonyms folded together."""
    synonyms = _lexicon().synonyms
    return [synonyms.get(t, t) for t in content_terms(text)]


def canonical_terms_with_surface(text: str) -> list[tuple[str, str]]:
    """(canonical term, the word as written) for each content word, in order."""
    synonyms = _lexicon().synonyms
    stemmed = [(stem(tok), tok) for tok in _content_words(_without_section_names(text))]
    return [(synonyms.get(term, term), tok) for term, tok in stemmed]
