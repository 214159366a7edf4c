"""Several questions in one message: "When is the test held, and how many marks does it carry?"

The synthesiser ranks sentences against the whole question, so the part with more (or rarer)
words wins every answer slot and the other part goes unanswered. Split such a message into its
parts so each can bring its own evidence and its own best sentence to the answer, and so a part
the documents do not cover can be named. A message asks several things when it has several
questions, or one question whose clauses start with a question word after "and" or after a comma
("How much is the fee, how long does it take, and can my parents collect it?").

Each part is searched with the question's scene-setting words ("If I add a course during the
add/drop period, …", "I'm a part-time student with 70% attendance. …"), because they condition the
answer: without them "from when is my attendance counted" finds the general attendance rule.
Its answer sentence is ranked on the part's own words when they stand alone, because the
scene-setting words would rank the other part's sentence first again; a part that is short or
refers back ("how much will it cost me?") keeps its context there too, and a programme named in
the context (one of the glossary's `named_groups.programmes`) goes with every part, because the
rules differ by programme.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pipeline.language.text import canonical_terms, first_named, split_sentences

# "…, and how many…", "… and when is…", "…, and if not, how long…": a conjunction that starts a
# new question, not one that joins two nouns ("add and drop", "photocopy and a transcript").
_WH_WORDS = r"(?:how|what|when|where|which|who|whom|why)"
_QUESTION_WORDS = (
    r"(?:how|what|when|where|which|who|whom|why|can|could|do|does|did|is|are|will|would|should|may|must|if)"
)
_JOIN = re.compile(rf",?\s+and\s+(?={_QUESTION_WORDS}\b)|,\s+(?={_WH_WORDS}\b)", re.I)
# "As a part-time student, when…", "If I withdraw from a course, what…": a lead-in before the first
# comma that sets the scene for every part, not only the first.
_LEAD_IN = re.compile(r"^((?:as|for|if|in|after|once|since|while)\b[^,?]{3,80}),\s*", re.I)
_STANDS_ALONE = 2  # content words a part needs to be ranked on without its context
_REFERS_BACK = re.compile(r"\b(it|its|them|they|their|this|that|these|those)\b", re.I)


@dataclass(frozen=True)
class QuestionPart:
    """`search`: the part with the question's context, to retrieve and judge evidence with.
    `focus`: the words that say what this part asks, to rank answer sentences with (the part
    alone when it stands alone; otherwise the same as `search`). `asked`: the part as the
    message writes it, to name it to the user ("is there a hostel curfew?")."""

    search: str
    focus: str
    asked: str = ""


def question_parts(question: str) -> list[QuestionPart]:
    """The question's parts, or [] when it asks one thing."""
    return parts_of_sentences(split_sentences(question.strip()) or [question.strip()])


def parts_of_sentences(sentences: list[str]) -> list[QuestionPart]:
    """`question_parts` of a question already split into its sentences (pipeline.language.question)."""
    asking = [s for s in sentences if s.rstrip().endswith("?")] or sentences[-1:]
    context = " ".join(s for s in sentences if s not in asking)
    # the lead-in is read before the split: its comma does not start a part ("As a B.Tech student, when…")
    lead = _LEAD_IN.match(asking[0])
    if lead:
        context = f"{context} {lead.group(1)},".strip()
        asking = [asking[0][lead.end() :], *asking[1:]]
    clauses = [c.strip(" ,;") for s in asking for c in _JOIN.split(s)]
    clauses = [c for c in clauses if c]
    if len(clauses) < 2:
        return []
    if any(not canonical_terms(c) for c in clauses):
        return []
    programme = first_named(context, "programmes")
    parts = []
    for clause in clauses:
        search = f"{context} {clause}".strip()
        if len(canonical_terms(search)) < _STANDS_ALONE:
            return []
        focus = clause
        if len(canonical_terms(clause)) < _STANDS_ALONE or _REFERS_BACK.search(clause):
            focus = search
        elif programme and not first_named(clause, "programmes"):
            focus = f"{programme[1]}: {clause}"
        parts.append(QuestionPart(search=search, focus=focus, asked=clause))
    return parts
