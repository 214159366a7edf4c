"""Accounts and roles, policy-change claims, review tickets, corpus evolution, audit log."""
