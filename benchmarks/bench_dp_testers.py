"""audits.audit on the benchmarks of DP-Sniper (Bichsel et al. 2021) and StatDP (Ding et al. 2018).

Every algorithm of :mod:`audits.testbench` is audited as a new user would: its mechanism, its
candidate pairs (the neighbour search picks one), its claim (pure ε-DP), no score function.
Each run is one row (suite, algorithm, ε₀, trials, effort, seed) of ``results.json`` in ``--out``;
a run in pieces (``--only``, ``--suite``, ``--trials``, ``--seeds``, ``--effort``) adds or replaces
its rows, and ``table.md`` is rewritten from all rows: the verdicts, the Clopper–Pearson lower bound
next to DP-Sniper's published bound and the true ε, the pair the search chose, the samples used
(pilots, calibration and audited trials, both sides) and the wall time.

  python benchmarks/bench_dp_testers.py --out docs/results/data/dp-testers --suite dpsniper --trials 100000 1000000
  python benchmarks/bench_dp_testers.py --out docs/results/data/dp-testers --suite statdp --trials 100000
  python benchmarks/bench_dp_testers.py --out docs/results/data/dp-testers --only SVT4 --effort thorough
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import audits
from audits import Claim, audit
from audits.effort import effort_preset
from audits.testbench import DPSNIPER, STATDP_EPSILONS, Algorithm, statdp_suite


def algorithms(
    suite: str, only: Iterable[str], epsilons: Iterable[float] = STATDP_EPSILONS
) -> list[tuple[Algorithm, float]]:
    """(algorithm, ε₀) of ``suite`` ("dpsniper", "statdp" or "all"), restricted to the names in
    ``only``; StatDP's at the claimed ``epsilons``."""
    chosen: list[tuple[Algorithm, float]] = []
    if suite in ("dpsniper", "all"):
        chosen += [(a, a.claimed_epsilon) for a in DPSNIPER]
    if suite in ("statdp", "all"):
        chosen += [(a, e) for e in epsilons for a in statdp_suite(e)]
    names = set(only)
    return [(a, e) for a, e in chosen if not names or a.name in names]


#: The packages whose code an audit runs.
PACKAGES = ("accountants", "mechanisms", "solvers", "attacks", "audits")


def code_version() -> str:
    """The commit of the checkout the audits are imported from, marked "+uncommitted" when its packages
    differ from it (the rows' code version, which the results page states)."""
    root = Path(audits.__file__).resolve().parents[1]

    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, check=True).stdout

    commit = git("rev-parse", "--short", "HEAD").strip()
    return commit + ("+uncommitted" if git("status", "--porcelain", "--", *PACKAGES).strip() else "")


def run_one(
    algorithm: Algorithm, epsilon0: float, trials: int | None, effort: str, seed: int, confidence: float = 0.95
) -> dict[str, Any]:
    """One audit of ``algorithm`` at ``confidence`` and the row that records it."""
    start = time.perf_counter()
    report = audit(
        algorithm.mechanism,
        None,
        neighbours=algorithm.pairs,
        claim=Claim(epsilon=algorithm.claimed_epsilon, delta=0.0),
        effort=effort,
        trials=trials,
        seed=seed,
        confidence=confidence,
        name=algorithm.name,
        progress=False,
    )
    seconds = time.perf_counter() - start
    search = report.report["neighbour_search"]
    n = int(report.report["trials"])
    calibration = int(report.report["diagnostics"]["calibration_trials"])
    bound = report.epsilon_lower["clopper_pearson"].epsilon
    rounded = report.report.get("floating_point", {}).get("rounded", {}).get("epsilon")
    second = search.get("second_stage")
    contender_trials = [] if second is None else second["trials"]
    contender_values = [] if second is None else second["pilot_predicted_epsilon"] or second["pilot_epsilon_lower"]
    return {
        "suite": algorithm.suite,
        "algorithm": algorithm.name,
        "epsilon0": epsilon0,
        "claimed_epsilon": algorithm.claimed_epsilon,
        "correct": algorithm.correct,
        "true_epsilon": None if algorithm.true_epsilon is None else algorithm.true_epsilon,
        "published_epsilon": algorithm.published_epsilon,
        "effort": effort,
        "confidence": confidence,
        "trials": n,
        "seed": seed,
        "verdict": report.verdict,
        "epsilon_lower": bound,
        "epsilon_lower_low_bits": rounded,
        "violated_by": sorted({test for tests in report.report["violated_by"].values() for test in tests}),
        "distinguisher": report.report["diagnostics"]["distinguisher"],
        "chosen_pair": search["chosen_pair"],
        "pilot_margin": search["margin"],
        "contenders": None if second is None else dict(zip(second["pairs"], contender_values, strict=True)),
        "samples": 2 * (n + calibration + search["candidates"] * search["pilot_trials"] + sum(contender_trials)),
        "seconds": round(seconds, 1),
        "code": code_version(),
    }


def _confidence(row: dict[str, Any]) -> float:
    return float(row.get("confidence", 0.95))


def key(row: dict[str, Any]) -> tuple[Any, ...]:
    return (
        row["suite"],
        row["algorithm"],
        row["epsilon0"],
        row["trials"],
        row["effort"],
        row["seed"],
        _confidence(row),
    )


def _number(value: float | None, digits: int = 4) -> str:
    if value is None:
        return "–"
    if math.isinf(value):
        return "∞"
    return f"{value:.{digits}g}"


def table(rows: list[dict[str, Any]]) -> str:
    """The Markdown table of every row (JSON stores ∞ as a string)."""
    lines = [
        "| suite | algorithm | ε₀ | correct | true ε | DP-Sniper's bound | trials/side | effort | seed | verdict | "
        "ε ≥ (ours) | low bits, rounded: ε ≥ | flagged by | pair chosen | second stage | samples | s | code |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in sorted(rows, key=lambda r: (r["suite"], r["algorithm"], r["epsilon0"], *_budget(r), r["seed"])):
        true = r["true_epsilon"]
        lines.append(
            f"| {r['suite']} | {r['algorithm']} | {r['epsilon0']:.4g} | {'yes' if r['correct'] else '**no**'} | "
            f"{_number(math.inf if true == 'inf' else true)} | {_number(r['published_epsilon'])} | "
            f"{r['trials']:.0e} | {_head(_budget(r)).split('(')[1][:-1]} | {r['seed']} | {r['verdict']} | "
            f"{r['epsilon_lower']:.4f} | "
            f"{_number(r.get('epsilon_lower_low_bits'))} | {', '.join(r.get('violated_by', [])) or '–'} | "
            f"{r['chosen_pair']} | {_second_stage(r)} | {r['samples']:.2e} | {r['seconds']:.0f} | "
            f"{r.get('code', '–')} |"
        )
    return "\n".join(lines) + "\n"


def _second_stage(row: dict[str, Any]) -> str:
    """The second stage's contenders of a row: – before the search had one, "none" where the first
    stage's leader clearly led, else the pairs with their second-stage predictions."""
    if "contenders" not in row:
        return "–"
    if row["contenders"] is None:
        return "none"
    return "; ".join(f"{name} {value:.3f}" for name, value in row["contenders"].items())


def _deciding(row: dict[str, Any]) -> tuple[float, bool]:
    """The largest bound that counts toward the verdict and whether it is the rounded low-bits test's."""
    low_bits = row.get("epsilon_lower_low_bits")
    if low_bits is not None and low_bits > row["epsilon_lower"]:
        return float(low_bits), True
    return float(row["epsilon_lower"]), False


def _cell(rows: list[dict[str, Any]]) -> str:
    """One algorithm's runs at one budget: the deciding bound of each seed, bold for a VIOLATION,
    marked † where the rounded low-bits test gave it."""
    if not rows:
        return "–"
    cells = []
    for r in sorted(rows, key=lambda r: r["seed"]):
        bound, low_bits = _deciding(r)
        text = f"{bound:.3f}{'†' if low_bits else ''}"
        cells.append(f"**{text}**" if r["verdict"] == "VIOLATION" else text)
    return "; ".join(cells)


def _budget(row: dict[str, Any]) -> tuple[int, str, float]:
    return (row["trials"], row["effort"], _confidence(row))


def _budgets(rows: list[dict[str, Any]]) -> list[tuple[int, str, float]]:
    return sorted({_budget(r) for r in rows}, key=lambda b: (b[0], b[1], -b[2]))


def _head(budget: tuple[int, str, float]) -> str:
    trials, effort, confidence = budget
    return f"{trials:.0e}/side ({effort}{'' if confidence == 0.95 else f', {100 * confidence:g} %'})"


def summary(rows: list[dict[str, Any]]) -> str:
    """The side-by-side tables of the results page: DP-Sniper's incorrect algorithms against its
    published bounds, StatDP's incorrect algorithms at each ε₀, and the correct algorithms' false
    alarms. A bound in bold is a VIOLATION (above the claim); † marks a bound of the releases' low bits
    after rounding (:mod:`audits.floating_point`), which counts toward the verdict."""
    out: list[str] = []
    budgets = _budgets(rows)
    heads = [_head(b) for b in budgets]
    sniper = [a for a in DPSNIPER if not a.correct]
    out += [
        "### DP-Sniper's incorrect algorithms (claimed ε = 0.1 unless stated)",
        "",
        "| algorithm | claim | true ε | DP-Sniper's 90 % bound (2×10^8 samples per input) | "
        + " | ".join(heads)
        + " |",
        "|---|---|---|---|" + "---|" * len(heads),
    ]
    for a in sniper:
        mine = [r for r in rows if r["suite"] == "DP-Sniper" and r["algorithm"] == a.name]
        cells = [_cell([r for r in mine if _budget(r) == b]) for b in budgets]
        out.append(
            f"| {a.name} | {a.claimed_epsilon:.3g} | {_number(a.true_epsilon)} | {_number(a.published_epsilon)} | "
            + " | ".join(cells)
            + " |"
        )
    for budget in budgets:
        done = {r["algorithm"] for r in rows if r["suite"] == "DP-Sniper" and not r["correct"] and _budget(r) == budget}
        flagged = {
            r["algorithm"]
            for r in rows
            if r["suite"] == "DP-Sniper" and not r["correct"] and _budget(r) == budget and r["verdict"] == "VIOLATION"
        }
        if done:
            out.append(
                f"\nAt {_head(budget).replace('/side', ' trials per side')}: {len(flagged)} of {len(done)} flagged."
            )
    statdp_rows = [r for r in rows if r["suite"] == "StatDP" and not r["correct"]]
    if statdp_rows:
        out += [
            "",
            "### StatDP's incorrect algorithms (StatDP reports each of them as a violation)",
            "",
            "| algorithm | ε₀ | true ε | " + " | ".join(heads) + " |",
            "|---|---|---|" + "---|" * len(heads),
        ]
        for name, e in sorted({(r["algorithm"], r["epsilon0"]) for r in statdp_rows}):
            mine = [r for r in statdp_rows if (r["algorithm"], r["epsilon0"]) == (name, e)]
            true = mine[0]["true_epsilon"]
            cells = [_cell([r for r in mine if _budget(r) == b]) for b in budgets]
            out.append(
                f"| {name} | {e:.2g} | {_number(math.inf if true == 'inf' else true)} | " + " | ".join(cells) + " |"
            )
    correct = [r for r in rows if r["correct"]]
    if correct:
        alarms = [r for r in correct if r["verdict"] == "VIOLATION"]
        out += [
            "",
            f"### Correct algorithms: {len(alarms)} false alarms in {len(correct)} audits",
            "",
            "| suite | algorithm | ε₀ | audits | largest bound | claim |",
            "|---|---|---|---|---|---|",
        ]
        for suite, name, e in sorted({(r["suite"], r["algorithm"], r["epsilon0"]) for r in correct}):
            mine = [r for r in correct if (r["suite"], r["algorithm"], r["epsilon0"]) == (suite, name, e)]
            out.append(
                f"| {suite} | {name} | {e:.3g} | {len(mine)} | {max(_deciding(r)[0] for r in mine):.4f} | "
                f"{mine[0]['claimed_epsilon']:.4g} |"
            )
    return "\n".join(out) + "\n"


def json_ready(row: dict[str, Any]) -> dict[str, Any]:
    return {k: ("inf" if isinstance(v, float) and math.isinf(v) else v) for k, v in row.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="folder of results.json and table.md")
    parser.add_argument("--suite", choices=("dpsniper", "statdp", "all"), default="all")
    parser.add_argument("--only", nargs="*", default=[], help="algorithm names (as in the catalogue)")
    parser.add_argument("--trials", type=int, nargs="*", default=[], help="trials per side (default: the effort's)")
    parser.add_argument("--seeds", type=int, nargs="*", default=[0])
    parser.add_argument("--effort", default="default")
    parser.add_argument("--epsilon0", type=float, nargs="*", default=list(STATDP_EPSILONS), help="StatDP's claimed ε₀")
    parser.add_argument("--incorrect-only", action="store_true", help="skip the correct algorithms")
    parser.add_argument("--confidence", type=float, default=0.95, help="of every bound (DP-Sniper published 0.9)")
    args = parser.parse_args()
    effort_preset(args.effort)
    chosen = algorithms(args.suite, args.only, args.epsilon0)
    if args.incorrect_only:
        chosen = [(a, e) for a, e in chosen if not a.correct]
    if not chosen:
        parser.error(f"no algorithm of suite {args.suite!r} is named {args.only}")
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / "results.json"
    rows = {key(r): r for r in (json.loads(path.read_text()) if path.exists() else [])}
    for algorithm, epsilon0 in chosen:
        for trials in args.trials or [None]:
            for seed in args.seeds:
                row = json_ready(run_one(algorithm, epsilon0, trials, args.effort, seed, args.confidence))
                rows[key(row)] = row
                print(
                    f"{row['suite']:9} {row['algorithm']:30} ε₀={epsilon0:<6.4g} {row['trials']:>9} seed {seed}: "
                    f"{row['verdict']:10} ε ≥ {row['epsilon_lower']:.4f} ({row['chosen_pair']}, {row['seconds']} s; "
                    f"second stage {row['contenders']})",
                    flush=True,
                )
                path.write_text(json.dumps(list(rows.values()), indent=1) + "\n")
                (args.out / "table.md").write_text(table(list(rows.values())))


if __name__ == "__main__":
    main()
