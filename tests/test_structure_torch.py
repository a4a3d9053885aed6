"""Grouped-query attention and sliding windows against PyTorch SDPA in float64 (``enable_gqa=True``,
boolean window masks, ``is_causal``, and the bottom-right causal bias), forward and autograd, to 1e-12."""

import random

import pytest

import symattn as sa

from torch_helpers import F, close, dec, rmat, t64, text, torch


def heads_view(x, n_heads):  # (seq, heads·d) -> (1, heads, seq, d)
    s, w = x.shape
    return x.reshape(s, n_heads, w // n_heads).permute(1, 0, 2).unsqueeze(0)


def merge(o):  # (1, heads, seq, d) -> (seq, heads·d)
    return o.squeeze(0).permute(1, 0, 2).reshape(o.shape[2], -1)


@pytest.mark.parametrize("heads, groups, causal", [(4, 2, False), (4, 1, True), (6, 3, True), (2, 2, False)])
def test_gqa_against_sdpa_enable_gqa(heads, groups, causal):
    rng = random.Random(heads * 10 + groups)
    n, dm, dk, dv = 4, 3, 2, 2
    X, Wq, Wk, Wv = rmat(rng, n, dm), rmat(rng, dm, heads * dk), rmat(rng, dm, groups * dk), rmat(rng, dm, groups * dv)
    conv = {"heads": heads, "kv_heads": groups, "mask": "causal" if causal else "none"}
    d = sa.derive(sa.from_dict({"inputs": {"X": text(X), "Wq": text(Wq), "Wk": text(Wk), "Wv": text(Wv)},
                                "convention": conv}))
    g = sa.grad(d, loss="sum")
    x, wq, wk, wv = t64(X), t64(Wq, True), t64(Wk, True), t64(Wv, True)
    q, k, v = heads_view(x @ wq, heads), heads_view(x @ wk, groups), heads_view(x @ wv, groups)
    out = merge(F.scaled_dot_product_attention(q, k, v, is_causal=causal, enable_gqa=True))
    out.sum().backward()
    close(dec(d["output"]), out)
    for name, w in (("dWq", wq), ("dWk", wk), ("dWv", wv)):
        close(dec(g[name]), w.grad)


@pytest.mark.parametrize("window, mask, nq, nk", [((1, 0), "causal", 4, 4), ((0, 1), "none", 4, 4),
                                                  ((2, 1), "none", 3, 5), ((1, 0), "causal_bottom_right", 2, 5),
                                                  ((None, 0), "causal_bottom_right", 3, 4)])
def test_window_against_sdpa_bool_mask(window, mask, nq, nk):
    rng = random.Random(nq * 7 + nk)
    Q, K, V = rmat(rng, nq, 2), rmat(rng, nk, 2), rmat(rng, nk, 3)
    w = ["inf" if x is None else x for x in window]
    d = sa.derive(sa.from_dict({"inputs": {"Q": text(Q), "K": text(K), "V": text(V)},
                                "convention": {"mask": mask, "window": w}}))
    g = sa.grad(d, loss="sum")
    off = nk - nq if mask == "causal_bottom_right" else 0
    left, right = window
    i = torch.arange(nq)[:, None] + off
    j = torch.arange(nk)[None, :]
    allowed = torch.ones(nq, nk, dtype=torch.bool)
    if mask != "none":
        allowed &= j <= i
    if left is not None:
        allowed &= j >= i - left
    if right is not None:
        allowed &= j <= i + right
    q, k, v = t64(Q, True), t64(K, True), t64(V, True)
    out = F.scaled_dot_product_attention(q[None], k[None], v[None], attn_mask=allowed[None])[0]
    out.sum().backward()
    close(dec(d["output"]), out)
    for name, t in (("dQ", q), ("dK", k), ("dV", v)):
        close(dec(g[name]), t.grad)


def test_bottom_right_causal_matches_torch_causal_lower_right():
    from torch.nn.attention.bias import causal_lower_right

    rng = random.Random(3)
    Q, K, V = rmat(rng, 2, 2), rmat(rng, 4, 2), rmat(rng, 4, 2)
    d = sa.derive(sa.from_dict({"inputs": {"Q": text(Q), "K": text(K), "V": text(V)},
                                "convention": {"mask": "causal_bottom_right", "window": ["inf", "inf"]}}))
    out = F.scaled_dot_product_attention(t64(Q)[None], t64(K)[None], t64(V)[None], attn_mask=causal_lower_right(2, 4))
    close(dec(d["output"]), out[0])


def test_decode_against_sdpa_causal_rows():
    rng = random.Random(9)
    X, Wq, Wk, Wv = rmat(rng, 4, 2), rmat(rng, 2, 4), rmat(rng, 2, 2), rmat(rng, 2, 2)
    spec = sa.from_dict({"inputs": {"X": text(X), "Wq": text(Wq), "Wk": text(Wk), "Wv": text(Wv)},
                         "convention": {"heads": 2, "kv_heads": 1}})
    dec_ = sa.decode(spec)
    x = t64(X)
    q, k, v = heads_view(x @ t64(Wq), 2), heads_view(x @ t64(Wk), 1), heads_view(x @ t64(Wv), 1)
    out = merge(F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True))
    for t in range(4):
        close(dec(dec_[f"t{t + 1}.output"]), out[t:t + 1])
