"""The checker: verdict kinds, local judgments, rounded inputs, diagnosis, the seeds."""

import json
import random
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest

import symattn as sa

ROOT = Path(__file__).resolve().parent.parent


def page(claims, inputs=None, convention=None, tokens=("a", "b", "c"), **extra):
    inputs = inputs or {"Q": [["1", "0"], ["0", "1"], ["1", "1"]], "K": [["1", "0"], ["0", "1"], ["1", "1"]],
                        "V": [["1", "2"], ["3", "4"], ["5", "6"]]}
    data = {"title": "t", "tokens": list(tokens), "inputs": inputs, "claims": claims, **extra}
    if convention:
        data["convention"] = convention
    return sa.check(sa.from_dict(data))


# -- verdict kinds ----------------------------------------------------------------------

def test_correct_wrong_truncated():
    # scores of row a: Q_a·K_j = (1, 0, 1); scaled by 1/sqrt(2)
    r = page({"scaled": {"a": ["0.7071", "0.0000", "0.7072"]}, "scores": {"b": ["0", "1", "2"]}})
    assert r.find("scaled", "a", "a").verdict == "correct"      # 0.70710678 -> 0.7071
    assert r.find("scaled", "a", "b").verdict == "correct"      # exactly 0
    assert r.find("scaled", "a", "c").verdict == "wrong"        # 0.7072 is 0.7071 + 1 ulp
    assert r.find("scaled", "a", "c").error_ulps == "0.932"     # (0.7072 - 0.70710678)/0.0001
    assert r.find("scores", "b", "c").verdict == "wrong"        # exact 1
    r2 = page({"scaled": {"c": ["0.70", "0.70", "1.41"]}})     # sqrt(2) = 1.41421: 1.41 correct
    assert r2.find("scaled", "c", "c").verdict == "correct"
    r3 = page({"scaled": {"c": ["0.70", "0.70", "1.4"]}})      # 1.41421 at 1 decimal is 1.4
    assert r3.find("scaled", "c", "c").verdict == "correct"
    r4 = page({"scaled": {"a": ["0.707", "0", "0.7071067"]}, "weights": {"a": ["0.401", "0.198", "0.401"]}})
    # 0.70710678 at 7 decimals is 0.7071068; printing 0.7071067 cuts it off
    assert r4.find("scaled", "a", "c").verdict == "truncated"
    assert r4.find("scaled", "a", "c").ok is False


def test_truncation_of_a_weight():
    # weights of row a: (e^s, 1, e^s)/(2e^s + 1) with s = 1/sqrt(2): 0.4010... and 0.1979...
    r = page({"weights": {"a": ["0.40", "0.19", "0.40"]}})
    assert r.find("weights", "a", "a").verdict == "correct"
    assert r.find("weights", "a", "b").verdict == "truncated"   # 0.19795 cut, not rounded (0.20)


def test_exact_ties_accept_both_roundings():
    # V column 1 = (1, 3, 5): with equal weights 1/2 on keys a, b the output is exactly 2;
    # here we use products p·v = 1/8 exactly: weights over two equal scores are 1/2, v = 1/4
    inputs = {"scores": [["0", "0"]], "V": [["1/4"], ["1/4"]]}
    r = page({"weighted": {"a": {"a": ["0.13"], "b": ["0.12"]}}}, inputs=inputs, tokens=("a",),
             key_tokens=["a", "b"], convention={"scale": "none"})
    up, even = r.find("weighted", "a", "a, 1"), r.find("weighted", "a", "b, 1")
    assert up.verdict == "correct" and up.tie
    assert even.verdict == "correct" and even.tie
    assert "tie" in up.note


def test_scientific_notation_and_integers_keep_their_precision():
    inputs = {"scores": [["0", "-10"]], "V": [["1"], ["0"]]}
    # weight of key b: 1/(1 + e^10) = 4.5397868702434395e-05
    r = page({"weights": {"a": ["1.0000", "4.5398e-05"]}}, inputs=inputs, tokens=("a",), key_tokens=["a", "b"],
             convention={"scale": "none"})
    assert r.find("weights", "a", "b").verdict == "correct"
    r = page({"weights": {"a": ["1.0000", "4.5397e-05"]}}, inputs=inputs, tokens=("a",), key_tokens=["a", "b"],
             convention={"scale": "none"})
    assert r.find("weights", "a", "b").verdict == "truncated"
    r = page({"weights": {"a": ["1.0000", "4.54e-05"]}}, inputs=inputs, tokens=("a",), key_tokens=["a", "b"],
             convention={"scale": "none"})
    assert r.find("weights", "a", "b").verdict == "correct"
    # an integer claim has precision 1
    r = page({"scores": {"c": [1, 1, 2]}})
    assert all(c.verdict == "correct" for c in r.claims)


def test_toml_claims_keep_printed_digits():
    spec = sa.loads('tokens = ["a"]\nkey_tokens = ["x", "y"]\n[inputs]\nscores = [[0, 0]]\nV = [[1], [2]]\n'
                    '[convention]\nscale = "none"\n[claims.weights]\na = [0.50, 0.5000]\n[claims.output]\na = [1.5]\n')
    r = sa.check(spec)
    assert [c.claimed for c in r.claims] == ["0.50", "0.5000", "1.5"]
    assert all(c.verdict == "correct" for c in r.claims)
    assert r.all_right


# -- local judgments ----------------------------------------------------------------------

def test_an_early_slip_is_not_twenty_mistakes():
    # the page gets a score wrong, then computes the softmax of its own wrong scores correctly
    inputs = {"scores": [["1", "2", "3"]], "V": [["1"], ["2"], ["3"]]}
    conv = {"scale": "none"}
    # softmax(1, 2, 4) = 0.04201, 0.11420, 0.84379
    r = page({"scores": {"a": ["1", "2", "4"]}, "weights": {"a": ["0.0420", "0.1142", "0.8438"]}},
             inputs=inputs, tokens=("a",), key_tokens=["x", "y", "z"], convention=conv)
    assert r.first_wrong_step == "scores"
    w = [c for c in r.claims if c.step == "weights"]
    assert all(c.verdict == "wrong" for c in w)
    assert all(c.local_verdict == "correct" for c in w)
    step = next(s for s in r.steps if s["step"] == "weights")
    assert step["follows_from_printed"] is True
    assert "follows from the page's own numbers" in sa.text(r)


# -- rounded inputs -------------------------------------------------------------------------

def test_rounded_inputs_are_not_flagged_falsely():
    # the page computed from unrounded inputs (1/3, 2/3) but printed them to 2 decimals
    rng = random.Random(1)
    exact_inputs = {"scores": [["1/3", "2/3"]], "V": [["1"], ["2"]]}
    truth = sa.derive(sa.from_dict({"inputs": exact_inputs, "convention": {"scale": "none"}}))
    w = truth["weights"].decimals(4)[0]
    printed = {"scores": [["0.33", "0.67"]], "V": [["1"], ["2"]]}
    claims = {"weights": {"a": w}}
    strict = page(claims, inputs=printed, tokens=("a",), key_tokens=["x", "y"], convention={"scale": "none"})
    assert [c.verdict for c in strict.claims] == ["wrong", "wrong"]
    loose = sa.check(sa.from_dict({"title": "t", "tokens": ["a"], "key_tokens": ["x", "y"], "inputs": printed,
                                   "claims": claims, "convention": {"scale": "none"}}), inputs_rounded=True)
    assert [c.verdict for c in loose.claims] == ["consistent", "consistent"]
    # a claim far outside what the rounding allows is still wrong
    far = sa.check(sa.from_dict({"title": "t", "tokens": ["a"], "key_tokens": ["x", "y"], "inputs": printed,
                                 "claims": {"weights": {"a": ["0.3000", "0.7000"]}}, "convention": {"scale": "none"}}),
                   inputs_rounded=True)
    assert [c.verdict for c in far.claims] == ["wrong", "wrong"]
    assert rng  # deterministic


def test_inputs_rounded_in_the_file():
    spec = sa.loads('inputs_rounded = true\ntokens = ["a"]\nkey_tokens = ["x", "y"]\n[inputs]\n'
                    'scores = [[0.33, 0.67]]\n[convention]\nscale = "none"\n[claims.weights]\na = [0.4174, 0.5826]\n')
    r = sa.check(spec)
    assert r.rounded and [c.verdict for c in r.claims] == ["consistent", "consistent"]


# -- convention diagnosis -----------------------------------------------------------------------

def _built_with(change, inputs, steps=("weights",), tokens=("a", "b", "c"), extra=None):
    """Claims computed under an alternative convention, checked under the standard one."""
    data = {"title": "t", "tokens": list(tokens), "inputs": inputs, **(extra or {})}
    alt = sa.derive(sa.from_dict({**data, "convention": {**data.get("convention", {}), **change}}))
    claims = {s: {t: alt[s].decimals(5)[i] for i, t in enumerate(tokens)} for s in steps}
    return sa.check(sa.from_dict({**data, "claims": claims}))


X_INPUTS = {"X": [["1", "2"], ["3", "1"], ["2", "2"]], "Wq": [["1", "2"], ["3", "4"]],
            "Wk": [["2", "1"], ["1", "1"]], "Wv": [["1", "0"], ["2", "1"]]}
X_SMALL = {k: [[f"{x}/10" for x in r] for r in m] for k, m in X_INPUTS.items()}


@pytest.mark.parametrize("change,expected", [
    ({"scale": "none"}, "no scaling"),
    ({"softmax_axis": "queries"}, "softmax over the query axis"),
    ({"normalization": "sum"}, "dividing by the row sum instead of softmax"),
    ({"layout": "torch"}, "X·Wᵀ (torch layout)"),
    ({"scale": "1/d_k"}, "dividing by d_k instead of √d_k"),
])
def test_diagnosis_recovers_the_convention(change, expected):
    r = _built_with(change, X_SMALL)
    assert r.first_wrong_step == "weights"
    explained = [d for d in r.diagnosis if d["step"] == "weights" and d["scope"] == "global"][0]["conventions"]
    assert any(expected in e for e in explained), explained
    assert any(expected in s for s in r.conventions)


def test_diagnosis_recovers_sqrt_d_model():
    inputs = {"X": [["1", "0", "1"], ["0", "1", "1"], ["1", "1", "0"]],
              "Wq": [["1", "0"], ["0", "1"], ["1", "1"]], "Wk": [["1", "1"], ["0", "1"], ["1", "0"]],
              "Wv": [["1", "0"], ["0", "1"], ["1", "1"]]}
    r = _built_with({"scale": "1/sqrt(d_model)"}, inputs)
    explained = [d for d in r.diagnosis if d["step"] == "weights" and d["scope"] == "global"][0]["conventions"]
    assert any("1/√d_model" in e for e in explained), explained


@pytest.mark.parametrize("change,expected", [
    ({"mask_value": "0"}, "masked scores set to 0 instead of -inf"),
    ({"mask": "none"}, "the mask not applied"),
])
def test_diagnosis_recovers_mask_slips(change, expected):
    r = _built_with(change, X_SMALL, extra={"convention": {"mask": "causal"}})
    explained = [d for d in r.diagnosis if d["step"] == "weights" and d["scope"] == "global"][0]["conventions"]
    assert any(expected in e for e in explained), explained


def test_diagnosis_recovers_bottom_right_alignment():
    inputs = {"Q": [["1", "0"], ["0", "1"]], "K": [["1", "0"], ["0", "1"], ["1", "1"], ["2", "1"]],
              "V": [["1"], ["2"], ["3"], ["4"]]}
    data = {"title": "t", "tokens": ["a", "b"], "key_tokens": ["w", "x", "y", "z"], "inputs": inputs}
    alt = sa.derive(sa.from_dict({**data, "convention": {"mask": "causal_bottom_right"}}))
    claims = {"weights": {"a": alt["weights"].decimals(5)[0], "b": alt["weights"].decimals(5)[1]}}
    r = sa.check(sa.from_dict({**data, "convention": {"mask": "causal"}, "claims": claims}))
    explained = [d for d in r.diagnosis if d["step"] == "weights" and d["scope"] == "global"][0]["conventions"]
    assert any("bottom-right" in e for e in explained), explained


def test_no_convention_explains_random_numbers():
    r = page({"weights": {"a": ["0.1", "0.2", "0.7"]}})
    assert "weights: no tried convention explains the printed numbers" in r.conventions


# -- checks that need no inputs -------------------------------------------------------------------

def test_sanity_checks():
    r = page({"weights": {"a": ["0.5", "-0.2", "0.7"], "b": ["1.3", "0.1", "0.1"]}})
    kinds = sorted(f["check"] for f in r.checks)
    assert kinds == ["negative_weight", "weight_above_one", "weights_sum"]
    assert not r.all_right


def test_output_outside_the_hull_of_the_values():
    r = page({"output": {"a": ["9", "4"]}})
    assert [f["check"] for f in r.checks] == ["convex_hull"]


def test_a_page_with_only_scores_and_weights():
    spec = sa.loads('tokens = ["q"]\n[inputs]\nscores = [[1, 2, 3]]\n[convention]\nscale = "none"\n'
                    '[claims.weights]\nq = [0.0900, 0.2447, 0.6653]\n')
    r = sa.check(spec)
    # softmax(1, 2, 3) = (0.0900306, 0.244728, 0.665241): 0.6653 is one off
    assert [c.verdict for c in r.claims] == ["correct", "correct", "wrong"]
    assert r.claims[2].decimal.startswith("0.66524")


def test_claims_without_inputs_still_get_the_sum_check():
    # 0.5 + 0.6 = 1.1 is within the ±0.1 its rounding allows; 0.5 + 0.7 is not
    assert sa.check(sa.loads('[claims.weights]\nq = [0.5, 0.6]\n')).checks == []
    r = sa.check(sa.loads('[claims.weights]\nq = [0.5, 0.7]\n'))
    assert [f["check"] for f in r.checks] == ["weights_sum"]


# -- the seeds --------------------------------------------------------------------------------

def test_seed_i_love_statistics():
    r = sa.check(sa.load("i_love_statistics"))
    q1, q2 = r.find("Q", "love", "1"), r.find("Q", "love", "2")
    assert (q1.claimed, q1.exact, q1.verdict) == ("0.59", "1/2", "wrong")
    assert (q2.claimed, q2.exact, q2.verdict) == ("0.78", "4/5", "wrong")
    assert r.first_wrong_step == "Q"
    for tok, printed in zip(("I", "love", "statistics"), ("0.3012", "0.3675", "0.3313")):
        c = r.find("weights", "love", tok)
        assert c.claimed == printed and c.verdict == "wrong" and c.local_verdict == "wrong"
    # softmax of the printed scores (without the scale the page never applies)
    local = [d for d in r.diagnosis if d["step"] == "weights" and d["scope"] == "local"][0]
    unscaled = next(t["values"] for t in local["tried"] if t["convention"].startswith("no scaling"))
    assert [str(round(Decimal(v), 4)) for v in unscaled] == ["0.2714", "0.3324", "0.3962"]
    # 0.3012 × 0.66 = 0.1988 follows from the page's numbers; it is wrong globally
    w = r.find("weighted", "love", "I, 1")
    assert (w.claimed, w.local_verdict, w.verdict) == ("0.1988", "correct", "wrong")
    # 0.3675 × 1.10 = 0.40425 exactly: the printed 0.4042 is a tie rounded half to even
    assert r.find("weighted", "love", "love, 2").local_verdict == "correct"
    # 0.3012 × 0.82 = 0.246984, printed 0.2460: not the exact product of the printed numbers,
    # but V printed to 2 decimals allows 0.3012 × 0.8167 = 0.2460: consistent with the page
    w = r.find("weighted", "love", "I, 2")
    assert (w.local_value, w.local_verdict) == ("0.246984", "consistent")
    step = next(s for s in r.steps if s["step"] == "weighted")
    assert step["follows_from_printed"] and step["locally_wrong"] == 0
    # the scores do not follow even within the rounding of the printed Q and K
    assert not next(s for s in r.steps if s["step"] == "scores")["follows_from_printed"]
    s = r.find("weights_sum", "love")
    assert s.verdict == "correct" and s.local_verdict == "correct"


def test_seed_fox_weights_sum_to_1_34():
    r = sa.check(sa.load("fox_jumps"))
    sums = [f for f in r.checks if f["check"] == "weights_sum"]
    assert sums and "sum to 1.34" in sums[0]["message"]
    assert r.find("weights", "jumps", "lazy").verdict == "correct"        # 0.0822 -> 0.08
    assert r.find("weights", "jumps", "fox").verdict == "wrong"           # 0.1656, printed 0.27


def test_seed_pizza():
    r = sa.check(sa.load("pizza_is_awesome"))
    o = r.find("output", "Pizza", "1")
    assert o.verdict == "wrong" and o.local_verdict == "correct"         # 0.38·0.6 − 0.4·0.35 + 0.24·3.86 = 1.0144
    assert r.find("weights", "Pizza", "awesome", group="softmax slide").verdict == "truncated"
    msgs = " ".join(f["message"] for f in r.checks)
    assert "sum to 1.68" in msgs and "convex hull" in msgs


# -- bad claims and the command -------------------------------------------------------------------

@pytest.mark.parametrize("claims,message", [
    ({"wieghts": {"a": ["0.1"]}}, "did you mean 'weights'"),
    ({"weights": {"a": ["0.1", "0.2"]}}, "expected a list of 3 numbers"),
    ({"weights": {"zz": ["0.1", "0.2", "0.3"]}}, "no token 'zz'"),
    ({"weights": {"a": ["0.1", "abc def", "0.3"]}}, "claims.weights.a[2]"),
    ({"weights": [["0.1"]]}, "whole-matrix claim must be 3×3"),
    ({"weighted": {"a": {"q": ["1", "2"]}}}, "no single key 'q'"),
])
def test_bad_claims(claims, message):
    with pytest.raises(sa.SpecError, match=message.replace("[", r"\[").replace("]", r"\]")):
        page(claims)


def run(*args):
    return subprocess.run([sys.executable, "-m", "symattn", *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=300, env={"PYTHONIOENCODING": "utf-8", "PATH": "/usr/bin:/bin"})


def test_check_command_exit_codes_and_formats(tmp_path):
    r = run("check", "examples/i_love_statistics.toml", "--json")
    assert r.returncode == 1
    data = json.loads(r.stdout)
    assert list(data["claims"][0])[:11] == ["step", "row", "col", "index", "claimed", "exact", "value", "verdict",
                                            "tie", "local_verdict", "local_value"]
    assert {"total", "correct", "wrong", "first_wrong_step", "conventions"} <= set(data["summary"])
    md = run("check", "i_love_statistics", "--format", "markdown")
    assert md.returncode == 1 and md.stdout.startswith("### Check: I love statistics")
    good = tmp_path / "good.toml"
    good.write_text('[inputs]\nQ = [[1]]\nK = [[1]]\nV = [[2]]\n[claims.output]\n1 = [2]\n', encoding="utf-8")
    assert run("check", str(good)).returncode == 0
    bad = tmp_path / "bad.toml"
    bad.write_text('[inputs]\nQ = [[1]]\nK = [[1]]\nV = [[2]]\n[claims.ouput]\n1 = [2]\n', encoding="utf-8")
    r = run("check", str(bad))
    assert r.returncode == 2 and "did you mean 'output'" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    r = run("check", "i_love_statistics", "--inputs-rounded")
    assert r.returncode == 1 and "consistent" in r.stdout
