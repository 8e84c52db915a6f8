"""audits.report figures tell the truth at a glance: ∞ drawn as ∞, values on the bars, the verdict in a
title that fits, a legend that covers no bar, identical ROC curves merged with the reason, a single
audit drawn as one point; the terminal table names an attack's access once; --epsilon sweeps."""

from __future__ import annotations

import json
from pathlib import Path

import matplotlib
import numpy as np
import pytest

from attacks.base import AttackScores
from audits.report import bounds_figure, format_table, privacy_utility_figure, roc_figure, write_privacy_utility
from audits.report_html import MAX_BYTES
from audits.run import main

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)


def lower_bound(epsilon, method):
    short = "worst case" if method == "clopper_pearson" else "conditional on GDP"
    return {"epsilon": epsilon, "delta": 1e-5, "confidence": 0.95, "method": method, "assumption_short": short}


def report(upper=None, verdict="VIOLATION", **utility):
    upper = {"paper (Theorem 1)": 1.0, "rdp": None} if upper is None else upper
    return {
        "solver": "module.with.a.long.name:attribute_of_the_audited_mechanism",
        "trials": 100,
        "delta": 1e-5,
        "epsilon_upper": upper,
        "claimed_accountant": next(iter(upper)),
        "verdicts": {k: ("VIOLATION" if v is not None and v < 2.5 else "consistent") for k, v in upper.items()},
        "verdict": verdict,
        "lower_bounds": {"gdp": lower_bound(3.0, "gdp"), "clopper_pearson": lower_bound(2.5, "clopper_pearson")},
        "smallest_upper": min((v for v in upper.values() if v is not None), default=None),
        "utility": utility,
    }


def texts(fig):
    return [t.get_text() for ax in fig.axes for t in ax.texts] + [t.get_text() for t in fig.texts]


def test_bounds_figure_draws_infinity_values_verdict_and_a_legend_below_the_bars():
    fig = bounds_figure(report())
    ax = fig.axes[0]
    assert "1.000" in texts(fig) and "∞ (no finite bound)" in texts(fig)
    widths = [patch.get_width() for patch in ax.patches]
    assert widths == [1.0, ax.get_xlim()[1]]  # ∞ reaches the edge; the axis shows every lower bound
    assert ax.get_xlim()[1] > 3.0
    # a module:attribute target's claim is its user's, on a line of its own
    assert [t.get_text() for t in ax.get_yticklabels()] == ["paper (Theorem 1)\n(the user's claim)", "rdp"]
    # the title is the figure text that names the verdict (Figure.get_suptitle needs matplotlib >= 3.8)
    suptitle = next(t.get_text() for t in fig.texts if "verdict:" in t.get_text())
    assert suptitle.endswith("\nverdict: VIOLATION")
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    legend, frame = ax.get_legend().get_window_extent(renderer), ax.get_window_extent(renderer)
    assert legend.y1 <= frame.y0  # below the axes: it covers no bar
    title = next(t for t in fig.texts if t.get_text() == suptitle).get_window_extent(renderer)
    assert title.x0 >= 0 and title.x1 <= fig.bbox.width  # not clipped
    labels = [h.get_label() for h in ax.get_legend().legend_handles]
    assert "upper bound, VIOLATION" in labels and "upper bound, consistent" in labels
    assert any("clopper_pearson (worst case): 2.500" in label for label in labels)
    plt.close(fig)


def test_with_one_upper_bound_the_legend_stays_clear_of_the_x_axis_label():
    for upper in ({"claimed": 1.0}, {"a": 1.0, "b": 2.0, "c": None, "d": 4.0, "e": 5.0}):
        fig = bounds_figure(report(upper))
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        ax = fig.axes[0]
        legend, label = ax.get_legend().get_window_extent(renderer), ax.xaxis.label.get_window_extent(renderer)
        ticks = [t.get_window_extent(renderer) for t in ax.get_xticklabels() if t.get_text()]
        assert legend.y1 <= label.y0 and all(legend.y1 <= tick.y0 for tick in ticks)
        plt.close(fig)


def scores(values):
    return np.asarray(values, dtype=float)


def test_identical_roc_curves_are_merged_with_the_reason():
    rng = np.random.default_rng(0)
    s_in, s_out = rng.normal(1, 1, 200), rng.normal(0, 1, 200)
    attacks = [
        AttackScores("white-box NP", s_in + rng.normal(0, 0.1, 200), s_out, white_box=True),
        AttackScores("black-box loss threshold", s_in, s_out),
        AttackScores("black-box LiRA", 2 * s_in + 1, 2 * s_out + 1, metadata={"fit": [0.04, 0.095, -0.027, 0.089]}),
    ]
    fig = roc_figure({"solver": "dpadmm", "trials": 200}, attacks)
    labels = [line.get_label() for line in fig.axes[0].get_lines()]
    assert len(labels) == 3 and labels[-1] == "chance"  # two curves: the identical pair is one line
    assert labels[1].startswith("black-box loss threshold = black-box LiRA (AUROC")
    note = " ".join(texts(fig))
    assert "identical ROC, because their scores order every trial the same way" in note and "LiRA" in note
    styles = {line.get_linestyle() for line in fig.axes[0].get_lines()[:2]}
    assert len(styles) == 2  # the remaining curves differ in line style as well as colour
    assert fig.axes[1].get_ylim()[1] > 1.0  # TPR = 1 is not hidden by the frame on log axes
    plt.close(fig)


def test_one_audit_is_drawn_as_one_point_and_a_sweep_as_several():
    single = privacy_utility_figure([report(test_accuracy=0.76, test_accuracy_nonprivate=0.77)], "test_accuracy")
    assert "one audited setting" in single.axes[0].get_title()
    assert any("give --epsilon several values" in t for t in texts(single))
    plt.close(single)
    reports = [report({"rdp": eps}, test_accuracy=acc) for eps, acc in ((1.0, 0.6), (4.0, 0.7), (8.0, 0.75))]
    sweep = privacy_utility_figure(reports, "test_accuracy", ["--epsilon 0.1", "--epsilon 0.5", "--epsilon 1"])
    assert "3 audited privacy levels" in sweep.axes[0].get_title()
    assert {"--epsilon 0.1", "--epsilon 0.5", "--epsilon 1"} <= set(texts(sweep))
    proven = next(line for line in sweep.axes[0].get_lines() if line.get_label().startswith("proven"))
    np.testing.assert_array_equal(proven.get_xdata(), [1.0, 4.0, 8.0])
    np.testing.assert_array_equal(proven.get_ydata(), [0.6, 0.7, 0.75])
    plt.close(sweep)


def test_the_utility_figure_marks_both_baselines_and_a_model_at_the_majority_rate():
    values = {"test_accuracy": 0.7625, "test_accuracy_std": 0.0, "test_accuracy_nonprivate": 0.7625}
    fig = privacy_utility_figure([report(**values, test_accuracy_majority=0.7625)], "test_accuracy")
    labels = fig.axes[0].get_legend_handles_labels()[1]
    assert "baseline: majority-class rate (always the most frequent label): 0.7625" in labels
    assert "baseline: non-private (σ = 0): 0.7625" in labels
    assert "= the majority-class rate (within one std)" in fig.axes[0].get_title()
    plt.close(fig)
    better = privacy_utility_figure([report(**values, test_accuracy_majority=0.6)], "test_accuracy")
    assert "majority-class rate" not in better.axes[0].get_title()
    plt.close(better)


def test_the_labels_of_a_crowded_sweep_do_not_overlap():
    epsilons = (0.2, 0.3, 0.5, 0.7, 1.0, 1.1)
    reports = [
        {**report({"rdp": 0.5 + e}, test_accuracy=0.7625), "lower_bounds": {"gdp": lower_bound(0.4 * e, "gdp")}}
        for e in epsilons
    ]
    fig = privacy_utility_figure(reports, "test_accuracy", [f"--epsilon {e:g}" for e in epsilons])
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    ax = fig.axes[0]
    boxes = [t.get_window_extent(renderer) for t in ax.texts if t.get_text().startswith("--epsilon")]
    assert len(boxes) == len(epsilons)
    assert not any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1 :])
    legend = ax.get_legend().get_window_extent(renderer)
    assert not any(box.overlaps(legend) for box in boxes)
    plt.close(fig)


def test_no_shared_utility_means_no_privacy_utility_figure(tmp_path):
    assert write_privacy_utility([report(objective=1.0), report(test_accuracy=0.7)], tmp_path) is None
    assert not (tmp_path / "privacy_utility.png").exists()


def test_the_table_names_an_attacks_access_once():
    entry = {"white_box": True, "metrics": {"auroc": 0.75, "tpr_at_0.1%_fpr": 0.03, "tpr_at_1%_fpr": 0.07}}
    table_report = {
        **report({"rdp": 4.0}),
        "confidence": 0.95,
        "attack": {"name": "white-box NP (summed Gaussian LLR)"},
        "tightness": {"gdp": 0.75, "clopper_pearson": 0.6},
        "tightness_by_bound": {"rdp": {"gdp": 0.75, "clopper_pearson": 0.6}},
        "attacks": {"white-box NP (summed Gaussian LLR)": entry, "transcript_np": entry},
    }
    table_report["lower_bounds"] = {
        m: {**b, "assumption_short": b["assumption_short"]} for m, b in table_report["lower_bounds"].items()
    }
    table = format_table(table_report)
    assert "| white-box NP (summed Gaussian LLR) | 0.7500 |" in table
    assert "| transcript_np (white-box) | 0.7500 |" in table


def test_an_epsilon_sweep_writes_one_folder_per_value_and_one_figure(tmp_path, capsys):
    out = tmp_path / "sweep"
    argv = ["dpadmm", "--quick", "--trials", "200", "--out", str(out), "--no-progress", "--epsilon", "0.5", "1"]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    for folder in ("epsilon-0.5", "epsilon-1"):
        written = json.loads((out / folder / "report.json").read_text())
        assert written["trials"] == 200
        assert (
            f"wrote {out / folder / 'report.md'}, {out / folder / 'report.json'}, {out / folder / 'report.html'}"
            in printed
        )
        assert written["command"] in (
            f"{prog} dpadmm --quick --trials 200 --out {out} --no-progress --epsilon 0.5 1"
            for prog in ("python -m audits.run", "dp-audit")
        )  # as typed: copied into a shell, it runs this sweep again
        assert written["utility"]["test_accuracy_majority"] == 0.7625  # 1,525 of the 2,000 test labels are −1
        page = (out / folder / "report.html").read_text(encoding="utf-8")
        assert len(page.encode()) <= MAX_BYTES and page.count('src="data:image/png;base64,') == 3
        assert "baseline: predicting the most frequent test label (majority-class rate)" in page
    assert (out / "privacy_utility.png").stat().st_size > 0 and f"wrote {out / 'privacy_utility.png'}" in printed
    assert Path(printed.split("wrote ")[1].split(",")[0]).is_absolute()


@pytest.mark.parametrize(
    ("values", "message"),
    [(["0.5", "0.5"], "--epsilon values must be distinct"), (["0.5", "2"], "classic Gaussian calibration")],
)
def test_a_bad_sweep_is_refused_before_any_trial_runs(tmp_path, capsys, values, message):
    out = tmp_path / "never"
    assert main(["dpadmm", "--quick", "--out", str(out), "--no-progress", "--epsilon", *values]) == 2
    assert message in capsys.readouterr().err and not out.exists()
