"""An audit run with histograms=True gives the report of the audit that keeps every score, bit for bit,
with any number of worker processes and resumed from a partial checkpoint (the chunks' files are the same
in both modes), figures included; what it cannot give (a section that reads every score, an attack with
several scores a trial) is an error that says so."""

import dataclasses

import numpy as np
import pytest

from attacks.base import ScoreAttack
from audits.chunk_histograms import ChunkHistograms
from audits.histogram_scores import HistogramScores
from audits.report import write_audit
from audits.runner import run_spec
from audits.spec import Claim, Finding
from audits.stats import Bonferroni, Split
from benchmarks.bench_audit_memory import target

TRIALS = 12_000  # three chunks per side, the last of 2,000 trials


class Pairs:
    """An attack that keeps its observations as they are (not scores): its means, one per chunk."""

    name = "pairs"

    def observe(self, result, on_d):
        return ("mean", float(result.model.mean()))

    def conclude(self, seen_on_d, seen_on_d_prime):
        from attacks.base import AttackScores

        return AttackScores(self.name, np.array([m for _, m in seen_on_d]), np.array([m for _, m in seen_on_d_prime]))


def _spec(threshold="split", attacks=None, sections=()):
    """The Gaussian mean of ``benchmarks/bench_audit_memory.py`` with these attacks, threshold and sections."""
    attacks = attacks or (
        ScoreAttack("eighths", lambda r: np.round(r.model * 8) / 8),  # −0 among them: counted as 0
        ScoreAttack("tenths of twice", lambda r: np.round(2.0 * r.model, 1), white_box=False),
        Pairs(),
    )
    return dataclasses.replace(target(), attacks=attacks, threshold=threshold, sections=sections)


def test_histograms_give_the_report_bit_for_bit_with_workers_and_resume(tmp_path, without_runtime):
    spec = _spec()
    kept = run_spec(spec, trials=TRIALS, workers=1, progress=False)
    counted = run_spec(spec, trials=TRIALS, workers=1, progress=False, histograms=True)
    assert without_runtime(counted) == without_runtime(kept)
    assert [type(a).__name__ for a in counted.attacks] == ["HistogramScores", "HistogramScores", "AttackScores"]
    assert counted.observations["eighths"] == ([], []) and len(counted.observations["pairs"][0]) == 3
    assert counted.attacks[1].white_box is False and kept.attacks[1].white_box is False
    folder = tmp_path / "checkpoint"
    assert without_runtime(run_spec(spec, trials=TRIALS, workers=2, checkpoint=folder, histograms=True)) == (
        without_runtime(kept)
    )
    for path in sorted(folder.glob("chunk-*.pkl"))[::2]:  # a stopped audit: some chunks recorded
        path.unlink()
    resumed = run_spec(spec, trials=TRIALS, workers=2, checkpoint=folder, histograms=True)
    assert without_runtime(resumed) == without_runtime(kept)
    written = {}
    for name, result in (("kept", kept), ("counted", resumed)):
        report = {**result.report, "runtime_seconds": 0}
        paths = write_audit(report, list(result.attacks), tmp_path / name, figures=False)  # the PNGs: slow
        written[name] = {key: path.read_bytes() for key, path in paths.items() if key in ("json", "md", "html")}
    assert written["counted"] == written["kept"]


@pytest.mark.parametrize("threshold", [Bonferroni(20), Split(0.5, seed=7)])
def test_every_threshold_strategy_gives_the_bounds_of_the_scores(threshold, without_runtime):
    spec = _spec(threshold, attacks=(ScoreAttack("quarters", lambda r: np.round(r.model * 4) / 4),))
    kept = run_spec(spec, trials=10, workers=1, progress=False)
    assert without_runtime(run_spec(spec, trials=10, workers=1, progress=False, histograms=True)) == (
        without_runtime(kept)
    )


def test_what_histograms_cannot_give_is_an_error_that_says_so():
    def reads_scores(context):
        return Finding(report={"mean": float(context.attacks[0].scores_in.mean())})

    with pytest.raises(ValueError, match="'eighths' kept its scores as histograms"):
        run_spec(_spec(sections=(reads_scores,)), trials=10, workers=1, progress=False, histograms=True)
    with pytest.raises(TypeError, match="histograms must be True or False, got 'yes'"):
        run_spec(_spec(), trials=10, workers=1, progress=False, histograms="yes")
    counted = ChunkHistograms(4, Split())
    assert counted.keep("a", True, np.array([1.0, 2.0]))
    with pytest.raises(ValueError, match="one float64 score per trial.*after 2 scores"):
        counted.keep("a", True, np.array([1.0, 2.0, 3.0]))
    with pytest.raises(ValueError, match="holds no score on D .or a part of it. yet"):
        counted.sides("a")
    assert not counted.keep("b", True, ("not", "scores"))
    assert isinstance(HistogramScores, type)


def test_a_users_mechanism_audited_with_histograms_gives_the_same_report(without_runtime):
    from audits import audit

    def mechanism(data, rng, n):
        return data + rng.laplace(0.0, 1.0, n)

    options = {
        "D": 0.0,
        "D_prime": 1.0,
        "claim": Claim(statement="1-DP", delta=0.0, epsilon=1.0, noise="laplace"),
        "trials": 2_000,
        "effort": "quick",
        "resolution": 1e-3,
        "progress": False,
        "score": lambda releases: -releases.ravel(),  # no search: D = 0 releases the smaller values
    }
    kept = audit(mechanism, **options)
    counted = audit(mechanism, histograms=True, **options)
    assert without_runtime(counted) == without_runtime(kept)  # the floating-point section's bounds included
    low_bits = next(a for a in counted.attacks if a.attack == "floating-point low bits")
    with pytest.raises(ValueError, match="needs another split"):
        low_bits.sides(Split(0.5))
    assert low_bits.sides(Bonferroni()) == (low_bits.histogram_in, low_bits.histogram_out)
