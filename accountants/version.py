"""The toolkit's version: the one source of truth, read by ``pyproject.toml`` and every package."""

__version__ = "0.2.0"
