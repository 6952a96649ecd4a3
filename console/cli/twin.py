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
import math
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
        c.print(f"  step {k:<18} {p.value:9.4f}{sd} ms   {p.source}" + (f" ({p.cells} cells)" if p.cells else ""),
                markup=False, emoji=False, highlight=False)
    for a in fit.acceptance:
        curve = " ".join(f"{x:.2f}" for x in a.conditionals_at)
        c.print(f"  acceptance {a.family} {a.domain:<5} conditionals {curve} at ~{a.context:.0f} tokens"
                f" ({a.cells} cells)")
    for n in fit.notes:
        c.print(f"  note: {n}", markup=False, emoji=False, highlight=False)
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


# --------------------------------------------------------------------------------------------- a campaign on paper

#: a group's predicted winner is called settled when it wins in at least this share of the parameter draws
SETTLED = 0.9


def _perturbed_fit(node: Path, rng):
    """One draw of the node's parameters from their uncertainty: every step and prefill term from N(value, sd)
    (independently: the file keeps sds, not covariances, so this overstates the spread of terms the fit traded
    against each other), every conditional from N(c, c(1 − c)/steps) of the verify steps it rests on."""
    import tomllib

    from console.sim.config.deployment import node_fit_from
    raw = tomllib.loads(node.read_text())
    f = raw["fit"]
    for group in ("step", "prefill"):
        for term in (f.get(group) or {}).values():
            if isinstance(term, dict) and isinstance(term.get("sd"), (int, float)):
                term["value"] = float(term["value"]) + rng.gauss(0.0, float(term["sd"]))
    for a in f.get("acceptance") or []:
        steps = list(a.get("verify_steps") or [])
        a["conditionals"] = [min(0.98, max(0.02, c + rng.gauss(0.0, (c * (1 - c) / max(1, steps[i])) ** 0.5)))
                             if i < len(steps) else c for i, c in enumerate(a["conditionals"])]
    return node_fit_from(raw, node)


def plan_forecast(plan, node: Path, draws: int = 8, seed: int = 0) -> dict[str, Any]:
    """Every cell of `plan` predicted on the fitted node at `node` (virtual time, the plan's protocol, the prompt
    set's mean prompt length), once at the fitted values and `draws` times more at parameters drawn from their
    uncertainty; per prompt set and concurrency the predicted routing (the highest median per-request tok/s), the
    share of draws in which it still wins, and the cells worth measuring: those of a group not settled (< 90% of
    draws), and those whose acceptance the fit did not measure (the base deployment's), measured only at another
    context (> 1.41x away), or that run more streams than the fitted cells did."""
    import dataclasses
    import random

    from console.core.workload.prompts import load_set
    from console.sim.config.deployment import DeploymentError, fit_family, load_deployment
    from console.sim.model.calibrate import run_cell
    try:
        dep = load_deployment(node)
    except DeploymentError as e:
        raise ValueError(f"--sim-node: {e}") from None
    if dep.fit is None:
        raise ValueError(f"--sim-node {node}: not a node file (no [fit] section; `serving-console twin fit` "
                         "writes one)")
    import tomllib
    fitraw = tomllib.loads(node.read_text())["fit"]
    fitted_cells = [str(c) for c in fitraw.get("cells") or []]
    rng = random.Random(seed)
    deps = [dep] + [dataclasses.replace(dep, fit=_perturbed_fit(node, rng)) for _ in range(draws)]
    ptoks: dict[str, int] = {}
    cells: list[dict[str, Any]] = []
    for cp in plan.cells():
        arm = plan.arm(cp.arm).profile.arm
        if cp.prompt_set not in ptoks:
            pset = load_set(cp.prompt_set)
            ptoks[cp.prompt_set] = round(sum(p.tokens for p in pset.prompts) / max(1, len(pset.prompts)))
        argv = arm_argv(arm.algorithm, arm.verify_tokens, arm.steps, arm.topk)
        if arm.kv_dtype not in ("auto", "", None):
            argv += ["--kv-cache-dtype", arm.kv_dtype]
        fam = fit_family(arm.algorithm)
        med, agg = [], []
        for d in deps:
            try:
                r = run_cell(argv, cp.domain, prompt_tokens=ptoks[cp.prompt_set], max_tokens=cp.protocol.max_tokens,
                             n=max(4, cp.protocol.n, 2 * cp.concurrency), concurrency=cp.concurrency,
                             temperature=cp.protocol.temperature if cp.protocol.temperature is not None else 0.6,
                             dep=d)
            except Exception as e:  # the node cannot serve the arm (a flag the base deployment refuses)
                raise ValueError(f"--sim-node: the fitted node cannot serve {cp.key}: "
                                 f"{' '.join(str(e).split())[:160]}") from None
            med.append(r.median_tok_s)
            agg.append(r.total_tokens / r.makespan_s if r.makespan_s else 0.0)
        why = []
        fa = dep.fit.acceptance.get(fam or "", {}).get(cp.domain)
        ctx = ptoks[cp.prompt_set] + cp.protocol.max_tokens / 2
        if fam is not None and fa is None:
            why.append(f"{fam} acceptance on {cp.domain} not measured (the base deployment's)")
        elif fam is not None and fa is not None and min(abs(math.log10(ctx / c0)) for c0, _ in fa.curves) > 0.15:
            near = min((c0 for c0, _ in fa.curves), key=lambda c0: abs(math.log10(ctx / c0)))
            why.append(f"{fam} acceptance on {cp.domain} measured only at ~{near:.0f} tokens of context (this cell "
                       f"~{ctx:.0f})")
        cells.append({"key": cp.key, "arm": cp.arm, "prompt_set": cp.prompt_set, "concurrency": cp.concurrency,
                      "prompt_tokens": ptoks[cp.prompt_set], "predicted_tok_s": med[0],
                      "interval_tok_s": _spread(med[1:]) if draws else None, "aggregate_tok_s": agg[0],
                      "interval_aggregate_tok_s": _spread(agg[1:]) if draws else None, "_draws": med[1:],
                      "worth_measuring": why})
    conc_range = _fitted_range(fitted_cells)
    groups: dict[tuple[str, int], list[dict[str, Any]]] = {}
    for c in cells:
        groups.setdefault((c["prompt_set"], c["concurrency"]), []).append(c)
        if conc_range and not (conc_range[0] <= c["concurrency"] <= conc_range[1]):
            c["worth_measuring"].append(f"{c['concurrency']} streams outside the fitted {conc_range[0]}-"
                                        f"{conc_range[1]}")
    routing = []
    for (ps, conc), cs in groups.items():
        best = max(cs, key=lambda c: c["predicted_tok_s"])
        wins = (sum(1 for i in range(draws) if max(cs, key=lambda c: c["_draws"][i]) is best) / draws
                if draws and len(cs) > 1 else 1.0)
        ranked = sorted(cs, key=lambda c: -c["predicted_tok_s"])
        settled = wins >= SETTLED
        if not settled:
            for c in ranked[:2]:
                c["worth_measuring"].append(f"would decide {ps} at c{conc}: {best['arm']} wins in {100 * wins:.0f}% "
                                            f"of the parameter draws")
        routing.append({"prompt_set": ps, "concurrency": conc, "winner": best["arm"],
                        "runner_up": ranked[1]["arm"] if len(ranked) > 1 else None,
                        "margin_pct": 100 * (ranked[0]["predicted_tok_s"] / ranked[1]["predicted_tok_s"] - 1)
                        if len(ranked) > 1 and ranked[1]["predicted_tok_s"] else None,
                        "p_win": wins, "settled": settled})
    for c in cells:
        c.pop("_draws")
    return {"node": dep.fit.name, "node_file": str(node), "draws": draws, "cells": cells, "routing": routing,
            "worth_measuring": [c["key"] for c in cells if c["worth_measuring"]]}


def _spread(xs: list[float]) -> list[float] | None:
    """The 5th and 95th percentiles of the draws."""
    if len(xs) < 2:
        return None
    q = statistics.quantiles(xs, n=20, method="inclusive")
    return [q[0], q[-1]]


def _fitted_range(cells: list[str]) -> tuple[int, int] | None:
    """The streams the fit's cells ran at, from their manifests (None when they cannot be read)."""
    from console.core.sessions.store import read_json
    cs = []
    for c in cells:
        try:
            cs.append(int((read_json(Path(c) / "manifest.json").get("protocol") or {}).get("concurrency") or 1))
        except (OSError, ValueError, AttributeError):
            continue
    return (min(cs), max(cs)) if cs else None


def print_plan_forecast(con, out: dict[str, Any]) -> None:
    from rich.table import Table
    t = Table(title=f"on paper: fitted node {out['node']} ({out['draws']} draws of its parameters; median "
                    f"per-request tok/s [5th, 95th], the modelled node's)", title_justify="left")
    for col in ("set", "conc", "arm", "predicted", "aggregate", "worth measuring"):
        t.add_column(col, justify="right" if col in ("conc", "predicted", "aggregate") else "left")
    for c in out["cells"]:
        iv = c["interval_tok_s"]
        t.add_row(c["prompt_set"], str(c["concurrency"]), c["arm"],
                  f"{c['predicted_tok_s']:.1f}" + (f" [{iv[0]:.1f}, {iv[1]:.1f}]" if iv else ""),
                  f"{c['aggregate_tok_s']:.0f}", "; ".join(c["worth_measuring"]) or "—")
    con.print(t)
    for r in out["routing"]:
        m = "" if r["margin_pct"] is None else f" by {r['margin_pct']:+.1f}% over {r['runner_up']}"
        con.print(f"  {r['prompt_set']} c{r['concurrency']}: {r['winner']}{m}; wins in {100 * r['p_win']:.0f}% of "
                  f"draws ({'settled' if r['settled'] else 'worth measuring'})", markup=False, highlight=False)
    n = len(out["worth_measuring"])
    con.print(f"{n} of {len(out['cells'])} cells worth renting for (they would change a decision, or the fit "
              f"has not seen their like)", markup=False, highlight=False)
