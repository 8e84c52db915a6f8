"""Audits that survive a crash: every finished chunk's outcome on disk, and a resumed run that reuses them.

A :class:`Checkpoint` is a folder holding ``fingerprint.json`` (what the audit is: target, solver
parameters, data sets, claim, trials, seed, confidence, chunk size and toolkit version, see
:func:`fingerprint`) and one file ``chunk-INDEX.pkl`` per finished chunk: the pickled
:class:`audits.chunks.ChunkOutcome`, what the attacks keep of the chunk (its scores or observations)
and its utility values. Each file is written all or none (:func:`audits.atomic.write_files`: a
temporary file, flushed to the disk, renamed), by the process that ran the chunk, as soon as it
finished; a SIGKILL at any point leaves complete chunk files only.

Every chunk's trials are fixed by the root seed and the chunk's index, so a resumed audit that reads
the recorded chunks and runs the others gives the same report, bit for bit, as an uninterrupted run
(the runtime aside); it recomputes only the chunks that were running when the audit stopped. A folder
written by another audit (any field of the fingerprint differs, the toolkit version included) is
refused: its chunks would silently mix two audits. The chunk files are pickles: resume only from a
folder your own audits wrote.
"""

from __future__ import annotations

import hashlib
import json
import pickle
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from accountants.version import __version__
from audits.atomic import write_files
from audits.chunks import ChunkOutcome
from audits.spec import AuditSpec

__all__ = ["FINGERPRINT_FILE", "Checkpoint", "CheckpointMismatch", "fingerprint"]

#: The file of a checkpoint folder that names the audit it belongs to.
FINGERPRINT_FILE = "fingerprint.json"
#: A chunk's file: ``chunk-`` then its index, zero-padded, then ``.pkl``.
_CHUNK_FILE = re.compile(r"chunk-(\d{9})\.pkl")
#: Object addresses in a repr ("<function f at 0x7f...>") differ from one process to the next.
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


class CheckpointMismatch(ValueError):
    """The checkpoint folder was written by another audit (another configuration or toolkit version)."""


def _stable_repr(value: object) -> str:
    return _ADDRESS.sub("", repr(value))


def _digest(value: object) -> str:
    """SHA-256 of ``value``'s pickle (of its address-free repr when it cannot be pickled)."""
    try:
        data = pickle.dumps(value, protocol=4)
    except Exception:  # a user's data set of any type: its repr still tells two data sets apart
        data = _stable_repr(value).encode()
    return hashlib.sha256(data).hexdigest()


def fingerprint(spec: AuditSpec, **options: object) -> dict[str, str]:
    """What identifies the chunks of an audit of ``spec`` run with ``options`` (trials, seed, …): two
    audits with the same fingerprint run the same chunks, bit for bit."""
    params = spec.solver.get_params() if hasattr(spec.solver, "get_params") else spec.solver
    return {
        "toolkit_version": __version__,
        "target": spec.name,
        "solver": f"{type(spec.solver).__module__}.{type(spec.solver).__qualname__} {_stable_repr(params)}",
        "data_sets": _digest((spec.problem_in, spec.problem_out)),
        "claim": _stable_repr(spec.claim),
        "attacks": ", ".join(attack.name for attack in spec.attacks),
        "run_options": _stable_repr(dict(spec.run_options)),
        **{key: _stable_repr(value) for key, value in sorted(options.items())},
    }


class Checkpoint:
    """The checkpoint folder ``folder`` of the audit ``identity`` (a :func:`fingerprint`): created if
    missing, reused if it holds that audit's chunks.

    Raises:
      CheckpointMismatch: ``folder`` holds another audit's checkpoint (the message names the first
        field that differs, with both values).
      ValueError: ``folder`` is a file, or its fingerprint file cannot be read.
    """

    def __init__(self, folder: Path, identity: Mapping[str, str]) -> None:
        self.folder = Path(folder).expanduser().absolute()
        if self.folder.exists() and not self.folder.is_dir():
            raise ValueError(f"checkpoint {self.folder} must be a folder, but it is a file")
        stored_path = self.folder / FINGERPRINT_FILE
        if stored_path.exists():
            try:
                stored = json.loads(stored_path.read_text(encoding="utf-8"))
            except (OSError, ValueError) as error:
                raise ValueError(f"checkpoint {self.folder}: {FINGERPRINT_FILE} cannot be read ({error})") from error
            if stored != dict(identity):
                raise CheckpointMismatch(_mismatch(self.folder, stored, identity))
        else:
            text = json.dumps(dict(identity), indent=1, ensure_ascii=False)
            write_files(self.folder, {FINGERPRINT_FILE: lambda path: path.write_text(text, encoding="utf-8")})
        self.done = frozenset(
            int(match.group(1)) for path in self.folder.iterdir() if (match := _CHUNK_FILE.fullmatch(path.name))
        )

    def path(self, index: int) -> Path:
        """The file of chunk ``index``."""
        return self.folder / f"chunk-{index:09d}.pkl"

    def load(self, index: int) -> ChunkOutcome:
        """The recorded outcome of chunk ``index`` (one of :attr:`done`).

        Raises:
          ValueError: the file cannot be read (the message names it).
        """
        try:
            with open(self.path(index), "rb") as file:
                outcome: Any = pickle.load(file)
        except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError) as error:
            raise ValueError(
                f"checkpoint chunk {self.path(index)} cannot be read ({type(error).__name__}: {error}); remove it to "
                "run that chunk again"
            ) from error
        if not isinstance(outcome, ChunkOutcome):
            raise ValueError(f"checkpoint chunk {self.path(index)} does not hold a chunk's outcome")
        return outcome

    def save(self, index: int, outcome: ChunkOutcome) -> None:
        """Record chunk ``index``'s outcome, all or none."""
        data = pickle.dumps(outcome, protocol=pickle.HIGHEST_PROTOCOL)
        write_files(self.folder, {self.path(index).name: lambda path: path.write_bytes(data)})


def _mismatch(folder: Path, stored: Mapping[str, Any], identity: Mapping[str, str]) -> str:
    keys = [*identity, *(key for key in stored if key not in identity)]
    key = next(k for k in keys if stored.get(k) != identity.get(k))
    return (
        f"checkpoint {folder} belongs to another audit: its {key} is {stored.get(key)!r:.80}, this audit's is "
        f"{identity.get(key)!r:.80}; resume with the same target and options, or use another folder"
    )
