"""The audit's progress bar (audits.progress): trials, rate, time left and the tightness reached so far on
a terminal; silent when standard error is not a terminal or with --quiet; the report never depends on it."""

import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from audits import progress
from audits.progress import AuditProgress, lower_so_far, tightness_text
from audits.run import main
from audits.runner import deciding_bounds, run_spec
from audits.stats import clopper_pearson_audit, gdp_audit

HERE = Path(__file__).resolve().parent


class FastMean:
    """A Gaussian mean, one generator per chunk (fast; the report of a given chunking is still fixed)."""

    def run(self, problem, *, seeds=None, seed=0, **options):
        seeds = [np.random.SeedSequence(seed)] if seeds is None else seeds
        model = np.random.default_rng(seeds[0]).normal(problem, 1.0, len(seeds))
        return SimpleNamespace(model=model, info={})


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def test_the_tightness_is_the_lower_bound_over_the_claim():
    assert tightness_text(2.5, 5.0) == "ε ≥ 2.5, 0.50 of claimed 5"
    assert tightness_text(0.123456, None) == "ε ≥ 0.123"
    assert tightness_text(1.0, float("inf")) == "ε ≥ 1"


def test_a_preview_is_computed_once_per_period_and_never_costs_more_than_its_share(capsys):
    clock, calls = Clock(), []

    def lower():
        calls.append(clock.now)
        clock.now += 5.0  # each preview takes 5 s: the next waits 10 × 5 = 50 s
        return 1.5

    bar = AuditProgress(100, "audit x", enabled=True, claimed=3.0, clock=clock)
    for now in (10.0, 29.9, 30.0, 70.0, 84.9, 85.0):
        clock.now = now
        bar.chunk_read(lower)
    bar.close()
    assert calls == [30.0, 85.0]  # 30 s after the start, then 50 s after the first preview ended
    assert bar.latest == 1.5
    assert "ε ≥ 1.5, 0.50 of claimed 3" in capsys.readouterr().err


def test_a_hidden_bar_computes_no_preview(capsys):
    clock = Clock()
    bar = AuditProgress(100, "audit x", enabled=False, claimed=3.0, clock=clock)
    clock.now = 1e6
    bar.update(50)
    bar.chunk_read(lambda: pytest.fail("a hidden bar computed a preview"))
    bar.close()
    assert capsys.readouterr().err == ""


def test_the_preview_is_the_reports_bound_on_the_chunks_read_so_far(tiny_target):
    spec = tiny_target.build(None, 1e-5, False)
    rng = np.random.default_rng(1)
    read = {"identity": ([rng.normal(1.0, 1.0, 5_000), rng.normal(1.0, 1.0, 5_000)], [rng.normal(0.0, 1.0, 5_000)])}
    methods = deciding_bounds(spec.claim)
    assert methods == ("gdp", "clopper_pearson")
    scores_in, scores_out = np.concatenate(read["identity"][0]), read["identity"][1][0]
    expected = max(
        clopper_pearson_audit(scores_in, scores_out, delta=1e-5).epsilon,
        gdp_audit(scores_in, scores_out, delta=1e-5).epsilon,
    )
    assert lower_so_far(spec, read, methods=methods, confidence=0.95) == expected > 2.0
    assert lower_so_far(spec, {"identity": (read["identity"][0], [])}, methods=methods, confidence=0.95) is None


def test_the_bar_shows_the_tightness_and_the_report_does_not_depend_on_it(
    mean_spec, without_runtime, monkeypatch, capsys
):
    spec = mean_spec("fast-mean", FastMean(), 5.0)
    quiet = without_runtime(run_spec(spec, trials=6_000, workers=1, progress=False))
    monkeypatch.setattr(progress, "PREVIEW_SECONDS", 0.0)
    shown = without_runtime(run_spec(spec, trials=6_000, workers=1, progress=True))
    err = capsys.readouterr().err
    assert "audit fast-mean" in err and "trial/s" in err
    assert "ε ≥ " in err and " of claimed 5" in err
    assert shown == quiet


@pytest.mark.parametrize("flag", ["--quiet", "--no-progress"])
def test_on_a_terminal_the_command_shows_the_bar_unless_quiet(tiny_target, flag, tmp_path, monkeypatch, capsys):
    monkeypatch.syspath_prepend(str(HERE))
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    command = ["tiny_target:build", "--trials", "200", "--no-figures"]
    assert main([*command, "--out", str(tmp_path / "bar")]) == 0
    assert "audit gaussian-mean" in capsys.readouterr().err
    assert main([*command, flag, "--out", str(tmp_path / "quiet")]) == 0
    assert capsys.readouterr().err == ""
