"""Built-in audit targets are short assemblies: no attack adapters (the attacks own their protocol,
``attacks.base.Attack``), no report sections (``audits.sections``) and no ``isinstance`` switch on a
solver class (a family's calibration lives in its own ``privacy`` module) anywhere in ``audits``."""

import ast
import importlib
from pathlib import Path

import audits
from solvers.engine.solver import Solver

AUDITS = Path(audits.__file__).parent


def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def _is_solver_class(obj: object) -> bool:
    return isinstance(obj, type) and issubclass(obj, Solver)


def test_no_isinstance_on_a_solver_class_in_audits():
    found = []
    for path in sorted(AUDITS.rglob("*.py")):
        tree = _tree(path)
        solver_names = {
            alias.asname or alias.name
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("solvers")
            for alias in node.names
            if _is_solver_class(getattr(importlib.import_module(node.module or ""), alias.name, None))
        }
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "isinstance" and len(node.args) == 2:
                kinds = node.args[1].elts if isinstance(node.args[1], ast.Tuple) else [node.args[1]]
                found += [f"{path.name}:{node.lineno}" for k in kinds if getattr(k, "id", None) in solver_names]
    assert found == []


def test_targets_hold_no_attack_adapter_and_no_report_section():
    for path in sorted((AUDITS / "targets").glob("*.py")):
        for node in ast.walk(_tree(path)):
            if isinstance(node, ast.FunctionDef):
                assert node.name not in ("observe", "conclude"), f"{path.name}:{node.lineno}: an attack adapter"
                returns = ast.unparse(node.returns) if node.returns else ""
                assert returns not in ("Finding", "Section"), f"{path.name}:{node.lineno}: a report section"
