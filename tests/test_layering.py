"""The toolkit's architecture, enforced by an AST scan of its own source (nothing scanned is imported).

Allowed layering — an arrow means "may import"; any other import between packages is a violation:

    accountants                                         bottom: imports no other project package
    mechanisms   → accountants                          bottom
    solvers      → mechanisms, accountants
    attacks      → solvers, mechanisms, accountants
    audits       → attacks, solvers, mechanisms, accountants
    benchmarks, experiments → the five packages above   top level, not installed; neither imports the other

Nothing installed (accountants, mechanisms, solvers, attacks, audits) imports ``benchmarks``,
``experiments`` or ``tests``.

Rules, each a test below:

1. **No import cycles** among project modules (the five packages plus the top-level ``benchmarks`` and
   ``experiments``). An edge is any ``import``/``from … import`` statement, relative ones and those
   inside functions included, except those under ``if TYPE_CHECKING:``. ``from x import y`` points at
   the module ``x.y`` when that is a module file, else at ``x`` and, when ``y`` is a lazy export of the
   package ``x``, also at the module that defines ``y`` (the import executes it). Importing ``a.b.c``
   also executes ``a/__init__.py`` and ``a/b/__init__.py``: those are edges too, except for packages
   that contain the importer (they are already initialised). Imports done at run time are edges too:
   a package's lazy exports (its module-level ``__getattr__`` imports the module of a name on first
   use — a dict literal of name → module string, or the mapping given to ``lazy_exports(…)``, be it a
   literal, a module-level name or ``dict.fromkeys(names, "module")``; or, with ``typed_lazy_exports(…)``,
   every ``from m import Name`` of its ``if TYPE_CHECKING:`` block) give the package an edge to
   each such module, and ``importlib.import_module("…")`` with a constant string, in a function or
   not, is an edge to that module. A cycle closed only by a lazy export still runs, but it is a real
   cycle: the two modules cannot be understood, tested or moved apart. Strongly connected
   components are found with Tarjan's algorithm; for every import inside a component the shortest
   cycle through it is listed, so every import that closes a cycle appears in some listed cycle.
2. **Layering is one way** (above). Typing-only imports count here: they are still a dependency.
3. **No private names across modules.** A private name starts with ``_`` and is not a dunder. In the
   project's modules this fails on ``from m import _x`` for any project module ``m`` other than the
   importer; on importing a private module (``a._m``) from outside its package ``a``; on ``mod._x``
   where ``mod`` is a project module bound by an import; and on ``obj._x`` (also ``getattr``,
   ``hasattr``, ``setattr``, ``delattr`` or ``monkeypatch.setattr`` of ``obj, "_x"``) where ``obj``
   is not ``self``/``cls``/``super()``/``type(self)`` and ``_x`` is defined privately (module or class
   level, ``self._x = …``, ``__slots__``, ``setattr``) in a different project module and nowhere in
   the accessing one. Names defined in no project module (numpy, dataclasses, NamedTuple's
   ``_replace``/``_asdict``/``_fields``) never count.
   **Tests** are scanned only for imports of private names or private modules from the project and
   for ``mod._x`` on an imported project module: a test may exercise a private helper through its
   module by attribute only if that is listed in ``EXCEPTIONS``. Tests' own private attribute pokes
   at objects (``solver._x``) are not checked.

Every exception is one entry, with its reason, in ``EXCEPTIONS``.
"""

from __future__ import annotations

import ast
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
INSTALLED = ("accountants", "mechanisms", "solvers", "attacks", "audits")
TOP_LEVEL = ("benchmarks", "experiments")
NOT_IMPORTED_BY_INSTALLED = (*TOP_LEVEL, "tests")
# A package may import packages of a strictly lower rank (and itself).
RANK = {"accountants": 0, "mechanisms": 1, "solvers": 2, "attacks": 3, "audits": 4, "benchmarks": 5, "experiments": 5}

# (file relative to the repository, or "*" for every file; private name) → why it is allowed.
EXCEPTIONS: dict[tuple[str, str], str] = {
    ("*", "_replace"): "NamedTuple public API",
    ("*", "_asdict"): "NamedTuple public API",
    ("*", "_fields"): "NamedTuple public API",
    ("*", "_make"): "NamedTuple public API",
    ("*", "_field_defaults"): "NamedTuple public API",
    ("tests/attacks/test_objective_perturbation.py", "_log_det_jacobian"): (
        "the Jacobian term is checked against a finite-difference change of variables"
    ),
    ("tests/solvers/test_adult.py", "_verify_sha256"): "the checksum guard is exercised on a corrupted payload",
    ("tests/solvers/test_adult.py", "_adult_table"): "the parser's cache is cleared to time a cold parse",
    ("tests/solvers/test_problem.py", "_phi"): "the in-place loss kernels are checked against the loss's own methods",
    ("tests/solvers/test_problem.py", "_dphi"): "the in-place loss kernels are checked against the loss's own methods",
    ("tests/solvers/test_problem.py", "_d2phi"): "the in-place loss kernels are checked against the loss's own methods",
    (
        "tests/solvers/test_sharing_problem.py",
        "_woodbury_newton",
    ): "the Woodbury Newton solve is checked against the primal Newton solve",
}


@dataclass(frozen=True, order=True)
class Edge:
    path: str  # the importer's file, relative to the repository
    line: int
    importer: str
    imported: str
    typing_only: bool


@dataclass(frozen=True)
class Module:
    name: str
    path: str  # relative to the repository
    tree: ast.Module
    is_package: bool


# ---------------------------------------------------------------------------------------------------
# parsing


def is_private(name: str) -> bool:
    return name.startswith("_") and name != "_" and not (name.startswith("__") and name.endswith("__"))


def module_name(relative: Path) -> tuple[str, bool]:
    parts = relative.with_suffix("").parts
    if parts[-1] == "__init__":
        return ".".join(parts[:-1]), True
    return ".".join(parts), False


def load_modules(root: Path, tops: tuple[str, ...]) -> dict[str, Module]:
    modules = {}
    for top in tops:
        for path in sorted((root / top).rglob("*.py")):
            if "__pycache__" in path.parts:
                continue
            relative = path.relative_to(root)
            name, is_package = module_name(relative)
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
            modules[name] = Module(name, relative.as_posix(), tree, is_package)
    return modules


def is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def import_statements(tree: ast.AST) -> Iterator[tuple[ast.Import | ast.ImportFrom, bool]]:
    """Every import statement, anywhere, with whether it is typing-only (under ``if TYPE_CHECKING:``)."""
    stack: list[tuple[ast.AST, bool]] = [(tree, False)]
    while stack:
        node, typing_only = stack.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node, typing_only
            continue
        inside = typing_only or (isinstance(node, ast.If) and is_type_checking(node.test))
        # imports are statements: only statement lists can hold one (match cases and handlers included)
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            children = getattr(node, field, None)
            if isinstance(children, list):
                stack += [(child, typing_only if field == "orelse" else inside) for child in children]


def absolute_base(node: ast.ImportFrom, module: Module) -> str:
    if node.level == 0:
        return node.module or ""
    package = module.name if module.is_package else module.name.rpartition(".")[0]
    parts = package.split(".")[: len(package.split(".")) - (node.level - 1)]
    return ".".join([*parts, *([node.module] if node.module else [])])


def module_assignments(module: Module) -> dict[str, ast.expr]:
    """Module-level ``name = value`` (the last one wins), for resolving a lazy-export mapping given by name."""
    found: dict[str, ast.expr] = {}
    for node in module.tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            found[node.targets[0].id] = node.value
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            found[node.target.id] = node.value
    return found


def literal(node: ast.expr, assigned: dict[str, ast.expr]) -> object:
    """A constant expression's value, following module-level names and ``dict.fromkeys(keys, value)``."""
    if isinstance(node, ast.Name) and node.id in assigned:
        return literal(assigned[node.id], {k: v for k, v in assigned.items() if k != node.id})
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "fromkeys"
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "dict"
        and len(node.args) == 2
    ):
        keys, value = literal(node.args[0], assigned), literal(node.args[1], assigned)
        return dict.fromkeys(keys, value) if isinstance(keys, (tuple, list, set, frozenset)) else None
    if isinstance(node, ast.Dict) and all(k is not None for k in node.keys):
        pairs = [(literal(k, assigned), literal(v, assigned)) for k, v in zip(node.keys, node.values, strict=True)]  # type: ignore[arg-type]
        return dict(pairs) if all(k is not None and v is not None for k, v in pairs) else None
    if isinstance(node, (ast.Tuple, ast.List)):
        items = [literal(e, assigned) for e in node.elts]
        return tuple(items) if all(i is not None for i in items) else None
    return node.value if isinstance(node, ast.Constant) else None


def string_mapping(value: object, top: str) -> dict[str, str]:
    if not isinstance(value, dict) or not value:
        return {}
    if all(isinstance(k, str) and isinstance(v, str) and v.split(".")[0] == top for k, v in value.items()):
        return dict(value)
    return {}


def dynamic_imports(module: Module) -> Iterator[tuple[int, str, str | None]]:
    """(line, module, exported name or None) for each import done at run time rather than by a statement.

    A package's lazy exports: module-level dicts of name → dotted module string of the same top-level
    package, and any mapping passed to a ``lazy_exports(…)`` call (a dict literal, a module-level name,
    ``dict.fromkeys(names, "module")``): the package's ``__getattr__`` imports that module. And
    ``importlib.import_module("…")`` with a constant string, anywhere (at module level or in a function).
    """
    top = module.name.split(".")[0]
    assigned = module_assignments(module)
    if module.is_package:
        for node in module.tree.body:
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(node.value, ast.Dict):
                for name, target in string_mapping(literal(node.value, assigned), top).items():
                    yield node.lineno, target, name
    for node in ast.walk(module.tree):
        if not isinstance(node, ast.Call):
            continue
        name = called_name(node.func)
        if name == "lazy_exports" and module.is_package and len(node.args) >= 2:
            for export, target in string_mapping(literal(node.args[1], assigned), top).items():
                yield node.lineno, target, export
        elif name == "typed_lazy_exports" and module.is_package:  # its TYPE_CHECKING imports are its exports
            for statement in module.tree.body:
                if isinstance(statement, ast.If) and is_type_checking(statement.test):
                    for found in statement.body:
                        if isinstance(found, ast.ImportFrom) and found.module and not found.level:
                            yield from ((found.lineno, found.module, a.asname or a.name) for a in found.names)
        elif name == "import_module" and node.args and isinstance(node.args[0], ast.Constant):
            yield from [(node.lineno, node.args[0].value, None)] if isinstance(node.args[0].value, str) else []


def lazy_exports(module: Module) -> dict[str, str]:
    """A package's lazy exports: exported name → the module that defines it (see :func:`dynamic_imports`)."""
    return {name: target for _, target, name in dynamic_imports(module) if name is not None}


def targets(node: ast.Import | ast.ImportFrom, module: Module, names: set[str], lazy: dict[str, dict[str, str]]):
    """(module imported explicitly, name imported from it or None) for one statement."""
    if isinstance(node, ast.Import):
        return [(alias.name, None) for alias in node.names]
    base = absolute_base(node, module)
    found = []
    for alias in node.names:
        if f"{base}.{alias.name}" in names:
            found.append((f"{base}.{alias.name}", None))
            continue
        found.append((base, alias.name))
        if alias.name in lazy.get(base, {}):
            found.append((lazy[base][alias.name], None))
    return found


def contains(package: str, module: str) -> bool:
    return module == package or module.startswith(package + ".")


def module_edges(module: Module, names: set[str], lazy: dict[str, dict[str, str]]) -> Iterator[Edge]:
    """Edges to every module a statement executes: the target, and its packages not containing the importer."""
    found = [
        (node.lineno, target, typing_only)
        for node, typing_only in import_statements(module.tree)
        for target, _ in targets(node, module, names, lazy)
    ]
    found += [(line, target, False) for line, target, _ in dynamic_imports(module)]
    for line, target, typing_only in found:
        parts = target.split(".")
        executed = {target} | {
            ".".join(parts[:i]) for i in range(1, len(parts)) if not contains(".".join(parts[:i]), module.name)
        }
        for imported in sorted(executed - {module.name}):
            yield Edge(module.path, line, module.name, imported, typing_only)


@dataclass(frozen=True)
class Scan:
    modules: dict[str, Module]
    edges: list[Edge]  # every import, project or not, typing-only ones included
    tests: dict[str, Module]


@cache
def scan(root: Path = ROOT) -> Scan:
    modules = load_modules(root, (*INSTALLED, *TOP_LEVEL))
    lazy = {name: lazy_exports(module) for name, module in modules.items()}
    edges = sorted(edge for module in modules.values() for edge in module_edges(module, set(modules), lazy))
    return Scan(modules, edges, load_modules(root, ("tests",)))


# ---------------------------------------------------------------------------------------------------
# rule 1: cycles


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's algorithm, iterative; components of more than one node (or with a self-loop)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    components = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1 or node in graph[node]:
                        components.append(sorted(component))
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(graph.get(child, ())))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return sorted(components)


def shortest_path(graph: dict[str, set[str]], start: str, goal: str, allowed: set[str]) -> list[str]:
    previous: dict[str, str | None] = {start: None}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        if node == goal:
            break
        for child in sorted(graph[node] & allowed):
            if child not in previous:
                previous[child] = node
                queue.append(child)
    path: list[str] = []
    node_or_none: str | None = goal
    while node_or_none is not None:
        path.append(node_or_none)
        node_or_none = previous[node_or_none]
    return path[::-1]


def cycles(edges: list[Edge], project: set[str]) -> list[str]:
    """One line per cycle: for every import inside a strongly connected component, its shortest cycle."""
    first: dict[tuple[str, str], Edge] = {}
    for edge in edges:
        if not edge.typing_only and edge.imported in project:
            first.setdefault((edge.importer, edge.imported), edge)
    graph: dict[str, set[str]] = {name: set() for name in project}
    for importer, imported in first:
        graph[importer].add(imported)
    lines = []
    for component in strongly_connected(graph):
        members = set(component)
        seen = set()
        for importer in component:
            for imported in sorted(graph[importer] & members):
                chain = [importer, *shortest_path(graph, imported, importer, members)]
                rotation = chain[:-1].index(min(chain[:-1]))
                key = tuple(chain[rotation:-1] + chain[:rotation])
                if key in seen:
                    continue
                seen.add(key)
                chain = [*key, key[0]]
                where = [first[(a, b)] for a, b in zip(chain, chain[1:], strict=False)]
                lines.append(
                    f"{where[0].path}:{where[0].line}: cycle ({len(component)}-module component) "
                    + " → ".join(chain)
                    + "   [imports at "
                    + ", ".join(f"{e.path}:{e.line}" for e in where)
                    + "]"
                )
    return sorted(lines, key=sort_key)


# ---------------------------------------------------------------------------------------------------
# rule 2: layering


def layering_violations(edges: list[Edge]) -> list[str]:
    lines = []
    for edge in edges:
        source, target = edge.importer.split(".")[0], edge.imported.split(".")[0]
        if source == target or source not in RANK:
            continue
        upward = target in RANK and RANK[target] >= RANK[source]
        forbidden = source in INSTALLED and target in NOT_IMPORTED_BY_INSTALLED
        if upward or forbidden:
            typing = " (typing only)" if edge.typing_only else ""
            lines.append(f"{edge.path}:{edge.line}: {edge.importer} → {edge.imported}{typing}")
    return sorted(set(lines))


# ---------------------------------------------------------------------------------------------------
# rule 3: private names


def is_self_like(node: ast.expr) -> bool:
    """``self``, ``cls``, ``super()``, ``type(self)``, ``self.__class__``."""
    if isinstance(node, ast.Name):
        return node.id in ("self", "cls")
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        return node.func.id == "super" or (
            node.func.id == "type" and len(node.args) == 1 and is_self_like(node.args[0])
        )
    return isinstance(node, ast.Attribute) and node.attr == "__class__" and is_self_like(node.value)


def bound_names(node: ast.stmt) -> Iterator[str]:
    """Names one statement binds in its own scope (``__slots__`` entries count as attributes)."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        yield node.name
    elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor)):
        for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
            yield from (n.id for n in ast.walk(target) if isinstance(n, ast.Name))
            if isinstance(target, ast.Name) and target.id == "__slots__" and node.value is not None:
                yield from (str(c.value) for c in ast.walk(node.value) if isinstance(c, ast.Constant))
    elif isinstance(node, (ast.Import, ast.ImportFrom)):
        yield from (alias.asname or alias.name.split(".")[0] for alias in node.names)


def scope_names(body: list[ast.stmt]) -> Iterator[str]:
    """Names bound at module or class level: not inside functions, but inside if/try/with/for and classes."""
    for node in body:
        yield from bound_names(node)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for field in ("body", "orelse", "finalbody"):
            yield from scope_names([n for n in getattr(node, field, []) if isinstance(n, ast.stmt)])
        for handler in getattr(node, "handlers", []):
            yield from scope_names(handler.body)


def set_attribute_names(tree: ast.AST) -> Iterator[str]:
    """``self._x = …`` / ``cls._x = …`` anywhere, and ``setattr(…, "_x", …)`` / ``object.__setattr__``."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) and is_self_like(node.value):
            yield node.attr
        elif (
            isinstance(node, ast.Call)
            and called_name(node.func) in ("setattr", "__setattr__")
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str)
        ):
            yield node.args[1].value


def private_definitions(module: Module) -> set[str]:
    names = set(scope_names(module.tree.body)) | set(set_attribute_names(module.tree))
    return {name for name in names if isinstance(name, str) and is_private(name)}


def module_bindings(module: Module, project: set[str]) -> dict[str, str]:
    """Local names bound to a project module by an import (``import a.b as m``, ``from a import b``)."""
    bound = {}
    for node, _ in import_statements(module.tree):
        for alias in node.names:
            if isinstance(node, ast.Import):
                target = alias.name if alias.asname else alias.name.split(".")[0]
                local = alias.asname or alias.name.split(".")[0]
            else:
                target = f"{absolute_base(node, module)}.{alias.name}"
                local = alias.asname or alias.name
            if target in project:
                bound[local] = target
    return bound


def named_module(node: ast.expr, bindings: dict[str, str], project: set[str]) -> str | None:
    """The project module an expression names through an imported name: ``m``, ``pkg.sub``."""
    attributes = []
    while isinstance(node, ast.Attribute):
        attributes.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name) or node.id not in bindings:
        return None
    name = ".".join([bindings[node.id], *reversed(attributes)])
    return name if name in project else None


def allowed(path: str, name: str) -> bool:
    return ("*", name) in EXCEPTIONS or (path, name) in EXCEPTIONS


def private_import_violations(module: Module, project: set[str], lazy: dict[str, dict[str, str]]) -> Iterator[str]:
    """``from m import _x`` (m a project module other than the importer) and private modules from outside."""
    for node, _ in import_statements(module.tree):
        for target, name in targets(node, module, project, lazy):
            parts = target.split(".")
            for i, part in enumerate(parts):
                owner = ".".join(parts[:i])
                if target in project and is_private(part) and not (owner and contains(owner, module.name)):
                    if not allowed(module.path, part):
                        yield f"{module.path}:{node.lineno}: {module.name} → {target} (private module)"
                    break
            theirs = name and is_private(name) and target in project and target != module.name
            if theirs and not allowed(module.path, name):
                yield f"{module.path}:{node.lineno}: {module.name} → {target}.{name} (private name)"


def accessed_private(tree: ast.AST) -> Iterator[tuple[ast.expr, str, int]]:
    """(object, private name, line) for ``obj._x`` and ``getattr(obj, "_x")``."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and is_private(node.attr):
            yield node.value, node.attr, node.lineno
        elif (
            isinstance(node, ast.Call)
            and called_name(node.func) in ("getattr", "hasattr", "setattr", "delattr")  # monkeypatch.setattr too
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str)
            and is_private(node.args[1].value)
        ):
            yield node.args[0], node.args[1].value, node.lineno


def called_name(func: ast.expr) -> str:
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""


def private_access_violations(
    module: Module, definitions: dict[str, set[str]], lazy: dict[str, dict[str, str]], tests: bool = False
) -> Iterator[str]:
    own = definitions.get(module.name, set())
    bindings = module_bindings(module, set(definitions))
    imported = {
        target
        for node, _ in import_statements(module.tree)
        for target, _ in targets(node, module, set(definitions), lazy)
    }
    for obj, name, line in accessed_private(module.tree):
        if allowed(module.path, name) or is_self_like(obj):
            continue
        of_module = named_module(obj, bindings, set(definitions))
        if of_module:
            yield f"{module.path}:{line}: accesses {name} of module {of_module}"
            continue
        if tests or name in own:
            continue
        owners = sorted(other for other, names in definitions.items() if name in names and other != module.name)
        if owners:  # name the modules it imports, when the name is defined in some of them
            owners = sorted(set(owners) & imported) or owners
            yield f"{module.path}:{line}: accesses {name} defined in module {', '.join(owners)}"


def private_violations(result: Scan) -> tuple[list[str], list[str]]:
    """(violations in the project's modules, violations in tests)."""
    project = set(result.modules)
    lazy = {name: lazy_exports(module) for name, module in result.modules.items()}
    definitions = {name: private_definitions(module) for name, module in result.modules.items()}
    in_project, in_tests = set(), set()
    for module in result.modules.values():
        in_project.update(private_import_violations(module, project, lazy))
        in_project.update(private_access_violations(module, definitions, lazy))
    for module in result.tests.values():
        in_tests.update(private_import_violations(module, project, lazy))
        in_tests.update(private_access_violations(module, definitions, lazy, tests=True))
    return sorted(in_project, key=sort_key), sorted(in_tests, key=sort_key)


def sort_key(line: str) -> tuple[str, int, str]:
    path, number, rest = line.split(":", 2)
    return path, int(number), rest


def report(title: str, lines: list[str]) -> str:
    return f"{len(lines)} {title}:\n" + "\n".join(lines)


# ---------------------------------------------------------------------------------------------------
# the rules, on the tree


def test_no_import_cycles():
    result = scan()
    found = cycles(result.edges, set(result.modules))
    assert not found, report("import cycles among project modules", found)


def test_packages_are_layered_one_way():
    found = layering_violations(scan().edges)
    assert not found, report("imports against the layering (see this module's docstring)", found)


@cache
def private_violations_on_tree() -> tuple[list[str], list[str]]:
    return private_violations(scan())


def test_no_private_names_across_modules():
    found, _ = private_violations_on_tree()
    assert not found, report("uses of another module's private names", found)


def test_tests_import_no_private_names():
    _, found = private_violations_on_tree()
    assert not found, report("private names tests take from the project (list exceptions in EXCEPTIONS)", found)


def test_no_package_exports_a_name_of_one_of_its_submodules():
    """Importing ``pkg.x`` sets the attribute ``pkg.x`` to the module: it would hide an exported ``x``."""
    result = scan()
    found = sorted(
        f"{module.path}: exports {name}, also the module {module.name}.{name}"
        for module in result.modules.values()
        for name in lazy_exports(module)
        if f"{module.name}.{name}" in result.modules
    )
    assert not found, report("exported names that a submodule import would replace", found)


def test_every_exception_is_explained_and_names_an_existing_file():
    assert all(reason.strip() for reason in EXCEPTIONS.values())
    files = {path for path, _ in EXCEPTIONS} - {"*"}
    assert all((ROOT / path).is_file() for path in files), sorted(p for p in files if not (ROOT / p).is_file())


# ---------------------------------------------------------------------------------------------------
# the scanner itself, on small made-up trees


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def test_scanner_edges(tmp_path):
    root = write(
        tmp_path,
        {
            "solvers/__init__.py": "from solvers.lazy import f\n_EXPORTS = {'Run': 'solvers.engine.run'}\n",
            "solvers/lazy.py": "import importlib\ndef g():\n    return importlib.import_module('solvers.data.io')\n",
            "solvers/data/__init__.py": (
                "_NAMES = ('build',)\n__getattr__, __dir__ = lazy_exports('solvers.data', dict.fromkeys(_NAMES,"
                " 'solvers.algo'), globals())\n"
            ),
            "solvers/data/io.py": "",
            "solvers/typed/__init__.py": (
                "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from solvers.lazy import g as g\n"
                "__getattr__, __dir__, _NAMES = typed_lazy_exports(__name__, __file__, globals())\n"
            ),
            "solvers/engine/__init__.py": "",
            "solvers/engine/run.py": (
                "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from solvers.algo import A\n"
                "def f():\n    from . import helpers\n"
            ),
            "solvers/engine/helpers.py": "",
            "solvers/algo.py": "from solvers import Run\nimport solvers.engine.helpers as h\n",
        },
    )
    modules = load_modules(root, ("solvers",))
    lazy = {name: lazy_exports(module) for name, module in modules.items()}
    edges = {
        (e.importer, e.imported, e.typing_only)
        for m in modules.values()
        for e in module_edges(m, set(modules), lazy)
        if e.imported in modules
    }
    assert lazy["solvers.data"] == {"build": "solvers.algo"} and lazy["solvers.typed"] == {"g": "solvers.lazy"}
    assert edges == {
        ("solvers", "solvers.lazy", False),
        ("solvers", "solvers.engine.run", False),  # its lazy export (a dict literal)
        ("solvers", "solvers.engine", False),  # executed by importing solvers.engine.run
        ("solvers.lazy", "solvers.data.io", False),  # importlib.import_module in a function
        ("solvers.lazy", "solvers.data", False),
        ("solvers.data", "solvers.algo", False),  # its lazy export through lazy_exports(dict.fromkeys(…))
        ("solvers.typed", "solvers.lazy", True),  # its TYPE_CHECKING import ...
        ("solvers.typed", "solvers.lazy", False),  # ... is its lazy export (typed_lazy_exports)
        ("solvers.engine.run", "solvers.algo", True),
        ("solvers.engine.run", "solvers.engine.helpers", False),  # relative, inside a function
        ("solvers.algo", "solvers", False),  # explicit import of its own package
        ("solvers.algo", "solvers.engine.run", False),  # the lazy export it takes
        ("solvers.algo", "solvers.engine", False),  # executed by importing solvers.engine.helpers
        ("solvers.algo", "solvers.engine.helpers", False),
    }
    graph = {"a": {"b"}, "b": {"c", "a"}, "c": {"a"}, "d": {"d"}, "e": set()}
    assert strongly_connected(graph) == [["a", "b", "c"], ["d"]]


def test_scanner_private_names(tmp_path):
    root = write(
        tmp_path,
        {
            "solvers/__init__.py": "",
            "solvers/base.py": (
                "class S:\n    def _step(self): return self._w\n    def __init__(self): self._w = 1\n"
                "    def same(self, other): return other._w + type(self)._step(self)\n_K = 1\n"
            ),
            "solvers/ray.py": (
                "from solvers.base import _K\nfrom solvers import base\nimport numpy as np\nimport solvers.base\n"
                "def f(s): return s._step(), base._K, np._private, s._replace(), getattr(s, '_w'), s.__dict__\n"
                "def g(): return solvers.base._K\n"
            ),
        },
    )
    (root / "tests").mkdir()
    (root / "tests/test_ray.py").write_text(
        "from solvers.base import _K, S\nfrom solvers import base\n"
        "def test(monkeypatch):\n    monkeypatch.setattr(base, '_K', 2)\n    S()._step(), S()._w\n"
    )
    result = Scan(load_modules(root, ("solvers",)), [], load_modules(root, ("tests",)))
    found, in_tests = private_violations(result)
    assert in_tests == [
        "tests/test_ray.py:1: tests.test_ray → solvers.base._K (private name)",
        "tests/test_ray.py:4: accesses _K of module solvers.base",
    ]
    assert found == [
        "solvers/ray.py:1: solvers.ray → solvers.base._K (private name)",
        "solvers/ray.py:5: accesses _K of module solvers.base",
        "solvers/ray.py:5: accesses _step defined in module solvers.base",
        "solvers/ray.py:5: accesses _w defined in module solvers.base",
        "solvers/ray.py:6: accesses _K of module solvers.base",
    ]


def test_scanner_cycles_and_layers():
    def edge(importer: str, imported: str, line: int = 1, typing_only: bool = False) -> Edge:
        return Edge(importer.replace(".", "/") + ".py", line, importer, imported, typing_only)

    edges = [
        edge("solvers.a", "solvers.b"),
        edge("solvers.b", "solvers.a", 2),
        edge("solvers.b", "solvers.c", 3),
        edge("solvers.c", "solvers.a", 4, typing_only=True),  # typing-only: no cycle, but a dependency
        edge("accountants.x", "mechanisms.y", 5, typing_only=True),
        edge("attacks.z", "experiments.e", 6),
        edge("benchmarks.b", "audits.run", 7),
    ]
    assert cycles(edges, {"solvers.a", "solvers.b", "solvers.c"}) == [
        "solvers/a.py:1: cycle (2-module component) solvers.a → solvers.b → solvers.a"
        "   [imports at solvers/a.py:1, solvers/b.py:2]"
    ]
    assert layering_violations(edges) == [
        "accountants/x.py:5: accountants.x → mechanisms.y (typing only)",
        "attacks/z.py:6: attacks.z → experiments.e",
    ]
