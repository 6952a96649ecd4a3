"""`serving-console`: the command line, a module per command (main.py builds the parser and runs one)."""

from console.cli.main import main

__all__ = ["main"]
