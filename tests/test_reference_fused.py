"""The float32/float64 backward's fused row pass (the double-float row statistics made with the
fast path) and the dK/dV pass on the undecided key columns only, against mpmath at 400 bits
(tests/kernel_oracle.py, written independently of symattn) and against the unfused passes.

The crafted inputs put dK and dV entries 2⁻⁵⁰ (relative) from a float32 rounding midpoint: the
float64 fast path's enclosures (about 2⁻⁴⁷ of the scale) cannot decide them, so they go through
the column pass; on the midpoint itself no enclosure of width > 0 decides, and the entry must go
on to ball arithmetic."""

import math

import numpy as np
import pytest

import symattn as sa
from symattn.exact import reference as ref_mod

from kernel_oracle import attention, round_to


def f64(a):
    return np.asarray(a).astype(np.float64)


def crafted(delta):
    """Three query rows, two keys with equal scores (P = 1/2 exactly), d = d_v = 1, τ = 1:
    dK₀ = Σᵢ dOᵢ/4 = 1 + 2⁻²⁴ + delta (the float32 midpoint between 1 and 1 + 2⁻²³, moved by
    delta), dK₁ = −dK₀, dV = 2 + 2⁻²³ + 2·delta (the midpoint between 2 and 2 + 2⁻²²), dQ = 0."""
    q = np.ones((3, 1), dtype=np.float32)
    k = np.full((2, 1), 0.5, dtype=np.float32)
    v = np.array([[1.0], [0.0]], dtype=np.float32)
    do = np.array([[4.0], [2.0 ** -22], [4 * delta]], dtype=np.float32)
    assert float(do[2, 0]) == 4 * delta
    return q, k, v, do


def expected(q, k, v, do, fmt, allowed=None, tau=1.0):
    O, L, dQ, dK, dV = attention(f64(q), f64(k), f64(v), tau, allowed=allowed, do=f64(do))
    out = {"dQ": dQ, "dK": dK, "dV": dV}
    return {name: np.array([[round_to(x, fmt) for x in row] for row in rows]) for name, rows in out.items()}, O, L


@pytest.mark.parametrize("delta", [2.0 ** -50, -(2.0 ** -50), 2.0 ** -45])
def test_near_midpoint_gradients_are_decided_by_the_column_pass(delta):
    q, k, v, do = crafted(delta)
    r = sa.reference(q, k, v, grad=do, scale="1", dtype="float32", workers=1)
    want, O, L = expected(q, k, v, do, "float32")
    for name in ("dQ", "dK", "dV"):
        assert np.array_equal(r.values[name]["float32"], want[name]), (name, r.values[name]["float32"], want[name])
    assert r.values["O"]["float32"].tolist() == [[0.5]] * 3
    assert r.undecided == []
    if abs(delta) < 2.0 ** -48:      # too close for float64: the column pass decided dK and dV
        assert r.stats["kv_double_float_columns_only"] == 1
        assert r.stats["dK.float32.double_float"] == 2 and r.stats["dV.float32.double_float"] == 2
    # the rounding goes the way delta says
    up = delta > 0
    assert r.values["dK"]["float32"][0, 0] == (1 + 2.0 ** -23 if up else 1.0)
    assert r.values["dV"]["float32"][0, 0] == (2 + 2.0 ** -22 if up else 2.0)


def test_gradients_exactly_on_a_midpoint_escalate_to_ball_arithmetic_and_round_to_even():
    """On the midpoint itself neither the float64 nor the double-float enclosure decides; ball
    arithmetic does, because here every quantity is exact (e⁰ = 1, P = 1/2): the balls have
    radius 0 on the midpoint, which rounds to even (1 and 2, not 1 + 2⁻²³ and 2 + 2⁻²²)."""
    q, k, v, do = crafted(0.0)
    r = sa.reference(q, k, v, grad=do, scale="1", dtype="float32", workers=1)
    assert r.values["dK"]["float32"].tolist() == [[1.0], [-1.0]]
    assert r.values["dV"]["float32"].tolist() == [[2.0], [2.0]]
    assert r.values["dQ"]["float32"].tolist() == [[0.0]] * 3
    assert r.undecided == []
    assert r.stats["kv_double_float_columns_only"] == 1
    assert r.stats["dK.float32.fallback"] == 2 and r.stats["dV.float32.fallback"] == 2
    assert r.stats["kv_exact_passes"] >= 1


def _run(q, k, v, do, fused, **kw):
    saved = ref_mod._fused
    try:
        if not fused:
            ref_mod._fused = lambda P: False
        return sa.reference(q, k, v, grad=do, workers=1, **kw)
    finally:
        ref_mod._fused = saved


@pytest.mark.parametrize("delta", [2.0 ** -50, -(2.0 ** -50)])
def test_the_column_pass_agrees_with_the_full_pass(delta):
    q, k, v, do = crafted(delta)
    a = _run(q, k, v, do, True, scale="1", dtype=["float32", "float64"])
    b = _run(q, k, v, do, False, scale="1", dtype=["float32", "float64"])
    assert a.stats["kv_double_float_columns_only"] == 1 and "kv_double_float_columns_only" not in b.stats
    assert b.stats["kv_double_float_passes"] == 1
    for name in a.values:
        for fmt in a.values[name]:
            assert np.array_equal(a.values[name][fmt], b.values[name][fmt], equal_nan=True), (name, fmt)


def test_fused_rows_with_masks_gqa_and_bias_against_the_oracle():
    """Two query heads on one key/value head, bottom-right causal with more queries than keys
    (fully masked rows), an additive bias: every gradient entry is the oracle's rounding, and the
    fused and unfused passes agree bit for bit."""
    rng = np.random.default_rng(5)
    H, n, m, d, dv = 2, 6, 4, 3, 2
    q = rng.standard_normal((H, n, d)).astype(np.float32)
    k = rng.standard_normal((1, m, d)).astype(np.float32)
    v = rng.standard_normal((1, m, dv)).astype(np.float32)
    do = rng.standard_normal((H, n, dv)).astype(np.float32)
    bias = rng.standard_normal((n, m)).astype(np.float32)
    allowed = np.arange(m)[None, :] <= np.arange(n)[:, None] + (m - n)
    kw = dict(causal="bottom-right", bias=bias, dtype=["float32", "bfloat16"])
    a = _run(q, k, v, do, True, **kw)
    b = _run(q, k, v, do, False, **kw)
    for name in a.values:
        for fmt in a.values[name]:
            assert np.array_equal(a.values[name][fmt], b.values[name][fmt], equal_nan=True), (name, fmt)
    tau = float(np.float32(1 / math.sqrt(d)))
    dk_sum = dv_sum = None
    for h in range(H):
        O, L, dQ, dK, dV = attention(f64(q[h]), f64(k[0]), f64(v[0]), tau, allowed=allowed, bias=f64(bias),
                                     do=f64(do[h]))
        for fmt in ("float32", "bfloat16"):
            got = a.values["dQ"][fmt][h]
            want = np.array([[round_to(x, fmt) for x in row] for row in dQ])
            assert np.array_equal(got, want), (h, fmt)
        dk_sum = dK if dk_sum is None else [[x + y for x, y in zip(r1, r2)] for r1, r2 in zip(dk_sum, dK)]
        dv_sum = dV if dv_sum is None else [[x + y for x, y in zip(r1, r2)] for r1, r2 in zip(dv_sum, dV)]
    for fmt in ("float32", "bfloat16"):
        assert np.array_equal(a.values["dK"][fmt][0], np.array([[round_to(x, fmt) for x in r_] for r_ in dk_sum]))
        assert np.array_equal(a.values["dV"][fmt][0], np.array([[round_to(x, fmt) for x in r_] for r_ in dv_sum]))
    assert a.stats["masked_rows"] == 2 * (n - m)


def test_large_inputs_take_the_float64_bound_products_and_stay_correctly_rounded():
    """Entries of 2⁴⁵ make the float32 bound products unsafe (use_float32 is false): the float64
    route is taken, and every gradient entry is still the oracle's rounding."""
    from symattn.exact import reference_fast as rf

    rng = np.random.default_rng(9)
    n, m, d = 4, 5, 3
    q = (rng.standard_normal((n, d)) * 2.0 ** -20).astype(np.float32)
    k = rng.standard_normal((m, d)).astype(np.float32)
    v = (rng.standard_normal((m, 2)) * 2.0 ** 45).astype(np.float32)
    do = (rng.standard_normal((n, 2)) * 2.0 ** 45).astype(np.float32)
    assert not rf.use_float32(m, float(np.abs(do).max()) ** 2)
    r = sa.reference(q, k, v, grad=do, dtype="float32", workers=1)
    want, O, L = expected(q, k, v, do, "float32", tau=float(np.float32(1 / math.sqrt(d))))
    for name in ("dQ", "dK", "dV"):
        assert np.array_equal(r.values[name]["float32"], want[name]), name
    assert r.undecided == []
