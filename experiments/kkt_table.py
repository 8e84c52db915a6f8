"""KKT inference against M-ADMM, DVP and PP on Adult, against the noise level (Zhang, Khalili & Liu
2018, Sec. 6.2, App. E), beside a pure-noise reference and the reconstruction-robustness bound.

Setting: Adult one-hot + bias (d = 105, unit rows, non-negative features), N = 5 nodes on a
cycle with one chord (target node 0 has degree 3), B_i records per node, C = B_i, ρ = 0.22, θ = 0.5,
T iterations, f_i(0) ~ N(0, 0.1² I). M-ADMM and PP use η(t) = θ·1.1^{t−1}; PP and DVP use
α(t) = α(1)·1.05^{t−1} (PP (q1, q2) = (1.1, 1.05); DVP has η ≡ θ).

Targets: a pool of M = 1,000 distinct Adult records (500 per label) disjoint from the nodes' other
records; each of K targets is drawn uniformly from the pool and placed as node 0's first record
(the other records are fixed), so the prior over the target is uniform on the pool: the baselines
are κ = 1/M for naming it, 10/M for top-10 and 1/2 for its label. Each target runs R trials.

Attackers (``attacks.kkt``): η known (the paper's plain mean; and weighted by α²/η), η private with
a guess η̂ ∈ {θ, 10η, 0.1η}, and the two η-free estimates (late-iteration mean, subspace). The
pure-noise reference is v̂ ∼ N(0, I) through the same sign rule and ranking. Privacy: the target
node's pure β (Thm 4.1) and its optimal-composition ε at δ = 1e-5; the bound column is
min over both of the f-DP form of Balle et al. 2022's bound (``attacks.reconstruction_bound``).

    python -m experiments.kkt_table --out results/kkt
    python -m experiments.kkt_table --out /tmp/kkt --quick
"""

from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path
from typing import Any

import numpy as np

from attacks.kkt import KKTInference, KKTKnowledge, attacker_variants, node_guarantees, noise_reference, summarize
from attacks.reconstruction_bound import best_rero_bound
from solvers.builders import replace_record
from solvers.datasets import load_adult, partition_horizontal
from solvers.decentralized import DVP, MADMM, DecentralizedProblem, PenaltyPerturbation
from solvers.graph import GraphTopology

__all__ = ["build_targets", "main", "run_experiment"]

CHORD = [(0, 1), (1, 2), (2, 3), (3, 4), (4, 0), (0, 2)]
THETA, Q1, Q2, RHO, DELTA = 0.5, 1.1, 1.05, 0.22, 1e-5


def build_targets(*, records_per_node: int, n_candidates: int, n_targets: int, seed: int):
    """(base problem, pool (M, d), pool labels (M,), target indices (K,)): the pool is balanced by
    label, distinct, and disjoint from the base records."""
    data = load_adult(encoding="onehot", bias=True)
    X, y = np.asarray(data.X), np.asarray(data.y)
    rng = np.random.default_rng(seed)
    order = rng.permutation(X.shape[0])
    n_base = 5 * records_per_node
    base = order[:n_base]
    seen = set(map(bytes, X[base]))
    half = {1.0: n_candidates // 2, -1.0: n_candidates - n_candidates // 2}
    chosen: list[int] = []
    for row in order[n_base:]:  # distinct records, balanced by label, in random order
        key = X[row].tobytes()
        if half[y[row]] > 0 and key not in seen:
            seen.add(key)
            half[y[row]] -= 1
            chosen.append(int(row))
            if len(chosen) == n_candidates:
                break
    if len(chosen) < n_candidates:
        raise ValueError(f"n_candidates = {n_candidates} exceeds the distinct records available")
    pool_rows = rng.permutation(np.array(chosen))
    partition = partition_horizontal(X[base], y[base], 5, seed=seed)
    problem = DecentralizedProblem.create(
        partition, GraphTopology.from_edges(5, CHORD), C=float(records_per_node), rho=RHO
    )
    targets = rng.choice(pool_rows.size, size=n_targets, replace=False)
    return problem, X[pool_rows], y[pool_rows], targets


def _solvers(levels, T: int) -> list[tuple[str, float, PenaltyPerturbation]]:
    out: list[tuple[str, float, PenaltyPerturbation]] = [
        ("M-ADMM", math.inf, MADMM(theta=THETA, q1=Q1, n_iterations=T))
    ]
    for alpha in levels:
        out.append(("DVP", alpha, DVP(theta=THETA, alpha=alpha, q2=Q2, n_iterations=T)))
        out.append(("PP", alpha, PenaltyPerturbation(theta=THETA, q1=Q1, alpha=alpha, q2=Q2, n_iterations=T)))
    return out


def run_experiment(
    *, levels, T: int, records_per_node: int, n_targets: int, trials: int, n_candidates: int, seed: int = 0, log=print
) -> dict:
    """Every (solver, noise level, attacker) row of the table, JSON-ready."""
    problem, pool, pool_y, targets = build_targets(
        records_per_node=records_per_node, n_candidates=n_candidates, n_targets=n_targets, seed=seed
    )
    M, d = pool.shape
    rows = []
    for c, (method, alpha, solver) in enumerate(_solvers(levels, T)):
        started = time.perf_counter()
        per_attacker: dict[str, list] = {}
        privacy = None
        for k, target in enumerate(targets):
            problem_k = replace_record(problem, 0, 0, pool[target], pool_y[target])
            result = solver.run(problem_k, seed=10_000 * c + k, trials=trials, record_transcript=True)
            if privacy is None:
                privacy = node_guarantees(np.asarray(result.details.epsilons)[:, 0], DELTA)
            knowledge = KKTKnowledge.from_problem(problem_k, 0)
            for label, kwargs in attacker_variants(result.details, 0):
                attack = KKTInference(knowledge, THETA, label=label, **kwargs)
                metrics = attack.evaluate(result.transcript, pool[target], pool_y[target], pool, int(target))
                per_attacker.setdefault(label, []).append(metrics)
        if privacy is None:  # set by the first target
            raise ValueError(f"n_targets must be >= 1, got {n_targets}")
        pure, optimal = privacy[0][0], privacy[-1][0]
        bounds = {
            name: best_rero_bound(privacy, kappa)
            for name, kappa in (("top1", 1 / M), ("top10", min(1.0, 10 / M)), ("label", 0.5))
        }
        for label, parts in per_attacker.items():
            merged = {key: np.concatenate([p[key] for p in parts]) for key in parts[0]}
            rows.append(
                {
                    "method": method,
                    "alpha1": alpha,
                    "beta_pure": pure,
                    "epsilon_optimal": optimal,
                    "attacker": label,
                    **summarize(merged, M),
                    "rero_bound": bounds,
                }
            )
        log(f"{method} α(1)={alpha:g}: β={pure:.4g}, {time.perf_counter() - started:.1f} s", flush=True)
    noise = [
        noise_reference(pool[t], pool_y[t], pool, int(t), d=d, draws=200, seed=seed + k) for k, t in enumerate(targets)
    ]
    merged = {key: np.concatenate([p[key] for p in noise]) for key in noise[0]}
    rows.append(
        {
            "method": "pure-noise reference",
            "alpha1": None,
            "beta_pure": 0.0,
            "epsilon_optimal": 0.0,
            "attacker": "v̂ ∼ N(0, I)",
            **summarize(merged, M),
            "rero_bound": {"top1": 1 / M, "top10": min(1.0, 10 / M), "label": 0.5},
        }
    )
    return {
        "setting": {
            "T": T,
            "records_per_node": records_per_node,
            "C": float(records_per_node),
            "rho": RHO,
            "theta": THETA,
            "q1": Q1,
            "q2": Q2,
            "delta": DELTA,
            "n_targets": int(n_targets),
            "trials_per_target": trials,
            "n_candidates": int(M),
            "d": int(d),
            "levels": list(levels),
            "seed": seed,
            "graph": CHORD,
            "target_node": 0,
        },
        "rows": rows,
    }


def _markdown(report: dict) -> str:
    s = report["setting"]
    head = (
        f"KKT inference on Adult (d = {s['d']}), N = 5, B_i = C = {s['records_per_node']}, T = {s['T']}, "
        f"θ = {s['theta']}, η(t) = θ·{s['q1']}^(t−1) (M-ADMM, PP), α(t) = α(1)·{s['q2']}^(t−1); "
        f"{s['n_targets']} targets × {s['trials_per_target']} trials; rank among {s['n_candidates']} candidates. "
        "ReRo bound: f-DP form of Balle et al. 2022 from min(pure β, optimal-composition ε at "
        f"δ = {s['delta']:g}).\n\n"
    )
    table = (
        "| method | α(1) | β (pure) | ε (δ=1e-5) | attacker | abs cos(v̂,x₁) | cos(x̂,x₁) | median rank | top-1 | "
        "top-10 | label acc. | ReRo bound top-1 | ReRo bound label |\n|" + "---|" * 13 + "\n"
    )
    for r in report["rows"]:
        alpha = "—" if r["alpha1"] is None else ("∞" if math.isinf(r["alpha1"]) else f"{r['alpha1']:g}")
        table += (
            f"| {r['method']} | {alpha} | {r['beta_pure']:.4g} | {r['epsilon_optimal']:.4g} | {r['attacker']} | "
            f"{r['abs_cosine']:.3f} ± {r['abs_cosine_se']:.3f} | {r['cosine']:.3f} | {r['median_rank']:g} | "
            f"{r['top1']:.2f} | {r['top10']:.2f} | {r['label_accuracy']:.2f} | {r['rero_bound']['top1']:.3g} | "
            f"{r['rero_bound']['label']:.3g} |\n"
        )
    return head + table


def _figure(report: dict, path: Path) -> None:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    rows = report["rows"]
    noise = rows[-1]
    fig = Figure(figsize=(11, 4))
    FigureCanvasAgg(fig)
    axes = fig.subplots(1, 2)
    series = [
        ("PP", "η known"),
        ("PP", "η private, guess θ"),
        ("PP", "η-free, late mean"),
        ("PP", "η-free, subspace"),
        ("DVP", "η known"),
    ]
    for method, attacker in series:
        points = sorted(
            (r["alpha1"], r["abs_cosine"], r["top1"], r["rero_bound"]["top1"])
            for r in rows
            if r["method"] == method
            and r["attacker"] == attacker
            and r["alpha1"] is not None
            and math.isfinite(r["alpha1"])
        )
        if not points:
            continue
        a, cos, top1, bound = map(np.array, zip(*points, strict=True))
        axes[0].plot(a, cos, marker="o", label=f"{method}, {attacker}")
        axes[1].plot(a, top1, marker="o", label=f"{method}, {attacker}")
        if method == "PP" and attacker == "η known":
            axes[1].plot(a, bound, "k--", label="ReRo bound (PP's ε)")
    axes[0].axhline(noise["abs_cosine"], color="grey", ls=":", label="pure-noise reference")
    axes[1].axhline(noise["top1"], color="grey", ls=":", label="pure-noise reference")
    labels = ("mean |cos(v̂, x₁)|", f"top-1 rate among {report['setting']['n_candidates']}")
    for ax, ylabel in zip(axes, labels, strict=True):
        ax.set_xscale("log")
        ax.set_xlabel("α(1) (larger = less noise)")
        ax.set_ylabel(ylabel)
        ax.grid(alpha=0.3)
    axes[1].legend(fontsize=7)
    fig.suptitle("KKT inference against the noise level (Zhang, Khalili & Liu 2018, App. E)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--out", required=True, type=Path, help="output directory")
    parser.add_argument("--quick", action="store_true", help="a small smoke run (seconds)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--targets", type=int, help="number of targets K (default 10; quick 2)")
    parser.add_argument("--trials", type=int, help="trials per target R (default 2; quick 1)")
    parser.add_argument("--iterations", type=int, help="T (default 30; quick 8)")
    args = parser.parse_args(argv)
    config: dict[str, Any]  # run_experiment's keyword arguments
    if args.quick:
        config = dict(levels=(10.0, 1000.0), T=8, records_per_node=60, n_targets=2, trials=1, n_candidates=200)
    else:
        config = dict(
            levels=(0.1, 1.0, 10.0, 100.0, 1000.0, 10_000.0),
            T=30,
            records_per_node=300,
            n_targets=10,
            trials=2,
            n_candidates=1000,
        )
    for key, value in (("n_targets", args.targets), ("trials", args.trials), ("T", args.iterations)):
        if value is not None:
            if value < 1:
                parser.error(f"--{ {'n_targets': 'targets', 'trials': 'trials', 'T': 'iterations'}[key] } must be >= 1")
            config[key] = value
    args.out.mkdir(parents=True, exist_ok=True)
    report = run_experiment(seed=args.seed, **config)
    (args.out / "kkt_table.json").write_text(json.dumps(report, indent=1, ensure_ascii=False, default=float))
    markdown = _markdown(report)
    (args.out / "kkt_table.md").write_text(markdown)
    _figure(report, args.out / "kkt_table.png")
    print(markdown)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
