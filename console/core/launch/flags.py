"""The engine's flag catalogue: which `launch_server` flags a given SGLang version accepts.

A catalogue is the machine-readable list produced by argparse introspection of
`sglang.srt.server_args.ServerArgs.add_cli_args` (see `INTROSPECT_SCRIPT`). The one for
sglang 0.5.23 ships with the package (`console/data/sglang-0.5.23-flags.json`); it is used for
offline checks and by the engine twin, which parses its argv with `build_parser` so that a profile
the twin accepts is one the real 0.5.23 parser accepts too.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

PINNED_VERSION = "0.5.23"

# Run inside the engine's own interpreter (never in the console's): prints the catalogue as JSON.
INTROSPECT_SCRIPT = r"""
import argparse, json
from sglang.srt.server_args import ServerArgs
try:
    from sglang.version import __version__ as v
except Exception:
    v = "unknown"
p = argparse.ArgumentParser()
ServerArgs.add_cli_args(p)
out = []
for a in p._actions:
    if not a.option_strings or a.dest == "help":
        continue
    t = getattr(a.type, "__name__", None) if a.type is not None else None
    d = a.default
    try:
        json.dumps(d)
    except TypeError:
        d = repr(d)
    out.append({"flags": list(a.option_strings), "dest": a.dest, "action": type(a).__name__,
                "type": t, "nargs": a.nargs, "default": d,
                "choices": list(a.choices) if a.choices is not None else None,
                "deprecated": "Deprecated" in type(a).__name__})
print(json.dumps({"engine": "sglang", "version": v,
                  "generated_by": "argparse introspection of ServerArgs.add_cli_args",
                  "options": out}))
"""


@dataclass(frozen=True)
class FlagSpec:
    """One option of `launch_server`: every spelling, its dest and how argparse treats it."""

    flags: tuple[str, ...]
    dest: str
    action: str
    type: str | None
    nargs: int | str | None
    default: Any
    choices: tuple[Any, ...] | None
    deprecated: bool

    @property
    def takes_value(self) -> bool:
        return self.action not in (
            "_StoreTrueAction",
            "_StoreFalseAction",
            "DeprecatedStoreTrueAction",
            "BooleanOptionalAction",
        ) and self.nargs != 0


@dataclass
class FlagCatalogue:
    """The set of flags one engine version accepts."""

    engine: str
    version: str
    options: list[FlagSpec]
    source: str = "pinned"
    _by_flag: dict[str, FlagSpec] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self._by_flag = {f: o for o in self.options for f in o.flags}

    @classmethod
    def from_json(cls, data: dict[str, Any], source: str = "pinned") -> FlagCatalogue:
        opts = [
            FlagSpec(
                flags=tuple(o["flags"]),
                dest=o["dest"],
                action=o["action"],
                type=o.get("type"),
                nargs=o.get("nargs"),
                default=o.get("default"),
                choices=tuple(o["choices"]) if o.get("choices") is not None else None,
                deprecated=bool(o.get("deprecated")),
            )
            for o in data["options"]
        ]
        return cls(engine=data.get("engine", "sglang"), version=str(data["version"]), options=opts, source=source)

    @classmethod
    def load_file(cls, path: Path) -> FlagCatalogue:
        return cls.from_json(json.loads(Path(path).read_text()), source=str(path))

    def get(self, flag: str) -> FlagSpec | None:
        return self._by_flag.get(flag)

    def __contains__(self, flag: str) -> bool:
        return flag in self._by_flag

    def defaults(self) -> dict[str, Any]:
        """dest -> default, as `ServerArgs` would hold before auto-fill hooks run."""
        return {o.dest: o.default for o in self.options}

    def dests(self) -> list[str]:
        return [o.dest for o in self.options]


def pinned_catalogue() -> FlagCatalogue:
    """The catalogue of sglang 0.5.23 shipped with the package."""
    text = resources.files("console.data").joinpath(f"sglang-{PINNED_VERSION}-flags.json").read_text()
    return FlagCatalogue.from_json(json.loads(text), source=f"pinned sglang {PINNED_VERSION}")


def human_readable_int(value: str) -> int:
    """SGLang's `human_readable_int`: accepts 262144, 256k, 1M, 1.5k (case-insensitive)."""
    s = value.strip().lower().replace("_", "")
    mult = 1
    for suffix, m in (("k", 1_000), ("m", 1_000_000), ("g", 1_000_000_000)):
        if s.endswith(suffix):
            s, mult = s[:-1], m
            break
    try:
        return int(float(s) * mult) if "." in s else int(s) * mult
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid integer: {value!r}") from None


def _json_loads(value: str) -> Any:
    try:
        return json.loads(value)
    except json.JSONDecodeError as e:
        raise argparse.ArgumentTypeError(f"invalid JSON: {e}") from None


def _nullable_str(value: str) -> str | None:
    return None if value.lower() in ("none", "null", "") else value


_TYPES: dict[str | None, Callable[[str], Any] | None] = {
    None: None,
    "str": str,
    "int": int,
    "float": float,
    "human_readable_int": human_readable_int,
    "loads": _json_loads,
    "json_list_type": _json_loads,
    "nullable_str": _nullable_str,
    # CUDA-graph backend/config parsers: accept the raw text, sglang validates it at resolution time.
    "parse_cuda_graph_backend_arg": str,
    "parse_cuda_graph_config_arg": str,
}


class _DeprecatedStoreTrue(argparse.Action):
    def __init__(self, option_strings, dest, default=False, required=False, help=None):  # noqa: A002
        super().__init__(option_strings, dest, nargs=0, const=True, default=default, required=required, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        setattr(namespace, self.dest, True)


def build_parser(catalogue: FlagCatalogue, prog: str = "sglang serve",
                 parser_cls: type[argparse.ArgumentParser] = argparse.ArgumentParser,
                 **kwargs: Any) -> argparse.ArgumentParser:
    """An argparse parser accepting exactly the catalogue's flags, with sglang's conventions
    (`allow_abbrev` stays True as in sglang, so an old prefix such as `--cuda-graph-max-bs` is ambiguous)."""
    parser = parser_cls(prog=prog, **kwargs)
    for o in catalogue.options:
        kw: dict[str, Any] = {"dest": o.dest, "default": o.default}
        if o.action in ("_StoreTrueAction",):
            kw["action"] = "store_true"
        elif o.action == "DeprecatedStoreTrueAction":
            kw["action"] = _DeprecatedStoreTrue
            kw["help"] = "deprecated"
        elif o.action == "BooleanOptionalAction":
            parser.add_argument(o.flags[0], action=argparse.BooleanOptionalAction, **kw)
            continue
        elif o.action == "DeprecatedStoreConstAction":
            kw["nargs"] = "?"
            kw["const"] = o.choices[0] if o.choices else True
        else:
            conv = _TYPES.get(o.type, str)
            if conv is not None:
                kw["type"] = conv
            if o.nargs is not None:
                kw["nargs"] = o.nargs
            if o.choices is not None and o.action == "_StoreAction":
                kw["choices"] = list(o.choices)
        parser.add_argument(*o.flags, **kw)
    return parser
