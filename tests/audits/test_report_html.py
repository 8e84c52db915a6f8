"""report.html: self-contained (no external reference, a Content-Security-Policy forbidding every load),
every user string escaped, the verdict first and every bound present, sections only where the report has
content, whose claim it is, baselines on the utility; report.md likewise; the trade-off curves the claim
allows, against an independent mpmath computation."""

from __future__ import annotations

import base64
import math
import re
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import mpmath
import numpy as np
import pytest

from attacks.base import AttackScores
from audits.markdown_html import markdown_to_html
from audits.report import format_table, report_markdown, write_audit
from audits.report_html import CONTENT_SECURITY_POLICY, MAX_BYTES, report_page, write_html
from audits.report_svg import ROC_POINTS, claim_tradeoff, tradeoff_svg

#: A 1×1 PNG: the page embeds figures as given.
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)
NASTY = "<script>alert('x')</script> & \"quotes\""


def lower(epsilon, method, mu=None):
    short = "worst case" if method == "clopper_pearson" else "conditional on GDP"
    return {"epsilon": epsilon, "mu": mu, "delta": 1e-5, "confidence": 0.95, "assumption_short": short}


def user_report(**changes):
    """A report of a user's own mechanism (audits.audit with Claim(epsilon=1.0, ...)), built by hand."""
    metrics = {"auroc": 0.5866, "tpr_at_0.1%_fpr": 0.0, "tpr_at_1%_fpr": 0.0}
    report = {
        "schema_version": "1.0",
        "toolkit_version": "0.2.0",
        "solver": NASTY,
        "solver_class": "MechanismRuns",
        "solver_params": {},
        "trials": 1000,
        "delta": 1e-5,
        "confidence": 0.95,
        "seed": 7,
        "epsilon_meaning": "ε of the claim: (1, 1e-05)-DP, gaussian noise",
        "lower_bounds": {"gdp": lower(1.0108, "gdp", 0.2707), "clopper_pearson": lower(0.2239, "clopper_pearson")},
        "epsilon_upper": {"claimed": 1.0},
        "claimed_accountant": "claimed",
        "claimed_epsilon": 1.0,
        "claim": "(1, 1e-05)-DP, gaussian noise",
        "verdicts": {"claimed": "VIOLATION"},
        "verdict": "VIOLATION",
        "tightness": {"gdp": 1.0108, "clopper_pearson": 0.2239},
        "tightness_by_bound": {"claimed": {"gdp": 1.0108, "clopper_pearson": 0.2239}},
        "attack": {
            "name": f"score {NASTY}",
            "white_box": False,
            "metadata": {"selected_on": NASTY},
            "metrics": metrics,
        },
        "attacks": {f"score {NASTY}": {"white_box": False, "metrics": metrics, "metadata": {}}},
        "canary": "D and D′ as the caller gave them",
        "utility": {},
        "sections": [{"title": "Reproducibility", "markdown": "Runs are **reproducible**.", "data": {}}],
    }
    return {**report, **changes}


def paper_report(solver="dpadmm"):
    upper = {"exact_gaussian": 4.3772, "rdp": 4.7285, "moments_classic": 5.3026, "none_finite": None}
    return user_report(
        solver=solver,
        epsilon_upper=upper,
        claimed_accountant="moments_classic",
        claimed_epsilon=5.3026,
        claim="DP-ADMM Theorem 2",
        verdicts=dict.fromkeys(upper, "consistent"),
        verdict="consistent",
        tightness_by_bound={k: {"gdp": 0.2, "clopper_pearson": 0.05} for k in upper},
        utility={
            "objective": 0.9668,
            "test_accuracy": 0.7625,
            "test_accuracy_std": 0.0,
            "objective_nonprivate": 0.9543,
            "test_accuracy_nonprivate": 0.7625,
            "test_accuracy_majority": 0.7625,
        },
        utility_trials=2000,
        sections=[],
    )


class Page(HTMLParser):
    """The elements, attributes, text and headings of a page."""

    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.tags, self.attributes, self.chunks, self.headings, self.styles = [], [], [], [], []
        self._heading, self._style = None, False
        self.feed(text)
        self.text = " ".join(self.chunks)

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attributes += [(tag, name, value or "") for name, value in attrs]
        if tag in ("h1", "h2"):
            self._heading = []
        self._style = tag == "style"

    def handle_endtag(self, tag):
        if tag in ("h1", "h2") and self._heading is not None:
            self.headings.append("".join(self._heading))
            self._heading = None
        self._style = False

    def handle_data(self, data):
        if self._style:
            self.styles.append(data)
            return
        self.chunks.append(data)
        if self._heading is not None:
            self._heading.append(data)


def attacks(n=400, seed=0):
    rng = np.random.default_rng(seed)
    return [AttackScores(f"score {NASTY}", rng.normal(1.0, 1.0, n), rng.normal(0.0, 1.0, n))]


def test_the_page_is_self_contained_escaped_and_states_the_verdict_first_and_every_bound():
    report = user_report()
    text = report_page(report, attacks(), {"roc.png": PNG, "bounds.png": PNG})
    page = Page(text)
    assert len(text.encode()) <= MAX_BYTES
    assert "script" not in page.tags and not {"iframe", "object", "embed", "link", "base", "form"} & set(page.tags)
    assert not [name for _, name, _ in page.attributes if name.startswith("on")]
    loads = [value for _, name, value in page.attributes if name in ("src", "href", "xlink:href", "srcset")]
    assert loads == [f"data:image/png;base64,{base64.b64encode(PNG).decode()}"] * 2  # the figures, nothing else
    assert not re.search(r"https?://", " ".join(loads) + " ".join(page.styles))
    assert "url(" not in " ".join(page.styles) and "@import" not in " ".join(page.styles)
    csp = [v for t, n, v in page.attributes if t == "meta" and n == "content" and "default-src" in v]
    assert csp == [CONTENT_SECURITY_POLICY] and "default-src 'none'" in csp[0]
    assert "<script>alert" not in text and page.headings[0] == f"Privacy audit: {NASTY}"  # escaped, shown as is
    first = max(i for i, chunk in enumerate(page.chunks) if chunk == page.headings[0]) + 1  # after <title> and <h1>
    assert page.chunks[first].startswith(f"VIOLATION: {NASTY}")  # the verdict first
    for method, entry in report["lower_bounds"].items():
        assert method in page.text and f"{entry['epsilon']:.4f}" in page.text
    assert "claimed (the user's claim)" in page.text and "1.0000" in page.text
    assert "The claim is the user's: ε ≤ 1.0000 at δ = 1e-05." in page.text
    assert "largest allowed by the claim as μ-GDP" in page.text and "dashed orange curve" in page.text
    worst_case_only = user_report(lower_bounds={"clopper_pearson": lower(0.2239, "clopper_pearson")})
    assert "μ-GDP" not in Page(report_page(worst_case_only, attacks())).text  # drawn, and said, only for GDP


def test_sections_only_where_the_report_has_content_and_no_paper_in_a_users_report():
    page = Page(report_page(user_report()))
    assert page.headings[1:] == [
        "Distinguisher and neighbouring pair",
        "Reproducibility",  # the mechanism's own section
        "Reproducibility",
        "How to read this report",
    ]  # no trade-off curve without the attacks' scores, no utility, no figures
    assert "paper" not in page.text and "DP-ADMM" not in page.text and "accountant proves" not in page.text
    with_scores = Page(report_page(user_report(sections=[]), attacks(), {"roc.png": PNG}))
    assert with_scores.headings[1:] == [
        "Distinguisher and neighbouring pair",
        "Trade-off curve: the audited distinguisher against the claim",
        "Figures",
        "Reproducibility",
        "How to read this report",
    ]
    markdown = report_markdown(user_report())
    assert "## Utility" not in markdown and "## Figures" not in markdown
    assert "paper" not in markdown and "DP-ADMM" not in markdown
    assert "| claimed (the user's claim) | 1.0000 | VIOLATION |" in markdown
    assert "solver_params" not in markdown  # empty: no line
    assert "## Figures\n\n![roc.png](roc.png)" in report_markdown(user_report(figures=["roc.png"]))


@pytest.mark.parametrize(
    ("solver", "citation"),
    [
        ("dpadmm", "Huang et al. 2020, Theorem 2"),
        ("dpadmm-broken-halved-noise", "Huang et al. 2020, Theorem 2"),
        ("radmm-broken-under-noised", "Zhang, Khalili & Liu 2020, Theorem V.1"),
    ],
)
def test_a_paper_targets_claim_is_labelled_with_its_citation(solver, citation):
    report = paper_report(solver)
    label = f"moments_classic (the paper's claim, {citation})"
    page = Page(report_page(report))
    assert label in page.text and f"The claim is the paper's ({citation}): ε ≤ 5.3026" in page.text
    assert f"| {label} | 5.3026 | consistent |" in format_table(report)
    assert "the user's" not in page.text
    for value in report["epsilon_upper"].values():
        assert ("∞" if value is None else f"{value:.4f}") in page.text
    assert ("DP-ADMM's moments accountant" in page.text) == solver.startswith("dpadmm")


def test_the_utility_section_marks_the_baselines_and_a_model_at_the_majority_rate():
    text = report_page(paper_report(), figures={"privacy_utility.png": PNG, "roc.png": PNG})
    page = Page(text)
    rows = re.findall(r"<tr><td>(\w+)</td>", text[text.index("<h2>Utility") : text.index("<h2>Figures")])
    assert rows == ["objective"] * 2 + ["test_accuracy"] * 3  # each metric followed by its baselines
    section = page.text[page.text.index("Utility") : page.text.index("Figures")]
    assert "baseline: predicting the most frequent test label (majority-class rate)" in section
    assert "baseline: the same solver without noise (non-private)" in section
    assert "0.7625 ± 0.0000" in section
    assert "The model's test accuracy 0.7625 is the majority-class rate 0.7625" in section
    assert page.tags.count("img") == 2  # privacy_utility.png in the utility section, roc.png under Figures
    better = paper_report()
    better["utility"] = {**better["utility"], "test_accuracy": 0.81, "test_accuracy_std": 0.01}
    assert "is the majority-class rate" not in Page(report_page(better)).text


def test_the_claims_trade_off_curves_against_mpmath():
    report = paper_report()
    epsilon, delta = report["claimed_epsilon"], report["delta"]
    alpha = np.array([1e-6, 1e-4, 0.003, 0.2, 0.9])
    curves = claim_tradeoff(report, alpha)
    expected = [min(1.0, math.exp(epsilon) * a + delta, 1 - math.exp(-epsilon) * (1 - delta - a)) for a in alpha]
    np.testing.assert_allclose(curves["(ε, δ)"], expected, rtol=1e-14)
    (name,) = [key for key in curves if key.startswith("μ-GDP")]
    mu = mpmath.mpf(name.split("= ")[1])  # the largest μ whose μ-GDP implies the claim, to 4 decimals
    # at the tangent point the μ-GDP curve exceeds e^ε α by exactly δ(ε) (Dong, Roth & Su 2022, Cor. 2.13)
    mpmath.mp.dps = 40
    star = mpmath.ncdf(-epsilon / mu - mu / 2)
    gap = mpmath.ncdf(-epsilon / mu + mu / 2) - mpmath.exp(epsilon) * star
    assert abs(gap - delta) < 2e-3 * delta  # μ printed to 4 decimals
    tangent = claim_tradeoff(report, np.array([float(star)]))
    exact_mu = mpmath.findroot(
        lambda m: mpmath.ncdf(-epsilon / m + m / 2) - mpmath.exp(epsilon) * mpmath.ncdf(-epsilon / m - m / 2) - delta,
        mu,
    )
    tpr = mpmath.ncdf(mpmath.sqrt(2) * mpmath.erfinv(2 * star - 1) + exact_mu)
    assert float(tangent[name][0]) == pytest.approx(float(tpr), rel=1e-9)
    assert np.all(curves[name] <= curves["(ε, δ)"] + 1e-12)  # μ-GDP at that μ implies the claim
    assert claim_tradeoff(user_report(claimed_epsilon=None), alpha) == {}


def test_the_trade_off_figure_is_bounded_and_names_its_curves():
    many = attacks(n=20_000)
    svg = tradeoff_svg(user_report(), many[0])
    polylines = re.findall(r'<polyline points="([^"]*)"', svg)
    assert len(polylines) == 4  # chance, the (ε, δ) and μ-GDP curves, the empirical ROC
    assert all(len(points.split()) == ROC_POINTS for points in polylines)
    assert len(svg) < 40_000
    text = Page(svg).text
    assert "largest allowed by the claim as (ε, δ)" in text and f"score {NASTY} (empirical)" in text


def test_markdown_sections_are_escaped_before_any_markup():
    text = (
        "Hi **bold** *it* `x<y`\n\n* one\n  continued\n* two <img src=http://e/x onerror=alert(1)>\n\n"
        "| a | b |\n|---|---|\n| 1 | [l](http://e) |"
    )
    out = markdown_to_html(text)
    assert out.startswith("<p>Hi <b>bold</b> <i>it</i> <code>x&lt;y</code></p><ul><li>one continued</li>")
    assert "&lt;img src=http://e/x onerror=alert(1)&gt;" in out and "<img" not in out
    assert "<table><thead><tr><th>a</th><th>b</th></tr></thead><tbody><tr><td>1</td><td>[l](http://e)</td>" in out
    assert "href" not in out
    bars = markdown_to_html("| loss | D |\n|---|---|\n| max |ℓ| | 2.5962 |\n| a \\| b | 1 |")
    assert "<td>max |ℓ|</td><td>2.5962</td></tr><tr><td>a | b</td><td>1</td>" in bars  # bars inside a cell


def test_writers_write_the_page_whole(tmp_path):
    report = user_report()
    paths = write_audit(dict(report), [], tmp_path / "r", figures=False)
    assert set(paths) == {"json", "md", "html"} and paths["html"].read_text(encoding="utf-8").startswith("<!DOCTYPE")
    path = write_html(report, tmp_path / "x" / "page.html", attacks())
    assert path.is_absolute() and [p.name for p in path.parent.iterdir()] == ["page.html"]
    assert "Trade-off curve" in path.read_text(encoding="utf-8")


CHROMIUM = Path("/usr/bin/chromium")


@pytest.mark.skipif(
    not CHROMIUM.exists(), reason="headless browser test: /usr/bin/chromium is absent (apt-get install chromium)"
)
def test_report_html_renders_in_headless_chromium_without_console_messages_or_loads(tmp_path):
    """report.html opens in headless Chromium: no console message (a blocked load or a script error would
    print one), the screenshot is not blank, and the DOM Chromium built holds the verdict and every bound.
    A copy of the page with an external image and a script added shows that this Chromium enforces the
    page's policy: both are refused, and say so on the console. (A real audit's page, figures included,
    is measured against MAX_BYTES in test_report_figures.py.)"""
    import matplotlib.image

    report = paper_report()
    page = write_html(report, tmp_path / "report.html", attacks(), {"roc.png": PNG})

    def render(path, screenshot=None):
        command = [
            str(CHROMIUM),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            f"--user-data-dir={tmp_path / 'profile'}",
            "--enable-logging=stderr",
            "--v=0",
            "--window-size=1100,1600",
            "--dump-dom",
            *([f"--screenshot={screenshot}"] if screenshot else []),
            path.as_uri(),
        ]
        done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=True)
        console = [line for line in done.stderr.splitlines() if ":CONSOLE" in line]
        return Page(done.stdout), console

    dom, console = render(page, tmp_path / "shot.png")
    assert console == []
    pixels = matplotlib.image.imread(tmp_path / "shot.png")[..., :3]
    assert pixels.shape[:2] == (1600, 1100)
    assert (pixels.min(axis=2) < 0.9).mean() > 0.05  # text, tables, bars: far from a blank page
    assert (np.ptp(pixels, axis=2) > 0.3).mean() > 0.001  # coloured: the verdict, the bars, the curves
    assert "consistent: dpadmm against the claim DP-ADMM Theorem 2" in dom.text
    for entry in report["lower_bounds"].values():
        assert f"ε ≥ {entry['epsilon']:.4f}" in dom.text  # on the axis, drawn by the browser
    for value in report["epsilon_upper"].values():
        assert (f"ε ≤ {value:.4f} (consistent)" if value is not None else "ε ≤ ∞: no finite bound") in dom.text
    hostile = tmp_path / "hostile.html"
    hostile.write_text(
        page.read_text(encoding="utf-8").replace(
            "</body>", '<img src="http://127.0.0.1:9/x.png"><script>console.log("ran")</script></body>'
        ),
        encoding="utf-8",
    )
    _, refused = render(hostile)
    assert len(refused) == 2 and all("Content Security Policy" in line for line in refused)
    assert not any('"ran"' in line for line in refused)


def test_an_audit_report_gives_its_page_from_python():
    from audits.verdict import AuditReport

    report, scores = user_report(), attacks()
    result = AuditReport(report=report, attacks=tuple(scores), lower={})
    assert result.to_html() == report_page(report, scores)
    assert "Trade-off curve" in result.to_html() and result._repr_html_() in result.to_html()  # one renderer
