"""Exact values -> certified decimals, with ball arithmetic (python-flint ``arb``).

Every printed digit is proven: a value is enclosed in a ball, both ends of the
ball are rounded to the requested number of significant digits, and the digits
are printed only when both ends agree. Otherwise the working precision is
raised and the value enclosed again. Rounding is to nearest, ties away from
zero (as taught in school); a tie can only happen for an exactly rational
value, which is then rounded exactly.

>>> import sympy
>>> certified(sympy.exp(1), 30)
'2.71828182845904523536028747135'
>>> certified(sympy.Rational(1, 8), 2), certified(sympy.Rational(1, 3), 4)
('0.13', '0.3333')
>>> format_rational(Fraction(1339, 1000), 6)
'1.339'
"""

from __future__ import annotations

import math
from contextlib import contextmanager
from fractions import Fraction
from typing import Callable, Iterator, Sequence

import sympy
from flint import arb, ctx, fmpq, fmpz

from ..errors import CertificationError, LimitError, UndefinedValueError
from ..limits import MAX_DIGIT_WORK, MAX_DIGITS, MAX_PRECISION_BITS

__all__ = ["workprec", "to_arb", "format_rational", "is_exact_decimal", "decide", "enclosure", "certify", "certified",
           "check_digits", "initial_precision"]

_LOG10_2 = math.log10(2)


@contextmanager
def workprec(bits: int) -> Iterator[None]:
    """Run a block with python-flint's working precision set to ``bits``."""
    old = ctx.prec
    ctx.prec = bits
    try:
        yield
    finally:
        ctx.prec = old


def to_arb(expr: sympy.Expr, prec: int) -> arb:
    """Enclose a numeric SymPy expression (no free symbols) in an ``arb`` ball.

    Supports rationals, ``+ * ^``, ``exp``, ``log``, ``tanh``, ``sqrt``, ``sin``, ``cos``, ``Abs``, ``pi`` and ``E``.

    >>> to_arb(sympy.sqrt(2) / 2, 64).str(15, radius=False)
    '0.707106781186548'
    """
    with workprec(prec):
        return _to_arb(_as_basic(expr))


def _as_basic(x: object) -> sympy.Basic:
    if isinstance(x, sympy.Basic):
        return x
    if isinstance(x, int):
        return sympy.Integer(x)
    if isinstance(x, Fraction):
        return sympy.Rational(x.numerator, x.denominator)
    raise TypeError(f"expected a SymPy number, got {type(x).__name__}")


def _to_arb(e: sympy.Basic) -> arb:
    if e.is_Integer:
        return arb(int(e))
    if e.is_Rational:
        return arb(fmpq(int(e.p), int(e.q)))
    if e is sympy.pi:
        return arb.pi()
    if e is sympy.E:
        return arb(1).exp()
    if e.is_Add:
        total = arb(0)
        for a in e.args:
            total += _to_arb(a)
        return total
    if e.is_Mul:
        total = arb(1)
        for a in e.args:
            total *= _to_arb(a)
        return total
    if e.is_Pow:
        base, ex = e.args
        b = _to_arb(base)
        if ex.is_Integer:
            return b ** int(ex)
        if ex == sympy.Rational(1, 2):
            return b.sqrt()
        if ex == sympy.Rational(-1, 2):
            return b.rsqrt()
        if ex.is_Rational:
            return b ** arb(fmpq(int(ex.p), int(ex.q)))
        return (_to_arb(ex) * b.log()).exp()
    if isinstance(e, sympy.exp):
        return _to_arb(e.args[0]).exp()
    if isinstance(e, sympy.log):
        return _to_arb(e.args[0]).log()
    if isinstance(e, sympy.tanh):  # additive attention (Bahdanau): tanh = (e^{2x} − 1)/(e^{2x} + 1)
        return _to_arb(e.args[0]).tanh()
    if isinstance(e, sympy.sin):  # positional encodings and rotary angles
        return _to_arb(e.args[0]).sin()
    if isinstance(e, sympy.cos):
        return _to_arb(e.args[0]).cos()
    if isinstance(e, sympy.Abs):
        return abs(_to_arb(e.args[0]))
    raise CertificationError(f"cannot evaluate {e} numerically")


def check_digits(digits: int, entries: int = 1) -> None:
    """Refuse digit counts past the documented limits (:mod:`symattn.limits`)."""
    if not isinstance(digits, int) or digits < 1:
        raise LimitError(f"digits must be a whole number of at least 1, got {digits!r}")
    if digits > MAX_DIGITS:
        raise LimitError(f"{digits} digits is past the limit of {MAX_DIGITS}")
    if digits * entries > MAX_DIGIT_WORK:
        raise LimitError(f"{entries} entries at {digits} digits is past the work limit of "
                         f"{MAX_DIGIT_WORK} digits in one request; ask for fewer digits or steps")


def initial_precision(digits: int, count: int = 1) -> int:
    """Working precision (bits) for a first try at ``digits`` significant digits of
    ``count`` values: enough guard bits that sums of many terms rarely need a second try."""
    return int(digits / _LOG10_2) + 48 + 2 * max(count, 1).bit_length()


# --- exact rounding ---------------------------------------------------------------------
#
# Everything below works on integers of about ``digits`` decimal digits: a value's decimal
# exponent never becomes the size of an integer, so exp(-10**9) is as cheap to print as 0.5.


def _digits_of(n: int) -> str:
    """Decimal digits of a non-negative integer: Python's own below its 4,300-digit limit,
    python-flint's above it."""
    return str(n) if n.bit_length() < 14_000 else str(fmpz(n))


def _round_integer(n: int, digits: int) -> tuple[int, int]:
    """Round the positive integer ``n`` to ``digits`` significant digits, half away from zero.

    Returns ``(q, s)`` with ``10**(digits-1) <= q < 10**digits`` and n ≈ q · 10**s.
    """
    length = len(_digits_of(n))
    s = length - digits
    if s <= 0:
        return n * 10 ** (-s), s
    q = (n + 5 * 10 ** (s - 1)) // 10**s
    if q == 10**digits:  # 9.99…96 -> 10.0…0: the carry adds a digit
        q, s = q // 10, s + 1
    return q, s


def _round_sig(num: int, den: int, digits: int) -> tuple[int, int]:
    """Round the positive rational num/den to ``digits`` significant digits.

    Returns ``(q, E)`` with ``10**(digits-1) <= q < 10**digits`` and value ~ q * 10**(E-digits+1).
    """
    e10 = int(math.floor((num.bit_length() - den.bit_length()) * _LOG10_2))
    lo_bound, hi_bound = 10 ** (digits - 1), 10**digits
    for _ in range(8):
        k = digits - 1 - e10
        if k >= 0:
            n, d = num * 10**k, den
        else:
            n, d = num, den * 10 ** (-k)
        q = (2 * n + d) // (2 * d)  # half away from zero (values are positive)
        if q >= hi_bound:
            e10 += 1
        elif q < lo_bound:
            e10 -= 1
        else:
            return q, e10
    raise AssertionError("rounding did not settle")  # pragma: no cover


def _format(negative: bool, q: int | str, e10: int, sig: int, sci_from: int) -> str:
    """Format the significant digits ``q`` (an integer or its digits) with decimal exponent
    ``e10`` like ``%g``: scientific below 1e-4 or from ``sci_from`` digits before the point."""
    s = q if isinstance(q, str) else _digits_of(q)
    if e10 < -4 or e10 >= sci_from:
        body = s[0] + ("." + s[1:] if len(s) > 1 else "")
        text = f"{body}e{'-' if e10 < 0 else '+'}{abs(e10):02d}"
    elif e10 >= len(s) - 1:
        text = s + "0" * (e10 - len(s) + 1)
    elif e10 >= 0:
        text = s[: e10 + 1] + "." + s[e10 + 1 :]
    else:
        text = "0." + "0" * (-e10 - 1) + s
    return ("-" if negative else "") + text


def _terminating(value: Fraction) -> tuple[str, int] | None:
    """``(digits, e10)`` of a rational whose decimal expansion terminates (its digits without
    trailing zeros, and the decimal exponent of the first), else None."""
    num, den = abs(value.numerator), value.denominator
    twos = (den & -den).bit_length() - 1
    rest = den >> twos
    fives = 0
    if rest > 1:
        # rest divides 5**E for E large enough exactly when it is a power of 5
        fives = max(1, int(rest.bit_length() / math.log2(5)) + 1)
        if pow(5, fives, rest) != 0:
            return None
    k = max(twos, fives)
    n = num * 10**k // den
    text = _digits_of(n)
    return text.rstrip("0") or "0", len(text) - 1 - k


def is_exact_decimal(value: Fraction, digits: int) -> bool:
    """Whether :func:`format_rational` prints ``value`` exactly at ``digits`` digits (its
    decimal expansion terminates within ``digits`` significant digits).

    >>> is_exact_decimal(Fraction(1339, 1000), 6), is_exact_decimal(Fraction(1, 3), 6)
    (True, False)
    >>> is_exact_decimal(Fraction(1, 2**20), 6), is_exact_decimal(Fraction(1, 2**20), 20)
    (False, True)
    """
    if value == 0:
        return True
    t = _terminating(value)
    return t is not None and len(t[0]) <= digits


def format_rational(value: Fraction, digits: int) -> str:
    """Decimal text of an exact rational: exact when it terminates within ``digits``
    significant digits, else correctly rounded to ``digits``.

    >>> format_rational(Fraction(-1, 1024), 6), format_rational(Fraction(2, 3), 3)
    ('-0.000976563', '0.667')
    >>> format_rational(Fraction(250), 6), format_rational(Fraction(0), 6)
    ('250', '0')
    """
    if value == 0:
        return "0"
    t = _terminating(value)
    if t is not None and len(t[0]) <= digits:
        return _format(value < 0, t[0], t[1], len(t[0]), digits)
    q, e10 = _round_sig(abs(value.numerator), value.denominator, digits)
    return _format(value < 0, q, e10, digits, digits)


def decide(ball: arb, digits: int) -> str | None:
    """The ``digits``-significant-digit decimal of every point of ``ball``, or None
    when the ball straddles a rounding boundary, contains zero and is not zero, or is
    not finite.

    The ball is converted to a decimal enclosure [m ± r]·10^e by python-flint
    (``mid_rad_10exp``) with a few more digits than asked: its cost depends on ``digits``
    and on the size of the exponent's *digits*, never on the exponent itself.

    >>> decide(arb(fmpq(1, 3)), 5)
    '0.33333'
    >>> decide(arb(1, 1e-3), 6) is None
    True
    >>> with workprec(128):
    ...     decide(arb(-10**9).exp(), 6)
    '1.24953e-434294482'
    >>> with workprec(300):  # 1e-40 above the boundary 34.03125 of 6 digits: rounds up
    ...     decide(arb(fmpq(272250, 8000)) + arb(10) ** -40, 6), decide(arb(fmpq(272250, 8000)) - arb(10) ** -40, 6)
    ('34.0313', '34.0312')
    """
    if not ball.is_finite():
        return None
    if ball.is_zero():
        return "0"
    if ball.contains(0):
        return None
    got = _decide(ball, digits, digits + 4)
    more = int(ball.rel_accuracy_bits() * 0.30103)  # the decimal digits the ball itself resolves
    if got is None and more > digits + 4:
        # near a rounding boundary (34.03125 + 1e-40 at 6 digits): the few extra digits do not
        # separate it, the ball's own accuracy may
        got = _decide(ball, digits, more + 2)
    return got


def _decide(ball: arb, digits: int, extra: int) -> str | None:
    """:func:`decide` with the ball converted to ``extra`` decimal digits."""
    m, r, e = ball.mid_rad_10exp(extra)  # exact integers; no rounding at ctx.prec
    negative = m < 0
    mid, rad = (-int(m) if negative else int(m)), int(r)
    # the usual case: the few digits past the last one kept decide it, for both ends
    text = _digits_of(mid)
    s = len(text) - digits
    if s >= 1:
        unit = 10**s
        q, rest = divmod(mid, unit)
        lo_rest, hi_rest, half = rest - rad, rest + rad, unit // 2
        if 0 <= lo_rest and hi_rest < unit and (hi_rest < half or lo_rest >= half):
            sig: int | str = text[:digits]
            if lo_rest >= half:
                q += 1
                sig = q
                if q == 10**digits:  # 9.99…96 -> 10.0…0
                    sig, s = q // 10, s + 1
            return _format(negative, sig, int(e) + s + digits - 1, digits, digits)
    lo, hi = mid - rad, mid + rad
    if lo <= 0:
        return None
    q1, s1 = _round_integer(lo, digits)
    if hi != lo:
        # every point rounds to q1 when hi is still below q1's upper rounding boundary
        top = (2 * q1 + 1) * 10**s1 if s1 >= 0 else None
        if top is None or 2 * hi >= top:
            if _round_integer(hi, digits) != (q1, s1):
                return None
    return _format(negative, q1, int(e) + s1 + digits - 1, digits, digits)


def _outward(n: int, e: int, digits: int, up: bool) -> str:
    """n·10^e rounded to ``digits`` significant digits toward +inf (``up``) or -inf."""
    if n == 0:
        return "0"
    negative, a = n < 0, abs(n)
    s = len(_digits_of(a)) - digits
    if s <= 0:
        q = a * 10 ** (-s)
    else:
        q, rest = divmod(a, 10**s)
        if rest and up != negative:  # away from zero: up for a positive end, down for a negative one
            q += 1
            if q == 10**digits:
                q, s = q // 10, s + 1
    return _format(negative, q, e + s + digits - 1, digits, digits)


def enclosure(ball: arb, digits: int = 10) -> str:
    """The interval a ball proves, ``[lo, hi]``, its ends rounded outward to ``digits``
    significant digits (for a value whose digits or verdict could not be decided).

    >>> enclosure(arb(fmpq(1, 4), 1e-30), 6)
    '[0.249999, 0.250001]'
    >>> enclosure(arb(fmpq(-1, 3)), 4)
    '[-0.3334, -0.3333]'
    """
    if not ball.is_finite():
        return "[-inf, inf]"
    m, r, e = ball.mid_rad_10exp(digits + 4)
    lo, hi = int(m) - int(r), int(m) + int(r)
    return f"[{_outward(lo, int(e), digits, False)}, {_outward(hi, int(e), digits, True)}]"


def certify(
    count: int,
    digits: int,
    balls: Callable[[int], Sequence[arb]],
    rational: Callable[[int], Fraction | None],
    describe: Callable[[int], str] = str,
    zero: Callable[[int], bool] | None = None,
) -> list[str]:
    """Certified decimals of ``count`` values.

    ``balls(prec)`` encloses all values at working precision ``prec``;
    ``rational(k)`` returns value ``k`` exactly when it is a rational number
    (proven), else None; ``zero(k)`` proves value ``k`` exactly 0 (or says it cannot).
    The precision doubles until every value is decided, up to a bound.
    """
    check_digits(digits, count)
    out: list[str | None] = [None] * count
    pending = list(range(count))
    prec = initial_precision(digits, count)
    limit = min(MAX_PRECISION_BITS, max(16 * prec, 8192))
    tried_rational = tried_zero = False
    values: Sequence[arb] = []
    while pending:
        if prec > limit:
            k = pending[0]
            raise CertificationError(f"could not certify {digits} digits of {describe(k)} within {limit} bits of "
                                     f"precision: {_why_undecided(values[k] if values else None)}")
        values = balls(prec)
        still = []
        for k in pending:
            s = decide(values[k], digits)
            if s is None:
                still.append(k)
            else:
                out[k] = s
        pending = still
        if pending and not tried_rational:
            tried_rational = True
            still = []
            for k in pending:
                q = rational(k)
                if q is None:
                    still.append(k)
                else:
                    out[k] = format_rational(q, digits)
            pending = still
        elif pending and zero is not None and not tried_zero and prec >= 4 * initial_precision(digits, count):
            # balls still straddling 0 after raising the precision: try to prove an exact 0
            tried_zero = True
            still = []
            for k in pending:
                if values[k].contains(0) and zero(k):
                    out[k] = "0"
                else:
                    still.append(k)
            pending = still
        prec *= 2
    return out  # type: ignore[return-value]


def _why_undecided(ball: arb | None) -> str:
    """What the last enclosure of an undecided value says, for the error message."""
    if ball is None or not ball.is_finite():
        return ("its enclosure is not finite (a magnitude too extreme to resolve, such as "
                "exp(exp(x)) for a large x)")
    if ball.contains(0):
        return "its enclosure still contains 0 (it may be exactly 0, which symattn could not prove)"
    return "it lies on a rounding boundary (it may be an exact tie, which symattn could not prove)"


def certified(expr: sympy.Expr, digits: int = 6) -> str:
    """Certified decimal text of one numeric SymPy expression.

    >>> certified(sympy.pi, 20)
    '3.1415926535897932385'
    """
    expr = _as_basic(expr)
    if expr.is_Rational:
        return format_rational(Fraction(int(expr.p), int(expr.q)), digits)
    if expr is sympy.oo or expr is sympy.S.NegativeInfinity:
        return "inf" if expr is sympy.oo else "-inf"
    if expr.has(sympy.S.NaN, sympy.S.ComplexInfinity, sympy.oo, sympy.S.NegativeInfinity):
        raise UndefinedValueError(str(expr), "it is not a finite number (0/0, ∞ − ∞ or a division by zero)")
    return certify(1, digits, lambda p: [to_arb(expr, p)], lambda k: None, lambda k: str(expr))[0]
