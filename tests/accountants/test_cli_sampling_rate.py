"""``dp-accountant --sampling-rate q``: each release is a Poisson-sampled one (a DP-SGD step), bounded
by every accountant that can, the same numbers as the accountants give directly; a rate outside
(0, 1] is one line and exit status 2."""

from __future__ import annotations

import json

import pytest
from dp_accounting import dp_event
from dp_accounting.pld import PLDAccountant as DpAccountingPLD

from accountants import MomentsAccountant, PLDAccountant
from accountants.__main__ import main

STEPS = ["--noise-multiplier", "4", "--sampling-rate", "0.1", "--count", "20"]


def answer(argv: list[str], capsys: pytest.CaptureFixture[str]) -> dict:
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_the_sampling_rate_wraps_each_release_in_a_poisson_sampled_event(capsys):
    bounds = answer(STEPS, capsys)["epsilon_upper"]
    step = dp_event.PoissonSampledDpEvent(0.1, dp_event.GaussianDpEvent(4.0))
    assert set(bounds) == {"rdp", "moments_classic", "pld"}  # the others refuse sampled releases
    assert bounds["rdp"] == MomentsAccountant().register(step, 20).get_epsilon(1e-5)
    assert bounds["pld"] == PLDAccountant().register(step, 20).get_epsilon(1e-5)
    peer = DpAccountingPLD(value_discretization_interval=1e-4)
    peer.compose(step, 20)
    assert bounds["pld"] == pytest.approx(peer.get_epsilon(1e-5), abs=1e-9)  # dp-accounting's 0.4290942309


def test_the_text_table_names_who_refused_sampled_releases(capsys):
    assert main(STEPS) == 0
    out = capsys.readouterr().out
    assert "| pld | 0.429094 **(best)** |" in out
    assert "| exact_gaussian | refused: ExactGaussianAccountant cannot bound the event PoissonSampledDpEvent" in out


def test_a_sampling_rate_of_one_is_every_record_in_every_release(capsys):
    plain = answer(["--noise-multiplier", "4", "--count", "20"], capsys)
    assert answer(["--noise-multiplier", "4", "--count", "20", "--sampling-rate", "1"], capsys) == plain


def test_the_help_describes_the_sampling_rate(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--help"])
    assert exit_info.value.code == 0
    help_text = " ".join(capsys.readouterr().out.split())
    assert "--sampling-rate Q" in help_text and "Poisson sample" in help_text and "0 < Q <= 1" in help_text


@pytest.mark.parametrize("rate", ["0", "-0.1", "1.5", "nan", "inf", "abc", ""])
def test_a_sampling_rate_outside_0_1_is_one_line_and_exit_2(rate, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--noise-multiplier", "1", "--sampling-rate", rate])
    captured = capsys.readouterr()
    assert exit_info.value.code == 2 and captured.out == ""
    assert captured.err == (
        f"dp-accountant: error: argument --sampling-rate: expected a probability q with 0 < q <= 1, got {rate!r}\n"
    )


def test_a_sampling_rate_with_a_ledger_is_refused(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--ledger", str(tmp_path / "run.jsonl"), "--sampling-rate", "0.1"])
    assert exit_info.value.code == 2
    assert capsys.readouterr().err.startswith("dp-accountant: error: argument --sampling-rate: not allowed with")
