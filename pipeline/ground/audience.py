"""Who may read a document: its audience (everyone, or named groups), and the asker's side of it.

A document's audience is written on each of its chunks as flat Chroma metadata (Chroma takes no
lists):

- `audience`: "everyone", or the groups joined by commas ("finance,hr"), for display;
- `audience_restricted`: True for a document only some groups may read;
- `reader_<group>`: True for each group that may read it (False once a group is taken off).

Retrieval for an asker filters in the vector store query itself (`Audience.where`): a chunk is a
candidate when it is not restricted, or when one of the asker's groups is among its readers. So a
restricted chunk is never retrieved for someone outside its audience, and cannot be cited, counted
in σ, named as a nearest section or offered as a clarify option. A chunk written before audiences
existed carries no `audience_restricted` key; Chroma's `$ne` matches a missing key, so it is read
as everyone's (pinned in tests/pipeline/test_audience.py).

The asker's groups come from the authenticated account (governance.identity.Identity.groups),
never from anything typed. `EVERYTHING` is for the system's own checks and operators' tools.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

EVERYONE = "everyone"
AUDIENCE_KEY = "audience"
RESTRICTED_KEY = "audience_restricted"
READER_PREFIX = "reader_"
MAX_GROUPS = 20
_GROUP = re.compile(r"[a-z0-9][a-z0-9_-]{0,39}")


def normalise_groups(raw: str | Iterable[str] | None) -> tuple[str, ...]:
    """Group names, lower-cased, sorted and distinct, from "HR, finance" or a list.

    "everyone" (or nothing) means no restriction and gives (). Raises ValueError naming a group
    that is not 1-40 letters, digits, '_' or '-' (starting with a letter or digit)."""
    if raw is None:
        return ()
    items = raw.replace(";", ",").split(",") if isinstance(raw, str) else [str(g) for g in raw]
    groups = {g.strip().lower() for g in items if g and g.strip()}
    bad = sorted(g for g in groups if not _GROUP.fullmatch(g))
    if bad:
        raise ValueError(
            f"Group names have 1 to 40 letters, digits, '_' or '-': {', '.join(repr(b[:40]) for b in bad[:3])}."
        )
    if EVERYONE in groups:
        return ()
    if len(groups) > MAX_GROUPS:
        raise ValueError(f"At most {MAX_GROUPS} groups.")
    return tuple(sorted(groups))


def audience_label(groups: Iterable[str]) -> str:
    """ "everyone", or the groups joined by commas."""
    groups = tuple(groups)
    return ",".join(groups) if groups else EVERYONE


def audience_metadata(groups: Iterable[str], previous: Mapping[str, object] | None = None) -> dict[str, object]:
    """The chunk metadata for an audience of `groups` (() = everyone); reader flags of `previous`
    metadata that no longer apply are set False, since a metadata update cannot remove a key."""
    groups = tuple(groups)
    meta: dict[str, object] = {AUDIENCE_KEY: audience_label(groups), RESTRICTED_KEY: bool(groups)}
    for key, value in (previous or {}).items():
        if key.startswith(READER_PREFIX) and value is True:
            meta[key] = False
    meta.update({READER_PREFIX + g: True for g in groups})
    return meta


def groups_of(metadata: Mapping[str, object]) -> tuple[str, ...]:
    """The groups a chunk is restricted to (() when everyone may read it)."""
    if metadata.get(RESTRICTED_KEY) is not True:
        return ()
    return tuple(sorted(k[len(READER_PREFIX) :] for k, v in metadata.items() if k.startswith(READER_PREFIX) and v))


@dataclass(frozen=True)
class Audience:
    """The reader a retrieval is for: the groups whose documents they may read, besides everyone's."""

    groups: frozenset[str] = frozenset()
    everything: bool = False  # the system's own checks, operators' command-line tools

    @classmethod
    def of(cls, groups: Iterable[str]) -> Audience:
        return cls(frozenset(normalise_groups(list(groups))))

    def where(self) -> dict | None:
        """The Chroma `where` clause for the chunks this reader may see (None: no restriction)."""
        if self.everything:
            return None
        public = {RESTRICTED_KEY: {"$ne": True}}
        if not self.groups:
            return public
        return {"$or": [public, *({READER_PREFIX + g: True} for g in sorted(self.groups))]}

    def can_read(self, metadata: Mapping[str, object]) -> bool:
        """The same rule as `where`, for metadata already in hand."""
        if self.everything or metadata.get(RESTRICTED_KEY) is not True:
            return True
        return any(metadata.get(READER_PREFIX + g) is True for g in self.groups)


PUBLIC = Audience()
EVERYTHING = Audience(everything=True)
