"""Fail-closed validation of a profile's argv against an engine flag catalogue.

Every flag the profile emits must be accepted by the target engine's own argument parser (rebuilt
from the catalogue, with sglang's argparse conventions, abbreviations included). Errors come back as one
line naming the flag and, where the flag came from a profile field, that field.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass

from console.core.engine.flags import FlagCatalogue, build_parser, pinned_catalogue
from console.core.launch.profile import Profile

# profile field that emits each flag (for error messages)
FLAG_FIELD = {
    "--model-path": "model.path", "--tp-size": "model.tp", "--dp-size": "model.dp", "--nnodes": "model.nnodes",
    "--context-length": "model.context_length", "--speculative-algorithm": "drafter.family",
    "--speculative-draft-model-path": "drafter.model", "--speculative-num-steps": "drafter.steps",
    "--speculative-eagle-topk": "drafter.topk", "--speculative-num-draft-tokens": "drafter.draft_tokens",
    "--speculative-dflash-block-size": "drafter.draft_tokens", "--kv-cache-dtype": "kv.dtype",
    "--mem-fraction-static": "kv.mem_fraction_static", "--host": "server.host", "--port": "server.port",
    "--enable-metrics": "server.enable_metrics", "--served-model-name": "server.served_model_name",
    "--max-running-requests": "server.max_running_requests",
}


class CheckError(ValueError):
    pass


class _RaisingParser(argparse.ArgumentParser):
    def error(self, message: str):  # type: ignore[override]
        raise CheckError(message)


@dataclass
class CheckResult:
    ok: bool
    catalogue: str
    message: str
    argv: list[str]


def check_flags(flags: list[str], catalogue: FlagCatalogue) -> argparse.Namespace:
    """Parse `flags` with the catalogue's parser; raise CheckError(one line) on any rejection."""
    return build_parser(catalogue, parser_cls=_RaisingParser, add_help=False).parse_args(flags)


def check_profile(profile: Profile, catalogue: FlagCatalogue | None = None) -> CheckResult:
    cat = catalogue or pinned_catalogue()
    flags = profile.server_flags(api_key="<api-key>" if (profile.api_key_env or profile.api_key_file) else None)
    where = str(profile.path) if profile.path else profile.name
    label = f"the {cat.source} flag catalogue"
    try:
        check_flags(flags, cat)
        for tok in flags:
            name = tok.split("=", 1)[0]
            if name.startswith("--") and name not in cat:
                # argparse accepted a unique prefix; a future flag can make it ambiguous or point elsewhere
                full = [f for o in cat.options for f in o.flags if f.startswith(name)]
                raise CheckError(f"{name} is an abbreviation of {full[0] if full else '?'}; write the full flag name")
    except CheckError as e:
        msg = str(e)
        field = next((f for flag, f in FLAG_FIELD.items() if flag in msg), None)
        origin = f"profile field {field}" if field else "server.extra_args"
        return CheckResult(False, label, f"{where}: {label} rejects the argv: {msg} (from {origin})", flags)
    return CheckResult(True, label, f"{where}: argv accepted by {label}", flags)
