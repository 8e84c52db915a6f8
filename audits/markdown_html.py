"""The Markdown of a report's sections as HTML, for report.html: the subset the sections are written in.

Blocks are separated by blank lines: ``#`` headings, ``*``/``-`` bullet lists (a line indented under a
bullet continues it), pipe tables (the ``|---|`` row dropped; ``\\|`` a bar inside a cell) and
paragraphs; inline ``**bold**``, ``*italic*`` and ```code```. The text is HTML-escaped before any
markup is added, so a section's content can never inject an element, an attribute or a link: Markdown
links and images stay text.
"""

from __future__ import annotations

import html
import re

__all__ = ["markdown_to_html"]

_CODE = re.compile(r"`([^`]+)`")
_BOLD = re.compile(r"\*\*(.+?)\*\*")
_ITALIC = re.compile(r"(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])")
_RULE = re.compile(r"^\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?$")


def _inline(text: str) -> str:
    escaped = html.escape(text.strip(), quote=True)
    escaped = _CODE.sub(r"<code>\1</code>", escaped)
    escaped = _BOLD.sub(r"<b>\1</b>", escaped)
    return _ITALIC.sub(r"<i>\1</i>", escaped)


_PIPE = re.compile(r"(?<!\\)\|")


def _cells(line: str, width: int | None = None) -> list[str]:
    """The cells of a table row (``\\|`` is a literal bar); a row with more cells than the header's
    ``width`` has bars in its first cell (``max |ℓ|``), which keeps them."""
    cells = _PIPE.split(line.strip().strip("|"))
    if width is not None and len(cells) > width:
        extra = len(cells) - width + 1
        cells = ["|".join(cells[:extra]), *cells[extra:]]
    return [cell.strip().replace("\\|", "|") for cell in cells]


def _block(lines: list[str]) -> str:
    first = lines[0].lstrip()
    if first.startswith("#"):
        level = min(len(first) - len(first.lstrip("#")) + 2, 6)  # below the section's own heading
        return f"<h{level}>{_inline(first.lstrip('#'))}</h{level}>" + "".join(
            f"<p>{_inline(line)}</p>" for line in lines[1:]
        )
    if first.startswith("|"):
        lines = [line for line in lines if not _RULE.match(line.strip())]
        rows = [_cells(lines[0])]
        rows += [_cells(line, len(rows[0])) for line in lines[1:]]
        head = "".join(f"<th>{_inline(cell)}</th>" for cell in rows[0])
        body = "".join("<tr>" + "".join(f"<td>{_inline(cell)}</td>" for cell in row) + "</tr>" for row in rows[1:])
        return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    if first.startswith(("* ", "- ")):
        items: list[str] = []
        for line in lines:
            stripped = line.lstrip()
            if stripped.startswith(("* ", "- ")) and len(line) - len(stripped) < 2:
                items.append(stripped[2:])
            else:  # a continuation line of the item above
                items[-1] += " " + stripped
        return "<ul>" + "".join(f"<li>{_inline(item)}</li>" for item in items) + "</ul>"
    return f"<p>{_inline(' '.join(line.strip() for line in lines))}</p>"


def markdown_to_html(text: str) -> str:
    """HTML of the Markdown ``text`` (module docstring); every character of it is escaped first."""
    blocks: list[list[str]] = [[]]
    for line in text.splitlines():
        if line.strip():
            blocks[-1].append(line)
        elif blocks[-1]:
            blocks.append([])
    return "".join(_block(block) for block in blocks if block)
