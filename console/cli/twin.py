"""`serving-console twin fit|check`: a twin of the operator's own node (docs/twin.md#9-a-twin-of-your-node).

    twin fit DIR [DIR…] --out NODE.toml [--name N] [--base DEPLOYMENT]
        the node's step model, prefill, acceptance per family and domain, and capacity per arm, fitted from every
        recorded cell under the directories (core/measure/nodefit.py), each with its sd and cells; a term the cells
        cannot identify falls back (the probe, the published tax, the base deployment) and the file says so
    twin check NODE.toml DIR [--json]
        every recorded cell under DIR beside what the fitted node predicts for it (the twin played in virtual time
        with the cell's arm and protocol), the error per cell and the median |error|
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path
from typing import Any

from console.core.exits import EXIT_OK


def add_parser(sub) -> None:
    tw = sub.add_parser("twin", help="fit the twin to a node from recorded cells, and check it against them")
    ts = tw.add_subparsers(dest="twin_cmd", metavar="fit|check", required=True)
    fi = ts.add_parser("fit", help="fit a node from recorded cells: twin fit DIR [DIR…] --out NODE.toml")
    fi.add_argument("dirs", nargs="+", type=Path, metavar="DIR", help="sessions, campaigns or cells")
    fi.add_argument("--out", required=True, type=Path, metavar="NODE.toml")
    fi.add_argument("--name", default=None, help="the node's name (default: the output file's stem)")
    fi.add_argument("--base", default=None, metavar="DEPLOYMENT",
                    help="the twin deployment the fit overlays (default: the shipped reference deployment)")
    fi.add_argument("--json", action="store_true")
    ch = ts.add_parser("check", help="predicted vs measured for every recorded cell: twin check NODE.toml DIR")
    ch.add_argument("node", type=Path, metavar="NODE.toml")
    ch.add_argument("dir", type=Path, metavar="DIR")
    ch.add_argument("--json", action="store_true")


def base_terms(dep) -> tuple[dict[str, float], dict[str, float]]:
    """The base deployment's own values of the fit's step terms (for what the cells cannot identify) and its
    prefill, read off the twin's physical model at batch 1 and 10k of context."""
    from console.sim.model.calibrate import ARMS, build_engine
    ctx = 10_000.0
    nospec = build_engine(ARMS["nospec"], dep=dep).steps
    step = {"base": nospec.decode_ms(1, 0.0), "per_request": dep.step.per_request_ms,
            "per_kctx": nospec.decode_ms(1, ctx + 1000) - nospec.decode_ms(1, ctx)}
    e6, e7 = build_engine(ARMS["eagle3-d6"], dep=dep).steps, build_engine(ARMS["eagle3-d7"], dep=dep).steps
    step["per_qkctx"] = (e7.target_ms(1, ctx + 1000, 8) - e7.target_ms(1, ctx, 8)
                         - e7.target_ms(1, ctx + 1000, 7) + e7.target_ms(1, ctx, 7))
    step["tax:EAGLE"] = e7.decode_ms(1, ctx) - e6.decode_ms(1, ctx)
    step["draft:EAGLE"] = dep.drafters["eagle3"].draft_step_ms
    step["spec_fixed:EAGLE"] = e6.decode_ms(1, ctx) - nospec.decode_ms(1, ctx) - 6 * step["tax:EAGLE"]
    d16 = build_engine(ARMS["dflash-b16"], dep=dep).steps
    d15 = build_engine(["--speculative-algorithm", "DFLASH", "--speculative-draft-model-path", "z-lab/Kimi-K2.6-DFlash",
                        "--speculative-dflash-block-size", "15"], dep=dep).steps
    step["tax:DFLASH"] = d16.decode_ms(1, ctx) - d15.decode_ms(1, ctx)
    step["spec_fixed:DFLASH"] = d16.decode_ms(1, ctx) - nospec.decode_ms(1, ctx) - 15 * step["tax:DFLASH"]
    step["draft:DFLASH"] = 0.0  # one block pass whatever the block (its per-row cost is in verify)
    step["tax:NGRAM"] = step["tax:EAGLE"]
    step["spec_fixed:NGRAM"] = step["spec_fixed:EAGLE"]
    step["draft:NGRAM"] = 0.0
    return step, {"fixed_ms": dep.prefill.fixed_ms, "per_token_ms": dep.prefill.per_token_ms}


def moe_shape(dep):
    """The base model's token cost S(T) in units of its first extra token (the fit's "moe" verify shape)."""
    from console.sim.model.calibrate import ARMS, build_engine
    return build_engine(ARMS["nospec"], dep=dep).steps.token_shape


def arm_argv(algorithm: str | None, draft_tokens: int, steps: int | None, topk: int | None) -> list[str]:
    """The twin's speculative flags for a recorded arm (the fitted node serves any model under the base's name)."""
    if not algorithm:
        return []
    a = algorithm.upper()
    if a == "DFLASH":
        return ["--speculative-algorithm", "DFLASH", "--speculative-draft-model-path", "z-lab/Kimi-K2.6-DFlash",
                "--speculative-dflash-block-size", str(draft_tokens)]
    if a == "NGRAM":
        return ["--speculative-algorithm", "NGRAM", "--speculative-num-draft-tokens", str(draft_tokens)]
    return ["--speculative-algorithm", a, "--speculative-draft-model-path", "lightseekorg/kimi-k2.6-eagle3-mla",
            "--speculative-num-steps", str(steps or max(1, draft_tokens - 1)), "--speculative-eagle-topk",
            str(topk or 1), "--speculative-num-draft-tokens", str(draft_tokens)]


def predict(dep, obs, n: int | None = None) -> float | None:
    """The fitted node's median per-request tok/s for one observation's arm and protocol (nominal node)."""
    from console.sim.model.calibrate import run_cell
    try:
        r = run_cell(arm_argv(obs.algorithm, obs.draft_tokens, obs.steps, 1), obs.domain if obs.domain in (
            "tool", "math", "code", "chat") else "chat", prompt_tokens=max(8, int(obs.prompt_tokens)),
            max_tokens=obs.max_tokens, n=max(4, n or obs.n, 2 * obs.concurrency), concurrency=obs.concurrency,
            temperature=obs.temperature, dep=dep)
    except Exception as e:  # a twin that cannot serve the arm (a flag the base deployment refuses)
        raise ValueError(f"twin check: the node cannot serve {obs.key}: {' '.join(str(e).split())[:160]}") from None
    return r.median_tok_s if r.tok_s else None


def run(args: argparse.Namespace) -> int:
    if args.twin_cmd == "fit":
        return _fit(args)
    return _check(args)


def _fit(args: argparse.Namespace) -> int:
    from rich.console import Console

    from console.core.measure.nodefit import fit_node
    from console.core.sessions.nodefile import cell_observations, node_toml
    from console.sim.config.deployment import DEFAULT_DEPLOYMENT, DeploymentError, load_deployment
    for d in args.dirs:
        if not d.exists():
            raise ValueError(f"{d}: no such directory (give sessions, campaigns or cells)")
    if args.out.exists() and args.out.is_dir():
        raise ValueError(f"--out {args.out}: a directory; give the NODE.toml file to write")
    try:
        dep = load_deployment(args.base)
    except DeploymentError as e:
        raise ValueError(f"--base: {e}") from None
    obs, probes = cell_observations(args.dirs)
    base_step, base_prefill = base_terms(dep)
    fit = fit_node(obs, name=args.name or args.out.stem, base=str(args.base or DEFAULT_DEPLOYMENT),
                   base_step=base_step, probe_tax_ms=probes, base_prefill=base_prefill, moe_shape=moe_shape(dep))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(node_toml(fit, ["serving-console", "twin", "fit", *map(str, args.dirs)]))
    if args.json:
        print(json.dumps({"node": str(args.out), **fit.to_json()}))
        return EXIT_OK
    c = Console()
    c.print(f"[bold]{fit.name}[/bold]: {len(obs)} cell observation(s) → {args.out} (step model residual sd "
            f"{fit.residual_sd_pct or 0:.1f}%)")
    for k, p in fit.step.items():
        sd = f" ± {p.sd:.3f}" if p.sd is not None else ""
        c.print(f"  step {k:<18} {p.value:9.4f}{sd} ms   {p.source}" + (f" ({p.cells} cells)" if p.cells else ""))
    for a in fit.acceptance:
        curve = " ".join(f"{x:.2f}" for x in a.conditionals_at)
        c.print(f"  acceptance {a.family} {a.domain:<5} conditionals {curve} at ~{a.context:.0f} tokens"
                f" ({a.cells} cells)")
    for n in fit.notes:
        c.print(f"  [yellow]note[/yellow]: {n}")
    return EXIT_OK


def check_rows(node: Path, d: Path) -> dict[str, Any]:
    """The `twin check --json` object: every cell observation under `d` predicted by the node at `node`."""
    from console.core.sessions.nodefile import cell_observations
    from console.sim.config.deployment import DeploymentError, load_deployment
    try:
        dep = load_deployment(node)
    except DeploymentError as e:
        raise ValueError(str(e)) from None
    if dep.fit is None:
        raise ValueError(f"{node}: not a node file (no [fit] section; `serving-console twin fit` writes one)")
    obs, _ = cell_observations([d])
    if not obs:
        raise ValueError(f"{d}: no recorded cell with a measured median (give a session or campaign directory)")
    cells: list[dict[str, Any]] = []
    for o in obs:
        fam_fit = o.family is None or o.domain in dep.fit.acceptance.get(o.family, {})
        pred = predict(dep, o)
        err = None if pred is None else 100.0 * (pred / o.median_tok_s - 1.0)
        cells.append({"key": o.key, "cell_dir": o.source, "domain": o.domain, "concurrency": o.concurrency,
                      "predicted_tok_s": pred, "measured_tok_s": o.median_tok_s, "error_pct": err,
                      "acceptance_fitted": fam_fit, "n": o.n})
    errs = [abs(float(c["error_pct"])) for c in cells if c["error_pct"] is not None]
    return {"node": dep.fit.name, "node_file": str(node), "cells": cells,
            "median_abs_error_pct": statistics.median(errs) if errs else None}


def print_check(con, out: dict[str, Any]) -> None:
    """The predicted-vs-measured table of a `check_rows` object."""
    from rich.table import Table
    t = Table(title=f"{out['node']}: predicted vs measured (median per-request tok/s, the modelled node's)")
    for col in ("cell", "predicted", "measured", "error"):
        t.add_column(col, justify="left" if col == "cell" else "right")
    for c in out["cells"]:
        mark = "" if c["acceptance_fitted"] else " (acceptance not fitted: the base's)"
        t.add_row(c["key"] + mark, "—" if c["predicted_tok_s"] is None else f"{c['predicted_tok_s']:.1f}",
                  f"{c['measured_tok_s']:.1f}", "—" if c["error_pct"] is None else f"{c['error_pct']:+.1f}%")
    con.print(t)
    m = out["median_abs_error_pct"]
    con.print(f"median |error| {m:.1f}% over {len(out['cells'])} cell observation(s)" if m is not None else "no error")


def _check(args: argparse.Namespace) -> int:
    from rich.console import Console
    if not args.node.exists():
        raise ValueError(f"{args.node}: no such node file (`serving-console twin fit … --out NODE.toml` writes one)")
    if not args.dir.exists():
        raise ValueError(f"{args.dir}: no such directory")
    out = check_rows(args.node, args.dir)
    if args.json:
        print(json.dumps(out))
        return EXIT_OK
    print_check(Console(), out)
    return EXIT_OK
