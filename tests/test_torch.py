"""symattn against PyTorch in float64: SDPA (scale, boolean and float masks, is_causal),
nn.Linear and nn.MultiheadAttention weight layouts, and autograd gradients, to 1e-12."""

import random
from fractions import Fraction

import numpy as np
import pytest

import symattn as sa

from torch_helpers import F, close, dec, rmat, t64, text, torch


@pytest.mark.parametrize("layout", ["row", "torch", "column"])
def test_sdpa_and_autograd_every_layout(layout):
    rng = random.Random(5)
    n, dm, dk = 4, 3, 2
    X, Wq, Wk, Wv = rmat(rng, n, dm), rmat(rng, dm, dk), rmat(rng, dm, dk), rmat(rng, dm, dk)
    T = lambda m: [list(r) for r in zip(*m)]  # noqa: E731
    if layout == "row":
        inputs = {"X": X, "Wq": Wq, "Wk": Wk, "Wv": Wv}
    elif layout == "torch":
        inputs = {"X": X, "Wq": T(Wq), "Wk": T(Wk), "Wv": T(Wv)}
    else:
        inputs = {"X": T(X), "Wq": T(Wq), "Wk": T(Wk), "Wv": T(Wv)}
    spec = sa.from_dict({"inputs": {k: text(v) for k, v in inputs.items()}, "convention": {"layout": layout}})
    d = sa.derive(spec)
    g = sa.grad(d, loss="sum")
    x, wq, wk, wv = t64(X), t64(Wq, True), t64(Wk, True), t64(Wv, True)
    out = F.scaled_dot_product_attention(x @ wq, x @ wk, x @ wv)
    out.sum().backward()
    ours = dec(d["output"])
    close(ours.T if layout == "column" else ours, out)
    for name, w in (("dWq", wq), ("dWk", wk), ("dWv", wv)):
        ours = dec(g[name])
        close(ours if layout == "row" else ours.T, w.grad)


@pytest.mark.parametrize("case", ["scale", "bool_mask", "float_mask", "is_causal"])
def test_sdpa_masks_and_scale(case):
    rng = random.Random(11)
    nq, nk, dk, dv = 3, 4, 2, 3
    Q, K, V = rmat(rng, nq, dk), rmat(rng, nk, dk), rmat(rng, nk, dv)
    conv, kwargs = {}, {}
    if case == "scale":
        conv["scale"] = "3/10"
        kwargs["scale"] = 0.3
    elif case == "bool_mask":
        allowed = [[True, False, True, True], [False, True, True, False], [True, True, False, True]]
        conv["mask"] = allowed
        kwargs["attn_mask"] = torch.tensor(allowed)
    elif case == "float_mask":
        bias = [["1/2", "-inf", "0", "-1"], ["0", "3/10", "-inf", "0"], ["-2", "0", "1", "-inf"]]
        conv["bias"] = bias
        kwargs["attn_mask"] = torch.tensor([[float(Fraction(b)) if b != "-inf" else float("-inf") for b in r]
                                            for r in bias], dtype=torch.float64)
    else:
        conv["mask"] = "causal"  # torch: upper-left, j <= i
        kwargs["is_causal"] = True
    spec = sa.from_dict({"inputs": {"Q": text(Q), "K": text(K), "V": text(V)}, "convention": conv})
    d = sa.derive(spec)
    up = rmat(rng, nq, dv)
    g = sa.grad(d, loss="upstream", upstream=text(up))
    q, k, v = t64(Q, True), t64(K, True), t64(V, True)
    out = F.scaled_dot_product_attention(q, k, v, **kwargs)
    (out * t64(up)).sum().backward()
    close(dec(d["output"]), out)
    close(dec(g["dQ"]), q.grad)
    close(dec(g["dK"]), k.grad)
    close(dec(g["dV"]), v.grad)
    if case == "float_mask":
        # dB = dS: the gradient of an additive float mask
        b = kwargs["attn_mask"].clone().requires_grad_(True)
        out2 = F.scaled_dot_product_attention(t64(Q), t64(K), t64(V), attn_mask=b)
        (out2 * t64(up)).sum().backward()
        grad_b = b.grad.numpy().copy()
        grad_b[np.isinf(kwargs["attn_mask"].numpy())] = 0.0
        close(dec(g["dB"]), grad_b)


def test_mse_loss_and_scale_gradient():
    rng = random.Random(3)
    Q, K, V, Tg = rmat(rng, 3, 2), rmat(rng, 3, 2), rmat(rng, 3, 2), rmat(rng, 3, 2)
    spec = sa.from_dict({"inputs": {"Q": text(Q), "K": text(K), "V": text(V)}, "convention": {"scale": "2/5"}})
    g = sa.grad(sa.derive(spec), loss="mse", target=text(Tg))
    q, k, v = t64(Q, True), t64(K, True), t64(V, True)
    tau = torch.tensor(0.4, dtype=torch.float64, requires_grad=True)
    out = torch.softmax(tau * (q @ k.T), dim=-1) @ v
    loss = 0.5 * ((out - t64(Tg)) ** 2).sum()
    loss.backward()
    close(dec(g["loss"]), loss.reshape(1, 1))
    close(dec(g["dQ"]), q.grad)
    close(dec(g["dtau"]), tau.grad.reshape(1, 1))


def test_nn_linear_layout():
    rng = random.Random(7)
    n, dm, dk = 3, 4, 2
    X = rmat(rng, n, dm)
    lins = [torch.nn.Linear(dm, dk, dtype=torch.float64) for _ in range(3)]
    W = [rmat(rng, dk, dm) for _ in range(3)]  # (out, in), as nn.Linear stores them
    B = [rmat(rng, 1, dk)[0] for _ in range(3)]
    with torch.no_grad():
        for lin, w, b in zip(lins, W, B):
            lin.weight.copy_(t64(w))
            lin.bias.copy_(torch.tensor([float(v) for v in b], dtype=torch.float64))
    x = t64(X)
    out = F.scaled_dot_product_attention(*(lin(x) for lin in lins))
    out.sum().backward()
    spec = sa.from_dict({"inputs": {"X": text(X), "Wq": text(W[0]), "Wk": text(W[1]), "Wv": text(W[2]),
                                    "bq": [str(v) for v in B[0]], "bk": [str(v) for v in B[1]],
                                    "bv": [str(v) for v in B[2]]}, "convention": {"layout": "torch"}})
    d = sa.derive(spec)
    g = sa.grad(d)
    close(dec(d["output"]), out)
    close(dec(g["dWq"]), lins[0].weight.grad)
    close(dec(g["dbq"]), lins[0].bias.grad.reshape(1, -1))
    close(dec(g["dbv"]), lins[2].bias.grad.reshape(1, -1))


def test_nn_multihead_attention_layout():
    rng = random.Random(9)
    n, E, H = 3, 4, 2
    X = rmat(rng, n, E)
    Win = rmat(rng, 3 * E, E)
    bin_ = rmat(rng, 1, 3 * E)[0]
    Wout, bout = rmat(rng, E, E), rmat(rng, 1, E)[0]
    mha = torch.nn.MultiheadAttention(E, H, batch_first=True, dtype=torch.float64)
    with torch.no_grad():
        mha.in_proj_weight.copy_(t64(Win))
        mha.in_proj_bias.copy_(torch.tensor([float(v) for v in bin_], dtype=torch.float64))
        mha.out_proj.weight.copy_(t64(Wout))
        mha.out_proj.bias.copy_(torch.tensor([float(v) for v in bout], dtype=torch.float64))
    x = t64(X).unsqueeze(0)
    out, _ = mha(x, x, x, need_weights=False)
    out.sum().backward()
    # in_proj_weight stacks [W_q; W_k; W_v] along dim 0, each (out, in): the torch layout
    spec = sa.from_dict({"inputs": {
        "X": text(X), "Wq": text(Win[:E]), "Wk": text(Win[E:2 * E]), "Wv": text(Win[2 * E:]),
        "bq": [str(v) for v in bin_[:E]], "bk": [str(v) for v in bin_[E:2 * E]], "bv": [str(v) for v in bin_[2 * E:]],
        "Wo": text(Wout), "bo": [str(v) for v in bout]}, "convention": {"layout": "torch", "heads": H}})
    d = sa.derive(spec)
    g = sa.grad(d)
    close(dec(d["output"]), out[0])
    grads = mha.in_proj_weight.grad
    close(dec(g["dWq"]), grads[:E])
    close(dec(g["dWk"]), grads[E:2 * E])
    close(dec(g["dWv"]), grads[2 * E:])
    close(dec(g["dWo"]), mha.out_proj.weight.grad)
    close(dec(g["dbo"]), mha.out_proj.bias.grad.reshape(1, -1))
    close(dec(g["dX"]), torch.autograd.grad(
        mha(t64(X, True).unsqueeze(0), *(t64(X).unsqueeze(0),) * 2, need_weights=False)[0].sum(),
        [], allow_unused=True) if False else _dx_mha(mha, X))


def _dx_mha(mha, X):
    x = t64(X, True)
    xb = x.unsqueeze(0)
    out, _ = mha(xb, xb, xb, need_weights=False)
    out.sum().backward()
    return x.grad


def test_exact_zero_gradient_when_values_are_equal():
    # equal value rows: O does not depend on P, so dQ = dK = 0 exactly (float32 torch gives ~1e-7)
    rng = random.Random(2)
    Q, K = rmat(rng, 3, 2), rmat(rng, 3, 2)
    V = [[Fraction(1, 3), Fraction(2)]] * 3
    g = sa.grad(sa.derive(sa.from_dict({"inputs": {"Q": text(Q), "K": text(K), "V": text(V)}})))
    assert all(x == "0" for row in g["dQ"].decimals(10) for x in row)
    assert all(x == "0" for row in g["dK"].decimals(10) for x in row)
