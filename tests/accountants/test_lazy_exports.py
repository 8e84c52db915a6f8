"""accountants.lazy.typed_lazy_exports: a package's lazy exports are written once, in its TYPE_CHECKING block."""

from __future__ import annotations

import ast
import inspect

import pytest

import accountants
from accountants.lazy import typed_lazy_exports


def test_the_type_checking_block_is_the_export_list():
    tree = ast.parse(inspect.getsource(accountants))
    block = next(n for n in tree.body if isinstance(n, ast.If) and ast.unparse(n.test) == "TYPE_CHECKING")
    written = sorted(alias.asname or alias.name for node in block.body for alias in node.names)  # type: ignore[attr-defined]
    assert len(written) == 25 and accountants.__all__ == ["__version__", *written]
    assert set(written) <= set(dir(accountants))
    assert accountants.Ledger.__module__ == "accountants.ledger"  # imported on first use


def test_a_block_with_anything_but_from_imports_is_refused(tmp_path):
    init = tmp_path / "__init__.py"
    init.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import accountants.ledger\n")
    with pytest.raises(ValueError, match=r"__init__.py:3: only 'from module import Name as Name' here"):
        typed_lazy_exports("pkg", str(init), {})
    init.write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from accountants.ledger import Ledger as Ledger\n"
    )
    getattr_, dir_, names = typed_lazy_exports("pkg", str(init), namespace := {})
    assert (
        names == ["Ledger"] and getattr_("Ledger") is accountants.Ledger and namespace["Ledger"] is accountants.Ledger
    )
    with pytest.raises(AttributeError, match="module 'pkg' has no attribute 'Missing'"):
        getattr_("Missing")
