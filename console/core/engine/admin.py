"""Admin endpoints of an SGLang server: readiness, `/server_info`, `/metrics`, `/flush_cache`, …

`/health*`, `/ready*` and `/metrics*` need no key on an `--api-key` server; everything else sends
`Authorization: Bearer`. Every call returns a value or raises `AdminError` with one line that names the
route and what to do.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from typing import Any

import httpx

from console.core.engine import metrics as metrics_mod
from console.core.engine.server_info import ServerInfo
from console.core.engine.stream import auth_headers


class AdminError(RuntimeError):
    """A one-line, user-facing failure of an admin call."""


class AuthError(AdminError):
    """HTTP 401: no key was sent where one is required, or the key sent was refused (exit code 6)."""


ATTACH_KEY_HINT = "pass --api-key-env VAR, naming the environment variable that holds it"
PROFILE_KEY_HINT = "set server.api_key_env or server.api_key_file in the profile"


def body_line(r: httpx.Response, limit: int = 120) -> str:
    """What answered, in one line: the JSON error message if there is one, else the kind of body and the server."""
    ctype = r.headers.get("content-type", "").split(";")[0].strip()
    server = r.headers.get("server", "")
    if "json" in ctype:
        try:
            d = r.json()
        except ValueError:
            d = None
        msg = None
        if isinstance(d, dict):
            e = d.get("error")
            msg = d.get("message") or d.get("detail") or (e.get("message") if isinstance(e, dict) else e)
        if msg:
            return " ".join(str(msg).split())[:limit]
    if "html" in ctype or r.text.lstrip()[:1] == "<":
        return f"an HTML page ({server or 'unknown server'})"
    text = " ".join(r.text.split())[:limit]
    return text or f"an empty {ctype or 'body'}" + (f" ({server})" if server else "")


def what_answered(r: httpx.Response) -> str:
    ctype = r.headers.get("content-type", "").split(";")[0].strip() or "no content type"
    server = r.headers.get("server", "")
    return f"{server + ', ' if server else ''}{ctype}"


@dataclass
class FlushResult:
    ok: bool
    status: int
    body: str
    attempts: int


def normalize_url(url: str) -> str:
    """`host:port`, `http://host:port/`, `http://host:port/v1` → `http://host:port` (raises on nonsense)."""
    u = url.strip()
    if not u:
        raise AdminError("server URL is empty: give e.g. http://127.0.0.1:30000")
    if "://" not in u:
        u = "http://" + u
    try:
        parsed = httpx.URL(u)
    except Exception:
        raise AdminError(f"server URL {url!r} is not a URL: give e.g. http://127.0.0.1:30000") from None
    if parsed.scheme not in ("http", "https") or not parsed.host:
        raise AdminError(f"server URL {url!r} needs http(s)://HOST[:PORT], e.g. http://127.0.0.1:30000")
    path = parsed.path.rstrip("/")
    if path.endswith("/v1"):
        path = path[:-3]
    return str(parsed.copy_with(path=path or "", query=None, fragment=None)).rstrip("/")


class AdminClient:
    def __init__(self, base_url: str, api_key: str | None = None, timeout_s: float = 5.0,
                 transport: httpx.AsyncBaseTransport | None = None, key_hint: str = ATTACH_KEY_HINT,
                 key_source: str = "given") -> None:
        self.base_url = normalize_url(base_url)
        self._client = httpx.AsyncClient(base_url=self.base_url, timeout=timeout_s, transport=transport)
        self._auth = auth_headers(api_key)
        self.key_hint = key_hint
        """How the user gives a key (attach: --api-key-env; launch: the profile's fields)."""
        self.key_source = key_source
        """Where the key sent came from, for the refused-key line (e.g. "from $SGLANG_KEY")."""

    async def __aenter__(self) -> AdminClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._client.aclose()

    async def _get(self, path: str, auth: bool = True, **kw: Any) -> httpx.Response:
        try:
            return await self._client.get(path, headers=self._auth if auth else None, **kw)
        except httpx.TimeoutException:
            raise AdminError(f"{self.base_url}{path}: timed out; is the server overloaded or stalled?") from None
        except httpx.HTTPError as e:
            raise AdminError(f"{self.base_url}{path}: cannot connect ({type(e).__name__}); is the server up?") from None

    def _check(self, r: httpx.Response, path: str) -> None:
        if r.status_code == 401:
            if self._auth:
                raise AuthError(f"{self.base_url}{path}: HTTP 401: the server refused the API key {self.key_source}; "
                                "check that it is the key the server was started with (--api-key)")
            raise AuthError(f"{self.base_url}{path}: HTTP 401: the server requires an API key; {self.key_hint}")
        if r.status_code == 404 and path == "/metrics":
            raise AdminError(f"{self.base_url}/metrics: 404; the server runs without --enable-metrics")
        if r.status_code != 200:
            raise AdminError(f"{self.base_url}{path}: HTTP {r.status_code}: {body_line(r)}")

    def _not_sglang(self, why: str) -> AdminError:
        return AdminError(f"{self.base_url}: not an SGLang server: {why}; check the URL and port")

    async def ready(self) -> bool:
        """True when `/ready` answers 200 (warm and serving); False on 503 or no connection. An SGLang model
        gateway (router) answers `/readiness` instead; it is asked when `/ready` is 404."""
        try:
            r = await self._client.get("/ready")
            if r.status_code == 404:
                r = await self._client.get("/readiness")
        except httpx.HTTPError:
            return False
        return r.status_code == 200

    async def workers(self) -> list[str] | None:
        """Worker URLs behind an SGLang model gateway (`GET /workers`); None for a plain server."""
        d = await self._json_or_none("/workers", auth=True)
        ws = d.get("workers") if isinstance(d, dict) else None
        if not isinstance(ws, list):
            return None
        return [w["url"] for w in ws if isinstance(w, dict) and isinstance(w.get("url"), str)]

    async def server_info(self) -> ServerInfo:
        r = await self._get("/server_info")
        if r.status_code == 404:  # servers older than 0.5.x only have the deprecated alias
            r = await self._get("/get_server_info")
        if r.status_code == 404:
            raise self._not_sglang(f"/server_info and /get_server_info answer HTTP 404 ({what_answered(r)})")
        self._check(r, "/server_info")
        try:
            body = r.json()
        except (ValueError, json.JSONDecodeError):
            raise self._not_sglang(f"/server_info answered {what_answered(r)}, not JSON") from None
        if isinstance(body, list):  # a gateway may answer one entry per worker: the first worker speaks for all
            body = next((x for x in body if isinstance(x, dict)), None)
        if isinstance(body, dict) and "version" not in body and "max_total_num_tokens" not in body:
            ws = await self.workers()
            if ws:  # a gateway whose own /server_info is not SGLang's: ask the first worker directly
                async with AdminClient(ws[0], api_key=self._auth.get("Authorization", "")[7:] or None,
                                       key_hint=self.key_hint, key_source=self.key_source) as w:
                    return await w.server_info()
        if not isinstance(body, dict) or not ({"version", "max_total_num_tokens", "model_path"} & set(body)):
            raise self._not_sglang("its /server_info JSON has none of version, model_path, max_total_num_tokens")
        try:
            return ServerInfo.parse(body)
        except ValueError as e:
            raise AdminError(f"{self.base_url}/server_info: unexpected body ({' '.join(str(e).split())})") from None

    async def model_info(self) -> dict[str, Any]:
        r = await self._get("/model_info")
        self._check(r, "/model_info")
        return r.json()

    async def models(self) -> dict[str, Any]:
        r = await self._get("/v1/models")
        self._check(r, "/v1/models")
        return r.json()

    async def loads(self) -> dict[str, Any]:
        r = await self._get("/v1/loads")
        self._check(r, "/v1/loads")
        return r.json()

    async def metrics_text(self) -> str:
        """SGLang's exposition: `/metrics`, or a gateway's `/engine_metrics` (its own /metrics has no sglang:
        families)."""
        r = await self._get("/metrics", auth=False)
        if r.status_code == 200 and "sglang:" in r.text:
            return r.text
        alt = await self._get("/engine_metrics", auth=False)
        if alt.status_code == 200 and "sglang:" in alt.text:
            return alt.text
        self._check(r, "/metrics")
        return r.text

    async def metrics(self) -> metrics_mod.MetricsSnapshot:
        text = await self.metrics_text()
        try:
            return metrics_mod.snapshot(text)
        except ValueError as e:
            raise AdminError(str(e)) from None

    async def sim_info(self) -> dict[str, Any] | None:
        """The engine twin's own `/sim/info` (time scale, node draw, seeds, faults); None on a real server."""
        d = await self._json_or_none("/sim/info", auth=False)
        return d if isinstance(d, dict) else None

    async def _json_or_none(self, path: str, auth: bool) -> Any:
        """The JSON body of an optional route; None when it is absent, refuses or is not JSON."""
        try:
            r = await self._client.get(path, headers=self._auth if auth else None)
        except httpx.HTTPError:
            return None
        if r.status_code != 200:
            return None
        try:
            return r.json()
        except ValueError:
            return None

    async def flush_cache(self, retries: int = 20, delay_s: float = 0.5) -> FlushResult:
        """POST /flush_cache, retrying while the server answers 400 (busy: requests running or waiting).
        Resets the radix cache and the server's lifetime speculative counters."""
        attempts = 0
        last = FlushResult(False, 0, "", 0)
        for attempts in range(1, retries + 2):
            try:
                r = await self._client.post("/flush_cache", headers=self._auth)
            except httpx.HTTPError as e:
                raise AdminError(f"{self.base_url}/flush_cache: cannot connect ({type(e).__name__})") from None
            last = FlushResult(r.status_code == 200, r.status_code, r.text, attempts)
            if r.status_code == 200:
                return last
            if r.status_code == 401:
                self._check(r, "/flush_cache")
            if r.status_code != 400:
                break
            await asyncio.sleep(delay_s)
        return last
