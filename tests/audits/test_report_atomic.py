"""Reports and figures are written all or none (audits.atomic): a full disk leaves the output folder
with the previous complete report, or nothing new, never a half-written file."""

from __future__ import annotations

import errno
import json
import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from audits.atomic import write_files

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]


def snapshot(folder: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(folder.iterdir())}


def test_a_writer_that_fails_half_way_leaves_the_folder_as_it_was(tmp_path):
    write_files(
        tmp_path, {"report.json": lambda p: p.write_text('{"old": 1}'), "roc.png": lambda p: p.write_bytes(b"x")}
    )
    before = snapshot(tmp_path)

    def half_then_full(path):
        path.write_text('{"new": ' + "1" * 5000)  # a half-written JSON file
        raise OSError(errno.ENOSPC, "No space left on device")

    with pytest.raises(OSError, match="No space left"):
        write_files(tmp_path, {"roc.png": lambda p: p.write_bytes(b"new figure"), "report.json": half_then_full})
    assert snapshot(tmp_path) == before


def test_every_file_is_replaced_whole_and_no_temporary_file_stays(tmp_path):
    paths = write_files(tmp_path, {"a.txt": lambda p: p.write_text("first")})
    assert paths == {"a.txt": tmp_path / "a.txt"}
    write_files(tmp_path, {"a.txt": lambda p: p.write_text("second"), "b.txt": lambda p: p.write_text("b")})
    assert snapshot(tmp_path) == {"a.txt": b"second", "b.txt": b"b"}
    assert oct((tmp_path / "a.txt").stat().st_mode & 0o777) == oct(0o666 & ~_umask())


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _audit(out: Path, seed: int, file_size_limit: int | None) -> subprocess.CompletedProcess[str]:
    def limit() -> None:  # a disk that is full after file_size_limit bytes: writes fail with EFBIG
        if file_size_limit is not None:
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (file_size_limit, file_size_limit))

    command = [sys.executable, "-m", "audits.run", "tiny_target:build", "--quick", "--no-progress"]
    command += ["--seed", str(seed), "--out", str(out)]
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(HERE), str(ROOT)])}
    return subprocess.run(command, env=environment, capture_output=True, text=True, preexec_fn=limit, timeout=600)


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_FSIZE and SIGXFSZ as on Linux")
def test_a_full_disk_keeps_the_previous_complete_report_or_writes_nothing_new(tmp_path):
    out = tmp_path / "audit"
    first = _audit(out, 1, None)
    assert first.returncode == 0, first.stderr
    before = snapshot(out)
    assert set(before) == {"report.json", "report.md", "report.html", "roc.png", "bounds.png"}
    assert json.loads(before["report.json"])["seed"] == 1
    sizes = sorted(len(content) for content in before.values())
    for limit in (4096, sizes[-1] - 1):  # the first file fails, or a later one after others were complete
        failed = _audit(out, 2, limit)
        assert failed.returncode == 2, failed.stderr
        err = failed.stderr.strip()
        assert "\n" not in err and "could not be written" in err and "nothing was written" in err
        assert "Traceback" not in failed.stderr + failed.stdout
        assert snapshot(out) == before  # byte for byte, and no temporary file left
    empty = tmp_path / "new"
    failed = _audit(empty, 2, 4096)
    assert failed.returncode == 2 and list(empty.iterdir()) == []
