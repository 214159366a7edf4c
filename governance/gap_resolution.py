"""Whether a knowledge gap is still open: its question re-asked against today's library.

A question Warrant abstained on last month may be answered now, after a document was added or a
claim approved. Re-asking it through the engine, with the gate as it stands today and only the
documents the reviewer may read, says so: an answered question is marked resolved, with the
section that answers it, instead of staying listed as a gap. Answers are remembered until the
library or τ changes (the term statistics file is rewritten on every library change, in any
process), so refreshing Insights does not re-ask every question.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from pipeline.ground.audience import Audience
from pipeline.ground.freshness import file_stamp

MAX_REMEMBERED = 5000


class GapResolver:
    """Re-asks abstained questions for one engine; `resolved_by` is "" while a gap is open."""

    def __init__(self, engine) -> None:
        self.engine = engine
        self._known: OrderedDict[tuple, str] = OrderedDict()
        self._lock = threading.Lock()

    def resolved_by(self, question: str, audience: Audience) -> str:
        """ "doc_id §section" of the first citation when `question` is answered today for
        `audience`; "" when Warrant would still abstain (or clarify)."""
        self.engine.follow_other_processes()
        key = (question, audience, file_stamp(self.engine.term_stats_path), self.engine.tau)
        with self._lock:
            if key in self._known:
                self._known.move_to_end(key)
                return self._known[key]
        answer = self.engine.ask(question, log=False, audience=audience)
        found = ""
        if answer.decision == "answer" and answer.citations:
            first = answer.citations[0]
            found = f"{first.doc_id} §{first.section}"
        with self._lock:
            self._known[key] = found
            while len(self._known) > MAX_REMEMBERED:
                self._known.popitem(last=False)
        return found
