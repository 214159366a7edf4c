"""Serving settings that the concurrency benchmark depends on (scenarios/reports/concurrency_profile.md)."""

import dataclasses
import os

from pipeline.ground.config import load_config


def test_chat_turns_share_the_configured_limit_and_queue_updates_are_paced(
    tmp_path, tiny_docs, embed_model, monkeypatch
):
    from ui.app import build_app
    from ui.service import WarrantService

    monkeypatch.setenv("WARRANT_CHAT_CONCURRENCY", "3")
    for name in ("GRADIO_ANALYTICS_CACHE_FREQUENCY", "GRADIO_ANALYTICS_MAX_EVENTS"):
        monkeypatch.delenv(name, raising=False)
    config = dataclasses.replace(load_config().with_home(tmp_path / "home"), docs_dir=tiny_docs)
    assert config.chat_concurrency == 3
    service = WarrantService(config, embed_model=embed_model)
    app = build_app(service)
    blocks = next(r.app.blocks for r in app.routes if hasattr(getattr(r, "app", None), "blocks"))
    chat = [fn for fn in blocks.fns.values() if getattr(fn.fn, "__name__", "") == "ask"]
    assert len(chat) == 2  # the Ask button and Enter in the message box
    assert {fn.concurrency_limit for fn in chat} == {3}
    assert len({fn.concurrency_id for fn in chat}) == 1
    assert blocks._queue.live_updates is False  # status once a second, not after every turn
    assert os.environ["GRADIO_ANALYTICS_CACHE_FREQUENCY"] == "100"


def test_a_bad_concurrency_setting_is_named(monkeypatch):
    monkeypatch.setenv("WARRANT_CHAT_CONCURRENCY", "many")
    try:
        load_config()
    except ValueError as exc:
        assert "WARRANT_CHAT_CONCURRENCY" in str(exc)
    else:
        raise AssertionError("a non-integer concurrency was accepted")
