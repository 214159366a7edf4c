"""The one thing a question asks for, read from its form, and whether the evidence has it.

Coverage weighs every query word, so a near-miss that shares most words with a real section
("Is there a fee for changing my advisor?", "How many minutes does each team present?") scores
well although the thing it asks for is not there. Five question forms name that thing plainly:

- a question about money (fee, cost, payment, stipend) needs evidence that mentions money;
- "how many X", "which X", "what X do/does/is…" need X (the head noun) in the evidence;
- "for part-time students", "for an audit course", "as an exchange student" restrict the answer
  to a group or kind that the evidence must name;
- "… if the ERP portal goes down" sets a situation; when two or more of its words are absent from
  the evidence, the policy does not speak to that situation (one absent word is often a paraphrase);
- a yes/no question ("Can the viva be conducted online?") asks whether one specific thing holds;
  when two or more of its specific words (not everyday verbs such as "move" or "show", whose
  paraphrases the policy uses) are absent from the evidence, the policy does not say.

`unmet_focus` returns the first such need the evidence lacks (shown to the user as the reason),
or None. It only reads word forms; anything it does not recognise passes.
"""

from __future__ import annotations

import re

from pipeline.language.question import Question, analyse_question
from pipeline.language.text import (
    STOPWORDS,
    canonical_terms,
    canonical_terms_with_surface,
    is_generic,
    is_number,
    money_terms,
    money_words,
    quantities,
)
from pipeline.language.word_rarity import specificity

# Heads that name an answer type rather than a thing ("what time", "how many times"): any
# evidence can state them, so they are not checked.
_TYPE_HEADS = frozenset(
    "number amount time times date dates day days deadline percentage percent proportion share "
    "type types kind kinds step steps option options happens documents document form forms "
    "rule rules thing things reason reasons".split()
)
_GROUP_NOUNS = r"(?:students?|courses?|programmes?|programs?|projects?|teams?|exams?|examinations?)"
_QUALIFIER = re.compile(rf"\b(?:for|as)\s+(?:a|an|the)?\s*((?:[a-z0-9][a-z0-9.\-]*\s+){{1,2}}){_GROUP_NOUNS}\b")
_AUXILIARY = r"(?:do|does|did|is|are|was|were|can|could|will|would|should|must|may|might|has|have|shall)"
# "which software does…", "how many lab work marks do…": the noun phrase ends where the verb
# starts; without a following auxiliary the words may be a verb ("what makes up…") and are skipped.
_HEAD_BEFORE_VERB = re.compile(rf"\b(?:how many|which|what)\s+((?:[a-z0-9][a-z0-9.\-]*\s+){{1,3}}?){_AUXILIARY}\b")


def _head_noun(question: str) -> str | None:
    """The noun a how-many/which/what question asks for: the last word before its verb."""
    match = _HEAD_BEFORE_VERB.search(question)
    if not match:
        return None
    words = match.group(1).split()
    if any(w in STOPWORDS for w in words):
        return None
    return words[-1]


def _qualifiers(question: str) -> list[str]:
    """Words that restrict the question to a group or kind: 'part-time' in 'for part-time students'.
    'for my remaining courses' restricts nothing: a phrase with a stop word is skipped."""
    out: list[str] = []
    for match in _QUALIFIER.finditer(question):
        words = match.group(1).split()
        if not any(w in STOPWORDS for w in words):
            out.extend(w for w in words if len(w) > 1)
    return out


_CONDITION = re.compile(r"\bif\s+([^,?;]+)")
# Pieces of contractions ("don't" -> "don"): not words the evidence could contain.
_CONTRACTION_STEMS = frozenset("don doesn didn isn aren wasn weren won can couldn shouldn haven hasn".split())
_CONDITION_MIN_ABSENT = 2


def _unmet_condition(question: str, evidence_terms: set[str]) -> str | None:
    """The words of an if-clause the evidence lacks, when there are enough of them to matter."""
    for match in _CONDITION.finditer(question):
        absent: dict[str, str] = {}  # term -> the word as written, which is what the user is shown
        for term, surface in canonical_terms_with_surface(match.group(1)):
            if not (is_number(term) or term in _CONTRACTION_STEMS or term in evidence_terms):
                absent.setdefault(term, surface)
        if len(absent) >= _CONDITION_MIN_ABSENT:
            return " ".join(absent.values())
    return None


# Below this general-English specificity a word is an everyday verb or adverb ("move", "started",
# "back", "show") that the policies say in other words; above it ("online", "refunded", "switch")
# the word names the very thing asked about. Set on the dev split's yes/no questions.
_POLAR_MIN_SPECIFICITY = 0.4
_POLAR_MIN_ABSENT = 2


def _unmet_polar(question: Question, evidence_terms: set[str]) -> str | None:
    """The specific words of a yes/no question the evidence lacks, when two or more are absent."""
    if not question.polar:
        return None
    absent: dict[str, str] = {}
    for term, surface in question.polar_terms:
        if (
            term in evidence_terms
            or is_number(term)
            or term in _CONTRACTION_STEMS
            or specificity(surface) < _POLAR_MIN_SPECIFICITY
        ):
            continue
        absent.setdefault(term, surface)
    return " ".join(absent.values()) if len(absent) >= _POLAR_MIN_ABSENT else None


def _present(word: str, evidence_terms: set[str]) -> bool:
    terms = canonical_terms(word)
    return not terms or all(t in evidence_terms for t in terms)


def unmet_focus(question: str | Question, evidence_texts: list[str]) -> str | None:
    """The need the question's form names that no evidence text meets, or None."""
    evidence_terms: set[str] = set()
    evidence_quantities: set[str] = set()
    for text in evidence_texts:
        evidence_terms.update(canonical_terms(text))
        evidence_quantities.update(quantities(text))
    return unmet_focus_in(question, evidence_terms, evidence_quantities)


def unmet_focus_in(question: str | Question, evidence_terms: set[str], evidence_quantities: set[str]) -> str | None:
    """`unmet_focus` for evidence already reduced to its canonical terms and quantities."""
    question = analyse_question(question)
    low = question.text.lower()
    words = question.words
    has_money = any(q.startswith("money:") for q in evidence_quantities)
    asked = words & money_words()
    if asked and not (has_money or evidence_terms & money_terms()):
        return sorted(asked)[0]
    head = _head_noun(low)
    if head and head not in _TYPE_HEADS and not all(is_generic(t) for t in canonical_terms(head)):
        if not _present(head, evidence_terms):
            return head
    for word in _qualifiers(low):
        if not _present(word, evidence_terms):
            return word
    return _unmet_condition(low, evidence_terms) or _unmet_polar(question, evidence_terms)
