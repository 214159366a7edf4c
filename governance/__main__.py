"""`python -m governance audit verify [--home DIR]`: check the hash chain of `<home>/audit.jsonl`.

Prints `OK: N records, chain intact` and exits 0, or names the first broken record and exits 1.
Also `documents add|list|retire|replace|audience|critique`, `insights gaps` and `backup create|restore`
(see governance/commands.py).
"""

from __future__ import annotations

import argparse
import sys

from governance import commands
from governance.audit import AuditLog
from pipeline.ground.config import load_config


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m governance", description="Warrant governance tools.")
    sub = parser.add_subparsers(dest="command", required=True)
    audit = sub.add_parser("audit", help="the hash-chained audit log")
    audit_sub = audit.add_subparsers(dest="audit_command", required=True)
    verify = audit_sub.add_parser("verify", help="check every record's hash and its link to the one before")
    verify.add_argument("--home", help="state directory (default: WARRANT_HOME or ./state)")
    commands.add_parsers(sub)
    args = parser.parse_args(argv)
    config = load_config()
    if args.home:
        config = config.with_home(args.home)
    if args.command == "documents":
        return commands.run_documents(args, config)
    if args.command == "insights":
        return commands.run_insights(args, config)
    if args.command == "backup":
        return commands.run_backup(args, config)
    path = config.audit_path
    if not path.exists():
        print(f"No audit log at {path}; nothing to verify.", file=sys.stderr)
        return 1
    result = AuditLog(path).verify()
    if result.ok:
        print(f"OK: {result.records} records, chain intact ({path})")
        return 0
    print(
        f"BROKEN at line {result.broken_line} (record {result.records + 1}) of {path}: {result.problem}. "
        f"The {result.records} record(s) before it verify."
    )
    return 1


if __name__ == "__main__":
    sys.exit(main())
