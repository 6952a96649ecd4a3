"""The engine twin: an SGLang 0.5.23-compatible server process that simulates serving Kimi-K2.6 on TP-N GPUs with
a drafter (EAGLE-3, DFlash, NGRAM or none), with SGLang's exact HTTP/SSE shapes and startup log.

Start it exactly like `python -m sglang.launch_server`: `python -m console.sim --model-path moonshotai/Kimi-K2.6
--tp 4 ...` (plus the twin-only `--sim-*` flags, see `--help`). `main(argv)` is the programmatic entry point used by
`serving-console sim`.

Modules: args (flags and sglang's resolution rules), deployment (the modeled hardware/model, one TOML file),
memory (KV capacity), steptime (step-time model), acceptance (draft acceptance), engine (the scheduler, in model
time), runtime (wall-clock driver), startup (the startup log), server (routes), wire (exact JSON shapes), metrics
(Prometheus exposition), tokens (token counting, output text), domain (traffic-domain detection), calibrate
(virtual-time runs compared with the report), faults (`--sim-fault`: injected crashes, stalls, bad streams, 500s,
slow starts, a busy /flush_cache).
"""

from __future__ import annotations


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    """Run the engine twin with `argv` (default sys.argv[1:]); returns the process exit status.
    `prog` names the command in usage/error messages (default "python -m console.sim")."""
    from .cli import DEFAULT_PROG, main as _main

    return _main(argv, prog or DEFAULT_PROG)


__all__ = ["main"]
