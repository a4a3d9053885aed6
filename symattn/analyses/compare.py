"""A kernel's outputs against a certified reference: per-entry errors instead of fudge factors.

For each tensor (O, LSE, dQ, dK, dV) in the kernel's format:

- **ULP distance** to the correctly rounded reference in that format, counted on ordered
  bit patterns as NumPy's ``assert_array_max_ulp`` does (0 = correctly rounded; ±0 equal);
- a **condition-aware ULP**: |kernel − exact| in ulps of the entry's natural scale
  (Σⱼ pᵢⱼ|vⱼ| for O, the analogous sums for gradients, max(|row max score|, 1) for LSE),
  meaningful near zero where the raw ULP distance explodes;
- the **signed mean error** (a bias: a kernel that sums the denominator from fp32 p but
  multiplies bf16 p has one) with its t statistic, max abs and rel errors, NaN/inf patterns;
- per head and per row maxima and means, the worst entries with their indices, a histogram.

Errors against the exact value use the finest format the reference holds (a float32
reference is within half an fp32 ulp of the exact value; that is said in the report).

**Conventions.** A difference that a convention explains is diagnosed as that convention:
LSE in base 2 vs e (a factor ln 2), fully masked rows as 0 vs NaN (and FlashAttention's +inf
LSE), a BSHD tensor against a BHSD reference; with the inputs at hand (fixtures,
:func:`symattn.testing.attention_error`, ``symattn compare --inputs``) also causal alignment,
the scale, a GQA head mapping and sliding windows, by recomputing those variants in float64.

>>> import numpy as np
>>> ref = {"O": {"float32": np.array([[1.0, 2.0]])}}
>>> kern = {"O": (np.array([[1.0, 2.0 + 2**-22]]), "float32", "out.npy")}
>>> c = compare(kern, ref)
>>> c.tensors[0].max_ulp, c.ok
(1.0, True)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Mapping, Optional, Sequence

import numpy as np

from ..errors import SymattnError
from ..exact.floats import FORMATS, Format, ulp, ulp_distance

__all__ = ["compare", "Comparison", "TensorReport", "Diagnosis", "ULP_DEFINITION", "HISTOGRAM_EDGES",
           "finest"]

ULP_DEFINITION = ("ULP distance: the number of representable values of the kernel's format between the kernel's "
                  "value and the correctly rounded reference, counted on ordered bit patterns as NumPy's "
                  "assert_array_max_ulp does (0 = correctly rounded, +0 and -0 equal). Condition-aware ULP: "
                  "|kernel - exact| / ulp(scale) in the same format, with scale = sum_j p_ij |v_j| for O (and the "
                  "analogous sums for gradients), max(|row max score|, 1) for the LSE.")
#: histogram buckets of the ULP distance: 0, 1, 2, 3–4, 5–8, …, 2^19+1–2^20, > 2^20
HISTOGRAM_EDGES = [0, 1, 2] + [2 ** k for k in range(2, 21)]
_PREC = {"float64": 3, "float32": 2, "float16": 1, "bfloat16": 0}


@dataclass
class Diagnosis:
    """A convention that explains a difference (``tensor`` may be "*")."""

    tensor: str
    convention: str
    detail: str
    fix: str = ""
    explained: bool = True

    def to_data(self) -> dict[str, Any]:
        return {"tensor": self.tensor, "convention": self.convention, "detail": self.detail, "fix": self.fix}


@dataclass
class TensorReport:
    """The comparison of one tensor."""

    name: str
    fmt: str
    source: str
    shape: tuple[int, ...]
    layout_dims: str
    entries: int
    finite: int
    max_ulp: float
    mean_ulp: float
    quantiles: dict[str, float]
    exact_fraction: float
    within1_fraction: float
    cond_max: Optional[float]
    cond_mean: Optional[float]
    error_reference: str
    mean_error: float
    mean_error_cond: Optional[float]
    bias_t: float
    biased: bool
    max_abs: float
    max_rel: float
    nonfinite: dict[str, int]
    histogram: list[tuple[str, int]]
    per_head: list[dict[str, Any]]
    per_row_max: np.ndarray = field(repr=False)
    per_row_mean: np.ndarray = field(repr=False)
    worst: list[dict[str, Any]] = field(default_factory=list)
    undecided_reference: int = 0
    within: bool = True
    reasons: list[str] = field(default_factory=list)
    ulps: Optional[np.ndarray] = field(default=None, repr=False)

    def to_data(self, rows: bool = True) -> dict[str, Any]:
        d = {k: getattr(self, k) for k in (
            "name", "fmt", "source", "entries", "finite", "max_ulp", "mean_ulp", "quantiles", "exact_fraction",
            "within1_fraction", "cond_max", "cond_mean", "error_reference", "mean_error", "mean_error_cond",
            "bias_t", "biased", "max_abs", "max_rel", "nonfinite", "per_head", "worst", "undecided_reference",
            "within", "reasons")}
        d["shape"] = list(self.shape)
        d["index_dims"] = self.layout_dims
        d["histogram"] = [{"ulp": label, "count": n} for label, n in self.histogram]
        if rows:
            d["per_row"] = {"max_ulp": _jsonable(self.per_row_max), "mean_ulp": _jsonable(self.per_row_mean)}
        return _clean(d)


@dataclass
class Comparison:
    """Every tensor's report, the diagnoses, the bounds and the verdict."""

    tensors: list[TensorReport]
    diagnoses: list[Diagnosis]
    echo: list[str]
    bounds: dict[str, Optional[float]]
    ok: bool
    reference_source: str = ""

    def find(self, name: str) -> TensorReport:
        for t in self.tensors:
            if t.name == name:
                return t
        raise KeyError(f"{name}: compared tensors are {', '.join(t.name for t in self.tensors)}")

    def to_data(self, rows: bool = True) -> dict[str, Any]:
        return {"ok": self.ok, "bounds": self.bounds, "ulp_definition": ULP_DEFINITION,
                "reference": self.reference_source, "conventions": self.echo,
                "diagnoses": [d.to_data() for d in self.diagnoses],
                "tensors": [t.to_data(rows) for t in self.tensors]}

    def __str__(self) -> str:
        from ..display import render

        return render(self, "text")


def finest(per_format: Mapping[str, np.ndarray]) -> str:
    """The most precise format present."""
    return max(per_format, key=lambda f: _PREC.get(f, -1))


# ------------------------------------------------------------------------------------------- the comparison

def compare(kernel: Mapping[str, tuple[np.ndarray, str, str]], reference: Mapping[str, Mapping[str, np.ndarray]],
            *, scales: Optional[Mapping[str, np.ndarray]] = None, meta: Optional[Mapping[str, Any]] = None,
            max_ulp: Optional[float] = None, max_cond_ulp: Optional[float] = None,
            inputs: Optional[Mapping[str, Any]] = None, worst: int = 10, reference_source: str = "") -> Comparison:
    """Compare kernel tensors ``{name: (values as float64, format, source)}`` with reference tensors
    ``{name: {format: values}}`` (names O, LSE, dQ, dK, dV).

    ``scales`` are the reference's condition scales, ``meta`` its metadata (conventions,
    undecided entries); ``inputs`` (q, k, v, ...: a :class:`~symattn.exact.reference.Problem`
    factory's arguments) enables the diagnoses that recompute conventions.
    """
    scales = scales or {}
    meta = dict(meta or {})
    diagnoses: list[Diagnosis] = []
    reports: list[TensorReport] = []
    names = [n for n in ("O", "LSE", "dQ", "dK", "dV") if n in kernel]
    if not names:
        raise SymattnError("the kernel output holds none of O, LSE, dQ, dK, dV (name them out/o/O, lse, dq, dk, dv)")
    conv = meta.get("conventions", {}) or {}
    undecided = meta.get("undecided", []) or []
    for name in names:
        values, fmt_name, source = kernel[name]
        if name not in reference:
            raise SymattnError(f"{source}: the reference has no {name} (it has {', '.join(reference) or 'nothing'}); "
                               + ("rerun symattn reference with --grad dO" if name in ("dQ", "dK", "dV") else
                                  "rerun symattn reference without --no-lse"))
        per = reference[name]
        if fmt_name not in per:
            raise SymattnError(f"{source}: {name} is {fmt_name} but the reference holds {name} in "
                               f"{', '.join(per)} only; rerun symattn reference with --dtype "
                               f"{','.join([fmt_name] + [f for f in per if f != fmt_name])}")
        fmt = FORMATS[fmt_name]
        ref = np.asarray(per[fmt_name], dtype=np.float64)
        fine_name = finest(per)
        fine = np.asarray(per[fine_name], dtype=np.float64)
        scale = scales.get(name)
        values = np.asarray(values, dtype=np.float64)
        dims = _dims(name, ref.ndim, conv.get("layout", "bhsd"))
        if values.shape != ref.shape:
            values, diag = _match_shape(name, values, ref.shape, source, conv.get("layout", "bhsd"))
            if diag is not None:
                diagnoses.append(diag)
        if name == "LSE":
            values, d2 = _lse_conventions(values, fine, source)
            diagnoses.extend(d2)
        d3 = _masked_rows(name, values, ref, source, conv)
        diagnoses.extend(d3)
        und = sum(1 for u in undecided if u.get("tensor") == name and u.get("format") == fmt_name)
        rep = _report(name, fmt, source, values, ref, fine, fine_name, scale, dims, worst, und)
        reports.append(rep)
    if inputs is not None:
        diagnoses.extend(_recompute_diagnoses(kernel, reference, reports, meta, inputs))
    # bounds and verdict
    for rep in reports:
        if max_ulp is not None and rep.max_ulp > max_ulp:
            rep.within = False
            rep.reasons.append(f"max ULP distance {_fmt_num(rep.max_ulp)} > {_fmt_num(max_ulp)}")
        if max_cond_ulp is not None and rep.cond_max is not None and rep.cond_max > max_cond_ulp:
            rep.within = False
            rep.reasons.append(f"max condition-aware ULP {_fmt_num(rep.cond_max)} > {_fmt_num(max_cond_ulp)}")
        bad = rep.nonfinite.get("kernel_nan_where_finite", 0) + rep.nonfinite.get("kernel_inf_where_finite", 0) \
            + rep.nonfinite.get("kernel_finite_where_nan", 0)
        if bad:
            rep.within = False
            rep.reasons.append(f"{bad} entries non-finite in one and finite in the other")
    for d in diagnoses:
        if d.explained:
            for rep in reports:
                if d.tensor in (rep.name, "*") and not any(r.startswith("convention") for r in rep.reasons):
                    rep.within = False
                    rep.reasons.append(f"convention: {d.convention}")
    ok = all(r.within for r in reports)
    bounds = {"max_ulp": max_ulp, "max_cond_ulp": max_cond_ulp}
    return Comparison(reports, diagnoses, list(meta.get("echo", [])), bounds, ok, reference_source)


def _dims(name: str, ndim: int, layout: str) -> str:
    if name == "LSE":
        return {1: "(seq_q)", 2: "(heads, seq_q)", 3: "(batch, heads, seq_q)"}.get(ndim, "")
    if ndim == 2:
        return "(seq, d)"
    if layout == "bshd":
        return "(seq, heads, d)" if ndim == 3 else "(batch, seq, heads, d)"
    return "(heads, seq, d)" if ndim == 3 else "(batch, heads, seq, d)"


def _match_shape(name: str, values: np.ndarray, shape: tuple[int, ...], source: str, layout: str) \
        -> tuple[np.ndarray, Optional[Diagnosis]]:
    """Transpose a BSHD tensor to a BHSD reference (or back), or refuse a shape that cannot match."""
    if values.ndim == len(shape) and values.ndim >= 3:
        if values.ndim == 4:
            t = values.transpose(0, 2, 1, 3)
            other = "bshd" if layout == "bhsd" else "bhsd"
        elif name == "LSE":
            t = values.transpose(0, 2, 1)
            other = "(batch, seq_q, heads)"
        else:
            t = values.transpose(1, 0, 2)
            other = "bshd" if layout == "bhsd" else "bhsd"
        if t.shape == tuple(shape):
            return np.ascontiguousarray(t), Diagnosis(
                name, f"layout {other}", f"{source}: {name} has shape {values.shape}, the reference's {layout} "
                f"{name} is {tuple(shape)}: the kernel's tensor is {other}; compared after transposing",
                fix=f"rerun symattn reference with --layout {other}" if name != "LSE" else "", explained=False)
    raise SymattnError(f"{source}: {name} has shape {tuple(values.shape)}; the reference's {name} is {tuple(shape)}")


def _lse_conventions(values: np.ndarray, fine: np.ndarray, source: str) -> tuple[np.ndarray, list[Diagnosis]]:
    """Detect an LSE in the other base (off by exactly a factor ln 2) and convert it."""
    out: list[Diagnosis] = []
    fin = np.isfinite(values) & np.isfinite(fine) & (np.abs(fine) > 1e-3)
    if fin.sum() < 1:
        return values, out
    direct = np.median(np.abs(values[fin] - fine[fin]) / np.abs(fine[fin]))
    ln2 = math.log(2)
    for factor, what, fix in ((ln2, "the kernel's LSE is in base 2 (log2 Σ e^s, as FlashInfer): "
                                    "kernel · ln 2 = reference", "--lse-base 2"),
                              (1 / ln2, "the kernel's LSE is in base e while the reference's is in base 2: "
                                        "kernel / ln 2 = reference", "--lse-base e")):
        conv = values * factor
        alt = np.median(np.abs(conv[fin] - fine[fin]) / np.abs(fine[fin]))
        if alt < 1e-2 * direct and alt < 1e-2:
            out.append(Diagnosis("LSE", "LSE base " + ("2" if factor == ln2 else "e"), f"{source}: {what}; "
                                 "the ULP figures below are of the converted values", fix=f"rerun symattn "
                                 f"reference with {fix}"))
            return conv, out
    return values, out


def _masked_rows(name: str, values: np.ndarray, ref: np.ndarray, source: str, conv: Mapping[str, Any]) \
        -> list[Diagnosis]:
    out: list[Diagnosis] = []
    if name in ("dK", "dV"):
        return out
    nan_ref = np.isnan(ref)
    if name == "LSE":
        neg = np.isneginf(ref)
        if neg.any():
            k = values[neg]
            if np.all(np.isposinf(k)):
                out.append(Diagnosis("LSE", "masked-row LSE +inf", f"{source}: the kernel writes +inf as the LSE of "
                                     f"the {int(neg.sum())} fully masked rows (FlashAttention does); the reference "
                                     "writes −inf (log of an empty sum)", explained=False))
                values[neg] = -np.inf
            elif np.all(np.isnan(k)):
                out.append(_nan_rows("LSE", source, int(neg.sum()), "NaN", "zero"))
        if nan_ref.any() and np.all(np.isneginf(values[nan_ref]) | np.isposinf(values[nan_ref])):
            out.append(_nan_rows("LSE", source, int(nan_ref.sum()), "−inf/+inf", "nan"))
        return out
    red = tuple(range(values.ndim - 1, values.ndim))
    rows_nan_ref = np.all(nan_ref, axis=red)
    if rows_nan_ref.any():
        kk = values[rows_nan_ref]
        if np.all(kk == 0):
            out.append(_nan_rows(name, source, int(rows_nan_ref.sum()), "0", "nan"))
    rows_zero_ref = np.all(ref == 0, axis=red) & str(conv.get("masked_rows", "zero")).__eq__("zero")
    if rows_zero_ref.any():
        kk = values[rows_zero_ref]
        if kk.size and np.all(np.isnan(kk)):
            out.append(_nan_rows(name, source, int(rows_zero_ref.sum()), "NaN", "zero"))
    return out


def _nan_rows(name: str, source: str, n: int, kernel: str, ref_conv: str) -> Diagnosis:
    fix = {"0": "zero", "NaN": "nan", "−inf/+inf": "zero"}.get(kernel, "zero")
    return Diagnosis(name, f"fully masked rows as {kernel}", f"{source}: on {n} fully masked rows the kernel gives "
                     f"{kernel}, the reference convention is '{ref_conv}'", fix=f"rerun symattn reference with "
                     f"--masked-rows {fix}")


def _report(name: str, fmt: Format, source: str, values: np.ndarray, ref: np.ndarray, fine: np.ndarray,
            fine_name: str, scale: Optional[np.ndarray], dims: str, nworst: int, undecided: int) -> TensorReport:
    kn, rn = np.isnan(values), np.isnan(ref)
    ki, ri = np.isinf(values), np.isinf(ref)
    nonfinite = {
        "kernel_nan_where_finite": int((kn & ~rn & ~ri).sum()),
        "kernel_inf_where_finite": int((ki & ~rn & ~ri).sum()),
        "kernel_finite_where_nan": int((~kn & ~ki & rn).sum()),
        "both_nan": int((kn & rn).sum()),
        "inf_mismatch": int((ki & ri & (np.sign(values) != np.sign(ref))).sum()),
    }
    # reference entries written as NaN because they were undecided are not counted against the kernel
    if undecided:
        nonfinite["kernel_finite_where_nan"] = max(0, nonfinite["kernel_finite_where_nan"] - undecided)
    both = np.isfinite(values) & np.isfinite(ref)
    ulps = ulp_distance(values, ref, fmt)
    ulps = np.where(both | (ki & ri & (np.sign(values) == np.sign(ref))) | (kn & rn), ulps, np.nan)
    ulps = np.where(kn & rn, 0.0, ulps)
    fin = np.isfinite(ulps)
    u = ulps[fin]
    n = int(fin.sum())
    maxu = float(u.max()) if n else 0.0
    meanu = float(u.mean()) if n else 0.0
    qs = {}
    if n:
        for label, q in (("p50", 50), ("p99", 99), ("p99.9", 99.9)):
            qs[label] = float(np.percentile(u, q))
    err_ok = np.isfinite(values) & np.isfinite(fine)
    with np.errstate(invalid="ignore"):
        err = np.where(err_ok, values - fine, 0.0)
    m = int(err_ok.sum())
    mean_err = float(err[err_ok].mean()) if m else 0.0
    sd = float(err[err_ok].std()) if m > 1 else 0.0
    bias_t = mean_err / (sd / math.sqrt(m)) if sd > 0 else 0.0
    cond = None
    cond_max = cond_mean = mean_cond = None
    if scale is not None and scale.shape == values.shape:
        sc = np.asarray(scale, dtype=np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            cond = np.abs(err) / ulp(np.where(np.isfinite(sc), sc, 0.0), fmt)
            signed = err / ulp(np.where(np.isfinite(sc), sc, 0.0), fmt)
        cok = err_ok & np.isfinite(cond)
        cond_max = float(cond[cok].max()) if cok.any() else 0.0
        cond_mean = float(cond[cok].mean()) if cok.any() else 0.0
        mean_cond = float(signed[cok].mean()) if cok.any() else 0.0
    with np.errstate(invalid="ignore", divide="ignore"):
        absd = np.abs(err)
        rel = np.where(err_ok & (fine != 0), absd / np.abs(np.where(fine == 0, 1.0, fine)), 0.0)
    max_abs = float(absd[err_ok].max()) if m else 0.0
    max_rel = float(rel[err_ok].max()) if m else 0.0
    hist = _histogram(u, int((~fin & (kn | ki | rn | ri)).sum()))
    per_head, row_max, row_mean = _per_head_rows(name, ulps)
    worst = _worst(values, ref, fine, ulps, cond, nworst)
    biased = abs(bias_t) >= 5 and m >= 100
    return TensorReport(name, fmt.name, source, tuple(values.shape), dims, int(values.size), n, maxu, meanu, qs,
                        float((u == 0).mean()) if n else 1.0, float((u <= 1).mean()) if n else 1.0, cond_max,
                        cond_mean, fine_name, mean_err, mean_cond, bias_t, biased, max_abs, max_rel, nonfinite, hist,
                        per_head, row_max, row_mean, worst, undecided, ulps=ulps)


def _histogram(u: np.ndarray, nonfinite: int) -> list[tuple[str, int]]:
    out = [("0", int((u == 0).sum())), ("1", int((u == 1).sum())), ("2", int((u == 2).sum()))]
    lo = 3
    for k in range(2, 21):
        hi = 2 ** k
        out.append((f"{lo}-{hi}", int(((u >= lo) & (u <= hi)).sum())))
        lo = hi + 1
    out.append((f">{2 ** 20}", int((u > 2 ** 20).sum())))
    if nonfinite:
        out.append(("non-finite", nonfinite))
    return out


def _per_head_rows(name: str, ulps: np.ndarray) -> tuple[list[dict[str, Any]], np.ndarray, np.ndarray]:
    """Per (batch, head) and per row (the last axis reduced; LSE: entries are rows)."""
    a = ulps
    if name == "LSE":
        rows = a
        while rows.ndim < 3:
            rows = rows[None]
        row_max, row_mean = rows, rows
    else:
        rows = a
        while rows.ndim < 4:
            rows = rows[None]
        with np.errstate(invalid="ignore"), _quiet():
            row_max = np.nanmax(np.where(np.isnan(rows), -1, rows), axis=-1)
            row_max = np.where(row_max < 0, np.nan, row_max)
            row_mean = np.nanmean(rows, axis=-1)
    heads = []
    lead = row_max.reshape(-1, row_max.shape[-1]) if row_max.ndim >= 2 else row_max[None]
    means = row_mean.reshape(-1, row_mean.shape[-1]) if row_mean.ndim >= 2 else row_mean[None]
    nb = row_max.shape[0] if row_max.ndim == 3 else 1
    for idx in range(lead.shape[0]):
        with np.errstate(invalid="ignore"), _quiet():
            mx = float(np.nanmax(lead[idx])) if np.isfinite(lead[idx]).any() else 0.0
            mn = float(np.nanmean(means[idx])) if np.isfinite(means[idx]).any() else 0.0
        b, h = divmod(idx, lead.shape[0] // max(nb, 1)) if nb > 1 else (0, idx)
        heads.append({"batch": int(b), "head": int(h), "max_ulp": mx, "mean_ulp": mn})
    return heads, row_max, row_mean


class _quiet:
    def __enter__(self) -> None:
        import warnings

        self.w = warnings.catch_warnings()
        self.w.__enter__()
        warnings.simplefilter("ignore", RuntimeWarning)

    def __exit__(self, *exc: object) -> None:
        self.w.__exit__(*exc)


def _worst(values: np.ndarray, ref: np.ndarray, fine: np.ndarray, ulps: np.ndarray, cond: Optional[np.ndarray],
           n: int) -> list[dict[str, Any]]:
    key = np.where(np.isnan(ulps), np.inf, ulps).reshape(-1)
    if key.size == 0 or n <= 0:
        return []
    order = np.argsort(-key, kind="stable")[:n]
    out = []
    for flat in order:
        if key[flat] == 0:
            break
        idx = tuple(int(i) for i in np.unravel_index(int(flat), values.shape))
        out.append({"index": list(idx), "kernel": float(values[idx]), "reference": float(ref[idx]),
                    "exact_approx": float(fine[idx]),
                    "ulp": None if np.isnan(ulps[idx]) else float(ulps[idx]),
                    "cond_ulp": None if cond is None or not np.isfinite(cond[idx]) else float(cond[idx])})
    return out


# ------------------------------------------------------------------------------------------- recomputed conventions

def _recompute_diagnoses(kernel: Mapping[str, Any], reference: Mapping[str, Any], reports: Sequence[TensorReport],
                         meta: Mapping[str, Any], inputs: Mapping[str, Any]) -> list[Diagnosis]:
    """With the inputs at hand: does the kernel's O fit another causal alignment, scale, GQA
    mapping or window much better than the reference's conventions? (float64, for diagnosis)"""
    from ..exact.reference import float64_attention, prepare
    from ..read.tensors_conventions import KernelConventions

    try:
        rep = next(r for r in reports if r.name == "O")
    except StopIteration:
        return []
    if rep.finite == 0 or (rep.quantiles.get("p50", 0) <= 2 and rep.max_ulp <= 64):
        return []
    values = np.asarray(kernel["O"][0], dtype=np.float64)
    fmt = FORMATS[rep.fmt]
    conv_data = dict(meta.get("conventions", {}) or {})
    base = KernelConventions.from_data(conv_data) if conv_data else KernelConventions()
    q, k, v = inputs["q"], inputs["k"], inputs["v"]
    extra = {r: inputs[r] for r in ("bias", "mask", "alibi") if inputs.get(r) is not None}
    shape = values.shape

    def score(conv: KernelConventions, gqa_alt: bool = False) -> Optional[float]:
        try:
            P = prepare(q, k, v, conventions=conv, dtype=rep.fmt, lse=False, **extra)
        except SymattnError:
            return None
        if gqa_alt:
            if P.group == 1:
                return None
            Hkv = P.k.shape[1]
            idx = [h % Hkv for h in range(P.q.shape[1])]
            P.k = np.ascontiguousarray(P.k[:, idx])
            P.v = np.ascontiguousarray(P.v[:, idx])
        out = float64_attention(P)["O"]
        from ..read.tensors import from_bhsd

        o = from_bhsd(out, conv.layout, P.ndim)
        if o.shape != shape:
            return None
        with np.errstate(invalid="ignore"):
            d = np.abs(values - o) / ulp(np.abs(o), fmt)
        d = d[np.isfinite(d)]
        return float(np.median(d)) if d.size else None

    here = score(base)
    if here is None:
        return []
    alts: list[tuple[str, str, KernelConventions, bool]] = []
    c = base.causal
    for other in ("top-left", "bottom-right", "none"):
        if other != c:
            label = {"top-left": "causal top-left (SDPA is_causal, JAX)",
                     "bottom-right": "causal bottom-right (FlashAttention ≥ 2.1)", "none": "no causal mask"}[other]
            alts.append((label, f"--causal {other}", _replace(base, causal=other), False))
    for sc, label in (("exact", "the exact scale 1/√d"), ("kernel", "1/√d rounded to float32")):
        if base.scale != sc:
            alts.append((f"scale {label}", f"--scale {sc}", _replace(base, scale=sc, scale_dtype="float32"), False))
    if base.scale_dtype != "float64":
        alts.append(("scale 1/√d in float64", "--scale-dtype float64", _replace(base, scale_dtype="float64"), False))
    alts.append(("no scale (τ = 1)", "--scale 1", _replace(base, scale="1"), False))
    alts.append(("GQA mapping h → h mod H_kv (K and V repeated, not interleaved)", "(repeat_interleave K and V "
                 "to match h // (H/H_kv))", base, True))
    if base.window is not None and base.causal == "none":
        alts.append(("window aligned top-left", "--causal top-left", _replace(base, causal="top-left"), False))
    out: list[Diagnosis] = []
    best = None
    for label, fix, conv, gqa in alts:
        s = score(conv, gqa)
        if s is None:
            continue
        if best is None or s < best[0]:
            best = (s, label, fix)
    if best is not None and best[0] <= 2 and here > 8 * max(best[0], 0.25):
        out.append(Diagnosis("O", best[1], f"the kernel's O matches {best[1]} (median error {best[0]:.3g} ulp "
                             f"against float64 attention with that convention) and not the reference's "
                             f"conventions (median {here:.3g} ulp)", fix=f"rerun symattn reference with {best[2]}"))
    return out


def _replace(conv: Any, **changes: Any) -> Any:
    data = conv.to_data()
    data.update(changes)
    from ..read.tensors_conventions import KernelConventions

    return KernelConventions.from_data(data)


# ------------------------------------------------------------------------------------------- helpers

def _fmt_num(x: float) -> str:
    if x == int(x):
        return str(int(x))
    return f"{x:.3g}"


def _jsonable(a: np.ndarray) -> Any:
    return [None if not np.isfinite(x) else float(x) for x in np.asarray(a, dtype=np.float64).reshape(-1)] \
        if a.ndim <= 1 else [_jsonable(x) for x in a]


def _clean(x: Any) -> Any:
    if isinstance(x, dict):
        return {k: _clean(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_clean(v) for v in x]
    if isinstance(x, (np.floating, float)):
        f = float(x)
        return f if math.isfinite(f) else (None if math.isnan(f) else ("inf" if f > 0 else "-inf"))
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, np.bool_):
        return bool(x)
    return x
