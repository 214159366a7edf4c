"""A policy document read for the critic: its sentences under their headings, and the parts it has
(numbered sections, lettered appendices, tables, figures) that its references may point to.

Markdown headings (`#`…) and numbered heading lines ("3. Retention", "Appendix B – Forms") start
sections; sentences are split the way the index splits them (`pipeline.language.text`); table
rows, front matter and bare metadata lines are left out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from pipeline.ingest.chunking import section_number
from pipeline.ingest.documents import parse_front_matter
from pipeline.language.text import split_sentences

# The kinds of part a document names with a number or a letter, as its references call them.
LABELLED_KINDS = ("appendix", "annex", "schedule", "part", "table", "figure", "attachment", "exhibit")
NUMBERED_KINDS = ("section", "clause", "paragraph", "para", "article", "chapter", "§")
_LABEL = r"([0-9]+(?:\.[0-9]+)*|[A-Z]{1,2}|[IVX]{1,5})"
_LABELLED = re.compile(rf"^\s*({'|'.join(LABELLED_KINDS)})\s+{_LABEL}\b", re.IGNORECASE)
_MD_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
# A short line, numbered like a heading and not ending as a sentence does: "3. Retention", "4.1 Scope".
_NUMBERED_LINE = re.compile(r"^\s*(?:section\s+)?\d+(?:\.\d+)*[.)]?\s+[^\s].{0,80}$", re.IGNORECASE)
_METADATA_LINE = re.compile(r"^\s*[*_]*(version|effective date|owner|approved by|review date)[*_]*\s*:", re.I)


@dataclass(frozen=True)
class PolicySentence:
    index: int
    section: str
    text: str


@dataclass(frozen=True)
class PolicyText:
    """A document as the critic reads it."""

    name: str
    title: str
    sentences: list[PolicySentence]
    numbers: frozenset[str]  # section numbers of its headings: "3", "4.1"
    labelled: frozenset[tuple[str, str]]  # ("appendix", "a"), ("table", "2")

    def has_number(self, number: str) -> bool:
        """Section `number` is there: it heads a section, or a subsection of it does ("3" and "3.2")."""
        return number in self.numbers or any(n.startswith(number + ".") for n in self.numbers)

    def has_part(self, kind: str, label: str) -> bool:
        return (kind.lower(), label.lower()) in self.labelled


def _labelled_part(line: str) -> tuple[str, str] | None:
    m = _LABELLED.match(line.strip("#*_ \t"))
    return (m.group(1).lower(), m.group(2).lower()) if m else None


def _heading_of(line: str) -> str | None:
    """The heading a line is, or None: a Markdown heading, or a numbered or labelled short line."""
    m = _MD_HEADING.match(line)
    if m:
        return m.group(2).strip("*_ ")
    stripped = line.strip()
    if stripped.endswith((".", ":", ";", ",", "?")) or len(stripped.split()) > 12:
        return None
    if _NUMBERED_LINE.match(stripped) or _labelled_part(stripped):
        return stripped.strip("*_ ")
    return None


def read_policy(text: str, name: str, title: str = "") -> PolicyText:
    """Read a converted document (Markdown or plain text, front matter allowed)."""
    fields, body = parse_front_matter(text if text.endswith("\n") else text + "\n")
    blocks: list[tuple[str, list[str]]] = [("", [])]
    first_heading = ""
    for line in body.splitlines():
        heading = _heading_of(line)
        if heading is not None:
            first_heading = first_heading or heading
            blocks.append((heading, []))
            continue
        if line.lstrip().startswith("|") or _METADATA_LINE.match(line):
            continue  # table rows and "Version: 2.1" lines are no sentences
        blocks[-1][1].append(line)
    sections = [(heading, "\n".join(lines)) for heading, lines in blocks]
    return read_sections(sections, name, title or fields.get("title", "") or first_heading)


def read_sections(sections: Iterable[tuple[str, str]], name: str, title: str = "") -> PolicyText:
    """A document given as (heading, body text) pairs, in order: a converted file's sections, or
    an indexed document's chunks. The headings name the document's parts."""
    sentences: list[PolicySentence] = []
    numbers: set[str] = set()
    labelled: set[tuple[str, str]] = set()
    for heading, body in sections:
        for line in [heading, *body.splitlines()]:
            part = _labelled_part(line)
            if part:  # a heading "Appendix A", or a caption line "Table 2: Rates"
                labelled.add(part)
        number = section_number(heading)
        if number:
            numbers.add(number)
        for sentence in split_sentences(body):
            if re.search(r"[A-Za-z]", sentence):
                sentences.append(PolicySentence(len(sentences), heading, sentence))
    return PolicyText(name, title, sentences, frozenset(numbers), frozenset(labelled))
