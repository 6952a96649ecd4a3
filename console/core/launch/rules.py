"""Per-version launch rules: what sglang would assert, reject or silently override, checked before launch.

The flag catalogue says which flags an engine version *accepts*; these rules say which accepted combinations
that version refuses at resolution time (after minutes of model loading) or quietly rewrites, so a profile
never means something the engine does not do. Each rule is one row of `RULES`: an id, the sglang versions it
holds for (a half-open range, read from the released wheels), a severity and a check. A check yields
`(field, text)` pairs; `field` is the profile field to edit (e.g. `drafter.draft_tokens`, or `server.extra_args`
when the flag came from there) and `text` says what is wrong *and* the fix, on one line.

Flag renames and removals are a table of their own (`FLAG_CHANGES`): a flag the catalogue no longer has is an
error naming its replacement; a flag the catalogue (or the table) marks deprecated is a warning naming it.

Sources (sglang wheels read for this table: 0.5.14, 0.5.19, 0.5.20, 0.5.21, 0.5.23):
`srt/arg_groups/speculative_hook.py` (`_handle_eagle_family`, `_handle_dflash`, `_handle_ngram`,
`_init_adaptive_speculative_params`, `handle_speculative_decoding`), `speculative/adaptive_spec_params.py`,
`speculative/spec_info.py`, `server_args.py` (deprecated registrations); for 0.5.23, the flag catalogue shipped
in this package, `console/data/sglang-0.5.23-flags.json` (argparse introspection of `ServerArgs.add_cli_args`: the
accepted flags with their defaults, choices and deprecated marks).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from console.core.launch.flags import FlagCatalogue

Version = tuple[int, ...]


def parse_version(text: str | None) -> Version | None:
    """'0.5.23' -> (0, 5, 23); '0.5.15.post1' -> (0, 5, 15); '0.5.24.dev3+gabc' -> (0, 5, 24); else None."""
    if not text:
        return None
    m = re.match(r"\s*v?(\d+(?:\.\d+)*)", str(text))
    if not m:
        return None
    return tuple(int(x) for x in m.group(1).split("."))


def _fmt(v: Version | None) -> str:
    return ".".join(map(str, v)) if v else "?"


@dataclass(frozen=True)
class VersionRange:
    """Half-open range of engine versions: `since` <= v < `until`; None means unbounded."""

    since: str | None = None
    until: str | None = None

    def contains(self, v: Version | None) -> bool:
        if v is None:
            return True
        lo, hi = parse_version(self.since), parse_version(self.until)
        return (lo is None or _cmp(v, lo) >= 0) and (hi is None or _cmp(v, hi) < 0)

    def __str__(self) -> str:
        if self.since and self.until:
            return f">={self.since}, <{self.until}"
        if self.since:
            return f">={self.since}"
        if self.until:
            return f"<{self.until}"
        return "all"


def _cmp(a: Version, b: Version) -> int:
    n = max(len(a), len(b))
    a2, b2 = a + (0,) * (n - len(a)), b + (0,) * (n - len(b))
    return (a2 > b2) - (a2 < b2)


ALL = VersionRange()


@dataclass(frozen=True)
class Finding:
    severity: str
    """'error' (the check fails) or 'warning' (printed, the check passes)."""
    rule: str
    field: str
    """The profile field to edit, e.g. 'drafter.draft_tokens' or 'server.extra_args'."""
    text: str
    """What is wrong and the fix, one line."""

    def line(self) -> str:
        return f"{self.field}: {self.text}"


# --- the context a rule reads ---------------------------------------------------------------------------

# profile field a dest is set through when the profile itself emits it (else the fix goes into extra_args)
DEST_FIELD = {
    "model_path": "model.path", "tp_size": "model.tp", "dp_size": "model.dp", "nnodes": "model.nnodes",
    "trust_remote_code": "model.trust_remote_code", "context_length": "model.context_length",
    "speculative_algorithm": "drafter.family", "speculative_draft_model_path": "drafter.model",
    "speculative_num_steps": "drafter.steps", "speculative_eagle_topk": "drafter.topk",
    "speculative_num_draft_tokens": "drafter.draft_tokens", "speculative_dflash_block_size": "drafter.draft_tokens",
    "kv_cache_dtype": "kv.dtype", "mem_fraction_static": "kv.mem_fraction_static",
    "max_running_requests": "server.max_running_requests", "host": "server.host", "port": "server.port",
    "enable_metrics": "server.enable_metrics", "served_model_name": "server.served_model_name",
    "api_key": "server.api_key_env",
}

EAGLE_FAMILY = ("EAGLE", "EAGLE3", "STANDALONE")


@dataclass
class RuleContext:
    """The argv as the engine's parser sees it, plus where each value came from."""

    version: Version | None
    catalogue: FlagCatalogue
    values: dict[str, Any]
    """dest -> parsed value (defaults included), as `argparse.Namespace` holds it."""
    given: dict[str, str] = field(default_factory=dict)
    """dest -> the flag spelling that set it explicitly (dests left at their defaults are absent)."""
    origin: dict[str, str] = field(default_factory=dict)
    """dest -> profile field whose compilation emitted it ('server.extra_args' for extra flags)."""

    def v(self, dest: str, default: Any = None) -> Any:
        val = self.values.get(dest, default)
        return default if val is None else val

    def is_set(self, dest: str) -> bool:
        return dest in self.given

    def has(self, dest: str) -> bool:
        """Whether this engine version knows the dest at all."""
        return any(o.dest == dest for o in self.catalogue.options)

    def field(self, dest: str) -> str:
        return self.origin.get(dest) or DEST_FIELD.get(dest, "server.extra_args")

    def flag(self, dest: str) -> str:
        if dest in self.given:
            return self.given[dest]
        spec = next((o for o in self.catalogue.options if o.dest == dest), None)
        return spec.flags[0] if spec else "--" + dest.replace("_", "-")

    @property
    def algorithm(self) -> str | None:
        a = self.values.get("speculative_algorithm")
        if not a:
            return None
        a = str(a).upper()
        return "EAGLE" if a == "NEXTN" else a

    def attn_dp(self) -> bool:
        return int(self.v("attn_dp_size", 1) or 1) > 1 or bool(self.values.get("enable_dp_attention"))


Check = Callable[[RuleContext], Iterable[tuple[str, str]]]


@dataclass(frozen=True)
class Rule:
    id: str
    versions: VersionRange
    severity: str
    summary: str
    check: Check


# --- speculative parameters (steps / topk / draft tokens) ----------------------------------------------

def _topk1_draft_tokens(c: RuleContext) -> Iterator[tuple[str, str]]:
    if c.algorithm not in EAGLE_FAMILY or c.v("speculative_adaptive", False):
        return
    steps, topk, dt = c.v("speculative_num_steps"), c.v("speculative_eagle_topk"), c.v("speculative_num_draft_tokens")
    if topk == 1 and steps is not None and dt is not None and dt != steps + 1:
        f = c.field("speculative_num_draft_tokens")
        fix = f"drafter.draft_tokens = {steps + 1}" if f.startswith("drafter") else \
            f"{c.flag('speculative_num_draft_tokens')} {steps + 1}"
        yield f, (f"draft tokens = {dt} but with topk = 1 sglang forces it to steps + 1 = {steps + 1} (silently, with "
                  f"a log warning); set {fix}")


def _tree_narrower_than_its_path(c: RuleContext) -> Iterator[tuple[str, str]]:
    """topk > 1 with draft tokens < steps + 1: the v2 worker's compaction of the accepted path into the first steps + 1
    verify slots fails at the first verify (found on the real CPU speculative server, docs/real-sglang.md)."""
    if c.algorithm not in EAGLE_FAMILY or c.v("speculative_adaptive", False):
        return
    steps, topk, dt = c.v("speculative_num_steps"), c.v("speculative_eagle_topk"), c.v("speculative_num_draft_tokens")
    if steps is not None and topk is not None and dt is not None and topk > 1 and dt < steps + 1:
        yield c.field("speculative_num_draft_tokens"), (
            f"draft tokens = {dt} < steps + 1 = {steps + 1} with topk = {topk}: sglang's EAGLE worker moves the "
            f"accepted path (up to steps + 1 tokens) to the front of the verify block and its scheduler dies at the "
            f"first verify (eagle_worker_common._compact_accept_to_front); use draft tokens ≥ {steps + 1}")


def _steps_unset(c: RuleContext) -> Iterator[tuple[str, str]]:
    if c.algorithm not in EAGLE_FAMILY or c.v("speculative_adaptive", False):
        return
    if c.v("speculative_num_steps") is None:
        extra = [d for d in ("speculative_eagle_topk", "speculative_num_draft_tokens") if c.v(d) is not None]
        if extra:
            named = " and ".join(c.field(d) for d in extra)
            yield c.field("speculative_num_steps"), (
                f"unset while {named} is set: sglang asserts steps, topk and draft tokens are all set or all unset; "
                "set drafter.steps (e.g. 3) or remove the others")


def _trtllm_mha_topk(c: RuleContext) -> Iterator[tuple[str, str]]:
    if c.algorithm not in EAGLE_FAMILY:
        return
    topk = c.v("speculative_eagle_topk")
    backends = {d: c.v(d) for d in ("attention_backend", "decode_attention_backend", "prefill_attention_backend")}
    hit = [d for d, b in backends.items() if b == "trtllm_mha"]
    if hit and topk is not None and topk > 1:
        yield c.field("speculative_eagle_topk"), (
            f"topk = {topk} but {c.flag(hit[0])} trtllm_mha supports only topk = 1 for speculative decoding "
            "(sglang raises at startup); set drafter.topk = 1 or pick another attention backend")


_PAGE_TREE_BACKENDS = ("flashinfer", "fa3", "triton")


def _topk_page_size(c: RuleContext) -> Iterator[tuple[str, str]]:
    if c.algorithm not in EAGLE_FAMILY:
        return
    topk, page, backend = c.v("speculative_eagle_topk"), c.v("page_size"), c.v("attention_backend")
    if backend == "trtllm_mla" and topk and topk > 1:
        # sglang replaces any page size but 32 or 64 by 64 under trtllm_mla (overrides.py), then raises
        yield c.field("speculative_eagle_topk"), (
            f"topk = {topk} needs attention backend flashinfer, fa3 or triton: trtllm_mla pages KV by 32 or 64 "
            "tokens whatever --page-size says (sglang raises); set drafter.topk = 1 or one of those backends")
    elif topk and topk > 1 and page and page > 1 and backend and backend not in _PAGE_TREE_BACKENDS:
        yield c.field("speculative_eagle_topk"), (
            f"topk = {topk} with --page-size {page} needs attention backend flashinfer, fa3 or triton (got {backend}; "
            "sglang raises); set drafter.topk = 1, --page-size 1, or one of those backends")


def _rejection_sampling(c: RuleContext) -> Iterator[tuple[str, str]]:
    if not c.v("speculative_use_rejection_sampling", False) or not c.algorithm:
        return
    f = c.field("speculative_use_rejection_sampling")
    if c.algorithm not in ("EAGLE", "EAGLE3"):
        yield f, (f"--speculative-use-rejection-sampling supports only EAGLE / EAGLE3 / NEXTN, not {c.algorithm}; "
                  "remove it")
    elif c.v("speculative_eagle_topk") not in (None, 1):
        yield c.field("speculative_eagle_topk"), ("--speculative-use-rejection-sampling requires topk = 1; "
                                                  "set drafter.topk = 1 or drop rejection sampling")
    if (c.v("speculative_accept_threshold_single", 1.0) != 1.0 or c.v("speculative_accept_threshold_acc", 1.0) != 1.0):
        yield f, ("--speculative-use-rejection-sampling ignores the accept thresholds and sglang refuses both; "
                  "remove --speculative-accept-threshold-single/-acc")


def _block_verification(c: RuleContext) -> Iterator[tuple[str, str]]:
    if c.v("speculative_use_block_verification", False) and c.algorithm and \
            c.algorithm not in ("EAGLE", "EAGLE3", "DFLASH", "DSPARK"):
        yield c.field("speculative_use_block_verification"), (
            f"--speculative-use-block-verification supports EAGLE / EAGLE3 / NEXTN / DFLASH / DSPARK, not "
            f"{c.algorithm}; remove it")


# --- algorithm names -------------------------------------------------------------------------------------

# built-in names of `SpeculativeAlgorithm` (+ the NEXTN alias) per version, read from speculative/spec_info.py
ALGORITHMS_BY_VERSION: list[tuple[VersionRange, tuple[str, ...]]] = [
    (VersionRange(until="0.5.19"), ("EAGLE", "EAGLE3", "NEXTN", "STANDALONE", "NGRAM", "DFLASH")),
    (VersionRange("0.5.19", "0.5.20"), ("EAGLE", "EAGLE3", "NEXTN", "STANDALONE", "NGRAM", "DFLASH", "DSPARK")),
    (VersionRange(since="0.5.20"), ("EAGLE", "EAGLE3", "NEXTN", "STANDALONE", "NGRAM", "DFLASH", "DSPARK", "UNO")),
]


def known_algorithms(version: Version | None) -> tuple[str, ...]:
    for r, names in ALGORITHMS_BY_VERSION:
        if r.contains(version):
            return names
    return ALGORITHMS_BY_VERSION[-1][1]


def _unknown_algorithm(c: RuleContext) -> Iterator[tuple[str, str]]:
    a = c.values.get("speculative_algorithm")
    if a and str(a).upper() not in known_algorithms(c.version):
        yield c.field("speculative_algorithm"), (
            f"--speculative-algorithm {a} is not a built-in algorithm of sglang {_fmt(c.version)} "
            f"({', '.join(known_algorithms(c.version))}); sglang raises 'Unknown speculative algorithm name' unless a "
            "plugin registers it: use a built-in name")


# --- DFLASH ---------------------------------------------------------------------------------------------

def _dflash_forces_steps_topk(c: RuleContext) -> Iterator[tuple[str, str]]:
    if c.algorithm != "DFLASH":
        return
    for dest, name in (("speculative_num_steps", "steps"), ("speculative_eagle_topk", "topk")):
        val = c.v(dest)
        if val is not None and val != 1:
            yield c.field(dest), (f"DFLASH forces {name} = 1 and would override {name} = {val} with a warning; "
                                  f"remove it (the block size is drafter.draft_tokens)")


def _dflash_block_size(c: RuleContext) -> Iterator[tuple[str, str]]:
    if c.algorithm != "DFLASH":
        return
    bs, dt = c.v("speculative_dflash_block_size"), c.v("speculative_num_draft_tokens")
    if bs is not None and dt is not None and bs != dt:
        yield c.field("speculative_num_draft_tokens"), (
            f"--speculative-num-draft-tokens {dt} differs from --speculative-dflash-block-size {bs}; for DFLASH "
            "they are one number (sglang raises): set only drafter.draft_tokens")
    size = bs if bs is not None else dt
    if size is not None and size <= 0:
        yield c.field("speculative_dflash_block_size"), f"DFLASH block size must be positive, got {size}"
    win = c.v("speculative_draft_window_size")
    if win is not None and size is not None and win < size:
        yield c.field("speculative_draft_window_size"), (
            f"--speculative-draft-window-size {win} is smaller than the block size {size} (sglang raises); "
            f"set it to at least {size}")


def _dflash_requirements(c: RuleContext) -> Iterator[tuple[str, str]]:
    if c.algorithm != "DFLASH":
        return
    if not c.v("speculative_draft_model_path"):
        yield "drafter.model", "DFLASH needs a draft model (--speculative-draft-model-path); set drafter.model"
    if c.v("pp_size", 1) != 1:
        yield c.field("pp_size"), f"DFLASH supports only --pp-size 1 (got {c.v('pp_size')}); remove it"
    if c.attn_dp() and not c.v("enable_dp_lm_head", False):
        yield "server.extra_args", "DFLASH with attention DP requires --enable-dp-lm-head; add it to server.extra_args"


def _dflash_block_size_unset(c: RuleContext) -> Iterator[tuple[str, str]]:
    if c.algorithm == "DFLASH" and c.v("speculative_dflash_block_size") is None \
            and c.v("speculative_num_draft_tokens") is None:
        yield "drafter.draft_tokens", ("unset: sglang reads the block size from the draft config and falls back to 16; "
                                       "set drafter.draft_tokens so the arm's verify width is on record")


# --- NGRAM ----------------------------------------------------------------------------------------------

def _ngram_overrides(c: RuleContext) -> Iterator[tuple[str, str]]:
    if c.algorithm != "NGRAM":
        return
    if c.is_set("speculative_eagle_topk"):
        breadth = c.v("speculative_ngram_max_bfs_breadth", 10)
        yield c.field("speculative_eagle_topk"), (
            f"NGRAM replaces topk with --speculative-ngram-max-bfs-breadth ({breadth}) without a word; remove "
            "drafter.topk and set the breadth in server.extra_args")
    if c.attn_dp():
        yield "server.extra_args", ("NGRAM does not support attention DP (sglang raises); "
                                    "remove --attn-dp-size / --enable-dp-attention")
    if c.v("speculative_ngram_external_corpus_path"):
        budget = c.v("speculative_ngram_external_sam_budget", 0)
        dt = c.v("speculative_num_draft_tokens", 12)
        if budget <= 0:
            yield "server.extra_args", ("--speculative-ngram-external-corpus-path needs "
                                        "--speculative-ngram-external-sam-budget > 0; set it")
        elif budget > dt - 1:
            yield "server.extra_args", (f"--speculative-ngram-external-sam-budget {budget} exceeds draft tokens - 1 = "
                                        f"{dt - 1} (sglang raises); lower it or raise drafter.draft_tokens")
    breadth = c.v("speculative_ngram_max_bfs_breadth", 10)
    page, backend = c.v("page_size"), c.v("attention_backend")
    if breadth > 1 and page and page > 1 and backend and backend != "flashinfer":
        yield "server.extra_args", (f"NGRAM with breadth {breadth} and --page-size {page} works only on the flashinfer "
                                    f"attention backend (got {backend}; sglang raises); use flashinfer or page size 1")


def _ngram_notes(c: RuleContext) -> Iterator[tuple[str, str]]:
    if c.algorithm != "NGRAM":
        return
    if c.v("speculative_draft_model_path"):
        yield c.field("speculative_draft_model_path"), ("NGRAM drafts from the prompt, not a model: the draft model "
                                                        "is ignored; remove drafter.model")
    if c.v("enable_mixed_chunk", False):
        yield c.field("enable_mixed_chunk"), ("NGRAM disables mixed chunked prefill: --enable-mixed-chunk does "
                                              "nothing; remove it")
    if c.v("speculative_num_draft_tokens") is None:
        yield "drafter.draft_tokens", ("unset: NGRAM defaults to 12 draft tokens; set drafter.draft_tokens to put it "
                                       "on record")


# --- adaptive depth -------------------------------------------------------------------------------------

def _adaptive_candidates(c: RuleContext) -> list[int] | None:
    """Union of candidate_steps of the adaptive config (sglang's default unless a readable file is named)."""
    path = c.v("speculative_adaptive_config")
    if path is None:
        cfg: dict[str, Any] = ADAPTIVE_DEFAULT_CONFIG
    else:
        try:
            with open(os.path.expanduser(path)) as f:
                cfg = json.load(f)
        except (OSError, ValueError):
            return None
    steps: set[int] = set()
    for k, entry in cfg.items():
        if k.isdigit() and isinstance(entry, dict) and isinstance(entry.get("candidate_steps"), list):
            steps.update(int(s) for s in entry["candidate_steps"])
    return sorted(steps) or None


# candidate_steps of speculative/adaptive_spec_params.py DEFAULT_ADAPTIVE_CONFIG (0.5.23)
ADAPTIVE_DEFAULT_CONFIG: dict[str, Any] = {"1": {"candidate_steps": [1, 3, 5, 7]}, "8": {"candidate_steps": [0, 1, 3]},
                                           "32": {"candidate_steps": [0, 1]}, "64": {"candidate_steps": [0]}}


def _adaptive(c: RuleContext) -> Iterator[tuple[str, str]]:
    if not c.v("speculative_adaptive", False):
        return
    f = c.field("speculative_adaptive")
    off = "sglang silently falls back to static speculative parameters"
    if c.algorithm not in ("EAGLE", "EAGLE3"):
        yield f, f"--speculative-adaptive supports only EAGLE / EAGLE3 (got {c.algorithm}): {off}; remove it"
        return
    disabled: list[tuple[str, str]] = []
    topk = c.v("speculative_eagle_topk")
    if topk is not None and topk != 1:
        disabled.append((c.field("speculative_eagle_topk"),
                         f"--speculative-adaptive needs topk = 1 (got {topk}): {off}; set drafter.topk = 1"))
    for dest, what in (("enable_multi_layer_eagle", "--enable-multi-layer-eagle"),
                       ("enable_two_batch_overlap", "--enable-two-batch-overlap"), ("enable_pdmux", "--enable-pdmux")):
        if c.v(dest, False):
            disabled.append((c.field(dest), f"--speculative-adaptive does not work with "
                                            f"{what}: {off}; drop one of them"))
    if c.attn_dp():
        disabled.append((f, f"--speculative-adaptive does not work with attention DP: {off}; drop one of them"))
    if disabled:  # sglang turns adaptive off: the steps/draft-token checks below would not apply
        yield from disabled
        return
    cands = _adaptive_candidates(c)
    steps = c.v("speculative_num_steps")
    if cands is not None and steps is not None and steps not in cands:
        yield c.field("speculative_num_steps"), (
            f"steps = {steps} is not one of the adaptive config's candidate_steps {cands} (sglang raises); "
            "pick one of those")
    dt = c.v("speculative_num_draft_tokens")
    if steps is not None and dt is not None and dt != steps + 1:
        yield c.field("speculative_num_draft_tokens"), (
            f"draft tokens = {dt} but --speculative-adaptive sets it to steps + 1 = {steps + 1}; "
            f"set it to {steps + 1} or remove it")


# --- CUDA graphs -----------------------------------------------------------------------------------------

def _capture_multiple_of_1k(c: RuleContext) -> Iterator[tuple[str, str]]:
    if not c.algorithm:
        return
    steps = c.v("speculative_num_steps")
    if steps is None:
        return
    width = 1 + steps
    for dest in ("cuda_graph_bs", "cuda_graph_bs_decode"):
        bs = c.v(dest)
        if isinstance(bs, list):
            bad = [b for b in bs if b % width]
            if bad:
                yield c.field(dest), (f"capture sizes {bad} are not multiples of 1 + steps = {width}, which sglang "
                                      f"{_fmt(c.version)} required for speculative runs; use multiples of {width}")


def _cuda_graph_config_wins(c: RuleContext) -> Iterator[tuple[str, str]]:
    if c.v("cuda_graph_config") is None:
        return
    shadowed = [c.given[d] for d in ("cuda_graph_backend_decode", "cuda_graph_backend_prefill",
                                     "cuda_graph_max_bs_decode", "cuda_graph_max_bs_prefill", "cuda_graph_bs_decode",
                                     "cuda_graph_bs_prefill",
                                     "disable_decode_cuda_graph", "disable_prefill_cuda_graph", "disable_cuda_graph")
                if d in c.given]
    if shadowed:
        yield c.field("cuda_graph_config"), (f"--cuda-graph-config JSON wins over {', '.join(shadowed)} for every key "
                                             "it names; put those settings in the JSON or drop it")


# --- the table --------------------------------------------------------------------------------------------

RULES: list[Rule] = [
    Rule("topk1-draft-tokens", ALL, "error",
         "EAGLE family, topk = 1: draft tokens must be steps + 1 (sglang silently overrides it)", _topk1_draft_tokens),
    Rule("tree-narrower-than-path", VersionRange(since="0.5.23"), "error",
         "EAGLE family, topk > 1: draft tokens ≥ steps + 1 (the v2 worker's scheduler dies at the first verify)",
         _tree_narrower_than_its_path),
    Rule("steps-unset", ALL, "error",
         "EAGLE family: steps unset => topk and draft tokens unset (sglang asserts)", _steps_unset),
    Rule("trtllm-mha-topk", ALL, "error", "trtllm_mha attention backend requires topk = 1", _trtllm_mha_topk),
    Rule("topk-page-size", ALL, "error",
         "topk > 1 with page size > 1 needs flashinfer / fa3 / triton attention", _topk_page_size),
    Rule("rejection-sampling", ALL, "error",
         "rejection sampling: EAGLE/EAGLE3 only, topk = 1, thresholds 1.0", _rejection_sampling),
    Rule("block-verification", ALL, "error",
         "block verification: EAGLE/EAGLE3/NEXTN/DFLASH/DSPARK only", _block_verification),
    Rule("unknown-algorithm", ALL, "error", "speculative algorithm must be a built-in name of the version",
         _unknown_algorithm),
    Rule("dflash-forces-steps-topk", ALL, "error", "DFLASH forces steps = topk = 1", _dflash_forces_steps_topk),
    Rule("dflash-block-size", ALL, "error",
         "DFLASH block size = draft tokens (both given => equal); window >= block size", _dflash_block_size),
    Rule("dflash-requirements", ALL, "error",
         "DFLASH needs a draft model, pp = 1, --enable-dp-lm-head with attention DP", _dflash_requirements),
    Rule("dflash-block-size-unset", ALL, "warning",
         "DFLASH without a block size reads it from the draft config (fallback 16)", _dflash_block_size_unset),
    Rule("ngram-overrides", ALL, "error",
         "NGRAM: topk := max BFS breadth (silently), no attention DP, SAM budget <= draft "
         "tokens - 1", _ngram_overrides),
    Rule("ngram-notes", ALL, "warning",
         "NGRAM ignores the draft model and --enable-mixed-chunk; draft tokens default 12", _ngram_notes),
    Rule("adaptive", ALL, "error",
         "adaptive: EAGLE/EAGLE3, topk = 1, steps in candidate_steps, draft tokens = steps + 1, no DP attention / "
         "multi-layer EAGLE / TBO / PDMux (else silently static)", _adaptive),
    Rule("capture-multiple-of-1+k", VersionRange(until="0.5.15"), "warning",
         "CUDA-graph capture sizes multiples of 1 + k for speculative runs (seed-report era; absent in 0.5.23, "
         "and not found in the 0.5.14 wheel's code either: hence a warning)", _capture_multiple_of_1k),
    Rule("cuda-graph-config-wins", ALL, "warning",
         "--cuda-graph-config JSON overrides the per-phase --cuda-graph-* flags", _cuda_graph_config_wins),
]


def rules_for(version: Version | None) -> list[Rule]:
    return [r for r in RULES if r.versions.contains(version)]


def evaluate(ctx: RuleContext) -> list[Finding]:
    out: list[Finding] = []
    for r in rules_for(ctx.version):
        for fld, text in r.check(ctx):
            out.append(Finding(r.severity, r.id, fld, text))
    return out


# --- renamed, removed and deprecated flags ------------------------------------------------------------------

@dataclass(frozen=True)
class FlagChange:
    flag: str
    replacement: str
    """What to write instead (flags and values, or 'delete it')."""
    removed_in: str | None = None
    """First version whose parser no longer has the flag; None: still accepted (deprecated)."""
    deprecated_since: str | None = None
    """First version known to warn about it (None: at least since the oldest wheel read, 0.5.14)."""


_REMOVED_0520 = "0.5.20"  # 0.5.19 still had these as deprecated aliases; 0.5.20 dropped every one of them
FLAG_CHANGES: dict[str, FlagChange] = {c.flag: c for c in [
    FlagChange("--cuda-graph-max-bs", "--cuda-graph-max-bs-decode N (prefill graphs: --cuda-graph-max-bs-prefill)",
               _REMOVED_0520),
    FlagChange("--cuda-graph-bs", "--cuda-graph-bs-decode B1 B2 ... (prefill graphs: --cuda-graph-bs-prefill)",
               _REMOVED_0520),
    FlagChange("--enable-breakable-cuda-graph", "--cuda-graph-backend-prefill=breakable", _REMOVED_0520),
    FlagChange("--disable-piecewise-cuda-graph", "--cuda-graph-backend-prefill=disabled", _REMOVED_0520),
    FlagChange("--enforce-piecewise-cuda-graph",
               "--cuda-graph-backend-prefill=full or =breakable (the tc_piecewise backend is gone)", _REMOVED_0520),
    FlagChange("--piecewise-cuda-graph-tokens", "--cuda-graph-bs-prefill", _REMOVED_0520),
    FlagChange("--piecewise-cuda-graph-max-tokens", "--cuda-graph-max-bs-prefill", _REMOVED_0520),
    FlagChange("--piecewise-cuda-graph-compiler", "--cuda-graph-config '{\"prefill\": {\"tc_compiler\": ...}}'",
               _REMOVED_0520),
    FlagChange("--stream-output", "--incremental-streaming-output", _REMOVED_0520),
    FlagChange("--nsa-prefill-backend", "--dsa-prefill-backend", _REMOVED_0520),
    FlagChange("--nsa-decode-backend", "--dsa-decode-backend", _REMOVED_0520),
    FlagChange("--speculative-dflash-draft-window-size", "--speculative-draft-window-size", _REMOVED_0520),
    FlagChange("--mamba-scheduler-strategy", "--mamba-radix-cache-strategy", _REMOVED_0520),
    FlagChange("--enable-dsa-prefill-context-parallel", "--enable-prefill-cp", _REMOVED_0520),
    FlagChange("--enable-nsa-prefill-context-parallel", "--enable-prefill-cp", _REMOVED_0520),
    FlagChange("--enable-prefill-context-parallel", "--enable-prefill-cp", _REMOVED_0520),
    FlagChange("--dsa-prefill-cp-mode", "--cp-strategy", _REMOVED_0520),
    FlagChange("--nsa-prefill-cp-mode", "--cp-strategy", _REMOVED_0520),
    FlagChange("--prefill-cp-mode", "--cp-strategy", _REMOVED_0520),
    FlagChange("--enable-gdn-replayssm-spec", "--enable-linear-replayssm-spec", _REMOVED_0520),
    FlagChange("--prefill-round-robin-balance", "nothing (it was a no-op): delete it", _REMOVED_0520),
    FlagChange("--collect-tokens-histogram", "nothing (it was a no-op): delete it", _REMOVED_0520),
    FlagChange("--enable-expert-distribution-metrics",
               "--expert-balancedness-report-mode {off,server_log,prometheus,both}", "0.5.19"),
    # still accepted by 0.5.23, with a deprecation warning
    FlagChange("--disable-cuda-graph",
               "--cuda-graph-backend-decode=disabled --cuda-graph-backend-prefill=disabled "
               "(or --disable-decode-cuda-graph / --disable-prefill-cuda-graph)"),
    FlagChange("--enable-dp-attention", "--attn-dp-size <dp-size> (instead of --dp-size N --enable-dp-attention)",
               deprecated_since="0.5.23"),
    FlagChange("--monokernel-backend", "--enable-amd-monokernel", deprecated_since="0.5.23"),
    FlagChange("--enable-flashinfer-allreduce-fusion", "--flashinfer-allreduce-fusion-backend=auto",
               deprecated_since="0.5.19"),
]}


def flag_change_finding(flag: str, fld: str, catalogue: FlagCatalogue, version: Version | None,
                        parser_says: str | None = None) -> Finding | None:
    """The finding for one emitted flag name: removed (error), deprecated (warning) or None."""
    ch = FLAG_CHANGES.get(flag)
    spec = catalogue.get(flag)
    v = _fmt(version)
    if spec is None:
        if ch is None:
            return None
        when = (f"was removed in sglang {ch.removed_in}" if ch.removed_in and
                VersionRange(since=ch.removed_in).contains(version) else f"is not accepted by sglang {v}")
        said = f" (its parser: {parser_says})" if parser_says else ""
        return Finding("error", "removed-flag", fld, f"{flag} {when}{said}; use {ch.replacement}")
    deprecated_here = spec.deprecated or (
        ch is not None and ch.removed_in is None and VersionRange(since=ch.deprecated_since).contains(version))
    if ch is not None and ch.removed_in is not None and VersionRange(until=ch.removed_in).contains(version):
        deprecated_here = True
    if not deprecated_here:
        return None
    fix = f"use {ch.replacement}" if ch else "see the engine's --help for its replacement"
    return Finding("warning", "deprecated-flag", fld, f"{flag} is deprecated in sglang {v} (it still works, with a "
                                                      f"warning, and will be removed); {fix}")


def rules_table() -> list[dict[str, str]]:
    """The rules as rows (id, versions, severity, summary), e.g. for `serving-console check --rules` or a report."""
    rows = [{"id": r.id, "versions": str(r.versions), "severity": r.severity, "summary": r.summary} for r in RULES]
    rows.append({"id": "removed-flag", "versions": "per flag (FLAG_CHANGES.removed_in)", "severity": "error",
                 "summary": "a flag the catalogue lacks but sglang once had: name its replacement"})
    rows.append({"id": "deprecated-flag", "versions": "per flag / catalogue", "severity": "warning",
                 "summary": "a flag the catalogue marks deprecated (or FLAG_CHANGES lists): name its replacement"})
    return rows
