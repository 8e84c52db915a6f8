"""report.json is versioned and described by the JSON Schema that ships with the package: every built-in
target's quick report, a third party's target and the report of audits.audit() validate against it."""

from __future__ import annotations

import copy
import json
from fnmatch import fnmatch
from pathlib import Path

import jsonschema
import numpy as np
import pytest

from accountants.version import __version__
from audits import Claim, audit
from audits.registry import TARGETS
from audits.report import json_ready, report_schema
from audits.run import run_audit
from audits.runner import run_spec
from audits.verdict import SCHEMA_VERSION

ROOT = Path(__file__).resolve().parents[2]
BUILT_IN = list(TARGETS)


@pytest.fixture(scope="module")
def validator():
    schema = report_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    """report.json of every built-in target's quick audit, as written to disk, by name."""
    reports = {}
    for name in BUILT_IN:
        written = run_audit(name, quick=True, progress=False).write(tmp_path_factory.mktemp(name), figures=False)
        reports[name] = json.loads(written["json"].read_text())
    return reports


def errors(validator, report):
    return [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(report)]


def test_the_built_in_targets_are_all_checked():
    assert {"dpadmm", "dpadmm-naive", "radmm", "pdml", "sharing-output", "sharing-parameter"} <= set(BUILT_IN)


@pytest.mark.parametrize("name", BUILT_IN)
def test_every_built_in_quick_report_validates(validator, written, name):
    report = written[name]
    assert errors(validator, report) == []
    assert report["schema_version"] == SCHEMA_VERSION == report_schema()["properties"]["schema_version"]["const"]
    assert report["toolkit_version"] == __version__


def test_a_third_party_target_and_audits_audit_validate(validator, tiny_target, tmp_path):
    third_party = run_spec(tiny_target.fixed, seed=0, progress=False).report
    assert errors(validator, json_ready(third_party)) == []

    def mechanism(dataset, rng, n):
        return dataset + rng.normal(0.0, 1.0, size=(n, 1))

    result = audit(
        mechanism,
        np.array([1.0]),
        neighbours=[np.array([0.0]), np.array([0.5])],
        claim=Claim(epsilon=8.0, delta=1e-5, noise="gaussian"),
        trials=400,
        search_trials=200,
        pilot_trials=100,
        progress=False,
    )
    report = json.loads(result.write(tmp_path, figures=False)["json"].read_text())
    for key in ("floating_point", "reproducible", "constant_releases", "neighbour_search", "diagnostics"):
        assert key in report
    assert errors(validator, report) == []


@pytest.mark.parametrize(
    ("change", "path"),
    [
        (lambda r: r.pop("schema_version"), []),
        (lambda r: r.update(schema_version="0.9"), ["schema_version"]),
        (lambda r: r.update(verdict="maybe"), ["verdict"]),
        (lambda r: r["epsilon_upper"].update(rdp="∞"), ["epsilon_upper", "rdp"]),
        (lambda r: r["lower_bounds"]["gdp"].pop("assumption"), ["lower_bounds", "gdp"]),
        (lambda r: r["attack"]["metrics"].update(auroc=1.5), ["attack", "metrics", "auroc"]),
        (lambda r: r.update(trials=0), ["trials"]),
        (lambda r: r.update(versions={"python": 3}), ["versions", "python"]),
        (lambda r: r.update(command=["dp-audit"]), ["command"]),
        (lambda r: r.update(score_resolution=0), ["score_resolution"]),
    ],
)
def test_the_schema_rejects_what_breaks_a_reader(validator, written, change, path):
    report = copy.deepcopy(written["dpadmm"])
    change(report)
    found = list(validator.iter_errors(report))
    assert found and any(list(e.absolute_path) == path for e in found)


def test_the_schema_ships_as_package_data():
    tomllib = pytest.importorskip("tomllib")  # Python >= 3.11
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    patterns = config["tool"]["setuptools"]["package-data"]["audits"]
    assert any(fnmatch("schema/report.schema.json", pattern) for pattern in patterns)
    assert (ROOT / "audits" / "schema" / "report.schema.json").is_file()
