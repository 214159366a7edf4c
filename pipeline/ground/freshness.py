"""Noticing that another process changed a shared file, for the price of one `stat()`.

Several app processes may serve one state directory (docs/operations.md). What one of them changes
at run time and the others hold in memory - the runtime settings (τ) and the term statistics of
the index - is re-read when its file's stamp changes. Every writer replaces these files whole
(`os.replace`), so a new version always has a new inode, even where the clock's resolution would
hide the change of mtime.
"""

from __future__ import annotations

import os
from pathlib import Path

FileStamp = tuple[int, int, int]
MISSING: FileStamp = (0, 0, 0)


def file_stamp(path: Path | str) -> FileStamp:
    """(mtime in ns, inode, size) of `path`; `MISSING` when there is no such file."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return MISSING
    return (st.st_mtime_ns, st.st_ino, st.st_size)
