"""Every public result object reads as what it holds: ``print``/``repr`` of ledgers and accountants,
and the notebook displays (``_repr_html_``, ``_repr_markdown_``) of ledgers, accountants,
``best_epsilon``'s answer, solver results and audit reports; ``to_frame`` where pandas is installed."""

import html
import importlib.util
import re
import sys
from xml.etree import ElementTree

import numpy as np
import pytest
from dp_accounting import dp_event

from accountants import ExactGaussianAccountant, Ledger, LedgerEntry, PLDAccountant, PrivacyOdometer, best_epsilon
from accountants.display import BEST_NOTE, HEAD, TAIL
from audits import AuditReport
from solvers.engine.result import Result

HAS_PANDAS = importlib.util.find_spec("pandas") is not None


def rendered(obj):
    """{MIME type: text} as a notebook shows ``obj``: IPython's display formatter when installed, else the
    same ``_repr_*_`` methods it calls."""
    if importlib.util.find_spec("IPython") is not None:
        from IPython.core.formatters import DisplayFormatter

        data, _ = DisplayFormatter().format(obj)
    else:
        data = {"text/plain": repr(obj), "text/html": obj._repr_html_(), "text/markdown": obj._repr_markdown_()}
    ElementTree.fromstring(data["text/html"])  # well-formed: every tag closed, every user string escaped
    assert "\n" not in data["text/plain"] and " at 0x" not in data["text/plain"]
    return data


def cells(table_html):
    return re.findall(r"<td>(.*?)</td>", table_html)


def test_an_accountant_counts_every_repetition_of_a_release():
    accountant = ExactGaussianAccountant().register(dp_event.GaussianDpEvent(10.0), count=100)
    assert repr(accountant) == "ExactGaussianAccountant(participants=1, releases=100)"
    accountant.register(dp_event.GaussianDpEvent(5.0), count=3, participant="b")
    assert repr(accountant) == "ExactGaussianAccountant(participants=2, releases=103)"
    shown = rendered(accountant)
    assert cells(shown["text/html"]) == ["None", "100", "&#x27;b&#x27;", "3"]
    assert (
        "ExactGaussianAccountant: 2 entries: 103 releases by 2 participants; neighbouring relation "
        "ADD_OR_REMOVE_ONE" in shown["text/html"]
    )
    assert "| 'b' | 3 |" in shown["text/markdown"]


def test_the_odometers_repr_counts_every_repetition_too():
    odometer = PrivacyOdometer().register(dp_event.GaussianDpEvent(10.0), count=100)
    assert repr(odometer).endswith("participants=1, releases=100)")


def test_print_of_a_ledger_shows_who_released_what_when():
    accountant = PLDAccountant()
    accountant.register(dp_event.GaussianDpEvent(2.0), count=5, participant="alice")
    accountant.register(dp_event.LaplaceDpEvent(0.5), participant=7)
    text = str(accountant.ledger)
    assert " at 0x" not in text and " at 0x" not in repr(accountant.ledger)
    assert repr(accountant.ledger) == "<Ledger: 2 entries: 6 releases by 2 participants>"
    lines = text.splitlines()
    assert lines[0] == "Ledger: 2 entries: 6 releases by 2 participants"
    assert lines[1].split() == ["#", "participant", "event", "count", "iteration"]
    assert lines[2].split() == ["0", "'alice'", "GaussianDpEvent(noise_multiplier=2.0)", "5"]
    assert lines[3].split() == ["1", "7", "LaplaceDpEvent(noise_multiplier=0.5)", "1"]
    assert str(Ledger()) == "Ledger: no releases"


def test_a_long_ledger_says_how_many_entries_it_does_not_show():
    n = HEAD + TAIL + 17
    ledger = Ledger([LedgerEntry(k % 3, dp_event.GaussianDpEvent(1.0), 2, k) for k in range(n)])
    lines = str(ledger).splitlines()
    assert lines[0] == f"Ledger: {n} entries: {2 * n} releases by 3 participants"
    shown = [int(line.split()[0]) for line in lines[2:] if line[0].isdigit()]
    assert shown == [*range(HEAD), *range(n - TAIL, n)]
    assert lines[2 + HEAD].startswith("… 17 more entries between these")
    assert "17 more entries" in ledger._repr_html_() and "17 more entries" in ledger._repr_markdown_()
    assert len(cells(ledger._repr_html_())) == 5 * (HEAD + TAIL)


def test_a_ledger_escapes_user_strings_in_html():
    ledger = Ledger([LedgerEntry("<script>alert(1)</script>", dp_event.GaussianDpEvent(1.0), 1)])
    page = rendered(ledger)["text/html"]
    assert "<script>" not in page and html.escape(repr("<script>alert(1)</script>")) in page


def test_best_epsilons_answer_displays_every_bound_and_the_best():
    ledger = Ledger([LedgerEntry(None, dp_event.GaussianDpEvent(10.0), 100)])
    best = best_epsilon(ledger, 1e-5, every_accountant=True)
    shown = rendered(best)
    assert "ε ≤ 4.377178 at δ = 1e-05 for participant None, by exact_gaussian" in shown["text/html"]
    rows = dict(zip(cells(shown["text/html"])[::2], cells(shown["text/html"])[1::2], strict=True))
    assert rows == {
        name: f"{value:.6f}" + (" (best)" if name == best.accountant else "") for name, value in best.bounds.items()
    }
    assert "| exact_gaussian | 4.377178 (best) |" in shown["text/markdown"]
    assert shown["text/markdown"].endswith(BEST_NOTE) and html.escape(BEST_NOTE) in shown["text/html"]


def result(batched):
    objective = np.array([[3.0, 2.0], [2.0, 1.5], [1.0, 0.5]]) if batched else np.array([3.0, 2.0, 1.0])
    model = np.zeros((2, 4)) if batched else np.zeros(4)
    return Result(
        model=model,
        model_average=model,
        history={"objective": objective},
        transcript=None,
        ledger=Ledger([LedgerEntry(0, dp_event.GaussianDpEvent(3.0), 1, k) for k in range(3)]),
        privacy={"pld": 1.25, "rdp": 1.5},
        delta=1e-5,
        seeds=(0, 1) if batched else (0,),
        solver={"name": "dp<admm>"},
    )


def test_a_solver_result_displays_its_privacy_and_last_metrics():
    shown = rendered(result(batched=True))
    page = shown["text/html"]
    assert "dp&lt;admm&gt;: 2 trials, model 2×4, δ = 1e-05" in page
    assert cells(page) == ["pld", "1.250000", "rdp", "1.500000", "objective", "0.75 ± 0.25"]
    assert "| objective | 1 |" in rendered(result(batched=False))["text/markdown"]


def test_to_frame_without_pandas_names_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)  # import pandas now fails, as where it is not installed
    with pytest.raises(ImportError, match="Result.to_frame\\(\\) needs pandas"):
        result(batched=False).to_frame()
    with pytest.raises(ImportError, match="Ledger.to_frame\\(\\) needs pandas"):
        Ledger().to_frame()


@pytest.mark.skipif(not HAS_PANDAS, reason="pandas is not installed")
def test_to_frame_with_pandas():
    frame = result(batched=True).to_frame()
    assert frame.to_dict("list") == {
        "iteration": [1, 1, 2, 2, 3, 3],
        "trial": [0, 1, 0, 1, 0, 1],
        "objective": [3.0, 2.0, 2.0, 1.5, 1.0, 0.5],
    }
    assert list(result(batched=True).ledger.to_frame()["iteration"]) == [0, 1, 2]


def test_result_columns_lay_out_a_batched_history_by_iteration_and_trial():
    from solvers.display import result_columns

    assert result_columns(result(batched=True)) == {
        "iteration": [1, 1, 2, 2, 3, 3],
        "trial": [0, 1, 0, 1, 0, 1],
        "objective": [3.0, 2.0, 2.0, 1.5, 1.0, 0.5],
    }
    assert result_columns(result(batched=False)) == {"iteration": [1, 2, 3], "objective": [3.0, 2.0, 1.0]}


REPORT = {
    "verdict": "VIOLATION",
    "solver": "mine.<mechanism>",
    "claim": "(1, 1e-05)-DP, gaussian noise",
    "trials": 2000,
    "delta": 1e-5,
    "confidence": 0.95,
    "attack": {"name": "pooled likelihood ratio"},
    "lower_bounds": {
        "gdp": {"epsilon": 1.0496198703528146, "mu": 0.2801317688428271, "assumption_short": "conditional on GDP"},
        "clopper_pearson": {"epsilon": 0.22054303856933855, "mu": None, "assumption_short": "worst case"},
    },
    "epsilon_upper": {"claimed": 1.0, "rdp": float("inf")},
    "claimed_accountant": "claimed",
    "verdicts": {"claimed": "VIOLATION", "rdp": "consistent"},
    "attacks": {
        "pooled likelihood ratio": {"metrics": {"auroc": 0.5791, "tpr_at_0.1%_fpr": 0.0, "tpr_at_1%_fpr": 0.01}}
    },
    "epsilon_meaning": "ε of the claim",
}


def test_an_audit_reports_repr_is_one_line_not_a_dict():
    text = repr(AuditReport(report=REPORT, attacks=(), lower={}))
    assert text == (
        "AuditReport(verdict='VIOLATION', solver='mine.<mechanism>', claim='(1, 1e-05)-DP, gaussian noise', "
        "trials=2000, epsilon_lower={'gdp': 1.0496, 'clopper_pearson': 0.2205}, epsilon_upper={'claimed': 1.0, "
        "'rdp': inf})"
    )
    assert "lower_bounds" not in text and "\n" not in text


def test_an_audit_report_displays_the_verdict_first_and_every_bound():
    shown = rendered(AuditReport(report=REPORT, attacks=(), lower={}))
    page = shown["text/html"]
    assert page.index("VIOLATION: mine.&lt;mechanism&gt; against the claim") < page.index("<table>")
    assert cells(page)[:14] == [
        "gdp", "conditional on GDP", "1.0496", "0.2801",
        "clopper_pearson", "worst case", "0.2205", "—",
        "claimed (the user&#x27;s claim)", "1.0000", "VIOLATION",
        "rdp", "∞", "consistent",
    ]  # fmt: skip
    assert "| pooled likelihood ratio | 0.5791 | 0.0000 | 0.0100 |" in shown["text/markdown"]
    assert shown["text/markdown"].startswith("**VIOLATION: mine.<mechanism> against the claim")


def test_a_real_audits_report_renders(tmp_path):
    from audits import Claim, audit

    def noisy_mean(data, rng, n):
        return data.mean(axis=0) + rng.normal(0.0, 0.05, size=(n, data.shape[1]))

    D = np.zeros((50, 2))
    D_prime = D.copy()
    D_prime[0] = [1.0, 0.0]
    report = audit(noisy_mean, D, D_prime, claim=Claim(epsilon=8.0, delta=1e-5, noise="gaussian"), trials=1000)
    assert report.verdict == "consistent"  # 0.4-GDP, about (1.6, 1e-5)-DP, against a claim of 8 (seed 0)
    shown = rendered(report)
    assert shown["text/plain"].startswith(f"AuditReport(verdict={report.verdict!r}, solver=")
    assert shown["text/html"].startswith(f'<div><p style="font-size:1.2em;color:#1b5e20"><b>{report.verdict}: ')
    for bound in report.epsilon_lower.values():
        assert f"<td>{bound.epsilon:.4f}</td>" in shown["text/html"]
    assert "<td>8.0000</td>" in shown["text/html"]  # the claim's upper bound
