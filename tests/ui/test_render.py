"""Rendering answers: user and document text always escaped; abstentions look different."""

from __future__ import annotations

from ui.render import (
    answer_as_text,
    answer_bubble,
    compare_numbers,
    feedback_values,
    history_messages,
    plain_reason,
    sources_html,
    support_html,
    user_bubble,
)

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


def test_the_bubble_says_what_was_searched_when_it_differs_from_the_message():
    rewritten = {**CITED, "query": "and the fee for that?", "rewritten_query": "the fee for *revaluation*?"}
    bubble = answer_bubble(rewritten)
    assert bubble.startswith("_Searched for: the fee for \\*revaluation\\*?_")
    assert bubble.endswith("[1]")
    assert "Searched for" not in answer_bubble(CITED)  # searched as asked: nothing to say
    assert "Searched for" not in answer_bubble({**rewritten, "decision": "memory"})


def test_the_direct_answer_line_is_bold_with_its_marker():
    led = {**CITED, "text": "Rs. 500 per course [1]\n\nThe fee is Rs. 500 per course. [1]"}
    led["direct_answer"] = "Rs. 500 per course [1]"
    assert answer_bubble(led) == "**Rs. 500 per course** [1]\n\nThe fee is Rs. 500 per course. [1]"
    bullets = {**led, "text": "- Rs. 500 per course [1]\n- The fee is Rs. 500 per course. [1]"}
    assert answer_bubble(bullets).startswith("- **Rs. 500 per course** [1]\n- The fee")
    assert "**" not in answer_bubble({**CITED, "direct_answer": "not in the text [1]"})


LINKED = {
    **CITED,
    "citations": [
        {
            "n": 1,
            "title": "Fees <b>Policy</b>",
            "section": "2. Fee",
            "quote": "<script>x()</script>",
            "chunk_id": "fees::2-fee::abc",
        }
    ],
}


def test_citation_markers_link_to_their_passage_and_the_sources_sit_under_the_answer():
    bubble = answer_bubble(LINKED)
    assert "<a class='warrant-cite' href='/document?chunk=fees%3A%3A2-fee%3A%3Aabc#passage' target='_blank'" in bubble
    assert "<details class='warrant-inline-sources'><summary>Sources (1)</summary>" in bubble
    assert "&lt;script&gt;x()&lt;/script&gt;" in bubble and "<script>" not in bubble
    assert "/document?chunk=fees%3A%3A2-fee%3A%3Aabc#passage" in sources_html(LINKED)


def test_the_meter_leads_with_plain_words_and_keeps_sigma_behind_a_toggle():
    html = support_html(CITED)
    assert html.index("Strong evidence") < html.index("<details") < html.index("σ = 0.76")
    clarify = support_html({**ABSTAIN, "decision": "clarify"})
    assert "Several policies fit" in clarify and "enough evidence to answer" not in clarify


def test_an_abstention_never_prints_sigma_equal_to_tau_as_below_it():
    html = support_html({**ABSTAIN, "support": {**ABSTAIN["support"], "sigma": 0.6996, "tau": 0.7}})
    assert "σ = 0.70 < τ = 0.70" not in html and "σ = 0.6996 < τ = 0.7000" in html
    assert compare_numbers(0.7, 0.7) == "σ = 0.70 ≥ τ = 0.70"
    assert plain_reason("σ 0.70 < τ 0.70; the policies do not mention: mess") == "The policies do not mention: mess"


def test_nearest_sections_are_listed_closest_first():
    nearest = [
        {"title": "A", "section": "far", "similarity": 0.2},
        {"title": "B", "section": "near", "similarity": 0.5},
        {"title": "C", "section": "middle", "similarity": 0.3},
    ]
    html = sources_html({**ABSTAIN, "nearest_sections": nearest})
    assert html.index("near") < html.index("middle") < html.index("far")


def test_a_memory_acknowledgement_is_shown_once():
    note = "Noted: I'll keep answers brief."
    bubble = answer_bubble({"text": note, "decision": "memory"}, [note])
    assert bubble.count("keep answers brief") == 1


def test_the_latest_clarification_offers_its_options_as_buttons_and_votes_are_restored():
    clarify = {
        "decision": "clarify",
        "text": "Do you mean A or B?",
        "clarify_options": [{"title": "Fees", "section": "2. Fee"}, {"title": "Library", "section": "2. Overdue"}],
    }
    turns = [
        {"user_text": "fee?", "answer": CITED, "feedback": {"vote": "down"}},
        {"user_text": "fee", "answer": clarify},
    ]
    messages = history_messages(turns)
    assert messages[-1]["options"] == [
        {"label": "Fees, 2. Fee", "value": "Fees, 2. Fee"},
        {"label": "Library, 2. Overdue", "value": "Library, 2. Overdue"},
    ]
    assert "options" not in messages[1] and feedback_values(turns) == ["Dislike", None]


def test_copying_an_answer_keeps_its_citations_as_text():
    text = answer_as_text(LINKED)
    assert text.startswith("The fee is Rs. 500 per course. [1]")
    assert "Sources:\n[1] Fees <b>Policy</b>, 2. Fee: “<script>x()</script>”" in text  # plain text, not markup


def test_a_quote_with_a_blank_line_cannot_turn_document_text_into_markdown_in_the_bubble():
    quote = "The fee is Rs. 500.\n\n[click here](http://evil.example) ![x](http://evil.example/x.png)"
    bubble = answer_bubble({**LINKED, "citations": [{**LINKED["citations"][0], "quote": quote}]})
    details = bubble[bubble.index("<details") :]
    assert "\n" not in details and "[click here](http://evil.example)" in details  # one HTML block: not Markdown
