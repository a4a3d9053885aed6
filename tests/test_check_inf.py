"""A page that prints -inf for masked scores (tests/pages/cat_sat-2.toml, issue 8): the -inf it
prints is its mask, both when recomputing a step from the page's own numbers and when the
convention diagnosis looks for what the page did."""

from __future__ import annotations

from pathlib import Path

import symattn
from symattn.analyses.check import check

PAGE = Path(__file__).parent / "pages" / "cat_sat-2.toml"


def unmasked_file(tmp_path: Path) -> Path:
    """The page's example as a file that forgot its mask: its -inf scores are claims of `scaled`."""
    text = PAGE.read_text(encoding="utf-8").replace('mask = "causal"\n', "").replace("[claims.masked]",
                                                                                    "[claims.scaled]")
    f = tmp_path / "forgot_mask.toml"
    f.write_text(text, encoding="utf-8")
    return f


def test_the_page_s_minus_inf_is_its_mask_from_its_own_numbers(tmp_path):
    report = check(symattn.load(str(unmasked_file(tmp_path))))
    steps = {s["step"]: s for s in report.steps}
    # from the page's own scaled scores, -inf included, its weights and outputs are right (before:
    # the -inf were left out, the weights recomputed without a mask, and 3 of 9 judged wrong)
    assert steps["weights"]["wrong"] == 3 and steps["weights"]["follows_from_printed"]
    assert all(c.local_verdict == "correct" for c in report.claims if c.step == "weights")
    # the masked cat→sat weight from the page's numbers: exactly 0 (a masked key)
    c = next(c for c in report.claims if c.step == "weights" and (c.row, c.col) == ("cat", "sat"))
    assert c.local_value == "0"


def test_the_diagnosis_finds_the_mask_the_page_printed(tmp_path):
    report = check(symattn.load(str(unmasked_file(tmp_path))))
    found = {(e["step"], e["scope"]): e["conventions"] for e in report.diagnosis}
    # before: "scaled: no tried convention explains the printed numbers"
    assert found[("scaled", "global")] == ["a causal mask (the printed scaled scores are its masked scores)"]
    assert found[("weights", "global")] == ["a causal mask"]


def test_the_page_as_imported_is_all_correct():
    report = check(symattn.load(str(PAGE)))
    assert all(c.verdict == "correct" for c in report.claims) and report.diagnosis == []
