"""τ with a stated risk: the exact binomial bound and the threshold chosen from it."""

import numpy as np
import pytest

from pipeline.gate.calibration import auroc, calibrate_tau, risk_upper_bound


def test_bound_with_no_errors_is_the_textbook_value():
    # k = 0 of n: the 90% upper bound is 1 - 0.1^(1/n)
    assert risk_upper_bound(0, 45) == pytest.approx(1 - 0.1 ** (1 / 45), rel=1e-6)


def test_bound_grows_with_errors_and_shrinks_with_data():
    assert risk_upper_bound(5, 100) > risk_upper_bound(2, 100)
    assert risk_upper_bound(5, 1000) < risk_upper_bound(5, 100)
    assert risk_upper_bound(3, 0) == 1.0


def test_tau_keeps_the_bound_under_alpha_on_synthetic_scores():
    rng = np.random.default_rng(7)
    answerable = rng.normal(0.7, 0.1, 400)
    unanswerable = rng.normal(0.4, 0.1, 400)
    chosen = calibrate_tau(answerable, unanswerable, alpha=0.05)
    answered = int((unanswerable >= chosen.tau).sum())
    assert answered == chosen.answered_unanswerable
    assert risk_upper_bound(answered, 400) <= 0.05
    # one more unanswerable answered would break the bound: τ is the lowest safe threshold
    assert risk_upper_bound(answered + 1, 400) > 0.05
    assert chosen.answer_rate == pytest.approx(float((answerable >= chosen.tau).mean()), abs=1e-4)


def test_too_few_unanswerable_questions_means_answer_nothing_seen():
    chosen = calibrate_tau([0.9, 0.8], [0.1] * 10, alpha=0.05)  # 10 cannot show a rate ≤ 5%
    assert chosen.tau > 0.9
    assert chosen.answer_rate == 0.0


def test_auroc_orders_and_ties():
    assert auroc([2, 3], [0, 1]) == 1.0
    assert auroc([1], [1]) == 0.5
    assert auroc([], [1]) is None
