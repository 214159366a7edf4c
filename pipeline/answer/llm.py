"""The optional answer writer: any OpenAI-compatible chat endpoint, through LlamaIndex's LLM interface.

Configured by `WARRANT_LLM_BASE_URL`, `WARRANT_LLM_MODEL`, `WARRANT_LLM_API_KEY` and
`WARRANT_LLM_TIMEOUT_S` (read in pipeline/ground/config.py). With no base URL or model there is no
backend and Warrant answers extractively, with no network at all.

The backend only streams text. What it writes is checked sentence by sentence in
pipeline/answer/generate.py before anyone relies on it; every failure here becomes an `LLMUnavailable`
that the caller turns into the extractive answer with a short notice.

Retries: a connection that fails, a rate limit (429) or a server error (5xx) *before the first
token* is retried with jittered exponential backoff by tenacity, within the attempt count and the
timeout (each attempt is bounded by it, and none starts once it has passed since the first). Once
text has streamed to the user it is not retried (it would be shown twice). The client's own
retries are switched off (`max_retries=0`) so that there is one policy, here.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass

from llama_index.core.base.llms.types import ChatMessage
from tenacity import Retrying, retry_if_exception, stop_after_attempt, stop_after_delay, wait_exponential_jitter

from pipeline.ground.config import Config

# Room for a short answer; a model that goes on past this is cut and the rest is not verified.
MAX_ANSWER_TOKENS = 400


class LLMUnavailable(Exception):
    """The endpoint gave no usable answer. `kind`: unreachable, timeout, rate limited, server error,
    refused, malformed."""

    def __init__(self, kind: str, detail: str) -> None:
        super().__init__(f"{kind}: {detail}")
        self.kind = kind
        self.detail = detail


@dataclass(frozen=True)
class BackendStatus:
    """What the admin tab shows: which backend answers and how the last calls went."""

    backend: str  # "extractive" or "openai-compatible"
    model: str = ""
    base_url: str = ""
    calls: int = 0
    fallbacks: int = 0
    last_error: str = ""
    last_error_at: str = ""
    last_ok_at: str = ""

    def to_dict(self) -> dict:
        return asdict(self)


EXTRACTIVE_STATUS = BackendStatus(backend="extractive")


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def _classify(exc: BaseException) -> LLMUnavailable:
    """One of a few plain kinds, whatever the client library raised."""
    if isinstance(exc, LLMUnavailable):
        return exc
    import openai

    detail = str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__
    if isinstance(exc, openai.APITimeoutError):
        return LLMUnavailable("timeout", detail)
    if isinstance(exc, openai.APIConnectionError):
        return LLMUnavailable("unreachable", detail)
    if isinstance(exc, openai.RateLimitError):
        return LLMUnavailable("rate limited", detail)
    if isinstance(exc, openai.InternalServerError):
        return LLMUnavailable("server error", detail)
    if isinstance(exc, openai.APIStatusError):
        return LLMUnavailable("refused", f"HTTP {exc.status_code}: {detail}")
    return LLMUnavailable("malformed", f"{type(exc).__name__}: {detail}")


def _worth_retrying(error: LLMUnavailable) -> bool:
    # A timeout has already spent the budget; a refusal (401, 404, 400) will not change.
    return error.kind in ("unreachable", "rate limited", "server error")


class LLMBackend:
    """Streams a chat completion from an OpenAI-compatible endpoint; keeps the status for admins."""

    def __init__(self, config: Config, llm=None) -> None:
        if llm is None:
            # The openai client imports its resource classes on the first request (~2 s here), which
            # would count against that request's timeout: import them now, once per process.
            import openai.resources  # noqa: F401
            from llama_index.llms.openai_like import OpenAILike

            llm = OpenAILike(
                model=config.llm_model,
                api_base=config.llm_base_url,
                # Local servers (Ollama, llama.cpp) take any key; the client insists on one.
                api_key=config.llm_api_key or "not-needed",
                is_chat_model=True,
                is_function_calling_model=False,
                context_window=8192,
                timeout=config.llm_timeout_s,
                max_retries=0,
                temperature=0.0,
                max_tokens=MAX_ANSWER_TOKENS,
            )
        self.llm = llm
        self.model = config.llm_model
        self.base_url = config.llm_base_url
        self.timeout_s = config.llm_timeout_s
        self.max_attempts = config.llm_max_attempts
        self._lock = threading.Lock()
        self._status = BackendStatus(backend="openai-compatible", model=self.model, base_url=self.base_url)

    def status(self) -> BackendStatus:
        with self._lock:
            return self._status

    def _record(self, error: LLMUnavailable | None) -> None:
        with self._lock:
            s = self._status
            if error is None:
                self._status = BackendStatus(**{**s.to_dict(), "calls": s.calls + 1, "last_ok_at": _now()})
            else:
                self._status = BackendStatus(
                    **{
                        **s.to_dict(),
                        "calls": s.calls + 1,
                        "fallbacks": s.fallbacks + 1,
                        "last_error": f"{error.kind}: {error.detail}",
                        "last_error_at": _now(),
                    }
                )

    def stream(self, messages: Sequence[ChatMessage], on_token: Callable[[str], None] | None = None) -> str:
        """The whole reply; `on_token(text so far)` is called as text arrives. Raises LLMUnavailable."""
        started = time.monotonic()
        streamed = [False]

        def retry_allowed(exc: BaseException) -> bool:
            return (
                isinstance(exc, LLMUnavailable)
                and _worth_retrying(exc)
                and not streamed[0]
                and time.monotonic() - started < self.timeout_s
            )

        retrying = Retrying(
            stop=stop_after_attempt(self.max_attempts) | stop_after_delay(self.timeout_s),
            wait=wait_exponential_jitter(initial=0.25, max=4.0, jitter=0.25),
            retry=retry_if_exception(retry_allowed),
            reraise=True,
        )
        try:
            text = retrying(self._attempt, messages, on_token, streamed)
        except LLMUnavailable as error:
            self._record(error)
            raise
        self._record(None)
        return text

    def _attempt(
        self, messages: Sequence[ChatMessage], on_token: Callable[[str], None] | None, streamed: list[bool]
    ) -> str:
        # The timeout bounds each attempt (the client's own timeout only bounds each read, so a
        # server that trickles words would never time out); no new attempt starts after it.
        started = time.monotonic()
        text = ""
        try:
            for delta in self._deltas(messages):
                if time.monotonic() - started > self.timeout_s:
                    raise LLMUnavailable("timeout", f"no complete answer within {self.timeout_s:g} s")
                if not delta:
                    continue
                text += delta
                streamed[0] = True
                if on_token is not None:
                    on_token(text)
        except Exception as exc:  # the client's errors, and anything a broken stream raises
            raise _classify(exc) from exc
        if not text.strip():
            raise LLMUnavailable("malformed", "the endpoint returned no text")
        return text

    def _deltas(self, messages: Sequence[ChatMessage]) -> Iterator[str]:
        for response in self.llm.stream_chat(list(messages)):
            yield response.delta or ""


def build_backend(config: Config) -> LLMBackend | None:
    """The configured backend, or None for extractive answers (nothing configured)."""
    return LLMBackend(config) if config.llm_enabled else None
