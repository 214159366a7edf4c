"""The Review tab in a real browser (Playwright + Debian's chromium) against `python app.py` on the
demo policies (issue 31 item 8): a claim's apostrophe shows as typed, the current and proposed text
as a diff; after approval the new text is current and Approve and Reject are disabled."""

from __future__ import annotations

import httpx
import pytest

from tests.ui.pages import log_in, wait_for_text
from tests.ui.server import call, login

pytestmark = pytest.mark.browser
SLOW = 240_000
CLAIM = "The student's revaluation fee is now Rs. 800 per course."


def test_reviewer_sees_quotes_as_typed_a_diff_and_no_decision_after_approval(browser, demo_app):
    base, _home = demo_app
    with httpx.Client(timeout=300) as client:
        assert login(client, base, "student").status_code in (302, 303)
        event, payload = call(client, base, "file_claim", CLAIM, "", None)
    assert event == "complete" and str(payload[0]).startswith("Filed as T-"), payload
    ticket_id = str(payload[0]).split()[2]

    page = log_in(browser, base, "reviewer")
    page.wait_for_selector("#warrant-user", timeout=SLOW)
    page.get_by_role("tab", name="Review").click()
    page.fill("#warrant-ticket-id textarea, #warrant-ticket-id input", ticket_id)
    page.get_by_role("button", name="Open ticket").click()
    wait_for_text(page, "#warrant-ticket", "student's revaluation fee")
    assert "&#x27;" not in page.inner_text("#warrant-ticket")
    page.wait_for_selector("#warrant-diff del", timeout=SLOW)
    assert (
        page.inner_text("#warrant-diff del").strip() == "500" and page.inner_text("#warrant-diff ins").strip() == "800"
    )
    assert page.is_enabled("#warrant-approve") and page.is_enabled("#warrant-reject")

    page.fill("#warrant-reason textarea, #warrant-reason input", "circular checked")
    page.click("#warrant-approve")
    wait_for_text(page, "#warrant-review-status", "Approved")
    page.wait_for_function("() => document.querySelector('#warrant-approve').disabled", timeout=SLOW)
    assert page.is_disabled("#warrant-reject")
    current = page.input_value("#warrant-current textarea")
    assert "Rs. 800" in current and "Rs. 500" not in current
    page.close()
