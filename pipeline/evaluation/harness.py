"""What every measurement starts from: a fresh engine over a folder of documents."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from pipeline.ground.config import Config, load_config

if TYPE_CHECKING:
    from pipeline.engine import AnswerEngine
    from pipeline.ingest.index import IngestReport


def print_error(message: str) -> None:
    """A warning or error for the person running the command (stderr; stdout holds the results)."""
    print(message, file=sys.stderr)


def build_engine(
    docs: Path, home: Path, config: Config | None = None, embed_model=None
) -> tuple[AnswerEngine, IngestReport]:
    """An engine on state directory `home` that has ingested every document under `docs`.

    The engine is imported here, not at the top: the commands set the offline environment and
    check their arguments before the models' libraries load."""
    from pipeline.engine import AnswerEngine

    config = (config or load_config()).with_home(home)
    config = replace(config, docs_dir=docs)
    engine = AnswerEngine(config, embed_model=embed_model)
    report = engine.ingest(docs)
    for error in report.errors:
        print_error(f"warning: {error}")
    return engine, report
