"""Bring your own documents, in a real browser against `python app.py` (Playwright + Debian's chromium).

The admin uploads a PDF and a DOCX made here; a student asks what only the PDF says and sees it
cited; the admin retires the PDF; the same question now abstains; the audit chain verifies; a
reviewer finds the abstained question in a knowledge-gap group; the student sees neither tab and
is refused by the server when calling their handlers directly.
"""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest

from tests.conftest import ARTIFACTS, TINY_FEES, TINY_LIBRARY, run_module
from tests.documents_fixtures import RESEARCH_ETHICS, SPORTS_FACILITIES, make_docx, make_pdf
from tests.layout_pdfs import make_scanned_policy_pdf
from tests.ui.pages import ask, check_files, log_in, new_conversation, open_chat, open_tab, wait_for_text
from tests.ui.server import call, login, running_app

pytestmark = pytest.mark.browser
ETHICS_Q = "How many days before the ethics committee meeting must an application reach the secretary?"
HOSTEL = ["What time does the hostel gate close at night?", "When is the hostel curfew?"]


@pytest.fixture(scope="module")
def app(browser_ready, tmp_path_factory):
    """The app over an organisation's own small starting folder (WARRANT_DOCS), not the demo policies."""
    docs = tmp_path_factory.mktemp("org-docs")
    (docs / "exam-fees.md").write_text(TINY_FEES, encoding="utf-8")
    (docs / "library.md").write_text(TINY_LIBRARY, encoding="utf-8")
    with running_app(timeout_s=1200, docs=docs) as (base, home):
        yield base, home


# Generous waits: on a machine shared with other work a page can take minutes to load.
SLOW = 240_000


def test_admin_adds_and_retires_a_document_and_insights_show_the_gap(app, browser, tmp_path: Path):
    base, home = app
    pdf, docx = tmp_path / "research-ethics.pdf", tmp_path / "sports-facilities.docx"
    pdf.write_bytes(make_pdf(RESEARCH_ETHICS, title="Research Ethics Policy"))
    docx.write_bytes(make_docx(SPORTS_FACILITIES))

    admin = log_in(browser, base, "admin")
    check_files(admin, [pdf, docx])
    wait_for_text(admin, "#warrant-doc-preview", "research-ethics")
    assert "sports-facilities" in admin.inner_text("#warrant-doc-preview")
    admin.click("#warrant-doc-add")
    wait_for_text(admin, "#warrant-doc-status", "Added sports-facilities")
    assert "Added research-ethics" in admin.inner_text("#warrant-doc-status")
    wait_for_text(admin, "#warrant-doc-library", "research-ethics")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    admin.screenshot(path=str(ARTIFACTS / "documents-tab.png"), full_page=True)

    student = open_chat(browser, base, "student", SLOW)
    tabs = student.get_by_role("tab").all_inner_texts()
    assert "Documents" not in tabs and "Insights" not in tabs
    ask(student, ETHICS_Q, SLOW)
    student.locator("#warrant-sources .warrant-source").first.wait_for(state="visible", timeout=SLOW)
    assert "21 days" in student.inner_text("#warrant-chat")
    assert "Research Ethics" in student.inner_text("#warrant-sources")

    for question in HOSTEL:  # two more unanswered questions, on one topic of their own
        ask(student, question, SLOW)

    admin.fill("#warrant-doc-id textarea, #warrant-doc-id input", "research-ethics")
    admin.click("#warrant-doc-retire")  # the first click only asks (issue 31 item 6)
    wait_for_text(admin, "#warrant-doc-retire-question", "Retire")
    admin.click("#warrant-doc-retire-confirm")  # without a reason: refused
    wait_for_text(admin, "#warrant-doc-status", "Give a reason")
    admin.fill("#warrant-doc-reason textarea, #warrant-doc-reason input", "replaced by the national code")
    admin.click("#warrant-doc-retire-confirm")
    wait_for_text(admin, "#warrant-doc-status", "Retired research-ethics")

    new_conversation(student, SLOW)  # waits for the empty chat, so what follows is this question's reply
    ask(student, ETHICS_Q, SLOW)
    student.locator("#warrant-sources .warrant-abstain").wait_for(state="visible", timeout=SLOW)
    assert "21 days" not in student.inner_text("#warrant-chat")

    verify = run_module("governance", "audit", "verify", "--home", str(home), home=home)
    assert verify.returncode == 0, verify.stdout + verify.stderr

    reviewer = log_in(browser, base, "reviewer")
    open_tab(reviewer, "Insights")
    wait_for_text(reviewer, "#warrant-gaps", "ethics committee")
    gaps = reviewer.inner_text("#warrant-gaps")
    assert "hostel curfew" in gaps and "student" not in gaps  # questions, never who asked
    reviewer.wait_for_timeout(1500)  # let the plots draw before the screenshot
    reviewer.screenshot(path=str(ARTIFACTS / "insights-tab.png"), full_page=True)
    for page in (admin, student, reviewer):
        page.close()


def test_the_documents_tab_says_a_scan_was_read_by_ocr_and_how_well(app, browser, ocr_ready, tmp_path: Path):
    """Issue 32: a scanned PDF (a picture of text, no text layer) is read by tesseract, and the admin
    is told so, with the mean word confidence, before and after adding it; a student then gets an
    answer from it."""
    base, _home = app
    scan = tmp_path / "parking-permits.pdf"
    scan.write_bytes(make_scanned_policy_pdf())
    admin = log_in(browser, base, "admin")
    check_files(admin, [scan])
    wait_for_text(admin, "#warrant-doc-preview", "Text read by OCR")
    assert re.search(r"mean word confidence \d+%", admin.inner_text("#warrant-doc-preview"))
    admin.click("#warrant-doc-add")
    wait_for_text(admin, "#warrant-doc-status", "Added parking-permits")
    assert re.search(r"Text read by OCR .*confidence \d+%", admin.inner_text("#warrant-doc-status"))
    student = open_chat(browser, base, "student", SLOW)
    ask(student, "Where do students park?", SLOW)
    student.locator("#warrant-sources .warrant-source").first.wait_for(state="visible", timeout=SLOW)
    assert "zone C" in student.inner_text("#warrant-chat")
    for page in (admin, student):
        page.close()


@pytest.mark.parametrize(
    "api_name, data",
    [
        ("documents_list", []),
        ("documents_retire", ["fees", "gone"]),
        ("documents_restore", ["fees"]),
        ("documents_chunks", ["fees"]),
        ("insights_refresh", []),
        ("insights_gaps_csv", []),
    ],
)
def test_student_is_refused_by_the_server(app, api_name, data):
    base, _home = app
    with httpx.Client(timeout=120) as client:
        assert login(client, base, "student").status_code in (302, 303)
        event, payload = call(client, base, api_name, *data)
    assert event == "complete", (event, payload)
    assert "does not allow" in str(payload[0])
    assert not any(isinstance(v, dict) and v.get("data") for v in payload[1:])  # no table came back


def test_a_file_handler_refuses_a_path_that_was_not_uploaded(app):
    base, _home = app
    with httpx.Client(timeout=120) as client:
        assert login(client, base, "admin").status_code in (302, 303)
        secret = {"path": "/etc/passwd", "orig_name": "passwd.md", "meta": {"_type": "gradio.FileData"}}
        event, payload = call(client, base, "documents_check", [secret], "", "", "")
    assert event != "complete" or "not uploaded" in str(payload)
    assert "root:" not in str(payload)
