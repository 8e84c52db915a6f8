"""Lazy package exports: a name is imported from its module on first use (PEP 562), so that
importing a package stays light (no dp_accounting, scikit-learn or matplotlib until needed).

:func:`typed_lazy_exports` writes each exported name once: in the package's ``if TYPE_CHECKING:`` block
(``from m import Name as Name``, what type checkers read), which it parses at import time for the
name → module map, as SPEC 1's lazy loader (scientific-python ``lazy_loader.attach_stub``) reads a
``.pyi`` stub."""

from __future__ import annotations

import ast
import importlib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

__all__ = ["lazy_exports", "typed_lazy_exports"]


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


def typed_lazy_exports(
    package: str, init_file: str, namespace: dict[str, Any]
) -> tuple[Callable[[str], Any], Callable[[], list[str]], list[str]]:
    """(``__getattr__``, ``__dir__``, the exported names sorted) for ``package`` whose ``__init__.py``
    (``init_file``) imports each lazy export under a top-level ``if TYPE_CHECKING:`` as
    ``from module import Name as Name``; that block is the one place a name is written.

    Raises:
      ValueError: the block holds anything but absolute ``from … import`` statements.
    """
    tree = ast.parse(Path(init_file).read_text(encoding="utf-8"), filename=init_file)
    exports: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            for statement in node.body:
                if not isinstance(statement, ast.ImportFrom) or statement.level or not statement.module:
                    raise ValueError(f"{init_file}:{statement.lineno}: only 'from module import Name as Name' here")
                exports.update({alias.asname or alias.name: statement.module for alias in statement.names})
    getattr_, dir_ = lazy_exports(package, exports, namespace)
    return getattr_, dir_, sorted(exports)
