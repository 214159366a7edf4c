"""Answers as safe text: chat bubbles (Markdown), the sources panel and the support meter (HTML).

Every string that came from a user or a document goes through `html.escape` before it is placed
in markup, so `<script>` typed in a message or written in a policy is shown as text. Functions take
the `Answer.to_dict()` form because that is also what the conversation history stores.

A citation marker `[n]` in an answer is a link to its source opened in the document view
(`ui.document_view`, `/document?chunk=…`); under each cited answer a collapsed "Sources" block
repeats the evidence inside the chat itself, shown on narrow screens only (CSS), where the panel
beside the chat would sit below the message box. The support meter leads with plain words
("Strong evidence", "Not enough evidence"); σ, τ and σ's parts are behind a details toggle.
"""

from __future__ import annotations

import html
import re
from urllib.parse import quote

from pipeline.answer.clarify import option_label
from pipeline.ground.records import ASK_WHEN_NO_OWNER

# Markdown punctuation, and what GFM turns into links by itself: "http://", "x@y.z" (":" and "@").
_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+!|~>:@])")
_WWW = re.compile(r"(?i)\b(www)\.")  # "www.example.org" is a link in GFM too: its dot is escaped
_BACKTICKS = re.compile(r"`+")

CSS = """
.warrant-card {border:1px solid #d0d7de; border-radius:8px; padding:10px 12px; margin:6px 0;}
.warrant-card h4 {margin:0 0 4px 0;}
.warrant-quote {border-left:3px solid #8c959f; padding-left:8px; color:#444; margin:4px 0;}
.warrant-abstain {border-color:#d4a72c; background:#fff8c5;}
.warrant-clarify {border-color:#54aeff; background:#ddf4ff;}
.warrant-memory {border-color:#8250df; background:#fbefff;}
.warrant-meter {height:12px; background:#eaeef2; border-radius:6px; position:relative; margin:6px 0;}
.warrant-meter-fill {height:12px; border-radius:6px;}
.warrant-meter-tau {position:absolute; top:-3px; width:2px; height:18px; background:#24292f;}
.warrant-muted {color:#57606a; font-size:0.9em;}
.warrant-removed summary {cursor:pointer; color:#57606a;}
.warrant-diff {white-space:pre-wrap; border:1px solid #d0d7de; border-radius:8px; padding:8px 10px;}
.warrant-del {background:#ffebe9; color:#82071e; text-decoration:line-through;}
.warrant-ins {background:#dafbe1; color:#116329; text-decoration:underline;}
.warrant-verdict {font-weight:600; font-size:1.05em;}
.warrant-verdict-strong {color:#1a7f37;} .warrant-verdict-weak {color:#9a6700;} .warrant-verdict-split {color:#0969da;}
.warrant-support-details summary {cursor:pointer; color:#57606a; margin-top:4px;}
a.warrant-cite {text-decoration:none; font-weight:600;}
.warrant-inline-sources {display:none; margin-top:6px;}
.warrant-inline-sources summary {cursor:pointer; font-weight:600;}
.warrant-inline-sources .warrant-quote {font-size:0.92em;}
@media (max-width: 768px) {
  .warrant-inline-sources {display:block;}
  #warrant-conversations-col {order: 3;}
}
"""

_LABELS = {
    "abstain": "Not covered — no answer given",
    "clarify": "Which policy do you mean?",
    "memory": "From your memory, not from the policies",
    "out_of_scope": "",
    "answer": "",
}


def esc(text: object) -> str:
    return html.escape(str(text if text is not None else ""), quote=True)


def md_text(text: object) -> str:
    """User-written text placed in Markdown, shown as text: HTML escaped and every Markdown
    punctuation mark backslash-escaped, so no link, image or emphasis comes out of it - not even
    the links GFM makes of bare URLs, `<http://…>` and e-mail addresses. Quotes stay as typed: in
    Markdown's text they open no attribute, and the entity an escaped quote becomes ("&#x27;")
    would have its "#" escaped too and show as written."""
    escaped = _MD_SPECIAL.sub(r"\\\1", html.escape(str(text if text is not None else ""), quote=False))
    return _WWW.sub(r"\1\\.", escaped)


def code_block(text: str) -> str:
    """`text` as a fenced Markdown code block that no line of it can close: the fence is longer
    than any run of backticks inside (CommonMark closes a fence only with one at least as long)."""
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}\n{text}\n{fence}"


_WORDS = re.compile(r"\s+|[^\s]+")


def diff_html(before: str, after: str) -> str:
    """`before` → `after` word by word: removed words struck through, added ones underlined; all
    text escaped."""
    import difflib

    old, new = _WORDS.findall(before or ""), _WORDS.findall(after or "")
    parts = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if op == "equal":
            parts.append(esc("".join(old[i1:i2])))
            continue
        if i2 > i1:
            parts.append(f"<del class='warrant-del'>{esc(''.join(old[i1:i2]))}</del>")
        if j2 > j1:
            parts.append(f"<ins class='warrant-ins'>{esc(''.join(new[j1:j2]))}</ins>")
    return f"<div class='warrant-diff'>{''.join(parts)}</div>"


def _md_text(text: str) -> str:
    """Plain text for a Markdown bubble: HTML escaped, Markdown punctuation backslash-escaped,
    then the citation markers put back so `[1]` still reads as a marker."""
    safe = md_text(text or "")
    return re.sub(r"\\\[(\d+)\\\]", r"[\1]", safe)


def user_bubble(text: str) -> str:
    return _md_text(text)


def searched_line(answer: dict) -> str:
    """The line "Searched for: …" when the policies were searched with other words than the
    message's own (a follow-up made self-contained, a spelling corrected), else ""."""
    searched = answer.get("rewritten_query") or ""
    if not searched or answer.get("decision") not in ("answer", "abstain", "clarify"):
        return ""
    return "_Searched for: " + _md_text(searched) + "_"


def _with_direct_answer_bold(answer: dict) -> str:
    """The answer text as Markdown, its direct-answer line (pipeline/answer/direct.py) in bold."""
    text, direct = str(answer.get("text") or ""), str(answer.get("direct_answer") or "")
    lead = re.fullmatch(r"(.+?)\s*\[(\d+)\]", direct)
    prefix = "- " if text.startswith("- " + direct) else ""
    if not lead or not text.startswith(prefix + direct):
        return _md_text(text)
    bold = f"{prefix}**{_md_text(lead.group(1))}** [{lead.group(2)}]"
    return bold + _md_text(text[len(prefix + direct) :])


def document_link(chunk_id: object) -> str:
    """The document view of one chunk (`ui.document_view`), scrolled to the passage."""
    return f"/document?chunk={quote(str(chunk_id or ''), safe='')}#passage"


def _linked_markers(text: str, citations: list[dict]) -> str:
    """Each `[n]` of an escaped answer made a link to citation n's source (new tab)."""
    by_n = {str(c.get("n")): c for c in citations if c.get("chunk_id")}

    def link(match: re.Match) -> str:
        c = by_n.get(match.group(1))
        if c is None:
            return match.group(0)
        where = esc(f"{c.get('title', '')}, {c.get('section', '')}")
        return (
            f"<a class='warrant-cite' href='{esc(document_link(c['chunk_id']))}' target='_blank' "
            f"title='Open {where}'>[{match.group(1)}]</a>"
        )

    return re.sub(r"\[(\d+)\]", link, text)


def _one_line(text: object) -> str:
    """Escaped and on one line: inside the bubble's Markdown, an HTML block ends at a blank line,
    and what followed one in a quote would be read as Markdown (a link, an image)."""
    return esc(" ".join(str(text if text is not None else "").split()))


def inline_sources(answer: dict) -> str:
    """The cited evidence, collapsed, for inside the chat bubble (shown on narrow screens): one
    line of HTML, so none of the documents' text is read as Markdown."""
    citations = [c for c in answer.get("citations") or [] if c.get("chunk_id")]
    if answer.get("decision") != "answer" or not citations:
        return ""
    items = "".join(
        f"<div class='warrant-card warrant-source'><a href='{esc(document_link(c.get('chunk_id')))}' target='_blank'>"
        f"[{_one_line(c.get('n'))}] {_one_line(c.get('title'))}</a> "
        f"<span class='warrant-muted'>{_one_line(c.get('section'))}</span>"
        f"<div class='warrant-quote'>“{_one_line(c.get('quote'))}”</div></div>"
        for c in citations
    )
    return f"<details class='warrant-inline-sources'><summary>Sources ({len(citations)})</summary>{items}</details>"


def answer_bubble(answer: dict, notes: list[str] | None = None) -> str:
    """The assistant's chat message: a label for abstain/clarify/memory, what was searched when it
    differs from the message, the text (its direct-answer line in bold, its `[n]` markers linked to
    their sources), any notes not already said, and the collapsed sources."""
    parts = []
    label = _LABELS.get(answer.get("decision", ""), "")
    if label:
        parts.append(f"**{esc(label)}**")
    searched = searched_line(answer)
    if searched:
        parts.append(searched)
    text = str(answer.get("text", ""))
    parts.append(_linked_markers(_with_direct_answer_bold(answer), answer.get("citations") or []))
    unsaid = [n for n in notes or [] if n not in text]  # a memory acknowledgement is the text itself
    if unsaid:
        parts.append("_" + _md_text(" ".join(unsaid)) + "_")
    notice = (answer.get("generation") or {}).get("notice")
    if notice:
        parts.append("_" + _md_text(notice) + "_")
    sources = inline_sources(answer)
    if sources:
        parts.append(sources)
    return "\n\n".join(parts)


def answer_as_text(answer: dict | None) -> str:
    """The answer with its citations as plain text, for the clipboard ("Copy answer with citations")."""
    if not answer or not answer.get("text"):
        return ""
    lines = [str(answer["text"]).strip()]
    citations = answer.get("citations") or []
    if citations:
        lines += ["", "Sources:"]
        lines += [
            f"[{c.get('n')}] {c.get('title')}, {c.get('section')}: “{' '.join(str(c.get('quote') or '').split())}”"
            for c in citations
        ]
    return "\n".join(lines)


def streaming_bubble(text: str) -> str:
    """An LLM answer while it is being written: marked as not yet checked; the verified answer
    replaces it when it completes."""
    return "_Writing… each sentence is checked against its source when this completes._\n\n" + _md_text(text)


def generation_html(answer: dict) -> str:
    """Who wrote the answer and, collapsed, each generated sentence removed and why."""
    generation = answer.get("generation") or {}
    if not generation:
        return ""
    if generation.get("mode") == "generated":
        line = f"Written by the language model ({esc(generation.get('model'))}); every sentence checked against its source."
    else:
        line = "Taken directly from the policy text (the language model's answer was not used)."
    removed = generation.get("removed") or []
    details = ""
    if removed:
        items = "".join(f"<li>“{esc(r.get('sentence'))}” — {esc(r.get('reason'))}</li>" for r in removed)
        details = (
            f"<details class='warrant-removed'><summary>{len(removed)} generated sentence(s) removed"
            f"</summary><ul>{items}</ul></details>"
        )
    return f"<div class='warrant-generation warrant-muted'>{line}{details}</div>"


def sources_html(answer: dict | None) -> str:
    """The evidence panel: cited sources (each opens at its passage), or for a refusal what was
    searched, why in plain words, the nearest sections (closest first) and who to ask."""
    if not answer:
        return "<div class='warrant-muted'>Sources of the latest answer appear here.</div>"
    decision = answer.get("decision", "")
    if decision == "answer" and answer.get("citations"):
        cards = []
        for c in answer["citations"]:
            version = f" · version {esc(c.get('version'))}" if c.get("version") else ""
            cards.append(
                f"<div class='warrant-card warrant-source'><h4>[{esc(c.get('n'))}] {esc(c.get('title'))}</h4>"
                f"<div class='warrant-muted'>{esc(c.get('section'))}{version}</div>"
                f"<div class='warrant-quote'>“{esc(c.get('quote'))}”</div>"
                f"<a class='warrant-open' href='{esc(document_link(c.get('chunk_id')))}' target='_blank'>"
                "Open in the document</a></div>"
            )
        return "<div class='warrant-sources'><h3>Sources</h3>" + "".join(cards) + generation_html(answer) + "</div>"
    if decision in ("abstain", "clarify"):
        css = "warrant-abstain" if decision == "abstain" else "warrant-clarify"
        searched = answer.get("rewritten_query") or answer.get("query") or ""
        nearest = answer.get("clarify_options") or answer.get("nearest_sections") or []
        nearest = sorted(nearest, key=lambda n: -float(n.get("similarity") or 0.0))
        items = "".join(
            f"<li><a href='{esc(document_link(n.get('chunk_id')))}' target='_blank'>{esc(n.get('title'))}, "
            f"{esc(n.get('section'))}</a> <span class='warrant-muted'>(similarity {esc(n.get('similarity'))})</span></li>"
            if n.get("chunk_id")
            else f"<li>{esc(n.get('title'))}, {esc(n.get('section'))}"
            f" <span class='warrant-muted'>(similarity {esc(n.get('similarity'))})</span></li>"
            for n in nearest
        )
        owner = next((n.get("owner") for n in nearest if n.get("owner")), "")
        who = esc(owner) if owner else ASK_WHEN_NO_OWNER
        title = "No answer: the evidence is too weak" if decision == "abstain" else "Clarifying question"
        why = plain_reason(answer.get("reason") or "") or (
            "the closest sections are in different policies" if decision == "clarify" else ""
        )
        return (
            f"<div class='warrant-card {css}'><h4>{title}</h4>"
            f"<div><b>Searched for:</b> {esc(searched)}</div>"
            f"<div><b>Why:</b> {esc(why)}</div>"
            f"<div><b>Nearest sections:</b><ul>{items or '<li>none</li>'}</ul></div>"
            f"<div><b>Who to ask:</b> {who}</div></div>"
        )
    if decision == "memory":
        return (
            "<div class='warrant-card warrant-memory'>Answered from what you told me (see the My memory tab); "
            "no policy document was used.</div>"
        )
    return f"<div class='warrant-muted'>{esc(answer.get('reason') or 'No sources for this reply.')}</div>"


# The gate's reasons open with the comparison ("σ 0.58 < τ 0.70; the policies do not mention: …"):
# the meter shows the numbers, the sources panel the words after them.
_COMPARISON = re.compile(r"^\s*σ\s*[\d.]+\s*(?:<|≥|>=)\s*τ\s*[\d.]+\s*;?\s*")


def plain_reason(reason: str) -> str:
    """A gate reason without its leading σ/τ comparison, first letter capitalised."""
    words = _COMPARISON.sub("", reason or "").strip()
    return words[:1].upper() + words[1:]


def compare_numbers(sigma: float, tau: float) -> str:
    """ "σ = a < τ = b" (or ≥) with as many digits as it takes to be true as printed: never
    "σ = 0.70 < τ = 0.70"."""
    sign = "≥" if sigma >= tau else "<"
    digits = 2
    while digits < 6 and f"{sigma:.{digits}f}" == f"{tau:.{digits}f}" and sigma != tau:
        digits += 1
    return f"σ = {sigma:.{digits}f} {sign} τ = {tau:.{digits}f}"


_VERDICTS = {
    "answer": ("Strong evidence", "warrant-verdict-strong", "the answer is taken from the cited sections."),
    "abstain": ("Not enough evidence", "warrant-verdict-weak", "no answer is given rather than a guess."),
    "clarify": ("Several policies fit", "warrant-verdict-split", "choose the one you mean to get an answer."),
}


def support_html(answer: dict | None) -> str:
    """The verdict in plain words; behind a toggle, σ against τ as a bar with a τ tick, the
    comparison with enough digits to be true, and σ's three parts."""
    answer = answer or {}
    support = answer.get("support")
    if not support:
        return "<div class='warrant-muted'>Evidence: no policy search for this reply.</div>"
    sigma, tau = float(support.get("sigma", 0.0)), float(support.get("tau", 0.0))
    words, css, meaning = _VERDICTS.get(
        str(answer.get("decision") or ""), ("No policy answer", "warrant-verdict-weak", "this reply is not an answer.")
    )
    colour = "#2da44e" if sigma >= tau else "#cf222e"
    width = max(0.0, min(1.0, sigma)) * 100
    tick = max(0.0, min(1.0, tau)) * 100
    missing = support.get("missing_terms") or []
    missing_line = f"<div>Not found in the documents: {esc(', '.join(missing))}</div>" if missing else ""
    return (
        f"<div class='warrant-card warrant-support'><div class='warrant-verdict {css}'>{words}</div>"
        f"<div class='warrant-muted'>{meaning[:1].upper() + meaning[1:]}</div>{missing_line}"
        "<details class='warrant-support-details'><summary>Details: the support score</summary>"
        f"<div><b>Support {compare_numbers(sigma, tau)}</b>: Warrant answers only when σ reaches τ.</div>"
        f"<div class='warrant-meter'><div class='warrant-meter-fill' style='width:{width:.0f}%;"
        f"background:{colour}'></div><div class='warrant-meter-tau' style='left:{tick:.0f}%'></div></div>"
        f"<div class='warrant-muted'>similarity {float(support.get('sim', 0)):.2f} · "
        f"coverage {float(support.get('coverage', 0)):.2f} · "
        f"consistency {float(support.get('consistency', 0)):.2f}</div></details></div>"
    )


def clarify_options(answer: dict) -> list[dict]:
    """A clarifying question's options as buttons of a gr.Chatbot message (label = what is sent)."""
    if answer.get("decision") != "clarify":
        return []
    labels = [option_label(o) for o in answer.get("clarify_options") or []]
    return [{"label": label, "value": label} for label in labels if label]


def history_messages(turns: list[dict]) -> list[dict]:
    """Stored conversation turns as gr.Chatbot messages; the latest reply's clarifying options
    become buttons."""
    messages: list[dict] = []
    for turn in turns:
        answer = turn.get("answer") or {}
        messages.append({"role": "user", "content": user_bubble(turn.get("user_text", ""))})
        messages.append({"role": "assistant", "content": answer_bubble(answer)})
    if turns and clarify_options(turns[-1].get("answer") or {}):
        messages[-1]["options"] = clarify_options(turns[-1].get("answer") or {})
    return messages


def feedback_values(turns: list[dict]) -> list[str | None]:
    """Each stored reply's vote as gr.Chatbot's `feedback_value` ("Like", "Dislike" or None)."""
    shown = {"up": "Like", "down": "Dislike"}
    return [shown.get((t.get("feedback") or {}).get("vote", "")) for t in turns]
