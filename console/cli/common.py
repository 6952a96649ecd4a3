"""What every command of the CLI shares: the target options (--profile/--attach/--sim …), the one line per
problem on stderr, and the runtime a target resolves to (the TUI and headless commands alike)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from console.core.launch.profile import twin_args

DEFAULT_PROFILE = "k26-eagle3-d6"


def err(msg: str) -> None:
    for line in (msg.splitlines() or [""]):
        print(f"serving-console: {line}", file=sys.stderr)


def target_args(p: argparse.ArgumentParser, default_sim: bool = False) -> None:
    g = p.add_mutually_exclusive_group()
    g.add_argument("--profile", "-p", help="profile name (searched in ./profiles, the user config dir, then the "
                                           "shipped ones: --version lists them) or a path to a .toml")
    g.add_argument("--attach", metavar="URL", help="attach to a running SGLang server (e.g. http://127.0.0.1:30000)")
    p.add_argument("--sim", action="store_true", default=default_sim,
                   help="run the profile on the embedded engine twin instead of the profile's engine")
    p.add_argument("--api-key-env", metavar="VAR", help="(attach) environment variable holding the server's API key")
    p.add_argument("--sim-time-scale", type=float, default=None, metavar="S",
                   help="(twin) divide every wall-clock duration by S (client-timed rates read S× faster)")
    p.add_argument("--sim-arg", action="append", default=[], metavar="ARG",
                   help="(twin) extra twin flag, repeatable, e.g. --sim-arg=--sim-node-seed=3")
    p.add_argument("--sim-node", type=Path, default=None, metavar="NODE.toml",
                   help="(twin) serve as a node fitted from recorded cells (`serving-console twin fit`)")
    port_arg(p)
    p.add_argument("--sessions", type=Path, default=None, help="sessions directory (default ./sessions)")
    p.add_argument("--force", action="store_true",
                   help="launch even when preflight finds errors (port bound, foreign GPU processes, missing paths)")
    p.add_argument("--stall-timeout", type=float, default=120.0, metavar="S",
                   help="abandon a streaming request after S seconds without a byte (default 120)")


def port_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--port", type=port_number, default=None, metavar="N",
                   help="the server's port instead of the profile's server.port (the twin takes a free port by "
                        "itself when the profile's is busy, and says so)")


def port_number(v: str) -> int:
    try:
        n = int(v)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--port {v}: give a port number, 1024-65535") from None
    if not 1024 <= n <= 65535:
        raise argparse.ArgumentTypeError(f"--port {v}: give a port number, 1024-65535")
    return n


def api_key_from_env(var: str | None) -> str | None:
    import os
    if not var:
        return None
    v = os.environ.get(var)
    if not v:
        raise ValueError(f"--api-key-env {var}: the variable is unset; export it")
    return v


def note_shadow(prof) -> None:
    """A profile found by name that shadows another of its name says so (stderr; the TUI shows it as a notice)."""
    if prof.shadow_note:
        err(f"note: {prof.shadow_note}")


def runtime_factory(args: argparse.Namespace, session_dir: Path | None = None):
    """Resolve everything the runtime needs now (profile, key, URL), so that bad input fails before anything
    starts, headless and in the TUI alike; the returned factory only binds the observer."""
    from console.core.engine.admin import normalize_url
    from console.core.launch.profile import resolve_profile
    from console.core.run.runtime import Runtime
    stall = getattr(args, "stall_timeout", 120.0)
    if args.attach:
        url = normalize_url(args.attach)
        key = api_key_from_env(args.api_key_env)
        return lambda observer=None: Runtime(attach_url=url, api_key=key, api_key_env=args.api_key_env,
                                             sessions=args.sessions, observer=observer, session_dir=session_dir,
                                             stall_timeout_s=stall)
    force = getattr(args, "force", False)
    sim = args.sim
    prof_name = args.profile
    if prof_name is None:
        prof_name, sim = DEFAULT_PROFILE, True
    prof = resolve_profile(prof_name)
    note_shadow(prof)
    if not (sim or prof.is_sim):
        prof.api_key()  # an unset server.api_key_env is bad input now, not a failure after the launch view opens
    sim_args = twin_args(args.sim_arg, args.sim_time_scale, args.sim_node) if (sim or prof.is_sim) else []
    port = getattr(args, "port", None)
    return lambda observer=None: Runtime(profile=prof, sim=sim, sim_args=sim_args, sessions=args.sessions,
                                         observer=observer, session_dir=session_dir, force=force,
                                         stall_timeout_s=stall, port=port)


def make_runtime(args: argparse.Namespace, observer=None, session_dir: Path | None = None):
    return runtime_factory(args, session_dir)(observer)
