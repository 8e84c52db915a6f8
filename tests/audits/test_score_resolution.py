"""A declared resolution of the scores (``run_spec(resolution=R)``, ``dp-audit --resolution R``): each attack's
audited scores rounded to multiples of R as they are read give the report of an attack that rounds them itself,
bit for bit, with histograms or without; the histograms then hold at most the grid's points whatever the trials;
the report states R; a bad R is a one-line usage error; a checkpoint of another resolution is refused."""

import dataclasses
import json

import jsonschema
import numpy as np
import pytest

from attacks.base import ScoreAttack
from audits.chunk_histograms import ChunkHistograms, rounded
from audits.distinguishers import quantize
from audits.report import json_ready, report_markdown, report_schema
from audits.report_html import report_page
from audits.run import main, run_audit
from audits.runner import run_spec
from audits.stats import Bonferroni
from benchmarks.bench_audit_memory import target

from .conftest import HERE

TRIALS = 6_000  # two chunks per side, the last of 1,000 trials
STEP = 0.25


def _rounding_itself(spec):
    """``spec`` whose attacks round their own scores to multiples of :data:`STEP`."""
    attacks = tuple(
        ScoreAttack(a.name, lambda result, a=a: quantize(a.score(result), STEP), white_box=a.white_box)
        for a in spec.attacks
    )
    return dataclasses.replace(spec, attacks=attacks)


def test_rounded_scores_give_the_report_of_an_attack_that_rounds_them_with_histograms_or_without(without_runtime):
    options = {"trials": TRIALS, "workers": 1, "progress": False}
    raw = target()  # three attacks, continuous scores
    itself = run_spec(_rounding_itself(raw), **options)
    counted = run_spec(raw, **options, histograms=True, resolution=STEP)
    kept = run_spec(raw, **options, resolution=STEP)
    assert without_runtime(counted) == without_runtime(kept)
    assert counted.report["score_resolution"] == STEP
    stated = json.loads(without_runtime(counted))
    stated.pop("score_resolution")
    assert stated == json.loads(without_runtime(itself))
    assert counted.attacks[0].histogram_in.values.size <= 2 + 2 * np.max(np.abs(itself.attacks[0].scores_in)) / STEP
    unrounded = run_spec(raw, **options)
    assert unrounded.report["epsilon_lower"] != itself.report["epsilon_lower"]  # the rounding reached the bounds
    assert "score_resolution" not in unrounded.report
    report = counted.report
    assert "* **score_resolution**: 0.25" in report_markdown(report)
    assert "<tr><th>scores rounded to multiples of</th><td>0.25</td></tr>" in report_page(report)
    assert list(jsonschema.Draft202012Validator(report_schema()).iter_errors(json_ready(report))) == []


def test_the_histograms_hold_at_most_the_grids_points_whatever_the_trials():
    rng = np.random.default_rng(0)
    sizes = {}
    for trials in (1_000, 100_000):
        for resolution in (None, 0.01):
            counted = ChunkHistograms(trials, Bonferroni())
            for on_d in (True, False):
                for lo in range(0, trials, 5_000):
                    counted.keep("u", on_d, rounded(rng.random(min(5_000, trials - lo)), resolution))
            sizes[trials, resolution] = [side.values.size for side in counted.sides("u")]
    assert sizes[100_000, None] == [100_000, 100_000]
    assert sizes[1_000, 0.01] == [101, 101] and sizes[100_000, 0.01] == [101, 101]  # 0, 0.01, …, 1
    assert rounded(("not", "scores"), 0.01) == ("not", "scores")
    assert rounded(np.arange(3), 0.01).dtype == np.int64  # integers are not counted into histograms: unrounded


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("0", "resolution must be finite and > 0 (a real number), got 0.0"),
        ("-1", "resolution must be finite and > 0 (a real number), got -1.0"),
        ("nan", "resolution must be finite and > 0 (a real number), got nan"),
        ("inf", "resolution must be finite and > 0 (a real number), got inf"),
        ("a", "argument --resolution: invalid float value: 'a'"),
    ],
)
def test_a_bad_resolution_is_a_one_line_usage_error(tmp_path, monkeypatch, capsys, value, expected):
    monkeypatch.syspath_prepend(str(HERE))
    out = tmp_path / "out"
    try:
        status = main(["tiny_target:build", "--quick", "--no-progress", "--out", str(out), "--resolution", value])
    except SystemExit as stop:  # argparse's own error, in the command's format
        status = stop.code
    assert status == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and expected in err
    assert not out.exists()


def test_a_bad_resolution_in_the_python_api_names_the_argument():
    with pytest.raises(TypeError, match="resolution must be finite and > 0 .a real number., got 'fine'"):
        run_spec(target(), trials=10, workers=1, progress=False, resolution="fine")
    with pytest.raises(ValueError, match="resolution must be finite and > 0 .a real number., got 0"):
        run_audit("dpadmm", quick=True, resolution=0)


def test_a_resume_with_another_resolution_is_refused(tmp_path, monkeypatch, capsys):
    monkeypatch.syspath_prepend(str(HERE))
    out = tmp_path / "stopped"
    run_audit("tiny_target:build", quick=True, progress=False, checkpoint=out / ".checkpoint", resolution=0.5)
    target = ["tiny_target:build", "--quick", "--no-progress", "--no-figures", "--resume", str(out)]
    for other, stated in ((["--resolution", "0.25"], "0.25"), ([], "None")):
        assert main([*target, *other]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "belongs to another audit: its resolution is '0.5'" in err
        assert f"this audit's is {stated if stated == 'None' else repr(stated)}" in err
