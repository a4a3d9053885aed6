"""Views of a kernel comparison (:class:`~symattn.analyses.compare.Comparison`): terminal text,
JSON data and a ULP histogram picture (matplotlib)."""

from __future__ import annotations

import io
import json
from typing import Any

from ..analyses.compare import ULP_DEFINITION, Comparison, TensorReport

__all__ = ["text", "to_data", "dumps", "plot_png"]


def _n(x: Any) -> str:
    if x is None:
        return "—"
    x = float(x)
    if x != x:
        return "nan"
    if x == int(x) and abs(x) < 1e15:
        return f"{int(x)}"
    return f"{x:.3g}"


def _pct(x: float) -> str:
    return f"{100 * x:.3g}%"


def _tensor_text(t: TensorReport) -> list[str]:
    shape = "×".join(str(s) for s in t.shape)
    lines = [f"── {t.name} ({t.fmt}, {t.source}) {t.layout_dims} {shape}"]
    q = t.quantiles
    lines.append(f"  ULP distance: correctly rounded {_pct(t.exact_fraction)} · within 1 ulp {_pct(t.within1_fraction)}"
                 f" · max {_n(t.max_ulp)} · mean {t.mean_ulp:.3g}"
                 + "".join(f" · {k} {_n(v)}" for k, v in q.items()))
    if t.cond_max is not None:
        lines.append(f"  condition-aware ULP: max {t.cond_max:.3g} · mean {t.cond_mean:.3g}")
    bias = f"t = {t.bias_t:.3g}" + (": a systematic bias" if t.biased else "")
    cond = f" ({t.mean_error_cond:+.3g} condition-aware ulp)" if t.mean_error_cond is not None else ""
    lines.append(f"  errors against the {t.error_reference} reference: max abs {_n(t.max_abs)} · max rel "
                 f"{_n(t.max_rel)} · signed mean {t.mean_error:+.3g}{cond}, {bias}")
    nf = {k: v for k, v in t.nonfinite.items() if v}
    lines.append("  non-finite: " + (", ".join(f"{k.replace('_', ' ')} {v}" for k, v in nf.items()) if nf else "none"))
    if t.undecided_reference:
        lines.append(f"  {t.undecided_reference} reference entries were not decided (NaN with an enclosure in the "
                     "reference's metadata); the kernel is not judged on them")
    heads = sorted(t.per_head, key=lambda h: -h["max_ulp"])[:4]
    if len(t.per_head) > 1:
        lines.append("  worst heads: " + "; ".join(f"batch {h['batch']} head {h['head']}: max {_n(h['max_ulp'])}, "
                                                     f"mean {h['mean_ulp']:.3g}" for h in heads))
    if t.worst:
        lines.append("  worst entries (index, kernel, reference, ulp, condition-aware ulp):")
        for w in t.worst[:5]:
            lines.append(f"    {w['index']}  {w['kernel']!r}  {w['reference']!r}  {_n(w['ulp'])} ulp  "
                         f"{_n(w['cond_ulp'])}")
    hist = [f"{label}: {n}" for label, n in t.histogram if n]
    lines.append("  histogram (ulp: count): " + " · ".join(hist))
    lines.append("  " + ("within the bounds" if t.within else "OUTSIDE: " + "; ".join(t.reasons)))
    return lines


def text(c: Comparison) -> str:
    """The terminal report."""
    lines = [f"symattn compare: {', '.join(sorted({t.source.split(':')[0] for t in c.tensors}))} against "
             f"{c.reference_source or 'the reference'}"]
    for e in c.echo:
        lines.append(f"  {e}")
    b = c.bounds
    lines.append("  bounds: " + (", ".join(f"{k.replace('_', ' ')} {_n(v)}" for k, v in b.items() if v is not None)
                                 or "none given (only NaN/inf patterns and conventions are judged)"))
    lines.append("  " + ULP_DEFINITION)
    for t in c.tensors:
        lines.extend(_tensor_text(t))
    if c.diagnoses:
        lines.append("── conventions")
        for d in c.diagnoses:
            lines.append(f"  {d.tensor}: {d.convention}: {d.detail}" + (f" ({d.fix})" if d.fix else ""))
    lines.append("verdict: " + ("within the bounds (exit 0)" if c.ok else "outside the bounds (exit 1)"))
    return "\n".join(lines) + "\n"


def to_data(c: Comparison, rows: bool = True) -> dict[str, Any]:
    return c.to_data(rows)


def dumps(c: Comparison, rows: bool = True) -> str:
    return json.dumps(to_data(c, rows), ensure_ascii=False, separators=(",", ":")) + "\n"


def plot_png(c: Comparison) -> bytes:
    """A PNG of the ULP histograms, one panel per tensor (log counts)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    n = len(c.tensors)
    fig, axes = plt.subplots(n, 1, figsize=(9, 2.6 * n), squeeze=False)
    for ax, t in zip(axes[:, 0], c.tensors):
        labels = [label for label, _ in t.histogram]
        counts = [count for _, count in t.histogram]
        last = max((i for i, v in enumerate(counts) if v), default=0)
        labels, counts = labels[:max(last + 1, 3)], counts[:max(last + 1, 3)]
        ax.bar(range(len(counts)), counts, color="#3b6ea8")
        ax.set_yscale("symlog", linthresh=1)
        ax.set_xticks(range(len(labels)))
        ax.set_xticklabels(labels, rotation=45, ha="right", fontsize=7)
        ax.set_ylabel("entries")
        ax.set_title(f"{t.name} ({t.fmt}): ULP distance to the correctly rounded reference — "
                     f"{100 * t.exact_fraction:.3g}% exact, max {_n(t.max_ulp)}", fontsize=9)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, metadata={"Software": None})
    plt.close(fig)
    return buf.getvalue()
