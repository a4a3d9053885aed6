"""LaTeX in: numbers and matrices for example files.

The LaTeX a worked example needs is a small language: numbers, ``+ − \\cdot \\times``,
``\\frac``, ``\\sqrt[n]{…}``, powers, ``\\exp``, ``\\ln`` (``\\log`` is the natural log, as in
ML texts), ``e``, ``\\pi``, names with subscripts (``q_{11}``, ``d_k``), ``\\left( … \\right)``,
spacing, and ``bmatrix``/``pmatrix``/``matrix`` environments. It is read by a recursive-descent
parser over a whitelist of tokens, in time linear in the text, with nesting limited to
:data:`~symattn.limits.MAX_DEPTH` before Python's recursion limit is near, and every value
is built by the bounded :class:`~symattn.read.bounded.Evaluator`, like the text grammar's.
Nothing is evaluated unbounded; decimals are the exact rationals of their text:

>>> parse_latex(r"\\frac{59}{100}")
59/100
>>> parse_latex(r"\\begin{bmatrix} 0.2 & 0.5 \\\\ 0.4 & 0.8 \\end{bmatrix}")
Matrix([
[1/5, 1/2],
[2/5, 4/5]])
>>> parse_latex(r"\\frac{1}{\\sqrt{d_k}}", names={"d_k": 2})
sqrt(2)/2
>>> parse_latex(r"10^{10^{10}}")
Traceback (most recent call last):
...
symattn.errors.InputError: an exponent must be a rational number p/q with |p| ≤ 10000 and q ≤ 100, got 10000000000 (at character 3)

(Why not a general LaTeX parser: measured on the forms above, SymPy's Lark backend took
6.2 s for a 16×16 bmatrix and cannot read ``\\pi`` or ``q_{11}``; latex2sympy2_extended's
ANTLR parser takes time exponential in the nesting of groups (20 nested braces: over 10 s),
and in its linear SLL mode misreads ``x_{1}`` and ``\\frac{1}{\\sqrt{d_k}}``; it also reads
``1.5e-3`` as 1.5·e − 3. See the CHANGELOG.)
"""

from __future__ import annotations

import re
from typing import Any, Mapping

import sympy

from ..errors import InputError
from ..limits import MAX_DEPTH, MAX_LATEX
from .bounded import Evaluator
from .numbers import decimal_to_rational, did_you_mean, symbol

__all__ = ["parse_latex", "looks_like_latex"]

#: control sequences read, by what they do
_SPACING = {",", ";", ":", "!", " ", "quad", "qquad", "displaystyle", "textstyle", "left", "right"}
_FRACS = {"frac", "dfrac", "tfrac"}
_FUNCS = {"exp": "exp", "ln": "log", "log": "log", "sqrt": "sqrt"}
_MULS = {"cdot", "times"}
_ALLOWED_CS = _SPACING | _FRACS | set(_FUNCS) | _MULS | {"pi", "infty", "begin", "end", "mathrm", "div", "\\",
                                                         "{", "}"}
#: environments that mean a plain matrix (vmatrix would be a determinant)
_ENVIRONMENTS = {"bmatrix", "pmatrix", "matrix", "Bmatrix", "smallmatrix"}

_TOKEN = re.compile(r"\\(?P<cs>[A-Za-z]+|.)|(?P<num>[0-9]+\.?[0-9]*|\.[0-9]+)|(?P<letter>[A-Za-z])"
                    r"|(?P<op>[-+*/^_(){}\[\]&|~',])|(?P<space>\s+)", re.S)


def looks_like_latex(text: str) -> bool:
    """A string is read as LaTeX when it has a backslash (``\\frac``, ``\\begin``, ...) or a
    brace (``2^{10}``), which the text grammar never has.

    >>> looks_like_latex(r"\\frac{1}{2}"), looks_like_latex("2^{10}"), looks_like_latex("2^10")
    (True, True, False)
    """
    return "\\" in text or "{" in text or "}" in text


def _tokens(text: str) -> list[tuple[str, str, int]]:
    """(kind, text, 1-based column); spacing dropped; anything off the whitelist refused."""
    out: list[tuple[str, str, int]] = []
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m:
            raise InputError(f"unexpected character {text[pos]!r} in LaTeX", pos + 1)
        kind = m.lastgroup or "op"
        value = m.group(kind)
        col = pos + 1
        pos = m.end()
        if kind == "space" or (kind == "op" and value == "~"):
            continue
        if kind == "cs":
            if value not in _ALLOWED_CS:
                allowed = ", ".join("\\" + c for c in sorted(c for c in _ALLOWED_CS if c.isalpha()))
                raise InputError(f"LaTeX command \\{value} is not allowed here (allowed: {allowed})", col)
            if value in _SPACING:
                continue
            if value in ("begin", "end"):
                env = re.match(r"\s*\{\s*([A-Za-z]+)\s*\}", text[pos:])
                if not env or env.group(1) not in _ENVIRONMENTS:
                    raise InputError("only matrix environments (bmatrix, pmatrix, matrix) are allowed", col)
                pos += env.end()
                value = f"{value}:{env.group(1)}"
            if value == "mathrm":  # \mathrm{e}, \mathrm{d_k}: the name inside
                inner = re.match(r"\s*\{\s*([A-Za-z][A-Za-z0-9_]*)\s*\}", text[pos:])
                if not inner:
                    raise InputError("\\mathrm{…} may hold only a name such as e or d_k", col)
                pos += inner.end()
                kind, value = "name", inner.group(1)
        if kind == "num" and re.match(r"[eE][+-]?[0-9]", text[pos:pos + 3]):
            raise InputError("e-notation is not LaTeX: write 1.5 \\times 10^{-3}, not 1.5e-3", pos + 1)
        out.append((kind, value, col))
    return out


class _Parser:
    """Recursive descent over the tokens; values built by the bounded evaluator."""

    def __init__(self, text: str, names: Mapping[str, Any], allow_symbols: bool, ev: Evaluator) -> None:
        self.text, self.names, self.allow_symbols, self.ev = text, names, allow_symbols, ev
        self.toks = _tokens(text)
        self.i = 0
        self.depth = 0

    # -- tokens --
    def peek(self, k: int = 0) -> tuple[str, str, int] | None:
        return self.toks[self.i + k] if self.i + k < len(self.toks) else None

    def take(self, value: str | None = None) -> tuple[str, str, int]:
        t = self.peek()
        if t is None:
            raise InputError(f"the LaTeX {_short(self.text)!r} ends too early" +
                             (f": expected {_shown(value)}" if value else ""), len(self.text) + 1)
        if value is not None and t[1] != value:
            raise InputError(f"expected {_shown(value)}, found {_shown(t[1])}", t[2])
        self.i += 1
        return t

    def at(self, *values: str) -> bool:
        t = self.peek()
        return t is not None and t[1] in values

    def enter(self, col: int) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise InputError(f"LaTeX nested deeper than {MAX_DEPTH} levels", col)

    # -- the whole text --
    def parse(self, allow_inf: bool) -> Any:
        if not self.toks:
            raise InputError("empty LaTeX where a number was expected")
        if self.at("begin:bmatrix", "begin:pmatrix", "begin:matrix", "begin:Bmatrix", "begin:smallmatrix"):
            value = self.matrix()
        else:
            value = self.infinity(allow_inf)
            if value is None:
                value = self.expr()
        t = self.peek()
        if t is not None:
            raise self.unexpected(t)
        return value

    def unexpected(self, t: tuple[str, str, int], what: str = "") -> InputError:
        if t[1] == "," and self.i and self.toks[self.i - 1][0] == "num":
            return InputError("a comma after a number: write a decimal point (0.5), and & between matrix entries",
                              t[2])
        return InputError(what or f"unexpected {_shown(t[1])} in {_short(self.text)!r}", t[2])

    def infinity(self, allow_inf: bool) -> sympy.Expr | None:
        """±∞ standing alone (a bias or mask_value entry)."""
        k = 1 if self.at("+", "-") else 0
        t = self.peek(k)
        if t is None or t[1] != "infty":
            return None
        if not allow_inf:
            raise InputError("infinity is only allowed alone, in a bias or as mask_value", t[2])
        neg = k == 1 and self.peek()[1] == "-"  # type: ignore[index]
        self.i += k + 1
        return -sympy.oo if neg else sympy.oo

    def matrix(self) -> sympy.Matrix:
        _, begin, col = self.take()
        env = begin.split(":")[1]
        rows: list[list[sympy.Expr]] = [[]]
        while True:
            t = self.peek()
            if t is None:
                raise InputError(f"\\begin{{{env}}} without \\end{{{env}}}", col)
            if t[1] == f"end:{env}":
                self.take()
                break
            if t[1] == "\\":
                self.take()
                if self.at(f"end:{env}"):
                    continue
                rows.append([])
                continue
            if t[1] == "&":
                if not rows[-1]:
                    raise InputError("an empty matrix entry before &", t[2])
                self.take()
                continue
            if rows[-1] and self.toks[self.i - 1][1] != "&":
                raise self.unexpected(t, f"expected & or \\\\ between matrix entries, found {_shown(t[1])}")
            try:
                rows[-1].append(self.expr())
            except InputError as e:
                raise InputError(f"row {len(rows)}, column {len(rows[-1]) + 1}: {e.message}", e.column) from None
        if rows and not rows[-1]:
            rows.pop()
        if not rows or not rows[0]:
            raise InputError("an empty matrix", col)
        width = len(rows[0])
        for r, row in enumerate(rows):
            if len(row) != width:
                raise InputError(f"ragged matrix: row 1 has {width} entries, row {r + 1} has {len(row)}", col)
        return sympy.Matrix(rows)

    # -- expressions --
    def expr(self) -> sympy.Expr:
        e = self.term()
        while self.at("+", "-"):
            _, op, col = self.take()
            rhs = self.term()
            e = self.ev.add(e, rhs, col) if op == "+" else self.ev.sub(e, rhs, col)
        return e

    def _starts_factor(self) -> bool:
        t = self.peek()
        if t is None:
            return False
        kind, value, _ = t
        return kind in ("num", "letter", "name") or value in ("(", "[", "{", "|") or (
            kind == "cs" and value in (_FRACS | set(_FUNCS) | {"pi", "infty"}))

    def term(self) -> sympy.Expr:
        e = self.unary()
        while True:
            t = self.peek()
            if t is None:
                return e
            if t[1] in _MULS or t[1] == "*":
                self.take()
                e = self.ev.mul(e, self.unary(), t[2])
            elif t[1] in ("/", "div"):
                self.take()
                e = self.ev.div(e, self.unary(), t[2])
            elif self._starts_factor():
                if t[0] == "num" and self.toks[self.i - 1][0] == "num":
                    raise InputError("two numbers side by side: write \\cdot or \\times between them", t[2])
                e = self.ev.mul(e, self.power(), t[2])
            else:
                return e

    def unary(self) -> sympy.Expr:
        if self.at("+", "-"):
            _, op, col = self.take()
            self.enter(col)
            e = self.unary()
            self.depth -= 1
            return self.ev.neg(e) if op == "-" else e
        return self.power()

    def power(self) -> sympy.Expr:
        base = self.primary()
        if self.at("^"):
            _, _, col = self.take()
            self.enter(col)
            exponent = self.argument()
            self.depth -= 1
            if self.at("^"):
                raise InputError("a double superscript: write a^{b^{c}}", self.peek()[2])  # type: ignore[index]
            return self.ev.power(base, exponent, col)
        return base

    def argument(self) -> sympy.Expr:
        """A TeX argument: a {group}, or one token (a digit, a letter, \\pi)."""
        t = self.peek()
        if t is None:
            return self.take("{")  # type: ignore[return-value]  # raises "ends too early"
        if t[1] == "{":
            return self.group("{", "}")
        if t[0] == "num":
            self.take()
            digit, rest = t[1][0], t[1][1:]
            if rest:  # \frac12 reads 1 and 2: put the rest back as its own number
                self.toks.insert(self.i, ("num", rest, t[2] + 1))
            return self.ev.value(decimal_to_rational_text(digit, t[2]))
        self.enter(t[2])  # \sqrt\sqrt2 nests without braces
        e = self.primary()
        self.depth -= 1
        return e

    def group(self, open_: str, close: str) -> sympy.Expr:
        _, _, col = self.take(open_)
        self.enter(col)
        if self.at(close):
            raise InputError("an empty group", col)
        e = self.expr()
        self.take(close)
        self.depth -= 1
        return e

    def primary(self) -> sympy.Expr:
        t = self.peek()
        if t is None:
            return self.take("a number")  # type: ignore[return-value]  # raises "ends too early"
        kind, value, col = t
        if kind == "num":
            self.take()
            return self.ev.value(decimal_to_rational_text(value, col))
        if kind in ("letter", "name"):
            self.take()
            return self.name(value, col)
        if value in ("(", "[", "{"):
            return self.group(value, {"(": ")", "[": "]", "{": "}"}[value])
        if kind == "cs":
            self.take()
            if value in _FRACS:
                num = self.argument()
                den = self.argument()
                return self.ev.div(num, den, col)
            if value == "sqrt":
                index = None
                if self.at("["):
                    index = self.group("[", "]")
                arg = self.argument()
                if index is None:
                    return self.ev.apply("sqrt", arg, col)
                if not (index.is_Integer and 2 <= index <= 100):
                    raise InputError(f"the root's index must be a whole number from 2 to 100, got {index}", col)
                return self.ev.power(arg, sympy.Rational(1, int(index)), col)  # type: ignore[arg-type]
            if value in ("exp", "ln", "log"):
                if self.at("^"):
                    raise InputError(f"\\{value}^… is ambiguous: write (\\{value} x)^{{n}}", col)
                if self.at("("):
                    arg = self.group("(", ")")
                else:
                    self.enter(col)
                    arg = self.power()
                    self.depth -= 1
                return self.ev.apply(_FUNCS[value], arg, col)
            if value == "pi":
                return self.ev.constant("pi")
            if value == "infty":
                raise InputError("infinity is only allowed alone, in a bias or as mask_value", col)
        raise InputError(f"unexpected {_shown(value)} in {_short(self.text)!r}", col)

    def name(self, letter: str, col: int) -> sympy.Expr:
        name = letter
        if self.at("_"):
            self.take()
            t = self.peek()
            if t is not None and t[1] == "{":
                self.take()
                parts = []
                while not self.at("}"):
                    p = self.take()
                    if p[0] not in ("num", "letter") and p[1] != ",":
                        raise InputError("a subscript may hold only letters, digits and commas", p[2])
                    parts.append(p[1])
                self.take("}")
                sub = "".join(parts).replace(",", "")
            elif t is not None and t[0] in ("num", "letter"):
                self.take()
                sub = t[1][0] if t[0] == "num" else t[1]
                if t[0] == "num" and len(t[1]) > 1:
                    self.toks.insert(self.i, ("num", t[1][1:], t[2] + 1))
            else:
                raise InputError("expected a subscript after _", col)
            if not sub:
                raise InputError("an empty subscript", col)
            name = f"{letter}_{sub}"
        if name == "e":
            return self.ev.constant("e")
        if name in self.names:
            v = self.names[name]
            return self.ev.value(v if isinstance(v, sympy.Basic) else sympy.Integer(v))
        if self.allow_symbols:
            return self.ev.symbol(symbol(name))
        known = sorted(self.names)
        raise InputError(f"unknown name {name!r} in {_short(self.text)!r}"
                         + (did_you_mean(name, known) if known else "; only numbers are allowed here"), col)


def decimal_to_rational_text(text: str, column: int) -> sympy.Rational:
    """The exact rational of a number token."""
    from decimal import Decimal

    try:
        return decimal_to_rational(Decimal(text))
    except InputError as e:
        raise InputError(e.message, column) from None


def _short(text: str) -> str:
    t = " ".join(text.split())
    return t if len(t) <= 60 else t[:57] + "..."


def _shown(token: str) -> str:
    if token.startswith(("begin:", "end:")):
        kind, env = token.split(":")
        return f"\\{kind}{{{env}}}"
    return repr(token) if len(token) == 1 or not token.isalpha() else f"\\{token}"


def parse_latex(text: str, names: Mapping[str, Any] | None = None, allow_symbols: bool = False,
                allow_inf: bool = False, evaluator: Evaluator | None = None) -> Any:
    """An exact SymPy number (or Matrix) from LaTeX, built through the bounded evaluator.

    ``names`` maps allowed names (``d_k``) to values; other names are symbols when
    ``allow_symbols``, else an error. ``allow_inf`` admits ``\\infty`` or ``-\\infty``
    standing alone (a bias or mask_value entry).

    >>> parse_latex(r"-\\infty")
    Traceback (most recent call last):
    ...
    symattn.errors.InputError: infinity is only allowed alone, in a bias or as mask_value (at character 2)
    >>> parse_latex(r"\\frac{1}{0}")
    Traceback (most recent call last):
    ...
    symattn.errors.InputError: division by zero (at character 1)
    """
    if not isinstance(text, str):
        raise InputError(f"expected LaTeX text, got {type(text).__name__}")
    if len(text) > MAX_LATEX:
        raise InputError(f"LaTeX longer than {MAX_LATEX} characters")
    return _Parser(text, names or {}, allow_symbols, evaluator or Evaluator()).parse(allow_inf)
