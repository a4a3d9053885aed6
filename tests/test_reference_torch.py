"""Each convention flag of `symattn reference` against PyTorch in float64 (SDPA with is_causal,
attn_mask and enable_gqa; autograd for the gradients), and FlashAttention's bottom-right causal
mask and sliding window written by hand as in its reference implementation."""

import math

import numpy as np
import pytest

import symattn as sa

torch = pytest.importorskip("torch")
F = torch.nn.functional
RTOL = 1e-12


def close(ours, theirs):
    theirs = theirs.detach().numpy() if isinstance(theirs, torch.Tensor) else theirs
    assert ours.shape == theirs.shape
    scale = np.abs(theirs).max() + 1e-300
    assert np.max(np.abs(ours - theirs)) <= RTOL * scale, np.max(np.abs(ours - theirs)) / scale


def rand(*shape, seed=0):
    g = torch.Generator().manual_seed(seed + sum(shape))
    return torch.randn(*shape, generator=g, dtype=torch.float64)


def ref(q, k, v, **kw):
    kw.setdefault("dtype", "float64")
    return sa.reference(q.numpy(), k.numpy(), v.numpy(), workers=1, **kw)


@pytest.mark.parametrize("sq,sk", [(5, 5), (4, 7)])
def test_is_causal_is_top_left(sq, sk):
    q, k, v = rand(2, 3, sq, 8), rand(2, 3, sk, 8, seed=1), rand(2, 3, sk, 8, seed=2)
    close(ref(q, k, v, causal="top-left").values["O"]["float64"], F.scaled_dot_product_attention(q, k, v,
                                                                                                 is_causal=True))
    close(ref(q, k, v).values["O"]["float64"], F.scaled_dot_product_attention(q, k, v))


def test_bottom_right_is_flash_attentions_mask_and_torchs_causal_lower_right():
    from torch.nn.attention.bias import causal_lower_right

    sq, sk = 4, 9
    q, k, v = rand(1, 2, sq, 8), rand(1, 2, sk, 8, seed=3), rand(1, 2, sk, 8, seed=4)
    # FlashAttention's attention_ref: key j is masked for query i when j > i + sk − sq
    row = torch.arange(sq)[:, None]
    col = torch.arange(sk)[None, :]
    fa_mask = ~(col > row + sk - sq)
    ours = ref(q, k, v, causal="bottom-right").values["O"]["float64"]
    close(ours, F.scaled_dot_product_attention(q, k, v, attn_mask=fa_mask))
    close(ours, F.scaled_dot_product_attention(q, k, v, attn_mask=causal_lower_right(sq, sk)))


def test_sliding_window_as_flash_attention_defines_it():
    sq, sk, left, right = 6, 8, 2, 1
    q, k, v = rand(1, 1, sq, 4), rand(1, 1, sk, 4, seed=5), rand(1, 1, sk, 4, seed=6)
    row = torch.arange(sq)[:, None]
    col = torch.arange(sk)[None, :]
    # flash_attn/tests: masked when col > row + sk − sq + right or col < row + sk − sq − left
    allowed = ~((col > row + sk - sq + right) | (col < row + sk - sq - left))
    close(ref(q, k, v, window=(left, right)).values["O"]["float64"],
          F.scaled_dot_product_attention(q, k, v, attn_mask=allowed))


def test_boolean_and_additive_masks():
    q, k, v = rand(2, 2, 5, 8), rand(2, 2, 6, 8, seed=7), rand(2, 2, 6, 8, seed=8)
    g = torch.Generator().manual_seed(9)
    keep = torch.rand(2, 1, 5, 6, generator=g) < 0.7
    keep[..., 0] = True
    close(ref(q, k, v, mask=keep.numpy()).values["O"]["float64"], F.scaled_dot_product_attention(q, k, v,
                                                                                                 attn_mask=keep))
    bias = rand(5, 6, seed=10)
    bias[1, 2] = -math.inf
    close(ref(q, k, v, bias=bias.numpy()).values["O"]["float64"], F.scaled_dot_product_attention(q, k, v,
                                                                                                 attn_mask=bias))


def test_gqa_maps_head_h_to_h_div_group():
    q, k, v = rand(1, 6, 5, 8), rand(1, 2, 7, 8, seed=11), rand(1, 2, 7, 8, seed=12)
    ours = ref(q, k, v).values["O"]["float64"]
    close(ours, F.scaled_dot_product_attention(q, k, v, enable_gqa=True))
    close(ours, F.scaled_dot_product_attention(q, k.repeat_interleave(3, 1), v.repeat_interleave(3, 1)))


def test_scale_as_given_and_exact():
    q, k, v = rand(1, 1, 4, 9), rand(1, 1, 5, 9, seed=13), rand(1, 1, 5, 9, seed=14)
    close(ref(q, k, v, scale=0.3, scale_dtype="float64").values["O"]["float64"],
          F.scaled_dot_product_attention(q, k, v, scale=0.3))
    close(ref(q, k, v, scale="exact").values["O"]["float64"], F.scaled_dot_product_attention(q, k, v,
                                                                                             scale=1 / 3))


def test_lse_matches_logsumexp_and_base_two():
    q, k, v = rand(2, 4, 8), rand(2, 6, 8, seed=15), rand(2, 6, 8, seed=16)
    s = q @ k.transpose(-1, -2) / math.sqrt(8)
    close(ref(q, k, v).values["LSE"]["float64"], torch.logsumexp(s, -1))
    close(ref(q, k, v, lse_base="2").values["LSE"]["float64"], torch.logsumexp(s, -1) / math.log(2))


def test_softcap_and_alibi_as_flash_attention_applies_them():
    sq, sk, H = 4, 6, 2
    q, k, v = rand(1, H, sq, 8), rand(1, H, sk, 8, seed=17), rand(1, H, sk, 8, seed=18)
    slopes = torch.tensor([0.5, 0.125], dtype=torch.float64)
    s = q @ k.transpose(-1, -2) / math.sqrt(8)
    s = 3.0 * torch.tanh(s / 3.0)
    dist = (torch.arange(sq)[:, None] + sk - sq - torch.arange(sk)[None, :]).abs()
    s = s - slopes[None, :, None, None] * dist
    want = torch.softmax(s, -1) @ v
    close(ref(q, k, v, softcap=3.0, alibi=slopes.numpy()).values["O"]["float64"], want)


def test_gradients_match_autograd():
    q, k, v = rand(1, 4, 5, 8), rand(1, 2, 7, 8, seed=19), rand(1, 2, 7, 8, seed=20)
    do = rand(1, 4, 5, 8, seed=21)
    qt, kt, vt = (t.clone().requires_grad_(True) for t in (q, k, v))
    out = F.scaled_dot_product_attention(qt, kt, vt, is_causal=True, enable_gqa=True)
    out.backward(do)
    r = ref(q, k, v, grad=do.numpy(), causal="top-left")
    close(r.values["dQ"]["float64"], qt.grad)
    close(r.values["dK"]["float64"], kt.grad)
    close(r.values["dV"]["float64"], vt.grad)
