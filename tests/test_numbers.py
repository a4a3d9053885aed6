"""Exact parsing of user numbers: each written number is the rational of its text."""

from decimal import Decimal
from fractions import Fraction

import pytest
import sympy

from symattn.errors import InputError
from symattn.read.numbers import exact_number, parse_expression


@pytest.mark.parametrize("text,expected", [
    ("0.59", Fraction(59, 100)),
    ("59/100", Fraction(59, 100)),
    ("-1.5e-3", Fraction(-3, 2000)),
    ("1e3", Fraction(1000)),
    (".5", Fraction(1, 2)),
    ("0.1", Fraction(1, 10)),
    ("2^-2", Fraction(1, 4)),
    ("(1 + 2) * 3 / 4", Fraction(9, 4)),
    ("-(-3)", Fraction(3)),
])
def test_numbers_are_the_rational_of_their_text(text, expected):
    v = exact_number(text)
    assert v == sympy.Rational(expected.numerator, expected.denominator)


def test_decimal_from_toml_is_exact_not_binary():
    # 0.1 + 0.2 == 0.3 exactly, unlike binary floats
    assert exact_number(Decimal("0.1")) + exact_number(Decimal("0.2")) == exact_number(Decimal("0.3"))
    assert exact_number(Decimal("0.59")) == sympy.Rational(59, 100)


def test_binary_floats_are_refused():
    with pytest.raises(InputError, match="binary float"):
        exact_number(0.59)


def test_infinity_only_where_allowed():
    assert exact_number("-inf", allow_inf=True) == -sympy.oo
    with pytest.raises(InputError, match="infinity"):
        exact_number("-inf")


@pytest.mark.parametrize("bad", ["nan", "NaN", Decimal("NaN")])
def test_nan_is_refused(bad):
    with pytest.raises(InputError, match="NaN"):
        exact_number(bad)


def test_expressions_are_exact():
    assert parse_expression("1/sqrt(d_k)", {"d_k": 2}) == sympy.sqrt(2) / 2
    assert parse_expression("1/sqrt(2)") == 1 / sympy.sqrt(2)
    assert parse_expression("exp(1)") == sympy.E
    assert parse_expression("2*pi") == 2 * sympy.pi


def test_symbols_only_when_allowed():
    q = parse_expression("q_11 + 1", allow_symbols=True)
    assert q.free_symbols and str(q) == "q_11 + 1"
    with pytest.raises(InputError, match="unknown name 'dk'.*did you mean 'd_k'"):
        parse_expression("1/sqrt(dk)", {"d_k": 2})


@pytest.mark.parametrize("attack", [
    "__import__('os').system('true')",
    "exp.__class__",
    "lambda: 1",
    "1; 2",
    "[1]",
    "q_11.__dict__",
])
def test_no_code_is_ever_evaluated(attack):
    with pytest.raises(InputError):
        parse_expression(attack, allow_symbols=True)


def test_bounded_work():
    with pytest.raises(InputError, match="exponent"):
        exact_number("1e999999999")
    with pytest.raises(InputError, match="exponent"):
        exact_number("10^100000")
    with pytest.raises(InputError, match="nested"):
        exact_number("(" * 100 + "1" + ")" * 100)
    with pytest.raises(InputError, match="longer"):
        exact_number("1" * 5000)
    with pytest.raises(InputError, match="division by zero"):
        exact_number("1/0")


def test_error_points_at_the_character():
    with pytest.raises(InputError) as e:
        parse_expression("1 + $")
    assert e.value.column == 5
