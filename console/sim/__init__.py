"""The engine twin: an SGLang 0.5.23-compatible server process that simulates serving Kimi-K2.6 on TP-N GPUs with
a drafter (EAGLE-3, DFlash, NGRAM or none), with SGLang's exact HTTP/SSE shapes and startup log.

Start it exactly like `python -m sglang.launch_server`: `python -m console.sim --model-path moonshotai/Kimi-K2.6
--tp 4 ...` (plus the twin-only `--sim-*` flags, see `--help`). `main(argv)` is the programmatic entry point used by
`serving-console sim`.

Floors, from the ground up (each imports only the floors below it; tests/unit/test_architecture.py holds it):
`content/` (tokens, text, domains, scripted output), `config/` (flags and SGLang's resolution rules, the
deployment TOML, fault specs), `model/` (step time, acceptance, memory, the engine in model time, its wall-clock
driver, calibration), `ops/` (startup log, faults, state dump), `entrypoints/` (the HTTP app, request schema and
validation, response shaping, wire shapes, metrics); `cli.py` starts the process. See docs/twin.md.
"""

from __future__ import annotations


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    """Run the engine twin with `argv` (default sys.argv[1:]); returns the process exit status.
    `prog` names the command in usage/error messages (default "python -m console.sim")."""
    from .cli import DEFAULT_PROG, main as _main

    return _main(argv, prog or DEFAULT_PROG)


__all__ = ["main"]
