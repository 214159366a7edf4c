"""The critic: every sentence of one document with the flags it earns.

Sentence flags (vague, no_owner, no_deadline) read the sentence alone (one that points to a part its
document lacks defers who and when to that part, so gets neither of the last two); the others need
the document: an obligation has a consequence when the sentence, the next one about the same thing,
or a general enforcement clause states one; a contradiction is a pair of sentences; a reference
points to the document's own parts. With the trained flagger (flagger.py), the model decides the
first three, reading each sentence with its heading and the sentence after it.
"""

from __future__ import annotations

import dataclasses

from governance.critic import sentence_flags
from governance.critic.conflicts import Embed, contradictions
from governance.critic.cues import Cues, base_form, read_cues
from governance.critic.flagger import DECIDED, FlaggerInput, SentenceFlagger
from governance.critic.reading import PolicyText, read_policy
from governance.critic.records import FLAGS, CriticisedSentence, DocumentCritique, Finding
from governance.critic.references import dangling_references


def _content_stems(cues: Cues) -> set[str]:
    return {base_form(t.text) for t in cues.doc if t.is_alpha and len(t) > 3 and not t.is_stop}


def _no_consequence(i: int, cues: list[Cues], enforced: bool) -> Finding | None:
    here = cues[i]
    if enforced or not sentence_flags.is_obligation(here) or here.has("consequence"):
        return None
    if i + 1 < len(cues) and cues[i + 1].has("consequence") and _content_stems(here) & _content_stems(cues[i + 1]):
        return None
    words = here.first("forbid") or here.first("restrict") or here.first("oblige")
    return Finding(
        "no_consequence",
        words,
        "Nothing says what happens if this is not done: state the consequence, or add an enforcement clause.",
    )


# What a flag the rules did not raise says, when the flagger raises it.
_FLAGGER_ADVICE = {
    "vague": "Some wording here leaves a quantity, time, standard or decision to judgement: say exactly what is meant.",
    "no_owner": "Someone has to act or approve here, and no one is named: name the role.",
    "no_deadline": "By when? Give a time limit.",
}


def _reviewed(document: PolicyText, findings: list[list[Finding]], flagger: SentenceFlagger) -> list[list[Finding]]:
    """The flagger's verdict on the sentence flags it decides (`DECIDED`): a rule's finding stands
    only where the flagger agrees, and the flagger adds the flags the rules missed (without evidence
    words). A sentence pointing to a missing part keeps the rules' findings: the part would say who
    and when."""
    texts = [s.text for s in document.sentences]
    inputs = [
        FlaggerInput(s.section, s.text, texts[i + 1] if i + 1 < len(texts) else "")
        for i, s in enumerate(document.sentences)
    ]
    out = []
    for found, verdict in zip(findings, flagger.flags(inputs), strict=True):
        if any(f.flag == "dangling_reference" for f in found):
            out.append(found)
            continue
        by_flag = {f.flag: f for f in found}
        kept = [f for f in found if f.flag not in DECIDED]
        kept += [by_flag.get(flag) or Finding(flag, "", _FLAGGER_ADVICE[flag]) for flag in DECIDED if flag in verdict]
        out.append(kept)
    return out


def critique(
    document: PolicyText,
    embed: Embed | None = None,
    flagger: SentenceFlagger | None = None,
    max_sentences: int | None = None,
) -> DocumentCritique:
    """Flag every sentence of `document`, or its first `max_sentences` (none when it is 0; the
    critique then counts the rest as `unread`; references to the document's parts are still checked against all of it).
    With `embed` (MiniLM), contradictions are paired by meaning; without it, by shared words. With
    `flagger`, the trained model decides vague, no_owner and no_deadline (the rules' words are the
    evidence where they raised the same flag)."""
    unread = 0
    if max_sentences is not None and len(document.sentences) > max_sentences:
        unread = len(document.sentences) - max_sentences
        document = dataclasses.replace(document, sentences=document.sentences[:max_sentences])
    if not document.sentences:  # nothing to read (an empty text, or no budget left)
        return DocumentCritique(document.name, document.title, [], unread)
    cues = [read_cues(s.text) for s in document.sentences]
    enforced = any(c.has("enforcement") for c in cues)
    findings: list[list[Finding]] = [[] for _ in cues]
    for i, (sentence, c) in enumerate(zip(document.sentences, cues, strict=True)):
        reference = dangling_references(sentence.text, document)
        checks = [sentence_flags.vague]
        if not reference:  # a deferral to a missing part: the part would have said who and when
            checks += [sentence_flags.no_owner, sentence_flags.no_deadline]
        for check in checks:
            found = check(c)
            if found:
                findings[i].append(found)
        consequence = _no_consequence(i, cues, enforced)
        if consequence:
            findings[i].append(consequence)
        if reference:
            findings[i].append(reference)
    if flagger is not None:
        findings = _reviewed(document, findings, flagger)
    for i, j, why in contradictions(cues, embed):
        for here, there in ((i, j), (j, i)):
            if not any(f.flag == "contradiction" for f in findings[here]):
                quote = document.sentences[there].text
                findings[here].append(
                    Finding("contradiction", why, f'Disagrees with: "{quote}" Make them agree.', other=there)
                )
    order = list(FLAGS)
    return DocumentCritique(
        document.name,
        document.title,
        [
            CriticisedSentence(s.index, s.section, s.text, tuple(sorted(f, key=lambda x: order.index(x.flag))))
            for s, f in zip(document.sentences, findings, strict=True)
        ],
        unread,
    )


def critique_text(
    text: str, name: str, title: str = "", embed: Embed | None = None, flagger: SentenceFlagger | None = None
) -> DocumentCritique:
    """Critique a document's Markdown or plain text (see `critique`)."""
    return critique(read_policy(text, name, title), embed, flagger)
