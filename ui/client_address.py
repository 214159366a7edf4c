"""Which address a request comes from, as far as the proxies in front of the app vouch for it.

`X-Forwarded-For` is a list that every proxy appends the address it saw to; whatever stands left
of the entries the app's own proxies appended was written by the client, who can write anything.
Believing its leftmost entry (what uvicorn does with `forwarded_allow_ips="*"`) let any client on
Spaces pick a fresh address for every login guess, or take a real user's address and have it
locked out (issue 27). So, with `WARRANT_TRUSTED_PROXY_HOPS` = n proxies in front of the app (1 on
Spaces, whose proxy appends the address it saw), the client is the n-th entry from the right; with
0 (the default elsewhere) the header is ignored and the client is the connection's peer. A request
with fewer entries than n did not pass through the proxies and keeps its peer address.
`X-Forwarded-Proto` is read the same way, for the scheme of URLs the app builds (single sign-on).

`forwarded_client` sets the ASGI scope's client and scheme from that, before anything else reads
them; uvicorn's own handling of these headers is off (app.py), so this is the one place that decides.
"""

from __future__ import annotations


def _entries(headers: list[tuple[bytes, bytes]], name: bytes) -> list[str]:
    """Every comma-separated entry of every `name` header, in order (several headers read as one)."""
    values = [value.decode("latin-1") for key, value in headers if key.lower() == name]
    return [entry.strip() for value in values for entry in value.split(",") if entry.strip()]


def vouched(entries: list[str], hops: int) -> str | None:
    """The entry the farthest trusted proxy appended, or None when there are not that many."""
    if hops <= 0 or len(entries) < hops:
        return None
    return entries[-hops]


def _host(entry: str) -> str:
    """An address without its port ("203.0.113.7:5123" → "203.0.113.7", "[2001:db8::1]:80" → "2001:db8::1")."""
    if entry.startswith("["):
        return entry[1:].split("]", 1)[0]
    if entry.count(":") == 1:
        return entry.split(":", 1)[0]
    return entry


class forwarded_client:
    """ASGI middleware: the scope's client address (and scheme) as the trusted proxies report them."""

    def __init__(self, app, hops: int = 0) -> None:
        self.app = app
        self.hops = hops

    async def __call__(self, scope, receive, send):
        if scope["type"] in ("http", "websocket") and self.hops > 0:
            headers = scope.get("headers") or []
            address = vouched(_entries(headers, b"x-forwarded-for"), self.hops)
            if address:
                scope = {**scope, "client": (_host(address)[:64], 0)}
            proto = vouched(_entries(headers, b"x-forwarded-proto"), self.hops)
            if proto in ("http", "https"):
                scope = {**scope, "scheme": proto if scope["type"] == "http" else {"http": "ws", "https": "wss"}[proto]}
        return await self.app(scope, receive, send)
