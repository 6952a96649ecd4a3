"""The probes (requests sent identically to both servers) and the shape of an answer: status, JSON key/type
structure, SSE event kinds in order, metric family names. Never generated text or timing values."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

import httpx

M = "<MODEL>"  # replaced by each server's own served model name (from /v1/models)


@dataclass
class Probe:
    name: str
    method: str
    path: str
    body: object = None
    stream: bool = False
    headers: dict = field(default_factory=dict)
    raw: bytes | None = None
    message: bool = False  # compare the error message text too


CHAT = "/v1/chat/completions"
HI = [{"role": "user", "content": "Say hi."}]
PROBES = [
    Probe("v1_models", "GET", "/v1/models"),
    Probe("health", "GET", "/health"),
    Probe("not_found", "GET", "/no_such_route"),
    Probe("chat", "POST", CHAT, {"model": M, "messages": HI, "max_tokens": 6}),
    Probe("chat_stream", "POST", CHAT, {"model": M, "messages": HI, "max_tokens": 6, "stream": True,
                                        "stream_options": {"include_usage": True}}, stream=True),
    Probe("generate", "POST", "/generate", {"text": "Hello", "sampling_params": {"max_new_tokens": 6}}),
    Probe("generate_stream", "POST", "/generate", {"text": "Hello", "stream": True,
                                                   "sampling_params": {"max_new_tokens": 6}}, stream=True),
    # no length limit: both stop at EOS (the twin's length model; it ran to the context limit before); greedy, so
    # the real model's answer is short and the same every run
    Probe("chat_no_max_tokens", "POST", CHAT, {"model": M, "messages": HI, "temperature": 0}),
    Probe("chat_return_meta_info", "POST", CHAT, {"model": M, "messages": HI, "max_tokens": 4,
                                                  "return_meta_info": True}),
    Probe("err_chat_return_meta_info_stream", "POST", CHAT, {"model": M, "messages": HI, "max_tokens": 4,
                                                             "return_meta_info": True, "stream": True}, message=True),
    Probe("completions", "POST", "/v1/completions", {"model": M, "prompt": "Hello", "max_tokens": 6}),
    Probe("completions_stream", "POST", "/v1/completions", {"model": M, "prompt": "Hello", "max_tokens": 4,
                                                           "stream": True, "stream_options": {"include_usage": True}},
          stream=True),
    Probe("completions_batch_logprobs", "POST", "/v1/completions", {"model": M, "prompt": ["Hello", "Hi"],
                                                                   "max_tokens": 3, "n": 2, "logprobs": 2}),
    Probe("completions_ids_echo", "POST", "/v1/completions", {"model": M, "prompt": [[1, 2, 3]], "max_tokens": 2,
                                                             "echo": True}),
    Probe("completions_stream_logprobs", "POST", "/v1/completions", {"model": M, "prompt": "Hello", "max_tokens": 3,
                                                                    "stream": True, "logprobs": 1, "n": 2},
          stream=True),
    Probe("err_bad_json", "POST", CHAT, raw=b"{not json", headers={"Content-Type": "application/json"},
          message=True),
    Probe("err_no_messages", "POST", CHAT, {"model": M, "max_tokens": 6}, message=True),
    Probe("err_top_p_zero", "POST", CHAT, {"model": M, "messages": HI, "max_tokens": 6, "top_p": 0},
          message=True),
    Probe("n2", "POST", CHAT, {"model": M, "messages": HI, "max_tokens": 4, "n": 2}),
    Probe("logprobs", "POST", CHAT, {"model": M, "messages": HI, "max_tokens": 4, "logprobs": True,
                                     "top_logprobs": 2}),
    Probe("logprobs_n2_no_top", "POST", CHAT, {"model": M, "messages": HI, "max_tokens": 3, "logprobs": True,
                                               "n": 2}),
    Probe("logprobs_stream", "POST", CHAT, {"model": M, "messages": HI, "max_tokens": 3, "logprobs": True,
                                            "top_logprobs": 2, "stream": True}, stream=True),
    Probe("n2_stream", "POST", CHAT, {"model": M, "messages": HI, "max_tokens": 3, "n": 2, "stream": True,
                                      "stream_options": {"include_usage": True}}, stream=True),
    # cut short on both (SmolLM2 writes long indented JSON): the shape of an unfinished constrained answer
    Probe("json_object", "POST", CHAT, {"model": M, "messages": [{"role": "user", "content": "A JSON object."}],
                                        "max_tokens": 4, "response_format": {"type": "json_object"}}),
    Probe("json_schema", "POST", CHAT, {"model": M, "messages": [{"role": "user", "content": "Is the sky blue? "
                                                                                            "Answer in JSON."}],
                                        "max_tokens": 40, "response_format": {"type": "json_schema", "json_schema": {
                                            "name": "answer", "schema": {
                                                "type": "object", "properties": {"ok": {"type": "boolean"}},
                                                "required": ["ok"], "additionalProperties": False}}}}),
    Probe("completions_logprobs_zero", "POST", "/v1/completions", {"model": M, "prompt": "Hello", "max_tokens": 2,
                                                                  "logprobs": 0}),
    Probe("regex", "POST", CHAT, {"model": M, "messages": HI, "max_tokens": 12, "regex": "(yes|no)[.!]"}),
    Probe("stop_regex", "POST", CHAT, {"model": M, "messages": HI, "max_tokens": 12, "stop_regex": "[a-z]"}),
    Probe("stop_regex_stream", "POST", CHAT, {"model": M, "messages": HI, "max_tokens": 12, "stop_regex": "[a-z]",
                                              "stream": True}, stream=True),
    Probe("err_unknown_role", "POST", CHAT, {"model": M, "messages": [{"role": "wizard", "content": "hi"}],
                                             "max_tokens": 4}),
    Probe("err_text_plain", "POST", CHAT, raw=b'{"messages": [{"role": "user", "content": "hi"}]}',
          headers={"Content-Type": "text/plain"}, message=True),
    Probe("err_model_colon", "POST", CHAT, {"model": "a:b", "messages": HI, "max_tokens": 4}, message=True),
    # after the traffic: some of SGLang's metric families appear only once a request has been served
    Probe("server_info", "GET", "/server_info"),
    Probe("model_info", "GET", "/model_info"),
    Probe("metrics", "GET", "/metrics"),
]


def _token_map(v) -> bool:
    """A legacy completions `top_logprobs` entry: {token text: logprob} (its keys are generated text)."""
    return isinstance(v, dict) and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in v.values())


def shape(v, key: str | None = None):
    """The structure of a JSON value: dicts keep their keys, lists the union of their items' shapes, scalars
    their type name. A completions `top_logprobs` map keeps only its kind (its keys are tokens of text)."""
    if key == "top_logprobs" and isinstance(v, list) and v and all(_token_map(x) for x in v):
        return ["dict", {"<token>": "number"}]
    if isinstance(v, dict):
        return {k: shape(x, k) for k, x in v.items()}
    if isinstance(v, list):
        merged: dict = {}
        kinds = set()
        for x in v:
            s = shape(x)
            if isinstance(s, dict):
                merged.update(s)
                kinds.add("dict")
            else:
                kinds.add(json.dumps(s, sort_keys=True))
        return ["dict" if not kinds - {"dict"} and merged else "|".join(sorted(kinds)), merged]
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, (int, float)):
        return "number"
    return type(v).__name__


def shape_diff(a, b, path: str = "$") -> list[str]:
    """Differences between two shapes (a = real, b = twin), as stable strings."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for k in sorted(set(a) - set(b)):
            out.append(f"{path}.{k}: only real")
        for k in sorted(set(b) - set(a)):
            out.append(f"{path}.{k}: only twin")
        for k in sorted(set(a) & set(b)):
            out += shape_diff(a[k], b[k], f"{path}.{k}")
        return out
    if isinstance(a, list) and isinstance(b, list):
        return shape_diff(a[1], b[1], path + "[]") + ([] if a[0] == b[0] or not (a[0] and b[0])
                                                     else [f"{path}[]: items real={a[0]} twin={b[0]}"])
    if a != b:
        ta = "dict" if isinstance(a, dict) else "list" if isinstance(a, list) else a
        tb = "dict" if isinstance(b, dict) else "list" if isinstance(b, list) else b
        return [f"{path}: type real={ta} twin={tb}"]
    return []


def chunk_kind(ev: dict) -> str:
    """An OpenAI chat chunk's kind: role / content / finish / usage (several may hold; joined)."""
    kinds = []
    for c in ev.get("choices") or []:
        d = c.get("delta") or {}
        if d.get("role"):
            kinds.append("role")
        if d.get("content"):
            kinds.append("content")
        if c.get("finish_reason"):
            kinds.append("finish")
    if ev.get("usage") and not ev.get("choices"):
        kinds.append("usage")
    return "+".join(kinds) or "empty"


def collapse(seq: list[str]) -> list[str]:
    """Runs of the same kind collapsed to one (the number of content chunks is not compared)."""
    out: list[str] = []
    for s in seq:
        if not out or out[-1] != s:
            out.append(s)
    return out


def metric_families(text: str) -> set[str]:
    return {m.group(1) for m in re.finditer(r"^# TYPE (\S+) ", text, re.MULTILINE)}


@dataclass
class Answer:
    status: int
    content_type: str
    body: object  # JSON, or text
    events: list | None = None  # SSE payloads (JSON or "[DONE]")


def send(client: httpx.Client, base: str, model: str, p: Probe) -> Answer:
    body = json.loads(json.dumps(p.body).replace(json.dumps(M), json.dumps(model))) if p.body is not None else None
    kw = {"headers": p.headers}
    if p.raw is not None:
        kw["content"] = p.raw
    elif body is not None:
        kw["json"] = body
    r = client.request(p.method, base + p.path, **kw)
    ct = r.headers.get("content-type", "").split(";")[0]
    if p.stream and r.status_code == 200:
        events = []
        for block in r.text.split("\n\n"):
            if block.startswith("data: "):
                data = block[len("data: "):]
                events.append(data if data.strip() == "[DONE]" else json.loads(data))
        return Answer(r.status_code, ct, None, events)
    try:
        parsed = r.json()
    except ValueError:
        parsed = r.text
    return Answer(r.status_code, ct, parsed)


def compare(p: Probe, real: Answer, twin: Answer) -> list[str]:
    """Every difference between the two answers, each as `probe: what`."""
    out = []
    if real.status != twin.status:
        out.append(f"status real={real.status} twin={twin.status}")
        return [f"{p.name}: {d}" for d in out]
    if real.content_type != twin.content_type:
        out.append(f"content-type real={real.content_type} twin={twin.content_type}")
    if p.name == "metrics":
        fr, ft = metric_families(real.body), metric_families(twin.body)
        out += [f"family {f}: only real" for f in sorted(fr - ft)]
        out += [f"family {f}: only twin" for f in sorted(ft - fr)]
    elif p.name in ("server_info", "model_info"):
        kr, kt = set(real.body), set(twin.body)
        out += [f"key {k}: only real" for k in sorted(kr - kt)]
        out += [f"key {k}: only twin" for k in sorted(kt - kr)]
    elif real.events is not None:
        done_r = [e for e in real.events if e == "[DONE]"]
        done_t = [e for e in twin.events if e == "[DONE]"]
        er = [e for e in real.events if e != "[DONE]"]
        et = [e for e in twin.events if e != "[DONE]"]
        if (real.events[-1:] == ["[DONE]"]) != (twin.events[-1:] == ["[DONE]"]) or len(done_r) != len(done_t):
            out.append("[DONE] terminator differs")
        if "choices" in (er[0] if er else {}):
            kr, kt = collapse([chunk_kind(e) for e in er]), collapse([chunk_kind(e) for e in et])
            if kr != kt:
                out.append(f"event kinds real={kr} twin={kt}")
            by_r: dict = {}
            by_t: dict = {}
            for e in er:
                by_r.setdefault(chunk_kind(e), []).append(e)
            for e in et:
                by_t.setdefault(chunk_kind(e), []).append(e)
            for k in sorted(set(by_r) & set(by_t)):
                out += [f"chunk[{k}] {d}" for d in shape_diff(shape(by_r[k]), shape(by_t[k]))]
        else:
            out += [f"event {d}" for d in shape_diff(shape(er), shape(et))]
    else:
        out += [f"body {d}" for d in shape_diff(shape(real.body), shape(twin.body))]
        if p.message and real.status >= 400:
            mr, mt = _message(real.body), _message(twin.body)
            if mr != mt:
                out.append("message differs")
    return [f"{p.name}: {d}" for d in out]


def _message(b) -> str:
    if isinstance(b, dict):
        if isinstance(b.get("message"), str):
            return b["message"]
        if isinstance(b.get("error"), dict):
            return str(b["error"].get("message"))
        if "detail" in b:
            return json.dumps(b["detail"], sort_keys=True)
    return str(b)
