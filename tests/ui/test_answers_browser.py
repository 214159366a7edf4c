"""Answers in a real browser: what was searched is shown when it differs from the
message, answers lead with the answer, a message asking three things gets each part answered or
named, and a table row reads as a row (issue #30, items 1 and 3-6).

The app serves the demo policies and one document of our own with a table (WARRANT_DOCS).
"""

from __future__ import annotations

import shutil

import pytest

from tests.conftest import REPO
from tests.pipeline.test_table_rows import LIBRARY
from tests.ui.pages import ask, last_reply_row, open_chat

pytestmark = pytest.mark.browser

# A reply may take minutes on a loaded machine (two cores shared by many test runs).
SLOW = 240_000


@pytest.fixture(scope="module")
def base_url(browser_ready, tmp_path_factory):
    from tests.ui.server import running_app

    docs = tmp_path_factory.mktemp("docs")
    for path in (REPO / "data" / "policies").iterdir():
        shutil.copy(path, docs / path.name)
    (docs / "library.md").write_text(LIBRARY, encoding="utf-8")
    with running_app(docs=docs) as (base, _home):
        yield base


@pytest.fixture()
def chat(browser, base_url):
    page = open_chat(browser, base_url, "student")
    page.click("#warrant-new")
    yield page
    page.close()


def test_a_follow_up_shows_what_was_searched_and_leads_with_the_answer(chat):
    ask(chat, "Can I register late for exams?", SLOW)
    ask(chat, "What about for the summer term?", SLOW)
    reply = last_reply_row(chat)
    assert "Searched for: Can I register late for exams for the summer term?" in reply.inner_text()
    lead = reply.locator("strong").first.inner_text()
    assert lead.startswith("No. Late registration is not available for the summer term.")


def test_a_misspelt_question_is_answered_and_says_what_was_searched(chat):
    ask(chat, "wat is the revalution deadline", SLOW)
    text = last_reply_row(chat).inner_text()
    assert "Searched for: wat is the revaluation deadline" in text
    assert "Not covered" not in text and "7 calendar days" in text


def test_a_message_asking_three_things_answers_each_or_names_it(chat):
    ask(
        chat,
        "What is the late registration fee for exams, when does late registration close, and is there a hostel curfew?",
        SLOW,
    )
    text = last_reply_row(chat).inner_text()
    assert "Rs. 1,000" in text and "week 14" in text
    assert "The policies I can search do not cover: is there a hostel curfew?" in text


def test_a_table_row_is_shown_as_a_row(chat):
    ask(chat, "How many items can an M.Tech student borrow?", SLOW)
    reply = last_reply_row(chat)
    assert reply.locator("strong").first.inner_text() == "6 items"
    text = reply.inner_text()
    assert "M.Tech student: 6 items, 21 days" in text
    assert "|" not in text and "Member:" not in text
