"""The command-line face of the document library and the knowledge-gap export (a contract):

    python -m governance documents add FILE... [--title T] [--version V] [--audience GROUPS] [--file-conflicts] [--home DIR]
    python -m governance documents list [--home DIR]
    python -m governance documents retire DOC_ID [--reason TEXT] [--home DIR]
    python -m governance documents replace DOC_ID FILE [--audience GROUPS] [--file-conflicts] [--home DIR]
    python -m governance documents audience DOC_ID GROUPS [--home DIR]     (GROUPS: "everyone" or "hr,finance")
    python -m governance insights gaps --home DIR --csv FILE      (the open gaps; resolved ones left out)
    python -m governance backup create PATH [--home DIR]          (while the app runs; governance/backup.py)
    python -m governance backup restore PATH [--home DIR]         (into a new or empty state directory)
    python -m governance documents critique FILE... | --library [--json] [--no-model] [--home DIR]

Each acts as the `admin` account of the state directory, is audited like the Documents tab, and
exits 1 with a one-line reason on bad input (nothing changed). `add` and `replace` print what the
new text contradicts in the active library (`conflict: …`); with --file-conflicts each becomes a
ticket for reviewers, as confirming them in the Documents tab does. `critique` changes nothing: it
prints where each document's text is vague, names no owner, sets no deadline, states no
consequence, contradicts itself or refers to parts that are not there (governance/critic).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from governance.identity import Identity
from pipeline.ground.config import Config
from pipeline.ingest.convert import MAX_UPLOAD_BYTES


def add_parsers(sub: argparse._SubParsersAction) -> None:
    documents = sub.add_parser("documents", help="add, list, retire or replace policy documents")
    docs = documents.add_subparsers(dest="documents_command", required=True)
    add = docs.add_parser("add", help="convert and index new documents (PDF, DOCX, HTML, Markdown, text)")
    add.add_argument("files", nargs="+", metavar="FILE")
    add.add_argument("--title", default="", help="the document's title (one file only)")
    add.add_argument("--version", default="", help="the document's version (default: from the file, else 1.0)")
    add.add_argument("--audience", default="", help='who may read it: "everyone" (default) or groups "hr,finance"')
    listing = docs.add_parser("list", help="every document with its version, chunks and status")
    retire = docs.add_parser("retire", help="deprecate every chunk of a document (kept, reversible)")
    retire.add_argument("doc_id", metavar="DOC_ID")
    retire.add_argument("--reason", default="retired from the command line", help="kept in the audit record")
    replace = docs.add_parser("replace", help="a new version of a document; only changed chunks are embedded")
    replace.add_argument("doc_id", metavar="DOC_ID")
    replace.add_argument("file", metavar="FILE")
    replace.add_argument("--audience", default="", help="who may read the new version (default: as before)")
    for parser in (add, replace):
        parser.add_argument(
            "--file-conflicts", action="store_true", help="file each contradiction found as a ticket for reviewers"
        )
    audience = docs.add_parser("audience", help='who may read a document: "everyone" or groups "hr,finance"')
    audience.add_argument("doc_id", metavar="DOC_ID")
    audience.add_argument("groups", metavar="GROUPS")
    critique = docs.add_parser("critique", help="flag vague, unenforceable or self-contradictory policy text")
    critique.add_argument(
        "files", nargs="*", metavar="FILE", help="documents to critique (PDF, DOCX, HTML, Markdown, text)"
    )
    critique.add_argument("--library", action="store_true", help="critique every active document of the library")
    critique.add_argument("--json", action="store_true", help="print the critiques as JSON")
    critique.add_argument(
        "--no-model",
        action="store_true",
        help="the rules alone, contradictions paired by shared words: no MiniLM or flagger load (faster)",
    )
    for parser in (add, listing, retire, replace, audience, critique):
        parser.add_argument("--home", help="state directory (default: WARRANT_HOME or ./state)")

    insights = sub.add_parser("insights", help="what the query log says")
    ins = insights.add_subparsers(dest="insights_command", required=True)
    gaps = ins.add_parser("gaps", help="abstained questions grouped by topic, as CSV")
    gaps.add_argument("--home", help="state directory (default: WARRANT_HOME or ./state)")
    gaps.add_argument("--csv", required=True, metavar="FILE", help="where to write the CSV")

    backup = sub.add_parser("backup", help="one archive of the state directory, and restoring it")
    steps = backup.add_subparsers(dest="backup_command", required=True)
    create = steps.add_parser("create", help="archive accounts, tickets, memory, settings, audit, query log, library")
    restore = steps.add_parser("restore", help="restore an archive into a new or empty state directory")
    for parser in (create, restore):
        parser.add_argument("archive", metavar="PATH")
        parser.add_argument("--home", help="state directory (default: WARRANT_HOME or ./state)")


def _admin(config: Config) -> Identity:
    """The state directory's `admin` account, or an admin identity of that name where none exists yet."""
    from governance.accounts import AccountStore

    path = config.home / "accounts.json"
    account = AccountStore(path).get("admin") if path.exists() else None
    if account is not None and account.role == "admin":
        return account.identity()
    return Identity("local:admin", "admin", "admin")


def _governance(config: Config):
    from governance.audit import AuditLog
    from governance.service import GovernanceService
    from pipeline.engine import AnswerEngine

    config.home.mkdir(parents=True, exist_ok=True)
    engine = AnswerEngine(config)
    return GovernanceService(engine, AuditLog(config.audit_path), config)


def _read(path: str) -> tuple[bytes, str]:
    from governance.library import read_upload_bytes

    file = Path(path)
    if not file.is_file():
        raise FileNotFoundError(f"{path}: no such file")
    return read_upload_bytes(file, MAX_UPLOAD_BYTES), file.name


def run_critique(args: argparse.Namespace, config: Config) -> int:
    """`documents critique`: the files named, or the active library; text or JSON on stdout."""
    import json

    from governance.critic.report import as_text
    from governance.critic.service import PolicyCritic

    if bool(args.files) == bool(args.library):
        print("refused: name the files to critique, or --library (one or the other).", file=sys.stderr)
        return 1
    try:
        contents = [_read(f) for f in args.files]  # before loading anything: a missing file fails fast
        embed_model = None
        if not args.no_model:
            from pipeline.ingest.embedding import MiniLMEmbedding

            embed_model = MiniLMEmbedding()
        if args.library:
            critic = PolicyCritic(_governance(config).documents.index, embed_model, max_sentences=None)
            critiques = critic.critique_library(_admin(config))
        else:
            from pipeline.language import glossary

            # the files are read as an upload to this library is: under its documents' glossary
            glossary.use(glossary.Glossary.load(config.docs_dir))
            critic = PolicyCritic(None, embed_model, max_sentences=None)  # a command reads all of each file
            admin = Identity("local:admin", "admin", "admin")  # reading files changes nothing in any library
            critiques = critic.critique_uploads(admin, contents)
    except (ValueError, PermissionError, OSError) as exc:  # DocumentError is a ValueError
        print(f"refused: {exc}".splitlines()[0], file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps([c.to_dict() for c in critiques], indent=2, ensure_ascii=False))
    else:
        print(as_text(critiques) if critiques else "The library has no active documents.")
    return 0


def run_documents(args: argparse.Namespace, config: Config) -> int:
    command = args.documents_command
    if command == "critique":
        return run_critique(args, config)
    if command == "add" and args.title and len(args.files) > 1:
        print("--title applies to one file; add the files one at a time to title each.", file=sys.stderr)
        return 1
    files = [args.file] if command == "replace" else getattr(args, "files", [])
    try:
        contents = [_read(f) for f in files]  # before loading anything: a missing file fails fast
        governance = _governance(config)
        library = governance.documents
        admin = _admin(config)
        if command == "list":
            _print_list(library.entries(admin))
        elif command == "retire":
            print(library.retire(admin, args.doc_id, reason=args.reason).message)
        elif command == "audience":
            print(library.set_audience(admin, args.doc_id, args.groups).message)
        elif command == "add":
            prepared = [
                library.prepare(data, name, title=args.title, version=args.version, audience=args.audience)
                for data, name in contents
            ]
            for p in prepared:
                print("\n".join(p.audit_lines()))
            confirmed = _print_conflicts(library.conflicts(prepared), args.file_conflicts)
            results, tickets = governance.add_documents(admin, prepared, confirmed)
            for result in results:
                print(result.message)
            _print_tickets(tickets)
        elif command == "replace":
            data, name = contents[0]
            prepared = library.prepare(data, name, doc_id=args.doc_id, audience=args.audience)
            confirmed = _print_conflicts(library.conflicts([prepared], replacing=args.doc_id), args.file_conflicts)
            result, tickets = governance.replace_document(admin, args.doc_id, prepared, confirmed)
            print(result.message)
            _print_tickets(tickets)
    except (ValueError, PermissionError, OSError) as exc:  # DocumentError is a ValueError
        print(f"refused: {exc}".splitlines()[0], file=sys.stderr)
        return 1
    return 0


def _print_conflicts(conflicts, file_them: bool) -> list[str]:
    """Print each contradiction found; the keys of those to file as tickets."""
    for c in conflicts:
        print(f"conflict: {c.label()}")
    return [c.key for c in conflicts] if file_them else []


def _print_tickets(tickets) -> None:
    for t in tickets:
        print(f"filed {t.ticket_id} for reviewers: {t.claim}")


def _print_list(entries) -> None:
    header = ("doc_id", "title", "version", "effective", "chunks", "status", "uploaded_by", "uploaded_at", "audience")
    rows = [header] + [
        (
            e.doc_id,
            e.title,
            e.version,
            e.effective_date or "-",
            f"{e.chunks}/{e.total_chunks}",
            e.status,
            e.uploaded_by,
            e.uploaded_at or "-",
            e.audience,
        )
        for e in entries
    ]
    widths = [min(40, max(len(str(r[i])) for r in rows)) for i in range(len(header))]
    for row in rows:
        print("  ".join(str(v)[:40].ljust(w) for v, w in zip(row, widths, strict=False)).rstrip())


def run_backup(args: argparse.Namespace, config: Config) -> int:
    from governance.backup import create_backup, restore_backup

    try:
        if args.backup_command == "create":
            report = create_backup(config, Path(args.archive))
            print(report.summary())
            if not report.audit.ok:
                print("warning: this archive's audit chain does not verify; a restore will refuse it", file=sys.stderr)
                return 1
        else:
            print(restore_backup(config, Path(args.archive)).summary(restored=True))
    except (ValueError, OSError) as exc:  # BackupRefused is a ValueError
        print(f"refused: {exc}".splitlines()[0], file=sys.stderr)
        return 1
    return 0


def run_insights(args: argparse.Namespace, config: Config) -> int:
    from governance.gap_resolution import GapResolver
    from governance.insights import knowledge_gaps, write_gaps_csv
    from pipeline.engine import AnswerEngine
    from pipeline.ground.storage import JSONDocument

    if not config.query_log_path.exists():
        print(f"refused: no query log at {config.query_log_path}", file=sys.stderr)
        return 1
    try:
        engine = AnswerEngine(config)  # re-asks each gap: the ones answered today are left out
        tau = JSONDocument(config.home / "settings.json").read().get("tau")  # as an admin set it
        if isinstance(tau, (int, float)):
            engine.tau = float(tau)
        groups = knowledge_gaps(config.query_log_path, engine.index, resolver=GapResolver(engine))
        rows = write_gaps_csv(groups, Path(args.csv))
    except (ValueError, OSError) as exc:
        print(f"refused: {exc}".splitlines()[0], file=sys.stderr)
        return 1
    print(f"{rows} abstained questions in {len(groups)} groups written to {args.csv}")
    return 0
