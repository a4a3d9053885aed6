"""Each documented limit on what a user writes, at the boundary and one past it (README "Limits")."""

from __future__ import annotations

import pytest
import sympy

import symattn as sa
from symattn import limits
from symattn.analyses.formula import parse_formula
from symattn.errors import InputError, SpecError
from symattn.read.bounded import Evaluator
from symattn.read.latex_numbers import parse_latex
from symattn.read.numbers import parse_expression


def refused(f, *args, match: str, **kw):
    with pytest.raises(InputError, match=match):
        f(*args, **kw)


def test_text_length():
    ok = "1" + " " * (limits.MAX_TEXT - 1)
    assert parse_expression(ok) == 1
    refused(parse_expression, ok + " ", match=f"longer than {limits.MAX_TEXT} characters")


def test_decimal_exponent():
    assert parse_expression("1e300") == sympy.Integer(10) ** 300
    assert parse_expression("1e-300") == sympy.Rational(1, 10**300)
    refused(parse_expression, "1e301", match="decimal exponent 301 is past the limit of ±300")
    refused(parse_expression, "1e-301", match="decimal exponent -301")


def test_integer_size_in_a_file():
    ok = sa.loads(f"[inputs]\nQ = [[{10**300}]]\nK = [[1]]\nV = [[1]]\n")
    assert ok.inputs["Q"][0][0] == 10**300
    with pytest.raises(SpecError, match="past the limit of 10\\^300"):
        sa.loads(f"[inputs]\nQ = [[{10**300 + 1}]]\nK = [[1]]\nV = [[1]]\n")


@pytest.mark.parametrize("opener,closer", [("(", ")"), ("-", "")])
def test_text_nesting_depth(opener, closer):
    n = limits.MAX_DEPTH
    assert parse_expression(opener * n + "1" + closer * n) in (1, -1)
    refused(parse_expression, opener * (n + 1) + "1" + closer * (n + 1), match=f"deeper than {n} levels")


@pytest.mark.parametrize("opener,closer", [("{", "}"), (r"\sqrt{", "}"), ("-", "")])
def test_latex_nesting_depth(opener, closer):
    n = limits.MAX_LATEX_DEPTH
    parse_latex(opener * n + "4" + closer * n)
    refused(parse_latex, opener * (n + 1) + "4" + closer * (n + 1), match=f"nested deeper than {n} levels")


def test_latex_length():
    ok = "1" + " " * (limits.MAX_LATEX - 1)
    assert parse_latex(ok) == 1
    refused(parse_latex, ok + " ", match=f"LaTeX longer than {limits.MAX_LATEX}")


def test_exact_digits():
    ev = Evaluator()
    ok = ev.number(10**14999 + 1, 10**14999)  # 15000 + 15000 digits
    assert ok == sympy.Rational(10**14999 + 1, 10**14999)
    refused(ev.number, 10**15000 + 1, 10**14999, match=f"about 30001 digits, past the limit of "
                                                       f"{limits.MAX_EXACT_DIGITS} digits")
    assert parse_expression("(1001/1000)^4999") == sympy.Rational(1001, 1000) ** 4999  # about 29997 digits
    refused(parse_expression, "(1001/1000)^5000", match="about 30003 digits, past the limit of 30000 digits")


def test_power_exponent():
    n = limits.MAX_POWER_NUMERATOR
    assert parse_expression(f"(2^(1/100))^{n}") == 2**100
    refused(parse_expression, f"(2^(1/100))^{n + 1}", match="an exponent must be a rational")
    assert parse_expression(f"2^(1/{limits.MAX_ROOT})") == sympy.root(2, limits.MAX_ROOT)
    refused(parse_expression, f"2^(1/{limits.MAX_ROOT + 1})", match="q ≤ 100")


@pytest.mark.parametrize("ok,past", [
    ("10^300", "10^301"), ("(1/10)^300", "(1/10)^301"), ("9.99e300", "10*1e300"), ("exp(693)", "exp(694)"),
    ("exp(-690)", "exp(-691)"), ("pi^604", "pi^606"), ("sqrt(2)^1998", "sqrt(2)^2000"),
])
def test_the_value_of_an_expression_stays_in_the_range_of_a_number(ok, past):
    parse_expression(ok)
    refused(parse_expression, past, match=f"past the limit of a decimal exponent within ±{limits.MAX_EXPONENT}")


def test_the_value_of_latex_stays_in_the_range_of_a_number():
    parse_latex("e^{693}")
    refused(parse_latex, "e^{694}", match="past the limit of a decimal exponent within ±300")
    refused(parse_latex, r"\pi^{\pi^{\pi^{\pi}}}", match="an exponent must be a rational")


def test_formula_length_and_depth():
    f = r"\text{softmax}(QK^T)V"
    assert parse_formula(f + " " * (limits.MAX_FORMULA - len(f))).kind == "dot_product"
    with pytest.raises(InputError, match=f"longer than {limits.MAX_FORMULA}"):
        parse_formula(f + " " * (limits.MAX_FORMULA - len(f) + 1))
    n = limits.MAX_FORMULA_DEPTH
    assert parse_formula("(" * (n - 1) + "x" + ")" * (n - 1)).kind == "other"
    with pytest.raises(InputError, match=f"deeper than {n} levels"):
        parse_formula("(" * (n + 1) + "x" + ")" * (n + 1))


def _latex_matrix(chars: int) -> str:
    body = r"\begin{bmatrix} 1 \end{bmatrix}"
    return body + " " * (chars - len(body))


def test_latex_per_file():
    half = limits.MAX_LATEX // 2
    ok = f"[inputs]\nQ = '{_latex_matrix(half)}'\nK = '{_latex_matrix(half)}'\nV = [[1]]\n"
    assert sa.loads(ok).n_queries == 1
    past = f"[inputs]\nQ = '{_latex_matrix(half)}'\nK = '{_latex_matrix(half + 1)}'\nV = [[1]]\n"
    with pytest.raises(SpecError, match="more than 200000 characters of LaTeX"):
        sa.loads(past)


def test_tokens_and_widths():
    n = limits.MAX_TOKENS
    assert sa.from_dict({"inputs": {"scores": [["1"]] * n, "V": [["1"]]}, "convention": {"scale": "none"}}).n_queries == n
    with pytest.raises(SpecError, match="size limit"):
        sa.from_dict({"inputs": {"scores": [["1"]] * (n + 1), "V": [["1"]]}, "convention": {"scale": "none"}})
    d = limits.MAX_DIM
    assert sa.from_dict({"inputs": {"Q": [[1] * d], "K": [[1] * d], "V": [[1]]}}).d_k == d
    with pytest.raises(SpecError, match=f"the key width d_k is {d + 1}, past the limit of {d}"):
        sa.from_dict({"inputs": {"Q": [[1] * (d + 1)], "K": [[1] * (d + 1)], "V": [[1]]}})


def test_heads():
    h = limits.MAX_HEADS
    ok = {"inputs": {"Q": [[1] * h], "K": [[1] * h], "V": [[1] * h]}, "convention": {"heads": h}}
    assert sa.from_dict(ok).convention.heads == h
    ok["convention"]["heads"] = h + 1
    with pytest.raises(SpecError, match=f"from 1 to {h}"):
        sa.from_dict(ok)


def test_symbolic_size():
    n = limits.MAX_SYMBOLIC_DIM
    m = [[f"a_{i}" for _ in range(1)] for i in range(n)]
    assert sa.from_dict({"inputs": {"Q": m, "K": m, "V": m}}).symbolic
    m = [[f"a_{i}"] for i in range(n + 1)]
    with pytest.raises(SpecError, match="symbols is limited"):
        sa.from_dict({"inputs": {"Q": m, "K": m, "V": m}})
