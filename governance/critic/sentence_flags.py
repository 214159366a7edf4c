"""The flags one sentence earns on its own: vague wording, no one named to act, no time for a
required act. Each returns a `Finding` (with the words that raised it) or None.

The definitions are the labelling guidelines of `data/critic/README.md`.
"""

from __future__ import annotations

from governance.critic import lexicon as lx
from governance.critic.cues import (
    Cues,
    base_form,
    clause_opener,
    in_case,
    is_be_to,
    is_organisation_act,
    is_participle,
    is_timed_act,
    opening_clause_end,
)
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


def _agent_noun(word: str) -> bool:
    """A noun for one who acts, by its English suffix ("evaluator", "employer", "pharmacist")."""
    return word.endswith(lx.AGENT_SUFFIXES) and len(word) > 5 and word not in lx.NOT_AGENTS


_DECIDING_NOUNS = lx.APPROVAL_NOUNS | {"discretion", "decision", "agreement", "authority", "direction"}
_MEETINGS = lx.OCCASIONS | {"meetings"}


def _named_after(cues: Cues, i: int) -> bool:
    """A "by X" / "from X" / "of X" names who acts (a role, a body, a capitalised name)."""
    doc = cues.doc
    for t in doc[i : i + 6]:
        if t.lower_ == "'s" and t.i and (doc[t.i - 1].lower_ in lx.ROLE_NOUNS or doc[t.i - 1].text[:1].isupper()):
            if t.i + 1 < len(doc) and doc[t.i + 1].lower_ in _DECIDING_NOUNS:
                return True  # "at the manager's discretion", "with the Head's approval" (not "the council's website")
        if t.lower_ in _MEETINGS and t.i + 1 < len(doc) and doc[t.i + 1].lower_ == "of":
            return _named_after(cues, t.i + 1)  # "at each quarterly meeting of the Safety Committee"
    window = doc[i : i + 4]
    for t in window:
        if t.lower_ in ("by", "from", "of", "with") and t.i + 1 < len(doc):
            if t.lower_ == "by" and (doc[t.i + 1].like_num or doc[t.i + 1].lower_ in lx.MONTHS | lx.WEEKDAYS):
                continue  # "by 1 March" is a time, not who acts
            # "by at least two members of the interview panel"; after "from / of / with" the name
            # comes first ("from your supervisor", not "from the 12 weeks you can take")
            names = doc[t.i + 1 : t.i + (9 if t.lower_ == "by" else 4)]
            stop = next((n.i for n in names if n.text in (",", ";", ".") or (n.like_num and t.lower_ != "by")), None)
            if stop is not None:
                names = doc[t.i + 1 : stop]
            if t.lower_ == "by" and len(names) > 1 and names[0].lower_ in ("the", "a", "an", "each", "their", "your"):
                if any(
                    n.lower_ in lx.PERSON_NOUNS or n.lower_ in lx.ROLE_NOUNS or _agent_noun(n.lower_) for n in names
                ):
                    return not any(n.lower_ in lx.VAGUE_OWNERS for n in names)  # "by the holder"
            if any(
                n.lower_ in lx.ROLE_NOUNS
                or (t.lower_ == "by" and n.lower_ in lx.PERSON_NOUNS)
                or (n.text[:1].isupper() and n.i > 0)
                for n in names
            ):
                return not any(n.lower_ in lx.VAGUE_OWNERS for n in names)
    return False


def _in_a_name(doc, i: int) -> bool:
    """Token `i` is a capitalised word inside a longer name ("the Senior Management Board")."""
    if not doc[i].text[:1].isupper():
        return False
    return any(0 < j < len(doc) and doc[j].text[:1].isupper() and doc[j].is_alpha for j in (i - 1, i + 1))


def _vague_owner(cues: Cues) -> str:
    doc = cues.doc
    for t in doc:
        if clause_opener(doc, t.i, lx.CASE_OPENERS):
            continue  # "If you or someone is speaking …", "when someone close to them dies": a case
        if t.i and doc[t.i - 1].lower_ == "or":
            continue  # "the employee, or someone on their behalf, …": the reader or their stand-in
        if t.lower_ in lx.VAGUE_OWNERS and not (t.i > 0 and doc[t.i - 1].lower_ == "of"):
            if not (t.i + 1 < len(doc) and doc[t.i + 1].lower_ in lx.COMPOUND_HEADS) and not _in_a_name(doc, t.i):
                return t.text
        if t.lower_ in lx.VAGUE_OWNER_QUALIFIERS and t.i + 1 < len(doc):
            nxt = doc[t.i + 1]
            if nxt.lower_ in lx.ROLE_NOUNS or nxt.lower_ in ("person", "authority", "body", "party"):
                return f"{t.text} {nxt.text}"
    return ""


def _has_named_agent(cues: Cues) -> bool:
    """Somewhere in the sentence a "by <role or name>" says who acts."""
    return any(t.lower_ == "by" and _named_after(cues, t.i) for t in cues.doc)


def _sent_to_a_name(doc, i: int) -> bool:
    """Right before token `i`, "to <a role or a name>" says to whom something goes."""
    to = next((t.i for t in reversed(doc[max(0, i - 8) : i]) if t.lower_ == "to"), None)
    return to is not None and any(
        t.lower_ in lx.ROLE_NOUNS or (t.text[:1].isupper() and t.is_alpha) for t in doc[to + 1 : i]
    )


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
            if prev == "for" and _sent_to_a_name(doc, t.i - 1):
                continue  # "send the list to the Finance Committee for approval": the approver is named
            return t.text
        if low in ("approved", "authorised", "authorized") and prev in ("an", "a") and prev2 in lx.POINT_IN_TIME:
            continue  # "within ten days of an approved request": the approval is a point in time
        if low in ("approved", "authorised", "authorized") and prev in ("only", "an", "a", "-") and prev2 != "the":
            if not _named_after(cues, t.i + 1):
                return doc[max(0, t.i - 1) : t.i + 1].text
    return ""


def _required_act_without_actor(cues: Cues) -> str:
    """ "Posts … require an enhanced … check": an act of someone else's (a check, an assessment)
    made a condition, with no one named to do it."""
    doc = cues.doc
    for t in doc:
        if t.lower_ in ("require", "requires", "required") and not _named_after(cues, t.i + 1):
            for n in doc[t.i + 1 : t.i + 8]:
                if n.text in (",", ";", ".") or n.lower_ in ("by", "from", "to"):
                    break
                if n.lower_ in lx.ACT_NOUNS:
                    return n.text
    return ""


def _only_before(doc, i: int) -> bool:
    """ "only after / only once / only if … approved": an approval made a condition (it needs an owner)."""
    return any(t.lower_ == "only" for t in doc[max(0, i - 8) : i])


_STANDING_BASES = frozenset(base_form(v) for v in lx.STANDING_VERBS)
_READER_BASES = frozenset(base_form(v) for v in lx.READER_VERBS)
_DECISION_BASES = frozenset(base_form(v) for v in lx.DECISION_VERBS)
_AFTER_CONSIDERED = frozenset(
    {"for", "on", "by", "in", "at", "if", "when", "within", "case", "before", "after", "only", "."}
)


def _modal_before(doc, start: int) -> int | None:
    """The modal (or "need", or a duty's "is / are to") a passive starting at `start` follows,
    adverbs and "then / also / only / to" between ("will then be", "need to be", "is to be"), or
    None; None too where it is negated ("will not be paid", "cannot be used"): a refusal or a
    prohibition, not an act to be done."""
    j = start - 1
    while j >= 0 and (doc[j].lower_.endswith("ly") or doc[j].lower_ in ("then", "also", "only", "to", "all")):
        j -= 1
    if j < 0 or not (doc[j].lower_ in lx.MODALS or doc[j].lower_ in ("need", "needs") or is_be_to(doc, j)):
        return None
    if any(t.lower_ in ("not", "n't", "never", "no") for t in doc[max(0, j - 2) : start]):
        return None
    return j


def _subject_is_a_person(doc, i: int) -> bool:
    """The clause before token `i` is about people ("Candidates will be …", "Staff who lose … may
    be …", "Where …, the applicant is to be …"): its first noun after the last comma and any
    determiners is one of the person nouns."""
    start = next((t.i + 1 for t in reversed(doc[:i]) if t.text in (",", ";", ":")), 0)
    for t in doc[start:i]:
        if t.lower_ in ("the", "all", "any", "each", "every", "a", "an", "new", "other", "those", "these"):
            continue
        return t.lower_ in lx.PERSON_NOUNS
    return False


def _handed_to_a_person(doc, end: int) -> bool:
    """Right after a passive ending at `end`, "to the applicant" / "to staff": done to a person."""
    following = [t.lower_ for t in doc[end : end + 3]]
    if following[:1] != ["to"]:
        return False
    rest = following[1:]
    if rest[:1] and rest[0] in ("the", "a", "an", "each", "every", "all", "any"):
        rest = rest[1:]
    return bool(rest) and rest[0] in lx.PERSON_NOUNS and rest[0] != "you"


def _someone_elses_act(cues: Cues, start: int, end: int) -> bool:
    """An agentless passive of what will or may happen ("will be wiped", "may be reallocated") is
    an act of someone other than the one the rule binds, unless its verb is one that person does
    with their own things ("may be carried over") or states how things are ("is entitled"); a
    passive done to people ("Candidates will be given …", "should be shortlisted") always is."""
    doc = cues.doc
    j = _modal_before(doc, start)
    if j is None:
        return False
    participle = doc[end - 1]
    if _subject_is_a_person(doc, j):
        return participle.lower_ not in lx.STATE_PARTICIPLES
    if _handed_to_a_person(doc, end):
        return True  # "is to be sent to the applicant": the organisation hands it over
    if is_be_to(doc, j):
        # "Head counts are to be carried out": a step with no one named, unless the one the rule
        # binds does it with their own things ("Accidents are to be reported to …")
        return participle.lower_ not in lx.STATE_PARTICIPLES and base_form(participle.text) not in _READER_BASES
    if doc[j].lower_ not in lx.COMMITMENT_MODALS:
        return False  # "must be cleaned": a duty, most often of the one the rule binds
    if participle.lower_ in lx.STATE_PARTICIPLES:
        return False
    # what may be done is often the holder's own ("may be carried over"); what will be done to
    # their things, someone else does ("will be paid out", "will be returned to the donors")
    return doc[j].lower_ in ("will", "would") or base_form(participle.text) not in _READER_BASES


def no_owner(cues: Cues) -> Finding | None:
    """An act of the organisation (approval, review, record, decision…) with no one named to do it."""
    vague_owner = _vague_owner(cues)
    if vague_owner:
        return Finding("no_owner", vague_owner, f'"{vague_owner}" names no one: say which role acts or approves.')
    if cues.has("deferral"):
        return None
    approval = _approval_without_approver(cues) or _required_act_without_actor(cues)
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
        if doc[cue.start].lower_ == "been" and cue.start and doc[cue.start - 1].lower_ in ("have", "has", "had"):
            if not any(t.lower_ in lx.MODALS for t in doc[max(0, cue.start - 3) : cue.start]) and not (
                participle.lower_ in lx.APPROVED and _only_before(doc, cue.start)
            ):
                continue  # "they have been reviewed in the past": what happened, not a rule
        if (cue.start and doc[cue.start - 1].lower_ in ("who", "that", "which")) or clause_opener(
            doc, cue.start, ("whose",), lx.MODALS
        ):
            continue  # "Staff who are refused a permit …", "a student whose result is withheld …": a case
        negated = any(t.lower_ in ("not", "n't", "never") for t in doc[max(0, cue.start - 3) : cue.start])
        if negated and participle.lower_ not in lx.APPROVED:
            continue  # "must not be carried out alone", "will not be paid": a prohibition or a refusal
        if clause_opener(doc, cue.start, lx.CASE_OPENERS, lx.MODALS) and participle.lower_ not in lx.APPROVED:
            continue  # "when it is granted, …", "unless it is encrypted": a case, not a step
        if participle.lower_ == "considered" and cue.end < len(doc) and doc[cue.end].lower_ not in _AFTER_CONSIDERED:
            continue  # "is considered regular hours": regarded as, not weighed by someone
        if (is_organisation_act(participle) or _someone_elses_act(cues, cue.start, cue.end)) and not _named_after(
            cues, cue.end
        ):
            return Finding("no_owner", cue.text, f'"{cue.text}" by whom? Name the role that does it.')
    return None


def _criteria_after(doc, i: int) -> bool:
    """The words after an act at `i` give its criteria ("… if the course is relevant", "… on a
    case-by-case basis"), not its time."""
    following = [t.lower_ for t in doc[i + 1 : i + 10]]
    if any(w in ("if", "provided", "unless", "discretion") for w in following[:6]) or following[:1] == ["case"]:
        return True
    if following[:1] == ["only"]:
        return True  # "are issued only to staff whose …", "will be considered only in …"
    return "on" in following[:3] and "basis" in following


# "in order to obtain …", "a request to have it installed": the reader's own way of getting something
_GETTING_VERBS = frozenset({"have", "get", "obtain"})


def _timed_act_required(cues: Cues) -> str:
    """The words of a required act that happens at a time, or ""."""
    doc = cues.doc
    if doc[0].lower_ == "to" and len(doc) > 1 and doc[1].lower_ in lx.IMPERATIVE_VERBS:
        return ""  # "To use your leave, you must submit …": the reader's own way of getting something
    # "Submit this form to initiate the request": an instruction's purpose is what the reader wants
    purposes = lx.PURPOSE_VERBS if cues.has("imperative") else _GETTING_VERBS
    if cues.has("deferral") or any(
        (t.lower_ == "order" and t.i and doc[t.i - 1].lower_ == "in")
        or (t.lower_ == "to" and t.i + 1 < len(doc) and doc[t.i + 1].lower_ in purposes)
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
    deciders = {c.end for c in requirement if c.text.lower().startswith("responsib")}
    for anchor in [c.end for c in requirement] + [t.i + 1 for t in commitments]:
        for t in doc[anchor : anchor + 30]:
            if anchor in deciders and base_form(t.text) in _DECISION_BASES:
                break  # "Your supervisor is responsible for approving …": who decides, not a step
            if t.lower_ in ("if", "only") or (t.lower_ == "on" and "case" in [x.lower_ for x in doc[t.i : t.i + 4]]):
                break  # "will be approved if …", "paid only in …": criteria, not a step
            prev = doc[t.i - 1].lower_ if t.i else ""
            # the act itself, or an act coordinated with it: "accept …, obtain …, and document …"
            verb_position = t.i - anchor < 3 or prev in (",", "and", "or", "to", "then") or prev.endswith("ly")
            if t.text[:1].isupper() or prev in ("a", "an", "the", "their", "your", "its"):
                continue  # "see the Hire and Review Conditions", "keep a log": a name or a noun, not an act
            passive = any(x.lower_ in lx.BE_FORMS for x in doc[anchor : t.i])
            if verb_position and is_timed_act(t) and (not is_participle(t) or passive):
                if is_organisation_act(t) and _criteria_after(doc, t.i):
                    break  # "will be approved if the course is relevant": criteria, not a step
                return doc[anchor - 1 : t.i + 1].text
    for t in doc[1:]:
        if _named_present_step(doc, t.i):
            return doc[t.i - 1 : t.i + 1].text
    # A duty with only a vague time: "should be tested regularly", "should be raised as soon as possible"
    if cues.has("vague_time"):
        for cue in cues.all("passive"):
            if _passive_step(cues, cue.start, cue.end):
                return cue.text
    # A present-tense step of a procedure: "All declarations are recorded …"
    if not cues.has("permit"):
        for cue in cues.all("passive"):
            participle = doc[cue.end - 1]
            if in_case(doc, cue.start, lx.CASE_OPENERS):
                continue  # "This policy sets out how students … are evaluated": a description
            if doc[cue.start].lower_ in ("is", "are") and is_timed_act(participle) and is_organisation_act(participle):
                if not _has_named_agent(cues) and not _criteria_after(doc, cue.end - 1):
                    return cue.text
    return ""


_AFTER_A_NOUN = frozenset({"of", "for", "that", "which", "and", "or"})
_SUBJECT_WORDS = frozenset({"the", "your", "their", "our", "a", "an", "each", "every", "'s", "of"})


def _named_present_step(doc, i: int) -> bool:
    """Token `i` is a present-tense step a named role or team takes in a procedure ("the Licensing
    Team reviews the request", "your supervisor notifies …"): a timed verb in -s right after the name,
    outside a clause that names a case ("if your supervisor approves, …")."""
    verb, name = doc[i], doc[i - 1]
    low = verb.lower_
    if not (verb.text.islower() and low.endswith("s") and not low.endswith("ss") and is_timed_act(verb)):
        return False
    if base_form(low) in _DECISION_BASES:
        return False  # "The Head decides requests for …" says who decides, not a step to be done
    if not (name.lower_ in lx.ROLE_NOUNS or (name.text[:1].isupper() and (name.i > 0 or name.text.isupper()))):
        return False
    # the name is the clause's subject: back from it only more of the name, up to where a clause starts
    j = i - 2
    while j >= 0 and (doc[j].text[:1].isupper() or doc[j].lower_ in lx.ROLE_NOUNS or doc[j].lower_ in _SUBJECT_WORDS):
        j -= 1
    if j >= 0 and doc[j].text not in (",", ";", ":") and doc[j].lower_ not in ("and", "then"):
        return False
    nxt = doc[i + 1].lower_ if i + 1 < len(doc) else "."
    if not nxt[:1].isalpha() or nxt in lx.MODALS or nxt in lx.BE_FORMS or nxt in _AFTER_A_NOUN:
        if not (nxt in ("and", "or") and i + 2 < len(doc) and is_timed_act(doc[i + 2])):
            return False  # "Travel requests must …", "the Director's reviews of …": a noun, not a step
    return not in_case(doc, i, lx.CASE_OPENERS)


def _passive_step(cues: Cues, start: int, end: int) -> bool:
    """A passive after a modal of duty or commitment ("will be wiped", "must be completed") names
    an act done at some moment, unless it is a standing rule ("must be kept", "is entitled"), a
    case ("when it is granted"), a refusal ("will not be paid") or who decides on what grounds
    ("are decided at the discretion of …")."""
    doc = cues.doc
    j = _modal_before(doc, start)
    if j is None or not (
        doc[j].lower_ in ("will", "shall", "must", "should", "would", "need", "needs") or is_be_to(doc, j)
    ):
        return False
    if in_case(doc, j, (*lx.CASE_OPENERS, "whether")) or (
        doc[0].lower_ == "to" and len(doc) > 1 and doc[1].lower_ != "be"
    ):
        return False  # "To qualify, …": the reader's own way of getting something
    participle = doc[end - 1]
    if participle.lower_ in lx.STATE_PARTICIPLES or base_form(participle.text) in _STANDING_BASES:
        return False
    return not _criteria_after(doc, end - 1)


def _condition_end(doc) -> int:
    """Where the if-clause the sentence opens with ends ("If you are leaving within 120 days, you
    need to …"), or 0: a time before it says when the rule applies, not when its act is due."""
    comma = opening_clause_end(doc, ("if", "unless"))
    return comma if comma is not None else 0


def _limit_after_vague_time(cues: Cues) -> bool:
    """A firm limit right after the vague time bounds it: "promptly and in any event within 20
    working days", "as soon as possible and at the latest by Friday"."""
    doc = cues.doc
    for vague_time in cues.all("vague_time"):
        for time in cues.all("time"):
            between = {t.lower_ for t in doc[vague_time.end : time.start]}
            if 0 <= time.start - vague_time.end <= 5 and between & {"event", "case", "latest"}:
                return True
    return False


def no_deadline(cues: Cues) -> Finding | None:
    """A required act that happens at a time, with no time given (or only a vague one)."""
    act = _timed_act_required(cues)
    if not act:
        return None
    if cues.has("vague_time") and not _limit_after_vague_time(cues):
        words = cues.first("vague_time")
        return Finding("no_deadline", words, f'"{words}" is no deadline: give one ("within 5 working days").')
    condition_end = _condition_end(cues.doc)
    if any(t.start >= condition_end for t in cues.all("time")):
        return None
    return Finding("no_deadline", act, f'"{act}" — by when? Give a time limit.')
