"""Extreme magnitudes (issue 8, item 1): certified decimals in time that does not grow with
the size of an exponent, scientific notation for tiny and huge values, zero decided (never
guessed), and no 4,300-digit limit on Python's int-to-str conversion.

Every expected value comes from mpmath (which carries arbitrary exponents) or from exact
decimal arithmetic, never from symattn itself.
"""

from decimal import Decimal, localcontext
from fractions import Fraction

import mpmath
import pytest
import sympy
from flint import arb, fmpq

import symattn as sa
from symattn.errors import CertificationError, LimitError
from symattn.exact import nodes as V
from symattn.exact.certify import decide, format_rational, is_exact_decimal, workprec
from symattn.limits import MAX_DIGITS


def mp_rounded(x: mpmath.mpf, digits: int) -> str:
    """``x`` rounded to ``digits`` significant digits, half away from zero, as ``%g`` would
    print it (mpmath at the caller's precision; ``x`` must not be near a tie)."""
    s = mpmath.nstr(abs(x), digits, min_fixed=-4, max_fixed=digits, strip_zeros=False)
    if "e" in s:
        mant, exp = s.split("e")
        e = int(exp)
        s = f"{mant}e{'-' if e < 0 else '+'}{abs(e):02d}"
    return ("-" if x < 0 else "") + s


@pytest.mark.parametrize("k", [3, 6, 9, 12, 300])
def test_exp_of_minus_ten_to_the_k_in_scientific_notation(k):
    # a ball around exp(-10^k): the digits come from its exponent and mantissa, not from an
    # integer of 10^k bits (which is what made mask_value = -1e9 hang)
    with workprec(200 + 4 * k):
        text = decide((-arb(10) ** k).exp(), 6)
    with mpmath.workdps(40 + k):
        assert text == mp_rounded(mpmath.exp(-mpmath.mpf(10) ** k), 6)
    assert "e-" in text


@pytest.mark.parametrize("k", [3, 9, 300])
def test_huge_values_too(k):
    with workprec(200 + 4 * k):
        text = decide((arb(10) ** k).exp(), 8)
    with mpmath.workdps(40 + k):
        assert text == mp_rounded(mpmath.exp(mpmath.mpf(10) ** k), 8)
    assert "e+" in text


def test_negative_huge_and_exact_balls():
    with workprec(300):
        assert decide(-(arb(10) ** 9).exp(), 4).startswith("-8.")  # e^(10^9) = 8.0…e+434294481
    assert decide(arb(fmpq(-1, 8)), 2) == "-0.13"  # an exact tie: half away from zero
    assert decide(arb(125), 2) == "1.3e+02"
    assert decide(arb(0), 5) == "0"
    assert decide(arb.nan(), 5) is None and decide(arb.pos_inf(), 5) is None


def test_readme_mask_value_minus_1e9_example():
    # the README's own example: Q = K = V = [[1], [2]], causal mask, mask_value = -1e9
    spec = sa.from_dict({"inputs": {"Q": [[1], [2]], "K": [[1], [2]], "V": [[1], [2]]},
                         "convention": {"mask": "causal", "mask_value": "-1e9"}})
    d = sa.derive(spec)
    w = d["weights"].decimals(6)
    with mpmath.workdps(60):
        tiny = 1 / (1 + mpmath.exp(mpmath.mpf(10) ** 9 + 1))  # row 1: scores (1, -1e9)
        assert w[0] == [mp_rounded(1 - tiny, 6), mp_rounded(tiny, 6)]
        assert w[0][1] == "4.59678e-434294483"
        out = d["output"].decimals(20)[0][0]
        assert out == mp_rounded(1 - tiny + 2 * tiny, 20)
    assert "4.59678e-434294483" in sa.text(d)  # printed, in scientific notation


def test_scores_of_1e300_with_no_scale():
    spec = sa.from_dict({"inputs": {"scores": [[0, "1e300"]], "V": [[1], [2]]},
                         "convention": {"scale": "none"}})
    d = sa.derive(spec)
    w = d["weights"].decimals(6)[0]
    with mpmath.workdps(400):
        tiny = 1 / (1 + mpmath.exp(mpmath.mpf(10) ** 300))
        assert w == [mp_rounded(tiny, 6), mp_rounded(1 - tiny, 6)]
    assert d["output"].decimals(6) == [["2.00000"]]


def test_a_double_exponential_is_a_clear_error_naming_the_entry():
    # exp(exp(10^6)): the decimal exponent alone has 434,295 digits; symattn says so
    # (step, entry, why) instead of a ValueError from deep inside the rounding
    w = V.softmax(V.SympyNode(sympy.Matrix([[0, sympy.exp(10**6)]])))
    w.name_as("weights", ["q"], ["a", "b"])
    with pytest.raises(CertificationError, match=r"weights\[q, a\].*not finite"):
        w.decimals(6)


def test_zero_versus_tiny_is_decided_not_guessed():
    # exactly 0 (equal value rows) against e^-(10^9 + 1) (a finite mask value)
    p = V.softmax(V.masked(V.rational_matrix([[1, 2]]), replace={(0, 1): sympy.Integer(-10**9)}))
    assert V.attend(p, V.rational_matrix([[5], [5]])).decimals(6) == [["5"]]
    tiny = V.elementwise("sub", V.attend(p, V.rational_matrix([[0], [1]])), V.rational_matrix([[0]]))
    assert tiny.decimals(3) == [["4.60e-434294483"]]
    # a value that is 0 but that symattn cannot prove 0: an error, never a printed 0
    node = V.SympyNode(sympy.Matrix([[sympy.log(6) - sympy.log(2) - sympy.log(3)]]))
    with pytest.raises(CertificationError, match="may be exactly 0"):
        node.decimals(6)


def test_no_int_to_str_limit_at_5000_digits():
    spec = sa.from_dict({"inputs": {"Q": [["1/3"]], "K": [[1]], "V": [[1]]}})
    d = sa.derive(spec)
    assert d["Q"].decimals(5000)[0][0] == "0." + "3" * 5000
    text = sa.text(d, digits=5000)
    assert "3" * 5000 in text
    assert sa.to_json(d, digits=5000)["steps"][0]["decimal"][0][0] == "0." + "3" * 5000


def test_long_terminating_decimals_print_exactly():
    q = Fraction(1, 2**20000)  # 13,970 significant digits, exactly
    with localcontext() as ctx:
        ctx.prec = 20000
        expected = Decimal(1) / Decimal(2**20000)
    digits = expected.as_tuple().digits
    assert is_exact_decimal(q, len(digits)) and not is_exact_decimal(q, len(digits) - 1)
    text = format_rational(q, MAX_DIGITS)
    mant, exp = text.split("e")
    assert mant.replace(".", "") == "".join(map(str, digits)) and int(exp) == expected.adjusted()
    assert format_rational(Fraction(-3, 2000), 6) == "-0.0015"


def test_the_digit_limit_at_the_boundary_and_one_past():
    third = V.rational_matrix([[Fraction(1, 3)]])
    assert third.decimals(MAX_DIGITS)[0][0] == "0." + "3" * MAX_DIGITS
    w = V.softmax(V.rational_matrix([[0, 1]]))
    text = w.decimals(MAX_DIGITS)[0][0]
    with mpmath.workdps(MAX_DIGITS + 30):
        assert text == mp_rounded(1 / (1 + mpmath.e), MAX_DIGITS)
    with pytest.raises(LimitError):
        third.decimals(MAX_DIGITS + 1)
