"""The policy critic in the Documents tab, in a real browser against `python app.py` (Playwright +
Debian's chromium): checking a file shows the critique of its text before anything is added, and
"Critique the library" shows it for every active document; a student is refused by the server."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from tests.conftest import ARTIFACTS
from tests.ui.pages import check_files, log_in, wait_for_text
from tests.ui.server import call, login

pytestmark = pytest.mark.browser

KEY_POLICY = """# Key Holding Policy

## 1. Keys
Keys to the sports hall are issued by the caretaker to named key holders for the length of their booking.
Key holders must return their keys promptly.
Lost keys will be replaced at the discretion of the caretaker.

## 2. Records
The key register is described in Appendix B.
"""


def test_check_shows_the_critique_before_the_file_is_added(demo_app, browser, tmp_path: Path):
    base, _home = demo_app
    path = tmp_path / "key-holding.md"
    path.write_text(KEY_POLICY, encoding="utf-8")
    admin = log_in(browser, base, "admin")
    check_files(admin, [path])
    wait_for_text(admin, "#warrant-doc-critique", "return their keys promptly")
    table = admin.inner_text("#warrant-doc-critique")
    assert "vague" in table and "no_deadline" in table and "dangling_reference" in table
    assert "This document has no Appendix B" in table
    assert "key-holding.md" in admin.inner_text("#warrant-doc-critique-summary")
    assert "key-holding" in admin.inner_text("#warrant-doc-preview")  # the chunk audit, as before
    assert "Added" not in admin.inner_text("#warrant-doc-status")  # checked, not added
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    admin.screenshot(path=str(ARTIFACTS / "critique-panel.png"), full_page=True)

    admin.click("#warrant-doc-critique-library")
    wait_for_text(admin, "#warrant-doc-critique-summary", "add-drop")
    summary = admin.inner_text("#warrant-doc-critique-summary")
    assert "sentences flagged" in summary and "key-holding" not in summary  # the library holds no new file
    admin.close()


def test_student_is_refused_the_library_critique_by_the_server(demo_app):
    base, _home = demo_app
    with httpx.Client(timeout=300) as client:
        assert login(client, base, "student").status_code in (302, 303)
        event, payload = call(client, base, "documents_critique")
    assert event == "complete", (event, payload)
    assert "does not allow" in str(payload[0])
    assert not any(isinstance(v, dict) and v.get("data") for v in payload[1:])  # no findings came back
