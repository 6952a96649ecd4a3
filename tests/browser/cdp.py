"""A small Chrome DevTools Protocol client over Chromium's `--remote-debugging-pipe` (fd 3 in, fd 4 out,
NUL-terminated JSON): no websocket library, no npm, no driver binary. Enough to open a file, collect console
errors, exceptions and every network request, read the DOM and take screenshots at a viewport size."""

from __future__ import annotations

import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

INSTALL = "apt-get install -y --no-install-recommends chromium"


def chromium_binary() -> str:
    """Debian's chromium; a missing browser fails the test (never skips) with the line that installs it."""
    for name in (os.environ.get("SC_CHROMIUM") or "", "chromium", "chromium-browser"):
        if name and shutil.which(name):
            return shutil.which(name)  # type: ignore[return-value]
    raise RuntimeError(f"chromium is not installed: the browser tests need it ({INSTALL})")


class Browser:
    def __init__(self, timeout: float = 30.0) -> None:
        self.timeout = timeout
        self._profile = tempfile.mkdtemp(prefix="sc-chromium-")
        to_child_r, to_child_w = os.pipe()
        from_child_r, from_child_w = os.pipe()
        # keep the child's ends out of 0..9 so the dup2 onto 3 and 4 cannot clobber one another
        cr = fcntl.fcntl(to_child_r, fcntl.F_DUPFD, 10)
        cw = fcntl.fcntl(from_child_w, fcntl.F_DUPFD, 10)
        os.close(to_child_r)
        os.close(from_child_w)

        def wire() -> None:
            os.dup2(cr, 3)
            os.dup2(cw, 4)

        args = [chromium_binary(), "--headless=new", "--remote-debugging-pipe", "--no-sandbox", "--disable-gpu",
                "--no-first-run", "--no-default-browser-check", "--disable-extensions", "--disable-sync",
                "--disable-background-networking", "--disable-component-update", "--hide-scrollbars",
                "--font-render-hinting=none", f"--user-data-dir={self._profile}", "about:blank"]
        self._stderr = open(Path(self._profile) / "stderr.log", "wb")
        self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=self._stderr, preexec_fn=wire, close_fds=False)
        os.close(cr)
        os.close(cw)
        self._w, self._r = to_child_w, from_child_r
        self._buf = b""
        self._id = 0
        self.events: list[dict[str, Any]] = []
        self.session: str | None = None

    # --- wire ------------------------------------------------------------------------------------------
    def _send(self, method: str, params: dict | None = None, session: str | None = None) -> int:
        self._id += 1
        msg: dict[str, Any] = {"id": self._id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self._w, json.dumps(msg).encode() + b"\0")
        return self._id

    def _read_one(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("chromium did not answer in time")
            r, _, _ = select.select([self._r], [], [], left)
            if r:
                chunk = os.read(self._r, 1 << 20)
                if not chunk:
                    err = (Path(self._profile) / "stderr.log").read_text(errors="replace")[-2000:]
                    raise RuntimeError(f"chromium closed the DevTools pipe: {err}")
                self._buf += chunk
        raw, self._buf = self._buf.split(b"\0", 1)
        return json.loads(raw)

    def call(self, method: str, params: dict | None = None, session: str | None = "") -> dict[str, Any]:
        sid = self.session if session == "" else session
        i = self._send(method, params, sid)
        deadline = time.monotonic() + self.timeout
        while True:
            m = self._read_one(deadline)
            if m.get("id") == i:
                if "error" in m:
                    raise RuntimeError(f"{method}: {m['error']}")
                return m.get("result", {})
            self.events.append(m)

    def wait_event(self, method: str, timeout: float | None = None) -> dict[str, Any]:
        for e in self.events:
            if e.get("method") == method and not e.get("_seen"):
                e["_seen"] = True
                return e
        deadline = time.monotonic() + (timeout or self.timeout)
        while True:
            m = self._read_one(deadline)
            self.events.append(m)
            if m.get("method") == method:
                m["_seen"] = True
                return m

    # --- pages -----------------------------------------------------------------------------------------
    def open(self, path: Path, width: int, height: int) -> None:
        """A fresh tab at `width` × `height` (mobile emulation below 600 px) with `path` loaded."""
        tid = self.call("Target.createTarget", {"url": "about:blank"}, None)["targetId"]
        self.session = self.call("Target.attachToTarget", {"targetId": tid, "flatten": True}, None)["sessionId"]
        self.events = []
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.call(f"{domain}.enable")
        self.call("Emulation.setDeviceMetricsOverride", {"width": width, "height": height, "deviceScaleFactor": 1,
                                                          "mobile": width < 600})
        self.call("Page.navigate", {"url": Path(path).resolve().as_uri()})
        self.wait_event("Page.loadEventFired")
        self.evaluate("document.fonts.ready.then(() => true)")

    def evaluate(self, expr: str) -> Any:
        r = self.call("Runtime.evaluate", {"expression": expr, "returnByValue": True, "awaitPromise": True})
        if "exceptionDetails" in r:
            raise RuntimeError(f"evaluate: {r['exceptionDetails']}")
        return r["result"].get("value")

    def screenshot(self, out: Path, full_page: bool = True) -> Path:
        params: dict[str, Any] = {"format": "png"}
        if full_page:
            w = self.evaluate("document.documentElement.clientWidth")
            h = self.evaluate("Math.ceil(document.documentElement.scrollHeight)")
            params.update(captureBeyondViewport=True, clip={"x": 0, "y": 0, "width": w, "height": h, "scale": 1})
        data = self.call("Page.captureScreenshot", params)["data"]
        Path(out).write_bytes(base64.b64decode(data))
        return Path(out)

    def problems(self) -> list[str]:
        """Console errors and warnings, uncaught exceptions, failed loads, in the order they came."""
        out = []
        for e in self.events:
            m, p = e.get("method"), e.get("params", {})
            if m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "warning", "assert"):
                out.append(f"console.{p['type']}: " + " ".join(str(a.get("value", a.get("description")))
                                                           for a in p.get("args", [])))
            elif m == "Runtime.exceptionThrown":
                out.append(f"exception: {p.get('exceptionDetails', {}).get('text')}")
            elif m == "Log.entryAdded" and p.get("entry", {}).get("level") in ("error", "warning"):
                out.append(f"log {p['entry']['level']} ({p['entry'].get('source')}): {p['entry'].get('text')}")
            elif m == "Network.loadingFailed":
                out.append(f"load failed: {p.get('errorText')} {p.get('blockedReason') or ''}")
        return out

    def requests(self) -> list[str]:
        return [e["params"]["request"]["url"] for e in self.events if e.get("method") == "Network.requestWillBeSent"]

    def close(self) -> None:
        try:
            self._send("Browser.close")
            self.proc.wait(timeout=10)
        except Exception:
            self.proc.kill()
            self.proc.wait(timeout=10)
        finally:
            for fd in (self._w, self._r):
                try:
                    os.close(fd)
                except OSError:
                    pass
            self._stderr.close()
            shutil.rmtree(self._profile, ignore_errors=True)

    def __enter__(self) -> "Browser":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
