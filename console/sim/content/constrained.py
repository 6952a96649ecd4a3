"""Constrained decoding on the twin: text that a grammar admits, drawn from a seeded generator.

SGLang compiles `regex`, `json_schema` (and `response_format` json_object / json_schema, which become a JSON
schema: `{"type": "object"}` for json_object) into a grammar and masks every token the grammar refuses; when the
grammar is complete the only token left is EOS. The twin draws one string the grammar admits and decodes it token
by token, then EOS (finish_reason stop, matched_stop = the EOS id, as the real server reports a completed regex).

- `regex_sample`: a string in the language of a Python regex (parsed with `re`'s own parser): literals, classes,
  categories (\\d \\w \\s), `.`, alternation, groups, bounded and unbounded repeats (unbounded ones take a few),
  anchors (ignored). Backreferences and lookarounds are refused (ValueError).
- `schema_sample`: a JSON value valid against a JSON schema subset: type (or a list of types), properties and
  required (plus a seeded share of the optional properties), items, minItems/maxItems, enum, const, anyOf/oneOf/
  allOf (first branch / merged), minimum/maximum (and exclusive ones), minLength/maxLength, pattern, format
  (date, date-time, email, uri, uuid), $ref into $defs/definitions.
- `ebnf_sample`: a string an EBNF (GBNF, as xgrammar reads `ebnf`) grammar's root derives: quoted literals with
  escapes, character classes (ranges, negation), rule references, groups, `|`, `* + ?` and `{m,n}`; recursion is
  bounded by taking the alternative with the fewest references deep down.
- `schema_errors`: the same subset as a validator (tests check samples with it; it is not SGLang's validator).
"""

from __future__ import annotations

import json
import random
import re
from typing import Any

try:  # Python 3.11+: the parser behind re.compile
    import re._constants as _sre_c  # type: ignore[import-not-found]  # private module, not in typeshed
    import re._parser as _sre_parse  # type: ignore[import-not-found]  # private module, not in typeshed
except ImportError:  # pragma: no cover
    import sre_constants as _sre_c
    import sre_parse as _sre_parse

_WORDS = ("alpha", "delta", "orbit", "cedar", "ember", "harbor", "lumen", "meadow", "nova", "pixel", "quartz",
          "river", "summit", "tundra", "violet", "willow", "zephyr", "amber", "beacon", "canyon")
_LOWER = "abcdefghijklmnopqrstuvwxyz"
_WORD_CHARS = _LOWER + _LOWER.upper() + "0123456789_"
_PRINTABLE = _WORD_CHARS + " .,-"
#: unbounded repeats (*, +, {n,}) take at most this many more than their minimum
_OPEN_REPEAT = 3


# ------------------------------------------------------------------------------------------------- regex


def regex_sample(pattern: str, rng: random.Random) -> str:
    """A string that `re.fullmatch(pattern, s)` accepts (ValueError for what the twin cannot sample)."""
    try:
        parsed = _sre_parse.parse(pattern)
    except re.error as e:
        raise ValueError(f"invalid regex {pattern!r}: {e}") from None
    return _emit(parsed, rng)


def _class_chars(items: list[tuple[Any, Any]]) -> list[str]:
    chars: list[str] = []
    negate = False
    for op, av in items:
        if op is _sre_c.NEGATE:
            negate = True
        elif op is _sre_c.LITERAL:
            chars.append(chr(av))
        elif op is _sre_c.RANGE:
            lo, hi = av
            chars.extend(chr(c) for c in range(lo, min(hi, lo + 200) + 1))
        elif op is _sre_c.CATEGORY:
            chars.extend(_category(av))
    if negate:
        banned = set(chars)
        chars = [c for c in _PRINTABLE if c not in banned]
    return chars


def _category(cat: Any) -> str:
    name = str(cat)
    if "NOT_DIGIT" in name:
        return _LOWER
    if "DIGIT" in name:
        return "0123456789"
    if "NOT_WORD" in name:
        return " .,-"
    if "WORD" in name:
        return _WORD_CHARS
    if "NOT_SPACE" in name:
        return _LOWER
    if "SPACE" in name:
        return " "
    return _LOWER


def _digit_class(parsed: Any) -> bool:
    """A repeat body that is one digit (\\d, [0-9], [\\d])."""
    items = list(parsed)
    if len(items) != 1:
        return False
    op, av = items[0]
    if op is _sre_c.IN:
        chars = _class_chars(av)
        return bool(chars) and set(chars) <= set("0123456789")
    return op is _sre_c.CATEGORY and "DIGIT" in str(av) and "NOT" not in str(av)


def _emit(parsed: Any, rng: random.Random) -> str:
    out: list[str] = []
    for op, av in parsed:
        if op is _sre_c.LITERAL:
            out.append(chr(av))
        elif op is _sre_c.NOT_LITERAL:
            out.append(rng.choice([c for c in _PRINTABLE if c != chr(av)]))
        elif op is _sre_c.ANY:
            out.append(rng.choice(_LOWER))
        elif op is _sre_c.IN:
            chars = _class_chars(av)
            if not chars:
                raise ValueError("empty character class")
            out.append(rng.choice(chars))
        elif op is _sre_c.BRANCH:
            out.append(_emit(rng.choice(av[1]), rng))
        elif op is _sre_c.SUBPATTERN:
            out.append(_emit(av[-1], rng))
        elif op in (_sre_c.MAX_REPEAT, _sre_c.MIN_REPEAT, getattr(_sre_c, "POSSESSIVE_REPEAT", None)):
            lo, hi, sub = av
            top = lo + _OPEN_REPEAT if hi is _sre_c.MAXREPEAT or hi > lo + _OPEN_REPEAT else hi
            count = rng.randint(lo, max(lo, top))
            digits = _digit_class(sub)
            for k in range(count):
                piece = _emit(sub, rng)
                if digits and k == 0 and count > 1 and piece == "0":  # a number, as a model writes it: no leading 0
                    piece = rng.choice("123456789")
                out.append(piece)
        elif op is _sre_c.AT:
            continue
        elif op is _sre_c.CATEGORY:
            out.append(rng.choice(_category(av)))
        elif op is getattr(_sre_c, "ATOMIC_GROUP", None):
            out.append(_emit(av, rng))
        else:
            raise ValueError(f"regex construct {op} is not supported by the engine twin")
    return "".join(out)


# ------------------------------------------------------------------------------------------------- EBNF

_EBNF_TOKEN = re.compile(r"""\s*(?:(?P<str>"(?:[^"\\]|\\.)*")|(?P<cls>\[(?:[^\]\\]|\\.)*\])|(?P<name>[A-Za-z_][\w-]*)"""
                         r"""|(?P<op>[()|*+?])|(?P<rep>\{\s*\d+\s*(?:,\s*\d*\s*)?\}))""")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"', "]": "]", "[": "[", "-": "-", "^": "^"}


def _unescape(body: str) -> str:
    out, i = [], 0
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body):
            out.append(_ESCAPES.get(body[i + 1], body[i + 1]))
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


def parse_ebnf(grammar: str) -> dict[str, Any]:
    """GBNF rules (`name ::= expr`, continued on following lines) as {name: expression tree}; ValueError with
    where it breaks. Trees: ("seq", [...]), ("alt", [...]), ("lit", text), ("cls", chars), ("ref", name),
    ("rep", node, lo, hi)."""
    rules: dict[str, str] = {}
    current = None
    for line in grammar.splitlines():
        code = line.split("#", 1)[0] if '"' not in line else line
        if "::=" in code:
            name, expr = code.split("::=", 1)
            current = name.strip()
            rules[current] = expr
        elif code.strip():
            if current is None:
                raise ValueError(f"EBNF line outside a rule: {line.strip()!r}")
            rules[current] += " " + code
    if "root" not in rules:
        raise ValueError("EBNF grammar has no root rule")
    return {name: _parse_expr(expr, name) for name, expr in rules.items()}


def _parse_expr(text: str, rule: str) -> Any:
    toks, pos = [], 0
    while pos < len(text):
        if not text[pos:].strip():
            break
        m = _EBNF_TOKEN.match(text, pos)
        if m is None:
            raise ValueError(f"EBNF rule {rule!r}: cannot read {text[pos:].strip()[:20]!r}")
        assert m.lastgroup is not None  # every alternative of _EBNF_TOKEN is a named group
        toks.append((m.lastgroup, m.group(m.lastgroup)))
        pos = m.end()
    node, i = _alt(toks, 0, rule)
    if i != len(toks):
        raise ValueError(f"EBNF rule {rule!r}: unexpected {toks[i][1]!r}")
    return node


def _alt(toks: list[tuple[str, str]], i: int, rule: str) -> tuple[Any, int]:
    branches = []
    seq, i = _seq(toks, i, rule)
    branches.append(seq)
    while i < len(toks) and toks[i] == ("op", "|"):
        seq, i = _seq(toks, i + 1, rule)
        branches.append(seq)
    return (branches[0] if len(branches) == 1 else ("alt", branches)), i


def _seq(toks: list[tuple[str, str]], i: int, rule: str) -> tuple[Any, int]:
    items = []
    while i < len(toks) and toks[i] not in (("op", "|"), ("op", ")")):
        kind, val = toks[i]
        if kind == "str":
            node: Any = ("lit", _unescape(val[1:-1]))
            i += 1
        elif kind == "cls":
            node, i = ("cls", _ebnf_class(val[1:-1])), i + 1
        elif kind == "name":
            node, i = ("ref", val), i + 1
        elif (kind, val) == ("op", "("):
            node, i = _alt(toks, i + 1, rule)
            if i >= len(toks) or toks[i] != ("op", ")"):
                raise ValueError(f"EBNF rule {rule!r}: unclosed (")
            i += 1
        else:
            raise ValueError(f"EBNF rule {rule!r}: unexpected {val!r}")
        while i < len(toks) and (toks[i][0] == "rep" or toks[i][1] in ("*", "+", "?")):
            kind, val = toks[i]
            if kind == "rep":
                lo_s, _, hi_s = val.strip("{} ").partition(",")
                lo = int(lo_s)
                hi = lo if "," not in val else (int(hi_s) if hi_s.strip() else None)
            else:
                lo, hi = {"*": (0, None), "+": (1, None), "?": (0, 1)}[val]
            node = ("rep", node, lo, hi)
            i += 1
        items.append(node)
    return ("seq", items), i


def _ebnf_class(body: str) -> list[str]:
    negate = body.startswith("^")
    body = body[1:] if negate else body
    chars: list[str] = []
    raw = []
    i = 0
    while i < len(body):
        if body[i] == "\\" and i + 1 < len(body):
            raw.append(_ESCAPES.get(body[i + 1], body[i + 1]))
            i += 2
        else:
            raw.append(body[i])
            i += 1
    j = 0
    while j < len(raw):
        if j + 2 < len(raw) and raw[j + 1] == "-":
            chars.extend(chr(c) for c in range(ord(raw[j]), min(ord(raw[j + 2]), ord(raw[j]) + 200) + 1))
            j += 3
        else:
            chars.append(raw[j])
            j += 1
    if negate:
        banned = set(chars)
        chars = [c for c in _PRINTABLE if c not in banned]
    return chars


def ebnf_sample(grammar: str, rng: random.Random) -> str:
    """A string the grammar's root rule derives (recursion bounded: deep down, the alternative with the fewest rule
    references is taken and repeats stop at their minimum)."""
    rules = parse_ebnf(grammar)

    def refs(node: Any) -> int:
        kind = node[0]
        if kind == "ref":
            return 1
        if kind in ("seq", "alt"):
            return sum(refs(n) for n in node[1])
        if kind == "rep":
            return refs(node[1])
        return 0

    def emit(node: Any, depth: int) -> str:
        kind = node[0]
        if kind == "lit":
            return node[1]
        if kind == "cls":
            return rng.choice(node[1]) if node[1] else ""
        if kind == "ref":
            if node[1] not in rules:
                raise ValueError(f"EBNF rule {node[1]!r} is not defined")
            if depth > 60:
                raise ValueError("EBNF grammar recursion too deep to sample")
            return emit(rules[node[1]], depth + 1)
        if kind == "seq":
            return "".join(emit(n, depth) for n in node[1])
        if kind == "alt":
            options = node[1]
            if depth > 12:
                options = [min(options, key=refs)]
            return emit(rng.choice(options), depth)
        _, sub, lo, hi = node
        top = lo if depth > 12 else (lo + _OPEN_REPEAT if hi is None else min(hi, lo + _OPEN_REPEAT))
        return "".join(emit(sub, depth) for _ in range(rng.randint(lo, max(lo, top))))

    return emit(rules["root"], 0)


# ------------------------------------------------------------------------------------------------- JSON schema


def _resolve(schema: Any, root: dict[str, Any]) -> Any:
    while isinstance(schema, dict) and isinstance(schema.get("$ref"), str):
        ref = schema["$ref"]
        if not ref.startswith("#/"):
            return {}
        node: Any = root
        for part in ref[2:].split("/"):
            node = node.get(part, {}) if isinstance(node, dict) else {}
        schema = node
    return schema


def _types(schema: dict[str, Any]) -> list[str]:
    t = schema.get("type")
    if isinstance(t, list):
        return [str(x) for x in t] or ["string"]
    if isinstance(t, str):
        return [t]
    if "properties" in schema or "required" in schema:
        return ["object"]
    if "items" in schema:
        return ["array"]
    return ["string"]


def _string(schema: dict[str, Any], rng: random.Random) -> str:
    fmt = schema.get("format")
    if fmt == "date":
        return f"2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
    if fmt == "date-time":
        return f"2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T{rng.randint(0, 23):02d}:00:00Z"
    if fmt == "email":
        return f"{rng.choice(_WORDS)}@example.com"
    if fmt in ("uri", "url"):
        return f"https://example.com/{rng.choice(_WORDS)}"
    if fmt == "uuid":
        return (f"{rng.getrandbits(32):08x}-{rng.getrandbits(16):04x}-4{rng.getrandbits(12):03x}-"
                f"8{rng.getrandbits(12):03x}-{rng.getrandbits(48):012x}")
    if isinstance(schema.get("pattern"), str):
        try:
            return regex_sample(schema["pattern"], rng)
        except ValueError:
            pass
    lo = int(schema.get("minLength", 0) or 0)
    hi = schema.get("maxLength")
    s = " ".join(rng.choice(_WORDS) for _ in range(rng.randint(1, 3)))
    while len(s) < lo:
        s += " " + rng.choice(_WORDS)
    if isinstance(hi, int):
        s = s[:max(hi, 0)]
    return s


def _number(schema: dict[str, Any], rng: random.Random, integer: bool) -> int | float:
    lo = schema.get("minimum", schema.get("exclusiveMinimum"))
    hi = schema.get("maximum", schema.get("exclusiveMaximum"))
    lo = 0 if not isinstance(lo, (int, float)) else lo
    hi = (lo + 100) if not isinstance(hi, (int, float)) else hi
    if isinstance(schema.get("exclusiveMinimum"), (int, float)) and not isinstance(schema.get("minimum"),
                                                                                    (int, float)):
        lo = lo + (1 if integer else 1e-6)
    if isinstance(schema.get("exclusiveMaximum"), (int, float)) and not isinstance(schema.get("maximum"),
                                                                                    (int, float)):
        hi = hi - (1 if integer else 1e-6)
    if integer:
        import math
        a, b = math.ceil(lo), math.floor(hi)
        return rng.randint(a, max(a, b))
    return round(rng.uniform(lo, max(lo, hi)), 2)


def schema_sample(schema: Any, rng: random.Random, root: dict[str, Any] | None = None, depth: int = 0) -> Any:
    """A JSON value valid against `schema` (the subset in the module docstring)."""
    root = root if root is not None else (schema if isinstance(schema, dict) else {})
    schema = _resolve(schema, root)
    if schema is True or not isinstance(schema, dict):
        return rng.choice(_WORDS)
    if "const" in schema:
        return schema["const"]
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return rng.choice(schema["enum"])
    for key in ("anyOf", "oneOf"):
        if isinstance(schema.get(key), list) and schema[key]:
            return schema_sample(schema[key][0], rng, root, depth + 1)
    if isinstance(schema.get("allOf"), list) and schema["allOf"]:
        merged: dict[str, Any] = {}
        for part in schema["allOf"]:
            part = _resolve(part, root)
            if isinstance(part, dict):
                for k, v in part.items():
                    if k in ("properties",) and isinstance(v, dict):
                        merged.setdefault("properties", {}).update(v)
                    elif k == "required" and isinstance(v, list):
                        merged.setdefault("required", []).extend(v)
                    else:
                        merged[k] = v
        return schema_sample(merged, rng, root, depth + 1)
    kind = _types(schema)[0]
    if kind == "object":
        props = schema["properties"] if isinstance(schema.get("properties"), dict) else {}
        required = [k for k in schema.get("required", []) if isinstance(k, str)]
        out: dict[str, Any] = {}
        for k, sub in props.items():
            if k in required or (depth < 3 and rng.random() < 0.5):
                out[k] = schema_sample(sub, rng, root, depth + 1)
        for k in required:
            if k not in out:
                out[k] = rng.choice(_WORDS)
        if not props and not required:  # a free object (json_object): a few plain fields
            for _ in range(rng.randint(2, 4)):
                key = rng.choice(_WORDS)
                out[key] = rng.choice([rng.choice(_WORDS), rng.randint(0, 999), rng.random() < 0.5])
        return out
    if kind == "array":
        lo = int(schema.get("minItems", 0) or 0)
        hi = schema.get("maxItems")
        hi = lo + 3 if not isinstance(hi, int) else hi
        n = rng.randint(max(lo, min(1, hi)), max(lo, min(hi, lo + 3)))
        items = schema.get("items", {})
        if isinstance(items, list):  # tuple form
            return [schema_sample(s, rng, root, depth + 1) for s in items]
        return [schema_sample(items, rng, root, depth + 1) for _ in range(n)]
    if kind == "integer":
        return _number(schema, rng, True)
    if kind == "number":
        return _number(schema, rng, False)
    if kind == "boolean":
        return rng.random() < 0.5
    if kind == "null":
        return None
    return _string(schema, rng)


def schema_errors(value: Any, schema: Any, root: dict[str, Any] | None = None, path: str = "$") -> list[str]:
    """Where `value` breaks `schema` (the subset above), as `path: what`; empty when it validates."""
    root = root if root is not None else (schema if isinstance(schema, dict) else {})
    schema = _resolve(schema, root)
    if schema is True or not isinstance(schema, dict) or not schema:
        return []
    if "const" in schema and value != schema["const"]:
        return [f"{path}: not the const"]
    if isinstance(schema.get("enum"), list) and value not in schema["enum"]:
        return [f"{path}: not in enum"]
    for key in ("anyOf", "oneOf"):
        if isinstance(schema.get(key), list) and schema[key]:
            if all(schema_errors(value, s, root, path) for s in schema[key]):
                return [f"{path}: matches no {key} branch"]
    if isinstance(schema.get("allOf"), list):
        errs: list[str] = [e for s in schema["allOf"] for e in schema_errors(value, s, root, path)]
        if errs:
            return errs
    if "type" not in schema and not ({"properties", "required", "items"} & set(schema)):
        return []
    kinds = _types(schema)
    checks = {"object": lambda v: isinstance(v, dict), "array": lambda v: isinstance(v, list),
              "string": lambda v: isinstance(v, str), "boolean": lambda v: isinstance(v, bool),
              "null": lambda v: v is None,
              "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
              "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool)}
    if not any(checks.get(k, lambda v: True)(value) for k in kinds):
        return [f"{path}: not of type {'/'.join(kinds)}"]
    errs = []
    if isinstance(value, dict):
        for k in schema.get("required", []):
            if k not in value:
                errs.append(f"{path}: missing required {k!r}")
        props = schema["properties"] if isinstance(schema.get("properties"), dict) else {}
        for k, v in value.items():
            if k in props:
                errs += schema_errors(v, props[k], root, f"{path}.{k}")
            elif schema.get("additionalProperties") is False:
                errs.append(f"{path}: unexpected property {k!r}")
    elif isinstance(value, list):
        if isinstance(schema.get("minItems"), int) and len(value) < schema["minItems"]:
            errs.append(f"{path}: fewer than minItems")
        if isinstance(schema.get("maxItems"), int) and len(value) > schema["maxItems"]:
            errs.append(f"{path}: more than maxItems")
        items = schema.get("items")
        if isinstance(items, dict):
            for i, v in enumerate(value):
                errs += schema_errors(v, items, root, f"{path}[{i}]")
    elif isinstance(value, str):
        if isinstance(schema.get("minLength"), int) and len(value) < schema["minLength"]:
            errs.append(f"{path}: shorter than minLength")
        if isinstance(schema.get("maxLength"), int) and len(value) > schema["maxLength"]:
            errs.append(f"{path}: longer than maxLength")
        if isinstance(schema.get("pattern"), str) and not re.search(schema["pattern"], value):
            errs.append(f"{path}: does not match pattern")
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        if isinstance(schema.get("minimum"), (int, float)) and value < schema["minimum"]:
            errs.append(f"{path}: below minimum")
        if isinstance(schema.get("maximum"), (int, float)) and value > schema["maximum"]:
            errs.append(f"{path}: above maximum")
        if isinstance(schema.get("exclusiveMinimum"), (int, float)) and value <= schema["exclusiveMinimum"]:
            errs.append(f"{path}: not above exclusiveMinimum")
        if isinstance(schema.get("exclusiveMaximum"), (int, float)) and value >= schema["exclusiveMaximum"]:
            errs.append(f"{path}: not below exclusiveMaximum")
    return errs


# ------------------------------------------------------------------------------------------- structural tags

#: short sentences for `any_text` (free text between or around tags); no real model writes here
_ANY_TEXT = ("Here is the result.", "Let me check that.", "The answer follows.", "Sure.", "Done.")
#: xgrammar formats whose output is token-level or model-specific: refused with a line naming them
_NOT_MODELLED = ("token", "exclude_token", "any_tokens", "token_triggered_tags", "dispatch", "token_dispatch",
                 "qwen_xml_parameter")


def structural_format(spec: Any) -> dict[str, Any]:
    """The `format` of a structural tag (xgrammar's StructuralTag, SGLang 0.5.23's response_format
    `{"type": "structural_tag", "format": {...}}`), the legacy `{"structures": [...], "triggers": [...]}` turned into
    the `triggered_tags` format it stands for (xgrammar's from_legacy_structural_tag). ValueError for neither."""
    if not isinstance(spec, dict):
        raise ValueError("structural_tag must be a JSON object")
    if isinstance(spec.get("format"), dict):
        return spec["format"]
    if isinstance(spec.get("structures"), list) and isinstance(spec.get("triggers"), list):
        tags = [{"type": "tag", "begin": st.get("begin", ""), "end": st.get("end", ""),
                 "content": {"type": "json_schema", "json_schema": st.get("schema", {})}}
                for st in spec["structures"] if isinstance(st, dict)]
        return {"type": "triggered_tags", "triggers": spec["triggers"], "tags": tags}
    raise ValueError("structural_tag needs a 'format' object (or the legacy 'structures' and 'triggers' lists)")


def structural_sample(fmt: Any, rng: random.Random, depth: int = 0) -> str:
    """Text that a structural-tag format admits: each format as xgrammar's grammar would let a model write it
    (const strings verbatim, a schema's JSON, a grammar's or regex's sample, one of `or`'s choices, tags as
    begin + content + end, triggered tags as one tag each)."""
    if not isinstance(fmt, dict) or not isinstance(fmt.get("type"), str):
        raise ValueError("structural_tag: every format needs a 'type'")
    kind = fmt["type"]
    if depth > 32:
        raise ValueError("structural_tag: formats nested more than 32 deep")

    def sub(f: Any) -> str:
        return structural_sample(f, rng, depth + 1)

    def tag(t: Any) -> str:
        if not isinstance(t, dict) or not isinstance(t.get("begin"), str):
            raise ValueError("structural_tag: a tag needs a string 'begin' (token begins are not modelled)")
        end = t.get("end", "")
        end = end[0] if isinstance(end, list) and end else end
        if not isinstance(end, str):
            raise ValueError("structural_tag: a tag's 'end' must be a string or a list of strings")
        return t["begin"] + sub(t.get("content", {"type": "any_text"})) + end

    if kind == "const_string":
        return str(fmt.get("value", ""))
    if kind == "json_schema":
        style = fmt.get("style", "json")
        if style != "json":
            raise ValueError(f"structural_tag: json_schema style {style!r} is not modelled by the twin (only 'json')")
        schema = fmt.get("json_schema", {})
        return json.dumps(schema_sample({} if schema is True else schema, rng), ensure_ascii=False)
    if kind == "any_text":
        return rng.choice(_ANY_TEXT)
    if kind == "grammar":
        return ebnf_sample(str(fmt.get("grammar", "")), rng)
    if kind == "regex":
        compile_or_raise(str(fmt.get("pattern", "")), "structural_tag regex")
        return regex_sample(str(fmt.get("pattern", "")), rng)
    if kind == "sequence":
        return "".join(sub(e) for e in fmt.get("elements") or [])
    if kind == "or":
        elements = fmt.get("elements") or []
        if not elements:
            raise ValueError("structural_tag: 'or' needs at least one element")
        return sub(rng.choice(elements))
    if kind == "tag":
        return tag(fmt)
    if kind in ("triggered_tags", "tags_with_separator"):
        tags = fmt.get("tags") or []
        if not tags:
            raise ValueError(f"structural_tag: {kind} needs at least one tag")
        if kind == "triggered_tags":
            triggers = [t for t in fmt.get("triggers") or [] if isinstance(t, str)]
            for t in tags:  # xgrammar: every tag's begin starts with one of the triggers
                if isinstance(t, dict) and isinstance(t.get("begin"), str) \
                        and not any(t["begin"].startswith(tr) for tr in triggers):
                    raise ValueError(f"structural_tag: tag begin {t['begin']!r} matches no trigger")
            return tag(tags[0]) if fmt.get("stop_after_first") else "".join(tag(t) for t in tags)
        chosen = tags[:1] if fmt.get("stop_after_first") else tags
        return str(fmt.get("separator", "")).join(tag(t) for t in chosen)
    if kind == "optional":
        return sub(fmt.get("content"))
    if kind in ("plus", "star"):
        return sub(fmt.get("content"))
    if kind == "repeat":
        lo = int(fmt.get("min", 0))
        return "".join(sub(fmt.get("content")) for _ in range(max(lo, 1 if int(fmt.get("max", 1)) else 0)))
    if kind in _NOT_MODELLED:
        raise ValueError(f"structural_tag: the {kind!r} format is not modelled by the twin")
    raise ValueError(f"structural_tag: unknown format type {kind!r}")


# ------------------------------------------------------------------------------------------------- requests


def constraint_of(params: dict[str, Any]) -> tuple[str, Any] | None:
    """The grammar a request asks for, as SGLang builds it: ("regex", pattern), ("ebnf", grammar),
    ("json_schema", schema dict) or ("structural_tag", format), from `regex`, `ebnf`, `json_schema` and
    `structural_tag` (strings) and `response_format` (json_object → {"type": "object"}; structural_tag); None
    without one. Raises ValueError with SGLang's message for a json_schema response format without a schema."""
    rf = params.get("response_format")
    if isinstance(rf, dict):
        kind = rf.get("type")
        if kind == "json_schema":
            js = rf["json_schema"] if isinstance(rf.get("json_schema"), dict) else {}
            schema = js.get("schema", js.get("schema_"))
            if schema is None:
                raise ValueError("schema_ is required for json_schema response format request.")
            return ("json_schema", schema)
        if kind == "json_object":
            return ("json_schema", {"type": "object"})
        if kind == "structural_tag":
            return _structural(rf)
    if isinstance(params.get("structural_tag"), str):
        try:
            spec = json.loads(params["structural_tag"])
        except json.JSONDecodeError:
            raise ValueError("structural_tag is not valid JSON") from None
        return _structural(spec)
    if isinstance(params.get("json_schema"), str):
        try:
            return ("json_schema", json.loads(params["json_schema"]))
        except json.JSONDecodeError:
            raise ValueError("json_schema is not valid JSON") from None
    if isinstance(params.get("regex"), str):
        compile_or_raise(params["regex"], "regex")
        return ("regex", params["regex"])
    if isinstance(params.get("ebnf"), str):
        parse_ebnf(params["ebnf"])  # refuse a grammar that does not parse
        return ("ebnf", params["ebnf"])
    return None


def _structural(spec: Any) -> tuple[str, Any]:
    fmt = structural_format(spec)
    structural_sample(fmt, random.Random(0))  # refuse a format the twin cannot write, before any decoding
    return ("structural_tag", fmt)


def compile_or_raise(pattern: str, field: str) -> None:
    try:
        re.compile(pattern)
    except re.error as e:
        raise ValueError(f"Invalid {field} pattern {pattern!r}: {e}") from None


def stop_regexes(value: Any) -> tuple[str, ...]:
    """`stop_regex` (a string or a list of strings) as a tuple, each pattern compiled once to refuse bad ones."""
    if value is None:
        return ()
    pats = [value] if isinstance(value, str) else value
    if not isinstance(pats, list) or not all(isinstance(p, str) for p in pats):
        raise ValueError("stop_regex must be a string or a list of strings")
    for p in pats:
        compile_or_raise(p, "stop_regex")
    return tuple(p for p in pats if p)


def constrained_text(constraint: tuple[str, Any], rng: random.Random) -> str:
    """The text the twin decodes for a constraint: a regex sample, or a schema sample as SGLang's JSON grammar
    writes it (compact separators with a space, as xgrammar's default JSON grammar allows)."""
    kind, spec = constraint
    if kind == "regex":
        return regex_sample(spec, rng)
    if kind == "ebnf":
        return ebnf_sample(spec, rng)
    if kind == "structural_tag":
        return structural_sample(spec, rng)
    return json.dumps(schema_sample(spec, rng), ensure_ascii=False)
