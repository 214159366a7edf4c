"""The Documents tab's critique panel (ui/critique_panel.py): what it puts in Markdown."""

from __future__ import annotations

from governance.critic.service import PolicyCritic
from governance.identity import Identity
from ui.critique_panel import critique_uploads

ADMIN = Identity("local:admin", "admin", "admin")


def test_an_uploaded_title_and_name_show_as_text_not_markup():
    data = (
        b'# Keys <img src="/x"> [help](http://evil.example)\n\n## 1. Keys\n\nKeys to the community hall are '
        b"collected from the reception desk of the civic centre on the day of the booking, between nine in the "
        b"morning and five in the afternoon, on showing the booking confirmation. Keys must be returned promptly.\n"
    )
    summary, rows = critique_uploads(PolicyCritic(index=None), ADMIN, [(data, "keys_list.md")])
    assert "<img" not in summary and "&lt;img" in summary  # no image request
    assert "](" not in summary and "\\[help\\]\\(http\\:" in summary  # no link
    assert "keys\\_list.md" in summary and "sentences flagged" in summary
    assert rows and "Keys must be returned promptly." in str(rows)
