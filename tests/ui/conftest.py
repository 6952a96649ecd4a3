"""Shared by the UI tests."""

from __future__ import annotations

import pytest
from textual.widgets import Input


@pytest.fixture(autouse=True)
def steady_input_cursor(monkeypatch):
    """A focused Input's cursor blinks every 0.5 s (Textual's blink timer): an SVG snapshot taken more than half a
    second after focus, as happens on a loaded machine, caught the cursor off and failed (the chat snapshots, found
    running the suite beside a CPU hog). The cursor stays on, as in the first half-second, in every UI test."""
    monkeypatch.setattr(Input, "_toggle_cursor", lambda self: None)
