"""Where Warrant's secrets come from: the cookie-signing secret and the audit log's key.

- The cookie secret is `WARRANT_SECRET`, else a random one generated on first start and kept in
  `<home>/secret.key` (mode 0600).
- The audit key is `WARRANT_AUDIT_KEY`, else the cookie secret. Set `WARRANT_AUDIT_KEY` (kept
  outside the state directory) when the audit log must also resist someone who can write the
  state directory: with the fallback the key sits beside the log.

The values come in through `Config` (pipeline/ground/config.py reads the environment); this module only
reads and creates the key file.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

SECRET_FILE = "secret.key"


def load_or_create_secret(home: Path, configured: str = "", create: bool = True) -> str:
    """`configured` when set, else the secret kept in `<home>/secret.key` (made, mode 0600, if `create`).

    Returns "" when there is none and `create` is False.
    """
    if configured:
        return configured
    path = Path(home) / SECRET_FILE
    try:
        return path.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        if not create:
            return ""
    path.parent.mkdir(parents=True, exist_ok=True)
    value = secrets.token_urlsafe(48)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # another process made it first: use theirs
        return path.read_text(encoding="utf-8").strip()
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(value)
        fh.flush()
        os.fsync(fh.fileno())
    return value


def audit_key(config, create: bool = True) -> bytes:
    """The HMAC key of the audit chain: `WARRANT_AUDIT_KEY`, else the cookie secret (b"" when none)."""
    raw = config.audit_key or load_or_create_secret(config.home, config.secret, create=create)
    return raw.encode("utf-8")
