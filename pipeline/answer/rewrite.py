"""History-aware rewrite: make a follow-up that leans on the previous question self-contained.

"what about labs?" or "and the fee for that?" retrieve nothing useful on their own. A question is
rewritten from the previous one in the same session only when it is not self-contained:

- it opens like a continuation ("what about…", "and for…", "is it the same for…") and what
  follows is a fragment, not a question of its own;
- it is a fragment ("Deadline?", "For PhD?", "Week 4?");
- it refers back with a pronoun that nothing before it in the question names ("is it
  refundable?"; not "how do I apply for revaluation and how much does it cost?", nor the "it"
  of "is it possible to…");
- or it names no subject at all, only what it asks about one ("What's the deadline?").

The rewrite keeps the previous question's subject and constraints and changes the one slot the
follow-up names: a named group (the glossary's programmes and the like: "and for M.Tech?"), an
aspect ("and the deadline?" after a question on a fee), a phrase with the same head word ("the
lab exam" for "the end-semester exam", "week 4" for "week 2"), or the subject itself ("what about
photocopies?" after the revaluation fee). A phrase that changes nothing there ("for the summer
term") is added to the previous question. A pronoun is replaced by the previous question's
subject, with the aspect it asked about when the follow-up asks none of its own ("is it
refundable?" after the late registration fee: the fee; "how long do I have to apply for it?": the
revaluation).

Words are told apart with the tokenizer, the Snowball stemmer and the glossary of
pipeline.language, plus three short lists of general English below (the words that frame a
question, the aspects it asks about, pronouns). No parser or coreference model is used: none
installs offline from the package registries (spaCy's and NLTK's English models are separate
downloads), and these rules are measured on a follow-up set (data/followups,
`python -m pipeline.evaluation.followups`). The rewrite only changes what is *retrieved*; the
answer still has to pass the support gate on its own evidence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pipeline.language.question import opener_pattern
from pipeline.language.stemming import stem
from pipeline.language.text import STOPWORDS, canonical_terms, is_generic, named_spans, quantities, tokens

# How a continuation opens ("and what about", "is it the same for"); what follows is the new slot.
_OPENER = re.compile(
    r"^\s*(?:(?:and|but|so)\s+)?(?:(?:what|how)\s+about|what\s+of|"
    r"(?:is|was|would)\s+(?:it|that|this)\s+(?:the\s+)?same\s+(?:for|with|in)|(?:the\s+)?same\s+(?:for|with|in)|"
    r"(?:and\s+)?also|and)\b[\s,]*",
    re.I,
)
# A question of its own starts with a question word or an auxiliary.
_QUESTION_START = opener_pattern("what's", "might", "am", "have", "has", "if", "until", "till")
_QUESTION_WORD = re.compile(r"\b(?:how|what|when|which|who|whom|where|why)\b", re.I)
_PREPOSITIONS = frozenset("for in during after before at on within from to with without under by".split())
_DETERMINERS = frozenset("the a an my our your their his her its this that these those".split())
# Pronouns that refer back; "that/this/these/those" only when no subject of its own follows.
_PRONOUNS = frozenset("it its they them their that this those these".split())
# "is it possible to…", "when is it too late to…", "how long does it take to…": the "it" stands
# for what follows, not for anything before.
_DUMMY_IT = re.compile(
    r"\b(?:it\s+(?:is|was|'s|takes|took|costs)|(?:is|was|isn't|wasn't)\s+it|(?:does|did|will|would)\s+it\s+(?:take|cost))\b"
    r".*\b(?:to|that)\b",
    re.I,
)
# General English: words that frame a question rather than name its subject.
_FRAME = frozenset(
    """apply applies applied applying approve approves approved decide decides decided take takes taking took
    held hold holds carry carries count counts include includes including cover covers available possible
    eligible required require requires mandatory compulsory worth valid true necessary okay ok allowed
    permitted happens exceed exceeds issue issues issued mean means affect affects open opens close closes
    start starts begin begins""".split()
)
# General English: aspects a question asks about a subject (a glossary's synonyms of them count too).
_ASPECTS = (
    "fee fees cost costs charge charges price amount deadline deadlines date dates duration length period "
    "time timeline window limit limits minimum maximum threshold penalty penalties procedure process steps "
    "requirement requirements eligibility criteria rule rules refund form forms"
)
_QUANTITY = frozenset({"how many", "how much"})
_BOUNDS = frozenset({"minimum", "maximum"})
# A question asks about an aspect of its own when it holds one of these or one of the aspect words.
_ASKS_ASPECT = re.compile(
    r"\b(?:how\s+(?:long|much|many|soon|often)|when|until\s+when|by\s+when|who|whom|where|which)\b", re.I
)


@dataclass(frozen=True)
class _Word:
    text: str  # as written, punctuation around it removed
    kind: str  # function | frame | aspect | generic | group | number | topic | pronoun


def _aspect_terms() -> frozenset[str]:
    return frozenset(canonical_terms(_ASPECTS)) | frozenset(stem(w) for w in _ASPECTS.split())


def _kind(core: str, aspects: frozenset[str]) -> str:
    low = core.lower()
    if low in _PRONOUNS:
        return "pronoun"
    if any(c.isdigit() for c in low):
        return "number"
    parts = tokens(low)
    if not parts or all(p in STOPWORDS or len(p) < 2 for p in parts):
        return "function"
    if low in _FRAME:
        return "frame"
    terms = canonical_terms(low) or [stem(low)]
    if all(t in aspects for t in terms):
        return "aspect"
    if all(is_generic(t) for t in terms):
        return "generic"
    return "topic"


def _is_unit(word: str) -> bool:
    """A word numbers are counted in ("days", "credits": pipeline.language.text's units and the glossary's)."""
    return not any(q.startswith("n:") for q in quantities(f"2 {word}"))


def _words(text: str) -> list[_Word]:
    """The text's words, each with its kind; a named group's words are one word of kind "group"."""
    text = text.strip().rstrip("?!. ")
    groups = named_spans(text)
    raw: list[tuple[str, bool]] = []
    for m in re.finditer(r"\S+", text):
        inside = next((g for g in groups if g[0] < m.end() and m.start() < g[1]), None)
        if inside is not None:
            written = text[inside[0] : inside[1]]
            if raw and raw[-1] == (written, True):
                continue  # the group's second word ("b tech")
            raw.append((written, True))
        else:
            raw.append((m.group(0).strip("?!.,;:\"'()"), False))
    aspects = _aspect_terms()
    words = []
    for i, (core, is_group) in enumerate(raw):
        if is_group:
            words.append(_Word(core, "group"))
            continue
        kind = _kind(core, aspects)
        if kind == "topic" and i >= 2 and f"{raw[i - 2][0]} {raw[i - 1][0]}".lower() in _QUANTITY and _is_unit(core):
            kind = "aspect"  # "how many credits": the amount asked for, not the subject
        words.append(_Word(core, kind))
    return _demonstratives(words)


def _demonstratives(words: list[_Word]) -> list[_Word]:
    """A demonstrative followed by a subject of its own is no reference: "that mid-term tests
    are…" names its subject, "that decision" refers back."""
    out = list(words)
    for i, w in enumerate(words):
        if w.kind != "pronoun" or w.text.lower() not in ("that", "this", "these", "those"):
            continue
        following = words[i + 1].kind if i + 1 < len(words) else ""
        if following in ("topic", "group", "number"):
            out[i] = _Word(w.text, "function")
    return out


def _join(words: list[_Word]) -> str:
    return " ".join(w.text for w in words if w.text)


def _subject_span(words: list[_Word], with_aspect: bool) -> tuple[int, int] | None:
    """From the first subject word to the last subject or generic word: the previous question's
    subject as written ("photocopy of my answer script", "withdraw from a course")."""
    core = ("topic", "aspect") if with_aspect else ("topic",)
    first = next((i for i, w in enumerate(words) if w.kind in core), None)
    if first is None:
        return _subject_span(words, True) if not with_aspect else None
    last = max(i for i, w in enumerate(words) if w.kind in (*core, "generic", "group", "number") and i >= first)
    return first, last


def _subject(words: list[_Word], with_aspect: bool) -> str:
    span = _subject_span(words, with_aspect)
    return _join(words[span[0] : span[1] + 1]) if span else ""


def _runs(words: list[_Word], kinds: tuple[str, ...]) -> list[tuple[int, int]]:
    """Maximal stretches of adjacent words of these kinds, as (start, end) inclusive."""
    runs, start = [], None
    for i, w in enumerate([*words, _Word("", "function")]):
        if w.kind in kinds and start is None:
            start = i
        elif w.kind not in kinds and start is not None:
            runs.append((start, i - 1))
            start = None
    return runs


def _content(words: list[_Word]) -> list[_Word]:
    """A fragment's words without the determiners and prepositions in front ("the lab exam" → "lab exam")."""
    i = 0
    while i < len(words) and (words[i].kind == "function" or words[i].text.lower() in _DETERMINERS):
        i += 1
    return words[i:]


def _head(words: list[_Word]) -> str:
    """The canonical term of a phrase's last word that is not a number ("week 4" → week)."""
    for w in reversed(words):
        if w.kind in ("topic", "aspect", "generic"):
            terms = canonical_terms(w.text)
            return terms[-1] if terms else ""
    return ""


def _splice(words: list[_Word], span: tuple[int, int], new: list[_Word]) -> str:
    return _join(words[: span[0]] + new + words[span[1] + 1 :])


def _with_group(previous: list[_Word], fragment: list[_Word], group_at: int) -> str:
    """The previous question with the fragment's named group (and what it names with it) in place
    of the previous one of the same kind, or added when there was none."""
    group = fragment[group_at]
    kind = _group_kind(group.text)
    at = next((i for i, w in enumerate(previous) if w.kind == "group" and _group_kind(w.text) == kind), None)
    named = _content(fragment)
    if at is None:
        joined = _join(fragment)
        lead = "" if fragment[0].text.lower() in _PREPOSITIONS else "for "
        return f"{_join(previous)} {lead}{joined}"
    if any(w.kind == "topic" for w in named):  # "an MCA project" for "an M.Tech thesis"
        end = at
        while end + 1 < len(previous) and previous[end + 1].kind in ("topic", "generic"):
            end += 1
        return _splice(previous, (at, end), [w for w in named if w.kind != "function"])
    return _splice(previous, (at, at), [group])


def _group_kind(written: str) -> str:
    spans = named_spans(written)
    return spans[0][2] if spans else ""


def _with_phrase(previous: list[_Word], fragment: list[_Word]) -> str:
    """A prepositional fragment ("for the lab exam", "in the summer term"): in place of the previous
    phrase with the same preposition and head word, else added to the previous question."""
    preposition = fragment[0].text.lower()
    head = _head(fragment)
    for i, w in enumerate(previous):
        if w.text.lower() != preposition:
            continue
        end = i
        while (
            end + 1 < len(previous)
            and previous[end + 1].kind not in ("frame",)
            and (previous[end + 1].kind != "function" or previous[end + 1].text.lower() in _DETERMINERS)
        ):
            end += 1
        if end > i and _head(previous[i + 1 : end + 1]) == head:
            return _splice(previous, (i, end), fragment)
    return f"{_join(previous)} {_join(fragment)}"


def _with_aspect(previous: list[_Word], fragment: list[_Word], question: str) -> str:
    """A fragment that names only an aspect ("and the deadline?", "is there a fee?", "until
    when?"): in place of the previous question's aspect, else beside its subject."""
    named = [w for w in _content(fragment) if w.kind == "aspect"]
    aspects = _runs(previous, ("aspect",))
    if named and aspects:
        start, end = aspects[-1]
        if all(w.text.lower() in _BOUNDS for w in named):  # "and the minimum?" after "how many credits…"
            return _splice(previous, (start, end), named + previous[start : end + 1])
        return _splice(previous, (start, end), named)
    subject = _subject(previous, with_aspect=not _asks_aspect(question))
    return f"{question.strip().rstrip('?!. ')} - {subject}" if subject else ""


def _with_subject(previous: list[_Word], fragment: list[_Word]) -> str:
    """A fragment that names a subject: in place of the previous phrase with the same head word
    ("week 4" for "week 2"), else of the previous question's last subject ("labs" for "theory
    exams", "photocopies" for "revaluation" in "the revaluation fee")."""
    named = _content(fragment)
    head = _head(named)
    for start, end in reversed(_runs(previous, ("topic", "aspect", "generic", "number", "group"))):
        if head and any(_head([w]) == head for w in previous[start : end + 1]):
            return _splice(previous, (start, end), named)
    subjects = [r for r in _runs(previous, ("topic", "number", "group")) if previous[r[1]].kind != "group"]
    if not subjects:
        return f"{_join(previous)} - {_join(named)}"
    return _splice(previous, subjects[-1], named)


def _asks_aspect(question: str) -> bool:
    """Whether the follow-up asks its own aspect ("how long…", "who…", "…the deadline"); an
    adjective such as "refundable" asks none, though it shares a stem with "refund"."""
    words = set(tokens(question))
    return bool(_ASKS_ASPECT.search(question)) or bool(words & set(_ASPECTS.split()))


def _refers_back(words: list[_Word], question: str) -> int | None:
    """The position of the first pronoun that refers to an earlier question, or None."""
    for i, w in enumerate(words):
        if w.kind != "pronoun":
            continue
        # a word right before the pronoun is its verb ("who checks that?"), not what it stands for
        if any(x.kind in ("topic", "group") for x in words[: max(i - 1, 0)]) or (
            i > 0 and words[i - 1].kind == "group"
        ):
            return None  # "how do I apply for revaluation and how much does it cost?"
        if w.text.lower() == "it" and _DUMMY_IT.search(question) and any(x.kind == "topic" for x in words[i:]):
            continue
        return i
    return None


def _with_pronoun(previous: list[_Word], words: list[_Word], at: int, question: str) -> str:
    subject = _subject(previous, with_aspect=not _asks_aspect(question))
    if not subject:
        return ""
    pronoun = words[at].text.lower()
    if pronoun in ("that", "this", "these", "those") and at + 1 < len(words) and words[at + 1].kind != "function":
        replacement = f"the {subject}"  # "that decision" → "the revaluation decision"
    elif pronoun in ("its", "their"):
        replacement = f"the {subject}'s" if at + 1 < len(words) else subject
    else:
        replacement = subject
    return _join([*words[:at], _Word(replacement, "topic"), *words[at + 1 :]])


def _is_fragment(text: str, words: list[_Word]) -> bool:
    """Not a question of its own: "for PhD", "the deadline", "week 4" (a question word starts one)."""
    if not words:
        return False
    if _QUESTION_START.match(text):
        return False
    if words[0].text.lower() in _PREPOSITIONS:
        return not _QUESTION_WORD.search(text)
    return len(words) <= 6


def needs_rewrite(question: str) -> bool:
    """A question that leans on what came before: a continuation, a fragment, a pronoun that
    nothing in it names, or no subject of its own."""
    return _reading(question) is not None


def _reading(question: str) -> tuple[str, str, list[_Word]] | None:
    """How the question leans on the previous one: (how, the part that does, its words), or None
    when it stands on its own. how: "pronoun", "group", "phrase", "aspect" or "subject"."""
    text = (question or "").strip()
    opener = _OPENER.match(text)
    rest = text[opener.end() :] if opener else text
    if not rest.strip(" ?!."):
        return None
    words = _words(rest)
    if not words:
        return None
    at = _refers_back(words, rest)
    if at is not None:
        return "pronoun", rest, words
    group_at = next((i for i, w in enumerate(words) if w.kind == "group"), None)
    fragment = _is_fragment(rest, words) or bool(
        opener and not _QUESTION_START.match(rest) and not _QUESTION_WORD.search(rest)
    )
    has_subject = any(w.kind in ("topic", "group") for w in words)
    if not fragment and has_subject:
        return None
    if group_at is not None:
        return "group", rest, words
    if fragment and words[0].text.lower() in _PREPOSITIONS and has_subject:
        return "phrase", rest, words
    if not any(w.kind == "topic" for w in words):
        return "aspect", rest, words
    return "subject", rest, words


def rewrite_followup(question: str, history: list[str]) -> str:
    """A self-contained version of `question` given earlier questions (oldest first); "" when not needed.

    `history` should hold the earlier questions *as retrieved* (their own rewrite when they had one)
    so that a chain of follow-ups keeps its topic.
    """
    previous_text = next((h.strip() for h in reversed(history) if h and h.strip()), "")
    reading = _reading(question)
    if not previous_text or reading is None:
        return ""
    how, rest, words = reading
    previous = _words(previous_text)
    if not any(w.kind in ("topic", "group") for w in previous):
        return ""  # "what is the fee?" names no subject to carry over
    if how == "pronoun":
        at = _refers_back(words, rest)
        rewritten = _with_pronoun(previous, words, at, rest) if at is not None else ""
    elif how == "group":
        group_at = next(i for i, w in enumerate(words) if w.kind == "group")
        rewritten = _with_group(previous, words, group_at)
    elif how == "phrase":
        rewritten = _with_phrase(previous, words)
    elif how == "aspect":
        rewritten = _with_aspect(previous, words, rest)
    else:
        rewritten = _with_subject(previous, words)
    return f"{rewritten.strip()}?" if rewritten.strip() else ""
