"""Per-user memory: preferences, facts and conversations, one TinyDB file per user."""
