"""Command line of the engine twin: sglang 0.5.23's `launch_server` flags plus the twin's own `--sim-*` flags.

Parsing uses the pinned flag catalogue (`console.core.launch.flags`), so a command line the twin accepts is one the
real 0.5.23 parser accepts too; unknown flags are argparse errors (exit status 2), as in sglang.

`resolve_server_args` then fills in what sglang's resolution hooks would (a documented subset of
`python/sglang/srt/arg_groups/*_hook.py`): the speculative-decoding rules (algorithm upper-cased, NEXTN -> EAGLE,
EAGLE-family auto parameters (3, 1, 4), topk == 1 forcing num_draft_tokens = steps + 1, max_running_requests 48,
DFLASH block size, NGRAM defaults), the B200 capacity defaults (chunked_prefill_size 16384, CUDA-graph batch sizes),
the automatic `mem_fraction_static`, and the `sim:` prefix on the model names. The result is a flat dict holding
every ServerArgs field, as `/server_info` reports it.
"""

from __future__ import annotations

import argparse
import copy
import random
import sys
from dataclasses import dataclass, field
from typing import Any

from console.core.launch.flags import build_parser, pinned_catalogue

from .deployment import Deployment
from .faultspec import FaultSpec, FaultSpecError, parse_faults

DEFAULT_PROG = "python -m console.sim"
SIM_PREFIX = "sim:"

#: Speculative algorithm names sglang 0.5.23 accepts (case-insensitive); NEXTN is an alias of EAGLE.
KNOWN_ALGORITHMS = ("EAGLE", "EAGLE3", "NEXTN", "STANDALONE", "NGRAM", "DFLASH", "DSPARK", "UNO")
#: Of those, the ones the twin models.
TWIN_ALGORITHMS = ("EAGLE", "EAGLE3", "STANDALONE", "NGRAM", "DFLASH")
DOMAIN_CHOICES = ("auto", "tool", "math", "code", "chat")

#: ServerArgs fields whose declaration position differs from their flag's position in the parser (the flags sglang
#: adds by hand after the generated ones), and fields without a flag (`Arg(no_cli=True)`), each with the field it
#: follows in declaration order (`srt/arg_groups/fields/*.py` in `_INPUT_NAMESPACES` order) and, for the no-flag
#: ones, its default. /server_info and the server_args line list the fields in declaration order.
FIELD_ANCHORS: tuple[tuple[str, str], ...] = (
    ("enable_dp_attention", "enable_kv_cache_sharding"),
    ("custom_sigquit_handler", "use_ray"),
    ("grpc_worker_threads", "grpc_port"),
    ("reasoning_parser", "return_output_ids"),
    ("tool_call_parser", "enable_strict_thinking"),
    ("stat_loggers", "export_metrics_to_file_dir"),
    ("sampling_backend", "prefill_attention_backend"),
    ("disable_cuda_graph", "disable_decode_cuda_graph"),
    ("enable_flashinfer_allreduce_fusion", "enable_quant_communications"),
    ("_speculative_draft_quantization_explicitly_set", "speculative_draft_model_quantization"),
    ("uses_mamba_radix_cache", "mamba_radix_cache_strategy"),
    ("kv_canary_real_data", "kv_canary"),
    ("_radix_eviction_policy_explicitly_set", "otlp_service_name"),
    ("_swa_full_tokens_ratio_explicitly_set", "enable_linker_mla_dedup"),
    ("speculative_boundary_reduction", "disaggregation_decode_allocation_policy"),
    ("enable_cp_tp_group_sharing", "enable_dsa_fused_indexer"),
    ("watermark_key", "watermark_config"),
    ("watermark_key_b", "watermark_key"),
    ("watermark_context_window", "watermark_key_b"),
    ("watermark_mixing_probability", "watermark_context_window"),
    ("watermark_max_probability", "watermark_mixing_probability"),
    ("watermark_default_enabled", "watermark_max_probability"),
    ("watermark_enforce_all", "watermark_default_enabled"),
    ("aux_hidden_state_capture", "enable_return_aux_hidden_states"),
)
NO_CLI_DEFAULTS: dict[str, Any] = {
    "custom_sigquit_handler": None, "grpc_worker_threads": None, "stat_loggers": None,
    "_speculative_draft_quantization_explicitly_set": None, "uses_mamba_radix_cache": False,
    "_radix_eviction_policy_explicitly_set": False, "_swa_full_tokens_ratio_explicitly_set": None,
    "speculative_boundary_reduction": "rs+rsv", "enable_cp_tp_group_sharing": False, "watermark_key": None,
    "watermark_key_b": None, "watermark_context_window": 4, "watermark_mixing_probability": 0.5,
    "watermark_max_probability": 1.0, "watermark_default_enabled": False, "watermark_enforce_all": False,
    "aux_hidden_state_capture": None,
}
#: Parser-only options that are not ServerArgs fields.
NOT_FIELDS = ("config",)
#: Fields /server_info and the server_args log line print as "<redacted>" (sglang redacts them even when unset).
REDACTED_FIELDS = ("watermark_key", "watermark_key_b", "watermark_config")

#: KV-cache dtype flag value -> (torch dtype as sglang logs it, bytes per element incl. scales).
KV_DTYPES: dict[str, tuple[str, float]] = {
    "auto": ("torch.bfloat16", 2.0),
    "bf16": ("torch.bfloat16", 2.0),
    "bfloat16": ("torch.bfloat16", 2.0),
    "fp8_e4m3": ("torch.float8_e4m3fn", 1.0),
    "fp8_e5m2": ("torch.float8_e5m2", 1.0),
    "mxfp8": ("torch.float8_e4m3fn", 1.03125),
    "nvfp4": ("torch.float4_e2m1fn_x2", 0.5625),
    "fp4_mx_block16": ("torch.float4_e2m1fn_x2", 0.53125),
}


class ResolutionError(Exception):
    """A configuration sglang would refuse at startup (it raises and the launch fails, exit status 1)."""

    def __init__(self, message: str, exc_type: str = "ValueError") -> None:
        super().__init__(message)
        self.exc_type = exc_type


@dataclass(frozen=True)
class SimOptions:
    """The twin-only (`--sim-*`) options."""

    time_scale: float = 1.0
    startup_scale: float = 90.0
    seed: int = 0
    node_seed: int = 0
    launch_seed: int | None = None  #: --sim-launch-seed; None: drawn per process (a relaunch is not bit-identical)
    domain: str = "auto"
    eos_rate: float = 0.0
    lengths: str = "domain"  #: --sim-lengths: "domain" (natural EOS per traffic domain, lengths.py) or "off"
    deployment: str | None = None
    faults: tuple[FaultSpec, ...] = ()  #: --sim-fault, parsed (see faults.py)

    @property
    def startup_divisor(self) -> float:
        """Model seconds of startup per wall second: time_scale * startup_scale."""
        return self.time_scale * self.startup_scale


@dataclass
class ServerConfig:
    """The resolved launch: every ServerArgs field plus what the engine model needs from them."""

    args: dict[str, Any]
    argv: list[str]
    sim: SimOptions
    #: Lines sglang logs while resolving (model/GPU decisions, then the speculative hooks' warnings), in order,
    #: printed before the server_args line.
    resolution_log: list[str] = field(default_factory=list)
    # Derived views (the engine reads these, not the raw dict).
    spec_algorithm: str | None = None
    spec_steps: int = 0
    spec_topk: int = 0
    spec_draft_tokens: int = 0
    spec_adaptive: bool = False  #: --speculative-adaptive in force (not disabled by resolution)
    spec_adaptive_candidates: list[int] = field(default_factory=list)
    spec_dummy_draft: bool = False  #: --speculative-draft-load-format dummy: random draft weights
    gpu_memory_mib: int = 0

    @property
    def tp_size(self) -> int:
        return int(self.args["tp_size"])

    @property
    def is_spec(self) -> bool:
        return self.spec_algorithm is not None

    @property
    def launch_command(self) -> str:
        """The original argv, space-joined, watermark config redacted (sglang's `launch_command`)."""
        out: list[str] = []
        redact_next = False
        for a in self.argv:
            if redact_next:
                out.append("<redacted>")
                redact_next = False
            elif a == "--watermark-config":
                out.append(a)
                redact_next = True
            elif a.startswith("--watermark-config="):
                out.append("--watermark-config=<redacted>")
            else:
                out.append(a)
        return " ".join(out)

    def redacted_args(self) -> dict[str, Any]:
        """The args as /server_info and the `server_args=` log line show them."""
        out = dict(self.args)
        for k in REDACTED_FIELDS:
            out[k] = "<redacted>"
        return out


def _positive_float(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid float value: {text!r}") from None
    if not v > 0:
        raise argparse.ArgumentTypeError(f"must be > 0, got {text}")
    return v


def _probability(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid float value: {text!r}") from None
    if not 0.0 <= v < 1.0:
        raise argparse.ArgumentTypeError(f"must be in [0, 1), got {text}")
    return v


def build_sim_parser(prog: str = DEFAULT_PROG) -> argparse.ArgumentParser:
    """sglang 0.5.23's launch_server parser (from the pinned catalogue) plus the twin's own argument group."""
    parser = build_parser(
        pinned_catalogue(),
        prog=prog,
        description="Engine twin: an SGLang 0.5.23-compatible server that simulates serving a large MoE model "
        "with speculative decoding (no GPU, no model weights). Accepts sglang's launch_server flags.",
    )
    g = parser.add_argument_group(
        "engine twin (not sglang flags)",
        "Options of the simulation itself. Durations the twin reports (elapsed= in logs, e2e_latency, "
        "throughput gauges) are always in model time.",
    )
    g.add_argument("--sim-time-scale", type=_positive_float, default=1.0, metavar="S",
                   help="Run S times faster than modeled: every wall-clock duration (startup, prefill, decode "
                        "steps) is divided by S. Reported durations stay in model time. Default: 1.")
    g.add_argument("--sim-startup-scale", type=_positive_float, default=90.0, metavar="X",
                   help="Extra compression of the cold start only: startup plays in model time / (S*X). The "
                        "default 90 plays a ~12-minute modeled 1T-model startup in ~8 s.")
    g.add_argument("--sim-seed", type=int, default=0, metavar="N",
                   help="Seed of request-level randomness (acceptance draws, output text); request k uses "
                        "seed N + k, except temperature-0 requests, which are seeded by their prompt (greedy: the "
                        "same prompt gives the same output). Default: 0.")
    g.add_argument("--sim-node-seed", type=int, default=0, metavar="N",
                   help="Seed of the node draw: a step-time factor within +-5%%, the same for the same seed "
                        "across relaunches. Default: 0.")
    g.add_argument("--sim-launch-seed", type=int, default=None, metavar="N",
                   help="Seed of this launch's own variation: a per-launch step-time factor, the drift phase and "
                        "the acceptance draws (a relaunch on the same node is not bit-identical). Default: drawn "
                        "per process; /sim/info reports it, so a launch can be replayed.")
    g.add_argument("--sim-domain", choices=DOMAIN_CHOICES, default="auto",
                   help="Traffic domain that sets draft acceptance. auto (default) detects it per request from "
                        "the prompt: tool if the request declares tools or the text has tool-call markers, else "
                        "code or math by marker counts, else chat (see console/sim/content/domain.py).")
    g.add_argument("--sim-eos-rate", type=_probability, default=0.0, metavar="P",
                   help="Per-token probability of a natural end of sequence (ignored with ignore_eos). "
                        "Default: 0 (outputs run to max_tokens).")
    g.add_argument("--sim-lengths", choices=("domain", "off"), default="domain",
                   help="End-of-sequence model of requests that are not ignore_eos: 'domain' (default) draws a "
                        "natural output length per request from its traffic domain's log-normal (the deployment "
                        "file's [lengths]; the request then stops with EOS, finish_reason 'stop'); 'off': outputs "
                        "run to max_tokens. See console/sim/content/lengths.py.")
    g.add_argument("--sim-deployment", "--sim-node", dest="sim_deployment", default=None, metavar="PATH",
                   help="Deployment model file (TOML) with every engine-model parameter, or a node file `serving-"
                        "console twin fit` wrote (--sim-node: the twin serves as that fitted node). Default: the "
                        "shipped Kimi-K2.6 on 4xB200 file (console/sim/deployments/kimi-k2.6-4xb200.toml).")
    g.add_argument("--sim-fault", action="append", default=None, metavar="SPEC",
                   help="Inject a fault for reliability tests (repeatable; each kind at most once). SPEC is "
                        "KIND or KIND:KEY=VALUE,KEY=VALUE... with these kinds: "
                        "'crash-at-step:step=N' - the scheduler dies with a CUDA-error traceback at the N-th decode "
                        "step after ready, then the process is SIGKILLed. "
                        "'crash-during-load:phase=P[,kind=K]' - the launch dies in phase P (weights, draft, kv or "
                        "graphs) with a traceback of kind K: oom (torch CUDA OOM, the default), import (ImportError "
                        "of a too-old dependency) or quant (compressed-tensors' pydantic ValidationError; weights "
                        "or draft only). "
                        "'stall:after_tokens=N,seconds=S[,every=K]' - a stream sends nothing for S wall seconds "
                        "(S may be inf) once N tokens were sent. "
                        "'malformed-chunk:after_tokens=N[,every=K]' - one SSE event with truncated JSON, then the "
                        "stream goes on to [DONE]. "
                        "'truncate:after_tokens=N[,every=K]' - the connection drops mid-stream (no finish chunk, "
                        "no [DONE]). "
                        "'http500:rate=P' - a fraction P of generation requests (seeded by --sim-seed) answer "
                        "HTTP 500 with SGLang's error JSON. "
                        "'slow-start:factor=F' - every startup phase takes F times longer. "
                        "'flush-busy[:count=N]' - /flush_cache answers the busy 400 even when idle (the first N "
                        "times, or always). "
                        "'acceptance-collapse:after_requests=N[,factor=F]' - after N generation requests, "
                        "every draft conditional acceptance is F times what it was (default 0: tau 1). "
                        "'prefill-stall:after_requests=N,seconds=S[,batch=B]' - once, the first prefill step "
                        "batching B (default 2) or more requests of index >= N takes S more modelled seconds. "
                        "Stream faults hit streaming chat and /generate requests (with every=K only each K-th one "
                        "since ready). GET /sim/info lists the active faults. Details: "
                        "console/sim/config/faultspec.py.")
    return parser


def parse_argv(argv: list[str], prog: str = DEFAULT_PROG) -> tuple[argparse.Namespace, SimOptions]:
    """Parse a command line; argparse errors exit with status 2 (as sglang's parser does)."""
    parser = build_sim_parser(prog)
    ns = parser.parse_args(argv)
    if ns.model_path is None:
        parser.error("the following arguments are required: --model-path/--model")
    if getattr(ns, "config", None):
        parser.error("--config (YAML) is not supported by the engine twin; pass the flags directly")
    try:
        faults = parse_faults(ns.sim_fault)
    except FaultSpecError as e:  # one line, not the ~500-line usage
        sys.stderr.write(f"{prog}: error: argument --sim-fault: {e}\n")
        raise SystemExit(2) from None
    sim = SimOptions(
        time_scale=ns.sim_time_scale,
        startup_scale=ns.sim_startup_scale,
        seed=ns.sim_seed,
        node_seed=ns.sim_node_seed,
        launch_seed=ns.sim_launch_seed,
        domain=ns.sim_domain,
        eos_rate=ns.sim_eos_rate,
        lengths=ns.sim_lengths,
        deployment=ns.sim_deployment,
        faults=faults,
    )
    return ns, sim


# ----------------------------------------------------------------------------------------------- resolution


def _with_sim_prefix(name: str) -> str:
    return name if name.startswith(SIM_PREFIX) else SIM_PREFIX + name


def decode_graph_batch_sizes(max_bs: int, speculative: bool) -> list[int]:
    """sglang's default decode CUDA-graph capture list (`cuda_graph_hook.generate_decode_cuda_graph_batch_sizes`)."""
    if not speculative:
        bs = [1, 2, 4, 8, 12] + list(range(16, 257, 8)) + list(range(272, 512, 16)) + list(range(512, max_bs + 1, 32))
    else:
        bs = (list(range(1, 9)) + list(range(10, 33, 2)) + list(range(40, 65, 4)) + list(range(72, 257, 8))
              + list(range(272, max_bs + 1, 16)))
    bs = [b for b in bs if b <= max_bs]
    if max_bs not in bs:
        bs.append(max_bs)
    return bs


def prefill_graph_token_sizes(max_tokens: int) -> list[int]:
    """sglang's default prefill CUDA-graph token buckets (`generate_prefill_cuda_graph_batch_sizes`)."""
    sizes = (list(range(4, 33, 4)) + list(range(48, 257, 16)) + list(range(288, 513, 32))
             + list(range(576, 1025, 64)) + list(range(1280, 4097, 256)) + list(range(4608, max_tokens + 1, 512)))
    return [s for s in sizes if s <= max_tokens]


def auto_mem_fraction_static(gpu_mem_mib: float, chunked_prefill_size: int, tp_size: int, decode_max_bs: int,
                             decode_graphs: bool, prefill_graphs: bool, vision_layers: int = 0,
                             vision_hidden: int = 0) -> float:
    """sglang's automatic `mem_fraction_static` (`memory_hook._handle_gpu_memory_settings`, MLA model, no DP
    attention): round((gpu_mem - reserved) / gpu_mem, 3) with reserved = 512 MiB + 1.5 MiB per activation token
    + TP/8 GiB + CUDA-graph reserve (decode max_bs * 2 MiB, 1.5 GiB for MLA prefill graphs), at least 10 GiB;
    then, for a VLM, `adjust_mem_fraction_for_vlm`: x 0.95 * clamp(1 - 0.1 * (layers*hidden^2 / (24*1024^2) - 1),
    0.8, 1.05) of the vision tower (not rounded)."""
    activation_tokens = max(chunked_prefill_size, 2048)
    reserved = 512 + activation_tokens * 1.5 + tp_size / 8 * 1024
    if decode_graphs:
        reserved += decode_max_bs * 2
    if prefill_graphs:
        reserved += 1.5 * 1024
    if gpu_mem_mib > 60 * 1024:
        reserved = max(reserved, 10 * 1024)
    frac = round((gpu_mem_mib - reserved) / gpu_mem_mib, 3)
    if vision_layers > 0:
        ratio = vision_layers * vision_hidden ** 2 / (24 * 1024 ** 2)
        frac *= 0.95 * max(0.8, min(1.05, 1.0 - 0.1 * (ratio - 1.0)))
    return frac


def _field_args(ns: argparse.Namespace) -> tuple[dict[str, Any], dict[str, Any]]:
    """(every ServerArgs field in declaration order with its parsed value, the fields' defaults)."""
    catalogue = pinned_catalogue()
    defaults = {o.dest: copy.deepcopy(o.default) for o in catalogue.options if o.dest not in NOT_FIELDS}
    defaults.update(NO_CLI_DEFAULTS)
    anchored = {f for f, _ in FIELD_ANCHORS}
    order = [d for d in dict.fromkeys(o.dest for o in catalogue.options) if d not in anchored and d not in NOT_FIELDS]
    for name, after in FIELD_ANCHORS:
        order.insert(order.index(after) + 1 if after in order else len(order), name)
    args = {k: copy.deepcopy(getattr(ns, k, defaults[k])) for k in order}
    return args, defaults


def _apply_rules(args: dict[str, Any], defaults: dict[str, Any], rules: Any, log: list[str]) -> None:
    """Model/drafter decisions of sglang's resolution: set each rule's field when left at its default."""
    for rule in rules:
        if any(args.get(k) != v for k, v in rule.when.items()):
            continue
        if rule.field:
            if args.get(rule.field) != defaults.get(rule.field):
                continue
            args[rule.field] = copy.deepcopy(rule.value)
        if rule.log:
            log.append(rule.log)


def _trtllm_mla_page_size(args: dict[str, Any], log: list[str]) -> None:
    """overrides.py: TensorRT-LLM MLA (as the prefill/decode backend) takes pages of 32 or 64 tokens; any other
    size, left unset included, becomes 64 with a warning."""
    if "trtllm_mla" not in (args.get("attention_backend"), args.get("decode_attention_backend")):
        return
    page = args.get("page_size")
    if page is None or int(page) not in (32, 64):
        log.append(f"TensorRT-LLM MLA only supports page_size of 32 or 64, changing page_size from {page} to 64.")
        args["page_size"] = 64


def resolve_server_args(ns: argparse.Namespace, sim: SimOptions, argv: list[str],
                        deployment: Deployment) -> ServerConfig:
    """Apply sglang 0.5.23's resolution rules (the subset the twin models) to parsed flags.

    Raises ResolutionError for configurations sglang refuses at startup."""
    args, defaults = _field_args(ns)
    log: list[str] = []
    cfg = ServerConfig(args=args, argv=list(argv), sim=sim, resolution_log=log,
                       gpu_memory_mib=deployment.node.gpu_memory_mib)
    user_max_running = args.get("max_running_requests")  # the memory hook runs before the speculative one

    # --- topology -------------------------------------------------------------------------------------------
    if args.get("nnodes", 1) != 1:
        raise ResolutionError("the engine twin models one node (--nnodes 1)")
    if args.get("pp_size", 1) != 1:
        raise ResolutionError("the engine twin models --pp-size 1 only")
    dp = args.get("dp_size", 1) or 1
    if dp != 1:  # parallel_hook: --dp-size N --enable-dp-attention becomes attn_dp_size N, dp_size 1
        if not args.get("enable_dp_attention"):
            raise ResolutionError("the engine twin models data parallelism as DP attention only: add "
                                  "--enable-dp-attention (a plain --dp-size runs N servers behind a router)")
        if dp < 1 or args["tp_size"] % dp:
            raise ResolutionError(f"tp_size ({args['tp_size']}) must be a multiple of dp_size ({dp}) with DP "
                                  f"attention")
        args["attn_dp_size"], args["dp_size"] = dp, 1
    if args["tp_size"] < 1:
        raise ResolutionError(f"tp_size must be positive, got {args['tp_size']}")
    if args["tp_size"] > deployment.node.num_gpus:
        raise ResolutionError(
            f"tp_size={args['tp_size']} needs more GPUs than this node has ({deployment.node.num_gpus} x "
            f"{deployment.node.gpu_name})", exc_type="RuntimeError")
    if args.get("device") is None:
        args["device"] = "cuda"
    if args.get("random_seed") is None:
        args["random_seed"] = random.Random(f"random_seed:{sim.seed}").randrange(1 << 30)

    # --- names ----------------------------------------------------------------------------------------------
    args["model_path"] = _with_sim_prefix(args["model_path"])
    args["tokenizer_path"] = _with_sim_prefix(args["tokenizer_path"]) if args.get("tokenizer_path") else args[
        "model_path"]
    args["served_model_name"] = _with_sim_prefix(args["served_model_name"] or args["model_path"])
    if args.get("kv_cache_dtype") not in KV_DTYPES:
        raise ResolutionError(f"unsupported kv_cache_dtype {args.get('kv_cache_dtype')!r}")
    draft_kv = args.get("speculative_draft_kv_cache_dtype")
    if draft_kv is not None and draft_kv not in KV_DTYPES:
        raise ResolutionError(f"unsupported speculative_draft_kv_cache_dtype {draft_kv!r}")

    # --- model/GPU decisions (overrides.py, serving_hook.py), logged before the speculative hooks' warnings ---
    _apply_rules(args, defaults, deployment.resolution.rules, log)
    _trtllm_mla_page_size(args, log)
    for k, v in deployment.resolution.defaults.items():
        if args.get(k) == defaults.get(k):
            args[k] = copy.deepcopy(v)

    # --- speculative decoding (speculative_hook.py) -----------------------------------------------------------
    algo = args.get("speculative_algorithm")
    if args.get("speculative_draft_model_path") is not None and args.get("speculative_draft_model_revision") is None:
        args["speculative_draft_model_revision"] = "main"
    if algo is not None:
        algo = algo.upper()
        if algo == "NEXTN":
            algo = "EAGLE"
        if algo not in KNOWN_ALGORITHMS:
            raise ResolutionError(f"Unknown speculative algorithm name: {algo}")
        if algo not in TWIN_ALGORITHMS:
            raise ResolutionError(f"speculative algorithm {algo} is not modeled by the engine twin "
                                  f"(modeled: {', '.join(TWIN_ALGORITHMS)} and NEXTN)", exc_type="NotImplementedError")
        args["speculative_algorithm"] = algo
        drafter = deployment.drafter_for(algo)
        if drafter is not None:
            _apply_rules(args, defaults, drafter.rules, log)
        if args.get("speculative_adaptive"):
            _resolve_adaptive(args, log, cfg)
        if algo in ("EAGLE", "EAGLE3", "STANDALONE"):
            _resolve_eagle_family(args, log)
        elif algo == "DFLASH":
            _resolve_dflash(args, log)
        elif algo == "NGRAM":
            _resolve_ngram(args, log)
        if algo != "NGRAM" and args.get("speculative_draft_model_path") is None:
            raise ResolutionError(f"{algo} speculative decoding requires setting --speculative-draft-model-path.")
        cfg.spec_algorithm = algo
        cfg.spec_steps = int(args["speculative_num_steps"])
        cfg.spec_topk = int(args["speculative_eagle_topk"])
        cfg.spec_draft_tokens = int(args["speculative_num_draft_tokens"])
        cfg.spec_dummy_draft = args.get("speculative_draft_load_format") == "dummy" and algo != "NGRAM"
    else:
        if args.get("speculative_adaptive"):
            log.append("speculative_adaptive disabled: speculative_algorithm=None (only EAGLE/EAGLE3 are supported). "
                       "Falling back to static speculative params.")
            args["speculative_adaptive"] = False
        for k in ("speculative_num_steps", "speculative_eagle_topk", "speculative_num_draft_tokens"):
            if args.get(k) is not None:
                log.append(f"{k} is set but --speculative-algorithm is not; it has no effect.")

    # --- capacity defaults on a >160 GB GPU (memory_hook.py) ---------------------------------------------------
    gpu_mem = deployment.node.gpu_memory_mib
    if args.get("chunked_prefill_size") is None:
        args["chunked_prefill_size"] = 16384 if gpu_mem >= 160 * 1024 else 8192
    decode_backend = args.get("cuda_graph_backend_decode") or "full"
    if args.get("disable_cuda_graph") or args.get("disable_decode_cuda_graph"):
        decode_backend = "disabled"
    prefill_backend = args.get("cuda_graph_backend_prefill") or "breakable"
    if args.get("disable_cuda_graph") or args.get("disable_prefill_cuda_graph"):
        prefill_backend = "disabled"
    bs_user = args.get("cuda_graph_bs_decode")
    max_bs_user = args.get("cuda_graph_max_bs_decode")
    if bs_user:
        decode_bs = sorted(int(b) for b in bs_user)
        max_bs = max(decode_bs)
    else:
        max_bs = int(max_bs_user) if max_bs_user else 512
        if max_bs_user is None and user_max_running is not None:
            max_bs = min(max_bs, int(user_max_running))
        decode_bs = decode_graph_batch_sizes(max_bs, cfg.is_spec)
    chunk = int(args["chunked_prefill_size"])
    prefill_max = args.get("cuda_graph_max_bs_prefill") or min(8192, chunk if chunk > 0 else 8192)
    prefill_bs = sorted(args["cuda_graph_bs_prefill"]) if args.get("cuda_graph_bs_prefill") else \
        prefill_graph_token_sizes(int(prefill_max))
    args["cuda_graph_config"] = {
        "decode": {"backend": decode_backend, "max_bs": max_bs, "bs": decode_bs, "tc_compiler": "eager",
                   "max_context_size": None, "full_prefill_max_req": None,
                   "full_prefill_prefix_chunk_tokens": None, "max_seq_len": None},
        "prefill": {"backend": prefill_backend, "max_bs": int(prefill_max), "bs": prefill_bs, "tc_compiler": "eager",
                    "max_context_size": None, "full_prefill_max_req": None,
                    "full_prefill_prefix_chunk_tokens": None, "max_seq_len": None},
    }
    if args.get("mem_fraction_static") is None:
        args["mem_fraction_static"] = auto_mem_fraction_static(
            gpu_mem, chunk, args["tp_size"], max_bs, decode_backend != "disabled", prefill_backend != "disabled",
            deployment.model.vision_num_layers, deployment.model.vision_hidden_size)
    if not 0.0 < float(args["mem_fraction_static"]) < 1.0:
        raise ResolutionError(f"mem_fraction_static must be in (0, 1), got {args['mem_fraction_static']}")
    if args.get("page_size") is None:
        args["page_size"] = 1
    if (cfg.spec_topk > 1 and cfg.spec_algorithm in ("EAGLE", "EAGLE3", "STANDALONE") and int(args["page_size"]) > 1
            and args.get("attention_backend") not in ("flashinfer", "fa3", "triton")):
        raise ResolutionError(
            "speculative_eagle_topk > 1 with page_size > 1 is only supported on ('flashinfer', 'fa3', 'triton'); got "
            f"attention_backend={args.get('attention_backend')!r}. Use page_size == 1 or one of those backends.")
    # --- hidden states (serving_hook.py handle_return_hidden_states_mode): the legacy flag means "full", a mode
    # turns the legacy flag on
    if args.get("return_hidden_states_mode") is None:
        if args.get("enable_return_hidden_states") or args.get("enable_return_aux_hidden_states"):
            args["return_hidden_states_mode"] = "full"
    else:
        args["enable_return_hidden_states"] = True
    args["enable_dp_attention"] = (args.get("attn_dp_size") or 1) > 1
    return cfg


def _resolve_adaptive(args: dict[str, Any], log: list[str], cfg: ServerConfig) -> None:
    """`_maybe_disable_adaptive` then `_init_adaptive_speculative_params` (speculative_hook.py), which run before
    the per-algorithm handling: adaptive needs EAGLE/EAGLE3 with topk 1; steps default to the middle candidate."""
    from .adaptive_config import AdaptiveConfigError, candidate_steps

    algo, topk = args["speculative_algorithm"], args.get("speculative_eagle_topk")
    reason = None
    if algo not in ("EAGLE", "EAGLE3"):
        reason = f"speculative_algorithm={algo} (only EAGLE/EAGLE3 are supported)"
    elif topk is not None and int(topk) != 1:
        reason = f"speculative_eagle_topk={topk} (only topk=1 is supported)"
    elif args.get("enable_two_batch_overlap"):
        reason = ("enable_two_batch_overlap=True is not supported (adaptive state swap would discard the "
                  "TboAttnBackend wrapper)")
    if reason is not None:
        log.append(f"speculative_adaptive disabled: {reason}. Falling back to static speculative params.")
        args["speculative_adaptive"] = False
        return
    try:
        candidates = candidate_steps(args.get("speculative_adaptive_config"))
    except AdaptiveConfigError as e:
        raise ResolutionError(str(e)) from None
    if topk is None:
        args["speculative_eagle_topk"] = 1
    if args.get("speculative_num_steps") is None:
        args["speculative_num_steps"] = candidates[len(candidates) // 2]
    steps = int(args["speculative_num_steps"])
    if steps not in candidates:
        raise ResolutionError(f"--speculative-num-steps={steps} is not in the adaptive config candidate_steps "
                              f"{candidates}. Pass one of those values.")
    args["speculative_num_draft_tokens"] = steps + 1
    cfg.spec_adaptive = True
    cfg.spec_adaptive_candidates = candidates


def _resolve_eagle_family(args: dict[str, Any], log: list[str]) -> None:
    if args.get("max_running_requests") is None:
        args["max_running_requests"] = 48
        log.append("Max running requests is reset to 48 for speculative decoding. You can override this by "
                        "explicitly setting --max-running-requests.")
    if args.get("enable_mixed_chunk"):
        args["enable_mixed_chunk"] = False
        log.append(f"Mixed chunked prefill is disabled: {args['speculative_algorithm']} speculative decoding "
                        "does not support it.")
    if args.get("speculative_num_steps") is None:
        if args.get("speculative_eagle_topk") is not None or args.get("speculative_num_draft_tokens") is not None:
            # sglang asserts both are None when the depth is left to the auto choice.
            raise ResolutionError("", exc_type="AssertionError")
        args["speculative_num_steps"], args["speculative_eagle_topk"], args["speculative_num_draft_tokens"] = 3, 1, 4
    if args.get("speculative_eagle_topk") is None:
        args["speculative_eagle_topk"] = 1
    steps, topk = int(args["speculative_num_steps"]), int(args["speculative_eagle_topk"])
    if (steps < 1 and not args.get("speculative_adaptive")) or topk < 1:
        raise ResolutionError("speculative_num_steps and speculative_eagle_topk must be positive")
    if topk == 1 and args.get("speculative_num_draft_tokens") != steps + 1:
        log.append("speculative_num_draft_tokens is adjusted to speculative_num_steps + 1 when "
                        "speculative_eagle_topk == 1")
        args["speculative_num_draft_tokens"] = steps + 1
    if args.get("speculative_num_draft_tokens") is None:
        raise ResolutionError("speculative_num_draft_tokens must be set when speculative_eagle_topk > 1")


def _resolve_dflash(args: dict[str, Any], log: list[str]) -> None:
    if args.get("speculative_draft_model_path") is None:
        raise ResolutionError("DFLASH speculative decoding requires setting --speculative-draft-model-path.")
    steps = args.get("speculative_num_steps")
    if steps is not None and int(steps) != 1:
        log.append(f"DFLASH only supports speculative_num_steps == 1; overriding speculative_num_steps={steps} "
                        "to 1.")
    args["speculative_num_steps"] = 1
    topk = args.get("speculative_eagle_topk")
    if topk is not None and int(topk) != 1:
        log.append(f"DFLASH only supports speculative_eagle_topk == 1; overriding speculative_eagle_topk={topk} "
                        "to 1.")
    args["speculative_eagle_topk"] = 1
    block = args.get("speculative_dflash_block_size")
    if block is not None:
        if int(block) <= 0:
            raise ResolutionError(f"DFLASH requires --speculative-dflash-block-size to be positive, got {block}.")
        ndt = args.get("speculative_num_draft_tokens")
        if ndt is not None and int(ndt) != int(block):
            raise ResolutionError(
                "Both --speculative-num-draft-tokens and --speculative-dflash-block-size are set but they differ. "
                f"For DFLASH they must match. speculative_num_draft_tokens={ndt}, "
                f"speculative_dflash_block_size={block}.")
        args["speculative_num_draft_tokens"] = int(block)
    if args.get("speculative_num_draft_tokens") is None:
        log.append("speculative_num_draft_tokens is not set; defaulting to 16 for DFLASH.")
        args["speculative_num_draft_tokens"] = 16
    if int(args["speculative_num_draft_tokens"]) < 2:
        raise ResolutionError("DFLASH needs a block of at least 2 tokens")
    window = args.get("speculative_draft_window_size")
    if window is not None and int(window) < int(args["speculative_num_draft_tokens"]):
        raise ResolutionError("--speculative-draft-window-size must be >= the DFLASH block size.")
    if args.get("max_running_requests") is None:
        args["max_running_requests"] = 48
        log.append("Max running requests is reset to 48 for speculative decoding. You can override this by "
                        "explicitly setting --max-running-requests.")


def _resolve_ngram(args: dict[str, Any], log: list[str]) -> None:
    if args.get("max_running_requests") is None:
        args["max_running_requests"] = 48
        log.append("Max running requests is reset to 48 for speculative decoding. You can override this by "
                        "explicitly setting --max-running-requests.")
    args["enable_mixed_chunk"] = False
    args["speculative_eagle_topk"] = int(args.get("speculative_ngram_max_bfs_breadth") or 10)
    if args.get("speculative_num_draft_tokens") is None:
        args["speculative_num_draft_tokens"] = 12
        log.append("speculative_num_draft_tokens is set to 12 by default for ngram speculative decoding. "
                        "You can override this by explicitly setting --speculative-num-draft-tokens.")
    if args.get("speculative_num_steps") is None:
        args["speculative_num_steps"] = max(1, int(args["speculative_num_draft_tokens"])
                                            // int(args["speculative_eagle_topk"]))
