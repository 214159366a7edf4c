"""Who may read which document, through the service layer the app calls: groups set by an admin or
the SSO provider, chat answers, claim notes, the document view and Insights, each seen from inside
and outside a restricted document's audience."""

from __future__ import annotations

import dataclasses
import json

import pytest

from governance.auth_oidc import sso_groups
from governance.identity import Identity, PermissionDenied
from governance.library import DocumentRefused
from pipeline.ground.config import load_config
from tests.conftest import TINY_FEES, TINY_LIBRARY
from tests.pipeline.test_audience import HR_PAY, QUESTION

ADMIN = Identity("local:admin", "admin", "admin")
# What only the restricted document holds (its id, title, section names, owner, text): none may show.
TRACES = ("hr-pay", "Redundancy Payments", "Severance", "three weeks", "Human Resources", "payroll")


@pytest.fixture()
def service(tmp_path, embed_model):
    from ui.service import WarrantService

    docs = tmp_path / "docs"
    docs.mkdir()
    for name, text in (("fees.md", TINY_FEES), ("library.md", TINY_LIBRARY), ("hr-pay.md", HR_PAY)):
        (docs / name).write_text(text, encoding="utf-8")
    config = dataclasses.replace(load_config().with_home(tmp_path / "home"), docs_dir=docs)
    svc = WarrantService(config, embed_model=embed_model)
    for name, role in (("stu", "user"), ("hrclerk", "user"), ("rev", "reviewer"), ("hrrev", "reviewer")):
        svc.accounts.create(name, "password-123", role)
    svc.set_groups(ADMIN, "hrclerk", "HR")
    svc.set_groups(ADMIN, "hrrev", "hr, finance")
    return svc


def _who(service, username: str) -> Identity:
    identity = service.identity_for(username)
    assert identity is not None
    return identity


def _log(service) -> list[dict]:
    return [json.loads(line) for line in service.config.query_log_path.read_text(encoding="utf-8").splitlines()]


def test_the_groups_come_from_the_account(service):
    assert _who(service, "hrclerk").groups == ("hr",)
    assert _who(service, "stu").groups == ()
    assert "groups_change" in [r["event"] for r in service.audit.records()]
    with pytest.raises(PermissionDenied):
        service.set_groups(_who(service, "hrrev"), "stu", "hr")  # only admins
    with pytest.raises(ValueError):
        service.set_groups(ADMIN, "stu", "h r")
    # Telling Warrant about yourself changes nothing of what you may read.
    service.chat(_who(service, "stu"), "I'm in the HR group.")
    assert _who(service, "stu").groups == ()


def test_a_user_outside_the_audience_gets_an_abstention_that_does_not_reveal_the_document(service):
    outside = service.chat(_who(service, "stu"), QUESTION).answer
    assert outside.decision == "abstain"
    shown = json.dumps(outside.to_dict())
    assert not [t for t in TRACES if t in shown]
    assert all(not str(c).startswith("hr-pay") for c in _log(service)[-1]["nearest"])
    inside = service.chat(_who(service, "hrclerk"), QUESTION).answer
    assert inside.decision == "answer" and inside.citations[0].doc_id == "hr-pay"


def test_a_claim_about_a_restricted_section_is_not_compared_with_it_for_an_outsider(service):
    claim = "The severance payment is now five weeks of salary for each completed year of service."
    outside = service.chat(_who(service, "stu"), claim).answer
    assert not [t for t in TRACES if t in json.dumps(outside.to_dict())]
    inside = service.chat(_who(service, "hrclerk"), claim).answer
    assert inside.policy_claim and inside.policy_claim["conflicts"]
    assert "three weeks" in inside.policy_claim["note"]
    # Filed as a ticket, the claim's rule is looked for only in what its author may read.
    filed_outside = service.governance.file_ticket(_who(service, "stu"), claim)
    assert not [a for a in filed_outside.affected if a["doc_id"] == "hr-pay"]
    filed_inside = service.governance.file_ticket(_who(service, "hrclerk"), claim)
    assert [a for a in filed_inside.affected if a["doc_id"] == "hr-pay"]


def test_a_conflict_with_a_restricted_side_is_shown_only_to_reviewers_who_may_read_it(service):
    index = service.governance.documents.index
    (hr,) = index.get_nodes(where={"$and": [{"doc_id": "hr-pay"}, {"section": "1. Severance"}]})
    fees = index.get_nodes(where={"doc_id": "fees"})[0]
    seen = {"chunks": [hr.node_id, fees.node_id], "sentences": ["three weeks", "fees"], "what": "weeks"}
    with service.config.query_log_path.open("a", encoding="utf-8") as log:
        log.write(json.dumps({"ts": "2030-01-01T00:00:00Z", "decision": "answer", "conflicts": [seen]}) + "\n")
    insights = service.governance.insights
    assert insights.conflicts(_who(service, "rev")) == []
    (row,) = insights.conflicts(_who(service, "hrrev"))
    assert row["chunks"] == [hr.node_id, fees.node_id]


def test_the_document_view_answers_a_restricted_document_as_a_missing_one(service):
    with pytest.raises(DocumentRefused) as restricted:
        service.read_document(_who(service, "stu"), "hr-pay")
    with pytest.raises(DocumentRefused) as missing:
        service.read_document(_who(service, "stu"), "no-such")
    assert str(restricted.value).replace("hr-pay", "X") == str(missing.value).replace("no-such", "X")
    sections = [c["section"] for c in service.read_document(_who(service, "hrclerk"), "hr-pay")]
    assert sections == ["1. Severance", "2. Notice"]
    assert service.read_document(_who(service, "stu"), "fees")


def test_changing_a_documents_audience_applies_at_once_and_is_audited(service):
    library = service.governance.documents
    with pytest.raises(PermissionDenied):
        library.set_audience(_who(service, "stu"), "hr-pay", "everyone")
    assert library.set_audience(ADMIN, "hr-pay", "everyone").message == "hr-pay is now readable by everyone."
    assert service.chat(_who(service, "stu"), QUESTION).answer.decision == "answer"
    library.set_audience(ADMIN, "hr-pay", "finance")
    assert service.chat(_who(service, "hrclerk"), QUESTION).answer.decision == "abstain"
    assert service.chat(_who(service, "hrrev"), QUESTION).answer.decision == "answer"
    events = [r for r in service.audit.records() if r["event"] == "document_audience"]
    assert [e["details"]["audience"] for e in events] == ["everyone", "finance"]
    assert {e.doc_id: e.audience for e in library.entries(ADMIN)}["hr-pay"] == "finance"


def test_insights_show_a_reviewer_only_what_their_audience_allows(service):
    hr_clerk, student = _who(service, "hrclerk"), _who(service, "stu")
    assert service.chat(hr_clerk, QUESTION).answer.decision == "answer"
    near_hr = "Is redundancy notice shorter for staff on probation?"
    assert service.chat(hr_clerk, near_hr).answer.decision == "abstain"
    assert service.chat(student, "Where can students park their cars on campus?").answer.decision == "abstain"
    insights = service.governance.insights
    outsider, insider = _who(service, "rev"), _who(service, "hrrev")
    assert not [s for s, _ in insights.overview(outsider)["top_sections"] if s.startswith("hr-pay")]
    assert [s for s, _ in insights.overview(insider)["top_sections"] if s.startswith("hr-pay")]
    seen_outside = [q.question for g in insights.gaps(outsider) for q in g.questions]
    seen_inside = [q.question for g in insights.gaps(insider) for q in g.questions]
    assert near_hr not in seen_outside and near_hr in seen_inside
    assert not [g.nearest_section for g in insights.gaps(outsider) if "hr-pay" in g.nearest_section]


def test_sso_groups_come_from_the_configured_claim(service):
    assert sso_groups({"groups": ["HR", "Finance", "bad name!"]}) == ["finance", "hr"]
    assert sso_groups({"roles": "hr,legal"}, "roles") == ["hr", "legal"]
    assert sso_groups({"sub": "1"}) is None
    first = service.sso_identity("oidc:idp:1", "alice-123abc", "Alice", ["hr"])
    assert first.groups == ("hr",)
    assert service.sso_identity("oidc:idp:1", "alice-123abc", "Alice", None).groups == ("hr",)  # no claim: kept
    assert service.sso_identity("oidc:idp:1", "alice-123abc", "Alice", []).groups == ()  # an empty claim: none
