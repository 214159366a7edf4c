"""`python -m pipeline.eval …`: the evaluation contract's name, kept; the work is pipeline.evaluation.

    python -m pipeline.eval --docs DIR --questions Q.jsonl --out OUT.jsonl
    python -m pipeline.eval --golden dev|test [--tune]
    python -m pipeline.eval --calibrate [--alpha A] | --outside NAME [--ablate RULE] [--ablation]

See pipeline/evaluation/cli.py for the options. Nothing the app runs imports this module.
"""

from __future__ import annotations

import sys

from pipeline.evaluation.cli import main

__all__ = ["main"]

if __name__ == "__main__":
    sys.exit(main())
