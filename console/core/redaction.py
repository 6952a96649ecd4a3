"""Secrets never reach disk, logs, session files or reports: the one place they are replaced.

- argv: the values of secret flags (`--api-key X`, `--api-key=X`);
- mappings written to disk (manifests, session.json, rows, saved chats): keys named like secrets, argv-like lists
  and `launch_command` strings;
- text and byte streams: every occurrence of a known secret value (a saved chat's transcript; the engine's output
  on its way to the log file, where a secret may be split across two reads).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

REDACTED = "<redacted>"
SECRET_FLAGS = ("--api-key", "--admin-api-key", "--ssl-keyfile-password")
SECRET_KEYS = ("api_key", "admin_api_key", "ssl_keyfile_password")


def redact_argv(argv: list[str]) -> list[str]:
    """Replace the values of secret flags (`--api-key X`, `--api-key=X`) with '<redacted>'."""
    out: list[str] = []
    skip = False
    for a in argv:
        if skip:
            out.append(REDACTED)
            skip = False
            continue
        hit = next((f for f in SECRET_FLAGS if a == f or a.startswith(f + "=")), None)
        if hit and a == hit:
            out.append(a)
            skip = True
        elif hit:
            out.append(f"{hit}={REDACTED}")
        else:
            out.append(a)
    return out


def redact_mapping(d: Any) -> Any:
    """Deep copy with secret values replaced (keys named like api keys; argv-like strings)."""
    if isinstance(d, dict):
        out = {}
        for k, v in d.items():
            if k in SECRET_KEYS and v:
                out[k] = REDACTED
            elif k == "launch_command" and isinstance(v, str):
                out[k] = " ".join(redact_argv(v.split(" ")))
            else:
                out[k] = redact_mapping(v)
        return out
    if isinstance(d, list):
        if d and all(isinstance(x, str) for x in d) and any(x.startswith("--") for x in d):
            return redact_argv(d)
        return [redact_mapping(x) for x in d]
    return d


def redact_text(text: str, secrets: list[str | None]) -> str:
    """Every occurrence of each secret value replaced."""
    for s in secrets:
        if s:
            text = text.replace(s, REDACTED)
    return text


def redact_json(obj: Any, secrets: list[str | None]) -> Any:
    """A JSON-able object with every occurrence of each secret value (as JSON escapes it) replaced."""
    text = json.dumps(obj, default=str)
    for s in secrets:
        if s:
            text = text.replace(json.dumps(s)[1:-1], REDACTED)
    return json.loads(text)


def relay_redacted(pipe, log_path: Path, secrets: list[str]) -> None:
    """Copy a process's output to a log, replacing every secret; a secret split across two reads is caught by
    holding back the last len(secret) − 1 bytes until more arrive."""
    keys = [x.encode() for x in secrets]
    hold = max(len(k) for k in keys) - 1
    red = REDACTED.encode()
    buf = b""
    with open(log_path, "ab") as out:
        while True:
            chunk = os.read(pipe.fileno(), 65536)
            if not chunk:
                break
            buf += chunk
            for k in keys:
                buf = buf.replace(k, red)
            cut = len(buf) - hold if hold > 0 else len(buf)
            out.write(buf[:max(cut, 0)])
            out.flush()
            buf = buf[max(cut, 0):]
        for k in keys:
            buf = buf.replace(k, red)
        out.write(buf)
        out.flush()
