"""`python -m scenarios.suite.generative`: the scenarios and the golden split in generative mode.

An LLM endpoint is a paid, networked service, so the run uses the scripted fake OpenAI-compatible
server from the tests (tests/fake_llm.py, the real protocol with streaming): it answers from the
prompt's own evidence and, by a hash of each question, adds one scripted fault (a fabricated
sentence carrying a citation, a wrong number, or a sentence without a citation) to three answers
in four. The report says how many of those faults reached a user (the acceptance is 0), the
scenario metrics in generative mode (hallucination rate, grounded fidelity, …), and the cost per
answer over extractive: the same golden questions asked on one index with and without the writer.

Writes scenarios/reports/generative/{latest.json,latest.md,turns.jsonl,…} (the scenario runner's
report of the generative run) and scenarios/reports/generative.json / generative.md (this summary).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from pipeline.ground.config import REPO_ROOT, load_config, set_offline_environment

REPORTS = Path(__file__).resolve().parents[1] / "reports"


def _pct(values: list[float], q: float) -> float | None:
    from scenarios.suite.metrics import percentile

    return percentile(values, q)


def _faults_reaching_users(injected: list[dict], answers: list[str]) -> list[dict]:
    """Injected faulty sentences (their words, markers stripped) found in any answer a user got."""

    def words(text: str) -> str:
        return " ".join(re.findall(r"[a-z0-9]+", re.sub(r"\[\d+\]", " ", text).lower()))

    shown = [words(a) for a in answers]
    return [f for f in injected if any(words(f["sentence"]) in a for a in shown)]


def _memory_in_requests(requests: list[dict], sessions: list[dict]) -> list[str]:
    """Facts users told the system (advisors, names) that appear in anything sent to the LLM."""
    facts = set()
    for session in sessions:
        for turn in session.get("turns", []):
            for value in (turn.get("expect", {}).get("remembers_fact") or {}).values():
                facts.add(str(value))
    sent = json.dumps(requests).lower()
    return sorted(f for f in facts if f.lower() in sent)


def latency(engine, items: list[dict]) -> dict:
    """Each answerable golden question asked extractively and generatively on one index, in turn."""
    writer = engine.generator
    rows = []
    for item in items:
        engine.generator = None
        extractive = engine.ask(item["question"], log=False)
        engine.generator = writer
        generative = engine.ask(item["question"], log=False)
        if extractive.decision != "answer" or generative.generation is None:
            continue
        rows.append(
            (
                extractive.timings_ms["total"],
                generative.timings_ms["total"],
                generative.timings_ms.get("generate", 0.0),
                generative.timings_ms.get("verify_generated", 0.0),
            )
        )
    engine.generator = writer
    ext, gen, call, verify = (list(col) for col in zip(*rows, strict=False)) if rows else ([], [], [], [])
    added = [g - e for e, g in zip(ext, gen, strict=False)]
    return {
        "answers_timed": len(rows),
        "extractive_ms_p50": _pct(ext, 50),
        "extractive_ms_p95": _pct(ext, 95),
        "generative_ms_p50": _pct(gen, 50),
        "generative_ms_p95": _pct(gen, 95),
        "added_ms_p50": _pct(added, 50),
        "added_ms_p95": _pct(added, 95),
        "llm_call_ms_p50": _pct(call, 50),
        "llm_call_ms_p95": _pct(call, 95),
        "verification_ms_p50": _pct(verify, 50),
        "verification_ms_p95": _pct(verify, 95),
    }


def run(out: Path, only: list[str] | None, split: str) -> dict:
    sys.path.insert(0, str(REPO_ROOT))
    from pipeline.answer.generate import generation_summary
    from pipeline.evaluation.golden import ANSWERABLE, load_golden, score
    from pipeline.evaluation.harness import build_engine
    from pipeline.ingest.embedding import MiniLMEmbedding
    from scenarios.suite.benchmark import run as run_scenarios
    from scenarios.suite.runner import load_sessions
    from tests.fake_llm import EvidenceScript, FakeLLM

    embed_model = MiniLMEmbedding()
    script = EvidenceScript()
    summary: dict = {}
    with FakeLLM(script) as fake:
        config = replace(load_config(), llm_base_url=fake.base_url, llm_model="fake-scripted", llm_timeout_s=20.0)
        started = time.perf_counter()
        with tempfile.TemporaryDirectory(prefix="warrant-generative-") as home:
            report = run_scenarios(
                Path(home), out / "generative", only, loo=False, embed_model=embed_model, config=config
            )
        turns = [json.loads(line) for line in (out / "generative" / "turns.jsonl").read_text().splitlines()]
        shown = [t["text"] for t in turns if t["side"] == "system" and t.get("text")]
        scenario_injected = list(script.injected)
        summary["scenarios"] = {
            "sessions": report["sessions"],
            "turns": report["turns"],
            "requests_to_llm": len(fake.requests),
            "faults_injected": {
                k: sum(f["fault"] == k for f in scenario_injected) for k in ("fabricated", "wrong_number", "uncited")
            },
            "faults_injected_list": scenario_injected,
            "faults_reaching_users": len(_faults_reaching_users(scenario_injected, shown)),
            "memory_facts_sent_to_llm": _memory_in_requests(fake.requests, load_sessions(only=only)),
            "metrics": report["metrics"],
            "baseline": report["baseline"],
            "seconds": round(time.perf_counter() - started, 1),
        }
        script.injected.clear()
        items = load_golden(split)
        with tempfile.TemporaryDirectory(prefix="warrant-generative-golden-") as home:
            engine, _ = build_engine(config.docs_dir, Path(home), config=config, embed_model=embed_model)
            answers = [engine.ask(item["question"], log=False) for item in items]
            golden = score(items, answers, engine)
            golden_injected = list(script.injected)
            golden_shown = [a.text for a in answers if a.decision == "answer"]
            summary["golden"] = {
                "split": split,
                "metrics": golden,
                "generation": generation_summary(answers),
                "faults_injected": len(golden_injected),
                "faults_reaching_users": len(_faults_reaching_users(golden_injected, golden_shown)),
            }
            answerable = [i for i in items if i["type"] in ANSWERABLE]
            summary["latency"] = latency(engine, answerable)
    summary["note"] = (
        "Scripted fake server (tests/fake_llm.py) on loopback, no token delay: the LLM call "
        "time is the protocol round trip, so added latency is Warrant's own cost "
        "(prompt, client, streaming, parsing and verification), not a model's."
    )
    return summary


def latency_only(home: Path, split: str) -> dict:
    """The cost-per-answer part alone, on an existing state directory's index (no ingest)."""
    sys.path.insert(0, str(REPO_ROOT))
    from pipeline.engine import AnswerEngine
    from pipeline.evaluation.golden import ANSWERABLE, load_golden
    from pipeline.ingest.embedding import MiniLMEmbedding
    from tests.fake_llm import EvidenceScript, FakeLLM

    with FakeLLM(EvidenceScript()) as fake:
        config = replace(
            load_config().with_home(home), llm_base_url=fake.base_url, llm_model="fake-scripted", llm_timeout_s=20.0
        )
        engine = AnswerEngine(config, embed_model=MiniLMEmbedding())
        items = [i for i in load_golden(split) if i["type"] in ANSWERABLE]
        return latency(engine, items)


def verification_cost(split: str) -> dict:
    """Warrant's own verification of a generated reply, alone: the policies chunked (no index), the
    five chunks sharing most words with each answerable golden question as evidence, the fake's
    scripted reply (with its faults) parsed and every sentence checked against its citation."""
    from pipeline.answer.generate import Evidence, build_messages, verify_reply
    from pipeline.evaluation.golden import ANSWERABLE, load_golden
    from pipeline.ground.records import AnswerStyle
    from pipeline.ingest.chunking import chunk_document
    from pipeline.ingest.documents import find_documents, read_document
    from pipeline.language.text import term_set
    from tests.fake_llm import EvidenceScript

    docs = load_config().docs_dir
    chunks = [c for path in find_documents(docs) for c in chunk_document(read_document(path, docs))]
    terms = [term_set(c.text) for c in chunks]
    script = EvidenceScript()
    timings, sentences = [], 0
    for item in (i for i in load_golden(split) if i["type"] in ANSWERABLE):
        wanted = term_set(item["question"])
        ranked = sorted(range(len(chunks)), key=lambda k: -len(wanted & terms[k]))[:5]
        evidence = [
            Evidence(n + 1, chunks[k].chunk_id, chunks[k].title, chunks[k].section, chunks[k].text)
            for n, k in enumerate(ranked)
        ]
        messages = build_messages(item["question"], evidence, AnswerStyle())
        reply = script({"messages": [{"role": m.role.value, "content": m.content} for m in messages]})
        assert isinstance(reply, str)  # EvidenceScript always writes text (no faults)
        started = time.perf_counter()
        kept, removed = verify_reply(reply, evidence, item["question"])
        timings.append((time.perf_counter() - started) * 1000)
        sentences += len(kept) + len(removed)
    return {
        "replies": len(timings),
        "sentences": sentences,
        "verification_ms_p50": _pct(timings, 50),
        "verification_ms_p95": _pct(timings, 95),
        "faults_injected": len(script.injected),
    }


def write_markdown(summary: dict, path: Path) -> None:
    s, g, lat = summary["scenarios"], summary["golden"], summary["latency"]
    m, b = s["metrics"], s["baseline"]
    lines = [
        "# Generative mode against the scripted fake LLM",
        "",
        summary["note"],
        "",
        f"## Scenarios ({s['sessions']} sessions, {s['turns']} turns, {s['requests_to_llm']} requests to the LLM)",
        "",
        f"Scripted faults injected: {s['faults_injected']}; **reaching a user: {s['faults_reaching_users']}**. "
        f"Memory facts found in what was sent to the LLM: {s['memory_facts_sent_to_llm'] or 'none'}.",
        "",
        "| metric | generative | standard-RAG baseline |",
        "| --- | --- | --- |",
    ]
    lines += [f"| {k} | {v} | {b.get(k)} |" for k, v in m.items()]
    lines += [
        "",
        f"## Golden `{g['split']}` in generative mode",
        "",
        f"Faults injected: {g['faults_injected']}; reaching a user: {g['faults_reaching_users']}. "
        f"Generation: `{json.dumps(g['generation'])}`",
        "",
        "| metric | value |",
        "| --- | --- |",
    ]
    lines += [f"| {k} | {v} |" for k, v in g["metrics"].items()]
    lines += [
        "",
        f"## Cost per answer ({lat['answers_timed']} answered golden questions, same index)",
        "",
        "| ms | p50 | p95 |",
        "| --- | --- | --- |",
    ]
    for key, label in (
        ("extractive_ms", "extractive answer"),
        ("generative_ms", "generative answer"),
        ("added_ms", "added over extractive"),
        ("llm_call_ms", "LLM call (fake, streamed)"),
        ("verification_ms", "verifying the generated sentences"),
    ):
        lines.append(f"| {label} | {lat[key + '_p50']} | {lat[key + '_p95']} |")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m scenarios.suite.generative",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--out", type=Path, default=REPORTS, help="report folder (default scenarios/reports)")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="run only these scenario sessions")
    parser.add_argument("--golden", choices=["dev", "test"], default="test", help="golden split (default test)")
    parser.add_argument(
        "--latency-only",
        type=Path,
        metavar="HOME",
        help="only the cost per answer, on the index already in state directory HOME",
    )
    parser.add_argument(
        "--verify-only",
        action="store_true",
        help="only the time Warrant's verification of a generated reply takes (no index)",
    )
    args = parser.parse_args(argv)
    set_offline_environment()
    if args.verify_only:
        result = verification_cost(args.golden)
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "generative_verification.json").write_text(json.dumps(result, indent=2), encoding="utf-8")
        print(json.dumps(result, indent=2))
        return 0
    if args.latency_only:
        result = latency_only(args.latency_only.resolve(), args.golden)
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "generative_latency.json").write_text(json.dumps(result, indent=2), encoding="utf-8")
        print(json.dumps(result, indent=2))
        return 0
    summary = run(args.out, args.only, args.golden)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "generative.json").write_text(json.dumps(summary, indent=2), encoding="utf-8")
    write_markdown(summary, args.out / "generative.md")
    print((args.out / "generative.md").read_text(encoding="utf-8"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
