"""Append-only JSON-lines log of every chat turn, under the state directory.

One line per turn, whatever became of it. `kind` says which: "policy" (a question that went
through the gate), "declined" (a request to act, or only instructions), "refused" (empty, too long
or binary input), "greeting", "memory" (a preference or fact stored), "about_me" (answered from
the user's memory), or "error" (the turn failed; `error` names the exception's class). The
question's text is kept only for "policy" and "declined" turns: what a user tells Warrant about
themselves, and input it refused, are not written here. `timings_ms` holds the turn's stage
timings (embed, retrieve, support, synthesise, verify, generate, total) as the engine measured
them; `nearest` the chunk ids of the nearest sections (Insights hides a turn from a reviewer who
may not read them).
"""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path

from pipeline.ground.records import Answer

_LOCK = threading.Lock()
TEXT_KINDS = frozenset({"policy", "declined"})  # the kinds whose question text is logged


def append_query_log(
    path: Path, answer: Answer, actor: str = "", session: str = "", kind: str = "policy", error: str = ""
) -> None:
    """Append the line for one turn: `answer` as the user got it (`kind` and `error` as above)."""
    support = answer.support
    with_text = kind in TEXT_KINDS
    record = {
        "ts": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "actor": actor,
        "session": session,
        "query": answer.query if with_text else "",
        "rewritten_query": answer.rewritten_query if with_text else "",
        "decision": answer.decision,
        "sigma": support.sigma if support else None,
        "sim": support.sim if support else None,
        "coverage": support.coverage if support else None,
        "consistency": support.consistency if support else None,
        "tau": support.tau if support else None,
        "reason": answer.reason,
        "sources": [c.chunk_id for c in answer.citations],
        # cited sentences that disagree (pipeline/answer/conflicts.py): Insights lists the open ones
        "conflicts": [
            {"chunks": c["chunks"], "sentences": c["sentences"], "what": c["what"]} for c in answer.conflicts
        ],
        "timings_ms": answer.timings_ms,
        "kind": kind,
        "error": error,
        "nearest": [str(n.get("chunk_id", "")) for n in answer.nearest_sections],
    }
    line = json.dumps(record, ensure_ascii=False) + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    with _LOCK:
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(line)
            fh.flush()
            os.fsync(fh.fileno())


def anonymise_actor(path: Path, actor: str, replacement: str = "forgotten") -> int:
    """Blank one actor's queries in the log ("forget me"); returns how many lines changed."""
    if not path.exists():
        return 0
    changed = 0
    with _LOCK:
        lines = path.read_text(encoding="utf-8").splitlines()
        out = []
        for line in lines:
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                out.append(line)
                continue
            if record.get("actor") == actor:
                record.update(actor=replacement, session="", query="", rewritten_query="")
                changed += 1
            out.append(json.dumps(record, ensure_ascii=False))
        tmp = path.with_suffix(".tmp")
        tmp.write_text("\n".join(out) + ("\n" if out else ""), encoding="utf-8")
        os.replace(tmp, path)
    return changed


def rewrite_query_log(path: Path, keep) -> int:
    """Keep only the records for which `keep(record)` is true (retention); returns how many were dropped."""
    if not path.exists():
        return 0
    with _LOCK:
        kept, dropped = [], 0
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                kept.append(line)
                continue
            if keep(record):
                kept.append(line)
            else:
                dropped += 1
        if dropped:
            tmp = path.with_suffix(".tmp")
            tmp.write_text("\n".join(kept) + ("\n" if kept else ""), encoding="utf-8")
            os.replace(tmp, path)
    return dropped
