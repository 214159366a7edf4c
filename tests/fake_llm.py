"""A fake OpenAI-compatible chat server for tests: the real `/v1/chat/completions` protocol
(JSON, and server-sent events when `"stream": true`), answering from a script instead of a model.

It stands in for the paid LLM only; everything on Warrant's side (the OpenAILike client, retries,
parsing, verification) is the real code. Runs on a loopback port in a background thread:

    with FakeLLM() as fake:
        fake.script = lambda request: "The fee is Rs. 500 per course [1]."
        ... WARRANT_LLM_BASE_URL=fake.base_url ...

A script returns the reply text, or one of the faults below. `python -m tests.fake_llm --port N
--script evidence` serves the `evidence_script` (an answer made from the prompt's own evidence,
with scripted faults) for scenario and evaluation runs from the command line.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import re
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response, StreamingResponse
from starlette.routing import Route


@dataclass(frozen=True)
class Hang:
    """Wait this long before answering (longer than the client's timeout: a timeout)."""

    seconds: float


@dataclass(frozen=True)
class Status:
    """Answer with this HTTP status and an OpenAI-style error body (429 rate limit, 500, 503)."""

    code: int


@dataclass(frozen=True)
class Garbage:
    """HTTP 200 whose body is not the protocol (broken JSON / broken event stream)."""

    body: str = "<html>502 Bad Gateway</html>{not json"


Reply = str | Hang | Status | Garbage
Script = Callable[[dict], Reply]


def user_message(request: dict) -> str:
    return next((m.get("content", "") for m in reversed(request.get("messages", [])) if m.get("role") == "user"), "")


def evidence_of(request: dict) -> list[tuple[int, dict]]:
    """The numbered evidence records Warrant put in the prompt: [(n, {"title", "section", "text"})]."""
    out = []
    for m in re.finditer(r"^\[(\d+)\] (\{.*\})$", user_message(request), re.M):
        out.append((int(m.group(1)), json.loads(m.group(2))))
    return out


def question_of(request: dict) -> str:
    m = re.search(r"^Question \(quoted data\): (\".*\")$", user_message(request), re.M)
    return json.loads(m.group(1)) if m else ""


class FakeLLM:
    """The server. `script(request) -> Reply`; `requests` keeps every request body received."""

    def __init__(self, script: Script | None = None, token_delay_s: float = 0.0) -> None:
        self.script: Script = script or (lambda request: "I have no script.")
        self.token_delay_s = token_delay_s
        self.requests: list[dict] = []
        self._sock = socket.socket()
        self._sock.bind(("127.0.0.1", 0))
        self.port = self._sock.getsockname()[1]
        app = Starlette(
            routes=[
                Route("/v1/chat/completions", self._chat, methods=["POST"]),
                Route("/v1/models", self._models, methods=["GET"]),
            ]
        )
        self._server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> FakeLLM:
        self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": [self._sock]}, daemon=True)
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("the fake LLM server did not start")
            time.sleep(0.02)
        return self

    def stop(self) -> None:
        self._server.should_exit = True
        if self._thread:
            self._thread.join(timeout=5)
        self._sock.close()

    def __enter__(self) -> FakeLLM:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    async def _models(self, request: Request) -> Response:
        return JSONResponse({"object": "list", "data": [{"id": "fake-model", "object": "model"}]})

    async def _chat(self, request: Request) -> Response:
        body = await request.json()
        self.requests.append(body)
        reply = self.script(body)
        if isinstance(reply, Hang):
            await asyncio.sleep(reply.seconds)
            reply = "Too late [1]."
        if isinstance(reply, Status):
            return JSONResponse(
                {"error": {"message": f"scripted status {reply.code}", "type": "scripted", "code": reply.code}},
                status_code=reply.code,
            )
        if isinstance(reply, Garbage):
            media = "text/event-stream" if body.get("stream") else "application/json"
            return PlainTextResponse(reply.body, media_type=media)
        model = body.get("model", "fake-model")
        if not body.get("stream"):
            return JSONResponse(
                {
                    "id": "chatcmpl-fake",
                    "object": "chat.completion",
                    "created": int(time.time()),
                    "model": model,
                    "choices": [
                        {"index": 0, "message": {"role": "assistant", "content": reply}, "finish_reason": "stop"}
                    ],
                    "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
                }
            )
        return StreamingResponse(self._events(reply, model), media_type="text/event-stream")

    async def _events(self, text: str, model: str):
        def chunk(delta: dict, finish: str | None = None) -> str:
            payload = {
                "id": "chatcmpl-fake",
                "object": "chat.completion.chunk",
                "created": int(time.time()),
                "model": model,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            }
            return f"data: {json.dumps(payload)}\n\n"

        yield chunk({"role": "assistant", "content": ""})
        for piece in re.findall(r"\S+\s*|\s+", text):
            if self.token_delay_s:
                await asyncio.sleep(self.token_delay_s)
            yield chunk({"content": piece})
        yield chunk({}, "stop")
        yield "data: [DONE]\n\n"


# -- a script for whole runs: answers from the prompt's own evidence, with scripted faults -------------

_FAULTS = ("none", "fabricated", "wrong_number", "uncited")
_WORD = re.compile(r"[a-z0-9]+")
_TEXT_NUMBER = re.compile(r"(?<![\[\d])\d+(?![\d\]])")


def _best_sentences(question: str, text: str, limit: int = 2) -> list[str]:
    wanted = set(_WORD.findall(question.lower()))
    sentences = [s.strip() for s in re.split(r"(?<=[.!?])\s+(?=[A-Z])", text) if len(s.split()) >= 4]
    ranked = sorted(sentences, key=lambda s: -len(wanted & set(_WORD.findall(s.lower()))))
    return ranked[:limit]


def _plain(sentence: str) -> str:
    """A light rewording, as a model would write it: the policy's 'A student' becomes 'You'."""
    sentence = re.sub(r"^(A|The|Each|Every) students? (may|must|can|shall|should|is|are)\b", r"You \2", sentence)
    return sentence.replace(" shall ", " must ")


def fault_for(question: str) -> str:
    """The scripted fault for a question: a fixed share of each kind, by a hash of its text."""
    digest = int(hashlib.sha256(question.encode("utf-8")).hexdigest(), 16)
    return _FAULTS[digest % len(_FAULTS)]


@dataclass
class EvidenceScript:
    """A correct answer from the best-matching evidence sentences, plus, by a hash of the question,
    one scripted fault: a fabricated sentence carrying a citation, a wrong number, or a sentence
    without a citation. `injected` records every faulty sentence it wrote (to check none reached a user)."""

    injected: list[dict] = field(default_factory=list)

    def __call__(self, request: dict) -> Reply:
        question = question_of(request)
        records = evidence_of(request)
        if not records:
            return "The evidence does not answer this question."
        lines = [
            f"{_plain(s).rstrip('.')} [{n}]." for n, r in records[:2] for s in _best_sentences(question, r["text"], 1)
        ]
        fault = fault_for(question)
        bad = ""
        if fault == "fabricated":
            bad = "Students who miss this deadline can ask the Dean for a waiver of Rs. 2,750 [1]."
        elif fault == "wrong_number":
            # a number of the text, never the [n] citation marker (changing that is no wrong number)
            source = next((line for line in lines if _TEXT_NUMBER.search(line)), "")
            if source:
                bad = _TEXT_NUMBER.sub(lambda m: str(int(m.group()) + 3), source, count=1)
        elif fault == "uncited":
            bad = "Always check with your department before you decide."
        if bad:
            lines.insert(1, bad)
            self.injected.append({"question": question, "fault": fault, "sentence": bad})
        return " ".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.fake_llm", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--port", type=int, default=8089)
    parser.add_argument("--token-delay", type=float, default=0.0, help="seconds between streamed words")
    parser.add_argument("--log", help="write the scripted faults injected (JSON lines) here on exit")
    args = parser.parse_args(argv)
    script = EvidenceScript()
    fake = FakeLLM(script, token_delay_s=args.token_delay)
    fake._sock.close()
    fake._sock = socket.socket()
    fake._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    fake._sock.bind(("127.0.0.1", args.port))
    fake.port = args.port
    print(f"fake OpenAI-compatible server on {fake.base_url} (Ctrl-C to stop)", flush=True)
    try:
        fake._server.run(sockets=[fake._sock])
    finally:
        if args.log:
            with open(args.log, "w", encoding="utf-8") as fh:
                for item in script.injected:
                    fh.write(json.dumps(item) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
