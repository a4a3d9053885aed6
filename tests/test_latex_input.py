"""LaTeX numbers and matrices in (symattn.read.latex_numbers): the front-end, latex2sympy2_extended
and the bounded rebuild. Tables of good inputs with hand-derived exact values, tables of bad
inputs with their messages, the limits at the boundary and one past it, the parser's real
cause when it cannot be imported, and a Hypothesis round trip (exact rational → LaTeX → the
same rational)."""

from __future__ import annotations

import inspect
import sys
import time
from fractions import Fraction

import pytest
import sympy
from hypothesis import given, settings, strategies as st
from sympy import E, Matrix, Rational, exp, log, oo, pi, sqrt

from symattn import limits
from symattn.errors import InputError
from symattn.read import latex_numbers
from symattn.read.latex_numbers import ParseBudget, parse_latex
from symattn.read.numbers import symbol

R = Rational

# -- good inputs: (LaTeX, the exact value worked out by hand) --------------------------------------

GOOD = [
    # decimals are the rationals of their digits, never binary floats
    ("0.59", R(59, 100)),
    ("-0.59", R(-59, 100)),
    (".5", R(1, 2)),
    ("3.", 3),
    ("0.1 + 0.2", R(3, 10)),  # 0.30000000000000004 in binary
    ("1 - 0.9", R(1, 10)),
    ("0.333333333333333333333", R(333333333333333333333, 10**21)),
    (r"\frac{0.3}{0.1}", 3),
    (r"1.5 \times 10^{-3}", R(3, 2000)),
    (r"-1.5 \cdot 10^{-3}", R(-3, 2000)),
    # fractions
    (r"\frac{59}{100}", R(59, 100)),
    (r"\dfrac{3}{4}", R(3, 4)),
    (r"\tfrac12", R(1, 2)),
    (r"-\frac{3}{4}", R(-3, 4)),
    (r"\frac{-3}{4}", R(-3, 4)),
    (r"\frac{1}{3} + \frac{1}{6}", R(1, 2)),
    (r"\frac{1}{2}\cdot\frac{1}{3}", R(1, 6)),
    (r"{2}\frac{1}{2}", 1),  # a group before \frac is a product, not a mixed number
    (r"(2)\frac{1}{2}", 1),
    ("6/4", R(3, 2)),
    (r"6 \div 4", R(3, 2)),
    ("2 * 3", 6),
    # roots, powers, e, exp, ln
    (r"\sqrt{2}", sqrt(2)),
    (r"\frac{1}{\sqrt{2}}", sqrt(2) / 2),
    (r"\sqrt{2}\sqrt{2}", 2),
    (r"3 \sqrt{2}", 3 * sqrt(2)),
    (r"\sqrt[3]{8}", 2),
    (r"\sqrt[3]{2}", sympy.root(2, 3)),
    ("2^{10}", 1024),
    ("2^3", 8),
    ("10^{-2}", R(1, 100)),
    ("-2^{2}", -4),  # the sign applies after the power
    ("(-2)^{2}", 4),
    (r"4^{\frac{1}{2}}", 2),
    ("e", E),
    ("e^{-1}", exp(-1)),
    (r"\mathrm{e}^{2}", exp(2)),
    ("2e", 2 * E),
    (r"\exp(0.5)", exp(R(1, 2))),
    (r"\exp 2", exp(2)),
    (r"\ln 2", log(2)),
    (r"\log(2)", log(2)),  # \log is the natural log, as in ML texts
    (r"\ln(e^{3})", 3),
    (r"\ln 2 \cdot 3", 3 * log(2)),
    (r"\pi", pi),
    (r"2\pi", 2 * pi),
    # grouping and spacing
    (r"\left( 1 + 2 \right) \cdot 3", 9),
    (r"\{1+1\}", 2),
    (r"\,0.5\;", R(1, 2)),
    ("~0.5", R(1, 2)),
    (r"\displaystyle \frac{1}{2}", R(1, 2)),
    ("-(-(-1))", -1),
    ("--1", 1),
    ("+1", 1),
    # names given by the caller
    (r"\frac{1}{\sqrt{d_k}}", sqrt(2) / 4),
    (r"\frac{d_k}{2}", 4),
    (r"\mathrm{d_k}", 8),
]


@pytest.mark.parametrize("text,value", GOOD, ids=[g[0] for g in GOOD])
def test_good_inputs(text, value):
    got = parse_latex(text, names={"d_k": 8})
    assert got == value and sympy.simplify(got - value) == 0
    if isinstance(value, (int, Rational)):
        assert got.is_Rational  # exact, never a Float
    assert not got.atoms(sympy.Float)


MATRICES = [
    (r"\begin{bmatrix} 0.2 & 0.5 \\ 0.4 & 0.8 \end{bmatrix}", Matrix([[R(1, 5), R(1, 2)], [R(2, 5), R(4, 5)]])),
    (r"\begin{pmatrix} 1 & \frac{1}{3} \end{pmatrix}", Matrix([[1, R(1, 3)]])),
    (r"\begin{matrix} -1 \\ 2 \\ \end{matrix}", Matrix([[-1], [2]])),  # a trailing \\ is no row
    (r"\begin{Bmatrix} \sqrt{2} \end{Bmatrix}", Matrix([[sqrt(2)]])),
    (r"\begin{smallmatrix} e^{-1} & 1 \end{smallmatrix}", Matrix([[exp(-1), 1]])),
    (r"\begin{array}{cc} 1 & 2 \\ 3 & 4 \end{array}", Matrix([[1, 2], [3, 4]])),
    (r"\left[\begin{matrix} 1 & 2 \end{matrix}\right]", Matrix([[1, 2]])),
    (r"\begin{bmatrix} q_{11} & q_1x_2 \end{bmatrix}", Matrix([[symbol("q_11"), symbol("q_1") * symbol("x_2")]])),
]


@pytest.mark.parametrize("text,value", MATRICES, ids=[m[0][:40] for m in MATRICES])
def test_good_matrices(text, value):
    assert parse_latex(text, allow_symbols=True) == value


@pytest.mark.parametrize("text,value", [
    (r"-\infty", -oo), (r"\infty", oo), (r"+\infty", oo),
    (r"\begin{bmatrix} 0 & -\infty \\ 0 & 0 \end{bmatrix}", Matrix([[0, -oo], [0, 0]])),
])
def test_infinity_alone_where_allowed(text, value):
    assert parse_latex(text, allow_inf=True) == value
    with pytest.raises(InputError, match="infinity is only allowed alone"):
        parse_latex(text)


def test_symbols_are_symattns_real_symbols():
    assert parse_latex(r"\frac{q_{11}}{2}", allow_symbols=True) == symbol("q_11") / 2
    assert parse_latex(r"w_1x_1 + w_2x_2", allow_symbols=True) == (symbol("w_1") * symbol("x_1")
                                                                    + symbol("w_2") * symbol("x_2"))


# -- bad inputs: (LaTeX, what the one-line message says) -------------------------------------------

BAD = [
    ("", "empty LaTeX where a number was expected"),
    (r"\input{x}", r"LaTeX command \\input is not allowed here \(allowed: "),
    (r"\def\x{1}", r"LaTeX command \\def is not allowed"),
    (r"\frac{1}{2", "ends too early"),
    (r"2\frac{1}{2}", r"a number directly before \\frac is ambiguous \(a mixed number or a product\)"),
    (r"2 \, \frac{1}{2}", "mixed number"),
    ("1.5e-3", r"e-notation is not LaTeX: write 1.5 \\times 10\^\{-3\}"),
    ("0,5", "a comma after a number: write a decimal point"),
    ("2 3", "two numbers side by side"),
    (r"\frac12 3", "two numbers side by side"),
    (r"6 / 2 \pi", r"a product after / is ambiguous"),
    ("2^3^4", "a double superscript"),
    ("2^10", "without braces an argument is one digit"),
    (r"\ln^2 x", r"\\ln\^… is ambiguous"),
    (r"\exp x^{2}", "the power is ambiguous"),
    (r"\ln \sqrt{2}", r"write \\ln\(…\): its argument needs parentheses"),
    (r"\sqrt\sqrt2", r"expected \{ after \\sqrt"),
    (r"\sqrt[101]{2}", "the root's index must be a whole number from 2 to 100"),
    ("q_11", r"write q_\{11…\}: without braces a subscript is one character"),
    ("_1", "a subscript belongs to a name"),
    ("x", r"unknown name 'x' in 'x'; only numbers are allowed here"),
    ("()", "an empty group"),
    ("(1", "ends too early"),
    ("1)", "nothing to close"),
    (r"1 - \infty", "infinity is only allowed alone"),
    (r"\frac{1}{0}", "division by zero"),
    (r"\ln 0", "log of 0 is -infinity, not a number"),
    (r"\ln(-1)", "log of a number that is not positive"),
    (r"\sqrt{-1}", "not a real number"),
    (r"10^{10^{10}}", "an exponent must be a rational number p/q"),
    ("e^{694}", "past the limit of a decimal exponent within ±300"),
    (r"\pi^{\pi^{\pi^{\pi}}}", "an exponent must be a rational"),
    ("1 \x00 2", r"unexpected character '\\x00' in LaTeX \(at character 3\)"),
    ("1 \u202e 2", r"unexpected character '\\u202e'"),
    ("½", "unexpected character"),
    (r"1 \\ 2", r"& and \\\\ separate matrix entries"),
    (r"\begin{vmatrix} 1 \end{vmatrix}", "only matrix environments"),
    (r"\begin{tabular}{c} 1 \end{tabular}", "only matrix environments"),
    (r"\begin{bmatrix} 1 & 2 \\ 3 \end{bmatrix}", "ragged matrix: row 1 has 2 entries, row 2 has 1"),
    (r"\begin{bmatrix} 1 & \end{bmatrix}", r"row 1, column 2: an empty matrix entry before \\end\{bmatrix\}"),
    (r"\begin{bmatrix} 1 & 2", r"\\begin\{bmatrix\} without \\end\{bmatrix\}"),
    (r"\begin{bmatrix} 1 \end{pmatrix}", r"\\begin\{bmatrix\} ended by \\end\{pmatrix\}"),
    (r"\begin{bmatrix} \begin{bmatrix} 1 \end{bmatrix} \end{bmatrix}", "a matrix inside a matrix entry"),
    (r"\begin{bmatrix} 1 \end{bmatrix} 2", r"unexpected '2' after \\end\{bmatrix\}"),
    (r"\begin{bmatrix} 1 & \frac{2}{x} \end{bmatrix}", "row 1, column 2: unknown name 'x'"),
    (r"1 + \begin{bmatrix} 1 \end{bmatrix}", "a matrix environment must be the whole field"),
]


@pytest.mark.parametrize("text,message", BAD, ids=[repr(b[0])[:40] for b in BAD])
def test_bad_inputs(text, message):
    with pytest.raises(InputError, match=message) as info:
        parse_latex(text)
    line = str(info.value)
    assert "\n" not in line and "\x00" not in line and "\u202e" not in line


def test_not_text():
    with pytest.raises(InputError, match="expected LaTeX text, got int"):
        parse_latex(5)  # type: ignore[arg-type]


# -- limits, at the boundary and one past it -------------------------------------------------------

NESTINGS = [("{", "}"), ("(", ")"), (r"\left(", r"\right)"), (r"\frac{1}{", "}"), (r"\frac{", "}{3}"),
            (r"\sqrt{", "}"), (r"\sqrt[3]{", "}"), ("1^{", "}"), (r"\exp(", ")"), (r"\ln(1+", ")"),
            (r"\ln(1+2\cdot", ")"), ("-", ""), ("-(", ")")]


@pytest.mark.parametrize("opener,closer", NESTINGS, ids=[n[0] for n in NESTINGS])
def test_nesting_limit(opener, closer):
    n = limits.MAX_LATEX_DEPTH
    assert n == 10
    text = opener * n + "1" + closer * n
    try:
        parse_latex(text)
    except InputError as e:  # a value past the evaluator's bounds (exp of exp of ...) is another limit
        assert "nested" not in str(e) and "parser" not in str(e), e
    with pytest.raises(InputError, match=f"LaTeX nested deeper than {n} levels"):
        parse_latex(opener * (n + 1) + "1" + closer * (n + 1))


@pytest.mark.parametrize("opener,closer", NESTINGS, ids=[n[0] for n in NESTINGS])
def test_the_deepest_entry_leaves_python_room(opener, closer):
    """Measured: the deepest entry the front-end lets through needs about 550 Python frames in
    the parser (``\\ln(1+2\\cdot`` ten deep: 548 on CPython 3.11), so it parses from a caller that
    has already used 350 of Python's default recursion limit of 1000 (and past it, the answer is
    a one-line error, see test_the_parser_past_pythons_recursion_limit)."""
    n = limits.MAX_LATEX_DEPTH
    text = opener * n + "1" + closer * n
    latex_numbers._SHAPES.clear()
    parse_latex("1")  # the parser is loaded
    depth = len(inspect.stack(0))
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(depth + 650)
    try:
        latex_numbers._SHAPES.clear()
        try:
            parse_latex(text)
        except InputError as e:
            assert "too deep" not in str(e), e
    finally:
        sys.setrecursionlimit(old)


def test_the_parser_past_pythons_recursion_limit():
    """Called from deep inside a program, the deepest entries get one line, not a RecursionError."""
    text = r"\ln(1+" * 10 + "2" + ")" * 10
    parse_latex("1")
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(len(inspect.stack(0)) + 200)
    try:
        latex_numbers._SHAPES.clear()
        with pytest.raises(InputError, match="the entry is too deep for the parser"):
            parse_latex(text)
    finally:
        sys.setrecursionlimit(old)
    assert parse_latex(text) > 0  # from a shallow caller it parses: the failure was not remembered


def test_entry_length():
    n = limits.MAX_TEXT
    ok = "1" + " " * (n - 3) + "+1"  # n characters
    assert len(ok) == n and parse_latex(ok) == 2
    with pytest.raises(InputError, match=f"a LaTeX entry longer than {n} characters"):
        parse_latex("1" + " " * (n - 2) + "+1")


def test_parse_budget():
    """Each new shape costs its canonical tokens; a shape seen before costs nothing."""
    latex_numbers._SHAPES.clear()
    b = ParseBudget(3)
    assert parse_latex("1 + 2", budget=b) == 3  # P + P: 3 tokens
    assert b.left == 0
    assert parse_latex("5 + 7", budget=b) == 12  # the same shape: free
    with pytest.raises(InputError, match="the LaTeX needs more than 3 tokens of parsing"):
        parse_latex("5 - 7", budget=b)


def _sums(op: str) -> str:
    """A 6×9 matrix of 54 shapes (sums of 1 to 54 ones): 1 + 3 + ... + 107 = 2916 tokens of parsing."""
    cells = [f" {op} ".join(["1"] * (k + 1)) for k in range(54)]
    return r"\begin{bmatrix}" + r" \\ ".join(" & ".join(cells[r * 9:(r + 1) * 9]) for r in range(6)) + r"\end{bmatrix}"


def test_a_file_shares_one_budget():
    import symattn as sa
    from symattn.errors import SpecError

    v = "V = [[1], [1], [1], [1], [1], [1]]"
    ones = "[" + ", ".join(["[" + ", ".join(["1"] * 9) + "]"] * 6) + "]"
    for q, k in [(f"'{_sums('+')}'", ones), (ones, f"'{_sums('-')}'")]:
        latex_numbers._SHAPES.clear()
        assert sa.loads(f"[inputs]\nQ = {q}\nK = {k}\n{v}\n").n_queries == 6  # each alone: 2916 tokens
    latex_numbers._SHAPES.clear()
    with pytest.raises(SpecError, match=r"inputs\.K: row \d+, column \d+: the LaTeX needs more than 5000 tokens"):
        sa.loads(f"[inputs]\nQ = '{_sums('+')}'\nK = '{_sums('-')}'\n{v}\n")  # together: 5832


def test_a_large_matrix_of_one_shape_is_cheap():
    text = r"\begin{bmatrix}" + r" \\ ".join(" & ".join(f"0.{i}{j}7" for j in range(64)) for i in range(64)) \
        + r"\end{bmatrix}"
    m = parse_latex(text, budget=ParseBudget(1))  # one shape: one token of parsing
    assert m.shape == (64, 64) and m[3, 5] == R(357, 1000)


# -- the parser package ----------------------------------------------------------------------------

@pytest.mark.parametrize("blocked,cause,fix", [
    ("latex2sympy2_extended", "ModuleNotFoundError: import of latex2sympy2_extended halted",
     "pip install 'latex2sympy2_extended>=1.10.1,<2'"),
    ("antlr4", "ModuleNotFoundError: import of antlr4 halted", "pip install 'antlr4-python3-runtime==4.13.2'"),
])
def test_a_missing_parser_names_the_real_cause(monkeypatch, blocked, cause, fix):
    for name in list(sys.modules):
        if name.split(".")[0] in ("latex2sympy2_extended", "antlr4"):
            monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, blocked, None)
    monkeypatch.setattr(latex_numbers, "_PARSER", [])
    monkeypatch.setattr(latex_numbers, "_SHAPES", {})
    with pytest.raises(InputError) as info:
        parse_latex(r"\frac{1}{2}")
    message = str(info.value)
    assert message.startswith("reading LaTeX needs the package latex2sympy2_extended, which could not be imported")
    assert cause in message and fix in message and "\n" not in message


def test_an_unsupported_antlr_runtime_names_the_real_cause(monkeypatch):
    """The issue's case: latex2sympy2's antlr4 4.7.2 left installed beside latex2sympy2_extended."""
    import importlib.metadata

    real = importlib.metadata.version
    monkeypatch.setattr(importlib.metadata, "version",
                        lambda name: "4.7.2" if name == "antlr4-python3-runtime" else real(name))
    for name in list(sys.modules):
        if name.split(".")[0] == "latex2sympy2_extended":
            monkeypatch.delitem(sys.modules, name)
    monkeypatch.setattr(latex_numbers, "_PARSER", [])
    monkeypatch.setattr(latex_numbers, "_SHAPES", {})
    with pytest.raises(InputError, match=r"could not be imported \(ImportError: Unsupported ANTLR version 4\.7\.2.*"
                                         r"pip install 'antlr4-python3-runtime==4\.13\.2'"):
        parse_latex("1 + 1")


def test_a_missing_parser_in_a_file_exits_2(tmp_path, monkeypatch, capsys):
    from symattn.cli import main

    monkeypatch.setitem(sys.modules, "latex2sympy2_extended", None)
    monkeypatch.setattr(latex_numbers, "_PARSER", [])
    monkeypatch.setattr(latex_numbers, "_SHAPES", {})
    f = tmp_path / "page.toml"
    f.write_text("[inputs]\nQ = '\\begin{bmatrix} 1 & 0 \\end{bmatrix}'\nK = [[1, 0]]\nV = [[1]]\n")
    assert main(["derive", str(f)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "inputs.Q" in err and "latex2sympy2_extended" in err and "pip install" in err


def test_the_dependency_is_declared():
    import tomllib
    from pathlib import Path

    pyproject = tomllib.loads((Path(__file__).resolve().parent.parent / "pyproject.toml").read_text())
    assert latex_numbers.PARSER_PACKAGE in pyproject["project"]["dependencies"]


# -- the round trip: exact rational → LaTeX → the same rational ------------------------------------

def _decimal_text(q: Fraction) -> str | None:
    """The finite decimal of q, when its denominator is 2^a 5^b."""
    d, k = q.denominator, 0
    while d % 10 == 0 or d % 2 == 0 or d % 5 == 0:
        if d % 10 == 0:
            d //= 10
        elif d % 2 == 0:
            d //= 2
        else:
            d //= 5
        k += 1
    if d != 1:
        return None
    scaled = abs(q) * 10**k
    assert scaled.denominator == 1
    digits = str(scaled.numerator).rjust(k + 1, "0")
    text = digits[:len(digits) - k] + ("." + digits[len(digits) - k:] if k else "")
    return ("-" if q < 0 else "") + text


def _latex(q: Fraction, form: int) -> str:
    sign = "-" if q < 0 else ""
    p, d = abs(q.numerator), q.denominator
    if form == 0 or (form == 1 and _decimal_text(q) is None):
        return rf"{sign}\frac{{{p}}}{{{d}}}"
    if form == 1:
        return _decimal_text(q)  # type: ignore[return-value]
    if form == 2:
        return rf"\dfrac{{{sign}{p}}}{{{d}}}"
    if form == 3:
        return rf"{sign}\left( {p} \right) / \left( {d} \right)"
    return rf"{sign}{p} \cdot 10^{{-3}} \cdot \frac{{1000}}{{{d}}}"


rationals = st.fractions(min_value=-10**12, max_value=10**12, max_denominator=10**9)


@settings(max_examples=300, derandomize=True, deadline=None)
@given(q=rationals, form=st.integers(0, 4))
def test_round_trip(q, form):
    text = _latex(q, form)
    assert parse_latex(text) == Rational(q.numerator, q.denominator), text


@settings(max_examples=60, derandomize=True, deadline=None)
@given(rows=st.integers(1, 4), cols=st.integers(1, 4), data=st.data())
def test_round_trip_matrices(rows, cols, data):
    qs = data.draw(st.lists(rationals, min_size=rows * cols, max_size=rows * cols))
    forms = data.draw(st.lists(st.integers(0, 4), min_size=rows * cols, max_size=rows * cols))
    env = data.draw(st.sampled_from(["bmatrix", "pmatrix", "matrix"]))
    cells = [_latex(q, f) for q, f in zip(qs, forms)]
    text = rf"\begin{{{env}}}" + r" \\ ".join(" & ".join(cells[r * cols:(r + 1) * cols]) for r in range(rows)) \
        + rf"\end{{{env}}}"
    expected = Matrix(rows, cols, [Rational(q.numerator, q.denominator) for q in qs])
    assert parse_latex(text) == expected


def test_decimal_text_helper():
    assert _decimal_text(Fraction(59, 100)) == "0.59"
    assert _decimal_text(Fraction(-3, 8)) == "-0.375"
    assert _decimal_text(Fraction(12)) == "12"
    assert _decimal_text(Fraction(1, 3)) is None


# -- hostile text (the property test over random token strings is in test_hostile_input.py) -------

def test_hostile_deep_nesting_is_refused_before_the_parser(monkeypatch):
    def never(*args):
        raise AssertionError("the parser was called")

    monkeypatch.setattr(latex_numbers, "_parse_shape", never)
    monkeypatch.setattr(latex_numbers, "_SHAPES", {})
    for text in ["{" * 5000 + "1" + "}" * 5000, r"\frac{1}{" * 3000 + "2" + "}" * 3000, "-" * 100_000 + "1",
                 r"\sqrt{" * 20000, "(" * 150_000]:
        t = time.perf_counter()
        with pytest.raises(InputError, match="nested deeper than 10|longer than"):
            parse_latex(text)
        assert time.perf_counter() - t < 20.0  # a guard against a hang (linear work), not a speed target


# -- expressions: a random tree, its value computed by SymPy directly, and its LaTeX read back -----

@st.composite
def expressions(draw, depth: int = 3, positive: bool = False):
    """(LaTeX, the exact value) of a random expression; positive=True keeps the value > 0."""
    kinds = ["num"] if depth == 0 else ["num", "add", "sub", "mul", "frac", "sqrt", "pow", "exp", "ln", "group"]
    kind = draw(st.sampled_from(kinds))
    if positive and kind in ("sub", "ln"):
        kind = "num"
    sub = lambda pos=True: draw(expressions(depth=depth - 1, positive=pos))  # noqa: E731
    group = lambda t: draw(st.sampled_from(["({})", r"\left({}\right)", "{{{}}}", r"\left[{}\right]"])).format(t)  # noqa: E731
    if kind == "num":
        q = draw(st.fractions(min_value=Fraction(1, 40), max_value=1000, max_denominator=40))
        text = _decimal_text(q) or rf"\frac{{{q.numerator}}}{{{q.denominator}}}"
        return text, Rational(q.numerator, q.denominator)
    if kind == "group":
        t, v = sub(positive)
        return group(t), v
    if kind in ("add", "sub"):
        (a, x), (b, y) = sub(positive), sub(positive)
        return (f"{a} + {group(b)}", x + y) if kind == "add" else (f"{a} - {group(b)}", x - y)
    if kind == "mul":
        (a, x), (b, y) = sub(positive), sub(positive)
        op = draw(st.sampled_from([r" \cdot ", r" \times ", " * ", " "]))
        return f"{group(a)}{op}{group(b)}", x * y
    if kind == "frac":
        (a, x), (b, y) = sub(positive), sub(True)
        return rf"\frac{{{a}}}{{{b}}}", x / y
    if kind == "sqrt":
        t, v = sub(True)
        return rf"\sqrt{{{t}}}", sqrt(v)
    if kind == "pow":
        t, v = sub(positive)
        k = draw(st.sampled_from([2, 3, -1, -2]))
        return f"{group(t)}^{{{k}}}", v**k
    if kind == "exp":
        k = draw(st.integers(-5, 5))
        return draw(st.sampled_from([f"e^{{{k}}}", rf"\exp({k})", rf"\mathrm{{e}}^{{{k}}}"])), exp(k)
    t, v = sub(True)  # ln
    return draw(st.sampled_from([r"\ln({})", r"\log({})", r"\ln\left({}\right)"])).format(t), log(v)


@settings(max_examples=150, derandomize=True, deadline=None)
@given(expressions())
def test_expressions_read_back_to_their_value(case):
    text, value = case
    try:
        got = parse_latex(text)
    except InputError as e:  # only the evaluator's documented bounds may refuse a well-formed expression
        assert "not a real number" in str(e) or "past the limit" in str(e) or "division by zero" in str(e), (text, e)
        return
    assert not got.atoms(sympy.Float)
    assert got == value or sympy.simplify(got - value) == 0, (text, got, value)
