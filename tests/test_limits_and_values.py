"""Documented limits, exact ties and zeros, and the size-dependent parts of the views."""

import random
from fractions import Fraction

import pytest
import sympy

import symattn as sa
from symattn import limits
from symattn.exact.nodes import attend, rational_matrix, scale, softmax


def qkv(n, d, seed=0, den=10):
    rng = random.Random(seed)
    m = lambda: [[f"{rng.randint(-9, 9)}/{den}" for _ in range(d)] for _ in range(n)]  # noqa: E731
    return {"Q": m(), "K": m(), "V": m()}


def test_token_limit():
    n = limits.MAX_TOKENS + 1
    with pytest.raises(sa.SpecError, match="size limit"):
        sa.from_dict({"inputs": {"Q": [["1"]] * n, "K": [["1"]], "V": [["1"]]}})


def test_symbolic_size_limit():
    n = limits.MAX_SYMBOLIC_DIM + 1
    m = [[f"a_{i}_{j}" for j in range(2)] for i in range(n)]
    with pytest.raises(sa.SpecError, match="symbols is limited"):
        sa.from_dict({"inputs": {"Q": m, "K": m, "V": m}})


def test_digit_work_limit():
    d = sa.derive(sa.from_dict({"inputs": qkv(64, 4)}))
    with pytest.raises(sa.LimitError, match="work limit"):
        d["weights"].decimals(limits.MAX_DIGIT_WORK // 1000)


def test_uniform_rows_are_exactly_one_over_n():
    # equal scores: weights exactly 1/3, printed as a rational, not as a rounded ball
    p = softmax(scale(rational_matrix([[1, 1, 1]]), 1 / sympy.sqrt(2)))
    assert p.decimals(4) == [["0.3333", "0.3333", "0.3333"]]
    assert p.rational(0) == Fraction(1, 3)


def test_output_exactly_rational_despite_exponentials():
    # keys with equal scores share a weight; when every group has the same mean value
    # the output is exactly that mean: (4 + 2e^2)/(2 + e^2) = 2
    out = attend(softmax(rational_matrix([[1, 1, 3]])), rational_matrix([[1], [3], [2]]))
    assert out.decimals(10) == [["2"]]
    assert sympy.simplify(out.entry(0, 0) - 2) == 0


def test_output_exact_zero():
    out = attend(softmax(rational_matrix([[0, 5]])), rational_matrix([[0, 1], [0, -1]]))
    assert out.decimals(8)[0][0] == "0"


def test_exact_ties_in_rounding_are_decided_exactly():
    # weights 1/8 exactly (8 equal scores): 0.125 at 2 digits is a tie, rounded half away
    p = softmax(rational_matrix([[2] * 8]))
    assert p.decimals(2)[0][0] == "0.13"


def test_large_values_keep_their_exactness():
    # softmax(1000, 0): the small weight underflows float64; exactly e^-1000/(1 + e^-1000)
    p = softmax(rational_matrix([[1000, 0]]))
    assert p.decimals(6)[0] == ["1.00000", "5.07596e-435"]


def test_json_omits_large_closed_forms_unless_asked():
    d = sa.derive(sa.from_dict({"inputs": qkv(20, 2)}))
    data = sa.to_json(d)
    by = {s["name"]: s for s in data["steps"]}
    assert by["weights"]["exact"] is None and by["output"]["exact"] is None
    assert by["scores"]["exact"] is not None  # rationals do not grow
    assert len(by["weights"]["decimal"]) == 20  # never elided in JSON
    full = {s["name"]: s for s in sa.to_json(d, exact=True)["steps"]}
    assert full["weights"]["exact"][0][0].startswith("exp(") or full["weights"]["exact"][0][0].startswith("1/")
    assert "weighted" not in by  # 20·20·2 entries: only on request
    assert [s["name"] for s in sa.to_json(d, steps=["weighted"])["steps"]] == ["weighted"]


def test_text_elides_large_matrices():
    d = sa.derive(sa.from_dict({"inputs": qkv(30, 2)}))
    text = sa.text(d, steps=["weights"])
    assert "…" in text and "⋮" in text
    assert "exact: closed forms omitted at this size (use --exact)" in text
