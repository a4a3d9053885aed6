"""Binary floating-point formats: rounding to nearest-even, bit patterns and ULPs.

Four formats, each an IEEE-style binary format with subnormals:

========  ==============  =========  ======  ======
name      aliases         precision  emin    emax
========  ==============  =========  ======  ======
float64   fp64, f64       53         −1022   1023
float32   fp32, f32       24         −126    127
bfloat16  bf16            8          −126    127
float16   fp16, f16, half 11         −14     15
========  ==============  =========  ======  ======

Every value of these formats is a float64, so arrays of format values are held as
float64 arrays. Rounding is to nearest, ties to even, with gradual underflow and
overflow to ±inf (IEEE 754 ``roundTiesToEven``).

The ULP of x is ``2^(max(⌊log2|x|⌋, emin) − p + 1)``. The ULP *distance* between two
values of a format is the number of representable values between them, counted on
ordered bit patterns, as NumPy's ``assert_array_max_ulp`` counts it (+0 and −0 are
0 apart).

>>> f = FORMATS["bfloat16"]
>>> float(round_to(np.array([1 + 2**-8, 1 + 3 * 2**-8]), f)[0]), float(round_to(np.array([1 + 3 * 2**-8]), f)[0])
(1.0, 1.015625)
>>> round_dyadic(3, -1, FORMATS["float16"])   # 1.5 is representable
1.5
>>> int(ulp_distance(np.array([1.0]), np.array([1.0 + 2**-23]), FORMATS["float32"])[0])
1
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional

import numpy as np

from ..errors import SymattnError

__all__ = ["Format", "FORMATS", "parse_format", "round_to", "round_dyadic", "quantum_exponent",
           "to_bits", "from_bits", "ordered", "ulp_distance", "ulp", "as_dtype", "dyadic",
           "neighbors_midpoint", "round_rational"]


@dataclass(frozen=True)
class Format:
    """A binary floating-point format: precision ``p`` (with the hidden bit), exponent range."""

    name: str
    p: int
    emin: int
    emax: int
    bits: int

    @property
    def max(self) -> float:
        """The largest finite value."""
        return math.ldexp(2.0 - 2.0 ** (1 - self.p), self.emax)

    @property
    def tiny(self) -> float:
        """The smallest positive (subnormal) value."""
        return math.ldexp(1.0, self.emin - self.p + 1)

    def __str__(self) -> str:
        return self.name


FORMATS: dict[str, Format] = {
    "float64": Format("float64", 53, -1022, 1023, 64),
    "float32": Format("float32", 24, -126, 127, 32),
    "bfloat16": Format("bfloat16", 8, -126, 127, 16),
    "float16": Format("float16", 11, -14, 15, 16),
}

_ALIASES = {"fp64": "float64", "f64": "float64", "double": "float64",
            "fp32": "float32", "f32": "float32", "float": "float32", "single": "float32",
            "bf16": "bfloat16", "fp16": "float16", "f16": "float16", "half": "float16"}


def parse_format(name: str) -> Format:
    """A format by name or alias (``float32``, ``fp32``, ``torch.bfloat16``, ``bf16`` ...).

    >>> parse_format("torch.bfloat16").name
    'bfloat16'
    """
    key = str(name).strip().lower()
    for prefix in ("torch.", "np.", "numpy.", "jnp."):
        if key.startswith(prefix):
            key = key[len(prefix):]
    key = _ALIASES.get(key, key)
    if key not in FORMATS:
        raise SymattnError(f"unknown float format {name!r}: expected one of float64, float32, bfloat16, float16 "
                           "(or fp64, fp32, bf16, fp16)")
    return FORMATS[key]


def quantum_exponent(x: np.ndarray, fmt: Format) -> np.ndarray:
    """The exponent q with ulp(x) = 2^q in ``fmt``, elementwise (int64; x float64, finite).

    >>> quantum_exponent(np.array([1.0, 3.0, 0.0, 1e-300]), FORMATS["float32"]).tolist()
    [-23, -22, -149, -149]
    """
    ax = np.abs(x)
    _, e = np.frexp(ax)
    e = np.where(ax == 0, fmt.emin + 1, e.astype(np.int64))
    return np.maximum(e - 1, fmt.emin) - (fmt.p - 1)


def round_to(x: np.ndarray, fmt: Format) -> np.ndarray:
    """Round float64 values to ``fmt``, to nearest with ties to even (a float64 array of format values).

    Exact: x is scaled by a power of two (exact), rounded to an integer by ``np.rint``
    (ties to even) and scaled back (exact). Values at or past the overflow threshold
    become ±inf; NaN stays NaN; the sign of zero is kept.

    >>> round_to(np.array([65519.0, 65520.0, 2.0**-25, -2.0**-26]), FORMATS["float16"]).tolist()
    [65504.0, inf, 0.0, -0.0]
    """
    x = np.asarray(x, dtype=np.float64)
    if fmt.p == 53:
        return x.copy()
    finite = np.isfinite(x)
    xs = np.where(finite, x, 0.0)
    q = quantum_exponent(xs, fmt)
    y = np.ldexp(np.rint(np.ldexp(xs, -q)), q)
    y = np.where(np.abs(y) > fmt.max, np.copysign(np.inf, xs), y)
    return np.where(finite, y, x)


def round_dyadic(man: int, exp: int, fmt: Format) -> float:
    """Round the exact value ``man · 2^exp`` to ``fmt``, to nearest with ties to even (a Python float).

    Pure integer arithmetic: any size of ``man`` and ``exp``.

    >>> round_dyadic(2**24 + 1, 0, FORMATS["float32"]), round_dyadic(2**24 + 3, 0, FORMATS["float32"])
    (16777216.0, 16777220.0)
    >>> round_dyadic(-1, -2000, FORMATS["float64"])
    -0.0
    """
    if man == 0:
        return 0.0
    neg = man < 0
    a = -man if neg else man
    e_floor = a.bit_length() - 1 + exp
    q = max(e_floor, fmt.emin) - fmt.p + 1
    shift = q - exp
    if shift <= 0:
        n = a << -shift
    else:
        n = a >> shift
        rem = a - (n << shift)
        half = 1 << (shift - 1)
        if rem > half or (rem == half and n & 1):
            n += 1
    if n == 0:
        return -0.0 if neg else 0.0
    if n == 1 << fmt.p:  # rounded up into the next binade
        n, q = n >> 1, q + 1
    value = math.inf if q > fmt.emax - fmt.p + 1 else math.ldexp(n, q)
    return -value if neg else value


def round_rational(num: int, den: int, fmt: Format) -> float:
    """Round the exact rational ``num/den`` (den > 0) to ``fmt``, to nearest with ties to even.

    >>> round_rational(1, 10, FORMATS["float32"]) == float(np.float32(0.1))
    True
    >>> round_rational(1, 3, FORMATS["bfloat16"])
    0.333984375
    """
    if num == 0:
        return 0.0
    neg = num < 0
    a = -num if neg else num
    e = a.bit_length() - den.bit_length()
    if (a << max(0, -e)) < (den << max(0, e)):
        e -= 1                       # now 2^e ≤ a/den < 2^(e+1)
    q = max(e, fmt.emin) - fmt.p + 1
    n_num, n_den = (a << -q, den) if q < 0 else (a, den << q)
    n, rem = divmod(n_num, n_den)
    if 2 * rem > n_den or (2 * rem == n_den and n & 1):
        n += 1
    value = round_dyadic(n, q, fmt) if n else 0.0
    return -value if neg else value


def dyadic(x: float) -> tuple[int, int]:
    """A finite float as an exact ``(man, exp)`` with x = man · 2^exp.

    >>> dyadic(0.75), dyadic(-3.0), dyadic(0.0)
    ((3, -2), (-3, 0), (0, 0))
    """
    if x == 0:
        return 0, 0
    m, e = math.frexp(x)
    man = int(m * (1 << 53))
    exp = e - 53
    while man % 2 == 0:
        man //= 2
        exp += 1
    return man, exp


def neighbors_midpoint(lo: float, hi: float, fmt: Format) -> Optional[tuple[int, int]]:
    """The rounding boundary between two adjacent format values ``lo < hi`` as an exact dyadic.

    For RNE the boundary between adjacent values is their midpoint; between the largest
    finite value and inf it is ``max + ulp/2``; between −0 and +0 it is 0. ``None`` when
    the two are not adjacent (more than one boundary lies between them).

    >>> neighbors_midpoint(1.0, 1.0 + 2**-23, FORMATS["float32"])
    (16777217, -24)
    >>> neighbors_midpoint(-0.0, 0.0, FORMATS["float32"])
    (0, 0)
    """
    if lo == 0 and hi == 0:
        return (0, 0)
    if abs(int(ordered(np.array([hi]), fmt)[0]) - int(ordered(np.array([lo]), fmt)[0])) != 1:
        return None
    if math.isinf(hi) or math.isinf(lo):  # max + ulp(max)/2
        m = (1 << (fmt.p + 1)) - 1
        return (m if hi > 0 else -m, fmt.emax - fmt.p)
    a, ea = dyadic(lo)
    b, eb = dyadic(hi)
    e = min(ea, eb)
    s = (a << (ea - e)) + (b << (eb - e))
    return (s, e - 1)


_UINT = {64: np.uint64, 32: np.uint32, 16: np.uint16}


def to_bits(x: np.ndarray, fmt: Format) -> np.ndarray:
    """Bit patterns of format values held as float64 (unsigned ints of the format's width).

    >>> hex(int(to_bits(np.array([1.5]), FORMATS["bfloat16"])[0]))
    '0x3fc0'
    """
    x = np.asarray(x, dtype=np.float64)
    if fmt.name == "float64":
        return x.view(np.uint64).copy()
    if fmt.name == "float32":
        return x.astype(np.float32).view(np.uint32)
    if fmt.name == "float16":
        return x.astype(np.float16).view(np.uint16)
    # bfloat16: the value is exactly a float32 whose low 16 bits are zero (NaN payloads aside)
    b32 = x.astype(np.float32).view(np.uint32)
    return (b32 >> np.uint32(16)).astype(np.uint16)


def from_bits(bits: np.ndarray, fmt: Format) -> np.ndarray:
    """Format values (as float64) from their bit patterns.

    >>> from_bits(np.array([0x3fc0], dtype=np.uint16), FORMATS["bfloat16"]).tolist()
    [1.5]
    """
    bits = np.asarray(bits)
    if fmt.name == "float64":
        return bits.astype(np.uint64).view(np.float64).copy()
    if fmt.name == "float32":
        return bits.astype(np.uint32).view(np.float32).astype(np.float64)
    if fmt.name == "float16":
        return bits.astype(np.uint16).view(np.float16).astype(np.float64)
    return (bits.astype(np.uint32) << np.uint32(16)).view(np.float32).astype(np.float64)


def ordered(x: np.ndarray, fmt: Format) -> np.ndarray:
    """Bit patterns as ordered signed integers (int64): adjacent values differ by 1, ±0 ↦ 0.

    >>> ordered(np.array([-2.0**-149, -0.0, 0.0, 2.0**-149]), FORMATS["float32"]).tolist()
    [-1, 0, 0, 1]
    """
    b = to_bits(x, fmt).astype(np.uint64)
    sign = np.uint64(1) << np.uint64(fmt.bits - 1)
    mag = (b & (sign - np.uint64(1))).astype(np.int64) if fmt.bits < 64 else \
        (b & (sign - np.uint64(1))).view(np.int64)
    return np.where((b & sign) != 0, -mag, mag)


def ulp_distance(a: np.ndarray, b: np.ndarray, fmt: Format) -> np.ndarray:
    """Number of ``fmt`` values between ``a`` and ``b`` (both format values; float64 result).

    NaN where either is NaN. Two infinities of the same sign are 0 apart; an infinity is
    one step past the largest finite value.

    >>> ulp_distance(np.array([1.0, 0.0]), np.array([1.0 + 2**-7, -0.0]), FORMATS["bfloat16"]).tolist()
    [1.0, 0.0]
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    nan = np.isnan(a) | np.isnan(b)
    oa = ordered(np.where(nan, 0.0, a), fmt)
    ob = ordered(np.where(nan, 0.0, b), fmt)
    d = np.abs(oa - ob).astype(np.float64)
    return np.where(nan, np.nan, d)


def ulp(x: np.ndarray, fmt: Format) -> np.ndarray:
    """ulp(x) in ``fmt``: 2^(max(⌊log2|x|⌋, emin) − p + 1), elementwise (float64).

    >>> ulp(np.array([1.0, 0.0, 3.0]), FORMATS["float32"]).tolist() == [2.0**-23, 2.0**-149, 2.0**-22]
    True
    """
    x = np.asarray(x, dtype=np.float64)
    xs = np.where(np.isfinite(x), x, fmt.max)
    return np.ldexp(1.0, quantum_exponent(xs, fmt))


def as_dtype(values: np.ndarray, fmt: Format, *, bf16_as_uint16: bool = False) -> np.ndarray:
    """Format values (float64) as an array of the format's own dtype.

    bfloat16 becomes ``ml_dtypes.bfloat16`` (or its raw bits as uint16 with
    ``bf16_as_uint16=True``, or when ml_dtypes is not installed).
    """
    values = np.asarray(values, dtype=np.float64)
    if fmt.name == "float64":
        return values.copy()
    if fmt.name == "float32":
        return values.astype(np.float32)
    if fmt.name == "float16":
        return values.astype(np.float16)
    bits = to_bits(values, fmt)
    if bf16_as_uint16:
        return bits
    try:
        import ml_dtypes
    except ImportError:  # pragma: no cover - ml_dtypes is in the kernels extra
        return bits
    return bits.view(ml_dtypes.bfloat16)
