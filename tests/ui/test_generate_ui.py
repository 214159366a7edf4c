"""LLM-written answers in the UI layer: what is shown, what is streamed, what is sent, what admins see."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tests.fake_llm import FakeLLM, evidence_of
from ui.admin_tab import backend_html
from ui.chat_tab import _turn_with_stream
from ui.render import answer_bubble, sources_html, streaming_bubble

GENERATED = {
    "text": "The fee is Rs. 500 per course. [1]",
    "decision": "answer",
    "citations": [{"n": 1, "title": "Fees", "section": "2. Fee", "quote": "The fee is Rs. 500 per course."}],
    "generation": {
        "mode": "generated",
        "model": "m",
        "notice": "",
        "error": "",
        "removed": [
            {
                "sentence": "The Dean <b>waives</b> it.",
                "reason": "not supported by the cited text: [1]: only 20% of its words",
            }
        ],
    },
}
FALLBACK = {
    **GENERATED,
    "generation": {
        "mode": "extractive",
        "model": "m",
        "error": "timeout",
        "removed": [],
        "notice": "The language model did not answer (timeout); this is the answer "
        "taken directly from the policy text.",
    },
}


def test_removed_sentences_are_listed_collapsed_with_their_reason_and_escaped():
    html = sources_html(GENERATED)
    assert "<details class='warrant-removed'><summary>1 generated sentence(s) removed</summary>" in html
    assert "The Dean &lt;b&gt;waives&lt;/b&gt; it." in html and "only 20% of its words" in html
    assert "Written by the language model (m)" in html


def test_a_fallback_says_so_in_the_chat_bubble():
    bubble = answer_bubble(FALLBACK)
    assert bubble.startswith("The fee is Rs. 500") and "did not answer \\(timeout\\)" in bubble
    assert "Taken directly from the policy text" in sources_html(FALLBACK)


def test_an_extractive_answer_looks_as_before():
    plain = {k: v for k, v in GENERATED.items() if k != "generation"}
    assert "warrant-generation" not in sources_html(plain)
    assert answer_bubble(plain) == "The fee is Rs. 500 per course. [1]"


def test_the_stream_is_marked_unchecked_and_escaped():
    bubble = streaming_bubble("The fee is <img src=x> Rs. 500")
    assert bubble.startswith("_Writing…") and "<img" not in bubble


def test_a_turn_streams_partials_then_its_result():
    def turn(on_token):
        for text in ("The", "The fee", "The fee is Rs. 500."):
            on_token(text)
        return "done"

    events = list(_turn_with_stream(turn))
    assert events[-1] == ("result", "done")
    assert all(kind == "partial" for kind, _ in events[:-1]) and events[-2] == ("partial", "The fee is Rs. 500.")


def test_a_failed_turn_hands_back_its_error():
    def turn(on_token):
        raise ValueError("too long")

    assert [(k, str(v)) for k, v in _turn_with_stream(turn)] == [("error", "too long")]


def test_backend_status_for_admins_is_escaped():
    assert "Active backend: extractive" in backend_html({"backend": "extractive"})
    html = backend_html(
        {
            "backend": "openai-compatible",
            "model": "llama3.2",
            "base_url": "http://127.0.0.1:11434/v1",
            "calls": 3,
            "fallbacks": 1,
            "last_error": "timeout: <no answer>",
            "last_error_at": "now",
        }
    )
    assert "llama3.2" in html and "timeout: &lt;no answer&gt;" in html


@pytest.fixture()
def service_with_llm(tmp_path, tiny_docs_in_rupees, embed_model):
    from pipeline.ground.config import load_config
    from ui.service import WarrantService

    def script(request):
        n = next(n for n, r in evidence_of(request) if "revaluation" in r["section"].lower())
        return f"The revaluation fee is Rs. 500 per course [{n}]."

    with FakeLLM(script) as fake:
        config = replace(
            load_config().with_home(tmp_path / "home"),
            docs_dir=tiny_docs_in_rupees,
            llm_base_url=fake.base_url,
            llm_model="fake-model",
            llm_timeout_s=10.0,
        )
        yield WarrantService(config, embed_model=embed_model), fake


def test_memory_and_other_users_never_reach_the_llm(service_with_llm):
    from governance.identity import Identity, PermissionDenied

    service, fake = service_with_llm
    ada = Identity("local:ada", "ada", "user")
    bob = Identity("local:bob", "bob", "user")
    service.chat(bob, "My advisor is Dr. Zyxwert Quillon.")
    session = service.new_session(ada)
    service.chat(ada, "I'm a third-year B.Tech CSE student. My advisor is Dr. Rao.", session)
    streamed: list[str] = []
    result = service.chat(ada, "What is the revaluation fee?", session, on_token=streamed.append)
    assert result.answer.text == "The revaluation fee is Rs. 500 per course. [1]"
    assert streamed and streamed[-1] == "The revaluation fee is Rs. 500 per course [1]."
    sent = str(fake.requests)
    assert len(fake.requests) == 1
    assert "Rao" not in sent and "Zyxwert" not in sent and "CSE" not in sent
    assert "give the rule for B.Tech first" in sent  # the profile shapes form only
    status = service.answer_backend(Identity("local:admin", "admin", "admin"))
    assert status["backend"] == "openai-compatible" and status["calls"] == 1 and status["last_error"] == ""
    with pytest.raises(PermissionDenied):
        service.answer_backend(ada)
