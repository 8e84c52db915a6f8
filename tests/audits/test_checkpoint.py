"""Audits that survive a crash (audits.checkpoint): SIGKILL of the command at random points, then
``--resume``, gives the report of an uninterrupted run byte for byte (the runtime and the command line
that ran it aside), recomputing only the chunks that were running; a checkpoint of another audit or
toolkit version is refused.

The kill test's target is ``slow_target:build``: a Gaussian mean whose every chunk sleeps and appends a
line to the file named by ``CHUNK_LOG`` when it starts.
"""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from audits import Claim, audit
from audits.checkpoint import Checkpoint, CheckpointMismatch
from audits.run import main
from audits.runner import run_spec

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
#: Trials per hypothesis of the kill test: 8 chunks of 5,000 (4 per side).
TRIALS = 20_000
#: Seconds each chunk of the kill test sleeps (tests/audits/slow_target.py).
SLEEP = 0.5


def _command(out, log, *extra, workers=2):
    command = [sys.executable, "-m", "audits.run", "slow_target:build", "--trials", str(TRIALS), "--no-progress"]
    command += ["--no-figures", *extra]
    environment = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(HERE), str(ROOT)]),
        "CHUNK_LOG": str(log),
        "DP_AUDIT_WORKERS": str(workers),
    }
    return command + ([] if "--resume" in extra else ["--out", str(out)]), environment


def _report(out):
    report = json.loads((out / "report.json").read_text())
    report.pop("runtime_seconds")
    report.pop("command")  # as typed: --resume, --backend and --out differ
    return json.dumps(report, sort_keys=True)


def _lines(path):
    return path.read_text().splitlines() if path.exists() else []


@pytest.mark.slow
def test_sigkill_at_random_points_then_resume_gives_the_uninterrupted_report(tmp_path):
    command, environment = _command(tmp_path / "whole", tmp_path / "whole.log")
    assert subprocess.run(command, env=environment, capture_output=True, timeout=600).returncode == 0
    whole = _report(tmp_path / "whole")
    assert len(_lines(tmp_path / "whole.log")) == 2 * TRIALS // 5_000
    rng = np.random.default_rng(31)
    for attempt in range(3):
        out, log = tmp_path / f"killed-{attempt}", tmp_path / f"killed-{attempt}.log"
        command, environment = _command(out, log)
        process = subprocess.Popen(command, env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        while not _lines(log) and process.poll() is None:
            time.sleep(0.05)
        time.sleep(rng.uniform(0.0, 4 * SLEEP))  # somewhere within the first chunks
        process.send_signal(signal.SIGKILL)
        process.wait()
        started = len(_lines(log))
        saved = Checkpoint(out / ".checkpoint", json.loads((out / ".checkpoint" / "fingerprint.json").read_text())).done
        assert len(saved) >= started - 2  # only the chunks running in the 2 workers were lost
        command, environment = _command(out, tmp_path / f"resumed-{attempt}.log", "--resume", str(out))
        resumed = subprocess.run(command, env=environment, capture_output=True, text=True, timeout=600)
        assert resumed.returncode == 0, resumed.stderr
        assert len(_lines(tmp_path / f"resumed-{attempt}.log")) == 2 * TRIALS // 5_000 - len(saved)
        assert _report(out) == whole
        assert not (out / ".checkpoint").exists()  # removed once the report was written


def test_a_partial_checkpoint_completes_to_the_uninterrupted_report(tiny_target, without_runtime, tmp_path):
    spec = tiny_target.build(None, 1e-5, False)
    whole = without_runtime(run_spec(spec, trials=23_000, workers=1))
    folder = tmp_path / "checkpoint"
    assert without_runtime(run_spec(spec, trials=23_000, workers=2, checkpoint=folder)) == whole
    files = sorted(folder.glob("chunk-*.pkl"))
    assert len(files) == 10  # 5 chunks per side, the last of 3,000 trials
    for path in files[::3]:  # a crash can leave any subset
        path.unlink()
    assert without_runtime(run_spec(spec, trials=23_000, workers=2, checkpoint=folder)) == whole
    assert len(list(folder.glob("chunk-*.pkl"))) == 10


@pytest.mark.parametrize(
    ("change", "field"),
    [({"seed": 1}, "seed"), ({"trials": 24_000}, "trials"), ({"confidence": 0.9}, "confidence")],
)
def test_a_checkpoint_of_another_configuration_is_refused_naming_what_differs(tiny_target, tmp_path, change, field):
    spec = tiny_target.build(None, 1e-5, False)
    options = {"trials": 23_000, "calibration_trials": 460, "workers": 1, "checkpoint": tmp_path}
    run_spec(spec, **options)
    with pytest.raises(CheckpointMismatch, match=f"belongs to another audit: its {field} is"):
        run_spec(spec, **{**options, **change})


def test_a_checkpoint_of_another_toolkit_version_is_refused(tiny_target, tmp_path, monkeypatch):
    import audits.checkpoint

    spec = tiny_target.build(None, 1e-5, False)
    run_spec(spec, trials=100, workers=1, checkpoint=tmp_path)
    monkeypatch.setattr(audits.checkpoint, "__version__", "0.0.0-other")
    with pytest.raises(CheckpointMismatch, match="its toolkit_version is"):
        run_spec(spec, trials=100, workers=1, checkpoint=tmp_path)


def test_audit_with_a_checkpoint_gives_the_same_report_and_resumes(tmp_path):
    def mechanism(dataset, rng, n):
        return dataset.sum() + rng.normal(0.0, 1.0, size=(n, 1))

    D, D_prime = np.array([1.0, 0.0]), np.array([0.0, 0.0])
    claim = Claim(epsilon=8.0, delta=1e-5, noise="gaussian")
    options = {"claim": claim, "trials": 12_000, "search_trials": 200, "progress": False}
    plain = audit(mechanism, D, D_prime, **options).report
    first = audit(mechanism, D, D_prime, checkpoint=tmp_path, **options).report
    for path in sorted(tmp_path.glob("chunk-*.pkl"))[1:]:
        path.unlink()
    resumed = audit(mechanism, D, D_prime, checkpoint=tmp_path, **options).report
    for report in (first, resumed):
        assert {k: v for k, v in report.items() if k != "runtime_seconds"} == {
            k: v for k, v in plain.items() if k != "runtime_seconds"
        }


def test_resume_without_a_checkpoint_and_a_run_over_one_are_one_line_usage_errors(tmp_path, monkeypatch, capsys):
    target = ["tiny_target:build", "--quick", "--no-progress", "--no-figures"]
    monkeypatch.syspath_prepend(str(HERE))
    assert main([*target, "--resume", str(tmp_path / "none")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--resume" in err and "no stopped audit" in err
    (tmp_path / "stopped" / ".checkpoint").mkdir(parents=True)
    assert main([*target, "--out", str(tmp_path / "stopped")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"--resume {tmp_path / 'stopped'}" in err
    assert main([*target, "--out", str(tmp_path / "a"), "--resume", str(tmp_path / "stopped")]) == 2
    assert "drop --out" in capsys.readouterr().err
