"""Every auditable target by name, and the names other packages add.

A target is an :class:`AuditTarget`: a name, a one-line description, and a function returning the
:class:`audits.spec.AuditSpec` for (epsilon, delta, quick).
:func:`get_target` resolves, in order:

1. a ``module:attribute`` name (``package.module:attr.sub`` too): the module is imported, which
   executes its code, and the attribute taken; it must be an :data:`Accepted` object. The command line
   (``dp-audit`` and ``python -m audits.run`` alike) puts the current directory first on the module
   path, so ``mymodule:target`` finds ``./mymodule.py``;
2. a built-in name (:data:`TARGETS`, and the deliberately broken variants, reachable but not listed);
3. an entry point of the group :data:`ENTRY_POINT_GROUP` (``dp_admm_audit.audits``) that another
   installed package declares, e.g. in its ``pyproject.toml``::

       [project.entry-points."dp_admm_audit.audits"]
       my-admm = "mypkg.audit:target"

Accepted objects: an :class:`AuditTarget` (used as is), an :class:`audits.spec.AuditSpec` (a fixed
audit: it takes no ``epsilon``), or a callable ``(epsilon, delta, quick) -> AuditSpec`` (its
docstring's first line describes it).
"""

from __future__ import annotations

import importlib
import importlib.metadata
from dataclasses import dataclass

from audits.spec import AuditSpec, SpecBuilder
from audits.targets.decentralized import VARIANTS, decentralized_spec
from audits.targets.pdml import pdml_spec
from audits.targets.sharing import sharing_spec
from audits.targets.star import dpadmm_spec, naive_spec

__all__ = [
    "ENTRY_POINT_GROUP",
    "Accepted",
    "AuditTarget",
    "SpecBuilder",
    "TARGETS",
    "get_target",
    "installed_targets",
]

#: The entry-point group through which other installed packages expose audit targets.
ENTRY_POINT_GROUP = "dp_admm_audit.audits"


@dataclass(frozen=True)
class AuditTarget:
    """A registry entry.

    Attributes:
      name: the CLI name. description: one line for ``--list``.
      spec: (epsilon, delta, quick) → AuditSpec; ``epsilon`` None means the target's default (its
        meaning is the target's, stated in the description).
    """

    name: str
    description: str
    spec: SpecBuilder


#: What a ``module:attribute`` name or an entry point may resolve to (module docstring).
Accepted = AuditTarget | AuditSpec | SpecBuilder

_BETA = "--epsilon = the paper's total β ({theorem}), default 6"
_DESCRIPTIONS = {
    "radmm": "R-ADMM (Zhang, Khalili & Liu, Recycled ADMM): decentralized ADMM with Gamma-norm objective "
    "perturbation on odd iterations only; " + _BETA.format(theorem="Thm V.1"),
    "mradmm": "MR-ADMM (Zhang, Khalili & Liu): R-ADMM with non-decreasing penalties η(2k−1) = 1.04^k; "
    + _BETA.format(theorem="Thm V.1"),
    "ppadmm": "M-ADMM with penalty perturbation (Zhang, Khalili & Liu, ICML 2018); " + _BETA.format(theorem="Thm 4.1"),
    "dvp": "ADMM with dual-variable perturbation (Zhang & Zhu), as PP with a constant penalty; "
    + _BETA.format(theorem="Thm 4.1"),
}

TARGETS: dict[str, AuditTarget] = {
    t.name: t
    for t in [
        AuditTarget(
            "dpadmm",
            "DP-ADMM (Huang et al., Algorithm 3): linearised ADMM with Gaussian output noise, star topology",
            dpadmm_spec(),
        ),
        AuditTarget(
            "dpadmm-naive",
            "DP-ADMM paper's Algorithm 2: exact local argmin plus constant Gaussian noise (paper's sensitivity)",
            naive_spec,
        ),
        *(AuditTarget(name, _DESCRIPTIONS[name], decentralized_spec(name)) for name in VARIANTS),
        AuditTarget(
            "pdml",
            "PDML (Wang et al.): local label randomization + perturbed decentralized ADMM; "
            "the label guarantee at the collecting server, and a white-box audit of the derived "
            "broadcast guarantee; --epsilon = the users' label ε, default 1",
            pdml_spec(),
        ),
        AuditTarget(
            "sharing-output",
            "ADMM sharing over vertically partitioned features (Hu et "
            "al.), certified output perturbation (Δ_safe); --epsilon = per-iteration ε of Theorem 1, "
            "default 1",
            sharing_spec("output"),
        ),
        AuditTarget(
            "sharing-parameter",
            "ADMM sharing over vertically partitioned features (Hu "
            "et al.), the paper's parameter perturbation (10); --epsilon = per-iteration ε of "
            "Theorem 1, default 0.1",
            sharing_spec("parameter"),
        ),
    ]
}


def _summary(obj: object) -> str:
    """The first line of ``obj``'s docstring."""
    if not obj.__doc__:
        raise ValueError(f"{getattr(obj, '__name__', obj)!r} needs a docstring: its first line describes the target")
    return obj.__doc__.strip().splitlines()[0]


#: Names of the hidden, deliberately broken targets start with this (their solvers load only then).
BROKEN_PREFIX = "dpadmm-broken-"


def broken_targets() -> dict[str, AuditTarget]:
    from audits.broken import BROKEN_VARIANTS

    return {
        f"{BROKEN_PREFIX}{key}": AuditTarget(
            f"{BROKEN_PREFIX}{key}",
            f"DELIBERATELY BROKEN DP-ADMM ({_summary(cls)})",
            dpadmm_spec(f"{BROKEN_PREFIX}{key}", cls, canary),
        )
        for key, (cls, canary) in BROKEN_VARIANTS.items()
    }


def as_target(name: str, obj: object) -> AuditTarget:
    """The :class:`AuditTarget` named ``name`` for an :data:`Accepted` object.

    Raises:
      TypeError: ``obj`` is none of the accepted kinds (the message names ``name`` and the kinds).
    """
    if isinstance(obj, AuditTarget):
        return obj
    if isinstance(obj, AuditSpec):
        fixed = obj

        def spec(epsilon: float | None, delta: float, quick: bool) -> AuditSpec:
            if epsilon is not None:
                raise ValueError(f"{name} is a fixed AuditSpec: it takes no epsilon, got {epsilon!r}")
            return fixed

        return AuditTarget(name, f"{fixed.name}: {fixed.claim.statement}", spec)
    if callable(obj) and not isinstance(obj, type):
        builder = obj

        def checked(epsilon: float | None, delta: float, quick: bool) -> AuditSpec:
            made = builder(epsilon, delta, quick)
            if not isinstance(made, AuditSpec):
                raise TypeError(
                    f"audit target {name!r}: the callable must return an audits.spec.AuditSpec, "
                    f"got {type(made).__name__}: {made!r:.80}"
                )
            return made

        return AuditTarget(name, _summary(builder) if builder.__doc__ else name, checked)
    raise TypeError(
        f"audit target {name!r} must be an audits.registry.AuditTarget, an audits.spec.AuditSpec or a "
        f"callable (epsilon, delta, quick) -> AuditSpec, got {type(obj).__name__}: {obj!r:.80}"
    )


def _from_module(name: str) -> AuditTarget:
    """The target a ``module:attribute`` name resolves to; importing the module runs its code, so whatever
    that code raises is the user's error, reported in one line."""
    from solvers.registry import load_attribute

    try:
        obj = load_attribute(name, "target")
    except ValueError:
        raise
    except Exception as error:  # the module's own code failed on import: the user's code, not the toolkit
        module = name.partition(":")[0]
        raise ValueError(
            f"target {name!r}: importing module {module!r} raised {type(error).__name__}: {error} "
            f"(python -c 'import {module}' shows the traceback)"
        ) from error
    try:
        return as_target(name, obj)
    except TypeError as error:
        raise ValueError(str(error)) from error


def installed_targets() -> dict[str, importlib.metadata.EntryPoint]:
    """The entry points of :data:`ENTRY_POINT_GROUP` by name (other installed packages' targets)."""
    return {ep.name: ep for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)}


def get_target(name: str) -> AuditTarget:
    """The target ``name`` (module docstring for the resolution order).

    Raises:
      ValueError: unknown name (the message lists the known ones), a module or attribute that
        cannot be found, or an object that is not an :data:`Accepted` target.
    """
    if ":" in name:
        return _from_module(name)
    builtin = {**TARGETS, **broken_targets()} if name.startswith(BROKEN_PREFIX) else TARGETS
    if name in builtin:
        return builtin[name]
    installed = installed_targets()
    if name not in installed:
        known = [*TARGETS, *installed]
        raise ValueError(
            f"unknown solver name {name!r}; choose one of: {', '.join(known)}, or give module:attribute "
            "(see python -m audits.run --list)"
        )
    try:
        return as_target(name, installed[name].load())
    except Exception as error:  # another package's code: whatever it raises is reported in one line
        raise ValueError(f"target {name!r} (entry point {installed[name].value}): {error}") from error
