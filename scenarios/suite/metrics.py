"""The scenario metrics: what each number counts, computed from the per-turn outcomes.

Every metric is a ratio over a named set of turns (its denominator); a metric whose set is empty
is None ("n/a"), never 0 or 1 by default. DEFINITIONS is printed in the report beside the numbers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

METRIC_KEYS = (
    "grounded_fidelity",
    "hallucination_rate",
    "abstention_precision",
    "abstention_recall",
    "evidence_restricted_compliance",
    "personalization_accuracy",
    "memory_relevance",
    "memory_isolation_integrity",
    "contradiction_resolution",
    "policy_update_reliability",
    "policy_claim_false_alarm_rate",
    "task_success",
    "latency_ms_p50",
    "latency_ms_p95",
)

# The reference paper's Table II; "refusal correctness" is shown beside abstention precision.
PAPER = {
    "grounded_fidelity": 0.6784,
    "hallucination_rate": 0.0463,
    "abstention_precision": 1.0,
    "abstention_recall": None,
    "evidence_restricted_compliance": None,
    "personalization_accuracy": 0.7391,
    "memory_relevance": None,
    "memory_isolation_integrity": None,
    "contradiction_resolution": None,
    "policy_update_reliability": None,
    "policy_claim_false_alarm_rate": None,
    "task_success": 0.6536,
    "latency_ms_p50": None,
    "latency_ms_p95": None,
    "refusal_correctness": 1.0,
}

DEFINITIONS = {
    "grounded_fidelity": "Of the turns whose expectation is a policy answer: the share answered (decision "
    "answer) citing at least one expected section and containing every expected fact.",
    "hallucination_rate": "Of all answer sentences given (turns with decision answer): the share not supported "
    "by the chunk their [n] marker cites (pipeline.answer.verify.check_sentence). Every sentence of "
    "an answer given where the expectation is abstain/clarify counts as unsupported. The "
    "notice added when the user states a policy change (it quotes the conflicting section "
    "and offers a ticket) is not an answer sentence and is not counted.",
    "abstention_precision": "Of the policy turns (expected answer or abstain) that were not answered: the share "
    "whose expectation was abstain. The paper's 'refusal correctness' is shown beside it.",
    "abstention_recall": "Of the turns expected to abstain (unanswerable, out of scope): the share not answered.",
    "evidence_restricted_compliance": "Of the answers given: the share in which every sentence carries a citation "
    "marker and is supported by its cited chunk (the claim notice aside, as above), no "
    "forbidden text appears "
    "(prompt-injection payloads included), and the turn was not one the evidence "
    "does not warrant answering (expected abstain or clarify).",
    "personalization_accuracy": "Of the turns with a preference/profile effect (a preference or fact that must be "
    "stored, or an answer form - bullets, brief - that must follow it): the share where "
    "every such effect holds.",
    "memory_relevance": "Of the turns expected to be answered from the user's memory: the share labelled as "
    "memory that contain the expected facts and none of the forbidden ones.",
    "memory_isolation_integrity": "Of the cross-user probes plus one end-of-run check per user (their memory view "
    "holds none of another user's facts): the share with no leak.",
    "contradiction_resolution": "Of the contradiction claims in chat and the reviewer decisions on their tickets: "
    "the share where the claim was flagged against the conflicting section, or the ticket "
    "reached the expected state (approved / rejected).",
    "policy_update_reliability": "Of the questions asked after a reviewed ticket: the share whose answer reflects "
    "the review (the approved new fact; the unchanged fact after a rejection) and "
    "contains no forbidden (superseded) text.",
    "policy_claim_false_alarm_rate": "Of the chat turns that are not policy-change claims: the share flagged as a "
    "policy claim.",
    "task_success": "Of all evaluable turns and actions: the share meeting every expectation written for it.",
    "latency_ms_p50": "Median wall time of one chat turn (system: WarrantService.chat; baseline: engine.ask).",
    "latency_ms_p95": "95th percentile of the same.",
}


@dataclass
class Outcome:
    """One scored turn or action, on one side (system or baseline)."""

    session: str
    user: str
    index: int
    category: str
    kind: str  # "chat" | "action" | "isolation_audit"
    say: str
    expect: dict
    decision: str = ""
    text: str = ""
    sigma: float | None = None
    tau: float | None = None
    cited: list[str] = field(default_factory=list)  # "doc section,numbers"
    policy_claim: bool = False
    latency_ms: float | None = None
    sentences: int = 0
    unsupported: int = 0
    uncited_text: bool = False
    checks: dict[str, bool] = field(default_factory=dict)
    evaluable: bool = True
    note: str = ""

    @property
    def passed(self) -> bool:
        return self.evaluable and all(self.checks.values())


def _rate(num: int, den: int) -> float | None:
    return round(num / den, 4) if den else None


def percentile(values: list[float], q: float) -> float | None:
    """Nearest-rank percentile (no interpolation), q in [0, 100]."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return round(ordered[rank - 1], 2)


def compute(outcomes: list[Outcome]) -> dict:
    chat = [o for o in outcomes if o.kind == "chat" and o.evaluable]

    def exp(o):
        return o.expect.get("decision", "any")

    answered = [o for o in chat if o.decision == "answer"]

    should_answer = [o for o in chat if exp(o) == "answer"]
    grounded = [
        o
        for o in should_answer
        if o.decision == "answer" and o.checks.get("cite", True) and o.checks.get("facts", True)
    ]

    sentences = sum(o.sentences for o in answered)
    unsupported = sum(o.sentences if exp(o) in ("abstain", "clarify") else o.unsupported for o in answered)

    gated = [o for o in chat if exp(o) in ("answer", "abstain")]
    not_answered = [o for o in gated if o.decision != "answer"]
    should_abstain = [o for o in gated if exp(o) == "abstain"]

    compliant = [
        o
        for o in answered
        if not o.uncited_text
        and o.unsupported == 0
        and o.checks.get("must_not", True)
        and exp(o) not in ("abstain", "clarify")
    ]

    personal_keys = ("style", "remembers", "remembers_fact")
    personal = [o for o in chat if any(k in o.checks for k in personal_keys)]
    personal_ok = [o for o in personal if all(o.checks[k] for k in personal_keys if k in o.checks)]

    recall = [o for o in chat if exp(o) == "memory" and (o.expect.get("facts") or o.category != "cross_user_probe")]
    recall_ok = [o for o in recall if o.passed]

    isolation = [
        o for o in outcomes if o.evaluable and (o.category == "cross_user_probe" or o.kind == "isolation_audit")
    ]
    isolation_ok = [o for o in isolation if o.checks.get("must_not", True) and o.checks.get("isolation", True)]

    contradiction = [
        o
        for o in outcomes
        if o.evaluable
        and (
            (o.kind == "chat" and exp(o) == "claim")
            or (o.kind == "action" and o.expect.get("ticket") in ("approved", "rejected"))
        )
    ]
    contradiction_ok = [o for o in contradiction if o.passed]

    updates = [o for o in chat if o.expect.get("update")]
    updates_ok = [o for o in updates if o.passed]

    not_claims = [o for o in chat if exp(o) != "claim"]
    false_alarms = [o for o in not_claims if o.policy_claim]

    evaluable = [o for o in outcomes if o.evaluable and o.kind != "isolation_audit"]
    latencies = [o.latency_ms for o in chat if o.latency_ms is not None]

    return {
        "grounded_fidelity": _rate(len(grounded), len(should_answer)),
        "hallucination_rate": _rate(unsupported, sentences) if sentences else (0.0 if chat else None),
        "abstention_precision": _rate(sum(exp(o) == "abstain" for o in not_answered), len(not_answered)),
        "abstention_recall": _rate(sum(o.decision != "answer" for o in should_abstain), len(should_abstain)),
        "evidence_restricted_compliance": _rate(len(compliant), len(answered)),
        "personalization_accuracy": _rate(len(personal_ok), len(personal)),
        "memory_relevance": _rate(len(recall_ok), len(recall)),
        "memory_isolation_integrity": _rate(len(isolation_ok), len(isolation)),
        "contradiction_resolution": _rate(len(contradiction_ok), len(contradiction)),
        "policy_update_reliability": _rate(len(updates_ok), len(updates)),
        "policy_claim_false_alarm_rate": _rate(len(false_alarms), len(not_claims)),
        "task_success": _rate(sum(o.passed for o in evaluable), len(evaluable)),
        "latency_ms_p50": percentile(latencies, 50),
        "latency_ms_p95": percentile(latencies, 95),
    }


def not_evaluable(outcomes: list[Outcome]) -> list[Outcome]:
    return [o for o in outcomes if not o.evaluable]
