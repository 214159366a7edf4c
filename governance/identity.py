"""Who is acting, and what their role allows. Every privileged handler calls `require()`.

The identity, its role and its groups always come from the authenticated session (a signed cookie
or the SSO provider) and the account it names, never from text a user typed or a parameter of a
request.
"""

from __future__ import annotations

from dataclasses import dataclass

from pipeline.ground.audience import Audience

ROLES = ("user", "reviewer", "admin")

PERMISSIONS: dict[str, frozenset[str]] = {
    "user": frozenset({"chat", "own_memory", "file_claim", "own_tickets"}),
    "reviewer": frozenset({"chat", "own_memory", "file_claim", "own_tickets", "review_tickets", "read_audit"}),
    "admin": frozenset(
        {
            "chat",
            "own_memory",
            "file_claim",
            "own_tickets",
            "review_tickets",
            "read_audit",
            "manage_accounts",
            "ingest",
            "set_tau",
            "verify_audit",
        }
    ),
}


class PermissionDenied(PermissionError):
    """Raised by `require`; the message is safe to show to the user."""


@dataclass(frozen=True)
class Identity:
    user_id: str  # stable account id: "local:<username>" or "oidc:<issuer>:<sub>"
    username: str
    role: str = "user"
    display_name: str = ""
    # The groups whose documents this account may read besides everyone's (pipeline.ground.audience):
    # set by an admin, or from the SSO provider's groups claim at each sign-in; never from a request.
    groups: tuple[str, ...] = ()

    def can(self, action: str) -> bool:
        return action in PERMISSIONS.get(self.role, frozenset())

    @property
    def audience(self) -> Audience:
        """What this identity may read: everyone's documents and its groups'."""
        return Audience(frozenset(self.groups))


def require(identity: Identity | None, action: str) -> Identity:
    if identity is None:
        raise PermissionDenied("Please log in first.")
    if not identity.can(action):
        raise PermissionDenied(f"Your role ({identity.role}) does not allow this ({action.replace('_', ' ')}).")
    return identity
