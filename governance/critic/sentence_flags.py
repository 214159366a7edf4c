"""The flags one sentence earns on its own: vague wording, no one named to act, no time for a
required act. Each returns a `Finding` (with the words that raised it) or None.

The definitions are the labelling guidelines of `data/critic/README.md`.
"""

from __future__ import annotations

from governance.critic import lexicon as lx
from governance.critic.cues import Cues, clause_opener, is_organisation_act, is_participle, is_timed_act
from governance.critic.records import Finding


def is_obligation(cues: Cues) -> bool:
    """Required or forbidden with a modal or deontic word, or forbidden by an instruction."""
    return cues.has("oblige") or cues.has("forbid") or cues.has("restrict")


def is_requirement(cues: Cues) -> bool:
    return is_obligation(cues) or cues.has("imperative")


def vague(cues: Cues) -> Finding | None:
    """A hedge or a vague phrase ("where appropriate") anywhere; a vague word ("some", "reasonable")
    where the sentence states a rule."""
    if cues.has("hedge") or cues.has("vague_phrase"):
        words = cues.first("hedge") or cues.first("vague_phrase")
    elif cues.has("normative") and (cues.has("vague") or cues.has("vague_time")):
        words = cues.first("vague") or cues.first("vague_time")
    else:
        return None
    return Finding("vague", words, f'Say exactly what "{words}" means here: a number, a date, a list or a test.')


def _named_after(cues: Cues, i: int) -> bool:
    """A "by X" / "from X" / "of X" names who acts (a role, a body, a capitalised name)."""
    doc = cues.doc
    window = doc[i : i + 4]
    for t in window:
        if t.lower_ in ("by", "from", "of", "with") and t.i + 1 < len(doc):
            names = doc[t.i + 1 : t.i + 7]
            if any(n.lower_ in lx.ROLE_NOUNS or (n.text[:1].isupper() and n.i > 0) for n in names):
                return not any(n.lower_ in lx.VAGUE_OWNERS for n in names)
    return False


def _vague_owner(cues: Cues) -> str:
    doc = cues.doc
    for t in doc:
        if t.lower_ in lx.VAGUE_OWNERS and not (t.i > 0 and doc[t.i - 1].lower_ == "of"):
            if not (t.i + 1 < len(doc) and doc[t.i + 1].lower_ in lx.COMPOUND_HEADS):
                return t.text
        if t.lower_ in lx.VAGUE_OWNER_QUALIFIERS and t.i + 1 < len(doc):
            nxt = doc[t.i + 1]
            if nxt.lower_ in lx.ROLE_NOUNS or nxt.lower_ in ("person", "authority", "body", "party"):
                return f"{t.text} {nxt.text}"
    return ""


def _has_named_agent(cues: Cues) -> bool:
    """Somewhere in the sentence a "by <role or name>" says who acts."""
    return any(t.lower_ == "by" and _named_after(cues, t.i) for t in cues.doc)


def _approval_without_approver(cues: Cues) -> str:
    doc = cues.doc
    for t in doc:
        low = t.lower_
        prev = doc[t.i - 1].lower_ if t.i > 0 else ""
        prev2 = doc[t.i - 2].lower_ if t.i > 1 else ""
        if low in lx.APPROVAL_NOUNS:
            nxt = doc[t.i + 1].lower_ if t.i + 1 < len(doc) else ""
            if prev in ("without", "no", "your") or nxt in lx.APPROVAL_COMPOUNDS:
                continue
            if prev in lx.VAGUE_OWNERS:
                return f"{doc[t.i - 1].text} {t.text}"
            if (
                prev in lx.ROLE_NOUNS
                or prev.endswith("'s")
                or prev == "'s"
                or (prev[:1] and doc[t.i - 1].text[:1].isupper())
            ):
                continue
            if _named_after(cues, t.i + 1):
                continue
            return t.text
        if low in ("approved", "authorised", "authorized") and prev in ("only", "an", "a", "-") and prev2 != "the":
            if not _named_after(cues, t.i + 1):
                return doc[max(0, t.i - 1) : t.i + 1].text
    return ""


def _only_before(doc, i: int) -> bool:
    """ "only after / only once / only if … approved": an approval made a condition (it needs an owner)."""
    return any(t.lower_ == "only" for t in doc[max(0, i - 6) : i])


_AFTER_CONSIDERED = frozenset({"for", "on", "by", "in", "at", "if", "when", "within", "."})


def no_owner(cues: Cues) -> Finding | None:
    """An act of the organisation (approval, review, record, decision…) with no one named to do it."""
    vague_owner = _vague_owner(cues)
    if vague_owner:
        return Finding("no_owner", vague_owner, f'"{vague_owner}" names no one: say which role acts or approves.')
    if cues.has("deferral"):
        return None
    approval = _approval_without_approver(cues)
    if approval:
        return Finding("no_owner", approval, f"Say who gives the {approval.split()[-1]}: name the role.")
    if _has_named_agent(cues):
        return None
    doc = cues.doc
    for cue in cues.all("passive"):
        participle = doc[cue.end - 1]
        clause_start = cue.start - 4 if cue.start >= 4 else 0
        if any(t.lower_ in ("once", "after", "already") for t in doc[clause_start : cue.start + 1]):
            if not (participle.lower_ in lx.APPROVED and _only_before(doc, cue.start)):
                continue  # an earlier act used as a point in time, or a state
        in_case = clause_opener(doc, cue.start, ("when", "once", "after", "if", "unless"), lx.MODALS)
        if in_case and participle.lower_ not in lx.APPROVED:
            continue  # "when it is granted, …", "unless it is encrypted": a case, not a step
        if participle.lower_ == "considered" and cue.end < len(doc) and doc[cue.end].lower_ not in _AFTER_CONSIDERED:
            continue  # "is considered regular hours": regarded as, not weighed by someone
        if is_organisation_act(participle) and not _named_after(cues, cue.end):
            return Finding("no_owner", cue.text, f'"{cue.text}" by whom? Name the role that does it.')
    return None


def _criteria_after(doc, i: int) -> bool:
    """The words after an act at `i` give its criteria ("… if the course is relevant", "… on a
    case-by-case basis"), not its time."""
    following = [t.lower_ for t in doc[i + 1 : i + 10]]
    if any(w in ("if", "provided", "unless") for w in following[:6]):
        return True
    return "on" in following[:3] and "basis" in following


def _timed_act_required(cues: Cues) -> str:
    """The words of a required act that happens at a time, or ""."""
    doc = cues.doc
    if cues.has("deferral") or any(
        (t.lower_ == "order" and t.i and doc[t.i - 1].lower_ == "in")
        or (t.lower_ == "to" and t.i + 1 < len(doc) and doc[t.i + 1].lower_ in ("have", "get", "obtain"))
        for t in doc
    ):
        # a named procedure says when; "in order to obtain …", "submit a request to have it
        # installed" is the reader's own way of getting something, at a moment the reader picks
        return ""
    for cue in cues.all("imperative"):
        if is_timed_act(doc[cue.start]):
            return cue.text
    requirement = cues.all("oblige") + cues.all("restrict") + cues.all("imperative")
    commitments = [
        t for t in doc if t.lower_ in ("will", "shall") and not (t.i + 1 < len(doc) and doc[t.i + 1].lower_ == "not")
    ]
    for anchor in [c.end for c in requirement] + [t.i + 1 for t in commitments]:
        for t in doc[anchor : anchor + 30]:
            if t.lower_ in ("if", "only") or (t.lower_ == "on" and "case" in [x.lower_ for x in doc[t.i : t.i + 4]]):
                break  # "will be approved if …", "paid only in …": criteria, not a step
            prev = doc[t.i - 1].lower_ if t.i else ""
            # the act itself, or an act coordinated with it: "accept …, obtain …, and document …"
            verb_position = t.i - anchor < 3 or prev in (",", "and", "or", "to", "then") or prev.endswith("ly")
            passive = any(x.lower_ in lx.BE_FORMS for x in doc[anchor : t.i])
            if verb_position and is_timed_act(t) and (not is_participle(t) or passive):
                if is_organisation_act(t) and _criteria_after(doc, t.i):
                    break  # "will be approved if the course is relevant": criteria, not a step
                return doc[anchor - 1 : t.i + 1].text
    # A present-tense step of a procedure: "All declarations are recorded …"
    if not cues.has("permit"):
        for cue in cues.all("passive"):
            participle = doc[cue.end - 1]
            if doc[cue.start].lower_ in ("is", "are") and is_timed_act(participle) and is_organisation_act(participle):
                if not _has_named_agent(cues):
                    return cue.text
    return ""


def no_deadline(cues: Cues) -> Finding | None:
    """A required act that happens at a time, with no time given (or only a vague one)."""
    act = _timed_act_required(cues)
    if not act:
        return None
    if cues.has("vague_time"):
        words = cues.first("vague_time")
        return Finding("no_deadline", words, f'"{words}" is no deadline: give one ("within 5 working days").')
    if cues.has("time"):
        return None
    return Finding("no_deadline", act, f'"{act}" — by when? Give a time limit.')
