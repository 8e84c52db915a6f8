"""The bug zoo (tests/audits/bug_zoo.py) as privacy tests: every defect fails, every correct twin passes.

Run from the repository root (the defects are expected failures, marked ``xfail(strict=True)``, so the
file passes only if each defect is caught and each twin is not)::

    python -m pytest examples/privacy_in_ci -p no:cacheprovider --dp-effort quick
"""

import importlib.util
import sys
from pathlib import Path

import pytest

from audits import Claim
from audits.testbench.svt import svt1, svt5
from audits.testing import assert_private

_path = Path(__file__).resolve().parents[2] / "tests" / "audits" / "bug_zoo.py"
_spec = importlib.util.spec_from_file_location("bug_zoo", _path)
assert _spec is not None and _spec.loader is not None
zoo = sys.modules.setdefault("bug_zoo", importlib.util.module_from_spec(_spec))
_spec.loader.exec_module(zoo)

caught = pytest.mark.xfail(raises=AssertionError, strict=True, reason="a privacy bug: the assertion must fail")
SVT_PAIR = ([1.0] * 10, [2.0] * 5 + [0.0] * 5)


@pytest.mark.parametrize(
    ("mechanism", "pair"),
    [
        pytest.param(zoo.variance_as_std, zoo.unit_pair, marks=caught, id="variance-as-std"),
        pytest.param(zoo.variance_as_std_twin, zoo.unit_pair, id="variance-as-std twin"),
        pytest.param(zoo.uncomposed, zoo.unit_pair, marks=caught, id="uncomposed-rounds"),
        pytest.param(zoo.uncomposed_twin, zoo.unit_pair, id="uncomposed-rounds twin"),
        pytest.param(zoo.half_sensitivity, zoo.replace_pair, marks=caught, id="half-sensitivity"),
        pytest.param(zoo.data_scale, zoo.extreme_pair, marks=caught, id="data-scale"),
        pytest.param(zoo.sensitivity_two, zoo.replace_pair, id="sensitivity-two twin"),
    ],
)
def test_gaussian_sum(mechanism, pair):
    assert_private(mechanism, *pair(), claim=zoo.CLAIM)


@pytest.mark.parametrize(
    "mechanism", [pytest.param(zoo.reseeded, marks=caught, id="reseeded"), pytest.param(zoo.reseeded_twin, id="twin")]
)
def test_unbatched_release(mechanism):
    assert_private(mechanism, *zoo.replace_pair(), claim=zoo.CLAIM, batched=False)


@pytest.mark.parametrize(
    "mechanism",
    [pytest.param(svt5, marks=caught, id="sparse vector without query noise"), pytest.param(svt1, id="svt1")],
)
def test_sparse_vector(mechanism):
    assert_private(mechanism, *SVT_PAIR, claim=Claim(epsilon=0.1, delta=0.0))
