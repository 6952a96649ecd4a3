"""The adaptive speculative config file (`--speculative-adaptive-config FILE`): reading it into batch-size
slots as SGLang 0.5.23 does (`speculative/adaptive_spec_params.py`); the controller that runs the slots is
model/adaptive.py."""

from __future__ import annotations

import json
from typing import Any

DEFAULT_ADAPTIVE_CONFIG: dict[str, dict[str, Any]] = {
    "1": {"candidate_steps": [1, 3, 5, 7], "up_hysteresis": 0.0, "down_hysteresis": -0.25, "ceiling_coeff": 0},
    "8": {"candidate_steps": [0, 1, 3], "up_hysteresis": 0.0, "down_hysteresis": 0.0, "ceiling_coeff": 0},
    "32": {"candidate_steps": [0, 1], "up_hysteresis": 0.0, "down_hysteresis": 0.0, "ceiling_coeff": 0},
    "64": {"candidate_steps": [0], "up_hysteresis": 0.0, "down_hysteresis": 0.0, "ceiling_coeff": 0},
}


class AdaptiveConfigError(ValueError):
    """The adaptive config file is unreadable or has no valid slot (sglang raises at startup)."""


def load_config(path: str | None) -> tuple[dict[str, Any], dict[int, dict[str, Any]]]:
    """(the whole config, {batch size: slot entry}); the shipped default when `path` is None."""
    if path is None:
        cfg: dict[str, Any] = DEFAULT_ADAPTIVE_CONFIG
    else:
        try:
            with open(path) as f:
                cfg = json.load(f)
        except FileNotFoundError:
            raise AdaptiveConfigError(f"[Errno 2] No such file or directory: '{path}'") from None
        except (OSError, ValueError) as e:
            raise AdaptiveConfigError(str(e)) from None
        if not isinstance(cfg, dict):
            raise AdaptiveConfigError("speculative_adaptive_config must be a JSON object")
    slots: dict[int, dict[str, Any]] = {}
    for key, entry in cfg.items():
        if not key.isdigit():
            continue
        steps = entry.get("candidate_steps") if isinstance(entry, dict) else None
        if not isinstance(steps, list) or not steps or not all(isinstance(s, int) and s >= 0 for s in steps):
            raise AdaptiveConfigError(f"BS {key}: candidate_steps must be a list of non-negative ints, got {steps!r}")
        slots[int(key)] = entry
    if not slots:
        raise AdaptiveConfigError(
            "speculative_adaptive_config must contain at least one integer-string BS key, e.g. "
            f'{{"1": {{"candidate_steps": [1,3,7]}}}}. Got keys: {list(cfg.keys())}')
    return cfg, slots


def candidate_steps(path: str | None) -> list[int]:
    """Union of every slot's candidate steps (sizes the runtime states)."""
    _, slots = load_config(path)
    return sorted({s for e in slots.values() for s in e["candidate_steps"]})


