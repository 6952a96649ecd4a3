"""The engine twin's deployment model: every parameter of the modeled hardware, model and drafters.

All numbers live in one TOML file (default: `deployments/kimi-k2.6-4xb200.toml` beside this module); this module
only gives them types. Units are part of the field names (`_ms`, `_s`, `_gib`, `_gbs`, `_mb`, ...), see the TOML
file's header. Select another file with `--sim-deployment PATH`.
"""

from __future__ import annotations

import dataclasses
import math
import random
import tomllib
from collections.abc import Iterable
from dataclasses import MISSING, dataclass, field, fields
from importlib import resources
from pathlib import Path
from typing import Any

from ..content.lengths import LengthSpec

DOMAINS = ("tool", "math", "code", "chat")
DEFAULT_DEPLOYMENT = "kimi-k2.6-4xb200.toml"


class DeploymentError(ValueError):
    """The deployment file is missing a key or has a wrong value."""


@dataclass(frozen=True)
class ModelSpec:
    """The served (target) model."""

    model_path: str
    architecture: str
    model_type: str
    quant_log: str
    num_layers: int
    num_moe_layers: int
    num_experts: int
    experts_per_token: int
    kv_lora_rank: int
    qk_rope_head_dim: int
    context_len: int
    vocab_size: int
    eos_token_id: int
    has_image_understanding: bool
    active_params_b: float
    expert_params_m: float  #: parameters of one routed expert of one layer (millions), for the pair GEMM FLOPs
    num_attention_heads: int
    checkpoint_gib: float
    checkpoint_shards: int
    replicated_weights_gib: float
    image_tokens_per_image: int
    chat_tokens_per_message: int
    chat_tokens_generation_prompt: int
    chat_tokens_per_tool: int
    vision_num_layers: int = 0  #: 0: no vision tower
    vision_hidden_size: int = 0
    vlm_warmup_log: str = ""

    @property
    def kv_elems_per_token(self) -> int:
        """MLA latent elements cached per token per layer (512 + 64)."""
        return self.kv_lora_rank + self.qk_rope_head_dim


@dataclass(frozen=True)
class ResolutionRule:
    """One decision of sglang's resolution hooks for this model: set `field` to `value` when the user left it at
    its default, and log `log` (before the server_args line). A rule without a field only logs. With `when`
    (a {field: value} table), the rule applies only if those fields resolved to those values."""

    field: str = ""
    value: Any = None
    log: str = ""
    when: dict[str, Any] = dataclasses.field(default_factory=dict)  # (the `field` attribute shadows field())


@dataclass(frozen=True)
class ResolutionSpec:
    """Model/GPU-specific resolution: logged rules in order, then silent defaults."""

    rules: tuple[ResolutionRule, ...] = ()
    defaults: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class NodeSpec:
    """One serving node."""

    gpu_name: str
    num_gpus: int
    gpu_memory_mib: int
    startup_overhead_gib: float
    hbm_bandwidth_gbs: float
    gemm_tflops: float
    moe_gemm_tflops: float  #: effective per-GPU throughput of the routed-expert grouped GEMMs (dispatch included)
    attn_tflops: float  #: effective per-GPU throughput of MLA attention over the cached context
    node_price_usd_per_hour: float

    @property
    def gpu_memory_gib(self) -> float:
        return self.gpu_memory_mib / 1024.0


@dataclass(frozen=True)
class VariationSpec:
    """Run-to-run and node-to-node variation (fractions of step time unless noted)."""

    node_speed_spread: float
    launch_sd: float  #: sd of a per-launch step-time factor (a relaunch on the same node is not bit-identical)
    request_jitter: float
    step_noise: float
    drift_amplitude: float
    drift_period_s: float
    prompt_acceptance_sd: float


@dataclass(frozen=True)
class StepSpec:
    """Decode/verify step-time coefficients (see the TOML for the formula)."""

    software_base_ms: float
    comm_per_rank_ms: float
    dense_gb: float
    expert_mb: float
    per_request_ms: float
    sample_per_token_ms: float
    spec_fixed_ms: float


@dataclass(frozen=True)
class PrefillSpec:
    """Prefill-time coefficients."""

    fixed_ms: float
    per_token_ms: float
    attn_coef_ms: float
    chunk_overhead_ms: float
    jit_first_long_prefill_ms: float  #: one-time JIT cost of the first long prefill after launch
    jit_min_tokens: int


@dataclass(frozen=True)
class SchedulerSpec:
    """Admission policy of the continuous-batching scheduler."""

    new_token_ratio: float
    clip_max_new_tokens: int
    decode_graph_bs_memory_mib: float
    min_new_token_ratio_factor: float = 0.14  #: SGLANG_MIN_NEW_TOKEN_RATIO_FACTOR
    new_token_ratio_decay_steps: int = 600  #: SGLANG_NEW_TOKEN_RATIO_DECAY_STEPS
    retract_decode_steps: int = 20  #: SGLANG_RETRACT_DECODE_STEPS


@dataclass(frozen=True)
class MemorySpec:
    """CUDA-graph and allocator memory (GiB per GPU)."""

    target_graph_base_gib: float
    target_graph_per_slot_gib: float
    prefill_graph_gib: float
    draft_prefill_graph_gib: float
    draft_graph_base_gib: float
    draft_graph_per_slot_gib: float
    post_capture_misc_gib: float


@dataclass(frozen=True)
class StartupSpec:
    """Modeled cold-start durations (model seconds)."""

    launcher_s: float
    process_spawn_s: float
    init_parallel_s: float
    weight_load_gibps: float
    rank_spread: float
    kv_alloc_s: float
    attention_backend_s: float
    graph_capture_s_per_bs: float
    verify_capture_s_per_bs: float
    prefill_graph_capture_s: float
    draft_prefill_capture_s: float
    draft_capture_s_per_bs: float
    post_capture_s: float
    http_start_s: float
    warmup_poll_s: float
    post_warmup_s: float


@dataclass(frozen=True)
class AcceptanceSpec:
    """Conditional acceptance of a drafter on one traffic domain.

    Draft position i (1-based) is accepted, given positions < i were, with probability
    `c_i = c1(context) - slope*(i-1)`, where c1 is interpolated in log10(context) between `c1_short` (at the
    drafter's `context_short` tokens) and `c1_long` (at `context_long`), and held constant outside that range
    (and, past the drafter's horizon at very short context, lowered further: `DrafterSpec.horizon_short`).
    """

    c1_short: float
    c1_long: float
    slope: float


@dataclass(frozen=True)
class KvDtypeSpec:
    """What a KV-cache dtype changes besides its bytes (`[kv_precision.dtypes.<name>]`)."""

    noise: float  #: rounding error of the cached latent (and the query cast with it) in units of e4m3's (2^-3)
    attention_speedup: float = 1.0  #: the attention kernel's throughput against bf16 (fp8 x fp8: 2)


@dataclass(frozen=True)
class KvPrecisionSpec:
    """A reduced-precision latent cache's effect on acceptance (`[kv_precision]`, docs/twin.md §8): every
    conditional acceptance of a domain moves by `domain_shift[domain] x noise(dtype) x g(context)`,
    g = log(context / context_floor) / log(context_ref / context_floor), 0 below the floor."""

    context_floor: float = 256.0
    context_ref: float = 10_000.0
    domain_shift: dict[str, float] = field(default_factory=dict)
    dtypes: dict[str, KvDtypeSpec] = field(default_factory=dict)

    def dtype(self, name: str) -> KvDtypeSpec:
        return self.dtypes.get(name, KvDtypeSpec(noise=0.0))

    def shift(self, domain: str, context: float, dtype: str) -> float:
        """The conditional acceptance shift of `domain` at `context` tokens with a `dtype` cache."""
        noise = self.dtype(dtype).noise
        s = self.domain_shift.get(domain, 0.0)
        if noise == 0.0 or s == 0.0 or context <= self.context_floor:
            return 0.0
        g = math.log(context / self.context_floor) / math.log(self.context_ref / self.context_floor)
        return s * noise * g


@dataclass(frozen=True)
class DrafterSpec:
    """One drafter family (eagle3, dflash, ngram); unused cost keys of other families stay 0."""

    family: str
    class_name: str
    weights_gib: float
    workspace_gib: float
    kv_elems_per_token: int
    kv_layers: int
    weight_load_s: float
    prefill_per_token_ms: float
    shape: str
    context_short: float
    context_long: float
    temperature_ref: float
    temperature_sensitivity: float
    acceptance: dict[str, AcceptanceSpec]
    draft_step_ms: float = 0.0
    draft_step_per_req_ms: float = 0.0
    block_pass_ms: float = 0.0  #: DFlash: the draft block's fixed cost per step (launches, syncs), any batch
    block_pass_per_row_ms: float = 0.0  #: DFlash: per verified row (B x block) of the step's own draft-side work
    lookup_ms: float = 0.0
    lookup_per_req_ms: float = 0.0
    context_pass_fixed_ms: float = 0.0  #: DFlash: eager context pass, per prefill forward
    context_pass_per_token_ms: float = 0.0  #: DFlash: eager context pass, per prompt token
    dummy_acceptance: float = 0.0  #: conditional acceptance with --speculative-draft-load-format dummy
    horizon_short: int = 0  #: positions a chain drafter supports at very short context (0: no horizon)
    horizon_decay: float = 0.0  #: per position past the horizon, at `context_min` tokens (fading to 0 at context_short)
    context_min: float = 64.0  #: tokens at (and below) which the horizon holds fully
    mask_token: str = ""
    mask_token_id: int = 0
    rules: tuple[ResolutionRule, ...] = ()  #: drafter-specific resolution (after the model's rules)


@dataclass(frozen=True)
class FittedAcceptance:
    """A drafter's conditionals on one domain as `serving-console twin fit` measured them: one curve per context
    the cells measured, interpolated in log10(context) (`curve_at`)."""

    curves: tuple[tuple[float, tuple[float, ...]], ...]  #: ((context, (c_1, …)), …)
    temperature: float = 0.6  #: the sampling temperature the cells were measured at

    def at(self, context: float, k: int) -> list[float]:
        return curve_at(self.curves, context, k)


def curve_at(curves: Iterable[tuple[float, Iterable[float]]], context: float, k: int) -> list[float]:
    """Conditionals c_1..c_k at `context` from curves measured at contexts [(context_j, [c_1, …])]: per position,
    linear in log10(context) between the two nearest curves that measured it, the nearest one's outside their
    span; a position no curve measured takes the position before it (the deepest measured conditional holds)."""
    pts = sorted((math.log10(max(c, 1.0)), list(v)) for c, v in curves)
    pts = [(x, v) for x, v in pts if v]
    if not pts:
        raise ValueError("curve_at: no measured curve")
    x = math.log10(max(context, 1.0))
    out: list[float] = []
    for i in range(k):
        have = [(lx, v[i]) for lx, v in pts if i < len(v)]
        if not have:
            out.append(out[-1] if out else 0.02)
            continue
        if x <= have[0][0]:
            c = have[0][1]
        elif x >= have[-1][0]:
            c = have[-1][1]
        else:
            j = next(j for j in range(1, len(have)) if have[j][0] >= x)
            (x0, c0), (x1, c1) = have[j - 1], have[j]
            c = c0 + (c1 - c0) * (x - x0) / (x1 - x0)
        out.append(min(0.98, max(0.02, c)))
    return out


@dataclass(frozen=True)
class NodeFitSpec:
    """A node fitted from recorded cells (`serving-console twin fit`, docs/twin.md#9-a-twin-of-your-node): its step
    model replaces the physical one's decode/verify step, its prefill the prefill, its acceptance the drafters'
    (where fitted), its capacity the memory plan's (where measured)."""

    name: str
    path: str
    base_ms: float
    per_request_ms: float
    per_kctx_ms: float
    per_qkctx_ms: float = 0.0  #: per extra verified token of a request and 1,000 tokens of its context
    spec_fixed_ms: dict[str, float] = field(default_factory=dict)  #: family (EAGLE, DFLASH, NGRAM) → ms a step
    draft_ms: dict[str, float] = field(default_factory=dict)  #: family → the drafter's pass per depth
    verify_ms: dict[str, float] = field(default_factory=dict)  #: family → one more verified token at batch 1
    verify_shape: str = "linear"  #: S(T): "linear" or "moe" (the base model's routed-expert token cost)
    prefill_fixed_ms: float | None = None
    prefill_per_token_ms: float | None = None
    acceptance: dict[str, dict[str, FittedAcceptance]] = field(default_factory=dict)  #: family → domain → fit
    capacity: dict[str, int] = field(default_factory=dict)  #: "ALGORITHM:n" / "none" → max_total_num_tokens


def fit_family(algorithm: str | None) -> str | None:
    """The family a node fit keys its drafter terms by: EAGLE (EAGLE, EAGLE3, STANDALONE, NEXTN), DFLASH, NGRAM."""
    if not algorithm:
        return None
    a = algorithm.upper()
    return "EAGLE" if a in ("EAGLE", "EAGLE3", "STANDALONE", "NEXTN") else a


@dataclass(frozen=True)
class Deployment:
    """A whole modeled deployment, as loaded from one TOML file."""

    name: str
    description: str
    path: str
    model: ModelSpec
    node: NodeSpec
    variation: VariationSpec
    step: StepSpec
    prefill: PrefillSpec
    scheduler: SchedulerSpec
    memory: MemorySpec
    startup: StartupSpec
    resolution: ResolutionSpec = field(default_factory=ResolutionSpec)
    drafters: dict[str, DrafterSpec] = field(default_factory=dict)
    #: natural output length per traffic domain (`[lengths.<domain>]`, see lengths.py); empty: no EOS model
    lengths: dict[str, LengthSpec] = field(default_factory=dict)
    #: a reduced-precision KV cache's effect on acceptance and attention (`[kv_precision]`; empty: none)
    kv_precision: KvPrecisionSpec = field(default_factory=KvPrecisionSpec)
    #: a node fitted from recorded cells (`--sim-node`): None for the modelled reference node
    fit: NodeFitSpec | None = None

    def drafter_for(self, algorithm: str | None) -> DrafterSpec | None:
        """The drafter family modeling a resolved `speculative_algorithm` (None: no speculation)."""
        if algorithm is None:
            return None
        family = {"EAGLE": "eagle3", "EAGLE3": "eagle3", "STANDALONE": "eagle3", "DFLASH": "dflash",
                  "NGRAM": "ngram"}.get(algorithm)
        if family is None or family not in self.drafters:
            return None
        return self.drafters[family]

    def node_speed_factor(self, node_seed: int) -> float:
        """Step-time multiplier of the node drawn by `node_seed` (same seed, same node, across relaunches)."""
        spread = self.variation.node_speed_spread
        return 1.0 + random.Random(f"node:{node_seed}").uniform(-spread, spread)


def _build(cls: type, data: dict[str, Any], where: str, **extra: Any) -> Any:
    names = {f.name for f in fields(cls)}
    kwargs = {k: v for k, v in data.items() if k in names}
    kwargs.update(extra)
    required = {f.name for f in fields(cls) if f.default is MISSING and f.default_factory is MISSING}
    missing = sorted(required - set(kwargs))
    if missing:
        raise DeploymentError(f"{where}: missing {', '.join(missing)}")
    unknown = sorted(set(data) - names - {"acceptance", "rules"})
    if unknown:
        raise DeploymentError(f"{where}: unknown key(s) {', '.join(unknown)}")
    return cls(**kwargs)


def _kv_precision(raw: dict[str, Any]) -> KvPrecisionSpec:
    dtypes = {name: _build(KvDtypeSpec, d, f"kv_precision.dtypes.{name}") for name, d in raw.get("dtypes", {}).items()}
    shift = raw.get("domain_shift", {})
    bad = sorted(set(shift) - set(DOMAINS))
    if bad:
        raise DeploymentError(f"kv_precision.domain_shift: unknown domain(s) {', '.join(bad)}")
    rest = {k: v for k, v in raw.items() if k not in ("dtypes", "domain_shift")}
    return _build(KvPrecisionSpec, rest, "kv_precision", domain_shift=dict(shift), dtypes=dtypes)


def default_deployment_path() -> Path:
    """The shipped Kimi-K2.6 on 4x B200 model file."""
    return Path(str(resources.files("console.sim").joinpath("deployments", DEFAULT_DEPLOYMENT)))


def node_fit_from(raw: dict[str, Any], p: Path) -> NodeFitSpec:
    """The [fit] section of a node file (`raw`: the whole file) as the twin serves it."""
    f = raw["fit"]
    step = f.get("step") or {}

    def val(d: dict[str, Any], k: str) -> float:
        v = d.get(k)
        if not isinstance(v, dict) or not isinstance(v.get("value"), (int, float)):
            raise DeploymentError(f"{p}: [fit.step.{k}] needs a numeric value (rerun `serving-console twin fit`)")
        return float(v["value"])

    fam = sorted({k.split(":", 1)[1] for k in step if ":" in k})
    pre = f.get("prefill") or {}
    curves: dict[tuple[str, str], list[tuple[float, tuple[float, ...]]]] = {}
    temps: dict[tuple[str, str], list[float]] = {}
    for a in f.get("acceptance") or []:
        try:
            cond = tuple(float(x) for x in a["conditionals"])
            if not cond:
                raise ValueError
            curves.setdefault((str(a["family"]), str(a["domain"])), []).append((float(a["context"]), cond))
            temps.setdefault((str(a["family"]), str(a["domain"])), []).append(float(a.get("temperature", 0.6)))
        except (KeyError, TypeError, ValueError):
            raise DeploymentError(f"{p}: a [[fit.acceptance]] entry needs family, domain, conditionals (a "
                                  f"non-empty list) and context") from None
    acc: dict[str, dict[str, FittedAcceptance]] = {}
    for (fam_, dom), cv in curves.items():
        tt = temps[(fam_, dom)]
        acc.setdefault(fam_, {})[dom] = FittedAcceptance(tuple(sorted(cv)), sum(tt) / len(tt))
    return NodeFitSpec(
        name=str(f.get("name") or p.stem), path=str(p), base_ms=val(step, "base"),
        per_request_ms=val(step, "per_request"), per_kctx_ms=val(step, "per_kctx"),
        per_qkctx_ms=val(step, "per_qkctx") if "per_qkctx" in step else 0.0,
        spec_fixed_ms={x: val(step, f"spec_fixed:{x}") for x in fam if f"spec_fixed:{x}" in step},
        draft_ms={x: val(step, f"draft:{x}") for x in fam if f"draft:{x}" in step},
        verify_ms={x: val(step, f"verify:{x}") for x in fam if f"verify:{x}" in step},
        verify_shape=str(f.get("verify_shape") or "linear"),
        prefill_fixed_ms=val(pre, "fixed_ms") if "fixed_ms" in pre else None,
        prefill_per_token_ms=val(pre, "per_token_ms") if "per_token_ms" in pre else None,
        acceptance=acc, capacity={str(k): int(v) for k, v in (f.get("capacity") or {}).items()})


def load_deployment(path: str | Path | None = None) -> Deployment:
    """Load and type-check a deployment TOML file (default: the shipped one). A node file (`serving-console twin
    fit`: a [fit] section over a `base` deployment) loads its base and serves as the fitted node."""
    p = Path(path) if path is not None else default_deployment_path()
    try:
        raw = tomllib.loads(p.read_text())
    except FileNotFoundError:
        raise DeploymentError(f"deployment file not found: {p}") from None
    except tomllib.TOMLDecodeError as e:
        raise DeploymentError(f"{p}: {e}") from None
    if "fit" in raw:
        base = str((raw["fit"] or {}).get("base") or DEFAULT_DEPLOYMENT)
        bp = Path(base) if Path(base).is_absolute() else (p.parent / base)
        if not bp.exists():
            bp = default_deployment_path().parent / base
        return dataclasses.replace(load_deployment(bp), fit=node_fit_from(raw, p))
    try:
        drafters: dict[str, DrafterSpec] = {}
        for family, d in raw.get("drafters", {}).items():
            acc = {
                dom: _build(AcceptanceSpec, d["acceptance"][dom], f"drafters.{family}.acceptance.{dom}")
                for dom in DOMAINS
            }
            rules = tuple(_build(ResolutionRule, r, f"drafters.{family}.rules") for r in d.get("rules", []))
            drafters[family] = _build(DrafterSpec, d, f"drafters.{family}", family=family, acceptance=acc,
                                      rules=rules)
        res = raw.get("resolution", {})
        resolution = ResolutionSpec(
            rules=tuple(_build(ResolutionRule, r, "resolution.rules") for r in res.get("rules", [])),
            defaults=dict(res.get("defaults", {})))
        return Deployment(
            name=raw["deployment"]["name"],
            description=raw["deployment"].get("description", ""),
            path=str(p),
            model=_build(ModelSpec, raw["model"], "model"),
            node=_build(NodeSpec, raw["node"], "node"),
            variation=_build(VariationSpec, raw["variation"], "variation"),
            step=_build(StepSpec, raw["step"], "step"),
            prefill=_build(PrefillSpec, raw["prefill"], "prefill"),
            scheduler=_build(SchedulerSpec, raw["scheduler"], "scheduler"),
            memory=_build(MemorySpec, raw["memory"], "memory"),
            startup=_build(StartupSpec, raw["startup"], "startup"),
            resolution=resolution,
            drafters=drafters,
            lengths={dom: _build(LengthSpec, d, f"lengths.{dom}") for dom, d in raw.get("lengths", {}).items()},
            kv_precision=_kv_precision(raw.get("kv_precision", {})),
        )
    except KeyError as e:
        raise DeploymentError(f"{p}: missing section or key {e}") from None
