"""The scenario benchmark counts the active library's contradicting chunk pairs before the first
turn and after every approval (issue 31 item 3), and reports the count."""

from __future__ import annotations

import dataclasses

from pipeline.ground.config import load_config
from scenarios.suite.report import build_report, write_markdown
from scenarios.suite.runner import run_sessions
from tests.pipeline.tiny_corpora import REMOTE_WORK, STAFF_HANDBOOK_REMOTE_WORK

SESSIONS = [
    {
        "name": "t1_claim",
        "user": "stu",
        "role": "user",
        "turns": [
            {
                "action": "file_ticket",
                "claim": "Employees may now work remotely for up to 4 days per week.",
                "label": "remote4",
                "expect": {"ticket": "filed"},
            }
        ],
    },
    {
        "name": "t2_review",
        "user": "rev",
        "role": "reviewer",
        "turns": [{"action": "review", "label": "remote4", "decision": "approve", "expect": {"ticket": "approved"}}],
    },
]


def test_contradicting_pairs_are_counted_before_and_after_each_approval(tmp_path, tiny_docs_in_rupees, embed_model):
    from ui.service import WarrantService

    (tiny_docs_in_rupees / "remote-work.md").write_text(REMOTE_WORK, encoding="utf-8")
    (tiny_docs_in_rupees / "staff-handbook.md").write_text(STAFF_HANDBOOK_REMOTE_WORK, encoding="utf-8")
    config = dataclasses.replace(load_config().with_home(tmp_path / "home"), docs_dir=tiny_docs_in_rupees)
    service = WarrantService(config, embed_model=embed_model)
    result = run_sessions(service, SESSIONS)
    actions = [o for o in result.system if o.kind == "action"]
    assert [(o.decision, o.passed) for o in actions] == [("filed", True), ("approved", True)]
    counts = result.library_contradictions
    # 2 remote days in one policy, 3 in the other: one pair; the approved claim changes both
    assert counts["start"]["pairs"] == 1 and "day 2 vs 3" in counts["start"]["conflicts"][0]
    assert [(a["ticket"], a["pairs"]) for a in counts["after_approvals"]] == [("remote4", 0)]
    report = build_report({}, {}, 2, 2, None, 0.5, result.system, extra={"library_contradictions": counts})
    assert report["library_contradictions"]["after_approvals"][0]["pairs"] == 0
    write_markdown(report, tmp_path / "latest.md")
    assert "**1** before the first turn; **0** after the approval of `remote4`" in (tmp_path / "latest.md").read_text(
        encoding="utf-8"
    )
