"""Issue 31 item 1 on the demo policies: an approved change reaches every statement of the rule.

"The attendance requirement changed to 60% last month": the 75% minimum stands in five policies,
beside condonation rules that lean on it (down to 65%). The state directory of the demo corpus is
built once and copied for each test.
"""

from __future__ import annotations

import dataclasses
import shutil

import pytest

from governance.identity import Identity
from pipeline.ground.config import load_config
from tests.conftest import REPO

STUDENT = Identity("local:stu", "stu", "user")
REVIEWER = Identity("local:rev", "rev", "reviewer")
ADMIN = Identity("local:adm", "adm", "admin")
CLAIM = "The attendance requirement changed to 60% last month"
QUESTION = "What is the minimum attendance required to sit the end-semester examination?"
# Every section of the demo policies that states the 75% minimum (the issue found the ticket
# listing only some of them).
STATING_75 = {
    "add-drop 4.2",
    "advising 6.1",
    "continuous-assessment 6.1",
    "exam-registration 3.1",
    "internships 4.3",
    "lab-assessment 5.1",
}


@pytest.fixture(scope="module")
def demo_home(tmp_path_factory, embed_model):
    """A state directory with the demo policies indexed (built once for the module)."""
    from ui.service import WarrantService

    home = tmp_path_factory.mktemp("demo") / "home"
    config = dataclasses.replace(load_config().with_home(home), docs_dir=REPO / "data" / "policies")
    WarrantService(config, embed_model=embed_model)
    return home


@pytest.fixture()
def service(demo_home, tmp_path, embed_model):
    from ui.service import WarrantService

    home = tmp_path / "home"
    shutil.copytree(demo_home, home)
    config = dataclasses.replace(load_config().with_home(home), docs_dir=REPO / "data" / "policies")
    return WarrantService(config, embed_model=embed_model)


def _where(entry: dict) -> str:
    return f"{entry['doc_id'] if 'doc_id' in entry else entry['chunk_id'].split('::')[0]} {entry['section'].split()[0]}"


def _active_texts(service) -> list[str]:
    return service.engine.index.active_texts()


def test_the_ticket_lists_every_statement_of_the_rule_with_a_proposed_edit(service):
    ticket = service.governance.file_ticket(STUDENT, CLAIM)
    assert {_where(a) for a in ticket.affected} == STATING_75
    for a in ticket.affected:
        proposed = ticket.replacements[a["chunk_id"]]
        assert a["text"].count("75%") > proposed.count("75%") and "60%" in proposed, a["section"]
    advising = next(a for a in ticket.affected if a["doc_id"] == "advising")
    assert "examination is 60% per course" in ticket.replacements[advising["chunk_id"]]
    # the advising warning "below 75% at either review" is another rule of that section: flagged, not changed
    (warning,) = [d for d in ticket.dependents if d["chunk_id"] == advising["chunk_id"] and d["value"] == "75%"]
    assert "at either review" in warning["sentence"] and "check whether it changes" in warning["reason"]
    (rule,) = ticket.rules
    assert (rule["kind"], rule["old"], rule["new"]) == ("percent", "75", "60")
    # the condonation floor leaned on 75%: beside 60% it no longer makes sense, and is flagged
    crossing = [d for d in ticket.dependents if d["no_longer_fits"]]
    assert {_where(d) for d in crossing} >= {"continuous-assessment 6.1", "exam-registration 3.1"}
    assert all(d["value"] == "65%" for d in crossing)
    assert any("down to 65%" in d["sentence"] for d in crossing)


def test_approving_the_change_leaves_no_section_stating_75(service):
    ticket = service.governance.file_ticket(STUDENT, CLAIM)
    done = service.governance.decide(REVIEWER, ticket.ticket_id, "approve", "Academic Council circular")
    assert done.status == "approved" and done.check["passed"], done.check
    assert len(done.check["questions"]) >= 2  # the claim's question and its paraphrases
    answer = service.chat(STUDENT, QUESTION).answer
    assert answer.decision == "answer" and "60%" in answer.text and "75%" not in answer.text, answer.text
    assert not any(
        "attendance required to sit the end-semester examination is 75%" in t for t in _active_texts(service)
    )
    assert service.governance.verify_audit(ADMIN).ok


def test_a_section_left_stating_the_old_value_fails_the_check_and_rolls_back(service):
    ticket = service.governance.file_ticket(STUDENT, CLAIM)
    advising = next(a for a in ticket.affected if a["doc_id"] == "advising")
    # the reviewer's edit keeps 75% in the advising policy's statement of the minimum
    service.governance.edit_replacement(REVIEWER, ticket.ticket_id, advising["chunk_id"], advising["text"] + " ")
    service.governance.edit_replacement(
        REVIEWER, ticket.ticket_id, advising["chunk_id"], advising["text"].replace("at either review.", "at a review.")
    )
    before = sorted(_active_texts(service))
    done = service.governance.decide(REVIEWER, ticket.ticket_id, "approve", "circular")
    assert done.status == "failed"
    assert "Student Advising" in done.decision_reason or "advising" in done.decision_reason.lower()
    assert "75%" in done.decision_reason and "rolled back" in done.decision_reason
    assert sorted(_active_texts(service)) == before
    # a failed approval changed nothing: the reviewer edits and decides again
    service.governance.edit_replacement(
        REVIEWER, ticket.ticket_id, advising["chunk_id"], ticket.replacements[advising["chunk_id"]]
    )
    again = service.governance.decide(REVIEWER, ticket.ticket_id, "approve", "circular, advising fixed")
    assert again.status == "approved", again.check


def test_a_section_kept_unchanged_is_skipped_and_named(service):
    ticket = service.governance.file_ticket(STUDENT, CLAIM)
    lab = next(a for a in ticket.affected if a["doc_id"] == "lab-assessment")
    service.governance.keep_unchanged(REVIEWER, ticket.ticket_id, lab["chunk_id"])
    done = service.governance.decide(REVIEWER, ticket.ticket_id, "approve", "laboratory attendance is another rule")
    assert done.status == "approved", done.check
    assert "kept unchanged by the reviewer" in done.check["reason"] and "5.1" in done.check["reason"]
    assert lab["chunk_id"] not in done.new_chunk_ids
    lab_now = service.engine.index.get_nodes([lab["chunk_id"]])[0]
    assert lab_now.metadata["status"] == "active" and "at least 75% of the laboratory sessions" in lab_now.text
