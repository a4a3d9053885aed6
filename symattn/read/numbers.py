"""Exact parsing of the numbers and small expressions users write.

A number becomes the exact rational of what was written, never a binary float:

>>> exact_number("0.59")
59/100
>>> exact_number("59/100"), exact_number("-1.5e-3")
(59/100, -3/2000)
>>> from decimal import Decimal
>>> exact_number(Decimal("0.1")) + exact_number(Decimal("0.2")) == exact_number("0.3")
True

Expressions use a small grammar (numbers, names, ``+ - * / ^ **``, parentheses,
``sqrt exp log ln`` and ``pi``); nothing is ever passed to ``eval`` or ``sympify``:

>>> parse_expression("1/sqrt(d_k)", names={"d_k": 2})
sqrt(2)/2
>>> parse_expression("q_11 * 2", allow_symbols=True)
2*q_11
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import Mapping

import sympy

from ..errors import InputError
from ..limits import MAX_DEPTH, MAX_EXPONENT, MAX_TEXT
from .bounded import Evaluator

__all__ = ["InputError", "exact_number", "parse_expression", "decimal_to_rational", "symbol"]


_INF_WORDS = {"inf": 1, "+inf": 1, "-inf": -1, "infinity": 1, "+infinity": 1, "-infinity": -1,
              "oo": 1, "+oo": 1, "-oo": -1, "∞": 1, "+∞": 1, "-∞": -1}

_FUNCTIONS = ("sqrt", "exp", "log", "ln")
_CONSTANTS = ("pi",)
#: names that would denote an undefined or infinite value inside an expression
_UNDEFINED_NAMES = {"nan", "inf", "infinity", "oo", "zoo", "undefined"}

_SYMBOL_CACHE: dict[str, sympy.Symbol] = {}


def symbol(name: str) -> sympy.Symbol:
    """The real SymPy symbol symattn uses for ``name`` (the same object every time).

    >>> symbol("q_11").is_real
    True
    """
    s = _SYMBOL_CACHE.get(name)
    if s is None:
        s = _SYMBOL_CACHE[name] = sympy.Symbol(name, real=True)
    return s


def decimal_to_rational(d: Decimal) -> sympy.Rational:
    """The exact rational of a :class:`decimal.Decimal`, with bounded exponent.

    >>> decimal_to_rational(Decimal("-0.125"))
    -1/8
    """
    if d.is_nan():
        raise InputError("NaN is not a number symattn can compute with")
    if d.is_infinite():
        raise InputError("infinity is not allowed here")
    sign, digits, exp = d.as_tuple()
    if len(digits) > MAX_TEXT:
        raise InputError(f"more than {MAX_TEXT} digits")
    assert isinstance(exp, int)
    if (d != 0 and abs(d.adjusted()) > MAX_EXPONENT) or abs(exp) > MAX_EXPONENT + MAX_TEXT:
        shown = d.adjusted() if d != 0 else exp
        raise InputError(f"decimal exponent {shown} is past the limit of ±{MAX_EXPONENT}")
    num, den = d.as_integer_ratio()
    return sympy.Rational(num, den)


_TOKEN_RE = re.compile(r"\s*(?:(?P<num>(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)|(?P<name>[^\W\d]\w*)"
                       r"|(?P<op>\*\*|[-+*/^(),]))")


def _number_token(text: str, column: int) -> sympy.Rational:
    try:
        d = Decimal(text)
    except InvalidOperation:  # pragma: no cover - the regex only lets numbers through
        raise InputError(f"cannot read number {text!r}", column) from None
    try:
        return decimal_to_rational(d)
    except InputError as e:
        raise InputError(e.message, column) from None


class _Parser:
    """Recursive-descent parser over a whitelist grammar; every value is built by the
    bounded :class:`~symattn.read.bounded.Evaluator`, and nesting is limited before
    Python's recursion limit is reached."""

    def __init__(self, text: str, names: Mapping[str, object], allow_symbols: bool,
                 evaluator: Evaluator | None = None) -> None:
        self.text = text
        self.names = names
        self.allow_symbols = allow_symbols
        self.ev = evaluator or Evaluator()
        self.tokens: list[tuple[str, str, int]] = []
        pos = 0
        stripped_end = len(text.rstrip())
        while pos < stripped_end:
            m = _TOKEN_RE.match(text, pos)
            if not m or m.end() == pos or (m.lastgroup == "name" and not m.group("name").isidentifier()):
                col = pos + 1 + (len(text[pos:]) - len(text[pos:].lstrip()))
                raise InputError(f"unexpected character {text[col - 1]!r} in {text!r}", col)
            kind = m.lastgroup or "op"
            start = m.start(kind)
            self.tokens.append((kind, m.group(kind), start + 1))
            pos = m.end()
        self.i = 0
        self.depth = 0

    def peek(self) -> tuple[str, str, int] | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def take(self, value: str | None = None) -> tuple[str, str, int]:
        tok = self.peek()
        if tok is None:
            raise InputError(f"{self.text!r} ends too early" + (f": expected {value!r}" if value else ""),
                             len(self.text) + 1)
        if value is not None and tok[1] != value:
            raise InputError(f"expected {value!r} in {self.text!r}, found {tok[1]!r}", tok[2])
        self.i += 1
        return tok

    def parse(self) -> sympy.Expr:
        if not self.tokens:
            raise InputError("empty text where a number was expected")
        e = self.expr()
        tok = self.peek()
        if tok is not None:
            raise InputError(f"unexpected {tok[1]!r} in {self.text!r}", tok[2])
        return e

    def _enter(self, col: int) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise InputError(f"expression nested deeper than {MAX_DEPTH} levels", col)

    def expr(self) -> sympy.Expr:
        e = self.term()
        while (tok := self.peek()) and tok[1] in "+-" and tok[0] == "op":
            self.take()
            rhs = self.term()
            e = self.ev.add(e, rhs, tok[2]) if tok[1] == "+" else self.ev.sub(e, rhs, tok[2])
        return e

    def term(self) -> sympy.Expr:
        e = self.unary()
        while (tok := self.peek()) and tok[0] == "op" and tok[1] in ("*", "/"):
            self.take()
            rhs = self.unary()
            e = self.ev.mul(e, rhs, tok[2]) if tok[1] == "*" else self.ev.div(e, rhs, tok[2])
        return e

    def unary(self) -> sympy.Expr:
        tok = self.peek()
        if tok and tok[0] == "op" and tok[1] in "+-":
            self.take()
            self._enter(tok[2])
            e = self.unary()
            self.depth -= 1
            return self.ev.neg(e) if tok[1] == "-" else e
        return self.power()

    def power(self) -> sympy.Expr:
        base = self.atom()
        tok = self.peek()
        if tok and tok[0] == "op" and tok[1] in ("^", "**"):
            self.take()
            self._enter(tok[2])
            exponent = self.unary()
            self.depth -= 1
            return self.ev.power(base, exponent, tok[2])
        return base

    def atom(self) -> sympy.Expr:
        kind, value, col = self.take()
        if kind == "num":
            return self.ev.value(_number_token(value, col))
        if kind == "op" and value == "(":
            self._enter(col)
            e = self.expr()
            self.take(")")
            self.depth -= 1
            return e
        if kind == "name":
            if value in _FUNCTIONS:
                self.take("(")
                self._enter(col)
                arg = self.expr()
                self.take(")")
                self.depth -= 1
                return self.ev.apply(value, arg, col)
            if value in self.names:
                v = self.names[value]
                return self.ev.value(v if isinstance(v, sympy.Basic) else sympy.Integer(int(v)))  # type: ignore[call-overload, arg-type]
            if value in _CONSTANTS:
                return self.ev.constant(value)
            if value.lower() in _UNDEFINED_NAMES:
                raise InputError(f"{value!r} is not a number: NaN and infinity cannot be part of an expression "
                                 "(write \"-inf\" alone, in a bias or as mask_value)", col)
            if self.allow_symbols:
                return self.ev.symbol(symbol(value))
            known = sorted(set(self.names) | set(_FUNCTIONS) | set(_CONSTANTS))
            raise InputError(f"unknown name {value!r} in {self.text!r}{did_you_mean(value, known)}", col)
        raise InputError(f"unexpected {value!r} in {self.text!r}", col)


def did_you_mean(word: str, choices: list[str] | set[str]) -> str:
    """A ``"; did you mean 'x'?"`` suffix when a close choice exists, else a list of choices.

    >>> did_you_mean("dk", ["d_k", "d_v"])
    "; did you mean 'd_k'?"
    """
    import difflib

    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    if close:
        return f"; did you mean {close[0]!r}?"
    if choices and len(choices) <= 12:
        return "; expected one of " + ", ".join(repr(c) for c in sorted(choices))
    return ""


def parse_expression(text: str, names: Mapping[str, object] | None = None,
                     allow_symbols: bool = False, evaluator: Evaluator | None = None) -> sympy.Expr:
    """Parse a small arithmetic expression into an exact SymPy expression.

    ``names`` maps allowed identifiers to values; other identifiers become real
    symbols when ``allow_symbols`` is true, and are an error otherwise.

    >>> parse_expression("2^-1 + 3/4")
    5/4
    >>> parse_expression("1/x")
    Traceback (most recent call last):
    ...
    symattn.errors.InputError: unknown name 'x' in '1/x'; expected one of 'exp', 'ln', 'log', 'pi', 'sqrt' (at character 3)
    """
    if not isinstance(text, str):
        raise InputError(f"expected text, got {type(text).__name__}")
    if len(text) > MAX_TEXT:
        raise InputError(f"text longer than {MAX_TEXT} characters")
    return _Parser(text, names or {}, allow_symbols, evaluator).parse()


def exact_number(value: object, allow_inf: bool = False, allow_symbols: bool = False,
                 names: Mapping[str, object] | None = None) -> sympy.Expr:
    """The exact SymPy value of a number as a user wrote it.

    Accepts ints, :class:`~decimal.Decimal` (what ``tomllib`` gives with
    ``parse_float=Decimal``), :class:`~fractions.Fraction` and strings
    (``"59/100"``, ``"-1.5e-3"``, ``"-inf"`` when ``allow_inf``, small expressions).

    >>> exact_number(3), exact_number("-inf", allow_inf=True)
    (3, -oo)
    >>> exact_number(0.1)
    Traceback (most recent call last):
    ...
    symattn.errors.InputError: got the binary float 0.1; write the number as text ("0.1") or as a Decimal
    """
    if isinstance(value, bool):
        raise InputError(f"expected a number, got the boolean {str(value).lower()}")
    if isinstance(value, int):
        if value.bit_length() > 1000 or abs(value) > 10 ** (MAX_EXPONENT + 1):
            raise InputError(f"integer past the limit of 10^{MAX_EXPONENT + 1}")
        return sympy.Integer(value)
    if isinstance(value, Fraction):
        return sympy.Rational(value.numerator, value.denominator)
    if isinstance(value, Decimal):
        if value.is_infinite() and allow_inf:
            return sympy.oo if value > 0 else -sympy.oo
        return decimal_to_rational(value)
    if isinstance(value, float):
        raise InputError(f"got the binary float {value!r}; write the number as text "
                         f"(\"{value!r}\") or as a Decimal")
    if isinstance(value, sympy.Basic):
        return value  # already exact (from the API)
    if isinstance(value, str):
        text = value.strip()
        low = text.lower()
        if low in _INF_WORDS:
            if not allow_inf:
                raise InputError(f"{text!r}: infinity is only allowed in a bias or as mask_value")
            return sympy.oo if _INF_WORDS[low] > 0 else -sympy.oo
        if low.strip("()+- ") in ("nan", "snan", "qnan"):
            raise InputError("NaN is not a number symattn can compute with")
        return parse_expression(text, names, allow_symbols)
    raise InputError(f"expected a number, got {type(value).__name__} {value!r}")
