"""MkDocs hooks (mkdocs.yml ``hooks:``): the build fails if a generated results page is stale
(``docs/gen_results.py --check``)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from mkdocs.exceptions import PluginError

HERE = Path(__file__).resolve().parent


def on_pre_build(config, **kwargs) -> None:
    """Check that docs/results/*.md equal what docs/gen_results.py makes of the committed outputs."""
    spec = importlib.util.spec_from_file_location("gen_results", HERE / "gen_results.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    stale = module.stale_pages()
    if stale:
        raise PluginError(f"generated results pages are stale: {', '.join(stale)}; run python docs/gen_results.py")
