"""Critiques as a person reads them: plain text (the command line) and table rows (the Documents
tab). Both list only the sentences with findings, in document order."""

from __future__ import annotations

import textwrap

from governance.critic.records import FLAGS, DocumentCritique

TABLE_HEADERS = ["document", "section", "sentence", "flags", "what to do"]


# Why a critique stopped early: the app reads a budget of sentences per request (service.py).
_BUDGET = (
    " (the app reads a set number of sentences per request: check a long document in parts,"
    " or critique it with python -m governance documents critique, which reads every sentence)"
)
_BUDGET_SPENT = (
    " (the app reads a set number of sentences per request, and the documents before this one used"
    " them: check it on its own, or critique it with python -m governance documents critique)"
)


def summary(critique: DocumentCritique) -> str:
    """ "fees.md: 12 of 40 sentences flagged (vague 3, no owner 2, …)"; a document the budget left
    unread, in part or whole, says so."""
    counts = ", ".join(f"{flag.replace('_', ' ')} {n}" for flag, n in critique.counts().items() if n)
    flagged = len(critique.flagged())
    name = critique.name + (f' ("{critique.title}")' if critique.title and critique.title != critique.name else "")
    if critique.unread and not critique.sentences:
        return f"{name}: not read, {critique.unread:,} sentences{_BUDGET_SPENT}"
    line = f"{name}: {flagged} of {len(critique.sentences)} sentences flagged" + (f" ({counts})" if counts else "")
    if critique.unread:
        line += f"; only the first {len(critique.sentences):,} sentences were read, {critique.unread:,} more were not{_BUDGET}"
    return line


def as_text(critiques: list[DocumentCritique], width: int = 100) -> str:
    blocks = []
    for critique in critiques:
        lines = [summary(critique)]
        for sentence in critique.flagged():
            where = f"[{sentence.section}] " if sentence.section else ""
            lines += textwrap.wrap(
                where + sentence.text, width, initial_indent="  ", subsequent_indent="    ", break_on_hyphens=False
            )
            for finding in sentence.findings:
                label = f"{finding.flag} ({FLAGS[finding.flag]})"
                lines += textwrap.wrap(
                    f"- {label}: {finding.advice}", width, initial_indent="    ", subsequent_indent="      "
                )
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def as_rows(critiques: list[DocumentCritique]) -> list[list[str]]:
    return [
        [
            critique.name,
            sentence.section,
            sentence.text,
            ", ".join(sentence.flags),
            " ".join(f.advice for f in sentence.findings),
        ]
        for critique in critiques
        for sentence in critique.flagged()
    ]
