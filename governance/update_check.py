"""The post-update check: after an approved change is applied, is the library what the ticket says?

It asks the claim's question and its paraphrases ("What is the attendance requirement?", "What is
the minimum attendance required to sit the end-semester examination?") and passes only when

- the claim retrieves no deprecated chunk;
- the first of the questions that is answered (the claim itself, else a paraphrase: the gate's
  reader judges whether a sentence answers a question, and a claim written as a statement, "The
  attendance requirement changed to 60% last month", is not one) cites a new version (or the
  added section) and states each claimed value ("60%");
- no answer to any of the questions cites a sentence still stating an old value for the subject;
- and no active chunk of the whole library still states an old value for the subject
  (governance.rule_search), except the sections the reviewer chose to keep unchanged.

A conflict ticket (two documents disagreed) passes when the two chunks, as they now stand, no
longer disagree (governance.conflicts). Otherwise the reason names what still disagrees, and the
caller rolls the change back.
"""

from __future__ import annotations

import re

from governance.claims import detect_claim
from governance.conflicts import still_disagree
from governance.contradictions import _sentence_spans
from governance.rule_search import Rule, still_stating_old
from governance.tickets import Ticket
from pipeline.ground.audience import EVERYTHING
from pipeline.ingest.index import ACTIVE
from pipeline.language.text import content_terms

MAX_PARAPHRASES = 2
_COPULA_END = re.compile(
    r"^(?P<what>.+?)\s+(?:is|are|remains|remain|stays)(?:\s+(?:at least|at most|up to))?\s*$", re.I
)


def kept_unchanged(ticket: Ticket) -> set[str]:
    """The affected chunks whose replacement the reviewer set back to the current text."""
    return {
        a["chunk_id"]
        for a in ticket.affected
        if " ".join(ticket.replacements.get(a["chunk_id"], "").split()) == " ".join(a["text"].split())
    }


def _question(what: str) -> str:
    what = what.strip().rstrip(",;:")
    return f"What is {what[0].lower() + what[1:]}?" if what else ""


def paraphrases(ticket: Ticket) -> list[str]:
    """Other ways to ask the claim's question: its subject ("What is the attendance requirement?"),
    and the best statement of the rule read up to its value ("The minimum attendance required to
    sit the end-semester examination is 75%" → "What is the minimum attendance required to sit
    the end-semester examination?")."""
    questions: list[str] = []
    claim = detect_claim(ticket.claim)
    # a subject that ends in a word of its own ("The attendance requirement"), not in "may" or "is"
    if claim is not None and len(claim.subject.split()) >= 2 and content_terms(claim.subject.split()[-1]):
        questions.append(_question(claim.subject))
    for c in ticket.contradictions[:1]:
        text = next((a["text"] for a in ticket.affected if a["chunk_id"] == c["chunk_id"]), "")
        at = c["chunk_span"]["start"]
        sentence_start = next((s for s, e, _ in _sentence_spans(text) if s <= at < e), None)
        if sentence_start is not None:
            head = _COPULA_END.match(text[sentence_start:at])
            if head:
                questions.append(_question(head.group("what")))
    seen = {ticket.statement.lower()}
    out = []
    for q in questions:
        if q and q.lower() not in seen:
            seen.add(q.lower())
            out.append(q)
    return out[:MAX_PARAPHRASES]


def _states_old(rules: list[Rule], answer, kept: set[str]) -> list[str]:
    found = []
    for citation in answer.citations:
        if citation.chunk_id in kept:
            continue
        for sentence in citation.sentence_quotes():
            for rule in rules:
                held = rule.states_old(sentence, citation.section)
                if held:
                    found.append(f'{citation.title} §{citation.section} ("{held[0].text}")')
    return found


def post_update_check(engine, ticket: Ticket, plan: dict) -> dict:
    """The check's result: passed, a reason naming what still disagrees, and what was asked."""
    new_ids = {n["id"] for n in plan["new"]}
    old_ids = {o["id"] for o in plan["old"]}
    if ticket.kind == "conflict":
        # the two chunks as they now stand: the one kept and the new version of the one edited
        ids = [i for i in (ticket.conflict or {}).get("chunks", []) if i not in old_ids] + sorted(new_ids)
        problems = [
            f"{c.titles[0]} §{c.sections[0]} and {c.titles[1]} §{c.sections[1]} still disagree ({c.what})"
            for c in still_disagree(engine.index, ids)
        ]
        return {
            "passed": not problems,
            "reason": "; ".join(problems) or "the two sections no longer disagree",
            "questions": [],
        }
    rules = [Rule.from_dict(r) for r in ticket.rules]
    kept = kept_unchanged(ticket)
    questions = [ticket.statement, *paraphrases(ticket)]
    # The system's own check: every document, whoever may read the changed one.
    nodes, _ = engine.retrieve(ticket.statement, EVERYTHING)
    retrieved = [n.node.node_id for n in nodes]
    problems = []
    if old_ids & set(retrieved):
        problems.append("a deprecated chunk is still retrieved")
    asked: list[dict] = []
    checked: dict = {}  # the first question answered: it must cite and state the new text
    for question in questions:
        answer = engine.ask(question, log=False, audience=EVERYTHING)
        cited = [c.chunk_id for c in answer.citations]
        asked.append({"question": question, "decision": answer.decision, "cited": cited})
        if not checked and answer.decision == "answer":
            checked = asked[-1]
            if not new_ids & set(cited):
                problems.append(f'the answer to "{question}" does not cite the new text')
            said = " ".join(q for c in answer.citations for q in c.sentence_quotes())
            missing = [r.new_text for r in rules if not r.states_new(said)]
            if missing:
                problems.append(f'the answer to "{question}" does not state {", ".join(missing)}')
        stale = _states_old(rules, answer, kept)
        if stale:
            problems.append(f'the answer to "{question}" cites {"; ".join(dict.fromkeys(stale))}')
    if not checked:
        decisions = "; ".join(f'"{a["question"]}": {a["decision"]}' for a in asked)
        problems.append(f"no question of the claim is answered, so none cites the new text ({decisions})")
    active = engine.index.get_nodes(where={"status": ACTIVE})
    left = still_stating_old(rules, active, kept)
    if left:
        where = "; ".join(dict.fromkeys(f'{x["title"]} §{x["section"]} ("{x["value"]}")' for x in left))
        problems.append(f"still stating the old value: {where}")
    if kept:
        sections = [f"{a['title']} §{a['section']}" for a in ticket.affected if a["chunk_id"] in kept]
        note = f"; kept unchanged by the reviewer: {'; '.join(sections)}"
    else:
        note = ""
    return {
        "passed": not problems,
        "reason": (
            "; ".join(problems)
            or "new text retrieved and cited, the new value stated, no section left stating the old one"
        )
        + note,
        "question": checked.get("question", ticket.statement),
        "questions": asked,
        "retrieved": retrieved,
        "cited": checked.get("cited", []),
        "decision": checked.get("decision", asked[0]["decision"] if asked else ""),
        "still_disagreeing": left,
    }
