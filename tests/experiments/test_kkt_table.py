"""experiments.kkt_table: the KKT-inference table writes its JSON, Markdown and figure (a tiny setting)."""

import json

from experiments import kkt_table


def test_table_cli_writes_its_outputs(tmp_path, monkeypatch):
    real = kkt_table.run_experiment
    small = dict(levels=(1000.0,), T=3, records_per_node=30, n_targets=2, trials=1, n_candidates=20)
    monkeypatch.setattr(
        kkt_table, "run_experiment", lambda seed, **_: real(seed=seed, log=lambda *a, **k: None, **small)
    )
    assert kkt_table.main(["--out", str(tmp_path), "--quick"]) == 0
    report = json.loads((tmp_path / "kkt_table.json").read_text())
    methods = {row["method"] for row in report["rows"]}
    assert methods == {"M-ADMM", "DVP", "PP", "pure-noise reference"}
    madmm = next(r for r in report["rows"] if r["method"] == "M-ADMM" and r["attacker"] == "η known")
    assert madmm["cosine"] >= 0.999 and madmm["top1"] == 1.0 and madmm["label_accuracy"] == 1.0
    assert (tmp_path / "kkt_table.png").stat().st_size > 0
    assert "| PP | 1000 |" in (tmp_path / "kkt_table.md").read_text()
