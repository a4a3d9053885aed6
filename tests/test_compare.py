"""The error report against kernels written here with NumPy: a deliberately biased kernel is found
biased, convention mismatches are named as conventions, exit statuses, JSON and the picture;
symattn.testing's assertions and fixtures."""

import json
import math

import numpy as np
import pytest

import symattn as sa
import symattn.testing as st
from symattn.analyses.compare import compare
from symattn.cli import main

ml_dtypes = pytest.importorskip("ml_dtypes")


def kernel_fp32(q, k, v, *, truncate_p=False, causal_top_left=False, base2=False, scale=None):
    """Attention as a kernel computes it in float32: p = exp(s − m) in fp32, l = Σ p in fp32,
    o = (p·V)/l. With ``truncate_p`` the P·V product uses p cut to bfloat16 by masking its low
    bits (round toward zero), while l keeps the fp32 p: a systematic bias."""
    q, k, v = (np.asarray(a, dtype=np.float32) for a in (q, k, v))
    d = q.shape[-1]
    tau = np.float32(1 / math.sqrt(d)) if scale is None else np.float32(scale)
    s = np.einsum("...id,...jd->...ij", q, k).astype(np.float32) * tau
    if causal_top_left:
        n, m = s.shape[-2:]
        s = np.where(np.arange(m)[None, :] <= np.arange(n)[:, None], s, -np.inf).astype(np.float32)
    mx = s.max(-1, keepdims=True)
    p = np.exp(s - mx).astype(np.float32)
    lsum = p.sum(-1, keepdims=True, dtype=np.float32)
    pv = p
    if truncate_p:
        pv = (p.view(np.uint32) & np.uint32(0xFFFF0000)).view(np.float32)
    o = (np.einsum("...ij,...jd->...id", pv, v).astype(np.float32) / lsum).astype(np.float32)
    lse = (mx[..., 0] + np.log(lsum[..., 0])).astype(np.float32)
    if base2:
        lse = (lse / np.float32(math.log(2))).astype(np.float32)
    return o, lse


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    q = rng.standard_normal((4, 128, 32)).astype(np.float32)
    k = rng.standard_normal((4, 128, 32)).astype(np.float32)
    v = (rng.random((4, 128, 32)) + 0.25).astype(np.float32)     # positive values: a shrunk p shows as a bias
    ref = sa.reference(q, k, v, dtype="float32", workers=1)
    return q, k, v, ref


def _cmp(ref, **kernel):
    kern = {name: (np.asarray(a, dtype=np.float64), "float32", name) for name, a in kernel.items()}
    return compare(kern, ref.values, scales=ref.scales, meta=ref.metadata())


def test_the_report_finds_a_deliberately_biased_kernel(data):
    q, k, v, ref = data
    o_bad, _ = kernel_fp32(q, k, v, truncate_p=True)
    o_good, _ = kernel_fp32(q, k, v)
    bad = _cmp(ref, O=o_bad).find("O")
    good = _cmp(ref, O=o_good).find("O")
    assert bad.biased and bad.mean_error < 0 and bad.bias_t < -5
    assert not good.biased and abs(good.bias_t) < 5
    assert bad.mean_error_cond < -0.5 < good.mean_error_cond
    # a max-abs tolerance in the style of FlashAttention's rule (2× a float32 naive error) does not see it
    assert bad.max_abs < 2 * 1e-2


def test_ulp_metrics_of_a_correctly_rounded_and_a_float32_kernel(data):
    q, k, v, ref = data
    exact = _cmp(ref, O=ref.values["O"]["float32"], LSE=ref.values["LSE"]["float32"])
    for t in exact.tensors:
        assert t.max_ulp == 0 and t.exact_fraction == 1.0 and t.cond_max == 0 and t.histogram[0][1] == t.entries
    o, lse = kernel_fp32(q, k, v)
    r = _cmp(ref, O=o, LSE=lse)
    t = r.find("O")
    assert 0 < t.exact_fraction < 1 and t.max_ulp >= 1
    assert sum(n for _, n in t.histogram) == t.entries
    assert t.cond_max < 64                           # float32 arithmetic: small in condition-aware ulps
    assert len(t.per_head) == 4 and t.per_row_max.shape == (1, 4, 128)
    w = t.worst[0]
    assert t.ulps[tuple(w["index"])] == w["ulp"] == t.max_ulp
    ulps = np.abs(o.astype(np.float32).view(np.int32).astype(np.int64)
                  - ref.values["O"]["float32"].astype(np.float32).view(np.int32).astype(np.int64))
    assert t.max_ulp == ulps.max()                   # positive values: ordered bits are the plain bits


def test_conventions_are_diagnosed_not_reported_as_error(data):
    q, k, v, ref = data
    o, lse2 = kernel_fp32(q, k, v, base2=True)
    r = _cmp(ref, O=o, LSE=lse2)
    d = [x for x in r.diagnoses if x.tensor == "LSE"]
    assert d and d[0].convention == "LSE base 2" and "--lse-base 2" in d[0].fix
    assert r.find("LSE").max_ulp <= 4                # measured after converting: the kernel's LSE is accurate
    assert not r.ok and "convention: LSE base 2" in r.find("LSE").reasons
    # a kernel tensor in BSHD against the BHSD reference: transposed, and said so
    r2 = _cmp(ref, O=o.transpose(1, 0, 2))
    assert r2.find("O").max_ulp == _cmp(ref, O=o).find("O").max_ulp
    assert any(x.convention == "layout bshd" for x in r2.diagnoses)


def test_masked_row_conventions():
    rng = np.random.default_rng(3)
    q, k, v = (rng.standard_normal((6, 8)).astype(np.float32) for _ in range(3))
    k, v = k[:4], v[:4]
    ref = sa.reference(q, k, v, causal="bottom-right", dtype="float32", workers=1)     # rows 0, 1 fully masked
    o = ref.values["O"]["float32"].copy()
    lse = ref.values["LSE"]["float32"].copy()
    o_nan = o.copy()
    o_nan[:2] = np.nan
    lse_fa = lse.copy()
    lse_fa[:2] = np.inf                              # FlashAttention's LSE of an empty row
    r = _cmp(ref, O=o_nan, LSE=lse_fa)
    conv = {d.convention for d in r.diagnoses}
    assert "fully masked rows as NaN" in conv and "masked-row LSE +inf" in conv
    assert r.find("LSE").max_ulp == 0


def test_recomputed_conventions_with_the_inputs():
    rng = np.random.default_rng(4)
    q = rng.standard_normal((4, 24, 16)).astype(np.float32)
    k = rng.standard_normal((2, 24, 16)).astype(np.float32)
    v = rng.standard_normal((2, 24, 16)).astype(np.float32)
    # a causal kernel judged against a non-causal reference
    o_causal, _ = kernel_fp32(q, np.repeat(k, 2, axis=0), np.repeat(v, 2, axis=0), causal_top_left=True)
    c = st.attention_error(o_causal, q, k, v)
    assert any("causal top-left" in d.convention for d in c.diagnoses) and not c.ok
    # GQA: the kernel repeats K and V (head h uses h mod H_kv) instead of interleaving (h // 2)
    o_rep, _ = kernel_fp32(q, np.tile(k, (2, 1, 1)), np.tile(v, (2, 1, 1)))
    c2 = st.attention_error(o_rep, q, k, v)
    assert any("GQA mapping" in d.convention for d in c2.diagnoses)
    o_int, _ = kernel_fp32(q, np.repeat(k, 2, axis=0), np.repeat(v, 2, axis=0))
    c3 = st.attention_error(o_int, q, k, v, max_ulp=10 ** 6)
    assert c3.ok and not c3.diagnoses
    # no scale
    o_ns, _ = kernel_fp32(q, np.repeat(k, 2, axis=0), np.repeat(v, 2, axis=0), scale=1.0)
    c4 = st.attention_error(o_ns, q, k, v)
    assert any("no scale" in d.convention for d in c4.diagnoses)


def test_assertions_name_where_how_far_and_which_convention():
    rng = np.random.default_rng(5)
    q, k, v = (rng.standard_normal((2, 16, 8)).astype(np.float32) for _ in range(3))
    o, lse = kernel_fp32(q, k, v)
    rep = st.assert_attention_close(o, q, k, v, max_ulp=10 ** 6, lse=lse)
    assert rep.find("LSE").max_ulp <= 8
    with pytest.raises(AssertionError) as e:
        st.assert_attention_close(o, q, k, v, max_ulp=0)
    msg = str(e.value)
    assert "O (float32): max" in msg and "ulp at [" in msg and "correctly rounded" in msg and "max_ulp=0" in msg
    k2, v2 = (rng.standard_normal((2, 20, 8)).astype(np.float32) for _ in range(2))
    oc, _ = kernel_fp32(q, k2, v2, causal_top_left=True)
    with pytest.raises(AssertionError, match="matches causal top-left"):
        st.assert_attention_close(oc, q, k2, v2, causal="bottom-right", max_ulp=10 ** 6)
    st.assert_attention_close(oc, q, k2, v2, causal="top-left", max_ulp=10 ** 6)
    with pytest.raises(TypeError, match="needs a bound"):
        st.assert_attention_close(o, q, k, v)


def test_fixtures_round_trip_without_recomputing(tmp_path):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(6)
    q, k, v = (rng.standard_normal((2, 12, 8)).astype(ml_dtypes.bfloat16) for _ in range(3))
    path = str(tmp_path / "fx.safetensors")
    st.save_fixture(path, q, k, v, causal="top-left", dtype="bfloat16")
    fx = st.load_fixture(path)
    tq, tk, tv = fx.inputs("torch")
    assert tq.dtype == torch.bfloat16 and fx.kernel_kwargs["causal"] == "top-left"
    out = torch.nn.functional.scaled_dot_product_attention(tq.float(), tk.float(), tv.float(), is_causal=True,
                                                           scale=float(np.float32(1 / math.sqrt(8))))
    rep = st.assert_fixture_close(out.to(torch.bfloat16), fx, max_ulp=2)
    assert rep.find("O").fmt == "bfloat16"
    with pytest.raises(AssertionError):
        st.assert_fixture_close(out.flip(1).to(torch.bfloat16), fx, max_ulp=2)
    assert np.array_equal(np.asarray(fx.inputs()[0]).astype(np.float32), q.astype(np.float32))


def test_cli_exit_statuses_json_and_picture(tmp_path, capsys):
    rng = np.random.default_rng(7)
    q, k, v = (rng.standard_normal((2, 32, 16)).astype(np.float32) for _ in range(3))
    np.savez(tmp_path / "in.npz", q=q, k=k, v=v)
    assert main(["reference", str(tmp_path / "in.npz"), "-o", str(tmp_path / "ref.safetensors"), "--workers", "1",
                 "-q"]) == 0
    o, lse = kernel_fp32(q, k, v)
    np.savez(tmp_path / "kern.npz", out=o, softmax_lse=lse)
    capsys.readouterr()
    base = ["compare", str(tmp_path / "kern.npz"), "--reference", str(tmp_path / "ref.safetensors")]
    assert main(base + ["--max-ulp", "100000"]) == 0
    assert "verdict: within the bounds (exit 0)" in capsys.readouterr().out
    assert main(base + ["--max-ulp", "0", "--json", "--plot", str(tmp_path / "h.png")]) == 1
    out = capsys.readouterr().out
    data = json.loads(out)
    assert data["ok"] is False and data["tensors"][0]["name"] == "O" and "per_row" in data["tensors"][0]
    assert "assert_array_max_ulp" in data["ulp_definition"]
    png = (tmp_path / "h.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 5000
    # bad input: the kernel's bfloat16 output against a float32-only reference
    np.save(tmp_path / "o.npy", o.astype(ml_dtypes.bfloat16))
    assert main(["compare", str(tmp_path / "o.npy"), "-r", str(tmp_path / "ref.safetensors")]) == 2
    err = capsys.readouterr().err
    assert "o.npy: O is bfloat16 but the reference holds O in float32 only" in err and "--dtype bfloat16" in err
    np.save(tmp_path / "bad.npy", o[:, :5])
    assert main(["compare", str(tmp_path / "bad.npy"), "-r", str(tmp_path / "ref.safetensors")]) == 2
    assert "bad.npy: O has shape (2, 5, 16); the reference's O is (2, 32, 16)" in capsys.readouterr().err
    assert main(["compare", str(tmp_path / "in.npz"), "-r", str(tmp_path / "in.npz")]) == 2
    assert "not a symattn reference" in capsys.readouterr().err
