"""Warrant's entry point: `python app.py` serves the web app (default http://127.0.0.1:7860).

Reads the configuration once (pipeline/ground/config.py), builds the index from data/policies on the
first start (serving a "Warrant is starting" page with its progress meanwhile, ui/starting.py),
creates the demo accounts when there are none, and serves with uvicorn.
"""

from __future__ import annotations

import os
import sys

from pipeline.ground.config import load_config, set_offline_environment


def _progress(fraction: float, message: str) -> None:
    print(f"[warrant] indexing {fraction:4.0%}  {message}", flush=True)


def main() -> int:
    set_offline_environment()
    os.umask(0o077)  # everything the app writes (state, index, uploads) is private to its user
    config = load_config()
    print(f"[warrant] state directory: {config.home}", flush=True)
    from pipeline.retrieve.chroma_client import IndexInUse, claim_embedded_index

    try:
        serving_lock = claim_embedded_index(config)  # held until this process exits
    except IndexInUse as exc:
        print(f"[warrant] {exc}", file=sys.stderr, flush=True)
        return 2
    print("[warrant] loading the embedding model and the index (the first start builds it) ...", flush=True)

    import uvicorn

    from ui.starting import StartingServer

    # Until the app is ready, its address answers with a "Warrant is starting" page, not nothing.
    starting = StartingServer(config.host, config.port).start()

    def progress(fraction: float, message: str) -> None:
        _progress(fraction, message)
        starting.progress(fraction, message)

    from ui.app import build_app
    from ui.service import WarrantService

    try:
        service = WarrantService(config, progress=progress)
    except BaseException:
        starting.stop()
        raise
    for damage in service.damaged:  # found damaged at start: set aside, the last good copy in use
        print(
            f"[warrant] WARNING: {damage['path']} was damaged; kept as {damage['moved_to']}; "
            + (f"restored from {damage['recovered_from']}" if damage["recovered_from"] else "started empty"),
            file=sys.stderr,
            flush=True,
        )
    generated = service.ensure_demo_accounts()
    if generated:
        print(
            f"[warrant] demo accounts created (shown once; also saved to {config.home / 'demo_passwords.txt'}):",
            flush=True,
        )
        for username, password in generated.items():
            print(f"[warrant]   {username:<9} {password}", flush=True)
    elif config.demo_password and service.accounts.get("student"):
        print("[warrant] demo accounts: student / reviewer / admin (password from WARRANT_DEMO_PASSWORD)")
    app = build_app(service)
    starting.stop()  # the port is free again only now, for as short a time as possible
    print(f"[warrant] serving on http://{config.host}:{config.port}", flush=True)
    # Forwarded headers are read by the app itself, from WARRANT_TRUSTED_PROXY_HOPS proxies only
    # (ui/client_address.py): uvicorn's own reading would believe what a client wrote.
    uvicorn.run(app, host=config.host, port=config.port, log_level="warning", proxy_headers=False)
    del serving_lock
    return 0


if __name__ == "__main__":
    sys.exit(main())
