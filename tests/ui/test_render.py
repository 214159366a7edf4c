"""Rendering answers: user and document text always escaped; abstentions look different."""

from __future__ import annotations

from ui.render import answer_bubble, history_messages, sources_html, support_html, user_bubble

CITED = {
    "text": "The fee is Rs. 500 per course. [1]",
    "decision": "answer",
    "query": "fee?",
    "citations": [
        {"n": 1, "title": "Fees <b>Policy</b>", "section": "2. Fee", "quote": "<script>x()</script>", "version": "1.0"}
    ],
    "support": {"sigma": 0.76, "sim": 0.7, "coverage": 1.0, "consistency": 0.25, "tau": 0.5},
}
ABSTAIN = {
    "text": "The policies I can search do not cover this, so I won't guess.",
    "decision": "abstain",
    "query": "mess <i>menu</i>?",
    "reason": "σ 0.25 < τ 0.50",
    "nearest_sections": [{"title": "Exams", "section": "4.1", "owner": "Controller", "similarity": 0.27}],
    "support": {
        "sigma": 0.25,
        "sim": 0.27,
        "coverage": 0.15,
        "consistency": 0.5,
        "tau": 0.5,
        "missing_terms": ["mess", "menu"],
    },
}


def test_user_html_is_escaped_in_the_chat_bubble():
    assert user_bubble("<script>alert(1)</script>") == "&lt;script&gt;alert\\(1\\)&lt;/script&gt;"


def test_citation_markers_survive_markdown_escaping():
    assert answer_bubble(CITED).endswith("[1]")


def test_sources_escape_document_text():
    html = sources_html(CITED)
    assert "&lt;script&gt;" in html and "<script>" not in html and "&lt;b&gt;Policy" in html


def test_abstention_is_distinct_and_says_what_was_searched_and_who_to_ask():
    html = sources_html(ABSTAIN)
    assert "warrant-abstain" in html and "mess &lt;i&gt;menu&lt;/i&gt;?" in html
    assert "Controller" in html and "Exams, 4.1" in html
    assert answer_bubble(ABSTAIN).startswith("**Not covered")


def test_support_meter_shows_sigma_against_tau_and_parts():
    html = support_html(CITED)
    assert "σ = 0.76 ≥ τ = 0.50" in html and "coverage 1.00" in html
    assert "Not enough evidence" in support_html(ABSTAIN) and "mess, menu" in support_html(ABSTAIN)
    assert "no policy search" in support_html({"decision": "memory"})


def test_history_becomes_chat_messages():
    messages = history_messages([{"user_text": "fee?", "answer": CITED}])
    assert [m["role"] for m in messages] == ["user", "assistant"]
