"""The one place Warrant reads its environment.

Every setting has a safe default so that `python app.py` runs with no configuration, no key and
no network. Other modules receive a `Config` (or read `load_config()`); nothing else touches
`os.environ`.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from urllib.parse import urlsplit

REPO_ROOT = Path(__file__).resolve().parents[2]  # pipeline/ground/config.py -> the checkout

# The gate (pipeline.gate.support): σ = λ_sim·sim + λ_reader·reader + λ_coverage·coverage +
# λ_consistency·consistency, answered when σ ≥ τ. λ and τ are chosen on tuning data only (golden dev,
# the reader's tuning split) by `python -m pipeline.eval --calibrate`, which writes them, the stated
# risk α and what they measured to models/gate.json; docs/evaluation.md has the method and numbers.
READER_MODEL = REPO_ROOT / "models" / "reader.pt"
GATE_FILE = REPO_ROOT / "models" / "gate.json"
ALL_RULES = ("answer_type", "clarify", "consistency")
# Used only where models/gate.json is missing or unreadable (a checkout without a calibration).
FALLBACK_LAMBDAS = {"sim": 0.3, "reader": 0.5, "coverage": 0.15, "consistency": 0.05}
FALLBACK_GATE: dict = {"tau": 0.5, "lambdas": FALLBACK_LAMBDAS, "rules": list(ALL_RULES), "alpha": 0.1}


def _gate_file() -> dict:
    try:
        data = json.loads(GATE_FILE.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return dict(FALLBACK_GATE)
    return data if isinstance(data, dict) else dict(FALLBACK_GATE)


GATE = _gate_file()  # what `--calibrate` chose and measured (also shown in the Admin tab)
DEFAULT_TAU = float(GATE.get("tau", FALLBACK_GATE["tau"]))
DEFAULT_LAMBDAS: dict[str, float] = {
    part: float(GATE.get("lambdas", {}).get(part, weight)) for part, weight in FALLBACK_LAMBDAS.items()
}
DEFAULT_RULES = tuple(r for r in GATE.get("rules", FALLBACK_GATE["rules"]) if r in ALL_RULES)
DEFAULT_ALPHA = float(GATE.get("alpha", FALLBACK_GATE["alpha"]))
READER_PRECISIONS = ("auto", "bf16", "fp32")


def _env_float(name: str, default: float) -> float:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        return float(raw)
    except ValueError as exc:
        raise ValueError(f"{name} must be a number, got {raw!r}") from exc


def _env_int(name: str, default: int) -> int:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        return int(raw)
    except ValueError as exc:
        raise ValueError(f"{name} must be an integer, got {raw!r}") from exc


def _env_chroma_url(name: str) -> str:
    """`http(s)://host[:port]`, checked here so a typo fails at start with the variable's name."""
    raw = os.environ.get(name, "").strip().rstrip("/")
    if not raw:
        return ""
    parsed = urlsplit(raw)
    if parsed.scheme not in ("http", "https") or not parsed.hostname:
        raise ValueError(f"{name} must look like http://host:8000, got {raw!r}")
    try:
        _ = parsed.port  # raises ValueError on a port that is not a number in range
    except ValueError as exc:
        raise ValueError(f"{name} has a bad port: {raw!r}") from exc
    return raw


def _env_positive(name: str, default: float) -> float:
    value = _env_float(name, default)
    if value <= 0:
        raise ValueError(f"{name} must be greater than 0, got {value}")
    return value


def _env_switch(name: str, default: bool) -> bool:
    """An on/off setting: on, true, yes, 1 / off, false, no, 0 (unset: `default`)."""
    raw = os.environ.get(name, "").strip().lower()
    if not raw:
        return default
    if raw in ("on", "true", "yes", "1"):
        return True
    if raw in ("off", "false", "no", "0"):
        return False
    raise ValueError(f"{name} must be on or off, got {raw!r}")


def _env_hops(name: str, default: int) -> int:
    value = _env_int(name, default)
    if not 0 <= value <= 10:
        raise ValueError(f"{name} must be the number of proxies in front of the app (0-10), got {value}")
    return value


def _env_rules(name: str, default: tuple) -> tuple:
    """Comma-separated rule names ("none" for none); each must be one of ALL_RULES."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    names = () if raw.lower() == "none" else tuple(r.strip() for r in raw.split(",") if r.strip())
    unknown = [r for r in names if r not in ALL_RULES]
    if unknown:
        raise ValueError(f"{name}: unknown rule(s) {unknown}; known: {', '.join(ALL_RULES)}")
    return names


def default_home() -> Path:
    """`WARRANT_HOME`, else `/data` (Hugging Face persistent storage) when present, else `./state`."""
    explicit = os.environ.get("WARRANT_HOME", "").strip()
    if explicit:
        return Path(explicit).expanduser().resolve()
    spaces_storage = Path("/data")
    if spaces_storage.is_dir() and os.access(spaces_storage, os.W_OK):
        return spaces_storage
    return (Path.cwd() / "state").resolve()


@dataclass(frozen=True)
class Config:
    """All runtime settings. Build with `load_config()`; derive variants with `with_home()`."""

    home: Path
    docs_dir: Path = REPO_ROOT / "data" / "policies"
    top_k: int = 5
    # Dense candidates re-ordered with BM25 before the top_k are kept (pipeline.retrieve.hybrid); 0: dense only.
    fusion_pool: int = 20
    tau: float = DEFAULT_TAU
    lambda_sim: float = DEFAULT_LAMBDAS["sim"]
    lambda_reader: float = DEFAULT_LAMBDAS["reader"]
    lambda_coverage: float = DEFAULT_LAMBDAS["coverage"]
    lambda_consistency: float = DEFAULT_LAMBDAS["consistency"]
    alpha: float = DEFAULT_ALPHA  # the stated risk --calibrate chose τ for (answering an unanswerable question)
    rules: tuple = DEFAULT_RULES  # the hand rules in force (pipeline.gate.support.RULES)
    reader_model: Path = READER_MODEL  # the trained reader (pipeline.gate.reader)
    reader_precision: str = "auto"  # bf16 where the CPU has AMX / AVX-512 BF16, else fp32
    chunk_min_words: int = 40
    chunk_max_words: int = 320
    # Chat turns a Gradio worker may run at once. Gradio's default is 1: every user then waits for
    # all turns ahead of them, including their file writes. See scenarios/reports/concurrency_profile.md.
    chat_concurrency: int = 4
    # app / accounts
    host: str = "127.0.0.1"
    port: int = 7860
    secret: str = ""
    demo_password: str = ""
    oidc_metadata_url: str = ""
    oidc_client_id: str = ""
    oidc_client_secret: str = ""
    # The ID token / userinfo claim whose values become an SSO account's groups (pipeline.ground.audience).
    oidc_groups_claim: str = "groups"
    on_spaces: bool = False
    # Optional generative answers (pipeline/answer/llm.py): any OpenAI-compatible endpoint. Empty base URL
    # or model: extractive answers, no network. The four WARRANT_LLM_* names are a contract.
    llm_base_url: str = ""
    llm_model: str = ""
    llm_api_key: str = ""
    llm_timeout_s: float = 30.0
    llm_max_attempts: int = 3
    llm_judge: bool = False  # ask the model whether the evidence answers before it writes
    # Chroma in client/server mode: empty means the embedded PersistentClient under <home>/chroma.
    # Several app processes (or servers) over one index need the server; see docs/operations.md.
    chroma_url: str = ""
    chroma_token: str = ""  # sent as `Authorization: Bearer <token>` (a proxy in front of Chroma checks it)
    chroma_collection: str = "warrant_chunks"
    # security (see SECURITY.md)
    audit_key: str = ""  # HMAC key of the audit chain; "" = the cookie secret
    allowed_origins: tuple[str, ...] = ()  # origins besides the app's own that may call it
    session_idle_s: int = 8 * 3600  # a session unused this long ends
    session_max_s: int = 7 * 24 * 3600  # and any session ends this long after login
    max_upload_mb: float = 10.0  # Gradio's upload limit (a claim's proof is further limited to 5 MB)
    upload_max_age_s: int = 3600  # uploads left in Gradio's folder are deleted after this long
    frame_ancestors: str = ""  # CSP frame-ancestors; "" = the app itself (and huggingface.co on Spaces)
    space_host: str = ""  # this Space's own host on Hugging Face (SPACE_HOST), e.g. "me-warrant.hf.space"
    # Proxies in front of the app whose X-Forwarded-For entries are believed (the client is the
    # entry this many from the right); 0 = the connection's own peer, X-Forwarded-For ignored.
    trusted_proxy_hops: int = 0
    query_log_days: int = 0  # query log retention in days; 0 keeps every line
    # `GET /metrics` (Prometheus) answers only a request bearing this token; "" turns it off (404).
    metrics_token: str = ""
    extra: dict = field(default_factory=dict)

    @property
    def llm_enabled(self) -> bool:
        return bool(self.llm_base_url and self.llm_model)

    @property
    def chroma_dir(self) -> Path:
        return self.home / "chroma"

    @property
    def query_log_path(self) -> Path:
        return self.home / "query_log.jsonl"

    @property
    def audit_path(self) -> Path:
        return self.home / "audit.jsonl"

    @property
    def users_dir(self) -> Path:
        return self.home / "users"

    def with_home(self, home: Path | str) -> Config:
        return replace(self, home=Path(home).resolve())


def load_config() -> Config:
    """Read the environment once. Documented in README.md, section Configuration."""
    on_spaces = bool(os.environ.get("SPACE_ID"))
    port = _env_int("PORT", _env_int("GRADIO_SERVER_PORT", 7860))
    host = os.environ.get("WARRANT_HOST", "").strip() or ("0.0.0.0" if on_spaces else "127.0.0.1")
    docs = os.environ.get("WARRANT_DOCS", "").strip()
    reader_file = os.environ.get("WARRANT_READER_MODEL", "").strip()
    precision = os.environ.get("WARRANT_READER_PRECISION", "").strip().lower() or "auto"
    if precision not in READER_PRECISIONS:
        raise ValueError(f"WARRANT_READER_PRECISION must be one of {', '.join(READER_PRECISIONS)}, got {precision!r}")
    return Config(
        home=default_home(),
        docs_dir=Path(docs).resolve() if docs else REPO_ROOT / "data" / "policies",
        top_k=_env_int("WARRANT_TOP_K", 5),
        fusion_pool=max(0, _env_int("WARRANT_FUSION_POOL", 20)),
        query_log_days=max(0, _env_int("WARRANT_QUERY_LOG_DAYS", 0)),
        tau=_env_float("WARRANT_TAU", DEFAULT_TAU),
        lambda_sim=_env_float("WARRANT_LAMBDA_SIM", DEFAULT_LAMBDAS["sim"]),
        lambda_reader=_env_float("WARRANT_LAMBDA_READER", DEFAULT_LAMBDAS["reader"]),
        lambda_coverage=_env_float("WARRANT_LAMBDA_COVERAGE", DEFAULT_LAMBDAS["coverage"]),
        lambda_consistency=_env_float("WARRANT_LAMBDA_CONSISTENCY", DEFAULT_LAMBDAS["consistency"]),
        alpha=_env_float("WARRANT_ALPHA", DEFAULT_ALPHA),
        rules=_env_rules("WARRANT_RULES", DEFAULT_RULES),
        reader_model=Path(reader_file).resolve() if reader_file else READER_MODEL,
        reader_precision=precision,
        chat_concurrency=max(1, _env_int("WARRANT_CHAT_CONCURRENCY", 4)),
        host=host,
        port=port,
        secret=os.environ.get("WARRANT_SECRET", ""),
        demo_password=os.environ.get("WARRANT_DEMO_PASSWORD", ""),
        oidc_metadata_url=os.environ.get("WARRANT_OIDC_METADATA_URL", ""),
        oidc_client_id=os.environ.get("WARRANT_OIDC_CLIENT_ID", ""),
        oidc_client_secret=os.environ.get("WARRANT_OIDC_CLIENT_SECRET", ""),
        oidc_groups_claim=os.environ.get("WARRANT_OIDC_GROUPS_CLAIM", "").strip() or "groups",
        on_spaces=on_spaces,
        llm_base_url=os.environ.get("WARRANT_LLM_BASE_URL", "").strip().rstrip("/"),
        llm_model=os.environ.get("WARRANT_LLM_MODEL", "").strip(),
        llm_api_key=os.environ.get("WARRANT_LLM_API_KEY", "").strip(),
        llm_timeout_s=_env_positive("WARRANT_LLM_TIMEOUT_S", 30.0),
        llm_max_attempts=max(1, _env_int("WARRANT_LLM_MAX_ATTEMPTS", 3)),
        llm_judge=_env_switch("WARRANT_LLM_JUDGE", False),
        chroma_url=_env_chroma_url("WARRANT_CHROMA_URL"),
        chroma_token=os.environ.get("WARRANT_CHROMA_TOKEN", "").strip(),
        chroma_collection=os.environ.get("WARRANT_CHROMA_COLLECTION", "").strip() or "warrant_chunks",
        audit_key=os.environ.get("WARRANT_AUDIT_KEY", ""),
        allowed_origins=tuple(
            o.strip().rstrip("/") for o in os.environ.get("WARRANT_ALLOWED_ORIGINS", "").split(",") if o.strip()
        )
        + ((f"https://{os.environ['SPACE_HOST']}",) if on_spaces and os.environ.get("SPACE_HOST") else ()),
        session_idle_s=max(60, _env_int("WARRANT_SESSION_IDLE_S", 8 * 3600)),
        session_max_s=max(60, _env_int("WARRANT_SESSION_MAX_S", 7 * 24 * 3600)),
        max_upload_mb=_env_positive("WARRANT_MAX_UPLOAD_MB", 10.0),
        upload_max_age_s=max(60, _env_int("WARRANT_UPLOAD_MAX_AGE_S", 3600)),
        frame_ancestors=os.environ.get("WARRANT_FRAME_ANCESTORS", "").strip(),
        space_host=os.environ.get("SPACE_HOST", "").strip() if on_spaces else "",
        trusted_proxy_hops=_env_hops("WARRANT_TRUSTED_PROXY_HOPS", 1 if on_spaces else 0),
        metrics_token=os.environ.get("WARRANT_METRICS_TOKEN", "").strip(),
    )


def set_offline_environment() -> None:
    """Models come from installed packages; make any hidden hub download fail fast, not hang."""
    for name in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_DATASETS_OFFLINE"):
        os.environ.setdefault(name, "1")
    os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


def set_server_environment(home: Path | None = None) -> None:
    """Gradio settings for serving, before its queue is built.

    Gradio rebuilds a pandas table of every recorded event (up to 10,000) after each finished
    event to refresh a monitoring summary; in a long-running app that grows to the largest cost
    of a chat turn. Refresh it every 100 events over the last 1,000 instead. No telemetry calls.
    Uploads go to `<home>/uploads` (private to the app, like the rest of the state directory)
    unless `GRADIO_TEMP_DIR` says otherwise.
    """
    if home is not None:
        os.environ.setdefault("GRADIO_TEMP_DIR", str(Path(home) / "uploads"))
    os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
    os.environ.setdefault("GRADIO_ANALYTICS_CACHE_FREQUENCY", "100")
    os.environ.setdefault("GRADIO_ANALYTICS_MAX_EVENTS", "1000")
