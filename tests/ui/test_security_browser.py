"""Issue 27 in a real browser against `python app.py`: what others wrote stays text on a reviewer's
and an admin's screen (f9: no live link from a claim in the Review tab; f11: a document's title
does not break out of the Documents tab's preview)."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from tests.documents_fixtures import RESEARCH_ETHICS, make_pdf
from tests.ui.pages import check_files, log_in, open_tab, wait_for_text
from tests.ui.server import call, login

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def app(browser_ready, demo_app):
    return demo_app


RESEARCH_ETHICS_TEXT = [text for text, _ in RESEARCH_ETHICS]  # a real document's worth of words
LINKS = (
    "The revaluation fee is now Rs. 800 per course, see https://evil.example/a and <http://evil.example/b> "
    "and www.evil.example/c or write to fees@evil.example"
)


def test_f9_urls_in_a_claim_are_not_links_in_the_review_tab(app, browser):
    base, _ = app
    with httpx.Client(timeout=120) as student:
        login(student, base, "student")
        event, data = call(student, base, "file_claim", LINKS, "Proof: https://evil.example/proof", None)
        assert event == "complete" and str(data[0]).startswith("Filed as"), data
        ticket_id = str(data[0]).split()[2]
    page = log_in(browser, base, "reviewer")
    open_tab(page, "Review")
    page.get_by_role("button", name="Refresh queue").click()
    wait_for_text(page, "#warrant-review-queue", ticket_id)
    page.fill("#warrant-ticket-id textarea, #warrant-ticket-id input", ticket_id)
    page.get_by_role("button", name="Open ticket").click()
    wait_for_text(page, "#warrant-ticket", "evil.example/proof")
    shown = page.inner_text("#warrant-ticket")
    assert "https://evil.example/a" in shown and "<http://evil.example/b>" in shown and "fees@evil.example" in shown
    links = page.eval_on_selector_all("#warrant-ticket a, #warrant-review-queue a", "els => els.map(e => e.href)")
    assert links == []
    page.close()


def test_f11_a_documents_title_stays_inside_the_preview(app, browser, tmp_path: Path):
    title = 'Fee Rules\n```\n<img src="/gradio_api/probe-f11.png">\n![x](/gradio_api/probe-f11-md.png)\n```'
    pdf = tmp_path / "fee-rules.pdf"
    # No line set as a title: the PDF's metadata title is then the document's (issue 32: a title
    # set on the page comes first, and would keep the hostile metadata out of the preview untested).
    body = [(line, 11.0) for line in RESEARCH_ETHICS_TEXT]
    pdf.write_bytes(make_pdf(body, title=title))
    base, _ = app
    page = log_in(browser, base, "admin")
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    check_files(page, [pdf])
    wait_for_text(page, "#warrant-doc-preview", "chunks")
    preview = page.inner_text("#warrant-doc-preview")
    assert '<img src="/gradio_api/probe-f11.png">' in preview  # the title is there, as text
    assert page.eval_on_selector_all("#warrant-doc-preview img, #warrant-doc-preview a", "els => els.length") == 0
    page.wait_for_timeout(1000)
    assert [url for url in requested if "probe-f11" in url] == []
    page.close()
