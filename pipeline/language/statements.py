"""Statements compared: do two sentences say the same thing with different facts?

A sentence is read once into a `Statement`: its content terms, the named groups it mentions
(programmes, roles: the glossary's `named_groups`), its amounts by kind (percentages, days, weeks,
money; pipeline.language.text.quantities) and whether it is negated. The gate's consistency part
(pipeline.gate.support) compares the statements of its evidence chunks with a word-overlap rule.

`disagreement` is the stricter test used where a conflict is *told to people*: in an answer whose
cited sentences disagree, and between documents of the library. Word overlap alone pairs
sentences that share their frame but not their subject ("the DoAA decides the appeal within 7
working days" / "the review committee decides the appeal within 10 working days"), so two
sentences count as one statement only when MiniLM's sentence embeddings are close too (the
caller passes their cosine) and their words mostly agree (`same_statement`, which the policy
critic reads too). The thresholds were read off every
pair of sentences of the demo policies (data/policies) that share an amount's kind: the pairs at
cosine ≥ 0.88 and word overlap ≥ 0.5 are restatements; below, different rules with the same frame.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from pipeline.language import glossary
from pipeline.language.text import canonical_terms, has_negation, is_currency, named_in, quantities

SAME_STATEMENT_COSINE = 0.88  # sentence embeddings at least this close ...
SAME_STATEMENT_OVERLAP = 0.5  # ... and this share of their words (Jaccard) in common
SAME_WORDS_FOR_NEGATION = 0.9  # "X is not Y" against "X is Y": nearly every other word shared
# Negating words that are content terms ("not", "no", "nor" are stop words): left out where two
# statements are compared for everything but their negation.
_NEGATING_TERMS = frozenset({"cannot", "never", "none", "neither", "without"})


@dataclass(frozen=True)
class Statement:
    """What a sentence asserts, as the comparisons read it."""

    terms: frozenset[str]
    named: frozenset[str]
    amounts: dict  # quantity kind -> its values ("pct" -> {"pct:75"}); bare numbers ("n:") left out
    negated: bool


@functools.lru_cache(maxsize=32768)  # evidence chunks recur across questions
def statement_of(sentence: str) -> Statement:
    amounts: dict[str, set[str]] = {}
    for q in quantities(sentence):
        if not q.startswith("n:"):
            amounts.setdefault(q.split(":")[0], set()).add(q)
    terms = frozenset(t for t in canonical_terms(sentence) if not any(ch.isdigit() for ch in t) and not is_currency(t))
    # programme and role names (the glossary's named_groups): two statements naming different
    # ones are about different things
    return Statement(terms, named_in(sentence), amounts, has_negation(sentence))


glossary.on_change(statement_of.cache_clear)  # its terms and names come from the glossary in use


def overlap(a: Statement, b: Statement) -> float:
    """Jaccard overlap of two statements' content terms."""
    union = a.terms | b.terms
    return len(a.terms & b.terms) / len(union) if union else 0.0


def same_statement(a: str, b: str, cosine: float | None) -> bool:
    """Sentences `a` and `b` say one thing: their embeddings' `cosine` at least
    SAME_STATEMENT_COSINE (not checked where there is none, `None`) and a SAME_STATEMENT_OVERLAP
    share of their words in common."""
    if cosine is not None and cosine < SAME_STATEMENT_COSINE:
        return False
    return overlap(statement_of(a), statement_of(b)) >= SAME_STATEMENT_OVERLAP


def disagreement(a: str, b: str, cosine: float) -> str:
    """How sentence `a` contradicts sentence `b` ("" when it does not), given their embeddings'
    cosine: the same statement (close embeddings, mostly the same words, the same named groups)
    with amounts of one kind that share no value ("pct 75 / 60"), or with and without a negation."""
    if not same_statement(a, b, cosine):  # the cosine first: most pairs an answer holds stop there
        return ""
    first, second = statement_of(a), statement_of(b)
    if len(first.terms) < 2 or len(second.terms) < 2 or first.named != second.named:
        return ""
    for kind in sorted(first.amounts.keys() & second.amounts.keys()):
        if not first.amounts[kind] & second.amounts[kind]:
            values = ["/".join(sorted(q.split(":", 1)[1] for q in s.amounts[kind])) for s in (first, second)]
            return f"{kind} {values[0]} vs {values[1]}"
    if first.negated != second.negated:
        rest_a, rest_b = first.terms - _NEGATING_TERMS, second.terms - _NEGATING_TERMS
        if len(rest_a & rest_b) / len(rest_a | rest_b) >= SAME_WORDS_FOR_NEGATION:
            return "negation"
    return ""
