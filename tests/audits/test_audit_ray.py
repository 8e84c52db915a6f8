"""Audits on Ray (audits.ray_backend): the report equals the in-process one bit for bit, also when a
worker dies mid-chunk (Ray runs the chunk again); without Ray, one line says how to install it."""

import os
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from audits.ray_backend import RayUnavailable, check_backend
from audits.run import main
from audits.runner import run_spec

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]


class DyingOnce:
    """A Gaussian mean whose first chunk on D′ kills its worker process (once: a marker file remembers)."""

    def __init__(self, marker):
        self.marker = marker

    def run(self, problem, *, seeds=None, seed=None, accountants=(), record_history=False, **options):
        if seeds is None:
            seeds = [np.random.SeedSequence(seed or 0)]
        elif problem == 0.0 and not os.path.exists(self.marker):
            Path(self.marker).write_text("died once")
            os._exit(1)
        return SimpleNamespace(model=np.array([np.random.default_rng(s).normal(problem, 1.0) for s in seeds]), info={})

    def get_params(self):
        return {}


@pytest.mark.slow
def test_ray_gives_the_in_process_report_bit_for_bit_even_when_a_worker_dies(
    tiny_target, mean_spec, without_runtime, tmp_path
):
    ray = pytest.importorskip("ray", reason='Ray is not installed (pip install ".[ray]")')
    tiny = tiny_target.build(None, 1e-5, False)
    local = without_runtime(run_spec(tiny, trials=23_000, workers=1))
    marker = tmp_path / "died"
    dying = mean_spec("dying-mean", DyingOnce(str(marker)), 10.0)
    marker.write_text("not in this process")
    dying_local = without_runtime(run_spec(dying, trials=23_000, workers=1))
    marker.unlink()
    path = os.pathsep.join([str(HERE), str(ROOT)])
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, runtime_env={"env_vars": {"PYTHONPATH": path}})
    try:
        assert without_runtime(run_spec(tiny, trials=23_000, backend="ray")) == local
        checkpoint = tmp_path / "checkpoint"
        assert without_runtime(run_spec(dying, trials=23_000, backend="ray", checkpoint=checkpoint)) == dying_local
        assert marker.read_text() == "died once"  # a worker died, and its chunk ran again
        assert len(list(checkpoint.glob("chunk-*.pkl"))) == 10  # the driver recorded every chunk
    finally:
        ray.shutdown()


def test_without_ray_the_backend_says_how_to_install_it(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(RayUnavailable, match=r"pip install"):
        check_backend("ray")
    with pytest.raises(ValueError, match="backend must be one of 'processes', 'ray'"):
        check_backend("dask")
    sys.path.insert(0, str(HERE))
    try:
        assert main(["tiny_target:build", "--quick", "--backend", "ray", "--out", str(tmp_path / "out")]) == 2
    finally:
        sys.path.remove(str(HERE))
    err = capsys.readouterr().err
    assert not (tmp_path / "out").exists()
    assert err.count("\n") == 1 and "needs the optional dependency Ray" in err and "pip install" in err
