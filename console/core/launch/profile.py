"""Profiles: one TOML file per deployment arm, compiled to one `launch_server` argv.

A profile says which engine runs (the SGLang install's `python`, or the embedded twin `sim`), the model
and its parallelism, the drafter, the KV cache, the server's address and auth, and the node's price.
Loading is fail-closed: an unknown key, a wrong type or an impossible value raises `ProfileError` with
one line naming the file, the field and the fix. Secrets never live in a profile: the API key comes from
an environment variable or a file that the profile names.
"""

from __future__ import annotations

import os
import sys
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from console.core import places
from console.core.arm import Arm

FAMILIES = ("none", "eagle3", "eagle", "dflash", "ngram", "standalone")
ALGORITHM = {"eagle3": "EAGLE3", "eagle": "EAGLE", "dflash": "DFLASH", "ngram": "NGRAM", "standalone": "STANDALONE"}
KV_DTYPES = ("auto", "fp8_e5m2", "fp8_e4m3", "mxfp8", "bf16", "bfloat16", "nvfp4", "fp4_mx_block16")
SIM_ENGINE = "sim"


class ProfileError(ValueError):
    """One line per problem: which file, which field, what to do. `problems` holds every one found."""

    def __init__(self, problems: str | list[str]) -> None:
        self.problems = [problems] if isinstance(problems, str) else list(problems)
        super().__init__("\n".join(self.problems))


@dataclass(frozen=True)
class Drafter:
    family: str = "none"
    model: str | None = None
    """Draft model: local directory or Hugging Face id."""
    steps: int | None = None
    """Draft depth (autoregressive drafters: EAGLE-3 proposes one token per step)."""
    topk: int | None = None
    draft_tokens: int | None = None
    """Verify width per request; for topk = 1 it must be steps + 1; for DFLASH it is the block size."""

    @property
    def enabled(self) -> bool:
        return self.family != "none"


@dataclass(frozen=True)
class Profile:
    name: str
    path: Path | None
    description: str = ""
    engine_python: str = SIM_ENGINE
    """Interpreter of the SGLang install (e.g. /opt/sglang/.venv/bin/python), or 'sim' for the twin."""
    model_path: str = ""
    tp: int = 1
    dp: int = 1
    nnodes: int = 1
    trust_remote_code: bool = False
    context_length: int | None = None
    input_window: bool = True
    """Gate rows on the prompt sets' input-token windows (counted in o200k, the reference deployment's tokenizer,
    docs/measurement.md). False for a model whose tokenizer counts the same prompts differently (the CPU lane's
    SmolLM2 reads a 400-600-token short prompt as ~690): its cells then record every row's input tokens ungated."""
    drafter: Drafter = field(default_factory=Drafter)
    kv_cache_dtype: str = "auto"
    mem_fraction_static: float | None = None
    max_running_requests: int | None = None
    host: str = "127.0.0.1"
    port: int = 30000
    enable_metrics: bool = True
    served_model_name: str | None = None
    api_key_env: str | None = None
    api_key_file: str | None = None
    extra_args: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    node_usd_per_hour: float | None = None
    node_label: str = ""
    node_launch_sd_pct: float | None = None
    """[node] launch_sd_pct: the prior launch-to-launch sd of a pair's interval (docs/measurement.md#launch-variance;
    default: measure.launches.DEFAULT_PRIOR_SD_PCT), held as `launch_sd_df` degrees of freedom (default 1)."""
    node_launch_sd_df: float | None = None
    anchor_prompts: str = "health"
    anchor_reference_tok_s: float | None = None
    anchor_n: int | None = None
    """Requests of the anchor cell (default: the anchor protocol's 8); fewer for a slow node (a CPU server)."""
    anchor_max_tokens: int | None = None
    """Output tokens per anchor request (default: the anchor protocol's 128)."""
    probe_prompts: str | None = None
    """[probe]: the verify-tax probe's defaults for this node (each a `probe verify-tax` flag that, given, wins):
    a slow node (the CPU lane) needs shorter prompts, fewer requests and fewer legs than a GPU node's defaults."""
    probe_n: int | None = None
    probe_max_tokens: int | None = None
    probe_widths: str | None = None
    """Verify widths of the tree legs, "W,W,..." as --widths."""
    probe_topk: int | None = None
    probe_chain: bool | None = None
    sim_args: tuple[str, ...] = ()
    """Extra twin-only flags used when this profile runs on the twin (e.g. --sim-node-seed 3)."""
    template: tuple[str, ...] = ()
    """Command template to launch on another host (ssh/srun/docker): `{argv}` as its own item splices the engine
    argv, `{argv_shell}` inserts it shell-quoted as one string (for ssh), `{host}` and `{node_rank}` per node."""
    hosts: tuple[str, ...] = ()
    """One host per node rank for `{host}` (multi-node); default: server.host."""
    dist_init_addr: str | None = None
    """host:port of rank 0 for torch.distributed (required when model.nnodes > 1)."""
    shadow_note: str | None = field(default=None, compare=False)
    """Set when this profile was found by name and shadows one of the same name further down the search path
    (core/places.py): the line `check`, the TUI and headless commands show."""

    @property
    def arm(self) -> Arm:
        """The speculative configuration this profile asks for (core/arm.py)."""
        d = self.drafter
        return Arm.from_drafter(d.family, model=d.model, steps=d.steps, topk=d.topk, draft_tokens=d.draft_tokens,
                                kv_dtype=self.kv_cache_dtype, adaptive="--speculative-adaptive" in self.extra_args)

    @property
    def is_sim(self) -> bool:
        return self.engine_python == SIM_ENGINE

    @property
    def base_url(self) -> str:
        host = "127.0.0.1" if self.host in ("0.0.0.0", "::") else self.host
        return f"http://{host}:{self.port}"

    def api_key(self) -> str | None:
        """The API key from the environment or the key file (never from the profile itself)."""
        if self.api_key_env:
            v = os.environ.get(self.api_key_env)
            if not v:
                raise ProfileError(f"{self._where()}: server.api_key_env names "
                                   f"${self.api_key_env}, which is unset; export it")
            return v
        if self.api_key_file:
            p = Path(os.path.expanduser(self.api_key_file))
            try:
                return p.read_text().strip()
            except OSError as e:
                raise ProfileError(f"{self._where()}: server.api_key_file {p} is unreadable "
                                   f"({e.strerror}); fix the path") from None
        return None

    def _where(self) -> str:
        return str(self.path) if self.path else f"profile {self.name}"

    def with_sim(self) -> Profile:
        return replace(self, engine_python=SIM_ENGINE)

    def _local(self, path: str) -> str:
        """`~/…` in engine.python, model.path and drafter.model is this user's home when the engine runs here; a
        command template (another host) gets the path as written, for the remote shell to expand."""
        if path and path.startswith("~") and not self.template:
            return os.path.expanduser(path)
        return path

    # --- compile -------------------------------------------------------------------------

    def server_flags(self, api_key: str | None = None) -> list[str]:
        """The `launch_server` flags this profile means (no interpreter, no module)."""
        a: list[str] = ["--model-path", self._local(self.model_path), "--tp-size", str(self.tp)]
        if self.dp != 1:
            a += ["--dp-size", str(self.dp)]
        if self.nnodes != 1:
            a += ["--nnodes", str(self.nnodes)]
        if self.trust_remote_code:
            a.append("--trust-remote-code")
        if self.context_length is not None:
            a += ["--context-length", str(self.context_length)]
        d = self.drafter
        if d.enabled:
            a += ["--speculative-algorithm", ALGORITHM[d.family]]
            if d.model:
                a += ["--speculative-draft-model-path", self._local(d.model)]
            if d.family == "dflash":
                if d.draft_tokens is not None:
                    a += ["--speculative-dflash-block-size", str(d.draft_tokens)]
            else:
                if d.steps is not None:
                    a += ["--speculative-num-steps", str(d.steps)]
                if d.topk is not None:
                    a += ["--speculative-eagle-topk", str(d.topk)]
                if d.draft_tokens is not None:
                    a += ["--speculative-num-draft-tokens", str(d.draft_tokens)]
        if self.kv_cache_dtype != "auto":
            a += ["--kv-cache-dtype", self.kv_cache_dtype]
        if self.mem_fraction_static is not None:
            a += ["--mem-fraction-static", repr(self.mem_fraction_static)]
        if self.max_running_requests is not None:
            a += ["--max-running-requests", str(self.max_running_requests)]
        if self.served_model_name:
            a += ["--served-model-name", self.served_model_name]
        a += ["--host", self.host, "--port", str(self.port)]
        if self.enable_metrics:
            a.append("--enable-metrics")
        if api_key:
            a += ["--api-key", api_key]
        a += list(self.extra_args)
        return a

    def node_key(self) -> str:
        """Which node a pair's launch record belongs to: the twin or an engine, and the node's label or host (the
        record pools the pairs recorded with the same key, docs/measurement.md#launch-variance)."""
        return f"{'twin' if self.is_sim else 'engine'}:{self.node_label or self.host}"

    def launch_prior(self) -> tuple[float | None, float | None]:
        """(sd %, degrees of freedom) of the node's prior launch-to-launch sd: `[node] launch_sd_pct` /
        `launch_sd_df`; None where unset (the caller takes measure.launches' defaults)."""
        return self.node_launch_sd_pct, self.node_launch_sd_df

    def launch_key(self) -> tuple[str, ...]:
        """The flags that define the arm (everything but where it listens): equal keys = same server config."""
        f = self.server_flags()
        out: list[str] = []
        i = 0
        while i < len(f):
            if f[i] in ("--host", "--port"):
                i += 2
                continue
            out.append(f[i])
            i += 1
        return tuple(out)

    def argv(self, api_key: str | None = None, sim: bool | None = None, extra: list[str] | tuple = ()) -> list[str]:
        """The exact argv to exec for rank 0: `<python> -m sglang.launch_server <flags>` (or the twin's),
        wrapped in the profile's command template when it has one."""
        return self.node_argvs(api_key, sim, extra)[0]

    def node_argvs(self, api_key: str | None = None, sim: bool | None = None,
                   extra: list[str] | tuple = ()) -> list[list[str]]:
        """One argv per node rank (one for a single node): `--nnodes`, `--node-rank` and `--dist-init-addr` per
        rank, each wrapped in the command template. Rank 0 serves HTTP; readiness is read from it."""
        use_sim = self.is_sim if sim is None else sim
        flags = self.server_flags(api_key)
        out = []
        for rank in range(self.nnodes):
            node = ["--node-rank", str(rank), "--dist-init-addr", self.dist_init_addr] \
                if self.nnodes > 1 and self.dist_init_addr else []
            if use_sim:
                base = [sys.executable, "-m", "console.sim", *flags, *node, *self.sim_args, *extra]
            else:
                base = [self._local(self.engine_python), "-m", "sglang.launch_server", *flags, *node, *extra]
            out.append(self._wrap(base, rank))
        return out

    def _wrap(self, argv: list[str], rank: int) -> list[str]:
        if not self.template:
            return argv
        import shlex
        host = self.hosts[rank] if rank < len(self.hosts) else self.host
        out: list[str] = []
        for item in self.template:
            if item == "{argv}":
                out.extend(argv)
            else:
                out.append(item.replace("{argv_shell}", shlex.join(argv)).replace("{host}", host)
                           .replace("{node_rank}", str(rank)))
        return out


def twin_args(sim_arg: list[str] | tuple[str, ...] | None, time_scale: float | None,
              sim_node: str | Path | None = None) -> list[str]:
    """The twin's own flags a command or screen adds to a profile's argv (`--sim-arg` items, the time scale, and a
    fitted node, `--sim-node NODE.toml`, which the twin serves as): the one builder the CLI and the TUI use."""
    node: list[str] = []
    if sim_node is not None:
        p = Path(sim_node).expanduser()
        if not p.is_file():
            raise ValueError(f"--sim-node {sim_node}: no such node file (`serving-console twin fit … --out "
                             f"NODE.toml` writes one)")
        node = ["--sim-deployment", str(p.resolve())]
    return [*(sim_arg or ()), *node, *(["--sim-time-scale", str(time_scale)] if time_scale is not None else [])]


def profile_from_server_info(info, url: str, name: str | None = None) -> Profile:
    """The arm a running server is serving, read back from its resolved `/server_info` (attach)."""
    import httpx
    u = httpx.URL(url if "://" in url else "http://" + url)
    arm = info.arm
    fam = {"nextn": "eagle"}.get(arm.family, arm.family)
    if fam not in FAMILIES:
        fam = "none"
    model = (info.model_path or "").removeprefix("sim:")
    if fam == "none":
        dr = Drafter()
    elif fam == "dflash":
        dr = Drafter(family=fam, model=arm.draft_model, draft_tokens=arm.draft_tokens)
    else:
        dr = Drafter(family=fam, model=arm.draft_model, steps=arm.steps, topk=arm.topk, draft_tokens=arm.draft_tokens)
    return Profile(name=name or f"attached-{u.host}-{u.port or 80}", path=None,
                   description=f"derived from {url}/server_info (sglang {info.version})", engine_python="python3",
                   model_path=model or "?", tp=info.tp_size or 1, dp=info.dp_size or 1,
                   trust_remote_code=bool(info.raw.get("trust_remote_code")), drafter=dr,
                   kv_cache_dtype=info.kv_cache_dtype or "auto", mem_fraction_static=info.mem_fraction_static,
                   host=u.host or "127.0.0.1", port=u.port or 80, enable_metrics=info.enable_metrics)


def _toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    import json
    return json.dumps(str(v))


def profile_to_toml(p: Profile) -> str:
    """A profile file equivalent to `p` (what `load_profile` reads back); secrets are never written."""
    sections: list[tuple[str, dict]] = [
        ("", {"name": p.name, "description": p.description}),
        ("engine", {"python": p.engine_python, "template": list(p.template) or None, "hosts": list(p.hosts) or None}),
        ("model", {"path": p.model_path, "tp": p.tp, "dp": p.dp, "nnodes": p.nnodes,
                   "trust_remote_code": p.trust_remote_code, "context_length": p.context_length,
                   "dist_init_addr": p.dist_init_addr, "input_window": None if p.input_window else False}),
        ("drafter", {"family": p.drafter.family, "model": p.drafter.model, "steps": p.drafter.steps,
                     "topk": p.drafter.topk, "draft_tokens": p.drafter.draft_tokens}),
        ("kv", {"dtype": p.kv_cache_dtype, "mem_fraction_static": p.mem_fraction_static}),
        ("server", {"host": p.host, "port": p.port, "enable_metrics": p.enable_metrics,
                    "served_model_name": p.served_model_name, "api_key_env": p.api_key_env,
                    "api_key_file": p.api_key_file, "extra_args": list(p.extra_args) or None,
                    "max_running_requests": p.max_running_requests}),
        ("node", {"usd_per_hour": p.node_usd_per_hour, "label": p.node_label or None,
                  "launch_sd_pct": p.node_launch_sd_pct, "launch_sd_df": p.node_launch_sd_df}),
        ("anchor", {"prompts": p.anchor_prompts, "reference_tok_s": p.anchor_reference_tok_s, "n": p.anchor_n,
                    "max_tokens": p.anchor_max_tokens}),
        ("probe", {"prompts": p.probe_prompts, "n": p.probe_n, "max_tokens": p.probe_max_tokens,
                   "widths": p.probe_widths, "topk": p.probe_topk, "chain": p.probe_chain}),
        ("sim", {"args": list(p.sim_args) or None}),
    ]
    out: list[str] = []
    for sec, kv in sections:
        items = [(k, v) for k, v in kv.items() if v is not None]
        if sec == "drafter" and p.drafter.family == "none":
            items = [("family", "none")]
        if not items:
            continue
        if sec:
            out.append(f"\n[{sec}]")
        out += [f"{k} = {_toml_value(v)}" for k, v in items]
    if p.env:
        out.append("\n[env]")
        out += [f"{k} = {_toml_value(v)}" for k, v in p.env.items()]
    return "\n".join(out).lstrip("\n") + "\n"


# --- loading ---------------------------------------------------------------------------------

_SCHEMA: dict[str, dict[str, tuple[type | tuple[type, ...], str]]] = {
    "": {"name": (str, "name"), "description": (str, "description")},
    "engine": {"python": (str, "engine_python"), "template": (list, "template"), "hosts": (list, "hosts")},
    "model": {"path": (str, "model_path"), "tp": (int, "tp"), "dp": (int, "dp"), "nnodes": (int, "nnodes"),
              "trust_remote_code": (bool, "trust_remote_code"), "context_length": (int, "context_length"),
              "dist_init_addr": (str, "dist_init_addr"), "input_window": (bool, "input_window")},
    "drafter": {"family": (str, "family"), "model": (str, "model"), "steps": (int, "steps"), "topk": (int, "topk"),
                "draft_tokens": (int, "draft_tokens")},
    "kv": {"dtype": (str, "kv_cache_dtype"), "mem_fraction_static": ((float, int), "mem_fraction_static")},
    "server": {"host": (str, "host"), "port": (int, "port"), "enable_metrics": (bool, "enable_metrics"),
               "served_model_name": (str, "served_model_name"), "api_key_env": (str, "api_key_env"),
               "api_key_file": (str, "api_key_file"), "extra_args": (list, "extra_args"),
               "max_running_requests": (int, "max_running_requests")},
    "env": {},
    "node": {"usd_per_hour": ((float, int), "node_usd_per_hour"), "label": (str, "node_label"),
             "launch_sd_pct": ((float, int), "node_launch_sd_pct"),
             "launch_sd_df": ((float, int), "node_launch_sd_df")},
    "anchor": {"prompts": (str, "anchor_prompts"), "reference_tok_s": ((float, int), "anchor_reference_tok_s"),
               "n": (int, "anchor_n"), "max_tokens": (int, "anchor_max_tokens")},
    "probe": {"prompts": (str, "probe_prompts"), "n": (int, "probe_n"), "max_tokens": (int, "probe_max_tokens"),
              "widths": (str, "probe_widths"), "topk": (int, "probe_topk"), "chain": (bool, "probe_chain")},
    "sim": {"args": (list, "sim_args")},
}
_TYPE_WORD = {str: "a string", int: "an integer", bool: "true or false", list: "a list of strings",
              (float, int): "a number"}


def probe_widths(text: str) -> list[int] | None:
    """"W,W,..." as a list of positive widths (the profile's probe.widths and the CLI's --widths), None if it is not."""
    try:
        ws = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        return None
    return ws if ws and all(x > 0 for x in ws) else None


def profile_from_dict(data: dict[str, Any], name: str, path: Path | None = None) -> Profile:
    """Every problem of the file is reported (one line each), not only the first."""
    where = str(path) if path else f"profile {name}"
    kw: dict[str, Any] = {"name": name, "path": path}
    dkw: dict[str, Any] = {}
    errs: list[str] = []
    unparsed: set[str] = set()
    for key, value in data.items():
        if isinstance(value, dict):
            if key not in _SCHEMA or key == "":
                errs.append(f"{where}: unknown section [{_k(key)}]; known: {', '.join(k for k in _SCHEMA if k)}")
                continue
            if key == "env":
                bad = [k for k, v in value.items() if not isinstance(v, str)]
                errs += [f"{where}: env.{_k(b)} must be a string; quote the value" for b in bad]
                kw["env"] = dict(value)
                continue
            for sub, v in value.items():
                if (e := _put(where, key, sub, v, kw, dkw)) is not None:
                    errs.append(e)
                    unparsed.add(key)
        elif (e := _put(where, "", key, value, kw, dkw)) is not None:
            errs.append(e)
    if path is not None and kw.get("extra_args"):
        kw["extra_args"] = _profile_relative(kw["extra_args"], Path(path).parent)
    prof = Profile(**{**kw, "drafter": Drafter(**dkw)})
    # value problems too, except in a section where a field did not parse (follow-ons of its default)
    errs += [e for e in problems(prof)
             if e[len(where) + 2:].split(" ", 1)[0].split(".", 1)[0] not in unparsed]
    if errs:
        raise ProfileError(errs)
    return prof


#: launch_server flags whose value is a file: a relative value in server.extra_args that names a file beside the
#: profile is read from there (a profile and its config file travel together, shipped or copied); any other value is
#: passed as written (relative to the directory the engine runs in)
FILE_FLAGS = ("--speculative-adaptive-config", "--speculative-token-map", "--chat-template")


def _profile_relative(args: tuple[str, ...], base: Path) -> tuple[str, ...]:
    out = list(args)
    for i, a in enumerate(out):
        flag, eq, val = a.partition("=")
        if eq and flag in FILE_FLAGS:
            target, prefix = val, flag + "="
        elif i > 0 and out[i - 1] in FILE_FLAGS:
            target, prefix = a, ""
        else:
            continue
        if target and not os.path.isabs(os.path.expanduser(target)) and (base / target).is_file():
            out[i] = prefix + str((base / target).resolve())
    return tuple(out)


def _k(key: str) -> str:
    """A TOML key as it can be shown in a one-line message: quoted keys may hold line breaks or other control
    characters, which are shown escaped; everything else as written."""
    import unicodedata
    return repr(key) if any(unicodedata.category(c) in ("Cc", "Zl", "Zp") for c in key) else key


def _put(where: str, section: str, key: str, value: Any, kw: dict[str, Any], dkw: dict[str, Any]) -> str | None:
    field_name = f"{_k(section)}.{_k(key)}" if section else _k(key)
    if section == "server" and key == "api_key":
        return (f"{where}: server.api_key must not be inline; use api_key_env or api_key_file")
    spec = _SCHEMA.get(section, {}).get(key)
    if spec is None:
        known = ", ".join(_SCHEMA.get(section, {})) or "(none)"
        return (f"{where}: unknown field {field_name}; known fields here: {known}")
    typ, attr = spec
    ok = isinstance(value, typ) and not (typ in (int, (float, int)) and isinstance(value, bool))
    if not ok:
        return (f"{where}: {field_name} must be {_TYPE_WORD.get(typ, typ)}, got {value!r}")
    if typ is list:
        if not all(isinstance(x, str) for x in value):
            return (f"{where}: {field_name} must be a list of strings (one argv item each)")
        value = tuple(value)
    if typ == (float, int):
        value = float(value)
    (dkw if section == "drafter" else kw)[attr] = value
    return None


def validate(p: Profile) -> None:
    """Value checks that need no engine catalogue (issue-level rules live in `check`); raises with every problem."""
    errs = problems(p)
    if errs:
        raise ProfileError(errs)


def problems(p: Profile) -> list[str]:
    """Every value problem of a profile, one line each (empty: none)."""
    w = p._where()
    errs: list[str] = []
    bad = errs.append
    if not p.model_path:
        bad(f"{w}: model.path is required (a local directory or a Hugging Face id)")
    for f, v in (("model.tp", p.tp), ("model.dp", p.dp), ("model.nnodes", p.nnodes)):
        if v < 1:
            bad(f"{w}: {f} must be ≥ 1, got {v}")
    if not (1 <= p.port <= 65535):
        bad(f"{w}: server.port must be 1..65535, got {p.port}")
    for f, opt in (("anchor.n", p.anchor_n), ("anchor.max_tokens", p.anchor_max_tokens), ("probe.n", p.probe_n),
                   ("probe.max_tokens", p.probe_max_tokens), ("probe.topk", p.probe_topk)):
        if opt is not None and opt < 1:
            bad(f"{w}: {f} must be ≥ 1, got {opt}")
    if p.node_launch_sd_pct is not None and not (0.0 < p.node_launch_sd_pct <= 50.0):
        bad(f"{w}: node.launch_sd_pct must be in (0, 50] (a launch-to-launch sd in %), got {p.node_launch_sd_pct}")
    if p.node_launch_sd_df is not None and not (0.0 < p.node_launch_sd_df <= 1000.0):
        bad(f"{w}: node.launch_sd_df must be in (0, 1000] (the prior's degrees of freedom), got "
            f"{p.node_launch_sd_df}")
    if p.probe_widths is not None and probe_widths(p.probe_widths) is None:
        bad(f"{w}: probe.widths must list verify widths like \"4,10\", got {p.probe_widths!r}")
    if p.kv_cache_dtype not in KV_DTYPES:
        bad(f"{w}: kv.dtype {p.kv_cache_dtype!r} is not one of {', '.join(KV_DTYPES)}")
    if p.mem_fraction_static is not None and not (0.0 < p.mem_fraction_static < 1.0):
        bad(f"{w}: kv.mem_fraction_static must be in (0, 1), got {p.mem_fraction_static}")
    if p.nnodes > 1 and not p.dist_init_addr:
        bad(f"{w}: model.nnodes = {p.nnodes} needs model.dist_init_addr (rank 0's host:port, e.g. "
                           f"\"node-a:5000\")")
    if p.nnodes > 1 and not p.template:
        bad(f"{w}: model.nnodes = {p.nnodes} needs engine.template to start the other nodes "
                           f"(e.g. [\"ssh\", \"-tt\", \"{{host}}\", \"{{argv_shell}}\"]) and engine.hosts")
    if p.nnodes > 1 and len(p.hosts) not in (0, p.nnodes):
        bad(f"{w}: engine.hosts has {len(p.hosts)} entries for model.nnodes = {p.nnodes}; give one per node")
    if p.template and not any(x in ("{argv}",) or "{argv_shell}" in x for x in p.template):
        bad(f"{w}: engine.template must contain \"{{argv}}\" (spliced) or \"{{argv_shell}}\" (quoted)")
    if p.api_key_env and p.api_key_file:
        bad(f"{w}: set only one of server.api_key_env and server.api_key_file")
    d = p.drafter
    if d.family not in FAMILIES:
        bad(f"{w}: drafter.family {d.family!r} is not one of {', '.join(FAMILIES)}")
    for f, val in (("drafter.steps", d.steps), ("drafter.topk", d.topk), ("drafter.draft_tokens", d.draft_tokens)):
        if val is not None and val < 1:
            bad(f"{w}: {f} must be ≥ 1, got {val}")
    if not d.enabled:
        if any(v is not None for v in (d.model, d.steps, d.topk, d.draft_tokens)):
            bad(f"{w}: drafter.family is 'none' but drafter numbers are set; remove them or set a family")
        return errs
    if d.family in ("eagle3", "eagle", "dflash", "standalone") and not d.model:
        bad(f"{w}: drafter.model is required for family {d.family} (draft model directory or HF id)")
    if d.family == "dflash":
        if (d.steps not in (None, 1)) or (d.topk not in (None, 1)):
            bad(f"{w}: DFLASH forces steps = topk = 1; remove drafter.steps/topk (block size is drafter.draft_tokens)")
    elif d.family in ("eagle3", "eagle", "standalone"):
        if d.steps is None and (d.topk is not None or d.draft_tokens is not None):
            bad(f"{w}: drafter.steps is unset but topk/draft_tokens are set; sglang asserts all three or none")
        if d.topk == 1 and d.steps is not None and d.draft_tokens is not None and d.draft_tokens != d.steps + 1:
            bad(
                f"{w}: with drafter.topk = 1, drafter.draft_tokens must be steps + 1 = {d.steps + 1} (got "
                f"{d.draft_tokens}); sglang would silently override it")
    return errs


def load_profile(path: Path) -> Profile:
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as e:
        raise ProfileError(f"{path}: cannot read profile ({e.strerror})") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ProfileError(f"{path}: not valid TOML ({e})") from None
    name = data["name"] if isinstance(data.get("name"), str) else path.stem
    return profile_from_dict(data, name=name, path=path)


def find_profile(ref: str) -> places.Found:
    """Where a profile reference points (core/places.py: a path as given, else the first `<name>.toml` along the
    search path); ProfileError naming every place searched when there is none."""
    if _is_path(ref):
        return places.Found(path=Path(ref), place=None)
    pl = places.profile_places()
    hit = places.find(ref, pl, ".toml")
    if hit is None:
        raise ProfileError(places.not_found("profile", ref, pl, ".toml"))
    return hit


def _is_path(ref: str) -> bool:
    p = Path(ref)
    return p.suffix == ".toml" or len(p.parts) > 1 or ref.startswith(".") or p.is_file()


def resolve_profile(ref: str) -> Profile:
    """A profile by path (`x.toml`, `./x`, `dir/x.toml`) or by name along the search path (core/places.py); a
    profile that shadows another of its name carries the note that says so."""
    hit = find_profile(ref)
    prof = load_profile(hit.path)
    note = hit.shadow_note()
    return replace(prof, shadow_note=note) if note else prof


def profile_files(directory: Path | None = None) -> list[Path]:
    """The profile files a listing considers: those of `directory`, else the first of each name along the search
    path (a shadowed file is left out)."""
    if directory is not None:
        return sorted(Path(directory).glob("*.toml"))
    return places.first_of_each(places.profile_places(), ".toml")


def list_profiles(directory: Path | None = None) -> tuple[list[Profile], list[str]]:
    """Every loadable profile in `directory` (default: along the search path, the first of each name), and one line
    per file that did not load."""
    good: list[Profile] = []
    bad: list[str] = []
    for f in profile_files(directory):
        try:
            good.append(load_profile(f))
        except ProfileError as e:
            bad.append(str(e))
    return good, bad
