"""The app in a real browser (Playwright driving Debian's chromium) against `python app.py`.

Under CI=true these tests must run: a missing chromium is a failure there, a skip elsewhere.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.ui.server import DEMO_PASSWORD, running_app

pytestmark = pytest.mark.browser
CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = Path(__file__).resolve().parent.parent / "artifacts"
LAUNCH_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]


def _require_browser() -> None:
    problem = ""
    if not Path(CHROMIUM).exists():
        problem = f"{CHROMIUM} is missing (apt-get install -y chromium)"
    else:
        try:
            import playwright.sync_api  # noqa: F401
        except ImportError:
            problem = "the playwright package is missing (pip install playwright)"
    if problem:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"browser tests must run under CI: {problem}")
        pytest.skip(problem)


@pytest.fixture(scope="module")
def base_url():
    _require_browser()
    with running_app() as (base, _home):
        yield base


@pytest.fixture(scope="module")
def browser(base_url):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=LAUNCH_ARGS)
        yield browser
        browser.close()


def _log_in(browser, base_url: str, username: str, password: str = DEMO_PASSWORD):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(base_url + "/")
    assert page.url.endswith("/login")
    page.fill("#username", username)
    page.fill("#password", password)
    page.click("#login-button")
    return page


def _open_chat(browser, base_url: str, username: str):
    page = _log_in(browser, base_url, username)
    page.wait_for_selector("#warrant-message textarea", timeout=60_000)
    return page


_ANSWERED = """q => {
  const rows = [...document.querySelectorAll('#warrant-chat .message-row')];
  const asked = rows.map(r => r.innerText).findLastIndex(t => t.includes(q));
  return asked >= 0 && rows.length > asked + 1 && rows[rows.length - 1].innerText.trim().length > 0;
}"""


def _ask(page, question: str) -> None:
    """Type a question, send it, and wait until a reply follows it in the chat."""
    page.fill("#warrant-message textarea", question)
    page.click("#warrant-send")
    page.wait_for_function(_ANSWERED, arg=question, timeout=60_000)


def test_student_gets_a_cited_answer_with_a_visible_source(browser, base_url):
    page = _open_chat(browser, base_url, "student")
    _ask(page, "What is the revaluation fee?")
    source = page.locator("#warrant-sources .warrant-source").first
    source.wait_for(state="visible", timeout=30_000)
    assert "Revaluation" in source.inner_text()
    assert "Rs. 500" in page.inner_text("#warrant-chat") and "[1]" in page.inner_text("#warrant-chat")
    assert "σ" in page.inner_text("#warrant-support")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "chat.png"))
    page.close()


def test_uncovered_question_shows_the_abstention(browser, base_url):
    page = _open_chat(browser, base_url, "student")
    page.click("#warrant-new")
    _ask(page, "What is the hostel mess menu on Sunday?")
    page.locator("#warrant-sources .warrant-abstain").wait_for(state="visible", timeout=30_000)
    assert "Not covered" in page.inner_text("#warrant-chat")
    panel = page.inner_text("#warrant-sources")
    assert "Nearest sections" in panel and "Who to ask" in panel
    assert page.locator("#warrant-sources .warrant-source").count() == 0
    page.close()


def test_script_typed_by_a_user_is_shown_as_text(browser, base_url):
    page = _open_chat(browser, base_url, "student")
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    _ask(page, "<img src=x onerror=alert(1)><script>alert(2)</script> revaluation?")
    assert "<script>alert(2)</script>" in page.inner_text("#warrant-chat")
    assert page.locator("#warrant-chat img[src='x']").count() == 0 and dialogs == []
    page.close()


def test_conversation_persists_across_logins(browser, base_url):
    page = _open_chat(browser, base_url, "student")
    page.click("#warrant-new")
    _ask(page, "What is the photocopy fee?")
    page.click("#warrant-logout")  # a POST that ends the session on the server
    page.wait_for_url("**/login", timeout=30_000)
    page.close()
    page = _log_in(browser, base_url, "student")
    page.wait_for_function(
        "() => (document.querySelector('#warrant-chat')||{}).innerText?.includes('photocopy fee')", timeout=60_000
    )
    page.close()


def test_wrong_password_is_refused(browser, base_url):
    page = _log_in(browser, base_url, "student", "not-the-password")
    assert "Wrong username or password." in page.inner_text("#login-error")
    assert page.url.endswith("/login")
    page.close()


def test_student_sees_no_review_or_admin_tab_but_admin_does(browser, base_url):
    page = _log_in(browser, base_url, "student")
    page.wait_for_selector("#warrant-user", timeout=60_000)
    tabs = page.get_by_role("tab").all_inner_texts()
    assert "Chat" in tabs and "Admin" not in tabs and "Review" not in tabs
    page.close()
    page = _log_in(browser, base_url, "admin")
    page.wait_for_selector("#warrant-user", timeout=60_000)
    page.get_by_role("tab", name="Admin").wait_for(state="visible", timeout=30_000)
    page.close()
