"""Resume policy: whether an interrupted cell can be continued on this server (same prompt set, protocol, arm and
twin time scale), and the manifest's record of the arm it ran on."""

from __future__ import annotations

from typing import Any

from console.core.engine.server_info import ServerInfo


def _spec_dict(info: ServerInfo | None) -> dict[str, Any] | None:
    if info is None:
        return None
    return {"algorithm": info.arm.algorithm, "num_steps": info.arm.steps, "topk": info.arm.topk,
            "num_draft_tokens": info.arm.draft_tokens, "draft_model_path": info.arm.draft_model}


class ResumeError(ValueError):
    """One line: why this cell cannot be continued on this server."""


def check_resumable(manifest: dict[str, Any], pset, info: ServerInfo | None,
                    sim_time_scale: float | None = None) -> None:
    """A cell continues only with the same prompt bytes and the same server configuration: mixing arms in
    one cell would make its median meaningless."""
    want = (manifest.get("prompt_set") or {}).get("sha256")
    if want and want != pset.sha256:
        raise ResumeError(f"prompt set {pset.name} changed since the cell started (sha256 {pset.sha256[:12]}… vs "
                          f"{want[:12]}…); restore {pset.path} or start a new cell")
    if info is None:
        return
    was, now = manifest.get("speculative") or {}, _spec_dict(info) or {}
    keys = ("algorithm", "num_steps", "topk", "num_draft_tokens")
    diff = [f"{k} {was.get(k)} → {now.get(k)}" for k in keys if was.get(k) != now.get(k)]
    if "sim_time_scale" in manifest and manifest.get("sim_time_scale") != sim_time_scale:
        diff.append(f"twin time scale {manifest.get('sim_time_scale')} → {sim_time_scale} (rates would not compare)")
    if manifest.get("kv_cache_dtype") not in (None, info.kv_cache_dtype):
        diff.append(f"kv_cache_dtype {manifest.get('kv_cache_dtype')} → {info.kv_cache_dtype}")
    if diff:
        raise ResumeError("the server now runs a different configuration than the cell: " + ", ".join(diff)
                          + "; resume on the cell's arm or start a new cell")
