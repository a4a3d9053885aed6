"""A file with claims and no inputs (what `symattn import` drafts for a page that prints no
inputs) is checked from its own printed steps: each case is (file, expected verdicts), the
expected values worked by hand."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest

import symattn as sa

E = math.e
# softmax(1, 0) = (e/(e+1), 1/(e+1)) = (0.731058…, 0.268941…)
HI, LO = E / (E + 1), 1 / (E + 1)
assert f"{HI:.4f}" == "0.7311" and f"{LO:.4f}" == "0.2689"


def verdicts(text: str, step: str) -> list[str]:
    r = sa.check(sa.loads(text))
    return [c.verdict for c in r.claims if c.step == step and c.group is None]


CASES = [
    # Q = K = I, V given: scores = I, weights rows softmax(1, 0); 0.75 is wrong
    ("qkv", 'tokens = ["a", "b"]\n[claims]\nQ = [[1, 0], [0, 1]]\nK = [[1, 0], [0, 1]]\nV = [[1, 2], [3, 4]]\n'
            '[convention]\nscale = "none"\n'
            '[claims.weights]\na = [0.7311, 0.2689]\nb = [0.2689, 0.75]\n',
     "weights", ["correct", "correct", "correct", "wrong"]),
    # the same scores printed: checked from the printed Q and K (I·Iᵀ = I)
    ("qkv scores", '[claims]\nQ = [[1, 0], [0, 1]]\nK = [[1, 0], [0, 1]]\nV = [[1, 2], [3, 4]]\n'
                   'scores = [[1, 0], [0, 2]]\n[convention]\nscale = "none"\n',
     "scores", ["correct", "correct", "correct", "wrong"]),
    # scores with V, scale as printed: weights (1/2, 1/2), output (3, 5) = mean of the value rows
    ("scores V", '[claims]\nscores = [[0, 0]]\nV = [[1, 3], [5, 7]]\nweights = [[0.5, 0.5]]\n'
                 'output = [[3, 6]]\n',
     "output", ["correct", "wrong"]),
    # the file gives d_k: the printed scores (0, 2) are scaled by 1/2 to (0, 1)
    ("scores d_k", '[convention]\nscale = "1/sqrt(d_k)"\nd_k = 4\n[claims]\nscores = [[0, 2]]\n'
                   'weights = [[0.2689, 0.7311]]\n',
     "weights", ["correct", "correct"]),
    # the scaled scores printed: softmax applied to them as they are
    ("scaled", '[claims]\nscaled = [[1, 0]]\nweights = [[0.7311, 0.2689]]\n', "weights", ["correct", "correct"]),
    # keyed by token: the tokens come from the keys
    ("tokens", '[claims.Q]\nx = [1, 0]\ny = [0, 1]\n[claims.K]\nx = [1, 0]\ny = [0, 1]\n'
               '[claims.V]\nx = [1, 0]\ny = [0, 1]\n[claims.weights]\nx = [0.7311, 0.2689]\ny = [0.2689, 0.7311]\n'
               '[convention]\nscale = "none"\n',
     "weights", ["correct"] * 4),
]


@pytest.mark.parametrize("name,text,step,expected", CASES, ids=[c[0] for c in CASES])
def test_claims_checked_from_the_printed_steps(name: str, text: str, step: str, expected: list[str]) -> None:
    assert verdicts(text, step) == expected


def test_the_steps_taken_as_inputs_are_named_and_not_counted():
    r = sa.check(sa.loads('[claims]\nscores = [[0, 0]]\nweights = [[0.5, 0.5]]\n'))
    assert r.based_on.startswith("no inputs given: checked from the printed scores")
    assert "scale = none" in r.based_on  # the file names no scale: the scores are used as printed
    assert {c.step for c in r.claims} == {"weights"}
    assert r.all_right


def test_a_restatement_is_checked_against_the_first_printing():
    # the scaled scores printed twice: 0.9 cannot be 0.82 rounded; 0.8 can
    r = sa.check(sa.loads('[claims]\nscaled = [[0.23, 0.83], [0.41, 0.82]]\n'
                          '[[claims.also]]\nwhere = "line 3"\nscaled = [[0.2, 0.8], [0.4, 0.9]]\n'))
    assert [c.verdict for c in r.claims] == ["correct", "correct", "correct", "wrong"]
    assert all(c.group == "line 3" for c in r.claims)


def test_the_printed_inputs_are_known_only_to_their_digits():
    # scores printed 0.3 and 0.0 stand for [0.25, 0.35] and [-0.05, 0.05]: weight 1 is 0.574443 for the
    # printed scores and lies in [0.5498, 0.5987] over those ranges (0.58 is possible); 0.75 and 0.25
    # are not (the ball enclosure is wider than that range, but not by so much)
    assert f"{1 / (1 + math.exp(-0.2)):.4f}" == "0.5498" and f"{1 / (1 + math.exp(-0.4)):.4f}" == "0.5987"
    r = sa.check(sa.loads('[claims]\nscores = [[0.3, 0.0]]\nweights = [[0.57, 0.43]]\n'
                          '[[claims.also]]\nwhere = "again"\nweights = [[0.58, 0.42]]\n'
                          '[[claims.also]]\nwhere = "later"\nweights = [[0.75, 0.25]]\n'))
    assert [c.verdict for c in r.claims] == ["correct", "correct", "consistent", "consistent", "wrong", "wrong"]
    assert r.rounded


def test_nothing_whole_to_start_from_gets_only_the_checks_that_need_no_inputs():
    # only weights: nothing to recompute them from; their numbers are listed, not counted wrong
    r = sa.check(sa.loads('[claims]\nweights = [[0.5, 0.5], [0.3, 0.9]]\n'))
    assert r.based_on == ""
    assert {c.verdict for c in r.claims} == {"unchecked"}
    assert r.wrong == []
    assert [f["check"] for f in r.checks] == ["weights_sum"]  # 0.3 + 0.9 = 1.2, beyond ±0.1
    ok = sa.check(sa.loads('[claims]\nweights = [[0.5, 0.5]]\n'))
    assert ok.all_right and ok.summary()["wrong"] == 0


@pytest.mark.parametrize("text,skipped", [
    # the scaled scores printed whole, the raw scores for one query only (d_k = 4: 2 = 1·√4 is right): the
    # check starts from the scaled scores, so the raw scores are not judged against them (they were once
    # compared with the scaled values and called wrong)
    ('[convention]\nscale = "1/sqrt(d_k)"\nd_k = 4\n[claims]\nscores = [["..", ".."], [2, 0]]\n'
     'scaled = [[0, 1], [1, 0]]\nweights = [[0.2689, 0.7311], [0.7311, 0.2689]]\n', "raw scores"),
    # the masked scores printed whole, the raw and scaled scores for one query: those are not judged either
    ('[convention]\nscale = "1/sqrt(d_k)"\nd_k = 4\n[claims]\nscores = [["..", ".."], [0, 0]]\n'
     'scaled = [["..", ".."], [0, 0]]\nmasked = [[1, "-inf"], [0, 0]]\nweights = [[1, 0], [0.5, 0.5]]\n'
     '[[claims.also]]\nwhere = "again"\nscores = [["..", ".."], [0, 0]]\n', "raw scores and the scaled scores"),
])
def test_steps_before_the_one_checked_from_are_not_judged(text: str, skipped: str) -> None:
    r = sa.check(sa.loads(text))
    assert {c.step for c in r.claims} == {"weights"}
    assert [c.verdict for c in r.claims] == ["correct"] * 4
    assert f"the {skipped} printed before them are not checked" in r.based_on


def test_masked_scores_with_minus_infinity_are_checked_from():
    # masked scores printed whole with −∞ (as -inf, −∞ and a TOML float): the mask is where −∞ stands;
    # row 1 keeps one key (weights 1, 0), row 2 both at score 0 (1/2 each); 0.6 is wrong
    for minf in ('"-inf"', '"−∞"', '-inf'):
        r = sa.check(sa.loads(f'[claims]\nmasked = [[1, {minf}], [0, 0]]\nweights = [[1, 0], [0.5, 0.6]]\n'))
        assert "checked from the printed masked scores" in r.based_on and "where they print −∞" in r.based_on
        assert [c.verdict for c in r.claims] == ["correct", "correct", "correct", "wrong"]
    # a row masked whole has no distribution to check from: nothing is taken as given
    r = sa.check(sa.loads('[claims]\nmasked = [["-inf", "-inf"], [0, 0]]\nweights = [[0.5, 0.5], [0.5, 0.5]]\n'))
    assert r.based_on == "" and {c.verdict for c in r.claims} == {"unchecked"}


def test_a_row_printed_in_part_is_not_summed_as_a_whole():
    # the top weight of each row restated alone (".." elsewhere): 0.24 is no distribution's sum; the whole
    # row printed wrong (0.3 + 0.9 = 1.2) still is
    r = sa.check(sa.loads('[claims]\nweights = [[0.24, 0.76], [0.3, 0.9]]\n'
                          '[[claims.also]]\nwhere = "top"\nweights = [[0.24, ".."], ["..", 0.9]]\n'))
    assert [(f["check"], f["row"], f.get("group")) for f in r.checks] == [("weights_sum", "2", None)]


def test_steps_that_do_not_fit_fall_back():
    # Q is 2 wide and K 3 wide: not inputs; the printed scores are used instead
    r = sa.check(sa.loads('[claims]\nQ = [[1, 0]]\nK = [[1, 0, 0]]\nV = [[1, 2]]\n'
                          'scores = [[1]]\nweights = [[1]]\n'))
    assert "printed scores" in r.based_on
    assert [c.verdict for c in r.claims if c.step == "weights"] == ["correct"]


def test_cli_says_what_it_checked_from(tmp_path):
    f = tmp_path / "page.toml"
    f.write_text('[claims]\nscores = [[0, 0]]\nweights = [[0.5, 0.6]]\n', encoding="utf-8")
    run = [sys.executable, "-m", "symattn", "check", str(f)]
    out = subprocess.run(run, capture_output=True, text=True)
    assert out.returncode == 1, out.stderr
    assert "no inputs given: checked from the printed scores" in out.stdout
    data = json.loads(subprocess.run(run + ["--json"], capture_output=True, text=True).stdout)
    assert data["based_on"].startswith("no inputs given")
    assert data["summary"]["wrong"] == 1


def test_check_page_without_inputs(tmp_path):
    # a page printing only the scaled scores, twice at two precisions: the import drafts claims only, and
    # check PAGE judges the rounded printing against the precise one (0.9 cannot be 0.82 rounded)
    page = tmp_path / "grid.md"
    page.write_text("## Scaled scores\n\n| | a | b |\n|---|---|---|\n| a | 0.226 | 0.827 |\n| b | 0.413 | 0.820 |\n\n"
                    "Rounded for the figure:\n\n| | a | b |\n|---|---|---|\n| a | 0.23 | 0.83 |\n| b | 0.41 | 0.90 |\n",
                    encoding="utf-8")
    out = subprocess.run([sys.executable, "-m", "symattn", "check", str(page), "--json"], capture_output=True,
                         text=True)
    data = json.loads(out.stdout)
    assert data["based_on"].startswith("no inputs given: checked from the printed scaled scores")
    verdicts = {(c["row"], c["col"]): c["verdict"] for c in data["claims"]}
    assert verdicts == {("a", "a"): "correct", ("a", "b"): "correct", ("b", "a"): "correct", ("b", "b"): "wrong"}
    assert out.returncode == 1
