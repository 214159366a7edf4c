"""Shared fixtures: the real embedding model loaded once per session, tiny corpora on disk, a real
browser (Debian's chromium through Playwright) and the app served by `python app.py`."""

from __future__ import annotations

import functools
import os
import subprocess
import sys
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
ARTIFACTS = REPO / "tests" / "artifacts"  # screenshots; the README's in docs/ are copies of these
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]

TINY_FEES = """---
doc_id: fees
title: Examination Fees Policy
version: 1.0
effective_date: 2026-07-01
owner: Office of the Controller of Examinations
---

# Examination Fees Policy

## 1. Purpose
This policy sets the fees that students pay for examination services at the Institute, including
revaluation of answer scripts and photocopies of answer scripts, and explains how they are paid.

## 2. Revaluation Fee
The revaluation fee is Rs. 500 per course. A student applies for revaluation within 7 calendar days
of the publication of results. The fee is paid online through the ERP portal and is refunded when
the marks increase after revaluation.

## 3. Photocopy Fee
The fee for a photocopy of an answer script is Rs. 300 per course. The photocopy is issued within
5 working days of the application, and the student may then decide whether to apply for revaluation.
"""

TINY_LIBRARY = """---
doc_id: library
title: Library Borrowing Policy
version: 1.0
effective_date: 2026-07-01
owner: Chief Librarian
---

# Library Borrowing Policy

## 1. Borrowing Limits
An undergraduate student may borrow up to 4 books at a time for a period of 14 days. A postgraduate
student may borrow up to 6 books at a time for a period of 30 days. Reference books cannot be borrowed.

## 2. Overdue Books
A fine of Rs. 5 per day is charged for each overdue book. Borrowing rights are suspended when the
total fine exceeds Rs. 200 until the fine is paid at the circulation desk.
"""


# The tiny corpus's own words, for a test whose app must know them as the demo's do: amounts in
# rupees ("Rs. 500") and programme names. Without it, a folder has no glossary: "$" is its only
# currency and "B.Tech" no programme (another organisation's words never leak in).
TINY_GLOSSARY = """\
named_groups:
  programmes:
    B.Tech: []
    M.Tech: []
currency: [Rs]
abbreviations: [Rs]
"""


@functools.lru_cache(maxsize=1)
def _demo_glossary():
    from pipeline.language.glossary import Glossary

    return Glossary.load(REPO / "data" / "policies")


@pytest.fixture(autouse=True)
def demo_glossary():
    """The demo corpus's words (data/policies/glossary.yaml), as the app has them by default: the
    tiny corpora here are written in them ("Rs. 500", "revaluation"). A test that builds an engine
    over another folder gets that folder's glossary; the one before is restored afterwards."""
    from pipeline.language import glossary

    before = glossary.active()
    glossary.use(_demo_glossary())
    yield
    glossary.use(before)


@pytest.fixture(scope="session")
def embed_model():
    from pipeline.ingest.embedding import MiniLMEmbedding

    return MiniLMEmbedding()


@pytest.fixture()
def encoder_calls(monkeypatch) -> list[list[str]]:
    """The texts each `MiniLMEmbedding._encode_grouped` call hands the model, in order: the real
    encoder runs; this only records what reached it (and so what `embed_many` did not recall)."""
    from pipeline.ingest.embedding import MiniLMEmbedding

    calls: list[list[str]] = []
    encode = MiniLMEmbedding._encode_grouped

    def recording(self, texts):
        calls.append(list(texts))
        return encode(self, texts)

    monkeypatch.setattr(MiniLMEmbedding, "_encode_grouped", recording)
    return calls


@pytest.fixture()
def tiny_docs(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "fees.md").write_text(TINY_FEES, encoding="utf-8")
    (docs / "library.md").write_text(TINY_LIBRARY, encoding="utf-8")
    return docs


@pytest.fixture()
def tiny_docs_in_rupees(tiny_docs: Path) -> Path:
    """The tiny corpus with its glossary (TINY_GLOSSARY): for an app that must read "Rs. 800" in a
    claim as money, or "B.Tech" as a programme."""
    (tiny_docs / "glossary.yaml").write_text(TINY_GLOSSARY, encoding="utf-8")
    return tiny_docs


@pytest.fixture()
def tiny_engine(tmp_path: Path, tiny_docs: Path, embed_model):
    from pipeline.engine import AnswerEngine
    from pipeline.ground.config import load_config

    config = load_config().with_home(tmp_path / "home")
    engine = AnswerEngine(config, embed_model=embed_model)
    engine.ingest(tiny_docs)
    return engine


def engine_over(root: Path, embed_model, documents: dict[str, str]):
    """An engine over documents of our own (file name → text), written to `root`/docs and
    indexed, with its state in `root`/home."""
    from dataclasses import replace

    from pipeline.engine import AnswerEngine
    from pipeline.ground.config import load_config

    docs = root / "docs"
    docs.mkdir()
    for name, text in documents.items():
        (docs / name).write_text(text, encoding="utf-8")
    engine = AnswerEngine(replace(load_config().with_home(root / "home"), docs_dir=docs), embed_model=embed_model)
    engine.ingest(docs)
    return engine


def subprocess_env(home: Path | None = None) -> dict[str, str]:
    env = dict(os.environ)
    env.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", PYTHONPATH=str(REPO))
    if home is not None:
        env["WARRANT_HOME"] = str(home)
    return env


def run_module(
    *args: str, home: Path | None = None, env: dict[str, str] | None = None, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    """`python -m ARGS` from the checkout, as a user runs it: offline, on state directory `home`
    (or with `env`), its output captured as text."""
    return subprocess.run(
        [sys.executable, "-m", *args],
        cwd=REPO,
        env=env if env is not None else subprocess_env(home),
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@pytest.fixture(scope="session")
def browser_ready() -> None:
    """Skip a browser test where chromium or playwright is missing; under CI=true fail instead
    (browser tests must run there). App fixtures of browser tests take it first, so no app is
    started for a test that cannot run."""
    problem = ""
    if not Path(CHROMIUM).exists():
        problem = f"{CHROMIUM} is missing (apt-get install -y chromium)"
    else:
        try:
            import playwright.sync_api  # noqa: F401
        except ImportError:
            problem = "the playwright package is missing (pip install playwright)"
    if problem:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"browser tests must run under CI: {problem}")
        pytest.skip(problem)


@pytest.fixture(scope="session")
def ocr_ready() -> None:
    """Skip an OCR test where Debian's tesseract is missing; under CI=true fail instead (`make test`
    installs it, so the OCR path is tested there)."""
    import shutil

    if shutil.which("tesseract") is None:
        problem = "tesseract is missing (apt-get install -y tesseract-ocr)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"OCR tests must run under CI: {problem}")
        pytest.skip(problem)


@pytest.fixture(scope="module")
def browser(browser_ready):
    """Debian's chromium, headless, through Playwright: one per test module, closed after it."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture(scope="module")
def demo_app():
    """`python app.py` over the demo policies on a free loopback port, for one test module:
    (base URL, state directory). Stopped and removed after the module."""
    from tests.ui.server import running_app

    with running_app() as (base, home):
        yield base, home
