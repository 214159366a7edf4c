"""Issue 30 in a real browser (Playwright driving Debian's chromium) against `python app.py`:
clarifications that continue (2), conversations (7), sources one click away (8), feedback (9),
the first screen and tabs that load when opened (10), the meter in plain words (11), and the
evidence on a phone (12). Each test uses an account of its own, created by the admin over HTTP,
so one test's conversations, preferences and votes never meet another's.

Screenshots go to tests/artifacts/ under the names the README's copies in docs/ have
(screenshot.png, conversations.png, document-view.png, chat-mobile.png, insights-feedback.png).
"""

from __future__ import annotations

import json
import re

import httpx
import pytest

from tests.conftest import ARTIFACTS
from tests.ui.pages import ANSWERED, EMPTY_CHAT, ask, last_reply, new_conversation, open_tab, wait_for_text
from tests.ui.server import DEMO_PASSWORD, call, login

pytestmark = pytest.mark.browser
PASSWORD = "conversation-test-pass-1"
UI_TIMEOUT = 20_000  # ms for what the page must show after a click


@pytest.fixture(scope="module")
def app(browser_ready, demo_app):
    return demo_app


def _admin_call(base: str, api_name: str, *data):
    with httpx.Client() as client:
        login(client, base, "admin", DEMO_PASSWORD)
        return call(client, base, api_name, *data)


@pytest.fixture(scope="module")
def account(app):
    """`account(name)`: a new user account (role user) for one test."""
    base, _ = app

    def create(name: str) -> str:
        event, data = _admin_call(base, "create_account", name, PASSWORD, "user")
        assert event == "complete" and "Created" in str(data), data
        return name

    return create


def _page(browser, base: str, username: str, password: str = PASSWORD, width: int = 1280, init_script="", **context):
    page = browser.new_context(viewport={"width": width, "height": 900}, **context).new_page()
    if init_script:
        page.add_init_script(init_script)
    page.goto(base + "/")
    page.fill("#username", username)
    page.fill("#password", password)
    page.click("#login-button")
    page.wait_for_selector("#warrant-message textarea", timeout=60_000)
    return page


def _shot(page, name: str, **options) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / name), **options)


def _conversation_titles(page) -> list[str]:
    return page.locator("#warrant-conversations label").all_inner_texts()


def _wait_listed(page, title: str, present: bool = True) -> None:
    page.wait_for_function(
        "([t, present]) => [...document.querySelectorAll('#warrant-conversations label')]"
        ".some(l => l.innerText.includes(t)) === present",
        arg=[title, present],
        timeout=UI_TIMEOUT,
    )


# -- 2. a reply to a clarifying question continues it ---------------------------------------------
def test_a_reply_that_picks_a_clarifying_option_answers_the_question_for_it(browser, app, account):
    base, _ = app
    page = _page(browser, base, account("clarify"))
    ask(page, "fees?")
    options = page.locator("#warrant-chat button.option")
    options.first.wait_for(timeout=UI_TIMEOUT)
    labels = options.all_inner_texts()
    assert len(labels) >= 2 and any("Examination Registration" in label for label in labels), labels
    ask(page, "The examination one")  # the reply: before, it got three new options
    assert "Which policy do you mean?" not in last_reply(page) and "[1]" in last_reply(page)
    assert "Examination Registration Policy" in page.inner_text("#warrant-sources")
    assert "examination fee" in last_reply(page).lower()
    assert page.locator("#warrant-chat button.option").count() == 0  # answered: the buttons are gone

    new_conversation(page)
    ask(page, "fees?")
    revaluation = page.locator("#warrant-chat button.option", has_text="Revaluation")
    label = revaluation.inner_text()
    revaluation.click()  # a click sends the option as the reply
    page.wait_for_function(ANSWERED, arg=label, timeout=60_000)
    assert "Rs. 500" in last_reply(page) and "Which policy" not in last_reply(page)
    assert "Revaluation and Answer-Script" in page.inner_text("#warrant-sources .warrant-source")

    new_conversation(page)
    ask(page, "fees?")
    options = page.locator("#warrant-chat button.option")
    options.first.wait_for(timeout=UI_TIMEOUT)
    second = options.nth(1).inner_text().split(",")[0].strip()  # the second option's policy title
    rows = page.locator("#warrant-chat .message-row").count()
    page.fill("#warrant-message textarea", "2")  # a reply by number (`ask` waits on text, and "2" is in many)
    page.click("#warrant-send")
    page.wait_for_function(
        "n => { const r = document.querySelectorAll('#warrant-chat .message-row');"
        " return r.length >= n + 2 && r[r.length - 1].innerText.trim().length > 0; }",
        arg=rows,
        timeout=60_000,
    )
    assert "Which policy do you mean?" not in last_reply(page) and "[1]" in last_reply(page)
    assert second in page.inner_text("#warrant-sources .warrant-source"), (second, page.inner_text("#warrant-sources"))
    page.close()


# Holds back the page load's request for the chat's conversation (the load event whose outputs
# include the Chatbot) until the test calls window.releaseChatLoad(): a slow server, made certain.
_HOLD_CHAT_LOAD = """(() => {
  const send = window.fetch.bind(window);
  let release;
  const held = new Promise(r => { release = r; });
  window.releaseChatLoad = () => release();
  window.fetch = async (input, init) => {
    const url = typeof input === 'string' ? input : input.url;
    const config = window.gradio_config;
    if (config && url.includes('/queue/join') && init && typeof init.body === 'string') {
      const chat = config.components.find(c => c.props && c.props.elem_id === 'warrant-chat');
      const event = config.dependencies.find(d => d.id === JSON.parse(init.body).fn_index);
      if (chat && event && event.targets.some(t => t[1] === 'load') && event.outputs.includes(chat.id)) {
        await held;
      }
    }
    return send(input, init);
  };
})()"""


def test_nothing_is_sent_before_the_page_has_its_conversation_so_a_reply_finds_its_question(browser, app, account):
    """A turn sent while the page load was still finding the conversation went to a new one of its
    own, and the load's late answer then moved the page to another: the reply that picked a
    clarifying option missed its question (a flaky test showed it on a busy machine)."""
    base, _ = app
    page = _page(browser, base, account("early"), init_script=_HOLD_CHAT_LOAD)
    assert page.locator("#warrant-message textarea").is_disabled()
    assert page.locator("#warrant-send").is_disabled() and page.locator("#warrant-new").is_disabled()
    page.evaluate("() => window.releaseChatLoad()")
    page.wait_for_function(
        "() => document.activeElement === document.querySelector('#warrant-message textarea')", timeout=UI_TIMEOUT
    )  # enabled, and focused as before (autofocus)
    ask(page, "fees?")
    page.locator("#warrant-chat button.option").first.wait_for(timeout=UI_TIMEOUT)
    ask(page, "The examination one")
    assert "Which policy do you mean?" not in last_reply(page) and "[1]" in last_reply(page)
    assert len(_conversation_titles(page)) == 1, _conversation_titles(page)
    page.close()


# -- 7. conversations -----------------------------------------------------------------------------
def test_conversations_are_listed_reopened_and_deleted_only_after_a_confirmation(browser, app, account):
    base, _ = app
    page = _page(browser, base, account("threads"))
    first, second, third = (
        "When is the photocopy of an answer script issued?",
        "Can a student withdraw a revaluation application?",
        "What is the late registration fee?",
    )
    ask(page, first)
    answer = last_reply(page)
    page.click("#warrant-send")  # an empty message is answered but not kept: the answer above stays
    wait_for_text(page, "#warrant-chat", "Please type a question", UI_TIMEOUT)
    assert answer in page.inner_text("#warrant-chat")
    new_conversation(page)
    ask(page, second)
    _wait_listed(page, first[:30])
    _wait_listed(page, second[:30])
    assert all(re.search(r"· \d{4}-\d{2}-\d{2}$", t) for t in _conversation_titles(page)), _conversation_titles(page)

    page.locator("#warrant-conversations label", has_text=first[:30]).click()  # reopen
    wait_for_text(page, "#warrant-chat", first, UI_TIMEOUT)
    assert second not in page.inner_text("#warrant-chat")

    new_conversation(page)
    page.reload()  # before: the old conversation came back and the next question went into it
    page.wait_for_selector("#warrant-message textarea", timeout=60_000)
    page.wait_for_function(EMPTY_CHAT, timeout=UI_TIMEOUT)
    page.wait_for_timeout(1500)  # the page load has restored whatever it restores
    assert page.locator("#warrant-chat .message-row").count() == 0
    ask(page, third)
    _wait_listed(page, third[:30])
    assert _conversation_titles(page)[0].startswith(third[:30]) and len(_conversation_titles(page)) == 3
    _shot(page, "conversations.png")

    page.locator("#warrant-conversations label", has_text=second[:30]).click()
    wait_for_text(page, "#warrant-chat", second, UI_TIMEOUT)
    page.once("dialog", lambda dialog: dialog.dismiss())
    page.click("#warrant-delete")  # cancelled: nothing is deleted
    wait_for_text(page, "#warrant-chat-status", "Nothing was deleted", UI_TIMEOUT)
    assert any(t.startswith(second[:30]) for t in _conversation_titles(page))
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("#warrant-delete")
    _wait_listed(page, second[:30], present=False)

    page.locator("#warrant-conversations label", has_text=first[:30]).click()
    wait_for_text(page, "#warrant-chat", first, UI_TIMEOUT)
    messages: list[str] = []
    page.once("dialog", lambda dialog: (messages.append(dialog.message), dialog.accept()))
    page.locator("#warrant-chat button[aria-label='Clear']").click()  # the Chatbot's trash icon
    _wait_listed(page, first[:30], present=False)
    assert messages and "Delete this conversation" in messages[0]

    page.reload()
    page.wait_for_selector("#warrant-conversations label", timeout=60_000)
    titles = _conversation_titles(page)
    assert [t[:30] for t in titles] == [third[:30]], titles  # deleted stays deleted
    student_sid = page.locator("#warrant-conversations input").first.get_attribute("value")
    page.close()

    other = _page(browser, base, account("threads-other"))
    other.wait_for_timeout(1500)
    assert third not in other.inner_text("#warrant-conversations")  # per-user: nobody else's list
    other.close()
    with httpx.Client() as client:
        login(client, base, "threads-other", PASSWORD)
        event, data = call(client, base, "open_conversation", student_sid)
    # Refused: by Gradio (an id not among this user's choices) or by the handler's ownership check.
    assert third not in json.dumps(data) and (event == "error" or "not found" in json.dumps(data)), (event, data)


# -- 8. sources one click away -------------------------------------------------------------------
def test_a_citation_opens_its_document_at_the_highlighted_passage_and_copies_with_citations(browser, app, account):
    base, _ = app
    page = _page(browser, base, account("sources"), permissions=["clipboard-read", "clipboard-write"])
    ask(page, "What is the revaluation fee?")
    marker = page.locator("#warrant-chat a.warrant-cite").first
    marker.wait_for(timeout=UI_TIMEOUT)
    assert marker.inner_text() == "[1]" and "/document?chunk=" in (marker.get_attribute("href") or "")
    _shot(page, "screenshot.png")  # docs/screenshot.png, the README's first picture
    with page.context.expect_page() as opened:
        marker.click()
    document = opened.value
    document.wait_for_load_state()
    cited = document.locator("section.cited#passage")
    assert "Rs. 500" in cited.inner_text()
    path = document.inner_text("#section-path")
    assert "Revaluation and Answer-Script Review Policy" in path and "Deadline and Fee" in path
    box, viewport = cited.bounding_box(), document.viewport_size
    assert box is not None and viewport is not None and 0 <= box["y"] < viewport["height"]  # scrolled to it
    _shot(document, "document-view.png")
    document.close()

    page.click("#warrant-copy")
    copied = page.evaluate("() => navigator.clipboard.readText()")
    assert "Rs. 500" in copied and "[1]" in copied and "Sources:" in copied and "Revaluation" in copied
    page.close()

    href = "/document?chunk=revaluation%3A%3Anot-a-chunk"
    with httpx.Client() as client:
        assert client.get(base + href, follow_redirects=False).headers.get("location", "").endswith("/login")
        login(client, base, "sources", PASSWORD)
        missing = client.get(base + href)
    assert missing.status_code == 404 and "not found" in missing.text


# -- 9. feedback ------------------------------------------------------------------------------------
def test_votes_with_comments_can_be_changed_and_reach_insights_and_its_csv(browser, app, account):
    base, _ = app
    page = _page(browser, base, account("voter"))
    ask(page, "What is the photocopy fee?")
    page.locator("#warrant-chat button[aria-label='Dislike']").last.click()
    page.locator("#warrant-feedback-comment textarea").wait_for(timeout=UI_TIMEOUT)
    comment = '=HYPERLINK("http://evil.example") the refund rule is missing'
    page.fill("#warrant-feedback-comment textarea", comment)
    page.click("#warrant-feedback-send")
    wait_for_text(page, "#warrant-chat-status", "comment was saved", UI_TIMEOUT)
    ask(page, "What is the hostel mess menu on Sunday?")  # an abstention gets thumbs too
    page.locator("#warrant-chat button[aria-label='Like']").last.click()
    wait_for_text(page, "#warrant-chat-status", "Thank you for the vote", UI_TIMEOUT)
    page.locator("#warrant-chat button[aria-label='Dislike']").last.click()  # changed my mind
    page.locator("#warrant-feedback-comment textarea").wait_for(timeout=UI_TIMEOUT)
    ask(page, "What is the revaluation fee?")
    page.locator("#warrant-chat button[aria-label='Like']").last.click()
    wait_for_text(page, "#warrant-chat-status", "Thank you for the vote", UI_TIMEOUT)
    page.reload()
    page.wait_for_selector("#warrant-chat button[aria-label='Disliked']", timeout=60_000)
    assert page.locator("#warrant-chat button[aria-label='Disliked']").count() == 2  # the votes are kept,
    assert page.locator("#warrant-chat button[aria-label='Liked']").count() == 1  # as last given
    page.close()

    reviewer = _page(browser, base, "reviewer", DEMO_PASSWORD)
    open_tab(reviewer, "Insights")
    wait_for_text(reviewer, "#warrant-feedback-down", "refund rule is missing", 60_000)
    down = reviewer.inner_text("#warrant-feedback-down")
    assert "What is the photocopy fee?" in down and "hostel mess menu" in down and "voter" not in down
    assert "What is the revaluation fee?" not in down  # a thumbs up is not among the down-voted
    assert "3 vote(s)" in reviewer.inner_text("#warrant-feedback-summary")
    reviewer.locator("#warrant-feedback-heading").evaluate("e => e.scrollIntoView({block: 'start'})")
    _shot(reviewer, "insights-feedback.png")
    reviewer.click("#warrant-feedback-export")
    link = reviewer.locator("#warrant-feedback-csv a").first
    link.wait_for(timeout=60_000)
    exported = reviewer.request.get(base + (link.get_attribute("href") or "").removeprefix(base)).text()
    assert "'=HYPERLINK" in exported and "\n=HYPERLINK" not in exported and ",=HYPERLINK" not in exported
    reviewer.close()


# -- 10. the first screen, and tabs that load when opened ------------------------------------------
def test_the_empty_chat_offers_example_questions_and_tabs_load_when_opened(browser, app, account):
    base, _ = app
    page = _page(browser, base, account("newcomer"))
    examples = page.locator("#warrant-chat button.example")
    examples.first.wait_for(timeout=60_000)
    assert 3 <= examples.count() <= 4 and "Welcome" in page.inner_text("#warrant-chat")
    question = examples.first.inner_text()
    examples.first.click()
    page.wait_for_function("() => document.querySelectorAll('#warrant-chat .message-row').length >= 2", timeout=60_000)
    page.wait_for_selector("#warrant-sources .warrant-source", timeout=60_000)  # the example is answered
    assert question.strip() in page.inner_text("#warrant-chat") and "[1]" in last_reply(page)

    open_tab(page, "My claims")
    page.fill("#warrant-claim textarea", "The photocopy fee is now Rs. 350 per course.")
    page.click("#warrant-file-claim")
    wait_for_text(page, "#warrant-claim-status", "Filed as", 60_000)
    filed = re.search(r"T-[0-9a-f]+", page.inner_text("#warrant-claim-status"))
    assert filed, page.inner_text("#warrant-claim-status")
    ticket = filed.group(0)
    page.close()

    again = _page(browser, base, "newcomer")
    open_tab(again, "My claims")  # before: empty until "Refresh"
    wait_for_text(again, "#warrant-my-claims", ticket, UI_TIMEOUT)
    again.close()
    reviewer = _page(browser, base, "reviewer", DEMO_PASSWORD)
    review_tab = reviewer.get_by_role("tab", name=re.compile(r"^Review \(\d+\)$"))
    review_tab.wait_for(timeout=UI_TIMEOUT)
    assert int(re.findall(r"\d+", review_tab.inner_text())[0]) >= 1
    review_tab.click()
    wait_for_text(reviewer, "#warrant-review-queue", ticket, UI_TIMEOUT)
    reviewer.close()


# -- 11. the meter speaks to students ----------------------------------------------------------------
def _support(page) -> str:
    return page.inner_text("#warrant-support")


def test_the_meter_speaks_plain_words_and_a_conflict_opens_a_prefilled_claim_form(browser, app, account):
    base, home = app
    page = _page(browser, base, account("meter"))
    ask(page, "What is the photocopy fee?")
    assert _support(page).startswith("Strong evidence") and "σ" not in _support(page)  # behind the toggle
    page.click("#warrant-support summary")
    assert re.search(r"σ = [\d.]+ ≥ τ = [\d.]+", _support(page))

    ask(page, "What is the hostel mess menu on Sunday?")
    assert _support(page).startswith("Not enough evidence")
    shown = [float(s) for s in re.findall(r"similarity ([\d.]+)", page.inner_text("#warrant-sources"))]
    assert len(shown) >= 2 and shown == sorted(shown, reverse=True)

    new_conversation(page)  # after the mess menu, "fees?" would be read as a follow-up about the mess
    ask(page, "fees?")
    assert _support(page).startswith("Several policies fit") and "enough evidence to answer" not in _support(page)

    note = "keep answers brief"
    ask(page, "Please keep answers short.")
    assert last_reply(page).lower().count(note) == 1

    # σ just under τ: the page must not print them as equal ("σ 0.70 < τ 0.70").
    question = "What is the photocopy fee?"
    lines = (home / "query_log.jsonl").read_text().splitlines()
    sigma = next(json.loads(line)["sigma"] for line in reversed(lines) if json.loads(line)["query"] == question)
    old_tau = next(json.loads(line)["tau"] for line in reversed(lines) if json.loads(line)["query"] == question)
    try:
        assert _admin_call(base, "set_tau", round(sigma + 0.0004, 4))[0] == "complete"
        new_conversation(page)
        ask(page, question)
        assert _support(page).startswith("Not enough evidence")
        page.click("#warrant-support summary")
        compared = re.search(r"σ = ([\d.]+) < τ = ([\d.]+)", _support(page))
        assert compared and compared.group(1) != compared.group(2), _support(page)
        assert "σ 0.7" not in page.inner_text("#warrant-sources")  # the plain reason, no bare numbers
    finally:
        _admin_call(base, "set_tau", old_tau)

    ask(page, "The revaluation fee is now Rs. 800 per course.")
    assert "Review tab" not in last_reply(page)
    claim_button = page.locator("#warrant-file-claim-from-chat")
    claim_button.wait_for(timeout=UI_TIMEOUT)
    claim_button.click()
    page.wait_for_function(
        "() => (document.querySelector('#warrant-claim textarea') || {}).value?.includes('Rs. 800')", timeout=UI_TIMEOUT
    )
    assert page.get_by_role("tab", name="My claims").get_attribute("aria-selected") == "true"
    page.close()


# -- 12. on a phone -----------------------------------------------------------------------------------
def test_on_a_phone_the_evidence_sits_under_the_answer_above_the_message_box(browser, app, account):
    base, _ = app
    page = _page(browser, base, account("phone"), width=390)
    ask(page, "What is the photocopy fee?")
    evidence = page.locator("#warrant-chat details.warrant-inline-sources").last
    evidence.wait_for(timeout=UI_TIMEOUT)
    assert evidence.is_visible()
    evidence_box, composer_box = evidence.bounding_box(), page.locator("#warrant-message").bounding_box()
    assert evidence_box and composer_box and evidence_box["y"] < composer_box["y"]
    evidence.locator("summary").click()
    assert "Rs. 300" in evidence.inner_text()
    page.locator("#warrant-chat").scroll_into_view_if_needed()
    _shot(page, "chat-mobile.png")
    page.close()
