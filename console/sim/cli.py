"""`python -m console.sim [launch_server flags] [--sim-* flags]`: run the engine twin as a server process.

Exit status: SIGINT/SIGTERM shut the server down gracefully (open streams get 0.5 s) and uvicorn then re-raises the
signal, so the status is the signal's; 2 for a command line argparse rejects (as sglang);
1 when the launch fails the way sglang's would (a configuration sglang refuses, weights that do not fit, no
room for the KV cache, a failed warmup); 3 when uvicorn cannot bind the port (its STARTUP_FAILURE); killed by
SIGKILL (-9, a shell's 137) after `Killed` when an injected `--sim-fault` crash fires (crash-at-step,
crash-during-load), as SGLang's kill_process_tree ends a crashed server.
"""

from __future__ import annotations

import asyncio
import logging
import sys
import traceback

from .config.args import DEFAULT_PROG, ResolutionError, ServerConfig, parse_argv, resolve_server_args
from .config.deployment import Deployment, DeploymentError, load_deployment
from .model.memory import MemoryPlan, OutOfMemory, plan_memory
from .ops.faults import FaultState, die, inject_load_crash, slow_deployment
from .ops.logfmt import SimLog
from .ops.startup import StartupPlayer, StartupTimeline, build_startup


def _print_launch_error(e: ResolutionError) -> None:
    """A refused configuration, printed like the launcher's uncaught exception."""
    sys.stderr.write("Traceback (most recent call last):\n"
                     '  File "<frozen runpy>", line 198, in _run_module_as_main\n'
                     '  File "/sglang/srt/server_args.py", line 716, in prepare_server_args\n'
                     "    server_args = ServerArgs.from_cli_args(raw_args)\n"
                     f"{e.exc_type}: {e}\n" if str(e) else f"{e.exc_type}\n")
    sys.stderr.flush()


def main(argv: list[str] | None = None, prog: str = DEFAULT_PROG) -> int:
    """Run the twin with `argv` (default: sys.argv[1:]); returns the exit status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        ns, sim = parse_argv(argv, prog)
    except SystemExit as e:  # argparse: --help (0) or a bad command line (2)
        return int(e.code) if isinstance(e.code, int) else (0 if e.code is None else 2)
    try:
        dep = load_deployment(sim.deployment)
    except DeploymentError as e:
        sys.stderr.write(f"{prog}: error: --sim-deployment: {e}\n")
        return 2
    faults = FaultState(sim.faults, sim.seed)
    dep = slow_deployment(dep, faults.slow_factor)
    try:
        cfg = resolve_server_args(ns, sim, argv, dep)
    except ResolutionError as e:
        _print_launch_error(e)
        return 1
    if faults.load_crash is not None and faults.load_crash[0] == "draft":
        drafter = dep.drafter_for(cfg.spec_algorithm)
        if drafter is None or not drafter.class_name:
            spec = next(f.spec for f in sim.faults if f.kind == "crash-during-load")
            sys.stderr.write(f"{prog}: error: argument --sim-fault: invalid spec {spec!r}: phase=draft needs a "
                             "launch with a draft model\n")
            return 2
    collapse = next((f.spec for f in sim.faults if f.kind == "acceptance-collapse"), None)
    if collapse is not None and not cfg.is_spec:
        sys.stderr.write(f"{prog}: error: argument --sim-fault: invalid spec {collapse!r}: acceptance-collapse needs "
                         "a speculative launch (--speculative-algorithm)\n")
        return 2
    log = SimLog(cfg.tp_size)
    server_args_line = lambda: f"server_args={cfg.redacted_args()!r}"  # noqa: E731
    try:
        mem: MemoryPlan | None = plan_memory(cfg, dep)
        timeline = build_startup(cfg, dep, mem, log_server_args=server_args_line)
    except OutOfMemory as oom:
        mem = None
        timeline = build_startup(cfg, dep, None, oom=oom, log_server_args=server_args_line)
    if faults.load_crash is not None and mem is not None and not timeline.failed:
        timeline = inject_load_crash(timeline, *faults.load_crash, cfg, dep, mem)
    try:
        return asyncio.run(_run(cfg, dep, mem, timeline, log, faults))
    except KeyboardInterrupt:
        return 0
    except SystemExit as e:  # uvicorn exits the process when it cannot bind
        return e.code if isinstance(e.code, int) else 1


async def _play_failure(timeline: StartupTimeline, log: SimLog, divisor: float) -> int:
    await StartupPlayer(timeline, log, divisor, on_marker=lambda name: None).play()
    return 1


async def _run(cfg: ServerConfig, dep: Deployment, mem: MemoryPlan | None, timeline: StartupTimeline,
               log: SimLog, faults: FaultState) -> int:
    divisor = cfg.sim.startup_divisor
    if timeline.failed or mem is None:
        return await _play_failure(timeline, log, divisor)

    import uvicorn

    from .entrypoints.app import create_app
    from .entrypoints.server import SimServer, UvicornGate, uvicorn_log_config
    from .ops import stacks

    server = SimServer(cfg, dep, mem, log, faults)
    stacks.install(server.runtime)
    app = create_app(server)
    a = cfg.args
    config = uvicorn.Config(app, host=a["host"], port=int(a["port"]), log_config=uvicorn_log_config(),
                            access_log=True, timeout_keep_alive=5, lifespan="off",
                            timeout_graceful_shutdown=0.5)  # type: ignore[arg-type]  # typed int, used as asyncio.timeout's float
    logging.getLogger("uvicorn.error").addFilter(UvicornGate(server, access=False))
    logging.getLogger("uvicorn.access").addFilter(UvicornGate(server, access=True))
    uv = uvicorn.Server(config)
    serve_task = asyncio.create_task(uv.serve(), name="uvicorn")
    background: set[asyncio.Task] = set()

    async def warmup() -> None:
        if not await server.warmup():
            server.exit_code = 1
            uv.should_exit = True

    def on_marker(name: str) -> None:
        if name == "kill":  # crash-during-load: the launcher's kill_process_tree
            die()
        if name == "http_up":
            server.set_startup_time(timeline.startup_time, tokenizer_e2e=timeline.tokenizer_e2e)
            server.open_http()
            task = asyncio.create_task(warmup(), name="warmup")
            background.add(task)
            task.add_done_callback(background.discard)

    player = asyncio.create_task(StartupPlayer(timeline, log, divisor, on_marker).play(), name="startup")
    try:
        await serve_task
    except Exception:  # noqa: BLE001 - a crash of the HTTP server ends the process like sglang's
        traceback.print_exc()
        return 1
    finally:
        player.cancel()
        for t in list(background):
            t.cancel()
        await server.runtime.stop()
    return server.exit_code
