"""How ledgers, accountants and best bounds read: plain text for ``print``, Markdown and HTML for
notebooks (IPython's ``_repr_markdown_``/``_repr_html_``), and pandas DataFrames (``to_frame``).

Nothing here computes a bound: a display shows what was registered or already answered, so showing an
object never costs an accountant's work. Every user string (a participant's name, an event's repr, an
error's message) is HTML-escaped. A long ledger shows its first :data:`HEAD` and last :data:`TAIL`
entries and says how many are not shown.
"""

from __future__ import annotations

import html
import importlib
import math
from collections.abc import Hashable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from accountants.base import Accountant
    from accountants.best import BestBound
    from accountants.ledger import Ledger

__all__ = [
    "BEST_NOTE",
    "HEAD",
    "TAIL",
    "accountant_html",
    "accountant_markdown",
    "accountant_summary",
    "best_bound_html",
    "best_bound_markdown",
    "data_frame",
    "html_table",
    "ledger_columns",
    "ledger_html",
    "ledger_markdown",
    "ledger_summary",
    "ledger_text",
    "markdown_table",
    "number",
    "releases_of",
]

#: Entries shown at the start and at the end of a long ledger.
HEAD, TAIL = 20, 5

LEDGER_COLUMNS = ("#", "participant", "event", "count", "iteration")


def number(value: float) -> str:
    """A bound as read: six decimals, ∞ for an infinite one."""
    return "∞" if math.isinf(value) else f"{value:.6f}"


def markdown_table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A Markdown table (a ``|`` inside a cell is written ``\\|``)."""

    def line(cells: Sequence[str]) -> str:
        return "| " + " | ".join(" ".join(str(c).replace("|", "\\|").split()) for c in cells) + " |"

    return "\n".join([line(headers), "|" + "---|" * len(headers), *map(line, rows)])


def html_table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """An HTML table of escaped cells."""
    head = "".join(f"<th>{html.escape(str(h))}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def data_frame(columns: Mapping[str, Sequence[Any]], what: str) -> Any:
    """A pandas DataFrame of ``columns``; pandas is optional, and its absence an ImportError saying so."""
    try:
        pandas = importlib.import_module("pandas")
    except ImportError as error:
        raise ImportError(f"{what}.to_frame() needs pandas, which is not installed (pip install pandas)") from error
    return pandas.DataFrame(dict(columns))


# ---------------------------------------------------------------------------------------------- ledgers
def releases_of(ledger: Ledger, participant: Hashable) -> int:
    """The releases (entries weighted by count) of ``participant``, None included (``Ledger.total_count``
    reads None as everyone)."""
    return sum(entry.count for entry in ledger.for_participant(participant))


def ledger_summary(ledger: Ledger) -> str:
    """One line: entries, releases (entries weighted by count) and participants."""
    entries, releases, participants = len(ledger), ledger.total_count(), len(ledger.participants)
    return (
        f"{entries} entr{'y' if entries == 1 else 'ies'}: {releases} release{'' if releases == 1 else 's'} by "
        f"{participants} participant{'' if participants == 1 else 's'}"
    )


def _ledger_rows(ledger: Ledger) -> tuple[list[list[str]], int]:
    """The rows shown (first HEAD, last TAIL of a long ledger) and how many entries are left out."""
    entries = list(enumerate(ledger))
    hidden = max(0, len(entries) - HEAD - TAIL)
    shown = entries if not hidden else entries[:HEAD] + entries[-TAIL:]
    rows = [
        [str(i), repr(e.participant), repr(e.event), str(e.count), "" if e.iteration is None else str(e.iteration)]
        for i, e in shown
    ]
    return rows, hidden


def _hidden_note(hidden: int) -> str:
    return f"… {hidden} more entries between these (iterate over the ledger, or ledger.to_frame(), for all)"


def ledger_text(ledger: Ledger) -> str:
    """``print(ledger)``: who released what, when, as an aligned table under a one-line summary."""
    rows, hidden = _ledger_rows(ledger)
    if not rows:
        return "Ledger: no releases"
    table = [list(LEDGER_COLUMNS), *rows]
    widths = [max(len(row[c]) for row in table) for c in range(len(LEDGER_COLUMNS))]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip() for row in table]
    if hidden:
        lines.insert(1 + HEAD, _hidden_note(hidden))
    return "\n".join([f"Ledger: {ledger_summary(ledger)}", *lines])


def ledger_markdown(ledger: Ledger) -> str:
    rows, hidden = _ledger_rows(ledger)
    note = f"\n\n{_hidden_note(hidden)}" if hidden else ""
    return f"**Ledger**: {ledger_summary(ledger)}\n\n" + (markdown_table(LEDGER_COLUMNS, rows) if rows else "") + note


def ledger_html(ledger: Ledger) -> str:
    rows, hidden = _ledger_rows(ledger)
    note = f"<p>{html.escape(_hidden_note(hidden))}</p>" if hidden else ""
    table = html_table(LEDGER_COLUMNS, rows) if rows else ""
    return f"<div><p><b>Ledger</b>: {html.escape(ledger_summary(ledger))}</p>{table}{note}</div>"


def ledger_columns(ledger: Ledger) -> dict[str, list[Any]]:
    """The ledger's every entry as columns (participant, event, count, iteration)."""
    entries = list(ledger)
    return {
        "participant": [e.participant for e in entries],
        "event": [repr(e.event) for e in entries],
        "count": [e.count for e in entries],
        "iteration": [e.iteration for e in entries],
    }


# ------------------------------------------------------------------------------------------ accountants
def accountant_summary(accountant: Accountant[Any]) -> str:
    """``Name(participants=P, releases=R)``, R counting each entry's repetitions."""
    ledger = accountant.ledger
    return f"{type(accountant).__name__}(participants={len(ledger.participants)}, releases={ledger.total_count()})"


def _accountant_parts(accountant: Accountant[Any]) -> tuple[str, list[list[str]]]:
    """The title (name, summary and relation) and a (participant, releases) row per participant."""
    ledger = accountant.ledger
    relation = getattr(accountant, "neighboring_relation", None)
    title = f"{type(accountant).__name__}: {ledger_summary(ledger)}"
    if relation is not None:
        title += f"; neighbouring relation {getattr(relation, 'name', str(relation))}"
    return title, [[repr(p), str(releases_of(ledger, p))] for p in ledger.participants]


def accountant_markdown(accountant: Accountant[Any]) -> str:
    title, rows = _accountant_parts(accountant)
    table = "\n\n" + markdown_table(("participant", "releases"), rows) if rows else ""
    return f"**{title}**{table}\n\nget_epsilon(δ) bounds the worst participant."


def accountant_html(accountant: Accountant[Any]) -> str:
    """The accountant, its relation, and each participant's releases (no bound: that needs a δ)."""
    title, rows = _accountant_parts(accountant)
    table = html_table(("participant", "releases"), rows) if rows else ""
    return f"<div><p><b>{html.escape(title)}</b></p>{table}<p>get_epsilon(δ) bounds the worst participant.</p></div>"


# ---------------------------------------------------------------------------------------- best bounds
def _best_rows(best: BestBound) -> list[list[str]]:
    rows = [
        [name, number(value) + (" (best)" if name == best.accountant else "")]
        for name, value in sorted(best.bounds.items(), key=lambda item: item[1])
    ]
    return rows + [[name, f"failed: {reason}"] for name, reason in best.failures.items()]


def _best_title(best: BestBound) -> str:
    return (
        f"ε ≤ {number(best.epsilon)} at δ = {best.delta:g} for participant {best.participant!r}, by {best.accountant}"
    )


#: What a best bound's table leaves out, said under it.
BEST_NOTE = (
    "An accountant that refused these releases, or that best_epsilon skipped because it cannot win, has no row "
    "(dp-accountant names each refusal with its reason)."
)


def best_bound_markdown(best: BestBound) -> str:
    table = markdown_table(("accountant", "ε (upper bound)"), _best_rows(best))
    return f"**{_best_title(best)}**\n\n{table}\n\n{BEST_NOTE}"


def best_bound_html(best: BestBound) -> str:
    table = html_table(("accountant", "ε (upper bound)"), _best_rows(best))
    return f"<div><p><b>{html.escape(_best_title(best))}</b></p>{table}<p>{html.escape(BEST_NOTE)}</p></div>"
