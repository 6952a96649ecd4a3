"""`serving-console tui` (and `serving-console` alone): the dashboard."""

from __future__ import annotations

import argparse

from console.cli.common import err, runtime_factory, target_args


def add_parser(sub) -> None:
    t = sub.add_parser("tui", help="the dashboard (default: the twin of the reference deployment)")
    target_args(t)


def run(args: argparse.Namespace) -> int:
    factory = runtime_factory(args)  # bad input: the same one line and exit code as headless, before the TUI
    from console.ui.app import make_app
    app = make_app(factory)
    app.run()
    if app.failure:  # what stopped the console (engine died, attach failed, …) stays on the terminal after exit
        err(app.failure)
    return app.return_code or 0
