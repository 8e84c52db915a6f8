"""Tests for solvers.plots: figures are written, and matplotlib is loaded only when plotting."""

import subprocess
import sys

import numpy as np
import pytest

from accountants import Ledger
from solvers.engine.result import Result
from solvers.plots import plot_history


def fake_result(offset, batched):
    shape = (6, 3) if batched else (6,)
    base = np.linspace(1, 0.01, 6).reshape(6, *([1] if batched else []))
    return Result(
        model=np.zeros((3, 2) if batched else 2),
        model_average=np.zeros((3, 2) if batched else 2),
        history={"objective_mean": np.broadcast_to(base + offset, shape), "test_accuracy": np.full(shape, 0.5)},
        transcript=None,
        ledger=Ledger(),
        privacy={},
        delta=None,
        seeds=(0,),
    )


def test_figures_are_written_per_metric(tmp_path):
    runs = {"A": [fake_result(0, True), fake_result(0.1, False)], "B": fake_result(1.0, False)}
    paths = plot_history(runs, tmp_path / "figs", prefix="x", title="t")
    assert [p.name for p in paths] == ["x_objective_mean.png", "x_test_accuracy.png"]
    assert all(p.stat().st_size > 1000 and p.read_bytes()[:4] == b"\x89PNG" for p in paths)


def test_missing_metric_is_named(tmp_path):
    with pytest.raises(KeyError, match="consensus"):
        plot_history({"A": fake_result(0, False)}, tmp_path, metrics=["consensus"])


def test_importing_solvers_loads_neither_matplotlib_nor_sklearn():
    code = (
        "import sys, solvers; from solvers import DPADMM, plots; "
        "assert 'matplotlib' not in sys.modules and 'sklearn' not in sys.modules; "
        "solvers.plot_history; assert 'matplotlib' not in sys.modules; print('ok')"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "ok"
