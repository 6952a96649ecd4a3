"""Property tests of the profile loader (console/core/launch/profile.py): random TOML-ish documents — the real
schema's sections and fields with values of any TOML type, unknown sections and fields, nested tables — written
to a file and loaded either give a Profile or raise ProfileError whose message is one line naming the file and a
field (or section); never another exception."""

from __future__ import annotations

import datetime as dt
import math
import tempfile
import tomllib
from pathlib import Path


from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st

from console.core.launch.profile import _SCHEMA, Profile, ProfileError, load_profile, profile_from_dict

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
DIR = Path(tempfile.mkdtemp(prefix="profile-props-"))

FIELDS = {sec: list(keys) for sec, keys in _SCHEMA.items()}
BY_TYPE = {str: st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=10), int: st.integers(1, 8),
           bool: st.booleans(), list: st.lists(st.text(max_size=6), max_size=3),
           (float, int): st.floats(0.01, 99.0) | st.integers(1, 50)}
GOOD = {(sec, k): BY_TYPE[typ] for sec, ks in _SCHEMA.items() for k, (typ, _) in ks.items()}
GOOD.update({  # values near the edges of what validate() accepts, so that both outcomes come up
    ("engine", "python"): st.sampled_from(["sim", "python3", "/opt/sglang/bin/python"]),
    ("engine", "template"): st.lists(st.sampled_from(["ssh", "{host}", "{argv}", "{argv_shell}", "x"]), max_size=4),
    ("model", "path"): st.sampled_from(["moonshotai/Kimi-K2.6", "", "/models/k2"]),
    ("model", "tp"): st.integers(0, 8), ("model", "dp"): st.integers(0, 2), ("model", "nnodes"): st.integers(1, 2),
    ("model", "dist_init_addr"): st.sampled_from(["node-a:5000", ""]),
    ("drafter", "family"): st.sampled_from(["none", "eagle3", "dflash", "ngram", "medusa"]),
    ("drafter", "steps"): st.integers(0, 8), ("drafter", "topk"): st.integers(0, 4),
    ("drafter", "draft_tokens"): st.integers(0, 16),
    ("kv", "dtype"): st.sampled_from(["auto", "fp8_e4m3", "int3"]),
    ("kv", "mem_fraction_static"): st.floats(-0.5, 1.5) | st.sampled_from([math.nan, math.inf, 0.96]),
    ("server", "port"): st.integers(-5, 70000) | st.just(30000),
    ("server", "api_key_env"): st.just("SERVING_CONSOLE_TEST_KEY"),
})
scalar = (st.text(max_size=12) | st.integers(-(2**63), 2**63 - 1) | st.floats() | st.booleans()
          | st.dates() | st.datetimes() | st.times())
toml_value = st.recursive(scalar, lambda inner: st.lists(inner, max_size=3)
                          | st.dictionaries(st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=6),
                                           inner, max_size=3), max_leaves=6)
# keys without control characters (a key with a line break is tested on its own at the end)
key = st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=12)


@st.composite
def document(draw) -> dict:
    doc: dict = {}
    for sec, keys in FIELDS.items():
        if sec and draw(st.integers(0, 2)) != 0:
            continue
        table = doc if not sec else doc.setdefault(sec, {})
        for k in draw(st.lists(st.sampled_from(keys), unique=True, max_size=min(3, len(keys)))) if keys else []:
            # mostly a value of the right type, sometimes any TOML value
            table[k] = draw(toml_value) if draw(st.integers(0, 7)) == 0 else draw(GOOD[sec, k])
        if sec == "env":
            table.update(draw(st.dictionaries(key, st.text(max_size=5) | toml_value, max_size=2)))
    # the reference profile's required bits most of the time, so that valid ones are common
    if draw(st.integers(0, 3)):
        doc.setdefault("model", {}).setdefault("path", "moonshotai/Kimi-K2.6")
    if draw(st.integers(0, 9)) == 0:
        doc[draw(key)] = draw(toml_value)  # unknown top-level key or section
    if draw(st.integers(0, 9)) == 0 and doc:
        sec = draw(st.sampled_from(sorted(k for k, v in doc.items() if isinstance(v, dict)) or [""]))
        if sec:
            doc[sec][draw(key)] = draw(toml_value)  # unknown field in a known section
    return doc


def tstr(s: str) -> str:
    """A TOML basic string (control characters and DEL escaped)."""
    out = []
    for c in s:
        if c == '"' or c == "\\":
            out.append("\\" + c)
        elif c < " " or c == "\x7f":
            out.append(f"\\u{ord(c):04x}")
        else:
            out.append(c)
    return '"' + "".join(out) + '"'


def toml_key(k: str) -> str:
    return tstr(k)


def toml_val(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return "nan" if math.isnan(v) else ("inf" if v == math.inf else "-inf" if v == -math.inf else repr(v))
    if isinstance(v, str):
        return tstr(v)
    if isinstance(v, (dt.datetime, dt.date, dt.time)):
        return v.isoformat()
    if isinstance(v, list):
        return "[" + ", ".join(toml_val(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{toml_key(k)} = {toml_val(x)}" for k, x in v.items()) + "}"
    raise TypeError(type(v))


def to_toml(doc: dict) -> str:
    out = [f"{toml_key(k)} = {toml_val(v)}" for k, v in doc.items() if not isinstance(v, dict)]
    for k, v in doc.items():
        if isinstance(v, dict):
            out.append(f"[{toml_key(k)}]")
            out += [f"{toml_key(kk)} = {toml_val(vv)}" for kk, vv in v.items()]
    return "\n".join(out) + "\n"


def names_in(doc: dict) -> set[str]:
    """Every way a message may name a field or section of `doc` or of the schema."""
    out = {f"{s}.{k}" if s else k for s, ks in FIELDS.items() for k in ks}
    out |= {f"[{s}]" for s in FIELDS if s}
    for k, v in doc.items():
        out.add(k)
        out.add(f"[{k}]")
        if isinstance(v, dict):
            out |= {f"{k}.{kk}" for kk in v}
    return out


def check_error(e: ProfileError, where: str, doc: dict) -> None:
    """Every problem is one line that names the file and a field of the document; str(e) is those lines."""
    assert e.problems and str(e) == "\n".join(e.problems)
    for msg in e.problems:
        assert "\n" not in msg and "\r" not in msg, repr(msg)
        assert msg.startswith(where + ": "), msg
        assert any(n in msg for n in names_in(doc)) or "model.path is required" in msg, msg


@SETTINGS
@given(document(), st.integers(0, 10**6))
@example({"model": {"path": "m", "tp": True}}, 0)
@example({"server": {"port": 1.5}}, 1)
@example({"drafter": {"family": "eagle3", "model": "d", "steps": 6, "topk": 1, "draft_tokens": 5},
          "model": {"path": "m"}}, 2)
@example({"env": {"A": 1}, "model": {"path": "m"}}, 3)
@example({"kv": {"mem_fraction_static": math.nan}, "model": {"path": "m"}}, 4)
def test_a_random_profile_file_loads_or_fails_with_one_line_naming_file_and_field(doc, n):
    path = DIR / f"p{n}.toml"
    text = to_toml(doc)
    tomllib.loads(text)  # the generator writes valid TOML: a decode error here is the test's own bug
    path.write_text(text)
    try:
        prof = load_profile(path)
    except ProfileError as e:
        check_error(e, str(path), doc)
        event("ProfileError")
        return
    event("Profile")
    assert isinstance(prof, Profile)
    argv = prof.argv()  # a loaded profile compiles (a template may quote the engine argv into one item)
    assert any("--model-path" in a for a in argv)


@SETTINGS
@given(st.dictionaries(key, toml_value, max_size=4) | document())
def test_profile_from_dict_raises_only_profile_error(doc):
    try:
        profile_from_dict(doc, name="rand", path=DIR / "rand.toml")
    except ProfileError as e:
        check_error(e, str(DIR / "rand.toml"), doc)


def test_a_key_with_a_line_break_still_gives_a_one_line_error():
    path = DIR / "newline-key.toml"
    path.write_text('[model]\npath = "m"\n[anchor]\n"a\\nb" = 1\n')
    try:
        load_profile(path)
    except ProfileError as e:
        assert "\n" not in str(e), repr(str(e))
