"""The built-in examples, checked against values derived by hand and with mpmath."""


import mpmath
import sympy

import symattn as sa
from symattn.read.numbers import symbol

R = sympy.Rational


def derive(name, **kw):
    return sa.derive(sa.load(name), **kw)


def test_i_love_statistics_by_hand():
    d = derive("i_love_statistics")
    assert [s.name for s in d.steps] == ["Q", "K", "V", "scores", "scaled", "weights", "weighted", "output"]
    # [0.4, 0.8, 0.6]·Wq = [0.04+0.16+0.30, 0.12+0.32+0.36]
    assert d["Q"].exact == sympy.Matrix([[R(1, 2), R(4, 5)]])
    # K row I = [0.2, 0.5, 0.7]·Wk = [0.12+0.15+0.49, 0.04+0.25+0.63]
    assert list(d["K"].exact.row(0)) == [R(19, 25), R(23, 25)]
    assert d["K"].exact == sympy.Matrix([[R(19, 25), R(23, 25)], [R(9, 10), R(51, 50)], [R(87, 100), R(113, 100)]])
    assert d["V"].exact == sympy.Matrix([[R(12, 25), R(73, 100)], [R(3, 5), R(23, 25)], [R(53, 100), R(4, 5)]])
    assert d["scores"].exact == sympy.Matrix([[R(279, 250), R(633, 500), R(1339, 1000)]])
    assert d["scaled"].exact[0, 2] == R(1339, 1000) / sympy.sqrt(2)
    assert d["scaled"].exact[0, 2] == 1339 * sympy.sqrt(2) / 2000


def test_i_love_statistics_decimals_against_mpmath_60_digits():
    d = derive("i_love_statistics")
    with mpmath.workdps(100):
        s = [mpmath.mpf(1116) / 1000, mpmath.mpf(1266) / 1000, mpmath.mpf(1339) / 1000]
        e = [mpmath.exp(x / mpmath.sqrt(2)) for x in s]
        p = [x / sum(e) for x in e]
        v = [[mpmath.mpf("0.48"), mpmath.mpf("0.73")], [mpmath.mpf("0.6"), mpmath.mpf("0.92")],
             [mpmath.mpf("0.53"), mpmath.mpf("0.8")]]
        o = [sum(p[k] * v[k][j] for k in range(3)) for j in range(2)]
        for got, want in zip(d["weights"].decimals(60)[0], p):
            assert abs(mpmath.mpf(got) - want) <= mpmath.mpf(10) ** -60
        for got, want in zip(d["output"].decimals(60)[0], o):
            assert abs(mpmath.mpf(got) - want) <= mpmath.mpf(10) ** -60
        assert d["weights"].decimals(6) == [["0.304628", "0.338714", "0.356658"]]


def test_weights_rows_read_like_textbooks():
    d = derive("illustrated_self_attention")
    assert d["scores"].exact.row(0).tolist() == [[2, 4, 4]]
    e2 = sympy.exp(2)
    assert list(d["weights"].exact.row(0)) == [1 / (1 + 2 * e2), e2 / (1 + 2 * e2), e2 / (1 + 2 * e2)]
    # rows sum to 1 exactly
    for i in range(3):
        assert sympy.simplify(sum(d["weights"].exact.row(i)) - 1) == 0


def test_fox_weights_and_output_against_mpmath():
    d = derive("fox_jumps")
    scores = ["0.2", "0.8", "0.4", "1.0", "1.0", "0.6", "0.2", "0.3", "0.5"]
    with mpmath.workdps(60):
        e = [mpmath.exp(mpmath.mpf(x)) for x in scores]
        p = [x / sum(e) for x in e]
        o = [sum(p[k] * (mpmath.mpf(k * 3 + j + 1) / 10) for k in range(9)) for j in range(3)]
        for got, want in zip(d["weights"].decimals(30)[0], p):
            assert abs(mpmath.mpf(got) - want) <= abs(want) * mpmath.mpf(10) ** -29
        for got, want in zip(d["output"].decimals(30)[0], o):
            assert abs(mpmath.mpf(got) - want) <= abs(want) * mpmath.mpf(10) ** -29
    # the exact weights of The and the are equal (both scores 0.2)
    assert d["weights"].exact[0, 0] == d["weights"].exact[0, 6]
    # output columns differ by exactly 0.1 (V columns do): exact identity
    assert sympy.simplify(d["output"].exact[0, 1] - d["output"].exact[0, 0] - R(1, 10)) == 0


def test_pizza_by_hand():
    d = derive("pizza_is_awesome")
    # [0.1, 2.13]·[[0.78, 2.0], [0.9, 1.7]] = [0.078 + 1.917, 0.2 + 3.621]
    assert d["Q"].exact == sympy.Matrix([[R(1995, 1000), R(3821, 1000)]])
    assert d["Q"].decimals() == [["1.995", "3.821"]]
    assert d.convention["tau"] == "sqrt(2)/2"


def test_symbolic_example_stays_symbolic():
    d = derive("symbolic_two_tokens")
    q11, q12, k11, k12, k21, k22 = (symbol(n) for n in ("q_11", "q_12", "k_11", "k_12", "k_21", "k_22"))
    v11, v21 = symbol("v_11"), symbol("v_21")
    assert d["scores"].exact[0, 0] == q11 * k11 + q12 * k12
    s0 = sympy.sqrt(2) / 2 * (q11 * k11 + q12 * k12)
    s1 = sympy.sqrt(2) / 2 * (q11 * k21 + q12 * k22)
    p0 = sympy.exp(s0) / (sympy.exp(s0) + sympy.exp(s1))
    assert sympy.simplify(d["weights"].exact[0, 0] - p0) == 0
    out = d["output"].exact[0, 0]
    assert sympy.simplify(out - (p0 * v11 + (1 - p0) * v21)) == 0
    assert d["weights"].decimals() is None
    # rows of the weights sum to 1 symbolically
    assert sympy.simplify(d["weights"].exact[1, 0] + d["weights"].exact[1, 1]) == 1


def test_every_builtin_example_derives():
    for name, _ in sa.list_examples():
        d = derive(name)
        assert d.steps[-1].name == "output"
        assert d["output"].exact.shape == d["output"].shape


def test_focus_row_equals_row_of_full_derivation():
    full = sa.derive(sa.load("i_love_statistics"), query=None)
    spec = sa.load("i_love_statistics")
    spec.convention.query = None
    full = sa.derive(spec)
    focus = sa.derive(spec, query="love")
    assert full["output"].exact.row(1) == focus["output"].exact.row(0)
    assert focus["Q"].shape == (1, 2) and full["Q"].shape == (3, 2)
    by_index = sa.derive(spec, query=2)
    assert by_index["output"].exact == focus["output"].exact
