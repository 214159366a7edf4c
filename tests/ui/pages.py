"""What the browser tests do on a page: log in, open the chat, ask and wait for the reply."""

from __future__ import annotations

from pathlib import Path

from tests.ui.server import DEMO_PASSWORD

# True once a reply follows the last message that contains the question `q`.
ANSWERED = """q => {
  const rows = [...document.querySelectorAll('#warrant-chat .message-row')];
  const asked = rows.map(r => r.innerText).findLastIndex(t => t.includes(q));
  return asked >= 0 && rows.length > asked + 1 && rows[rows.length - 1].innerText.trim().length > 0;
}"""


def log_in(browser, base_url: str, username: str, password: str = DEMO_PASSWORD):
    """A new page that went to the app, was sent to the login form, and submitted it."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(base_url + "/")
    assert page.url.endswith("/login")
    page.fill("#username", username)
    page.fill("#password", password)
    page.click("#login-button")
    return page


def open_chat(browser, base_url: str, username: str, timeout_ms: int = 60_000):
    """A logged-in page whose chat box is ready."""
    page = log_in(browser, base_url, username)
    page.wait_for_selector("#warrant-message textarea", timeout=timeout_ms)
    return page


def ask(page, question: str, timeout_ms: int = 60_000) -> None:
    """Type a question, send it, and wait until a reply follows it in the chat."""
    page.fill("#warrant-message textarea", question)
    page.click("#warrant-send")
    page.wait_for_function(ANSWERED, arg=question, timeout=timeout_ms)


# True once the chat shows no message (a new, empty conversation: the welcome and the examples).
EMPTY_CHAT = "() => document.querySelectorAll('#warrant-chat .message-row').length === 0"


def new_conversation(page, timeout_ms: int = 30_000) -> None:
    """Click "New conversation" and wait for the empty chat."""
    page.click("#warrant-new")
    page.wait_for_function(EMPTY_CHAT, timeout=timeout_ms)


def last_reply(page) -> str:
    """The text of the chat's latest message (the assistant's reply after `ask`)."""
    return page.locator("#warrant-chat .message-row").last.inner_text()


def open_tab(page, name: str, timeout_ms: int = 240_000) -> None:
    """Click the tab called `name` once the logged-in page has drawn it."""
    page.wait_for_selector("#warrant-user", timeout=timeout_ms)
    tab = page.get_by_role("tab", name=name)
    tab.wait_for(state="visible", timeout=timeout_ms)
    tab.click()


def check_files(page, paths: list[Path]) -> None:
    """In the Documents tab, choose `paths` and press *Check files* once the file list shows them
    (it shows a name's stem and suffix in separate elements, so the stems are waited for)."""
    open_tab(page, "Documents")
    page.set_input_files("#warrant-doc-files input[type=file]", [str(p) for p in paths])
    for path in paths:
        wait_for_text(page, "#warrant-doc-files", path.stem)
    page.click("#warrant-doc-check")


def wait_for_text(page, selector: str, text: str, timeout_ms: int = 240_000) -> None:
    """Wait until the element at `selector` shows `text`."""
    page.wait_for_function(
        "([s, t]) => (document.querySelector(s) || {}).innerText?.includes(t)", arg=[selector, text], timeout=timeout_ms
    )


def last_reply_row(page):
    """The latest message of the chat as an element (the assistant's reply once `ask` returned)."""
    return page.locator("#warrant-chat .message-row").last
