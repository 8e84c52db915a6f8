"""Every solver by name: the toolkit's own, those of other installed packages, and ``module:attribute``.

``solver_class(name)`` resolves, in order:

  1. a built-in name (:data:`BUILT_IN`, the ``name`` each solver reports in its results);
  2. a name another installed package registers in the entry-point group :data:`SOLVER_GROUP`
     (in its ``pyproject.toml``: ``[project.entry-points."dp_admm_audit.solvers"]``
     ``my_admm = "mypkg.solver:MyADMM"``);
  3. ``"package.module:Attribute"``, imported on the spot.

Whatever it resolves to must be a subclass of ``solvers.engine.Solver``. Nothing is imported until
asked for.
"""

from __future__ import annotations

import importlib
from importlib.metadata import entry_points
from typing import Any

from solvers.engine.solver import Solver

__all__ = ["BUILT_IN", "SOLVER_GROUP", "available_solvers", "load_attribute", "solver_class"]

#: The entry-point group through which another installed package adds solvers.
SOLVER_GROUP = "dp_admm_audit.solvers"

#: The toolkit's solvers: name → "module:class".
BUILT_IN = {
    "admm": "solvers.star.admm:ADMM",
    "naive": "solvers.star.admm:NaiveNoisyADMM",
    "dpadmm": "solvers.star.admm:DPADMM",
    "decentralized_admm": "solvers.decentralized.admm:DecentralizedADMM",
    "admm_op": "solvers.decentralized.admm:ObjectivePerturbationADMM",
    "mradmm": "solvers.decentralized.admm:MRADMM",
    "radmm": "solvers.decentralized.admm:RADMM",
    "pp": "solvers.decentralized.admm:PenaltyPerturbation",
    "madmm": "solvers.decentralized.admm:MADMM",
    "dvp": "solvers.decentralized.admm:DVP",
    "pdml": "solvers.pdml.admm:PDML",
    "admm_sharing": "solvers.sharing.admm:ADMMSharing",
    "vertical_sgd": "solvers.sharing.sgd:VerticalSGD",
}


def available_solvers() -> dict[str, str]:
    """Every solver name resolvable without ``module:attribute``: name → where it is defined."""
    found = dict(BUILT_IN)
    for point in entry_points(group=SOLVER_GROUP):
        found.setdefault(point.name, point.value)
    return found


def load_attribute(reference: str, what: str) -> Any:
    """The object ``"package.module:attribute"`` names (``what`` names the argument in errors)."""
    module_name, colon, attribute = reference.partition(":")
    if not colon or not module_name or not attribute:
        raise ValueError(f"{what} must be 'module:attribute' (e.g. mypkg.module:name), got {reference!r}")
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        raise ValueError(f"{what} {reference!r}: cannot import module {module_name!r} ({error})") from error
    value: Any = module
    for part in attribute.split("."):
        if not hasattr(value, part):
            raise ValueError(f"{what} {reference!r}: {module_name!r} has no attribute {attribute!r}")
        value = getattr(value, part)
    return value


def solver_class(name: str) -> type[Solver[Any, Any]]:
    """The solver class ``name`` stands for (module docstring).

    Raises:
      ValueError: an unknown name, an import failure, or an object that is not a ``Solver`` subclass.
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be a string, got {type(name).__name__}")
    reference = available_solvers().get(name, name)
    if ":" not in reference:
        raise ValueError(f"unknown solver {name!r}: use one of {sorted(available_solvers())} or 'package.module:Class'")
    value = load_attribute(reference, "solver")
    if not (isinstance(value, type) and issubclass(value, Solver)):
        raise ValueError(f"solver {name!r} resolves to {value!r}, which is not a solvers.engine.Solver subclass")
    return value
