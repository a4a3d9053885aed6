"""Float formats: rounding to nearest-even against NumPy's own conversions and exact rational
arithmetic, ULP distances against NumPy's nulp_diff, bit patterns, and the fast path's exponential
and split products against their proven bounds."""

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from symattn.exact import reference_fast as rf
from symattn.exact.floats import (FORMATS, from_bits, neighbors_midpoint, ordered, round_dyadic, round_rational,
                                  round_to, to_bits, ulp, ulp_distance)


def _random_doubles(rng, n):
    """Doubles across the whole range, including float32/float16 subnormal and overflow regions."""
    bits = rng.integers(0, 2 ** 63, n, dtype=np.int64).astype(np.uint64)
    x = bits.view(np.float64)
    x = x[np.isfinite(x)]
    scaled = np.ldexp(rng.uniform(0.5, 1.0, n) * rng.choice([-1, 1], n), rng.integers(-160, 140, n))
    near = np.ldexp(rng.integers(2 ** 23, 2 ** 24, n) + 0.5, rng.integers(-160, 110, n) - 23)  # fp32 midpoints
    return np.concatenate([x, scaled, near, [0.0, -0.0, 65519.0, 65520.0, 3.4028235677973366e38, 2.0 ** -150,
                                          -2.0 ** -150, 2.0 ** -25, 2.0 ** -24 * 1.5]])


def test_round_to_float32_and_float16_match_numpy_casts():
    rng = np.random.default_rng(0)
    x = _random_doubles(rng, 20000)
    for fmt, dt in (("float32", np.float32), ("float16", np.float16)):
        with np.errstate(over="ignore"):
            want = x.astype(dt).astype(np.float64)
        got = round_to(x, FORMATS[fmt])
        assert np.array_equal(got.view(np.uint64), want.view(np.uint64)), fmt


def _exact_round(x: Fraction, p, emin, emax):
    """Nearest-even rounding by exhaustive rational arithmetic (the specification, slowly)."""
    if x == 0:
        return 0.0
    a = abs(x)
    e = math.floor(math.log2(a)) if a.numerator.bit_length() < 2000 else None
    while Fraction(2) ** e > a:
        e -= 1
    while Fraction(2) ** (e + 1) <= a:
        e += 1
    q = max(e, emin) - p + 1
    n = a / Fraction(2) ** q
    fl = n.numerator // n.denominator
    r = n - fl
    if r > Fraction(1, 2) or (r == Fraction(1, 2) and fl % 2):
        fl += 1
    val = Fraction(fl) * Fraction(2) ** q
    if val > (2 - Fraction(2) ** (1 - p)) * Fraction(2) ** emax:
        return math.copysign(math.inf, x)
    return math.copysign(float(val), x) if val else math.copysign(0.0, x)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.integers(-(2 ** 80), 2 ** 80), st.integers(-200, 120), st.sampled_from(list(FORMATS)))
def test_round_dyadic_is_nearest_even(man, exp, fmt):
    f = FORMATS[fmt]
    want = _exact_round(Fraction(man) * Fraction(2) ** exp, f.p, f.emin, f.emax)
    got = round_dyadic(man, exp, f)
    assert got == want and math.copysign(1, got) == math.copysign(1, want)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.integers(-(2 ** 60), 2 ** 60), st.integers(1, 2 ** 60), st.sampled_from(list(FORMATS)))
def test_round_rational_is_nearest_even(num, den, fmt):
    f = FORMATS[fmt]
    assert round_rational(num, den, f) == _exact_round(Fraction(num, den), f.p, f.emin, f.emax)


def test_bfloat16_rounding_matches_the_definition():
    rng = np.random.default_rng(1)
    x = _random_doubles(rng, 3000)
    f = FORMATS["bfloat16"]
    got = round_to(x, f)
    for xi, gi in zip(x.tolist(), got.tolist()):
        want = _exact_round(Fraction(xi), f.p, f.emin, f.emax)
        assert gi == want or (math.isnan(gi) and math.isnan(want))


def test_ulp_distance_matches_numpy_nulp_diff():
    from numpy.testing import assert_array_max_ulp

    rng = np.random.default_rng(2)
    a = rng.standard_normal(2000).astype(np.float32)
    b = (a + rng.integers(-40, 40, 2000) * np.spacing(a)).astype(np.float32)
    d = ulp_distance(a.astype(np.float64), b.astype(np.float64), FORMATS["float32"])
    from numpy.testing._private.utils import nulp_diff

    assert np.array_equal(d, nulp_diff(a, b).astype(np.float64).reshape(-1))
    assert_array_max_ulp(a, b, maxulp=int(d.max()))
    # across zero and the sign of zero
    f = FORMATS["float32"]
    assert ulp_distance(np.array([-2.0 ** -149, -0.0]), np.array([2.0 ** -149, 0.0]), f).tolist() == [2.0, 0.0]


def test_bits_round_trip_and_order():
    rng = np.random.default_rng(3)
    for name, f in FORMATS.items():
        vals = round_to(rng.standard_normal(500) * 100, f)
        assert np.array_equal(from_bits(to_bits(vals, f), f), vals)
        order = np.argsort(vals, kind="stable")
        assert np.all(np.diff(ordered(vals[order], f)) >= 0)
    assert hex(int(to_bits(np.array([1.0]), FORMATS["bfloat16"])[0])) == "0x3f80"


def test_midpoints_between_neighbours():
    f = FORMATS["float16"]
    assert neighbors_midpoint(1.0, 1.0 + 2 ** -10, f) == (2 ** 11 + 1, -11)
    assert neighbors_midpoint(65504.0, math.inf, f) == ((1 << 12) - 1, 4)   # 65520: the overflow threshold
    assert neighbors_midpoint(1.0, 1.0 + 2 ** -9, f) is None
    assert float(ulp(np.array([65504.0]), f)[0]) == 32.0


def test_the_exponential_is_within_its_proven_bound():
    import mpmath

    rng = np.random.default_rng(4)
    x = np.concatenate([-rng.exponential(5, 3000), -rng.uniform(0, 745.2, 3000), [0.0, -745.13, -745.2, -1e-300]])
    y = rf.exp_nonpos(x.copy())
    with mpmath.workprec(200):
        for xi, yi in zip(x.tolist(), y.tolist()):
            t = mpmath.exp(mpmath.mpf(xi))
            assert abs(mpmath.mpf(yi) - t) <= rf.EXP_RHO * t + mpmath.mpf(2) ** -1074
    assert rf.exp_nonpos(np.array([0.0, -800.0])).tolist() == [1.0, 0.0]
    assert 2.0 ** -52 < rf.EXP_RHO < 2.0 ** -49


@pytest.mark.parametrize("dt", [np.float64, np.float32, np.float16])
def test_split_products_are_within_their_bound(dt):
    rng = np.random.default_rng(5)
    q = rng.standard_normal((20, 64)).astype(dt).astype(np.float64)
    k = (rng.standard_normal((50, 64)) * np.exp(rng.uniform(-8, 8, (50, 1)))).astype(dt).astype(np.float64)
    q[3, 7] = 1e-30 if dt is not np.float16 else 1e-7
    s, err = rf.side_product(q, rf.make_side(k))
    exact = [[sum(Fraction(a) * Fraction(b) for a, b in zip(qr, kr)) for kr in k.tolist()] for qr in q.tolist()]
    for i in range(q.shape[0]):
        worst = max(abs(Fraction(s[i, j]) - exact[i][j]) for j in range(k.shape[0]))
        assert worst <= Fraction(err[i])
    # and the bound is tight: about one rounding of the largest score
    assert np.median(err / np.abs(s).max(axis=1)) < 2 ** -52


def test_decisions_are_bit_exact_and_never_wrong():
    f = FORMATS["float32"]
    v = np.array([1.0 + 2 ** -24, 1.0 + 2 ** -24 + 2 ** -40, -2.0 ** -151])
    vals, ok = rf.decide(v, np.array([0.0, 2.0 ** -45, 2.0 ** -152]), f)
    assert ok.tolist() == [False, True, True]         # an exact midpoint can never be decided by a bound
    assert vals[1] == 1.0 + 2 ** -23 and vals[2] == 0 and np.signbit(vals[2])    # all of [−3, −1]·2^-152 → −0
    tiny = np.array([2.0 ** -160])
    vals, ok = rf.decide(tiny, np.array([2.0 ** -155]), f)
    assert ok.tolist() == [False]                     # the enclosure crosses zero: the sign is undecided
    vals, ok = rf.decide(tiny, np.array([2.0 ** -155]), f, zero_sign=False)
    assert ok.tolist() == [True] and vals.tolist() == [0.0]


def test_the_double_float_exponential_is_within_its_proven_bound():
    import mpmath

    from symattn.exact import reference_dd as dd

    rng = np.random.default_rng(6)
    xh = np.concatenate([-rng.exponential(4, 2000), -rng.uniform(0, 700, 1000), [0.0, -699.99, 0.4, -1e-300]])
    xl = rng.uniform(-0.5, 0.5, xh.size) * np.spacing(np.abs(xh) + 1e-300)
    h, lo = dd.dd_exp(xh, xl)
    with mpmath.workprec(300):
        for a, b, c, e in zip(xh.tolist(), xl.tolist(), h.tolist(), lo.tolist()):
            t = mpmath.exp(mpmath.mpf(a) + mpmath.mpf(b))
            assert abs(mpmath.mpf(c) + mpmath.mpf(e) - t) <= dd.DD_EXP_RHO * t + mpmath.mpf(2) ** -1000
    assert 2.0 ** -75 < dd.DD_EXP_RHO < 2.0 ** -66
    s, e = dd.two_sum(np.array([1.0]), np.array([2.0 ** -60]))
    assert s[0] == 1.0 and e[0] == 2.0 ** -60
    p, e = dd.two_prod(np.array([1.0 + 2.0 ** -30]), np.array([1.0 + 2.0 ** -30]))
    assert p[0] + 0 == 1.0 + 2.0 ** -29 and e[0] == 2.0 ** -60


@pytest.mark.parametrize("case", ["float32 scale", "1/sqrt(d) as a double-float", "float64 inputs", "tiny entries"])
def test_double_float_scores_are_within_their_bound_on_both_routes(case):
    """τ·q·kᵀ in the double-float tier, against exact rational products: the route that folds an
    exactly representable τ·q into the split product, and the TwoProd route it falls back to
    (τ with a low part, products that do not fit a double, entries near underflow)."""
    from symattn.exact import reference_dd as dd

    rng = np.random.default_rng(11)
    q = rng.standard_normal((6, 16)).astype(np.float32).astype(np.float64)
    k = rng.standard_normal((9, 16)).astype(np.float32).astype(np.float64)
    tau_h, tau_l = float(np.float32(0.25 * 1.1)), 0.0
    if case == "1/sqrt(d) as a double-float":
        tau_h, tau_l = 0.25, 2.0 ** -58
    elif case == "float64 inputs":
        q = rng.standard_normal((6, 16))
        tau_h = 0.1
    elif case == "tiny entries":
        q[0, 3] = 2.0 ** -1000
    folded = dd._scaled_exactly(q, tau_h, tau_l) is not None
    assert folded == (case == "float32 scale")
    kside = rf.make_side(k)
    xh, xl, err = dd.dd_scores(q, kside, tau_h, tau_l, None, None, None, None)
    ref = dd.dd_scores.last_ref
    tau = Fraction(tau_h) + Fraction(tau_l)
    for i in range(q.shape[0]):
        for j in range(k.shape[0]):
            exact = tau * sum(Fraction(a) * Fraction(b) for a, b in zip(q[i].tolist(), k[j].tolist()))
            got = Fraction(xh[i, j]) + Fraction(xl[i, j]) + Fraction(ref[i])
            assert abs(got - exact) <= Fraction(err[i]), (case, i, j)
    assert float(err.max()) < 2.0 ** -60            # the tier is meant to be about 2⁻⁶⁰ of the scale or better


def test_double_float_matmul_over_a_long_row_is_within_its_bound_and_far_below_float64():
    """dd_matmul over an inner length of 4096 (a whole row of keys, as the dQ and O tiers use it),
    against exact rational dot products; with cancellation (terms of both signs summing near 0) its
    bound must stay about 2⁻⁵⁷ of max|a|·max|r|, far below float64's 2⁻⁴⁰ or so at this length."""
    from symattn.exact import reference_dd as dd

    rng = np.random.default_rng(12)
    n = 4096
    ah = rng.standard_normal((3, n)) * np.exp(rng.uniform(-3, 0, (3, n)))
    al = ah * rng.uniform(-1, 1, (3, n)) * 2.0 ** -54
    a_err = np.abs(ah) * 2.0 ** -70
    r = rng.standard_normal((n, 4)).astype(np.float32).astype(np.float64)
    h, lo, err = dd.dd_matmul(ah, al, a_err, r)
    for i in range(3):
        for c in range(4):
            exact = sum(Fraction(x) * Fraction(y) for x, y in zip(ah[i].tolist(), r[:, c].tolist())) \
                + sum(Fraction(x) * Fraction(y) for x, y in zip(al[i].tolist(), r[:, c].tolist()))
            got = Fraction(h[i, c]) + Fraction(lo[i, c])
            assert abs(got - exact) <= Fraction(err[i, c])
    scale = np.abs(ah).max() * np.abs(r).max()
    assert float((err - np.abs(a_err) @ np.abs(r)).max()) < 2.0 ** -55 * scale


def _dd_pairs(rng, shape, spread):
    """Normalised double-float pairs (|lo| ≤ u|hi|) with magnitudes spread over 2^±spread."""
    hi = rng.standard_normal(shape) * np.exp2(rng.uniform(-spread, spread, shape))
    lo = hi * rng.uniform(-1, 1, shape) * 2.0 ** -53
    hi, lo = hi + lo, (hi - (hi + lo)) + lo      # Fast2Sum: a normalised pair
    return hi, lo


@pytest.mark.parametrize("case", ["random", "cancelling", "one term", "near underflow", "huge and tiny"])
def test_quantized_row_sums_and_dots_are_within_their_bound(case):
    """dd_rowsum (exact sums of the high parts rounded to one quantum per row) and dd_rowdot
    (TwoProd then those sums), against exact rational sums; the bound must hold on rows that
    cancel to almost nothing, a single term, entries near underflow and rows spanning 2^±600, and
    stay about 2⁻⁶⁰ of the sum of magnitudes on ordinary rows."""
    from symattn.exact import reference_dd as dd

    rng = np.random.default_rng(21)
    R, m = 5, 700
    ah, al = _dd_pairs(rng, (R, m), 3)
    bh, bl = _dd_pairs(rng, (R, m), 3)
    if case == "cancelling":
        ah[:, m // 2:] = -ah[:, :m // 2] * (1 + 2.0 ** -50)
        al[:, m // 2:] = -al[:, :m // 2]
        bh[:] = 1.0
        bl[:] = 0.0
    elif case == "one term":
        ah, al, bh, bl = ah[:, :1], al[:, :1], bh[:, :1], bl[:, :1]
    elif case == "near underflow":
        ah *= 2.0 ** -1000
        al *= 2.0 ** -1000
    elif case == "huge and tiny":
        ah *= np.exp2(rng.integers(-600, 600, ah.shape))
        al = np.zeros_like(ah)
    sh, sl, err = dd.dd_rowsum(ah, al)
    th, tl, terr, tabs = dd.dd_rowdot(ah, al, bh, bl)
    for i in range(ah.shape[0]):
        A = [Fraction(x) + Fraction(y) for x, y in zip(ah[i].tolist(), al[i].tolist())]
        B = [Fraction(x) + Fraction(y) for x, y in zip(bh[i].tolist(), bl[i].tolist())]
        exact = sum(A)
        assert abs(Fraction(sh[i]) + Fraction(sl[i]) - exact) <= Fraction(err[i]), (case, i)
        dot = sum(a * b for a, b in zip(A, B))
        assert abs(Fraction(th[i]) + Fraction(tl[i]) - dot) <= Fraction(terr[i]), (case, i)
        assert Fraction(tabs[i]) >= sum(abs(Fraction(x) * Fraction(y)) for x, y in zip(ah[i].tolist(), bh[i].tolist()))
        if case in ("random", "cancelling"):
            mag = float(np.abs(ah[i]).sum())
            assert err[i] < 2.0 ** -60 * mag and terr[i] < 2.0 ** -60 * float(np.abs(ah[i] * bh[i]).sum())
    assert np.all(np.isfinite(err)) and np.all(np.isfinite(terr))


@pytest.mark.parametrize("case", ["random", "float32 subnormals", "mixed magnitudes", "zeros and exact"])
def test_float32_products_give_upper_bounds_of_the_exact_products(case):
    """upper_from32 (the fast backward's bound and scale products in float32) against exact rational
    products of the float64 matrices: never below, and within about m·2⁻²³ above on ordinary data
    (the worst-case rounding of a float32 sum of m terms, a bound on a bound, so harmless);
    entries that round to float32 subnormals or flush to zero are covered by the absolute term."""
    rng = np.random.default_rng(31)
    m = 4096 if case == "random" else 300
    a = rng.random((3, m)) * np.exp2(rng.uniform(-8, 0, (3, m)))
    b = rng.random((m, 2)) * 4
    if case == "float32 subnormals":
        a = a * 2.0 ** -135                       # below float32's normal range (2⁻¹²⁶)
        a[0, :5] = 2.0 ** -160                     # below its subnormals: round to 0
    elif case == "mixed magnitudes":
        a = a * np.exp2(rng.integers(-60, 30, a.shape))
        b = b * np.exp2(rng.integers(-30, 9, b.shape))
    elif case == "zeros and exact":
        a[:, ::2] = 0.0
        a = np.round(a * 64) / 64
        b = np.round(b * 8) / 8
    amax, bmax = float(a.max()), float(b.max())
    assert rf.use_float32(m, amax, bmax)
    up = rf.upper_from32(a.astype(np.float32) @ b.astype(np.float32), m, amax, bmax)
    for i in range(a.shape[0]):
        for c in range(b.shape[1]):
            exact = sum(Fraction(x) * Fraction(y) for x, y in zip(a[i].tolist(), b[:, c].tolist()))
            assert Fraction(float(up[i, c])) >= exact, (case, i, c)
            if case in ("random", "zeros and exact"):
                assert float(up[i, c]) <= float(exact) * (1 + m * 2.0 ** -23) + 1e-30
    assert not rf.use_float32(m, 2.0 ** 50, 1.0) and not rf.use_float32(1 << 20, 1.0, 1.0)
    assert not rf.use_float32(m, float("inf"), 1.0) and not rf.use_float32(m, float("nan"), 1.0)
