"""The documentation runs: every Python code block of README.md (and of the docs pages) is executed,
each on its own in a fresh interpreter, so that a block is complete by itself, imports only public
names, and stays true as the code changes."""

from __future__ import annotations

import ast
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
FENCE = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def python_blocks(path: Path) -> list[tuple[int, str]]:
    """(first line number, code) of every fenced ```python block of ``path``."""
    text = path.read_text(encoding="utf-8")
    return [(text.count("\n", 0, match.start()) + 2, match.group(1)) for match in FENCE.finditer(text)]


BLOCKS = [
    pytest.param(path, line, code, id=f"{path.relative_to(ROOT)}:{line}")
    for path in DOCUMENTS
    if path.exists()
    for line, code in python_blocks(path)
]


def private_imports(code: str) -> list[str]:
    """Imported names or modules that start with an underscore (a block may import public names only)."""
    found = []
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.ImportFrom):
            found += [f"{node.module}.{a.name}" for a in node.names if a.name.startswith("_")]
            if node.module and any(part.startswith("_") for part in node.module.split(".")):
                found.append(node.module)
        elif isinstance(node, ast.Import):
            found += [a.name for a in node.names if any(p.startswith("_") for p in a.name.split("."))]
    return found


def test_the_readme_has_python_examples():
    assert sum(1 for p in BLOCKS if p.values[0].name == "README.md") >= 5


def test_block_extraction_finds_fenced_python_only(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("text\n```python\nx = 1\n```\n```bash\nls\n```\n```python\ny = 2\nz = 3\n```\n")
    assert python_blocks(page) == [(3, "x = 1\n"), (9, "y = 2\nz = 3\n")]


def test_private_imports_are_detected():
    assert private_imports("from experiments.kkt_table import _private_name\nimport os") == [
        "experiments.kkt_table._private_name"
    ]
    assert private_imports("from solvers._lazy import x") == ["solvers._lazy"]
    assert private_imports("from solvers import DPADMM") == []


@pytest.mark.slow
@pytest.mark.parametrize(("path", "line", "code"), BLOCKS)
def test_documentation_block_runs_on_its_own(path, line, code, tmp_path):
    assert private_imports(code) == [], f"{path.name}:{line} imports private names"
    env = {**os.environ, "MPLBACKEND": "Agg", "RAY_DISABLE_USAGE_STATS": "1", "PYTHONPATH": str(ROOT)}
    completed = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600
    )
    assert completed.returncode == 0, f"{path.name}:{line} failed:\n{completed.stderr[-3000:]}"


README_MAX_LINES = 200
#: Words of documents a user does not have (internal paper numbers, specification sections, issues).
INTERNAL_WORDS = re.compile(r"\bseeds? 0\d\d\b|\bspec(?:ification)?s? 0\d\d\b|\bthe issue lists\b", re.I)


def test_the_readme_is_short():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").count("\n")
    assert lines <= README_MAX_LINES, f"README.md has {lines} lines (at most {README_MAX_LINES}): move details to docs/"


@pytest.mark.parametrize("path", DOCUMENTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_documents_cite_papers_not_internal_documents(path):
    found = INTERNAL_WORDS.findall(path.read_text(encoding="utf-8"))
    assert found == [], f"{path.relative_to(ROOT)} names documents a user does not have: {found}"


def _gen_results():
    spec = importlib.util.spec_from_file_location("gen_results", ROOT / "docs" / "gen_results.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_results_pages_are_generated_from_the_experiments_outputs():
    """docs/results/*.md equal what docs/gen_results.py makes of the committed outputs (JSON, tables)."""
    assert _gen_results().stale_pages() == [], "run python docs/gen_results.py"


def test_results_directives_render_json_with_the_experiments_own_functions():
    gen = _gen_results()
    assert gen.value("dpadmm-adult/dpadmm_adult.json", "settings.n_agents") == "100"
    with pytest.raises(ValueError, match="public"):
        gen.render("dpadmm-adult/dpadmm_adult.json", "experiments.kkt_table:_markdown")
    with pytest.raises(ValueError, match="unknown directive"):
        gen._call("open('x')")


@pytest.mark.slow
def test_the_documentation_site_builds_in_strict_mode(tmp_path):
    """mkdocs build --strict, as CI runs it (skipped where the docs extra is not installed)."""
    pytest.importorskip("mkdocs")
    pytest.importorskip("mkdocstrings")
    pytest.importorskip("material")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    completed = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert completed.returncode == 0, completed.stderr[-3000:]


def test_the_site_wraps_long_code_lines():
    """Code blocks wrap at the page's edge instead of being cut off there: a stylesheet the site
    loads sets ``white-space: pre-wrap`` on code blocks."""
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    listed = re.search(r"^extra_css:\n((?:  - .+\n)+)", config, re.M)
    assert listed, "mkdocs.yml lists no extra_css"
    sheets = [ROOT / "docs" / line.strip()[2:] for line in listed.group(1).splitlines()]
    rules = "".join(sheet.read_text(encoding="utf-8") for sheet in sheets)
    block = re.search(r"pre\s*>\s*code\s*\{([^}]*)\}", rules)
    assert block and re.search(r"white-space:\s*pre-wrap", block.group(1))
