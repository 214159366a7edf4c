"""An organisation's own words, read from `glossary.yaml` beside its documents.

The code knows English; the glossary knows the corpus: which words mean the same thing there
("recheck" is "re-mark"), which are too common to say much ("student", the institute's name),
which names set one rule apart from another (programmes, roles), and how money is written
("€500", "500 euros"). It also names what the assistant talks about ("the HR policies", say), whom
a user should ask about their own case, and which bodies and web sites make a document official.
A folder without a glossary gets none of these, never another organisation's: neutral wording
("the policies") and only the generic English marks of an official document (governance.trust).

`Glossary.load(docs_dir)` reads it (and refuses synonyms that stem alike under different words);
`use(glossary)` makes it the one the text functions (pipeline.language.text) read for this
process — the engine does so for its configured documents. Words are kept as written;
pipeline.language.text stems them when it builds its tables.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from pipeline.language.stemming import stem

FILE_NAME = "glossary.yaml"
_KEYS = (
    "synonyms",
    "generic_terms",
    "named_groups",
    "currency",
    "money_words",
    "abbreviations",
    "offices",
    "subject",
    "topics",
    "contact",
    "official_sources",
    "official_domains",
    "count_units",
    "time_units",
    "counts_as",
)
MAX_TEXT_CHARS = 120  # a phrase shown inside a sentence, not a paragraph
DEFAULT_SUBJECT = "the policies"
DEFAULT_CONTACT = "the office named in the policy"


class GlossaryError(ValueError):
    """A glossary file that cannot be read; the message names the file and the entry."""


@dataclass(frozen=True, eq=False)
class Glossary:
    """A corpus's vocabulary. Compared by identity: one loaded file, one glossary.

    synonyms: canonical word → the words that mean it here.
    generic_terms: words too common in this corpus to tell sections apart.
    named_groups: kind ("programmes", "roles", …) → name as shown → aliases (lower case, the
        name itself included).
    currency: how money is written ("€", "EUR", "euros"), before or after the amount.
    money_words: words that ask about money, beyond the general English ones in the code.
    abbreviations: words whose full stop does not end a sentence ("Dept.").
    offices: names of offices or bodies whose words mean something else in a question ("Academic
        Section" is an office, not a section of a course); each is read as one word.
    subject: what the assistant answers about, as a phrase inside a sentence ("the HR policies");
        shown as plain text (escape it in HTML).
    topics: a few topics named in the greeting ("leave", "expenses"); none: a greeting without.
    contact: whom a user should ask about their own case ("your line manager or HR").
    official_sources: this organisation's bodies and officers whose name makes a proof look official
        ("works council", "HR director"); matched as whole words in any case.
    official_domains: web domains whose http(s) links are official ("example.org": a link whose
        host ends in it).
    count_units: what this corpus counts after a number ("3 credits", "2 withdrawals"), beyond the
        general English units in the code (days, hours, pages, attempts, …); a "how many" question
        looks for them.
    time_units: periods of this corpus's calendar after a number ("in 2 semesters"), beyond days
        to years; a "when" question looks for them.
    counts_as: a unit → the unit it counts ("advisee: student"), so a claim of "30 advisees" is
        compared with a policy's "at most 20 students" (governance.contradictions).
    """

    synonyms: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    generic_terms: tuple[str, ...] = ()
    named_groups: Mapping[str, Mapping[str, tuple[str, ...]]] = field(default_factory=dict)
    currency: tuple[str, ...] = ()
    money_words: tuple[str, ...] = ()
    abbreviations: tuple[str, ...] = ()
    offices: tuple[str, ...] = ()
    subject: str = DEFAULT_SUBJECT
    topics: tuple[str, ...] = ()
    contact: str = DEFAULT_CONTACT
    official_sources: tuple[str, ...] = ()
    official_domains: tuple[str, ...] = ()
    count_units: tuple[str, ...] = ()
    time_units: tuple[str, ...] = ()
    counts_as: Mapping[str, str] = field(default_factory=dict)
    source: Path | None = None

    @classmethod
    def load(cls, docs_dir: Path | str) -> Glossary:
        """The glossary in `docs_dir/glossary.yaml`, or an empty one when there is no such file."""
        path = Path(docs_dir) / FILE_NAME
        if not path.is_file():
            return cls()
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
            raise GlossaryError(f"{path}: cannot be read as YAML: {exc}") from exc
        glossary = cls.from_mapping(data or {}, source=path)
        glossary.synonym_stems()  # raises GlossaryError when two canonical words' variants stem alike
        return glossary

    @classmethod
    def from_mapping(cls, data: Any, source: Path | None = None) -> Glossary:
        """A glossary from parsed YAML; raises GlossaryError naming `source` and the bad entry."""
        where = str(source) if source else "glossary"
        if not isinstance(data, Mapping):
            raise GlossaryError(f"{where}: expected a mapping with keys {', '.join(_KEYS)}")
        unknown = sorted(set(map(str, data)) - set(_KEYS))
        if unknown:
            raise GlossaryError(f"{where}: unknown key(s) {', '.join(unknown)}; allowed: {', '.join(_KEYS)}")
        synonyms = {
            _single(_word(canonical, f"{where}: synonyms"), f"{where}: synonyms"): tuple(
                _single(v, f"{where}: synonyms.{canonical}") for v in _words(variants, f"{where}: synonyms.{canonical}")
            )
            for canonical, variants in _mapping(data.get("synonyms"), f"{where}: synonyms").items()
        }
        seen: dict[str, str] = {}
        for canonical, variants in synonyms.items():
            for variant in variants:
                if seen.setdefault(variant, canonical) != canonical:
                    raise GlossaryError(
                        f"{where}: synonyms: {variant!r} is listed under both "
                        f"{seen[variant]!r} and {canonical!r}; keep it under one"
                    )
        groups = {
            _word(kind, f"{where}: named_groups"): {
                _word(name, f"{where}: named_groups.{kind}", lower=False): tuple(
                    dict.fromkeys((_word(name, where), *_words(aliases, f"{where}: named_groups.{kind}.{name}")))
                )
                for name, aliases in _mapping(names, f"{where}: named_groups.{kind}").items()
            }
            for kind, names in _mapping(data.get("named_groups"), f"{where}: named_groups").items()
        }
        return cls(
            synonyms=synonyms,
            generic_terms=_single_words(data.get("generic_terms"), f"{where}: generic_terms"),
            named_groups=groups,
            currency=_words(data.get("currency"), f"{where}: currency", lower=False),
            money_words=_single_words(data.get("money_words"), f"{where}: money_words"),
            abbreviations=_words(data.get("abbreviations"), f"{where}: abbreviations", lower=False),
            offices=_words(data.get("offices"), f"{where}: offices"),
            subject=_text(data.get("subject"), f"{where}: subject", DEFAULT_SUBJECT),
            topics=tuple(
                dict.fromkeys(_text(t, f"{where}: topics") for t in _list(data.get("topics"), f"{where}: topics"))
            ),
            contact=_text(data.get("contact"), f"{where}: contact", DEFAULT_CONTACT),
            official_sources=tuple(
                dict.fromkeys(
                    _text(t, f"{where}: official_sources").lower()
                    for t in _list(data.get("official_sources"), f"{where}: official_sources")
                )
            ),
            official_domains=tuple(
                dict.fromkeys(
                    _domain(d, f"{where}: official_domains")
                    for d in _list(data.get("official_domains"), f"{where}: official_domains")
                )
            ),
            count_units=_single_words(data.get("count_units"), f"{where}: count_units"),
            time_units=_single_words(data.get("time_units"), f"{where}: time_units"),
            counts_as={
                _single(_word(unit, f"{where}: counts_as"), f"{where}: counts_as"): _single(
                    _word(counted, f"{where}: counts_as.{unit}"), f"{where}: counts_as.{unit}"
                )
                for unit, counted in _mapping(data.get("counts_as"), f"{where}: counts_as").items()
            },
            source=source,
        )

    def names(self, kind: str) -> Mapping[str, tuple[str, ...]]:
        """name → aliases of one kind of named group ({} when the glossary has none)."""
        return self.named_groups.get(kind, {})

    def synonym_stems(self) -> dict[str, str]:
        """Stem of each variant → stem of its canonical word (variants that stem like their canonical
        word left out). Raises GlossaryError when a variant stems like one listed under another word."""
        table: dict[str, str] = {}
        owner: dict[str, str] = {}
        for canonical, variants in self.synonyms.items():
            target = stem(canonical)
            for variant in variants:
                key = stem(variant)
                if key == target:
                    continue
                if table.setdefault(key, target) != target:
                    raise GlossaryError(
                        f"{self.source or 'glossary'}: synonyms: {variant!r} (under {canonical!r}) and "
                        f"{owner[key]!r} stem alike ({key!r}) but are listed under different words"
                    )
                owner.setdefault(key, variant)
        return table

    def fingerprint(self) -> str:
        """A stable text of the contents, for caches that must not outlive a change of glossary."""
        return repr(
            (
                sorted((k, v) for k, v in self.synonyms.items()),
                self.generic_terms,
                sorted((k, sorted(v.items())) for k, v in self.named_groups.items()),
                self.currency,
                self.money_words,
                self.abbreviations,
                self.offices,
                self.subject,
                self.topics,
                self.contact,
                self.official_sources,
                self.official_domains,
                self.count_units,
                self.time_units,
                sorted(self.counts_as.items()),
            )
        )


def _mapping(value: Any, where: str) -> Mapping[Any, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise GlossaryError(f"{where}: expected a mapping (name: [words]), got {type(value).__name__}")
    return value


def _word(value: Any, where: str, lower: bool = True) -> str:
    if isinstance(value, bool) or not isinstance(value, (str, int, float)) or not str(value).strip():
        raise GlossaryError(f"{where}: expected a word, got {value!r}")
    word = " ".join(str(value).split())
    return word.lower() if lower else word


_ONE_WORD = re.compile(r"[a-z0-9]+(?:[.\-][a-z0-9]+)*")


def _single(word: str, where: str) -> str:
    """Synonyms and term lists match one word at a time: "annual leave" could never match."""
    if not _ONE_WORD.fullmatch(word):
        raise GlossaryError(
            f"{where}: {word!r} is not one word (letters, digits, inner '.' or '-'); "
            "synonyms and term lists match single words"
        )
    return word


def _words(value: Any, where: str, lower: bool = True) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list):
        raise GlossaryError(f"{where}: expected a list of words, got {type(value).__name__}")
    return tuple(dict.fromkeys(_word(v, where, lower) for v in value))


def _single_words(value: Any, where: str) -> tuple[str, ...]:
    """A list of single words (term lists, units): see `_single`."""
    return tuple(_single(w, where) for w in _words(value, where))


def _list(value: Any, where: str) -> list[Any]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if not isinstance(value, list):
        raise GlossaryError(f"{where}: expected a list of phrases, got {type(value).__name__}")
    return value


_CONTROL = re.compile("[\x00-\x1f\x7f\x85\u2028\u2029]")  # line breaks and other control characters


def _text(value: Any, where: str, default: str = "") -> str:
    """A phrase shown to users inside a sentence: one line of plain text, at most MAX_TEXT_CHARS."""
    if value is None and default:
        return default
    if not isinstance(value, str) or not value.strip():
        raise GlossaryError(f"{where}: expected a phrase (text), got {value!r}")
    if _CONTROL.search(value.strip()):
        raise GlossaryError(f"{where}: {value[:40]!r} must be one line of plain text (no newlines)")
    text = " ".join(value.split())
    if len(text) > MAX_TEXT_CHARS:
        raise GlossaryError(f"{where}: {len(text)} characters long; at most {MAX_TEXT_CHARS} are shown")
    return text


_DOMAIN = re.compile(r"[a-z0-9]+(?:-+[a-z0-9]+)*(?:\.[a-z0-9]+(?:-+[a-z0-9]+)*)*")


def _domain(value: Any, where: str) -> str:
    """A domain suffix ("example.org", "gov.uk"): labels of letters, digits and inner hyphens."""
    domain = str(value).strip().lower().removeprefix(".") if isinstance(value, str) else ""
    if not _DOMAIN.fullmatch(domain) or len(domain) > MAX_TEXT_CHARS:
        raise GlossaryError(f"{where}: {value!r} is not a domain suffix like 'example.org' or 'gov.uk'")
    return domain


_EMPTY = Glossary()
_active: Glossary = _EMPTY
_on_change: list[Callable[[], None]] = []


def use(glossary: Glossary) -> None:
    """Make `glossary` the one this process's text functions read (the engine calls this)."""
    global _active
    if glossary is _active:
        return
    _active = glossary
    for clear in _on_change:
        clear()


def active() -> Glossary:
    """The glossary in use: the engine's documents' one, or an empty one before any engine."""
    return _active


def on_change(clear: Callable[[], None]) -> Callable[[], None]:
    """Register a cache-clearing function to call whenever another glossary comes into use."""
    _on_change.append(clear)
    return clear
