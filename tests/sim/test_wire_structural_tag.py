"""Structural tags on the twin (SGLang 0.5.23's `response_format: {"type": "structural_tag", ...}` and /generate's
`sampling_params.structural_tag`), in xgrammar's format tree and in the legacy structures + triggers form: what
SGLang's features/test_structural_tag.py asks (a const string verbatim; a schema's JSON), and the format kinds
between them."""

from __future__ import annotations

import json
import random
import re

import httpx
import pytest

from console.sim.content.constrained import constrained_text, constraint_of

from .twin_process import FAST, MODEL, start_twin, stop_twin

pytestmark = pytest.mark.e2e

ARGS = MODEL + FAST + ["--mem-fraction-static", "0.96", "--sim-seed", "4"]
SCHEMA = {"type": "object", "properties": {"name": {"type": "string", "pattern": "^[\\w]+$"},
                                           "population": {"type": "integer"}},
          "required": ["name", "population"], "additionalProperties": False}
MESSAGES = [{"role": "system", "content": "You are a helpful AI assistant"},
            {"role": "user", "content": "Introduce the capital of France. Return in a JSON format."}]


@pytest.fixture(scope="module")
def twin(tmp_module):
    t = start_twin(ARGS, tmp_module)
    yield t
    stop_twin(t)


def chat(twin, fmt: dict, **extra) -> httpx.Response:
    return httpx.post(twin.url + "/v1/chat/completions", timeout=60,
                      json={"model": "m", "messages": MESSAGES, "temperature": 0, "max_tokens": 128,
                            "response_format": {"type": "structural_tag", **fmt}, **extra})


def test_const_string_is_written_verbatim(twin):
    answer = "The capital of France is Berlin."
    r = chat(twin, {"format": {"type": "const_string", "value": answer}})
    c = r.json()["choices"][0]
    assert c["message"]["content"] == answer and c["finish_reason"] == "stop"


def test_json_schema_format_writes_json_that_the_schema_admits(twin):
    for _ in range(3):
        text = chat(twin, {"format": {"type": "json_schema", "json_schema": SCHEMA}}).json()["choices"][0]
        v = json.loads(text["message"]["content"])
        assert re.fullmatch(r"\w+", v["name"]) and isinstance(v["population"], int) and set(v) == {"name", "population"}


def test_legacy_structures_and_triggers_write_the_tagged_call(twin):
    fmt = {"structures": [{"begin": "<function=get_weather>", "end": "</function>",
                           "schema": {"type": "object", "properties": {"city": {"type": "string"}},
                                      "required": ["city"]}}],
           "triggers": ["<function="]}
    text = chat(twin, fmt).json()["choices"][0]["message"]["content"]
    m = re.fullmatch(r"<function=get_weather>(.*)</function>", text, flags=re.S)
    assert m and isinstance(json.loads(m.group(1))["city"], str)


def test_generate_takes_the_structural_tag_as_a_json_string(twin):
    tag = {"type": "structural_tag", "format": {"type": "sequence", "elements": [
        {"type": "const_string", "value": "id="}, {"type": "regex", "pattern": "[0-9]{4}"}]}}
    r = httpx.post(twin.url + "/generate", timeout=60,
                   json={"text": "Give an id.", "sampling_params": {"max_new_tokens": 64, "temperature": 0,
                                                                   "structural_tag": json.dumps(tag)}})
    assert r.status_code == 200 and re.fullmatch(r"id=\d{4}", r.json()["text"]), r.text


def test_a_format_the_twin_cannot_write_is_refused_naming_it(twin):
    r = chat(twin, {"format": {"type": "token_dispatch", "rules": []}})
    assert r.status_code == 400 and "token_dispatch" in r.text
    r = chat(twin, {"format": {"type": "no_such_kind"}})
    assert r.status_code == 400 and "no_such_kind" in r.text


@pytest.mark.parametrize("fmt, pattern", [
    ({"type": "or", "elements": [{"type": "const_string", "value": "yes"}, {"type": "const_string", "value": "no"}]},
     r"yes|no"),
    ({"type": "tag", "begin": "<a>", "content": {"type": "grammar", "grammar": 'root ::= "x" | "y"'}, "end": "</a>"},
     r"<a>[xy]</a>"),
    ({"type": "tags_with_separator", "separator": ",", "tags": [
        {"type": "tag", "begin": "[", "content": {"type": "const_string", "value": "1"}, "end": "]"},
        {"type": "tag", "begin": "(", "content": {"type": "const_string", "value": "2"}, "end": ")"}]},
     r"\[1\],\(2\)"),
    ({"type": "triggered_tags", "triggers": ["<t"], "stop_after_first": True, "tags": [
        {"type": "tag", "begin": "<t1>", "content": {"type": "json_schema", "json_schema": {"type": "integer"}},
         "end": "</t1>"}]},
     r"<t1>-?\d+</t1>"),
])
def test_format_kinds(fmt, pattern):
    c = constraint_of({"response_format": {"type": "structural_tag", "format": fmt}})
    for seed in range(5):
        assert re.fullmatch(pattern, constrained_text(c, random.Random(seed)))


def test_a_triggered_tag_must_begin_with_a_trigger():
    with pytest.raises(ValueError, match="matches no trigger"):
        constraint_of({"response_format": {"type": "structural_tag", "format": {
            "type": "triggered_tags", "triggers": ["<x"],
            "tags": [{"type": "tag", "begin": "<y>", "content": {"type": "any_text"}, "end": "</y>"}]}}})
