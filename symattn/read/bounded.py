"""Bounded evaluation of what a user writes.

Every number or expression in a file (a string entry, a LaTeX entry, a scale, a
temperature, a claim) and every scalar of a formula is built through one
:class:`Evaluator`. Before it builds a sum, a product, a power or an exponential,
it estimates the size of the result and refuses past a documented limit
(:mod:`symattn.limits`) with an :class:`~symattn.errors.InputError`, instead of
building a number of a billion digits:

>>> ev = Evaluator()
>>> ev.power(ev.number(10), ev.number(3))
1000
>>> ev.power(ev.number(10), ev.number(301))
Traceback (most recent call last):
...
symattn.errors.InputError: the power would be about 10^301, past the limit of a decimal exponent within ±300
>>> ev.power(ev.number(1001, 1000), ev.number(10000))
Traceback (most recent call last):
...
symattn.errors.InputError: the power would be an exact number of about 60005 digits, past the limit of 30000 digits

Every value stays within the range of a number written in a file (a decimal exponent
within ±300). Irrational values carry a low-precision ball (python-flint ``arb``) that
bounds their magnitude, so a power or an exponential is refused from its size before it
is built, and a tower from its exponent:

>>> ev.power(ev.constant("pi"), ev.power(ev.constant("pi"), ev.power(ev.constant("pi"), ev.constant("pi"))))
Traceback (most recent call last):
...
symattn.errors.InputError: an exponent must be a rational number p/q with |p| ≤ 10000 and q ≤ 100; for e^x write exp(x)
>>> ev.apply("exp", ev.number(694))
Traceback (most recent call last):
...
symattn.errors.InputError: the exp would be about 10^301, past the limit of a decimal exponent within ±300
"""

from __future__ import annotations

import math
from typing import Any

import sympy
from flint import arb, ctx

from ..errors import InputError
from ..limits import MAX_EXACT_DIGITS, MAX_EXPONENT, MAX_POWER_NUMERATOR, MAX_ROOT

__all__ = ["Evaluator"]

_PREC = 64  # bits of the magnitude balls: enough to bound sizes, never printed
_LOG10_2 = math.log10(2)
_LOG10_E = math.log10(math.e)


def _int_digits(n: int) -> int:
    """Decimal digits of |n| (within one, from the bit length: no int-to-str conversion)."""
    n = abs(n)
    return 1 if n < 10 else int(math.log10(n)) + 1 if n.bit_length() < 1000 else int(n.bit_length() * _LOG10_2) + 1


def _digits(r: sympy.Rational) -> int:
    """Decimal digits of a rational: its numerator's, plus its denominator's when it has one."""
    q = int(r.q)
    return _int_digits(int(r.p)) + (_int_digits(q) if q != 1 else 0)


def _log10_size(r: sympy.Rational) -> float:
    """log10 of |numerator| plus log10 of the denominator: the digits of r^e are about e times this."""
    p, q = abs(int(r.p)), int(r.q)
    return (math.log10(p) if p > 1 else 0.0) + (math.log10(q) if q > 1 else 0.0)


def _log10_abs(r: sympy.Rational) -> float:
    """log10 |r| of a nonzero rational (math.log10 takes integers of any size)."""
    return math.log10(abs(int(r.p))) - math.log10(int(r.q))


def _float(b: arb) -> float:
    """The midpoint of a ball as a float (balls here stay within about 10^±700)."""
    return float(b.mid().str(20, radius=False).replace("e", "E")) if b.is_finite() else math.inf


def _coeff_digits(x: sympy.Expr) -> int:
    """Bits of the rational coefficient of a value (all of it for a rational)."""
    if x.is_Rational:
        return _digits(x)  # type: ignore[arg-type]
    c = x.as_coeff_Mul()[0] if isinstance(x, (sympy.Mul, sympy.Pow, sympy.Symbol, sympy.Function)) else None
    return _digits(c) if c is not None and c.is_Rational else 0  # type: ignore[arg-type]


class Evaluator:
    """Builds exact SymPy values from a user's text, refusing results past the limits.

    Each method takes and returns SymPy expressions; ``column`` (1-based, optional)
    locates the operator in the text for error messages. Values built here carry a
    magnitude ball (None for symbolic values).
    """

    def __init__(self) -> None:
        self._balls: dict[sympy.Expr, arb | None] = {}

    # -- leaves --
    def number(self, p: int, q: int = 1) -> sympy.Expr:
        """An exact rational p/q (q ≠ 0)."""
        if q == 0:
            raise InputError("division by zero")
        r = sympy.Rational(p, q)
        self._check_digits(_digits(r), "number")
        return r

    def constant(self, name: str) -> sympy.Expr:
        """``pi`` or ``e``."""
        if name == "pi":
            return self._keep(sympy.pi, arb.pi())
        if name == "e":
            return self._keep(sympy.E, arb(1).exp())
        raise InputError(f"unknown constant {name!r}")  # pragma: no cover - callers pass pi or e

    def symbol(self, s: sympy.Symbol) -> sympy.Expr:
        """A symbol (its magnitude is unknown)."""
        self._balls[s] = None
        return s

    def value(self, x: sympy.Expr) -> sympy.Expr:
        """An already-built value (from the API or an earlier evaluation), measured."""
        if x.is_Rational:
            self._check_digits(_digits(x), "number")  # type: ignore[arg-type]
        self.ball(x)
        return x

    # -- operations --
    def add(self, a: sympy.Expr, b: sympy.Expr, column: int | None = None) -> sympy.Expr:
        if a.is_Rational and b.is_Rational:
            self._check_digits(_digits(a) + _digits(b) + 1, "sum", column)  # type: ignore[arg-type]
        return self._result(a + b, self._op(a, b, lambda x, y: x + y), column)

    def sub(self, a: sympy.Expr, b: sympy.Expr, column: int | None = None) -> sympy.Expr:
        return self.add(a, self.neg(b), column)

    def neg(self, a: sympy.Expr) -> sympy.Expr:
        ba = self.ball(a)
        return self._keep(-a, None if ba is None else -ba)

    def mul(self, a: sympy.Expr, b: sympy.Expr, column: int | None = None) -> sympy.Expr:
        self._check_digits(_coeff_digits(a) + _coeff_digits(b), "product", column)
        return self._result(a * b, self._op(a, b, lambda x, y: x * y), column)

    def div(self, a: sympy.Expr, b: sympy.Expr, column: int | None = None) -> sympy.Expr:
        self._nonzero(b, column)
        if a.is_Rational and b.is_Rational:
            self._check_digits(_digits(a) + _digits(b), "quotient", column)  # type: ignore[arg-type]
        return self._result(a / b, self._op(a, b, lambda x, y: x / y), column)

    def power(self, base: sympy.Expr, exponent: sympy.Expr, column: int | None = None) -> sympy.Expr:
        """base^exponent: the exponent is a bounded rational (e^x is exp(x))."""
        if base == sympy.E:
            return self.apply("exp", exponent, column)
        if not exponent.is_Rational:
            raise InputError(f"an exponent must be a rational number p/q with |p| ≤ {MAX_POWER_NUMERATOR} and "
                             f"q ≤ {MAX_ROOT}; for e^x write exp(x)", column)
        p, q = int(exponent.p), int(exponent.q)  # type: ignore[attr-defined]
        if abs(p) > MAX_POWER_NUMERATOR or q > MAX_ROOT:
            raise InputError(f"an exponent must be a rational number p/q with |p| ≤ {MAX_POWER_NUMERATOR} and "
                             f"q ≤ {MAX_ROOT}; got one of about {_digits(exponent)} digits"
                             if _digits(exponent) > 20 else
                             f"an exponent must be a rational number p/q with |p| ≤ {MAX_POWER_NUMERATOR} and "
                             f"q ≤ {MAX_ROOT}, got {exponent}", column)
        if base == 0 and p < 0:
            raise InputError("division by zero", column)
        c = base if base.is_Rational else base.as_coeff_Mul()[0] if not base.free_symbols else sympy.Integer(1)
        if c.is_Rational:
            self._check_digits(int(_log10_size(c) * abs(p)) + 1, "power", column)  # type: ignore[arg-type]
        bb = self.ball(base)
        if q > 1 and not base.free_symbols:
            if base.is_negative or (bb is not None and bb < 0):
                raise InputError(f"a negative number to the power {exponent} is not a real number", column)
        ball = None
        if base.is_Rational and base != 0:
            self._check_log10(_log10_abs(base) * p / q, "power", column)  # type: ignore[arg-type]
        elif bb is not None and not bb.contains(0):
            with _prec():
                self._check_log10(_float(abs(bb).log()) / math.log(10) * p / q, "power", column)
        if bb is not None:
            with _prec():
                ball = bb ** arb(p) if q == 1 else (bb ** arb(p)).root(q) if not bb.contains(0) or p > 0 \
                    else None
        return self._result(base**exponent, ball, column)

    def apply(self, name: str, arg: sympy.Expr, column: int | None = None) -> sympy.Expr:
        """``sqrt``, ``exp``, ``log`` (= ``ln``) of a value."""
        if name == "sqrt":
            return self.power(arg, sympy.Rational(1, 2), column)
        ba = self.ball(arg)
        if name == "exp":
            ball = None
            if ba is not None:
                with _prec():
                    x = _float(ba)
                    self._check_log10(x * _LOG10_E, "exp", column)  # before exp is built
                    ball = ba.exp()
            return self._result(sympy.exp(arg), ball, column)
        if name in ("log", "ln"):
            if not arg.free_symbols:
                if arg == 0:
                    raise InputError("log of 0 is -infinity, not a number", column)
                positive = arg.is_positive
                if positive is None and ba is not None:
                    positive = True if ba > 0 else False if ba <= 0 else None
                if positive is False:
                    raise InputError("log of a number that is not positive", column)
                if positive is None:
                    raise InputError("cannot tell whether the argument of log is positive", column)
            ball = None
            if ba is not None:
                with _prec():
                    ball = ba.log() if ba > 0 else None
            return self._result(sympy.log(arg), ball, column)
        raise InputError(f"unknown function {name!r}", column)  # pragma: no cover - callers whitelist

    # -- measuring --
    def ball(self, x: sympy.Expr) -> arb | None:
        """A 64-bit enclosure of a numeric value (None with symbols), computed once."""
        if x in self._balls:
            return self._balls[x]
        ball = _ball_of(x)
        self._balls[x] = ball
        return ball

    def _keep(self, x: sympy.Expr, ball: arb | None) -> sympy.Expr:
        self._balls[x] = ball
        return x

    def _op(self, a: sympy.Expr, b: sympy.Expr, f: Any) -> arb | None:
        ba, bb = self.ball(a), self.ball(b)
        if ba is None or bb is None:
            return None
        with _prec():
            return f(ba, bb)

    def _result(self, x: sympy.Expr, ball: arb | None, column: int | None) -> sympy.Expr:
        if x.has(sympy.nan, sympy.zoo) or x.is_infinite:
            raise InputError("the value is undefined (a division by zero or an infinite result)", column)
        self._check_digits(_coeff_digits(x), "result", column)
        if x.is_Rational:
            if x != 0:
                self._check_log10(_log10_abs(x), "value", column)  # type: ignore[arg-type]
        elif ball is not None:
            self._check_magnitude(ball, column)
        return self._keep(x, ball)

    def _nonzero(self, b: sympy.Expr, column: int | None) -> None:
        if b == 0:
            raise InputError("division by zero", column)
        if b.free_symbols or b.is_Rational:
            return
        z = b.is_zero
        if z:
            raise InputError("division by zero", column)
        if z is None:
            bb = self.ball(b)
            if bb is not None and bb.contains(0):
                raise InputError("cannot tell whether the divisor is zero", column)

    @staticmethod
    def _check_digits(digits: int, what: str, column: int | None = None) -> None:
        if digits > MAX_EXACT_DIGITS:
            raise InputError(f"the {what} would be an exact number of about {digits} digits, "
                             f"past the limit of {MAX_EXACT_DIGITS} digits", column)

    @staticmethod
    def _check_magnitude(ball: arb, column: int | None) -> None:
        with _prec():
            if not ball.is_finite():
                raise InputError(f"the value is beyond 10^{MAX_EXPONENT} in size", column)
            if ball.contains(0):
                return
            Evaluator._check_log10(_float(abs(ball).log()) / math.log(10), "value", column)

    @staticmethod
    def _check_log10(log10: float, what: str, column: int | None) -> None:
        """Values a user writes lie within the range of a number written in a file:
        10^-300 ≤ |x| < 10^301 (a decimal exponent within ±300)."""
        if not (-MAX_EXPONENT <= math.floor(log10) <= MAX_EXPONENT):
            size = f"about 10^{math.floor(log10)}" if abs(log10) < 1e15 else "astronomically " + (
                "large" if log10 > 0 else "small")
            raise InputError(f"the {what} would be {size}, past the limit of a decimal exponent within "
                             f"±{MAX_EXPONENT}", column)


class _prec:
    """Run a block at the magnitude balls' precision, restoring python-flint's precision."""

    def __enter__(self) -> None:
        self.saved = ctx.prec
        ctx.prec = _PREC

    def __exit__(self, *exc: object) -> None:
        ctx.prec = self.saved


def _ball_of(x: sympy.Expr) -> arb | None:
    """An enclosure of an expression built only of rationals, pi, E, +, ×, powers, exp and log
    (None when it has symbols or anything else). Iterative, so deep trees cannot recurse."""
    if x.free_symbols:
        return None
    with _prec():
        stack: list[tuple[sympy.Expr, bool]] = [(x, False)]
        done: dict[sympy.Expr, arb | None] = {}
        while stack:
            node, ready = stack.pop()
            if node in done:
                continue
            if not ready and node.args and not node.is_Rational:
                stack.append((node, True))
                stack.extend((a, False) for a in node.args if a not in done)
                continue
            done[node] = _ball_node(node, [done.get(a) for a in node.args])
        return done[x]


def _ball_node(node: sympy.Expr, args: list[arb | None]) -> arb | None:
    if node.is_Rational:
        return arb(int(node.p)) / arb(int(node.q))  # type: ignore[attr-defined]
    if node == sympy.pi:
        return arb.pi()
    if node == sympy.E:
        return arb(1).exp()
    if any(a is None for a in args):
        return None
    if isinstance(node, sympy.Add):
        out = arb(0)
        for a in args:
            out += a  # type: ignore[operator]
        return out
    if isinstance(node, sympy.Mul):
        out = arb(1)
        for a in args:
            out *= a  # type: ignore[operator]
        return out
    if isinstance(node, sympy.Pow) and node.exp.is_Rational:
        b, e = args[0], node.exp
        assert b is not None
        if b.contains(0) and e < 0:  # type: ignore[operator]
            return None
        r = b ** arb(int(e.p))  # type: ignore[attr-defined]
        return r if e.q == 1 else r.root(int(e.q))  # type: ignore[attr-defined]
    if isinstance(node, sympy.exp):
        return args[0].exp()  # type: ignore[union-attr]
    if isinstance(node, sympy.log) and len(args) == 1:
        return args[0].log() if args[0] > 0 else None  # type: ignore[operator, union-attr]
    return None
