"""The app in a real browser (Playwright driving Debian's chromium) against `python app.py`.

Under CI=true these tests must run: a missing chromium is a failure there, a skip elsewhere.
"""

from __future__ import annotations

import pytest

from tests.conftest import ARTIFACTS
from tests.ui.pages import ask, log_in, open_chat

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def base_url(browser_ready, demo_app):
    return demo_app[0]


def test_student_gets_a_cited_answer_with_a_visible_source(browser, base_url):
    page = open_chat(browser, base_url, "student")
    ask(page, "What is the revaluation fee?")
    source = page.locator("#warrant-sources .warrant-source").first
    source.wait_for(state="visible", timeout=30_000)
    assert "Revaluation" in source.inner_text()
    assert "Rs. 500" in page.inner_text("#warrant-chat") and "[1]" in page.inner_text("#warrant-chat")
    assert "Strong evidence" in page.inner_text("#warrant-support")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "chat.png"))
    page.close()


def test_uncovered_question_shows_the_abstention(browser, base_url):
    page = open_chat(browser, base_url, "student")
    page.click("#warrant-new")
    ask(page, "What is the hostel mess menu on Sunday?")
    page.locator("#warrant-sources .warrant-abstain").wait_for(state="visible", timeout=30_000)
    assert "Not covered" in page.inner_text("#warrant-chat")
    panel = page.inner_text("#warrant-sources")
    assert "Nearest sections" in panel and "Who to ask" in panel
    assert page.locator("#warrant-sources .warrant-source").count() == 0
    page.close()


def test_script_typed_by_a_user_is_shown_as_text(browser, base_url):
    page = open_chat(browser, base_url, "student")
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    ask(page, "<img src=x onerror=alert(1)><script>alert(2)</script> revaluation?")
    assert "<script>alert(2)</script>" in page.inner_text("#warrant-chat")
    assert page.locator("#warrant-chat img[src='x']").count() == 0 and dialogs == []
    page.close()


def test_conversation_persists_across_logins(browser, base_url):
    page = open_chat(browser, base_url, "student")
    page.click("#warrant-new")
    ask(page, "What is the photocopy fee?")
    page.click("#warrant-logout")  # a POST that ends the session on the server
    page.wait_for_url("**/login", timeout=30_000)
    page.close()
    page = log_in(browser, base_url, "student")
    page.wait_for_function(
        "() => (document.querySelector('#warrant-chat')||{}).innerText?.includes('photocopy fee')", timeout=60_000
    )
    page.close()


def test_wrong_password_is_refused(browser, base_url):
    page = log_in(browser, base_url, "student", "not-the-password")
    assert "Wrong username or password." in page.inner_text("#login-error")
    assert page.url.endswith("/login")
    page.close()


def test_student_sees_no_review_or_admin_tab_but_admin_does(browser, base_url):
    page = log_in(browser, base_url, "student")
    page.wait_for_selector("#warrant-user", timeout=60_000)
    tabs = page.get_by_role("tab").all_inner_texts()
    assert "Chat" in tabs and "Admin" not in tabs and "Review" not in tabs
    page.close()
    page = log_in(browser, base_url, "admin")
    page.wait_for_selector("#warrant-user", timeout=60_000)
    page.get_by_role("tab", name="Admin").wait_for(state="visible", timeout=30_000)
    page.close()
