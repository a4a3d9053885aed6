"""Certified decimals: every printed digit checked against mpmath at higher precision."""

from decimal import Decimal
from fractions import Fraction

import mpmath
import pytest
import sympy
from flint import arb, fmpq

from symattn.exact.certify import certified, decide, format_rational
from symattn.errors import LimitError


def correctly_rounded(text: str, exact_mp, digits: int) -> bool:
    """``text`` has ``digits`` significant digits and is within half a unit of its last
    digit of the exact value (mpmath at much higher precision)."""
    d = Decimal(text)
    sign, digs, exp = d.as_tuple()
    if len(digs) != digits:
        return False
    ulp = Decimal(1).scaleb(exp)
    with mpmath.workdps(digits + 40):
        err = abs(mpmath.mpf(text) - exact_mp)
        return err <= mpmath.mpf(str(ulp)) / 2


CASES = [
    (sympy.exp(1), lambda: mpmath.e),
    (sympy.sqrt(2) / 2, lambda: mpmath.sqrt(2) / 2),
    (sympy.exp(-sympy.Integer(1000)), lambda: mpmath.exp(-1000)),
    (sympy.exp(sympy.Rational(709, 1)), lambda: mpmath.exp(709)),
    (1 / (1 + 2 * sympy.exp(2)), lambda: 1 / (1 + 2 * mpmath.exp(2))),
    (-sympy.pi * 10**7, lambda: -mpmath.pi * 10**7),
    (sympy.log(3), lambda: mpmath.log(3)),
]


@pytest.mark.parametrize("expr,mp", CASES)
@pytest.mark.parametrize("digits", [1, 6, 15, 60])
def test_certified_digits_match_mpmath(expr, mp, digits):
    with mpmath.workdps(digits + 60):
        exact = mp()
    assert correctly_rounded(certified(expr, digits), exact, digits)


def test_ten_thousand_digits_of_e():
    text = certified(sympy.E, 10_000)
    with mpmath.workdps(10_050):
        assert text == mpmath.nstr(mpmath.e, 10_000)


def test_known_values():
    assert certified(sympy.exp(1), 10) == "2.718281828"
    # softmax(1000, 0)[1] underflows float64; exact value from the reference notes
    assert certified(1 / (1 + sympy.exp(1000)), 21) == "5.07595889754945676529e-435"
    # sigma(1) = softmax(710, 709)[0]
    assert certified(1 / (1 + sympy.exp(-1)), 16) == "0.7310585786300049"


def test_rationals_print_exactly_when_they_terminate():
    assert format_rational(Fraction(1339, 1000), 6) == "1.339"
    assert format_rational(Fraction(1, 2), 6) == "0.5"
    assert format_rational(Fraction(-3, 2000), 6) == "-0.0015"
    assert format_rational(Fraction(250), 6) == "250"
    assert format_rational(Fraction(1, 3), 6) == "0.333333"
    assert format_rational(Fraction(123456789, 1000), 6) == "123457"


def test_ties_round_half_away_from_zero():
    assert format_rational(Fraction(1, 8), 2) == "0.13"
    assert format_rational(Fraction(-1, 8), 2) == "-0.13"
    assert format_rational(Fraction(25, 10), 1) == "3"
    assert certified(sympy.Rational(5, 2), 1) == "3"


def test_rounding_carry_changes_the_exponent():
    assert format_rational(Fraction(9999996, 10**7), 6) == "1.00000"
    assert format_rational(Fraction(99999, 1), 3) == "1.00e+05"


def test_scientific_notation_like_percent_g():
    assert format_rational(Fraction(1, 10**5), 6) == "1e-05"
    assert format_rational(Fraction(12345, 10**9), 3) == "1.23e-05"
    assert format_rational(Fraction(10**7), 6) == "1e+07"


def test_a_ball_across_a_rounding_boundary_is_undecided():
    assert decide(arb(fmpq(1, 3)), 5) == "0.33333"
    assert decide(arb("0.125", "1e-10"), 2) is None  # straddles 0.125
    assert decide(arb(0, 1e-30), 3) is None  # contains zero
    assert decide(arb(0), 3) == "0"


def test_digit_limits():
    with pytest.raises(LimitError):
        certified(sympy.E, 0)
    with pytest.raises(LimitError):
        certified(sympy.E, 10**6)


def test_masked_cross_attention_60_digits_against_mpmath():
    """Every output digit of a masked, scaled cross-attention example, at 60 digits."""
    import random

    import symattn as sa

    rng = random.Random(7)
    nq, nk, d = 3, 4, 3
    Q = [[rng.randint(-30, 30) for _ in range(d)] for _ in range(nq)]
    K = [[rng.randint(-30, 30) for _ in range(d)] for _ in range(nk)]
    V = [[rng.randint(-30, 30) for _ in range(2)] for _ in range(nk)]
    spec = sa.from_dict({"inputs": {"Q": [[f"{x}/10" for x in r] for r in Q], "K": [[f"{x}/10" for x in r] for r in K],
                                    "V": [[f"{x}/10" for x in r] for r in V]},
                         "convention": {"mask": "causal_bottom_right", "scale": "1/sqrt(3)"}})
    out = sa.derive(spec)["output"].decimals(60)
    with mpmath.workdps(120):
        for i in range(nq):
            allowed = [j for j in range(nk) if j <= i + nk - nq]
            s = {j: sum(mpmath.mpf(Q[i][t]) * K[j][t] for t in range(d)) / 100 / mpmath.sqrt(3) for j in allowed}
            z = sum(mpmath.exp(x) for x in s.values())
            for c in range(2):
                exact = sum(mpmath.exp(s[j]) * mpmath.mpf(V[j][c]) / 10 for j in allowed) / z
                assert correctly_rounded(out[i][c], exact, 60), (i, c, out[i][c])
