"""Every convention against the independent NumPy float64 reference (within 1e-12)."""

import random
from fractions import Fraction

import numpy as np
import pytest

import symattn as sa
from reference import attention, causal, f64, softmax_rows

TOL = 1e-12


def rmat(rng, r, c):
    return [[Fraction(rng.randint(-20, 20), 10) for _ in range(c)] for _ in range(r)]


def text(m):
    return [[str(x) for x in r] for r in m]


def T(m):
    return [list(r) for r in zip(*m)]


def dec(step):
    """A step's certified decimals as a float array (20 digits, then float64)."""
    return np.array(step.decimals(20), dtype=object).astype(float)


def build(layout="row", nq=3, nk=None, d_model=4, dk=4, dv=3, seed=0, cross=False, **conv):
    rng = random.Random(seed)
    nk = nk if nk is not None else nq
    X = rmat(rng, nq, d_model)
    Xkv = rmat(rng, nk, d_model) if cross or nk != nq else X
    Wq, Wk, Wv = rmat(rng, d_model, dk), rmat(rng, d_model, dk), rmat(rng, d_model, dv)
    if layout == "row":
        inputs = {"X": text(X), "Wq": text(Wq), "Wk": text(Wk), "Wv": text(Wv)}
        if Xkv is not X:
            inputs["X_kv"] = text(Xkv)
    elif layout == "torch":
        inputs = {"X": text(X), "Wq": text(T(Wq)), "Wk": text(T(Wk)), "Wv": text(T(Wv))}
        if Xkv is not X:
            inputs["X_kv"] = text(Xkv)
    else:
        inputs = {"X": text(T(X)), "Wq": text(T(Wq)), "Wk": text(T(Wk)), "Wv": text(T(Wv))}
        if Xkv is not X:
            inputs["X_kv"] = text(T(Xkv))
    spec = sa.from_dict({"title": "t", "inputs": inputs, "convention": {"layout": layout, **conv}})
    q, k, v = f64(X) @ f64(Wq), f64(Xkv) @ f64(Wk), f64(Xkv) @ f64(Wv)
    return spec, q, k, v


@pytest.mark.parametrize("layout", ["row", "torch", "column"])
def test_layouts_give_the_same_attention(layout):
    spec, q, k, v = build(layout)
    d = sa.derive(spec)
    p, o = attention(q, k, v, 1 / np.sqrt(4))
    out = dec(d["output"])
    if layout == "column":
        out = out.T  # O = V Pᵀ, tokens as columns
        assert d["Q"].shape == (4, 3)
    np.testing.assert_allclose(out, o, rtol=0, atol=TOL)
    np.testing.assert_allclose(dec(d["weights"]), p, rtol=0, atol=TOL)


@pytest.mark.parametrize("scale,tau", [("none", 1.0), ("1/8", 0.125), ("1/sqrt(2)", 2 ** -0.5),
                                       ("1/sqrt(d_k)", 0.5), ("2/sqrt(d_model)", 1.0)])
def test_scales(scale, tau):
    spec, q, k, v = build(scale=scale)
    p, o = attention(q, k, v, tau)
    np.testing.assert_allclose(dec(sa.derive(spec)["output"]), o, atol=TOL, rtol=0)


def test_numeric_scale_and_temperature():
    from decimal import Decimal
    spec, q, k, v = build(scale=Decimal("0.25"), temperature="1/2")
    p, o = attention(q, k, v, 0.5)
    d = sa.derive(spec)
    np.testing.assert_allclose(dec(d["weights"]), p, atol=TOL, rtol=0)
    assert d.convention["tau"] == "1/2"


@pytest.mark.parametrize("nq,nk", [(3, 3), (2, 5), (4, 4)])
@pytest.mark.parametrize("kind", ["causal", "causal_bottom_right"])
def test_causal_masks(nq, nk, kind):
    spec, q, k, v = build(nq=nq, nk=nk, mask=kind)
    p, o = attention(q, k, v, 0.5, allowed=causal(nq, nk, kind == "causal_bottom_right"))
    d = sa.derive(spec)
    np.testing.assert_allclose(dec(d["weights"]), p, atol=TOL, rtol=0)
    np.testing.assert_allclose(dec(d["output"]), o, atol=TOL, rtol=0)
    # masked weights are exactly zero
    for i in range(nq):
        for j in range(nk):
            if not causal(nq, nk, kind == "causal_bottom_right")[i, j]:
                assert d["weights"].exact[i, j] == 0
                assert d["masked"].decimals()[i][j] == "-inf"


def test_flash_attention_bottom_right_pattern():
    # FlashAttention docstring: seqlen_q = 2, seqlen_k = 5 keeps 1 1 1 1 0 / 1 1 1 1 1
    spec, *_ = build(nq=2, nk=5, mask="causal_bottom_right")
    w = sa.derive(spec)["weights"].exact
    assert [[int(w[i, j] != 0) for j in range(5)] for i in range(2)] == [[1, 1, 1, 1, 0], [1, 1, 1, 1, 1]]


def test_boolean_mask_matrix_true_means_attend():
    allowed = [[True, False, True], [False, True, True], [True, True, False]]
    spec, q, k, v = build(mask=allowed)
    p, o = attention(q, k, v, 0.5, allowed=np.array(allowed))
    np.testing.assert_allclose(dec(sa.derive(spec)["output"]), o, atol=TOL, rtol=0)


def test_additive_bias_with_minus_infinity():
    bias = [["0.5", "-inf", "0"], ["0", "0", "-1"], ["-inf", "1", "0"]]
    spec, q, k, v = build(bias=bias)
    b = np.array([[0.5, -np.inf, 0], [0, 0, -1], [-np.inf, 1, 0]])
    p, o = attention(q, k, v, 0.5, bias=b)
    d = sa.derive(spec)
    np.testing.assert_allclose(dec(d["output"]), o, atol=TOL, rtol=0)
    assert d["weights"].exact[0, 1] == 0 and "masked" in d


def test_finite_mask_value_replaces_the_score():
    from decimal import Decimal
    spec, q, k, v = build(mask="causal", mask_value=Decimal("-3"))
    p, o = attention(q, k, v, 0.5, allowed=causal(3, 3), mask_value=-3.0)
    d = sa.derive(spec)
    np.testing.assert_allclose(dec(d["weights"]), p, atol=TOL, rtol=0)
    assert d["masked"].exact[0, 1] == -3
    assert d["weights"].exact[0, 1] != 0


def test_fully_masked_row_zero_when_asked():
    allowed = [[False, False, False], [True, True, False], [True, True, True]]
    spec, q, k, v = build(mask=allowed, masked_rows="zero")
    p, o = attention(q, k, v, 0.5, allowed=np.array(allowed), zero_full_rows=True)
    d = sa.derive(spec)
    assert d["output"].decimals()[0] == ["0", "0", "0"]
    np.testing.assert_allclose(dec(d["output"]), o, atol=TOL, rtol=0)


def test_fully_masked_row_is_an_error_by_default():
    with pytest.raises(sa.SpecError, match="fully masked.*masked_rows"):
        build(mask=[[False, False, False], [True, True, False], [True, True, True]])


def test_softmax_over_queries_reproduces_the_common_bug():
    spec, q, k, v = build(softmax_axis="queries")
    p, o = attention(q, k, v, 0.5, axis="queries")
    d = sa.derive(spec)
    np.testing.assert_allclose(dec(d["weights"]), p, atol=TOL, rtol=0)
    np.testing.assert_allclose(dec(d["weights"]).sum(axis=0), np.ones(3), atol=TOL)
    np.testing.assert_allclose(dec(d["output"]), o, atol=TOL, rtol=0)
    # a focus query with softmax over queries still normalises over all queries
    focus = sa.derive(spec, query=2)
    np.testing.assert_allclose(dec(focus["weights"]), p[1:2], atol=TOL, rtol=0)


def test_cross_attention():
    spec, q, k, v = build(nq=2, nk=4, cross=True)
    spec2 = sa.from_dict({"title": "t", "tokens": ["a", "b"], "key_tokens": ["w", "x", "y", "z"],
                          "inputs": {k_: [[str(x) for x in r] for r in m] for k_, m in spec.inputs.items()}})
    p, o = attention(q, k, v, 0.5)
    d = sa.derive(spec2)
    assert d["weights"].col_labels == ["w", "x", "y", "z"] and d["weights"].row_labels == ["a", "b"]
    np.testing.assert_allclose(dec(d["output"]), o, atol=TOL, rtol=0)


def _mh_inputs(layout, seed=3, with_bias=True):
    rng = random.Random(seed)
    n, dm, h, dk, dv, dout = 3, 4, 2, 2, 3, 4
    X = rmat(rng, n, dm)
    Wq, Wk, Wv = rmat(rng, dm, h * dk), rmat(rng, dm, h * dk), rmat(rng, dm, h * dv)
    Wo = rmat(rng, h * dv, dout)
    bq, bk, bv, bo = (rmat(rng, 1, c)[0] for c in (h * dk, h * dk, h * dv, dout))
    if layout == "row":
        inputs = {"X": X, "Wq": Wq, "Wk": Wk, "Wv": Wv, "Wo": Wo}
    else:  # torch: nn.Linear weights (out, in)
        inputs = {"X": X, "Wq": T(Wq), "Wk": T(Wk), "Wv": T(Wv), "Wo": T(Wo)}
    inputs = {k: text(m) for k, m in inputs.items()}
    if with_bias:
        inputs.update({"bq": [str(x) for x in bq], "bk": [str(x) for x in bk], "bv": [str(x) for x in bv],
                       "bo": [str(x) for x in bo]})
    ref = dict(X=f64(X), Wq=f64(Wq), Wk=f64(Wk), Wv=f64(Wv), Wo=f64(Wo), bq=f64([bq])[0], bk=f64([bk])[0],
               bv=f64([bv])[0], bo=f64([bo])[0], h=h, dk=dk, dv=dv)
    return inputs, ref


@pytest.mark.parametrize("layout", ["row", "torch"])
def test_multi_head_equals_concatenated_single_heads(layout):
    inputs, r = _mh_inputs(layout)
    spec = sa.from_dict({"title": "mh", "inputs": inputs, "convention": {"layout": layout, "heads": 2}})
    d = sa.derive(spec)
    q = r["X"] @ r["Wq"] + r["bq"]
    k = r["X"] @ r["Wk"] + r["bk"]
    v = r["X"] @ r["Wv"] + r["bv"]
    heads = []
    for i in range(r["h"]):
        sl, sv = slice(i * r["dk"], (i + 1) * r["dk"]), slice(i * r["dv"], (i + 1) * r["dv"])
        p, o = attention(q[:, sl], k[:, sl], v[:, sv], 1 / np.sqrt(r["dk"]))
        heads.append(o)
        np.testing.assert_allclose(dec(d[f"head{i + 1}.output"]), o, atol=TOL, rtol=0)
    cat = np.hstack(heads)
    np.testing.assert_allclose(dec(d["concat"]), cat, atol=TOL, rtol=0)
    np.testing.assert_allclose(dec(d["output"]), cat @ r["Wo"] + r["bo"], atol=TOL, rtol=0)
    # and each head equals a single-head derivation of its own columns
    for i in range(2):
        sl = slice(i * 2, (i + 1) * 2)
        sv = slice(i * 3, (i + 1) * 3)
        single = sa.from_dict({"title": "one", "inputs": {
            "Q": text([[Fraction(x).limit_denominator(10**6) for x in row] for row in q[:, sl]]),
            "K": text([[Fraction(x).limit_denominator(10**6) for x in row] for row in k[:, sl]]),
            "V": text([[Fraction(x).limit_denominator(10**6) for x in row] for row in v[:, sv]])}})
        assert sa.derive(single)["output"].exact == d[f"head{i + 1}.output"].exact


def test_heads_must_divide_the_width():
    inputs, _ = _mh_inputs("row", with_bias=False)
    with pytest.raises(sa.SpecError, match="3 heads do not divide"):
        sa.from_dict({"title": "mh", "inputs": inputs, "convention": {"heads": 3}})


def test_starting_from_q_k_v_and_from_scores():
    spec, q, k, v = build()
    d = sa.derive(spec)
    qkv = sa.from_dict({"title": "qkv", "inputs": {
        "Q": [[str(x) for x in r] for r in d["Q"].exact.tolist()],
        "K": [[str(x) for x in r] for r in d["K"].exact.tolist()],
        "V": [[str(x) for x in r] for r in d["V"].exact.tolist()]}})
    assert sa.derive(qkv)["output"].exact == d["output"].exact
    sc = sa.from_dict({"title": "scores", "inputs": {
        "scores": [[str(x) for x in r] for r in d["scores"].exact.tolist()],
        "V": [[str(x) for x in r] for r in d["V"].exact.tolist()]}, "convention": {"d_k": 4}})
    assert sa.derive(sc)["output"].exact == d["output"].exact


def test_conventions_are_echoed():
    spec, *_ = build(mask="causal", scale="1/8")
    echo = sa.derive(spec).convention
    assert echo["layout"] == "row" and echo["mask"] == "causal" and echo["tau"] == "1/8"
    assert echo["softmax_axis"] == "keys" and echo["mask_value"] == "-inf"


def test_numpy_reference_is_itself_sane():
    # the reference softmax of (1, 2, 3) against published values
    np.testing.assert_allclose(softmax_rows(np.array([[1.0, 2.0, 3.0]]))[0],
                               [0.0900306, 0.244728, 0.665241], atol=1e-6)
