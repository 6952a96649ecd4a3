"""Fixtures of the engine-twin tests."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Iterator

import pytest


@pytest.fixture(scope="module")
def tmp_module() -> Iterator[Path]:
    """A scratch directory shared by one test module (twin stdout/stderr files)."""
    with tempfile.TemporaryDirectory(prefix="sim-twin-") as d:
        yield Path(d)
