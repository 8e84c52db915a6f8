"""A report says what a per-iteration --epsilon is in words a reader understands: the calibration of
each single iteration's release, not the privacy of the run, and that every ε shown is the total."""

import re

import pytest

from audits import registry
from audits.targets.star import DPADMM_ITERATIONS
from solvers.star.privacy import unit_mu_epsilon


@pytest.mark.parametrize("name", ["dpadmm", "dpadmm-naive", "sharing-output", "sharing-parameter"])
def test_a_per_iteration_epsilon_is_explained_as_each_iterations_calibration_and_not_the_total(name):
    meaning = registry.TARGETS[name].spec(None, 1e-5, True).epsilon_meaning
    assert "is not the privacy of the run: it is the ε each single iteration's release is calibrated to" in meaning
    published = re.search(r"the run publishes (?:T = )?(\d+) of them", meaning)
    assert published is not None, meaning
    assert f"is the total over all {published.group(1)} iterations" in meaning
    assert "per-iteration ε of" not in meaning  # the puzzling wording


def test_the_main_jobs_default_names_its_value():
    meaning = registry.TARGETS["dpadmm"].spec(None, 1e-5, True).epsilon_meaning
    assert meaning.startswith(
        f"--epsilon = {unit_mu_epsilon(1e-5, DPADMM_ITERATIONS):.6g} is not the privacy of the run"
    )
    assert f"the run publishes {DPADMM_ITERATIONS} of them" in meaning
