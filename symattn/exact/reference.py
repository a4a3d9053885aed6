"""Certified attention references for kernel engineers: O, LSE, dQ, dK, dV correctly rounded.

Each output entry is the exact value of attention on the given float inputs, rounded to
nearest-even in every requested format (float64, float32, bfloat16, float16). Inputs are
dyadic rationals, so scores are exact (integer products, python-flint ``fmpz_mat``);
exponentials, sums and quotients are enclosed. A float64 fast path with proven error
bounds (:mod:`~symattn.exact.reference_fast`) decides almost every entry; the rest go to
ball arithmetic with precision raised only where a rounding is undecided, and exact ties
are decided by the Lindemann–Weierstrass group test (:mod:`~symattn.exact.reference_exact`).
No entry of O or LSE is left undecided. A gradient entry that precision up to
:data:`GRAD_MAX_BITS` does not decide is reported with its enclosure (and written as NaN).

Rows are independent given K and V, so the work is split into row blocks, run in worker
processes or on a Dask cluster (:mod:`~symattn.exact.parallel`); memory stays bounded by
the row block.

>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> q, k, v = (rng.standard_normal((4, 8)).astype(np.float32) for _ in range(3))
>>> r = reference(q, k, v, dtype="float32", workers=1)
>>> r["O"].dtype, r["O"].shape, r["LSE"].shape
(dtype('float32'), (4, 8), (4,))
>>> bool(abs(r["O"].astype(np.float64) - _plain(q, k, v)).max() < 1e-6)
True
"""

from __future__ import annotations

import json
import math
import time
from collections import Counter
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable, Mapping, Optional, Sequence

import numpy as np

from ..errors import CertificationError, SymattnError
from ..limits import MAX_PRECISION_BITS
from ..read.tensors import FloatTensor, as_float_tensor, check_finite, from_bhsd, to_bhsd
from ..read.tensors_conventions import KernelConventions
from . import reference_fast as rf
from .floats import FORMATS, Format, as_dtype, dyadic, parse_format, round_rational, round_to
from .reference_exact import (ExactRows, IntTensor, RowData, Tau, decide_with_boundary, pack_arb, round_ball,
                              unpack_arb, workprec)

__all__ = ["reference", "Reference", "Problem", "prepare", "GRAD_MAX_BITS", "TENSORS", "solve_rows",
           "float64_attention"]

#: the precision up to which gradient entries are enclosed before being reported undecided
GRAD_MAX_BITS = 1024
#: entries of one row block's score matrix (rows × keys): the memory bound of a worker
BLOCK_ENTRIES = 1 << 19
#: output tensors, in file order
TENSORS = ("O", "LSE", "dQ", "dK", "dV")
_START_BITS = 96


def _plain(q: np.ndarray, k: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Float64 attention with the kernel-default scale (for doctests)."""
    q, k, v = (np.asarray(a, dtype=np.float64) for a in (q, k, v))
    s = q @ k.T * float(np.float32(1 / math.sqrt(q.shape[-1])))
    p = np.exp(s - s.max(axis=-1, keepdims=True))
    return (p / p.sum(axis=-1, keepdims=True)) @ v


# ------------------------------------------------------------------------------------------- the problem

@dataclass
class Problem:
    """One attention computation, validated, in (batch, heads, seq, d) float64 arrays of exact values."""

    q: np.ndarray
    k: np.ndarray
    v: np.ndarray
    do: Optional[np.ndarray]
    bias: Optional[np.ndarray]          # broadcast to (B, H, Sq, Sk) (a view), float64, −inf allowed
    mask: Optional[np.ndarray]          # broadcast to (B, H, Sq, Sk), True = attend
    alibi: Optional[np.ndarray]         # (B, H) slopes
    conv: KernelConventions
    tau: Tau
    formats: tuple[Format, ...]
    lse: bool
    dtype: str
    ndim: int
    sources: dict[str, str]
    fast: Any = True          # True: all tiers; False: ball arithmetic only; "dd": skip the float64 decisions (tests)
    inputs: dict = field(default_factory=dict, repr=False)   # role -> (values as given, dtype), for fixtures
    _exact: dict = field(default_factory=dict, repr=False)

    @property
    def shape(self) -> tuple[int, int, int, int, int, int]:
        B, H, Sq, D = self.q.shape
        return B, H, Sq, self.k.shape[2], D, self.v.shape[3]

    @property
    def group(self) -> int:
        return self.q.shape[1] // self.k.shape[1]

    def __getstate__(self) -> dict:
        d = dict(self.__dict__)
        d["_exact"] = {}
        d["inputs"] = {}
        return d

    def additive(self, b: int, h: int, rows: np.ndarray) -> tuple[Optional[np.ndarray], bool, Optional[np.ndarray]]:
        """(additive terms (R, Sk) float64 or None, whether they are exact, allowed mask or None)."""
        B, H, Sq, Sk, D, Dv = self.shape
        allowed = self.conv.structural_mask(rows, Sq, Sk)
        if self.mask is not None:
            m = self.mask[b, h, rows]
            allowed = m.copy() if allowed is None else allowed & m
        add = None
        exact = True
        if self.bias is not None:
            add = np.array(self.bias[b, h, rows], dtype=np.float64)
        if self.alibi is not None:
            slope = float(self.alibi[b, h])
            off = self.conv.offset(Sq, Sk)
            dist = np.abs(rows[:, None] + off - np.arange(Sk)[None, :]).astype(np.float64)
            term = -slope * dist
            sm, _ = dyadic(slope)
            if abs(sm).bit_length() + int(dist.max(initial=0)).bit_length() > 53:
                exact = False
            if add is None:
                add = term
            else:
                with np.errstate(invalid="ignore"):
                    add = add + term
                exact = False
        return add, exact, allowed

    def additive_dd(self, b: int, h: int, rows: np.ndarray) \
            -> tuple[Optional[np.ndarray], Optional[np.ndarray], Optional[np.ndarray]]:
        """The additive terms (bias + ALiBi) of rows as a double-float (hi, lo), and the allowed mask."""
        from .reference_dd import two_prod, two_sum

        B, H, Sq, Sk, D, Dv = self.shape
        _, _, allowed = self.additive(b, h, rows)
        hi = lo = None
        if self.bias is not None:
            hi = np.array(self.bias[b, h, rows], dtype=np.float64)
            lo = np.zeros_like(hi)
        if self.alibi is not None:
            off = self.conv.offset(Sq, Sk)
            dist = np.abs(rows[:, None] + off - np.arange(Sk)[None, :]).astype(np.float64)
            th, tl = two_prod(np.full_like(dist, -float(self.alibi[b, h])), dist)
            if hi is None:
                hi, lo = th, tl
            else:
                fin = np.isfinite(hi)
                sh, se = two_sum(np.where(fin, hi, 0.0), th)
                hi = np.where(fin, sh, -np.inf)
                lo = np.where(fin, se + tl, 0.0)
        return hi, lo, allowed

    def additive_exact(self, b: int, h: int, row: int, allowed: np.ndarray) -> tuple[Optional[list[int]], int]:
        """The exact additive terms (bias + ALiBi) of one row as integers and their exponent."""
        B, H, Sq, Sk, D, Dv = self.shape
        if self.bias is None and self.alibi is None:
            return None, 0
        parts: list[tuple[list[int], int]] = []
        if self.bias is not None:
            brow = np.where(allowed, self.bias[b, h, row], 0.0)
            brow = np.where(np.isfinite(brow), brow, 0.0)
            it = IntTensor.of(brow[None, :])
            parts.append((it.ints[0], it.exp))
        if self.alibi is not None:
            sm, se = dyadic(float(self.alibi[b, h]))
            off = self.conv.offset(Sq, Sk)
            parts.append(([-sm * abs(row + off - j) for j in range(Sk)], se))
        e0 = min(e for _, e in parts)
        total = [0] * Sk
        for ints, e in parts:
            sh = e - e0
            for j in range(Sk):
                if ints[j]:
                    total[j] += ints[j] << sh
        return total, e0

    def sides(self, b: int, g: int) -> tuple[rf.Side, Optional[rf.Side]]:
        """K (and V, for gradients) prepared for the fast path's split products (cached)."""
        key = ("side", b, g)
        if key not in self._exact:
            self._exact[key] = (rf.make_side(self.k[b, g]), rf.make_side(self.v[b, g]) if self.do is not None
                                else None)
        return self._exact[key]

    def exact_rows(self, b: int, g: int) -> ExactRows:
        key = (b, g)
        if key not in self._exact:
            if len(self._exact) > 8:
                self._exact.clear()
            self._exact[key] = ExactRows(self.k[b, g], self.v[b, g], self.tau, self.conv.softcap)
        return self._exact[key]

    def block_rows(self) -> int:
        B, H, Sq, Sk, D, Dv = self.shape
        return int(min(512, max(8, BLOCK_ENTRIES // max(Sk, 1))))


def _resolve_tau(conv: KernelConventions, d: int, dtype: str) -> Tau:
    sd = conv.scale_dtype or ("float64" if dtype == "float64" else "float32")
    fmt = FORMATS[sd]
    if conv.scale == "exact":
        r = math.isqrt(d)
        if r * r == d and r & (r - 1) == 0:
            return Tau("dyadic", 1.0 / r)
        return Tau("invsqrt", 1.0 / math.sqrt(d), d=d, rel_error=2 * rf.U)
    if conv.scale == "kernel":
        value = float(round_to(np.array([1.0 / math.sqrt(d)]), fmt)[0])
    else:
        f = conv.scale
        value = round_rational(f.numerator, f.denominator, fmt)
    if not (value > 0 and math.isfinite(value)):
        raise SymattnError(f"scale: {conv.scale} rounds to {value} in {sd}; expected a positive finite scale")
    return Tau("dyadic", value)


def prepare(q: Any, k: Any, v: Any, *, grad: Any = None, bias: Any = None, mask: Any = None, alibi: Any = None,
            conventions: Optional[KernelConventions] = None, dtype: Any = None, lse: bool = True,
            fast: bool = True, uint16: str = "bfloat16") -> Problem:
    """Validate inputs (arrays, torch tensors, or :class:`FloatTensor` read from files) and conventions."""
    conv = conventions or KernelConventions()
    tq = as_float_tensor(q, _src(q, "q"), uint16=uint16)
    tk = as_float_tensor(k, _src(k, "k"), uint16=uint16)
    tv = as_float_tensor(v, _src(v, "v"), uint16=uint16)
    for t, role in ((tq, "q"), (tk, "k"), (tv, "v")):
        check_finite(t, role)
    lay = conv.layout
    Q = to_bhsd(tq.values, lay, tq.source, "q")
    K = to_bhsd(tk.values, lay, tk.source, "k")
    V = to_bhsd(tv.values, lay, tv.source, "v")
    for t in (tk, tv):
        if t.dtype != tq.dtype:
            raise SymattnError(f"{t.source}: dtype {t.dtype} differs from {tq.source}'s {tq.dtype}; "
                               "q, k and v must have one dtype, as kernels take them")
        if t.values.ndim != tq.values.ndim:
            raise SymattnError(f"{t.source}: {t.values.ndim} dimensions, but {tq.source} has {tq.values.ndim}; "
                               "q, k and v must have the same layout")
    B, H, Sq, D = Q.shape
    if K.shape[0] != B or V.shape[0] != B:
        raise SymattnError(f"{tk.source}: batch {K.shape[0]} differs from {tq.source}'s {B}")
    if K.shape[3] != D:
        raise SymattnError(f"{tk.source}: head dimension {K.shape[3]} differs from {tq.source}'s {D} "
                           f"(layout {lay}: q is {tuple(tq.shape)}, k is {tuple(tk.shape)})")
    if K.shape[1] != V.shape[1] or K.shape[2] != V.shape[2]:
        raise SymattnError(f"{tv.source}: expected {K.shape[1]} heads and {K.shape[2]} keys like "
                           f"{tk.source} (layout {lay}), got shape {tuple(tv.shape)}")
    Hkv = K.shape[1]
    if Hkv == 0 or H % Hkv:
        raise SymattnError(f"{tq.source}: {H} query heads are not a multiple of {tk.source}'s {Hkv} key/value "
                           "heads (GQA maps query head h to key/value head h // (H/H_kv))")
    if D == 0 or Sq == 0 or K.shape[2] == 0:
        raise SymattnError(f"{tq.source}: empty tensor (q {tuple(tq.shape)}, k {tuple(tk.shape)})")
    Sk, Dv = K.shape[2], V.shape[3]
    sources = {"q": tq.source, "k": tk.source, "v": tv.source}
    dO = None
    if grad is not None:
        tg = as_float_tensor(grad, _src(grad, "dO"), uint16=uint16)
        check_finite(tg, "dO")
        if tg.dtype != tq.dtype:
            raise SymattnError(f"{tg.source}: dtype {tg.dtype} differs from {tq.source}'s {tq.dtype}")
        if tg.values.ndim != tq.values.ndim:
            raise SymattnError(f"{tg.source}: dO must be shaped like the output {_shape_like(tq, Dv, lay)}, "
                               f"got {tuple(tg.shape)}")
        dO = to_bhsd(tg.values, lay, tg.source, "dO")
        if dO.shape != (B, H, Sq, Dv):
            raise SymattnError(f"{tg.source}: dO must be shaped like the output {_shape_like(tq, Dv, lay)}, "
                               f"got {tuple(tg.shape)}")
        sources["dO"] = tg.source
    full = (B, H, Sq, Sk)
    bias_b = None
    if bias is not None:
        tb = as_float_tensor(bias, _src(bias, "bias"), uint16=uint16)
        check_finite(tb, "bias", allow_neg_inf=True)
        bias_b = _broadcast(tb.values, full, tb.source, "bias")
        sources["bias"] = tb.source
    mask_b = None
    if mask is not None:
        m, src = _bool_array(mask)
        mask_b = _broadcast(m, full, src, "mask")
        sources["mask"] = src
    alibi_b = None
    if alibi is not None:
        ta = as_float_tensor(alibi, _src(alibi, "alibi"), uint16=uint16)
        check_finite(ta, "alibi slopes")
        a = ta.values
        if a.shape == (H,):
            a = np.broadcast_to(a[None, :], (B, H))
        elif a.shape != (B, H):
            raise SymattnError(f"{ta.source}: ALiBi slopes must have shape ({H},) or ({B}, {H}), got {a.shape}")
        alibi_b = np.asarray(a, dtype=np.float64)
        sources["alibi"] = ta.source
    if conv.softcap is not None and (bias_b is not None or alibi_b is not None or mask_b is not None):
        pass
    formats = _formats(dtype, tq.dtype)
    tau = _resolve_tau(conv, D, tq.dtype)
    inputs = {"q": (tq.values, tq.dtype), "k": (tk.values, tk.dtype), "v": (tv.values, tv.dtype)}
    if grad is not None:
        inputs["dO"] = (tg.values, tg.dtype)
    if bias is not None:
        inputs["bias"] = (tb.values, tb.dtype)
    if mask is not None:
        inputs["mask"] = (m, "bool")
    if alibi is not None:
        inputs["alibi"] = (ta.values, ta.dtype)
    return Problem(np.ascontiguousarray(Q), np.ascontiguousarray(K), np.ascontiguousarray(V),
                   None if dO is None else np.ascontiguousarray(dO), bias_b, mask_b, alibi_b, conv, tau, formats,
                   lse, tq.dtype, tq.values.ndim, sources, fast, inputs)


def _src(obj: Any, role: str) -> str:
    return obj.source if isinstance(obj, FloatTensor) else role


def _shape_like(t: FloatTensor, dv: int, layout: str) -> str:
    s = list(t.shape)
    s[-1] = dv
    return str(tuple(s))


def _broadcast(a: np.ndarray, full: tuple[int, ...], source: str, role: str) -> np.ndarray:
    try:
        return np.broadcast_to(a, full)
    except ValueError:
        raise SymattnError(f"{source}: {role} of shape {tuple(a.shape)} does not broadcast to (batch, heads, "
                           f"seq_q, seq_k) = {full}") from None


def _bool_array(mask: Any) -> tuple[np.ndarray, str]:
    if isinstance(mask, tuple) and len(mask) == 2:  # (array, source) from a file
        mask, src = mask
    else:
        src = "mask"
    if type(mask).__module__.startswith("torch"):
        mask = mask.detach().cpu().numpy()
    m = np.asarray(mask)
    if m.dtype != np.bool_:
        raise SymattnError(f"{src}: a mask must be boolean (True = attend, as SDPA's attn_mask); got dtype "
                           f"{m.dtype} (pass a float tensor as bias instead)")
    return m, src


def _formats(dtype: Any, input_dtype: str) -> tuple[Format, ...]:
    if dtype is None:
        names = [input_dtype] + (["float32"] if input_dtype in ("bfloat16", "float16") else [])
    elif isinstance(dtype, str):
        names = [d for d in dtype.split(",") if d.strip()]
    else:
        names = list(dtype)
    fmts: list[Format] = []
    for n in names:
        f = parse_format(str(n))
        if f not in fmts:
            fmts.append(f)
    if not fmts:
        raise SymattnError("dtype: expected at least one of float64, float32, bfloat16, float16")
    return tuple(fmts)


# ------------------------------------------------------------------------------------------- a task

def solve_rows(P: Problem, b: int, h: int, r0: int, r1: int, parts_total: int = 1) -> dict[str, Any]:
    """Forward (and backward when ``P.do`` is given) for query rows [r0, r1) of head (b, h).

    Returns plain data (NumPy arrays, numbers): decided values per format, condition
    scales, statistics, enclosures of undecided entries, and this task's contributions to
    dK and dV with their bounds (summed over its row blocks).
    """
    B, H, Sq, Sk, D, Dv = P.shape
    g = h // P.group
    q, k, v = P.q[b, h], P.k[b, g], P.v[b, g]
    do = None if P.do is None else P.do[b, h]
    n = r1 - r0
    stats: Counter = Counter()
    out: dict[str, Any] = {"b": b, "h": h, "r0": r0, "r1": r1, "stats": stats, "undecided": [], "masked": []}
    O = {f.name: np.empty((n, Dv)) for f in P.formats}
    LSE = {f.name: np.empty(n) for f in P.formats} if P.lse else {}
    dQ = {f.name: np.empty((n, D)) for f in P.formats} if do is not None else {}
    scale_o = np.empty((n, Dv), dtype=np.float32)
    scale_lse = np.empty(n, dtype=np.float32) if P.lse else None
    scale_dq = np.empty((n, D), dtype=np.float32) if do is not None else None
    acc = None
    softcap = None if P.conv.softcap is None else float(P.conv.softcap)
    R = P.block_rows()
    kside, vside = P.sides(b, g)
    pend_o: dict[int, list[tuple[int, Format]]] = {}
    pend_l: dict[int, list[Format]] = {}
    pend_q: dict[int, list[tuple[int, Format]]] = {}
    refs: dict[int, float] = {}
    fused = _fused(P)
    rowstats = []
    if fused:
        from . import reference_dd as dd

        vext, absk = rf.extend_v(v), np.abs(k)
        vmax = np.abs(v).max(axis=0, initial=0.0)
        tau_h, tau_l = _tau_dd(P.tau)
    for s0 in range(r0, r1, R):
        rows = np.arange(s0, min(s0 + R, r1))
        sl = slice(s0 - r0, s0 - r0 + len(rows))
        if fused:
            add_h, add_l, allowed = P.additive_dd(b, h, rows)
            blk = dd.RowsDD(q[rows], do[rows], kside, vside, tau_h, tau_l, add_h, add_l, allowed, None)
            rowstats.append(blk.stats())
            f = rf.forward_from(blk.eh, blk.e_rel(), 2.0 ** -998, blk.ref, blk.live, v, (blk.lh, blk.ll, blk.l_err),
                                vext, vmax)
            del add_h, add_l
        else:
            add, add_exact, allowed = P.additive(b, h, rows)
            f = rf.forward(q[rows], kside, v, P.tau.value, P.tau.rel_error, add, add_exact, allowed, softcap)
        if f.masked.any():
            if P.conv.masked_rows == "error":
                i = int(rows[np.argmax(f.masked)])
                raise SymattnError(f"{P.sources['q']}: query row {i} of head {h} (batch {b}) has every key masked "
                                   "(masked rows: error; use --masked-rows zero or nan)")
            out["masked"].extend(int(i) for i in rows[f.masked])
        _decide_block(P, "O", f.o, f.o_bound, f.masked, rows, sl, O, pend_o, stats, zero_sign=True)
        scale_o[sl] = f.scale
        if P.lse:
            _lse_fast(P, f, rows, LSE, r0, pend_l, stats)
            scale_lse[sl] = np.maximum(np.abs(f.ref), 1.0)
        for r in np.flatnonzero(~f.masked):
            if int(rows[r]) in pend_o or int(rows[r]) in pend_l:
                refs[int(rows[r])] = float(f.ref[r])
        if do is not None:
            pre = (blk.dph, blk.dperr, blk.dh, blk.dl, blk.d_err) if fused else None
            bw = rf.backward(f, q[rows], k, vside, v, do[rows], P.tau.value, P.tau.rel_error, pre,
                             absk if fused else None)
            if fused:
                del blk, pre
            if P.conv.masked_rows == "nan":
                bw.dq[f.masked] = math.nan
            _decide_block(P, "dQ", bw.dq, bw.dq_bound, f.masked, rows, sl, dQ, pend_q, stats, zero_sign=False)
            scale_dq[sl] = bw.dq_scale
            for r in np.flatnonzero(~f.masked):
                if int(rows[r]) in pend_q:
                    refs[int(rows[r])] = float(f.ref[r])
            if acc is None:
                acc = rf.KVSum()
            acc.add(bw)
            stats["parts"] += 1
    if (pend_o or pend_l) and P.fast and P.conv.softcap is None:
        pend_o, pend_l = _dd_forward(P, b, h, g, r0, refs, pend_o, pend_l, O, LSE, stats)
    if pend_o or pend_l:
        _exact_forward(P, b, h, g, r0, refs, pend_o, pend_l, O, LSE, stats, out["undecided"])
    if pend_q and P.fast and P.conv.softcap is None:
        pend_q = _dd_dq(P, b, h, g, r0, refs, pend_q, dQ, stats)
    if pend_q:
        _exact_dq(P, b, h, g, r0, refs, pend_q, dQ, stats, out["undecided"])
    out["O"] = O
    out["scale.O"] = scale_o
    if P.lse:
        out["LSE"] = LSE
        out["scale.LSE"] = scale_lse
    if do is not None:
        out["dQ"] = dQ
        out["scale.dQ"] = scale_dq
        # the bounds travel as float32 rounded up (half the bytes of a task's result, which is
        # seq_k × d whatever the task's rows); the sums and scales as they are
        kv = None if acc is None else acc.partial(rf.gamma(parts_total))
        out["kv"] = None if kv is None else [kv[0], _up32(kv[1]), kv[2], kv[3], _up32(kv[4]), kv[5]]
        out["rowstats"] = rowstats[0].concat(rowstats) if rowstats else None
    return out


def _up32(a: np.ndarray) -> np.ndarray:
    """float32 values at least ``a`` (nonnegative bounds): each rounded, then moved up one float32
    where the rounding went down; inf above float32's range, NaN stays NaN.

    >>> _up32(np.array([0.1, 2.0 ** -1000, 0.0])).tolist() == [float(np.float32(0.1)), 2.0 ** -149, 0.0]
    True
    """
    with np.errstate(over="ignore"):
        b = a.astype(np.float32)
    low = b.astype(np.float64) < a
    b[low] = np.nextafter(b[low], np.float32(np.inf))
    return b


def _fused(P: Problem) -> bool:
    """Whether the float32/float64 backward makes its double-float row statistics in the row pass.

    dK and dV sum over every query row, and their float64 enclosures (about 2⁻⁴⁵ of their scale)
    leave some float32 entries undecided at long sequences; deciding those needs every row's L and
    D in double-float (docs/kernels.md), so on such problems a double-float pass over all scores
    runs anyway. Made in the row pass instead, it shares the scores, the exponentials and dP with
    the float64 fast path (which then starts from the double-float values: P to about 2u instead
    of the float64 sum's 2⁻⁴⁶), and the dK/dV pass forms exponentials only on the undecided key
    columns. Not for 16-bit outputs alone (the float64 path decides their gradients), a softcap
    (no double-float tanh), or ball arithmetic only.
    """
    return (P.do is not None and bool(P.fast) and P.conv.softcap is None
            and any(fmt.p >= 24 for fmt in P.formats))


def _decide_block(P: Problem, name: str, value: np.ndarray, bound: np.ndarray, masked: np.ndarray,
                  rows: np.ndarray, sl: slice, store: dict, pend: dict, stats: Counter, zero_sign: bool) -> None:
    """Round a block's fast-path values in every format where the enclosure decides; fully masked
    rows get the convention's fill; the rest is queued in ``pend`` (absolute row → [(col, format)])."""
    fill = 0.0 if P.conv.masked_rows == "zero" else math.nan
    width = value.shape[1]
    for fmt in P.formats:
        if P.fast is True:
            vals, ok = rf.decide(value, bound, fmt, zero_sign=zero_sign)
        else:
            vals, ok = np.zeros_like(value), np.zeros(value.shape, dtype=bool)
        vals[masked] = fill
        ok[masked] = True
        store[fmt.name][sl] = vals
        stats[f"{name}.{fmt.name}.entries"] += ok.size - int(masked.sum()) * width
        stats[f"{name}.{fmt.name}.fast"] += int(ok.sum()) - int(masked.sum()) * width
        for r, c in zip(*np.nonzero(~ok)):
            pend.setdefault(int(rows[r]), []).append((int(c), fmt))


def _lse_fast(P: Problem, f: rf.Forward, rows: np.ndarray, LSE: dict, r0: int, pend: dict, stats: Counter) -> None:
    from flint import arb

    base2 = P.conv.lse_base == "2"
    n = len(f.ref)
    fill = -math.inf if P.conv.masked_rows == "zero" else math.nan
    with workprec(128):
        ln2 = arb.const_log2()
        for r in range(n):
            i = int(rows[r]) - r0
            if f.masked[r]:
                for fmt in P.formats:
                    LSE[fmt.name][i] = fill
                continue
            ok = P.fast is True and f.l_lo[r] > 0 and math.isfinite(f.l_hi[r]) and math.isfinite(f.ref[r])
            ball = None
            if ok:
                ball = arb(float(f.l_lo[r])).union(arb(float(f.l_hi[r]))).log() + arb(float(f.ref[r]))
                if base2:
                    ball = ball / ln2
            for fmt in P.formats:
                stats[f"LSE.{fmt.name}.entries"] += 1
                value = round_ball(ball, fmt)[0] if ball is not None else None
                if value is None:
                    pend.setdefault(int(rows[r]), []).append(fmt)
                    LSE[fmt.name][i] = math.nan
                else:
                    stats[f"LSE.{fmt.name}.fast"] += 1
                    LSE[fmt.name][i] = value


def _row_data(P: Problem, b: int, h: int, ex: ExactRows, rows: Sequence[int], refs: Mapping[int, float]) \
        -> tuple[list[RowData], int]:
    """Exact row data for absolute query rows ``rows`` of head (b, h)."""
    B, H, Sq, Sk, D, Dv = P.shape
    idx = np.asarray(rows, dtype=np.int64)
    ints, qk_exp = ex.score_ints(P.q[b, h][idx])
    _, _, allowed = P.additive(b, h, idx)
    if P.bias is not None:
        finite = np.isfinite(P.bias[b, h][idx])
        allowed = finite if allowed is None else allowed & finite
    data = []
    for t, r in enumerate(rows):
        al = np.ones(Sk, dtype=bool) if allowed is None else allowed[t]
        add, add_exp = P.additive_exact(b, h, int(r), al)
        ref = refs.get(int(r), math.nan)
        if not math.isfinite(ref):
            ref = _exact_ref(ex, ints[t], al, qk_exp, add, add_exp)
        data.append(RowData(ints[t], al, add, add_exp, dyadic(ref)))
    return data, qk_exp


_BATCH = 64


def _exact_ref(ex: ExactRows, ints: list[int], allowed: np.ndarray, qk_exp: int, add, add_exp) -> float:
    """A finite float near the row's largest score, computed from the exact scores."""
    from flint import arb

    best = None
    with workprec(64):
        for j in np.flatnonzero(allowed):
            s = arb(ints[j]) * ex.tau.arb() * arb(2) ** qk_exp
            if ex.softcap is not None:
                cap = arb(ex.softcap.numerator) / ex.softcap.denominator
                s = cap * (s / cap).tanh()
            if add is not None:
                s = s + arb((add[j], add_exp))
            m = float(s.mid())
            best = m if best is None else max(best, m)
    if best is None or not math.isfinite(best):
        raise SymattnError("scores beyond the float64 range could not be given a reference value")
    return best


def _exact_forward(P: Problem, b: int, h: int, g: int, r0: int, refs: Mapping[int, float], pend_o: dict,
                   pend_l: dict, O: dict, LSE: dict, stats: Counter, undecided: list) -> None:
    """Ball arithmetic (and tie and sign tests) for the undecided O and LSE entries of a task."""
    from flint import arb

    ex = P.exact_rows(b, g)
    allrows = sorted(set(pend_o) | set(pend_l))
    stats["O.fallback_rows"] += len(allrows)
    for items in pend_o.values():
        for _, fmt in items:
            stats[f"O.{fmt.name}.fallback"] += 1
    for items in pend_l.values():
        for fmt in items:
            stats[f"LSE.{fmt.name}.fallback"] += 1
    base2 = P.conv.lse_base == "2"
    for start in range(0, len(allrows), _BATCH):
        batch = allrows[start:start + _BATCH]
        data, qk_exp = _row_data(P, b, h, ex, batch, refs)
        todo = {t: (list(pend_o.get(r, [])), list(pend_l.get(r, []))) for t, r in enumerate(batch)}
        prec = 128 if any(fm.p == 53 for fm in P.formats) else _START_BITS
        while todo:
            if prec > MAX_PRECISION_BITS:
                raise CertificationError(f"{P.sources['q']}: an output of head {h} was not decided within "
                                         f"{MAX_PRECISION_BITS} bits")
            ts = sorted(todo)
            es, outs, ls = ex.forward_balls([data[t] for t in ts], qk_exp, prec)
            stats["max_bits"] = max(stats["max_bits"], prec)
            for pos, t in enumerate(ts):
                row = data[t]
                i = batch[t] - r0
                po, pl = todo[t]
                keep_o = []
                for c, fmt in po:
                    ball = outs[pos][c]
                    value = _settle("O", ball, fmt, lambda m, row=row, c=c: ex.output_vs(
                        row, c, m, qk_exp, MAX_PRECISION_BITS, start=prec), stats, undecided, P, b, h, batch[t], c)
                    if value is None:
                        keep_o.append((c, fmt))
                    else:
                        O[fmt.name][i, c] = value
                keep_l = []
                if pl:
                    with workprec(prec):
                        ball = ls[pos].log() + arb(row.ref)
                        if base2:
                            ball = ball / arb.const_log2()
                    for fmt in pl:
                        value = _settle("LSE", ball, fmt, lambda m, row=row: ex.lse_vs(
                            row, m, P.conv.lse_base, qk_exp, MAX_PRECISION_BITS, start=prec), stats, undecided, P, b,
                            h, batch[t], None)
                        if value is None:
                            keep_l.append(fmt)
                        else:
                            LSE[fmt.name][i] = value
                if keep_o or keep_l:
                    todo[t] = (keep_o, keep_l)
                else:
                    del todo[t]
            prec *= 2


def _settle(name: str, ball: Any, fmt: Format, compare: Callable, stats: Counter, undecided: list, P: Problem,
            b: int, h: int, row: int, col: Optional[int]) -> Optional[float]:
    """One entry's rounding from its ball (tie and sign tests at a boundary): the value, NaN when
    undecided (recorded with its enclosure), or None when the ball is too wide (raise the precision)."""
    value, how, bits = decide_with_boundary(ball, fmt, compare)
    stats["max_bits"] = max(stats["max_bits"], bits)
    if how == "wide":
        return None
    if how == "undecided":
        undecided.append(_undecided_entry(name, P, b, h, row, col, fmt, ball))
        return math.nan
    if how == "tie":
        stats[f"{name}.{fmt.name}.ties"] += 1
    return value


def _dd_forward(P: Problem, b: int, h: int, g: int, r0: int, refs: Mapping[int, float], pend_o: dict,
                pend_l: dict, O: dict, LSE: dict, stats: Counter) -> tuple[dict, dict]:
    """The double-float tier for undecided O and LSE entries; returns what it leaves (exact ties
    always remain: no enclosure decides a value on a rounding boundary)."""
    from flint import arb

    from . import reference_dd as dd

    kside, _ = P.sides(b, g)
    key = ("vT-side", b, g)
    if key not in P._exact:
        P._exact[key] = rf.make_side(np.ascontiguousarray(P.v[b, g].T))
    vts = P._exact[key]
    tau_h, tau_l = _tau_dd(P.tau)
    rows = np.array(sorted(set(pend_o) | set(pend_l)), dtype=np.int64)
    left_o: dict = {}
    left_l: dict = {}
    base2 = P.conv.lse_base == "2"
    for s0 in range(0, len(rows), _BATCH):
        rr = rows[s0:s0 + _BATCH]
        add_h, add_l, allowed = P.additive_dd(b, h, rr)
        ref = np.array([refs[int(r)] for r in rr])
        blk = dd.RowsDD(P.q[b, h][rr], None, kside, None, tau_h, tau_l, add_h, add_l, allowed, ref)
        need_o = any(int(r) in pend_o for r in rr)
        if need_o:
            oh, ol, ob = blk.output(P.v[b, g], vts)
            value = oh + ol
            bound = rf.SAFETY * (ob + rf.U * np.abs(value)) + rf.FLOOR
        for t, r in enumerate(rr):
            r = int(r)
            for c, fmt in pend_o.get(r, []):
                v_, ok = rf.decide(value[t:t + 1, c], bound[t:t + 1, c], fmt)
                if ok[0]:
                    O[fmt.name][r - r0, c] = v_[0]
                    stats[f"O.{fmt.name}.double_float"] += 1
                else:
                    left_o.setdefault(r, []).append((c, fmt))
            if r in pend_l:
                with workprec(128):
                    L = arb(float(blk.lh[t])) + arb(float(blk.ll[t])) + arb(0, float(blk.l_err[t]))
                    ball = L.log() + arb(float(ref[t]))
                    if base2:
                        ball = ball / arb.const_log2()
                for fmt in pend_l[r]:
                    value_l = round_ball(ball, fmt)[0] if L > 0 else None
                    if value_l is not None:
                        LSE[fmt.name][r - r0] = value_l
                        stats[f"LSE.{fmt.name}.double_float"] += 1
                    else:
                        left_l.setdefault(r, []).append(fmt)
    return left_o, left_l


def _dd_dq(P: Problem, b: int, h: int, g: int, r0: int, refs: Mapping[int, float], pend: dict, dQ: dict,
           stats: Counter) -> dict:
    """The double-float tier for undecided dQ entries (dQ = τ·dS·K); returns what it leaves."""
    from . import reference_dd as dd

    kside, vside = P.sides(b, g)
    tau_h, tau_l = _tau_dd(P.tau)
    rows = np.array(sorted(pend), dtype=np.int64)
    stats["dQ.double_float_rows"] += len(rows)
    left: dict = {}
    for s0 in range(0, len(rows), _BATCH):
        rr = rows[s0:s0 + _BATCH]
        add_h, add_l, allowed = P.additive_dd(b, h, rr)
        ref = np.array([refs[int(r)] for r in rr])
        blk = dd.RowsDD(P.q[b, h][rr], P.do[b, h][rr], kside, vside, tau_h, tau_l, add_h, add_l, allowed, ref)
        _, _, _, sh, sl, se = blk.ds()
        hh, ll, bb = dd.dd_matmul(sh, sl, se, P.k[b, g])
        ph, pe = dd.two_prod(hh, np.full_like(hh, tau_h))
        pl = pe + (ll * tau_h + hh * tau_l)
        value = ph + pl
        bound = rf.SAFETY * (bb * abs(tau_h) * (1 + 2.0 ** -50) + 4 * rf.U * np.abs(pl) + 2.0 ** -100 * np.abs(ph)
                             + rf.U * np.abs(value)) + rf.FLOOR
        for t, r in enumerate(rr):
            for c, fmt in pend[int(r)]:
                v_, ok = rf.decide(value[t:t + 1, c], bound[t:t + 1, c], fmt, zero_sign=False)
                if ok[0]:
                    dQ[fmt.name][int(r) - r0, c] = v_[0]
                    stats[f"dQ.{fmt.name}.double_float"] += 1
                else:
                    left.setdefault(int(r), []).append((c, fmt))
    return left


def _exact_dq(P: Problem, b: int, h: int, g: int, r0: int, refs: Mapping[int, float], pend: dict, dQ: dict,
              stats: Counter, undecided: list) -> None:
    """Ball arithmetic for the undecided dQ entries of a task (precision up to GRAD_MAX_BITS)."""
    ex = P.exact_rows(b, g)
    allrows = sorted(pend)
    stats["dQ.fallback_rows"] += len(allrows)
    for items in pend.values():
        for _, fmt in items:
            stats[f"dQ.{fmt.name}.fallback"] += 1
    for start in range(0, len(allrows), _BATCH):
        batch = allrows[start:start + _BATCH]
        data, qk_exp = _row_data(P, b, h, ex, batch, refs)
        zero = ex.ds_zero(data, P.do[b, h][batch])
        todo = {}
        for t, r in enumerate(batch):
            if zero[t]:  # dS is exactly 0 on this row, so dQ is
                for c, fmt in pend[r]:
                    dQ[fmt.name][r - r0, c] = 0.0
            else:
                todo[t] = list(pend[r])
        prec = 128
        last: dict = {}
        while todo and prec <= GRAD_MAX_BITS:
            ts = sorted(todo)
            balls = ex.dq_balls([data[t] for t in ts], P.do[b, h][[batch[t] for t in ts]], qk_exp, prec)
            stats["grad_max_bits"] = max(stats["grad_max_bits"], prec)
            for pos, t in enumerate(ts):
                keep = []
                for c, fmt in todo[t]:
                    value, _ = round_ball(balls[pos][c], fmt, zero_sign=False)
                    if value is None:
                        keep.append((c, fmt))
                        last[(t, c, fmt.name)] = balls[pos][c]
                    else:
                        dQ[fmt.name][batch[t] - r0, c] = value
                if keep:
                    todo[t] = keep
                else:
                    del todo[t]
            prec *= 2
        for t, items in todo.items():
            for c, fmt in items:
                undecided.append(_undecided_entry("dQ", P, b, h, batch[t], c, fmt, last[(t, c, fmt.name)]))
                dQ[fmt.name][batch[t] - r0, c] = math.nan


def _undecided_entry(tensor: str, P: Problem, b: int, h: int, row: Optional[int], col: Optional[int], fmt: Format,
                     ball: Any) -> dict[str, Any]:
    from .reference_exact import ball_ends

    ends = ball_ends(ball)
    lo = hi = None
    if ends is not None:
        (lm, le), (hm, he) = ends
        lo, hi = float(Fraction(lm) * Fraction(2) ** le), float(Fraction(hm) * Fraction(2) ** he)
    return {"tensor": tensor, "format": fmt.name, "batch": b, "head": h, "row": row, "col": col,
            "enclosure": [lo, hi], "ball": ball.str(30, radius=True) if ball is not None else None}


# ------------------------------------------------------------------------------------------- dK, dV exact

def solve_kv_exact(P: Problem, b: int, g: int, heads: Sequence[int], r0: int, r1: int, cols: Sequence[int],
                   prec: int) -> dict[str, Any]:
    """Ball-arithmetic contributions of query rows [r0, r1) of ``heads`` to dK[cols] (without τ) and dV[cols]."""
    ex = P.exact_rows(b, g)
    R = P.block_rows()
    dk_acc = dv_acc = None
    from flint import arb_mat

    for h in heads:
        for s0 in range(r0, r1, R):
            rows = np.arange(s0, min(s0 + R, r1))
            add, add_exact, allowed = P.additive(b, h, rows)
            f = rf.forward(P.q[b, h][rows], P.sides(b, g)[0], ex.v, P.tau.value, P.tau.rel_error, add, add_exact,
                           allowed, None if P.conv.softcap is None else float(P.conv.softcap))
            live = [t for t in range(len(rows)) if not f.masked[t]]
            if not live:
                continue
            data, qk_exp = _row_data(P, b, h, ex, [int(rows[t]) for t in live],
                                     {int(rows[t]): float(f.ref[t]) for t in live})
            zero = ex.ds_zero(data, P.do[b, h][rows[live]])
            dk, dv = ex.dkdv_partial(data, P.q[b, h][rows[live]], P.do[b, h][rows[live]], cols, qk_exp, prec,
                                     zero)
            with workprec(prec):
                dk_acc = dk if dk_acc is None else dk_acc + dk
                dv_acc = dv if dv_acc is None else dv_acc + dv
    _ = arb_mat

    def pack(m):
        if m is None:
            return None
        return [[pack_arb(m[i, j]) for j in range(m.ncols())] for i in range(m.nrows())]

    return {"dk": pack(dk_acc), "dv": pack(dv_acc)}


def solve_kv_dd(P: Problem, b: int, g: int, heads: Sequence[int], r0: int, r1: int, cols: Sequence[int],
                rowstats: Optional[Mapping[int, Any]] = None) -> dict[str, Any]:
    """Contributions of query rows [r0, r1) of ``heads`` to dK[cols] (without τ) and dV[cols] in the
    double-float tier (:mod:`~symattn.exact.reference_dd`): {"dk": (hi, lo, bound), "dv": ...}.
    ``rowstats``: {head: :class:`~symattn.exact.reference_dd.RowStats` of rows [r0, r1)} made in the
    row pass; then only the columns ``cols`` of the scores are formed. Not for a softcap."""
    from . import reference_dd as dd

    kside, vside = P.sides(b, g)
    v = P.v[b, g]
    R = P.block_rows()
    tau_h, tau_l = _tau_dd(P.tau)
    cl = np.asarray(list(cols), dtype=np.int64)
    if rowstats is not None:
        kside = rf.make_side(np.ascontiguousarray(P.k[b, g][cl]))
        vside = rf.make_side(np.ascontiguousarray(v[cl]))
    acc: dict[str, list] = {}
    for h in heads:
        for s0 in range(r0, r1, R):
            rows = np.arange(s0, min(s0 + R, r1))
            q = P.q[b, h][rows]
            do = P.do[b, h][rows]
            add_h, add_l, allowed = P.additive_dd(b, h, rows)
            if rowstats is None:
                blk = dd.RowsDD(q, do, kside, vside, tau_h, tau_l, add_h, add_l, allowed, None)
                ph, pl, pe, sh, sl, se = blk.ds(cl)
            else:
                cut = (lambda a: None if a is None else np.ascontiguousarray(a[:, cl]))  # noqa: E731
                st = rowstats[h].rows(slice(s0 - r0, s0 - r0 + len(rows)))
                blk = dd.RowsDD(q, do, kside, vside, tau_h, tau_l, cut(add_h), cut(add_l), cut(allowed), None,
                                stats=st)
                ph, pl, pe, sh, sl, se = blk.ds()
            dead = ~blk.live           # fully masked rows take no part (their dS and P are 0)
            for a_ in (ph, pl, pe, sh, sl, se):
                a_[dead] = 0.0
            parts = {"dk": dd.dd_matmul(sh.T, sl.T, se.T, q), "dv": dd.dd_matmul(ph.T, pl.T, pe.T, do)}
            for name, (hh, ll, bb) in parts.items():
                if name not in acc:
                    acc[name] = [hh, ll, bb]
                else:
                    a = acc[name]
                    a[0], e = dd.two_sum(a[0], hh)
                    a[1] = a[1] + (e + ll)
                    a[2] = a[2] + bb + 4 * rf.U * np.abs(a[1])
    return {k: tuple(v_) for k, v_ in acc.items()}


def _tau_dd(tau: Tau) -> tuple[float, float]:
    """τ as a double-float: exact for a float scale, within 2⁻¹⁰⁶ for 1/√d."""
    if tau.kind == "dyadic":
        return tau.value, 0.0
    from flint import arb

    with workprec(256):
        t = 1 / arb(tau.d).sqrt()
        h = float(t.mid())
        return h, float((t - arb(h)).mid())


# ------------------------------------------------------------------------------------------- the result

@dataclass
class Reference:
    """A certified reference: correctly rounded tensors per format, conventions, statistics.

    ``ref["O"]`` is O in the first requested format (``ref["O", "bfloat16"]`` picks one),
    as a NumPy array (bfloat16 as ``ml_dtypes.bfloat16``) or a torch tensor when the
    inputs were torch tensors. ``ref.values[name][format]`` holds them as float64.
    """

    values: dict[str, dict[str, np.ndarray]]
    scales: dict[str, np.ndarray]
    formats: tuple[str, ...]
    conventions: dict[str, Any]
    echo: list[str]
    stats: dict[str, Any]
    undecided: list[dict[str, Any]]
    shapes: dict[str, tuple[int, ...]]
    torch_out: bool = False
    seconds: float = 0.0
    inputs: dict = field(default_factory=dict, repr=False)

    def __getitem__(self, key: Any) -> Any:
        name, fmt = (key, self.formats[0]) if isinstance(key, str) else key
        fmt = parse_format(fmt).name
        if name not in self.values:
            raise KeyError(f"{name}: this reference has {', '.join(self.values)}")
        if fmt not in self.values[name]:
            raise KeyError(f"{name} in {fmt}: this reference has {', '.join(self.values[name])}")
        vals = self.values[name][fmt]
        if self.torch_out:
            return _to_torch(vals, fmt)
        return as_dtype(vals, FORMATS[fmt])

    def tensor_names(self) -> list[str]:
        """File names of the tensors: ``O`` (one format) or ``O.float32`` (several)."""
        out = []
        for name in self.values:
            for fmt in self.values[name]:
                out.append(name if len(self.formats) == 1 else f"{name}.{fmt}")
        return out

    def metadata(self) -> dict[str, Any]:
        return {"symattn": _version(), "kind": "reference", "formats": list(self.formats),
                "conventions": self.conventions, "echo": self.echo, "stats": self.stats,
                "undecided": self.undecided, "shapes": {k: list(v) for k, v in self.shapes.items()}}

    def file_tensors(self) -> dict[str, tuple[np.ndarray, str]]:
        """{file name: (values, format)}: the tensors, then their condition scales (float32)."""
        out: dict[str, tuple[np.ndarray, str]] = {}
        for name in self.values:
            for fmt, vals in self.values[name].items():
                out[name if len(self.formats) == 1 else f"{name}.{fmt}"] = (vals, fmt)
        for name, sc in self.scales.items():
            out[f"{name}.scale"] = (sc, "float32")
        return out

    def to_bytes(self, path: str, *, fixture: bool = False) -> bytes:
        """The reference as a .safetensors or .npz file (by ``path``'s extension); a ``fixture``
        also holds the inputs (q, k, v, and dO, bias, mask, alibi when given) as they were given."""
        from ..read.tensors import write_npz, write_safetensors

        tensors = dict(self.file_tensors())
        meta = self.metadata()
        if fixture:
            meta["kind"] = "fixture"
            for role, (vals, dt) in self.inputs.items():
                tensors[f"input.{role}"] = (vals, dt)
        text = {"symattn": json.dumps(meta, sort_keys=True)}
        ext = path.lower().rsplit(".", 1)[-1] if "." in path else ""
        if ext == "safetensors":
            return write_safetensors(tensors, text)
        if ext == "npz":
            return write_npz(tensors, text)
        raise SymattnError(f"{path}: a reference is written as .safetensors or .npz (chosen by the extension)")

    def summary(self) -> str:
        """The echo of conventions and the statistics, as lines of text."""
        lines = list(self.echo)
        lines.append(_stats_line(self.stats, self.formats))
        if self.undecided:
            lines.append(f"undecided: {len(self.undecided)} gradient or softcap entries, written as NaN with their "
                         "enclosures in the metadata")
        return "\n".join(lines)


def _version() -> str:
    from ..version import __version__

    return __version__


def _stats_line(stats: dict[str, Any], formats: Sequence[str]) -> str:
    parts = []
    for t in TENSORS:
        for fmt in formats:
            n = stats.get(f"{t}.{fmt}.entries", 0)
            if not n:
                continue
            dd_ = stats.get(f"{t}.{fmt}.double_float", 0)
            fb = stats.get(f"{t}.{fmt}.fallback", 0)
            ties = stats.get(f"{t}.{fmt}.ties", 0)
            parts.append(f"{t} {fmt}: {n} entries, {n - dd_ - fb} by the float64 fast path"
                         + (f", {dd_} by double-float" if dd_ else "") + f", {fb} by ball arithmetic"
                         + (f", {ties} exact ties" if ties or t in ("O", "LSE") else ""))
    bits = max(stats.get("max_bits", 0), stats.get("grad_max_bits", 0))
    parts.append(f"largest precision {bits} bits" if bits else "no ball arithmetic needed")
    return "certified: " + "; ".join(parts)


def _to_torch(vals: np.ndarray, fmt: str) -> Any:
    import torch

    if fmt == "bfloat16":
        from .floats import to_bits

        bits = to_bits(vals, FORMATS["bfloat16"]).astype(np.int16)
        return torch.from_numpy(bits.copy()).view(torch.bfloat16)
    dt = {"float64": torch.float64, "float32": torch.float32, "float16": torch.float16}[fmt]
    return torch.from_numpy(np.ascontiguousarray(vals)).to(dt)


# ------------------------------------------------------------------------------------------- the API

def reference(q: Any, k: Any, v: Any, *, scale: Any = "kernel", scale_dtype: Optional[str] = None,
              causal: Any = "none", window: Any = None, bias: Any = None, mask: Any = None, alibi: Any = None,
              softcap: Any = None, masked_rows: str = "zero", lse: bool = True, lse_base: Any = "e",
              dtype: Any = None, grad: Any = None, layout: str = "bhsd", workers: Optional[int] = None,
              client: Any = None, scheduler: Optional[str] = None, fast: bool = True,
              progress: Optional[Callable[[int, int], None]] = None, uint16: str = "bfloat16",
              conventions: Optional[KernelConventions] = None) -> Reference:
    """The certified reference of attention on float inputs (NumPy arrays or CPU torch tensors).

    ``dtype``: the output format(s) (default: the inputs' format, plus float32 for 16-bit
    inputs); ``grad``: an upstream gradient dO for dQ, dK, dV; ``workers``: processes
    (default: all cores); ``client`` (a ``dask.distributed.Client``) or ``scheduler`` (its
    address) to run on Dask. The conventions are those of
    :class:`~symattn.read.tensors_conventions.KernelConventions`.
    """
    t0 = time.perf_counter()
    conv = conventions or KernelConventions(layout=layout, scale=scale, scale_dtype=scale_dtype, causal=causal,
                                            window=window, masked_rows=masked_rows, lse_base=lse_base,
                                            softcap=softcap)
    torch_out = any(type(x).__module__.startswith("torch") for x in (q, k, v))
    P = prepare(q, k, v, grad=grad, bias=bias, mask=mask, alibi=alibi, conventions=conv, dtype=dtype, lse=lse,
                fast=fast, uint16=uint16)
    result = compute(P, workers=workers, client=client, scheduler=scheduler, progress=progress)
    result.inputs = P.inputs
    result.torch_out = torch_out
    result.seconds = time.perf_counter() - t0
    return result


def _tasks(P: Problem, workers: int) -> list[tuple[int, int, int, int]]:
    B, H, Sq, Sk, D, Dv = P.shape
    R = P.block_rows()
    total_blocks = B * H * math.ceil(Sq / R)
    # four tasks per worker for load balance; two with gradients, where every task sends back
    # dK and dV partials of seq_k × d whatever its rows
    share = 2 if P.do is not None else 4
    per = max(1, math.ceil(total_blocks / max(share * workers, 1)))
    tasks = []
    for b in range(B):
        for h in range(H):
            for s in range(0, Sq, R * per):
                tasks.append((b, h, s, min(Sq, s + R * per)))
    return tasks


def compute(P: Problem, *, workers: Optional[int] = None, client: Any = None, scheduler: Optional[str] = None,
            progress: Optional[Callable[[int, int], None]] = None) -> Reference:
    """Run a prepared problem (locally, in processes, or on Dask) and assemble the reference."""
    from .parallel import Runner

    B, H, Sq, Sk, D, Dv = P.shape
    runner = Runner(P, workers=workers, client=client, scheduler=scheduler, progress=progress)
    try:
        tasks = _tasks(P, runner.width)
        R = P.block_rows()
        parts_total = H // P.k.shape[1] * math.ceil(Sq / R)
        results = runner.map(solve_rows, [(b, h, r0, r1, parts_total) for b, h, r0, r1 in tasks])
        stats: Counter = Counter()
        undecided: list = []
        vals: dict[str, dict[str, np.ndarray]] = {"O": {f.name: np.empty((B, H, Sq, Dv)) for f in P.formats}}
        scales = {"O": np.empty((B, H, Sq, Dv), dtype=np.float32)}
        if P.lse:
            vals["LSE"] = {f.name: np.empty((B, H, Sq)) for f in P.formats}
            scales["LSE"] = np.empty((B, H, Sq), dtype=np.float32)
        if P.do is not None:
            vals["dQ"] = {f.name: np.empty((B, H, Sq, D)) for f in P.formats}
            scales["dQ"] = np.empty((B, H, Sq, D), dtype=np.float32)
        kv: dict[tuple[int, int], list[np.ndarray]] = {}
        rowstats: dict[tuple[int, int], list] = {}
        masked = 0
        for res in results:
            b, h, r0, r1 = res["b"], res["h"], res["r0"], res["r1"]
            _merge_stats(stats, res["stats"])
            undecided.extend(res["undecided"])
            masked += len(res["masked"])
            for fmt in P.formats:
                vals["O"][fmt.name][b, h, r0:r1] = res["O"][fmt.name]
                if P.lse:
                    vals["LSE"][fmt.name][b, h, r0:r1] = res["LSE"][fmt.name]
                if P.do is not None:
                    vals["dQ"][fmt.name][b, h, r0:r1] = res["dQ"][fmt.name]
            scales["O"][b, h, r0:r1] = res["scale.O"]
            if P.lse:
                scales["LSE"][b, h, r0:r1] = res["scale.LSE"]
            if P.do is not None:
                scales["dQ"][b, h, r0:r1] = res["scale.dQ"]
                if res.get("rowstats") is not None:
                    rowstats.setdefault((b, h), []).append((r0, res["rowstats"]))
                if res["kv"] is not None:
                    key = (b, h // P.group)
                    if key not in kv:
                        kv[key] = [np.array(a, dtype=np.float64) for a in res["kv"]]
                    else:
                        for a_, c in zip(kv[key], res["kv"]):
                            a_ += c
        stats["masked_rows"] = masked
        if P.do is not None:
            whole = {key: parts[0][1].concat([p for _, p in sorted(parts, key=lambda x: x[0])])
                     for key, parts in rowstats.items()}
            _finish_kv(P, kv, vals, scales, stats, undecided, runner, whole)
    finally:
        runner.close()
    return _assemble(P, vals, scales, stats, undecided, runner.describe())


def _kv_dd(P: Problem, pending: dict, vals: dict, stats: Counter, runner: Any, rowstats: Mapping) -> dict:
    """The double-float pass over every row for the undecided dK and dV entries; returns what it leaves.

    With the row statistics of every head (``rowstats``, made in the row pass: :func:`_fused`), a
    job forms exponentials, dP and dS only on the undecided key columns; without, it makes them
    over all keys first."""
    from . import reference_dd as dd

    jobs, keys = _column_jobs(P, pending, runner)
    B, H = P.shape[:2]
    if all((b, h) in rowstats for b in range(B) for h in range(H)):
        jobs = [(b, g, heads, r0, r1, cols, {h: rowstats[(b, h)].rows(slice(r0, r1)) for h in heads})
                for b, g, heads, r0, r1, cols in jobs]
        stats["kv_double_float_columns_only"] += 1
    stats["kv_double_float_passes"] += 1
    parts = runner.map(solve_kv_dd, jobs)
    sums: dict = {}
    for (key, cols), part in zip(keys, parts):
        for name, (hh, ll, bb) in part.items():
            slot = sums.setdefault(key, {"cols": cols})
            if name not in slot:
                slot[name] = [hh.copy(), ll.copy(), bb.copy()]
            else:
                a = slot[name]
                a[0], e = dd.two_sum(a[0], hh)
                a[1] = a[1] + (e + ll)
                a[2] = a[2] + bb + 4 * rf.U * np.abs(a[1])
    tau_h, tau_l = _tau_dd(P.tau)
    nxt: dict = {}
    for key, items in pending.items():
        b, g = key
        slot = sums.get(key)
        for name, lst in items.items():
            if slot is None or name.lower() not in slot:
                nxt.setdefault(key, {})[name] = lst
                continue
            where = {j: t for t, j in enumerate(slot["cols"])}
            hh, ll, bb = slot[name.lower()]
            if name == "dK":  # × τ, exactly (TwoProd) up to the low parts' rounding
                ph, pe = dd.two_prod(hh, np.full_like(hh, tau_h))
                pl = pe + (ll * tau_h + hh * tau_l)
                bb = bb * abs(tau_h) * (1 + 2.0 ** -50) + 4 * rf.U * np.abs(pl) + 2.0 ** -100 * np.abs(ph)
                hh, ll = ph, pl
            value = hh + ll
            bound = rf.SAFETY * (bb + rf.U * np.abs(value)) + rf.FLOOR
            for fmt in [f for f in P.formats if any(x == f for _, _, x in lst)]:   # one decision per format
                entries = [(j, c) for j, c, f in lst if f == fmt]
                ts = np.array([where[j] for j, _ in entries])
                cs = np.array([c for _, c in entries])
                r, ok = rf.decide(value[ts, cs], bound[ts, cs], fmt, zero_sign=False)
                for (j, c), rv, okv in zip(entries, r.tolist(), ok.tolist()):
                    if okv:
                        vals[name][fmt.name][b, g, j, c] = rv
                        stats[f"{name}.{fmt.name}.double_float"] += 1
                    else:
                        nxt.setdefault(key, {}).setdefault(name, []).append((j, c, fmt))
    return nxt


def _merge_stats(stats: Counter, other: Mapping[str, Any]) -> None:
    for key, val in other.items():
        stats[key] = max(stats[key], val) if key.endswith("bits") else stats[key] + val


def _finish_kv(P: Problem, kv: dict, vals: dict, scales: dict, stats: Counter, undecided: list, runner: Any,
               rowstats: Optional[Mapping] = None) -> None:
    B, H, Sq, Sk, D, Dv = P.shape
    Hkv = P.k.shape[1]
    R = P.block_rows()
    parts_total = P.group * math.ceil(Sq / R)
    vals["dK"] = {f.name: np.empty((B, Hkv, Sk, D)) for f in P.formats}
    vals["dV"] = {f.name: np.empty((B, Hkv, Sk, Dv)) for f in P.formats}
    scales["dK"] = np.zeros((B, Hkv, Sk, D), dtype=np.float32)
    scales["dV"] = np.zeros((B, Hkv, Sk, Dv), dtype=np.float32)
    pending: dict[tuple[int, int], dict[str, list]] = {}
    for b in range(B):
        for g in range(Hkv):
            acc = kv.get((b, g))
            if acc is None:
                zero_k, zero_v = np.zeros((Sk, D)), np.zeros((Sk, Dv))
                acc = [zero_k, zero_k.copy(), zero_k.copy(), zero_v, zero_v.copy(), zero_v.copy()]
            dk_sum, dk_bsum, dk_sc, dv_sum, dv_bsum, dv_sc = acc
            dk, dk_bound = rf.finish_sum(dk_sum, dk_bsum, np.zeros_like(dk_sum), parts_total, P.tau.value,
                                         P.tau.rel_error)
            dv, dv_bound = rf.finish_sum(dv_sum, dv_bsum, np.zeros_like(dv_sum), parts_total, 1.0, 0.0)
            scales["dK"][b, g] = dk_sc * P.tau.value
            scales["dV"][b, g] = dv_sc
            for name, value, bound in (("dK", dk, dk_bound), ("dV", dv, dv_bound)):
                for fmt in P.formats:
                    if P.fast is True:
                        r, ok = rf.decide(value, bound, fmt, zero_sign=False)
                    else:
                        r, ok = np.zeros_like(value), np.zeros(value.shape, dtype=bool)
                    vals[name][fmt.name][b, g] = r
                    stats[f"{name}.{fmt.name}.entries"] += ok.size
                    stats[f"{name}.{fmt.name}.fast"] += int(ok.sum())
                    for j, c in zip(*np.nonzero(~ok)):
                        pending.setdefault((b, g), {}).setdefault(name, []).append((int(j), int(c), fmt))
    if not pending:
        return
    # first the double-float tier (about 2^-60; not through a softcap), then ball arithmetic at
    # rising precision for what it leaves
    if P.conv.softcap is None and P.fast:
        pending = _kv_dd(P, pending, vals, stats, runner, rowstats or {})
    for items in pending.values():
        for name, lst in items.items():
            for _, _, fmt in lst:
                stats[f"{name}.{fmt.name}.fallback"] += 1
    prec = 128
    last: dict = {}
    while pending and prec <= GRAD_MAX_BITS:
        stats["grad_max_bits"] = max(stats["grad_max_bits"], prec)
        jobs, keys = _column_jobs(P, pending, runner, prec)
        stats["kv_exact_passes"] += 1
        parts = runner.map(solve_kv_exact, jobs)
        sums: dict = {}
        from flint import arb

        with workprec(prec):
            for (key, cols), part in zip(keys, parts):
                if part["dk"] is None:
                    continue
                dk = [[unpack_arb(x) for x in row] for row in part["dk"]]
                dv = [[unpack_arb(x) for x in row] for row in part["dv"]]
                if key not in sums:
                    sums[key] = (cols, dk, dv)
                else:
                    _, a, c = sums[key]
                    for i in range(len(cols)):
                        a[i] = [x + y for x, y in zip(a[i], dk[i])]
                        c[i] = [x + y for x, y in zip(c[i], dv[i])]
            tau = P.tau.arb()
            nxt: dict = {}
            for key, items in pending.items():
                b, g = key
                if key in sums:
                    cols, dk, dv = sums[key]
                else:
                    cols = sorted({j for lst in items.values() for j, _, _ in lst})
                    dk = [[arb(0)] * D for _ in cols]
                    dv = [[arb(0)] * Dv for _ in cols]
                where = {j: t for t, j in enumerate(cols)}
                for name, lst in items.items():
                    for j, c, fmt in lst:
                        ball = dk[where[j]][c] * tau if name == "dK" else dv[where[j]][c]
                        value, _ = round_ball(ball, fmt, zero_sign=False)
                        if value is None:
                            nxt.setdefault(key, {}).setdefault(name, []).append((j, c, fmt))
                            last[(b, g, name, j, c, fmt.name)] = ball
                        else:
                            vals[name][fmt.name][b, g, j, c] = value
        pending = nxt
        prec *= 2
    for (b, g), items in pending.items():
        for name, lst in items.items():
            for j, c, fmt in lst:
                undecided.append(_undecided_entry(name, P, b, g, j, c, fmt, last[(b, g, name, j, c, fmt.name)]))
                vals[name][fmt.name][b, g, j, c] = math.nan


def _assemble(P: Problem, vals: dict, scales: dict, stats: Counter, undecided: list, engine: str) -> Reference:
    B, H, Sq, Sk, D, Dv = P.shape
    lay, nd = P.conv.layout, P.ndim
    out_vals: dict[str, dict[str, np.ndarray]] = {}
    out_scales: dict[str, np.ndarray] = {}
    shapes: dict[str, tuple[int, ...]] = {}
    for name, per in vals.items():
        out_vals[name] = {}
        for fmt, arr in per.items():
            out_vals[name][fmt] = _user_shape(arr, name, lay, nd)
        shapes[name] = tuple(next(iter(out_vals[name].values())).shape)
        out_scales[name] = _user_shape(scales[name], name, lay, nd)
    conv = P.conv.to_data()
    conv["scale_value"] = P.tau.value if P.tau.kind == "dyadic" else f"1/sqrt({P.tau.d})"
    conv["gqa"] = f"query head h uses key/value head h // {P.group}" if P.group > 1 else "none"
    conv["lse_shape"] = "(batch, heads, seq_q)"
    echo = _echo(P, engine)
    st = {k: (int(v) if isinstance(v, (int, np.integer)) else v) for k, v in stats.items()}
    return Reference(out_vals, out_scales, tuple(f.name for f in P.formats), conv, echo, st, undecided, shapes)


def _user_shape(arr: np.ndarray, name: str, layout: str, ndim: int) -> np.ndarray:
    if name == "LSE":
        if ndim == 2:
            return arr[0, 0]
        if ndim == 3:
            return arr[0]
        return arr
    return np.ascontiguousarray(from_bhsd(arr, layout, ndim))


def _echo(P: Problem, engine: str) -> list[str]:
    B, H, Sq, Sk, D, Dv = P.shape
    c = P.conv
    sd = c.scale_dtype or ("float64" if P.dtype == "float64" else "float32")
    if P.tau.kind == "dyadic":
        how = {"kernel": f"1/√{D} rounded to {sd}, as a kernel receives it", "exact": f"1/√{D}, exact"}.get(
            c.scale if isinstance(c.scale, str) else "", f"{c.scale} rounded to {sd}")
        scale = f"τ = {P.tau.value!r} ({P.tau.value.hex()}; {how})"
    else:
        scale = f"τ = 1/√{D} exactly (irrational; the float64 path uses {P.tau.value!r} with its error bounded)"
    layout = {"bhsd": "bhsd (batch, heads, seq, d)", "bshd": "bshd (batch, seq, heads, d)"}[c.layout]
    off = c.offset(Sq, Sk)
    causal = {"none": "none", "top-left": "top-left (key j ≤ i)",
              "bottom-right": f"bottom-right (key j ≤ i {'+' if off >= 0 else '−'} {abs(off)})"}[c.causal]
    lines = [
        f"inputs: q {P.sources['q']}, k {P.sources['k']}, v {P.sources['v']} ({P.dtype}); "
        f"batch {B}, heads {H} (key/value heads {P.k.shape[1]}), seq_q {Sq}, seq_k {Sk}, d {D}, d_v {Dv}",
        f"conventions: layout {layout} · {scale} · causal {causal}"
        + (f" · window {c.window} aligned {c.align}" if c.window else "")
        + (f" · ALiBi slopes from {P.sources.get('alibi')} (−slope·|i {'+' if off >= 0 else '−'} {abs(off)} − j|)"
           if P.alibi is not None else "")
        + (f" · bias {P.sources.get('bias')}" if P.bias is not None else "")
        + (f" · mask {P.sources.get('mask')} (True = attend)" if P.mask is not None else "")
        + (f" · softcap {c.softcap} (c·tanh(s/c); exact ties are not decided through tanh)"
           if c.softcap is not None else "")
        + f" · GQA {'h → h // ' + str(P.group) if P.group > 1 else 'none'}"
        + f" · fully masked rows {c.masked_rows} · LSE base {c.lse_base}, shape (batch, heads, seq_q)",
        f"outputs: {', '.join(f.name for f in P.formats)}, rounded to nearest-even; "
        + ("O, LSE" if P.lse else "O") + (", dQ, dK, dV for the given dO" if P.do is not None else "")
        + f"; {engine}",
    ]
    return lines


def float64_attention(P: Problem) -> dict[str, np.ndarray]:
    """Plain float64 attention of a prepared problem with its conventions (the fast path's
    values, not certified): {"O": (B, H, Sq, Dv), "LSE": (B, H, Sq)}. For diagnosis."""
    B, H, Sq, Sk, D, Dv = P.shape
    O = np.empty((B, H, Sq, Dv))
    L = np.empty((B, H, Sq))
    softcap = None if P.conv.softcap is None else float(P.conv.softcap)
    R = P.block_rows()
    for b in range(B):
        for h in range(H):
            g = h // P.group
            for s0 in range(0, Sq, R):
                rows = np.arange(s0, min(Sq, s0 + R))
                add, ex, allowed = P.additive(b, h, rows)
                f = rf.forward(P.q[b, h][rows], P.sides(b, g)[0], P.v[b, g], P.tau.value, P.tau.rel_error, add,
                               ex, allowed, softcap)
                o = f.o.copy()
                with np.errstate(divide="ignore"):
                    lse = f.ref + np.log(f.l_hat)
                if P.conv.masked_rows == "nan":
                    o[f.masked] = math.nan
                    lse[f.masked] = math.nan
                else:
                    lse[f.masked] = -math.inf
                if P.conv.lse_base == "2":
                    lse = lse / math.log(2)
                O[b, h, rows] = o
                L[b, h, rows] = lse
    return {"O": O, "LSE": L}


_ = (json, Mapping, dataclass)


def _column_jobs(P: Problem, pending: dict, runner: Any, *extra: Any) -> tuple[list, list]:
    """The dK/dV work for undecided columns, split into row blocks across the runner's workers:
    one job ``(b, g, heads, r0, r1, cols, *extra)`` per block and key/value head, and its key."""
    B, H, Sq, Sk, D, Dv = P.shape
    R = P.block_rows()
    jobs, keys = [], []
    for (b, g), items in pending.items():
        cols = sorted({j for lst in items.values() for j, _, _ in lst})
        heads = [h for h in range(H) if h // P.group == g]
        span = max(R, math.ceil(Sq / max(runner.width, 1) / R) * R)
        for r0 in range(0, Sq, span):
            jobs.append((b, g, heads, r0, min(Sq, r0 + span), cols, *extra))
            keys.append(((b, g), cols))
    return jobs, keys
