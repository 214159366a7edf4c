"""Fixtures of the governance tests."""

from __future__ import annotations

import dataclasses

import pytest


@pytest.fixture()
def tiny_service(tmp_path, tiny_docs_in_rupees, embed_model):
    """The whole service over the tiny corpus (fees and library, amounts in rupees), fresh state."""
    from pipeline.ground.config import load_config
    from ui.service import WarrantService

    config = dataclasses.replace(load_config().with_home(tmp_path / "home"), docs_dir=tiny_docs_in_rupees)
    return WarrantService(config, embed_model=embed_model)
