"""Answers as safe text: chat bubbles (Markdown), the sources panel and the support meter (HTML).

Every string that came from a user or a document goes through `html.escape` before it is placed
in markup, so `<script>` typed in a message or written in a policy is shown as text. Functions take
the `Answer.to_dict()` form because that is also what the conversation history stores.
"""

from __future__ import annotations

import html
import re

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


def answer_bubble(answer: dict, notes: list[str] | None = None) -> str:
    """The assistant's chat message: a label for abstain/clarify/memory, the text, any notes."""
    parts = []
    label = _LABELS.get(answer.get("decision", ""), "")
    if label:
        parts.append(f"**{esc(label)}**")
    parts.append(_md_text(answer.get("text", "")))
    if notes:
        parts.append("_" + _md_text(" ".join(notes)) + "_")
    notice = (answer.get("generation") or {}).get("notice")
    if notice:
        parts.append("_" + _md_text(notice) + "_")
    return "\n\n".join(parts)


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
    """The evidence panel: cited sources, or for a refusal what was searched and who to ask."""
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
                f"<div class='warrant-quote'>“{esc(c.get('quote'))}”</div></div>"
            )
        return "<div class='warrant-sources'><h3>Sources</h3>" + "".join(cards) + generation_html(answer) + "</div>"
    if decision in ("abstain", "clarify"):
        css = "warrant-abstain" if decision == "abstain" else "warrant-clarify"
        searched = answer.get("rewritten_query") or answer.get("query") or ""
        nearest = answer.get("clarify_options") or answer.get("nearest_sections") or []
        items = "".join(
            f"<li>{esc(n.get('title'))}, {esc(n.get('section'))}"
            f" <span class='warrant-muted'>(similarity {esc(n.get('similarity'))})</span></li>"
            for n in nearest
        )
        owner = next((n.get("owner") for n in nearest if n.get("owner")), "")
        who = esc(owner) if owner else ASK_WHEN_NO_OWNER
        title = "No answer: the evidence is too weak" if decision == "abstain" else "Clarifying question"
        return (
            f"<div class='warrant-card {css}'><h4>{title}</h4>"
            f"<div><b>Searched for:</b> {esc(searched)}</div>"
            f"<div><b>Why:</b> {esc(answer.get('reason'))}</div>"
            f"<div><b>Nearest sections:</b><ul>{items or '<li>none</li>'}</ul></div>"
            f"<div><b>Who to ask:</b> {who}</div></div>"
        )
    if decision == "memory":
        return (
            "<div class='warrant-card warrant-memory'>Answered from what you told me (see the My memory tab); "
            "no policy document was used.</div>"
        )
    return f"<div class='warrant-muted'>{esc(answer.get('reason') or 'No sources for this reply.')}</div>"


def support_html(answer: dict | None) -> str:
    """σ against τ as a bar with a τ tick, and the three parts of σ."""
    support = (answer or {}).get("support")
    if not support:
        return "<div class='warrant-muted'>Support meter: no policy search for this reply.</div>"
    sigma, tau = float(support.get("sigma", 0.0)), float(support.get("tau", 0.0))
    passes = sigma >= tau
    colour = "#2da44e" if passes else "#cf222e"
    width = max(0.0, min(1.0, sigma)) * 100
    tick = max(0.0, min(1.0, tau)) * 100
    verdict = "enough evidence to answer" if passes else "below the threshold: not answering"
    missing = support.get("missing_terms") or []
    missing_line = (
        f"<div class='warrant-muted'>Not found in the evidence: {esc(', '.join(missing))}</div>" if missing else ""
    )
    return (
        f"<div class='warrant-card warrant-support'><b>Support σ = {sigma:.2f}</b> vs τ = {tau:.2f} — "
        f"{verdict}"
        f"<div class='warrant-meter'><div class='warrant-meter-fill' style='width:{width:.0f}%;"
        f"background:{colour}'></div><div class='warrant-meter-tau' style='left:{tick:.0f}%'></div></div>"
        f"<div class='warrant-muted'>similarity {float(support.get('sim', 0)):.2f} · "
        f"coverage {float(support.get('coverage', 0)):.2f} · "
        f"consistency {float(support.get('consistency', 0)):.2f}</div>{missing_line}</div>"
    )


def history_messages(turns: list[dict]) -> list[dict]:
    """Stored conversation turns as gr.Chatbot messages."""
    messages: list[dict] = []
    for turn in turns:
        messages.append({"role": "user", "content": user_bubble(turn.get("user_text", ""))})
        messages.append({"role": "assistant", "content": answer_bubble(turn.get("answer") or {})})
    return messages
