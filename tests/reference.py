"""An independent float64 attention in NumPy, written from the reference formulas
(Vaswani et al. eq. 1; PyTorch SDPA semantics for masks), used as ground truth
within 1e-12. It shares no code with symattn."""

from __future__ import annotations

from fractions import Fraction

import numpy as np


def f64(m) -> np.ndarray:
    return np.array([[float(Fraction(x)) for x in r] for r in m], dtype=np.float64)


def softmax_rows(s: np.ndarray, zero_full_rows: bool = False) -> np.ndarray:
    out = np.zeros_like(s)
    for i, row in enumerate(s):
        if np.all(np.isneginf(row)):
            if not zero_full_rows:
                raise ValueError("fully masked")
            continue
        m = row[~np.isneginf(row)].max()
        e = np.exp(row - m)
        out[i] = e / e.sum()
    return out


def attention(q, k, v, scale, allowed=None, bias=None, mask_value=-np.inf, axis="keys",
              zero_full_rows=False):
    """softmax(scale * q k^T + bias, masked) v with row-vector conventions."""
    s = scale * (q @ k.T)
    if bias is not None:
        s = s + bias
    if allowed is not None:
        s = np.where(allowed, s, mask_value)
    if axis == "keys":
        p = softmax_rows(s, zero_full_rows)
    else:
        p = softmax_rows(s.T, zero_full_rows).T
    return p, p @ v


def causal(nq, nk, bottom_right=False):
    off = nk - nq if bottom_right else 0
    return np.array([[j <= i + off for j in range(nk)] for i in range(nq)])
