"""An independent oracle for the kernel-reference tests: attention in mpmath at 400 bits, and
rounding to a float format by comparing the nearest candidates exactly (no symattn code)."""

from __future__ import annotations

import math
from typing import Optional

import numpy as np
from mpmath import mp, mpf

PREC = 400


def attention(q, k, v, tau, *, allowed=None, bias=None, softcap=None, base2=False, do=None):
    """O, LSE (and dQ, dK, dV for ``do``) of float64 arrays (exact values) as mpf lists.

    ``tau``: a float, or ("invsqrt", d). Rows with no allowed key give None.
    """
    with mp.workprec(PREC):
        n, m = q.shape[0], k.shape[0]
        t = 1 / mp.sqrt(tau[1]) if isinstance(tau, tuple) else mpf(float(tau))
        S = [[None] * m for _ in range(n)]
        for i in range(n):
            for j in range(m):
                if allowed is not None and not allowed[i, j]:
                    continue
                x = t * mp.fsum(mpf(float(a)) * mpf(float(b)) for a, b in zip(q[i], k[j]))
                if softcap is not None:
                    x = softcap * mp.tanh(x / softcap)
                if bias is not None:
                    if bias[i, j] == -np.inf:
                        continue
                    x += mpf(float(bias[i, j]))
                S[i][j] = x
        O, L, P = [], [], []
        for i in range(n):
            live = [x for x in S[i] if x is not None]
            if not live:
                O.append(None), L.append(None), P.append(None)
                continue
            mx = max(live)
            e = [mp.exp(x - mx) if x is not None else mpf(0) for x in S[i]]
            z = mp.fsum(e)
            P.append([x / z for x in e])
            O.append([mp.fsum(e[j] * mpf(float(v[j, c])) for j in range(m)) / z for c in range(v.shape[1])])
            lse = mx + mp.log(z)
            L.append(lse / mp.log(2) if base2 else lse)
        if do is None:
            return O, L
        dv_ = v.shape[1]
        d = q.shape[1]
        dQ = [[mpf(0)] * d for _ in range(n)]
        dK = [[mpf(0)] * d for _ in range(m)]
        dV = [[mpf(0)] * dv_ for _ in range(m)]
        for i in range(n):
            if P[i] is None:
                continue
            D = mp.fsum(mpf(float(do[i, c])) * O[i][c] for c in range(dv_))
            for j in range(m):
                dp = mp.fsum(mpf(float(do[i, c])) * mpf(float(v[j, c])) for c in range(dv_))
                ds = P[i][j] * (dp - D)
                for c in range(d):
                    dQ[i][c] += t * ds * mpf(float(k[j, c]))
                    dK[j][c] += t * ds * mpf(float(q[i, c]))
                for c in range(dv_):
                    dV[j][c] += P[i][j] * mpf(float(do[i, c]))
        return O, L, dQ, dK, dV


def _dtype(fmt: str):
    if fmt == "bfloat16":
        import ml_dtypes

        return ml_dtypes.bfloat16
    return {"float64": np.float64, "float32": np.float32, "float16": np.float16}[fmt]


def _neighbours(c: float, fmt: str) -> set[float]:
    dt = _dtype(fmt)
    base = np.array([c], dtype=dt)
    out = {float(base[0])}
    bits_t = {2: np.uint16, 4: np.uint32, 8: np.uint64}[base.itemsize]
    for step in (-2, -1, 1, 2):
        b = int(base.view(bits_t)[0])
        sign = b >> (8 * base.itemsize - 1)
        mag = b & ((1 << (8 * base.itemsize - 1)) - 1)
        # walk along the number line by |step| representable values
        val = (-mag if sign else mag) + step
        nb = (abs(val) | ((1 << (8 * base.itemsize - 1)) if val < 0 else 0))
        x = np.array([nb], dtype=bits_t).view(dt)[0]
        out.add(float(x))
    return out


def round_to(x: Optional[mpf], fmt: str) -> float:
    """The nearest value of ``fmt`` to x, ties to the even bit pattern; +0 for an exact zero."""
    if x is None:
        return math.nan
    if x == 0:
        return 0.0
    with mp.workprec(PREC):
        guess = float(np.array([float(x)], dtype=np.float64).astype(_dtype(fmt))[0])
        best, tie = None, False
        for cand in _neighbours(guess, fmt):
            if math.isinf(cand) or math.isnan(cand):
                continue
            dist = abs(mpf(cand) - x)
            if best is None or dist < best[0]:
                best, tie = (dist, cand), False
            elif dist == best[0] and cand != best[1]:
                tie = True
                even = [c for c in (best[1], cand) if _even(c, fmt)]
                best = (dist, even[0])
        assert best is not None
        if tie and best[0] == 0:
            tie = False
        return best[1]


def _even(c: float, fmt: str) -> bool:
    dt = _dtype(fmt)
    a = np.array([c], dtype=dt)
    bits_t = {2: np.uint16, 4: np.uint32, 8: np.uint64}[a.itemsize]
    return int(a.view(bits_t)[0]) % 2 == 0


def ambiguous(x: Optional[mpf], fmt: str) -> bool:
    """Whether x is within 2^-300 (relative) of a rounding midpoint of ``fmt``: the oracle's
    400 bits cannot be trusted to round it, and the test must know the answer another way."""
    if x is None or x == 0:
        return False
    with mp.workprec(PREC):
        r = round_to(x, fmt)
        others = [c for c in _neighbours(r, fmt) if c != r and math.isfinite(c)]
        for c in others:
            mid = (mpf(c) + mpf(r)) / 2
            if abs(x - mid) <= abs(x) * mpf(2) ** -300:
                return True
    return False
