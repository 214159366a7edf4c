"""Generative mode in a real browser: `python app.py` pointed at the fake OpenAI-compatible server.

The answer streams into the chat word by word (marked as not yet checked), then the verified
answer replaces it; a fabricated sentence is gone from the chat and listed, collapsed, with its
reason; the Admin tab names the active backend.
"""

from __future__ import annotations

import pytest

from pipeline.language.text import split_sentences
from tests.conftest import ARTIFACTS, TINY_FEES, TINY_LIBRARY
from tests.fake_llm import FakeLLM, evidence_of
from tests.ui.pages import log_in, open_chat
from tests.ui.server import running_app

pytestmark = pytest.mark.browser
FABRICATED = "The Registrar can waive the revaluation fee for any student who asks in writing"


def _script(request: dict) -> str:
    """The sentence of the revaluation evidence that answers, and one fabricated sentence. (A true
    sentence that does not answer the question, such as the deadline, would be removed by the
    reader's check: tests/pipeline/test_generate.py covers that.)"""
    n, record = next((n, r) for n, r in evidence_of(request) if "Rs. 500 per course" in r["text"])
    fee = next(s for s in split_sentences(record["text"]) if "Rs. 500 per course" in s)
    return " ".join([f"{fee.rstrip('.')} [{n}].", f"{FABRICATED} [{n}]."])


@pytest.fixture(scope="module")
def fake():
    with FakeLLM(_script, token_delay_s=0.15) as server:
        yield server


@pytest.fixture(scope="module")
def base_url(browser_ready, fake, tmp_path_factory):
    """The app over a two-document corpus (a short first start) with the fake server as its LLM."""
    docs = tmp_path_factory.mktemp("docs")
    (docs / "fees.md").write_text(TINY_FEES, encoding="utf-8")
    (docs / "library.md").write_text(TINY_LIBRARY, encoding="utf-8")
    settings = {
        "WARRANT_LLM_BASE_URL": fake.base_url,
        "WARRANT_LLM_MODEL": "fake-model",
        "WARRANT_LLM_TIMEOUT_S": "60",
    }
    with running_app(timeout_s=1200, extra_env=settings, docs=docs) as (base, _home):
        yield base


_LAST_REPLY = """() => {
  const rows = [...document.querySelectorAll('#warrant-chat .message-row')];
  return rows.length ? rows[rows.length - 1].innerText : '';
}"""


def test_answer_streams_then_the_verified_answer_replaces_it(browser, base_url):
    page = open_chat(browser, base_url, "student")
    page.fill("#warrant-message textarea", "What is the revaluation fee?")
    page.click("#warrant-send")
    # While the model writes: the unchecked text grows in the chat, marked as such.
    page.wait_for_function(
        f"() => ({_LAST_REPLY})().includes('Writing') && ({_LAST_REPLY})().includes('Rs.')", timeout=120_000
    )
    early = page.evaluate(_LAST_REPLY)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "chat_streaming.png"))
    page.wait_for_function(
        f"n => ({_LAST_REPLY})().includes('Writing') && ({_LAST_REPLY})().length > n + 10",
        arg=len(early),
        timeout=60_000,
    )
    # When it completes: the verified answer, without the marker and without the fabricated sentence.
    page.wait_for_function(
        f"() => !({_LAST_REPLY})().includes('Writing') && ({_LAST_REPLY})().includes('[1]')", timeout=120_000
    )
    final = page.evaluate(_LAST_REPLY)
    assert "Rs. 500 per course" in final
    assert "Registrar" not in final
    sources = page.locator("#warrant-sources")
    assert "Written by the language model (fake-model)" in sources.inner_text()
    removed = page.locator("#warrant-sources details.warrant-removed")
    assert removed.get_attribute("open") is None  # collapsed until asked for
    assert "1 generated sentence(s) removed" in removed.inner_text()
    removed.locator("summary").click()
    assert "Registrar can waive" in removed.inner_text() and "not supported" in removed.inner_text()
    page.screenshot(path=str(ARTIFACTS / "chat_generated.png"))
    page.close()


def test_admin_sees_the_active_backend(browser, base_url):
    page = log_in(browser, base_url, "admin")
    page.wait_for_selector("#warrant-user", timeout=60_000)
    page.get_by_role("tab", name="Admin").click()
    status = page.locator("#warrant-backend-status")
    status.wait_for(state="visible", timeout=30_000)
    page.wait_for_function(
        "() => document.querySelector('#warrant-backend-status').innerText.includes('fake-model')", timeout=30_000
    )
    assert "Active backend: OpenAI-compatible LLM" in status.inner_text()
    page.close()
