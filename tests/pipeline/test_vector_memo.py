"""The embedding memo keeps the latest vectors, within its bounds."""

import threading

import numpy as np

from pipeline.ingest.vector_memo import VectorMemo


def test_the_memo_returns_what_it_kept_and_drops_the_least_recently_used_first():
    memo = VectorMemo(max_texts=2)
    memo.keep([("a", [1.0, 0.0]), ("b", [0.0, 1.0])])
    assert memo.known(["a"])["a"].tolist() == [1.0, 0.0]  # "a" is now the most recently used
    memo.keep([("c", [0.5, 0.5])])
    assert sorted(memo.known(["a", "b", "c"])) == ["a", "c"]
    assert len(memo) == 2


def test_the_memo_keeps_no_long_text_and_nothing_at_size_zero():
    memo = VectorMemo(max_texts=5, max_chars=10)
    memo.keep([("short", [1.0]), ("x" * 11, [2.0])])
    assert list(memo.known(["short", "x" * 11])) == ["short"]
    none = VectorMemo(max_texts=0)
    none.keep([("short", [1.0])])
    assert none.known(["short"]) == {} and len(none) == 0
    memo.clear()
    assert memo.known(["short"]) == {}


def test_the_memo_stays_within_its_bound_under_threads():
    memo = VectorMemo(max_texts=50)

    def work(k: int) -> None:
        for i in range(200):
            memo.keep([(f"{k}-{i}", [float(i)])])
            memo.known([f"{k}-{i - 1}"])

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(memo) == 50
    assert all(isinstance(v, np.ndarray) for v in memo.known([f"{k}-199" for k in range(4)]).values())
