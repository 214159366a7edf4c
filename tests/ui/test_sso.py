"""SSO usernames: valid local usernames, distinct per provider subject."""

from __future__ import annotations

from governance.accounts import validate_username
from governance.auth_oidc import sso_username


def test_sso_username_is_valid_and_tied_to_the_subject():
    a = sso_username({"iss": "https://idp.example", "sub": "1", "preferred_username": "../Alice Smith"})
    b = sso_username({"iss": "https://other.example", "sub": "1", "preferred_username": "../Alice Smith"})
    assert validate_username(a) == a and a.startswith("Alice-Smith-") and a != b
    assert validate_username(sso_username({"sub": "2", "email": "bob@example.org"})).startswith("bob-")
    assert validate_username(sso_username({"sub": "3"})).startswith("user-")
