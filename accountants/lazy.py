"""Lazy package exports: a name is imported from its module on first use (PEP 562), so that
importing a package stays light (no dp_accounting, scikit-learn or matplotlib until needed)."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(
    package: str, exports: Mapping[str, str], namespace: dict[str, Any]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """(``__getattr__``, ``__dir__``) for ``package`` whose public ``name`` lives in module
    ``exports[name]``; ``namespace`` is the package's ``globals()`` (each name is cached there)."""

    def __getattr__(name: str) -> Any:
        if name in exports:
            value = getattr(importlib.import_module(exports[name]), name)
            namespace[name] = value
            return value
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(exports))

    return __getattr__, __dir__
