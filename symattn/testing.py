"""Certified attention references in a kernel's test suite (pytest or any other).

``assert_attention_close`` computes the correctly rounded reference of the same inputs and
judges the kernel's output entry by entry (ULP distance, condition-aware ULP), naming a
convention mismatch when one explains the difference. ``attention_error`` returns the whole
report. Golden fixtures hold the inputs, the reference and the conventions in one file, so a
kernel's CI compares without recomputing::

    import symattn.testing as st
    st.assert_attention_close(out, q, k, v, causal="top-left", max_ulp=2)
    st.save_fixture("attn_causal.safetensors", q, k, v, causal="bottom-right", dtype="bfloat16")  # once
    fx = st.load_fixture("attn_causal.safetensors")                                              # in CI
    st.assert_fixture_close(my_kernel(*fx.inputs("torch"), **fx.kernel_kwargs), fx, max_ulp=2)

>>> import numpy as np
>>> rng = np.random.default_rng(1)
>>> q, k, v = (rng.standard_normal((6, 8)).astype(np.float32) for _ in range(3))
>>> s = q.astype(np.float64) @ k.T * np.float32(1 / np.sqrt(8)); p = np.exp(s - s.max(1, keepdims=True))
>>> out = ((p / p.sum(1, keepdims=True)) @ v).astype(np.float32)
>>> report = assert_attention_close(out, q, k, v, max_ulp=4)
>>> report.find("O").max_ulp <= 4
True
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

import numpy as np

from .analyses.compare import Comparison, compare
from .errors import SymattnError
from .exact.reference import Reference, reference
from .read.tensors import as_float_tensor

__all__ = ["assert_attention_close", "attention_error", "save_fixture", "load_fixture", "assert_fixture_close",
           "Fixture"]

_CONVENTIONS = ("scale", "scale_dtype", "causal", "window", "masked_rows", "lse_base", "softcap", "layout")


def attention_error(out: Any, q: Any, k: Any, v: Any, *, lse: Any = None, grad_out: Any = None, dq: Any = None,
                    dk: Any = None, dv: Any = None, bias: Any = None, mask: Any = None, alibi: Any = None,
                    max_ulp: Optional[float] = None, max_cond_ulp: Optional[float] = None, workers: int = 1,
                    client: Any = None, **conventions: Any) -> Comparison:
    """The error report of a kernel's outputs (O, and optionally LSE, dQ, dK, dV for ``grad_out``)
    against the certified reference of the same inputs and conventions.

    ``conventions``: ``scale``, ``scale_dtype``, ``causal``, ``window``, ``masked_rows``,
    ``lse_base``, ``softcap``, ``layout`` (as :func:`symattn.reference`).
    """
    unknown = set(conventions) - set(_CONVENTIONS)
    if unknown:
        raise TypeError(f"unknown convention(s) {', '.join(sorted(unknown))}; expected some of "
                        f"{', '.join(_CONVENTIONS)}")
    kernel = {"O": _kernel(out, "out")}
    for name, val in (("LSE", lse), ("dQ", dq), ("dK", dk), ("dV", dv)):
        if val is not None:
            kernel[name] = _kernel(val, name.lower())
    if any(n in kernel for n in ("dQ", "dK", "dV")) and grad_out is None:
        raise SymattnError("dq, dk, dv are judged against the gradient for an upstream gradient: pass grad_out=dO")
    fmts = sorted({t[1] for t in kernel.values()}, key=["float64", "float32", "float16", "bfloat16"].index)
    if fmts[0] != "float64" and "float32" not in fmts:
        fmts.append("float32")
    ref = reference(q, k, v, grad=grad_out, bias=bias, mask=mask, alibi=alibi, dtype=fmts, lse="LSE" in kernel,
                    workers=workers, client=client, **conventions)
    inputs = {"q": q, "k": k, "v": v, "bias": bias, "mask": mask, "alibi": alibi}
    return _compare(kernel, ref, max_ulp, max_cond_ulp, inputs)


def _kernel(x: Any, name: str) -> tuple[np.ndarray, str, str]:
    t = as_float_tensor(x, name)
    return t.values, t.dtype, name


def _compare(kernel: dict, ref: Reference, max_ulp: Optional[float], max_cond_ulp: Optional[float],
             inputs: Optional[dict]) -> Comparison:
    meta = ref.metadata()
    return compare(kernel, ref.values, scales=ref.scales, meta=meta, max_ulp=max_ulp, max_cond_ulp=max_cond_ulp,
                   inputs=inputs, reference_source="the certified reference")


def assert_attention_close(out: Any, q: Any, k: Any, v: Any, *, max_ulp: Optional[float] = None,
                           max_cond_ulp: Optional[float] = None, **kwargs: Any) -> Comparison:
    """Fail (AssertionError) unless every entry is within ``max_ulp`` of the correctly rounded
    value (and/or ``max_cond_ulp`` condition-aware ulps) and no convention differs. Returns the report.

    Takes the arguments of :func:`attention_error`.
    """
    if max_ulp is None and max_cond_ulp is None:
        raise TypeError("assert_attention_close needs a bound: max_ulp=... and/or max_cond_ulp=...")
    c = attention_error(out, q, k, v, max_ulp=max_ulp, max_cond_ulp=max_cond_ulp, **kwargs)
    if not c.ok:
        raise AssertionError(failure_message(c))
    return c


def failure_message(c: Comparison) -> str:
    """Where, how far, and which convention: the message of a failed assertion."""
    lines = ["attention output outside the bounds (" + ", ".join(f"{k}={v:g}" for k, v in c.bounds.items()
                                                              if v is not None) + ")"]
    for t in c.tensors:
        if t.within:
            continue
        w = t.worst[0] if t.worst else None
        where = ""
        if w is not None:
            where = (f" at {w['index']} {t.layout_dims}: kernel {w['kernel']!r}, correctly rounded "
                     f"{w['reference']!r}")
        lines.append(f"  {t.name} ({t.fmt}): max {t.max_ulp:g} ulp{where}; {100 * (1 - t.exact_fraction):.3g}% of "
                     f"entries not correctly rounded, p99 {t.quantiles.get('p99', 0):g} ulp; "
                     + "; ".join(t.reasons))
    for d in c.diagnoses:
        lines.append(f"  convention: {d.tensor}: {d.detail}" + (f" ({d.fix})" if d.fix else ""))
    for e in c.echo:
        if e.startswith("conventions:"):
            lines.append("  reference " + e)
    return "\n".join(lines)


# ------------------------------------------------------------------------------------------- fixtures

@dataclass
class Fixture:
    """A golden fixture: the inputs as given, the certified reference and its conventions."""

    path: str
    inputs_data: dict[str, Any]
    reference: dict[str, dict[str, np.ndarray]]
    scales: dict[str, np.ndarray]
    meta: dict[str, Any]
    conventions: dict[str, Any] = field(default_factory=dict)

    @property
    def kernel_kwargs(self) -> dict[str, Any]:
        """The conventions, as keyword arguments for :func:`attention_error`."""
        c = self.conventions
        return {k: c[k] for k in _CONVENTIONS if c.get(k) is not None}

    def inputs(self, framework: str = "numpy") -> tuple[Any, ...]:
        """(q, k, v) in their own format: NumPy (bfloat16 as ``ml_dtypes.bfloat16``) or torch tensors."""
        return tuple(self.tensor(r, framework) for r in ("q", "k", "v"))

    def tensor(self, role: str, framework: str = "numpy") -> Any:
        """One input (q, k, v, dO, bias, alibi, mask) in its own format."""
        if role not in self.inputs_data:
            raise KeyError(f"{role}: the fixture holds {', '.join(self.inputs_data)}")
        t = self.inputs_data[role]
        if role == "mask":
            arr = t[0]
            if framework == "torch":
                import torch

                return torch.from_numpy(arr.copy())
            return arr
        from .exact.floats import FORMATS, as_dtype
        from .exact.reference import _to_torch

        if framework == "torch":
            return _to_torch(t.values, t.dtype)
        return as_dtype(t.values, FORMATS[t.dtype])


def save_fixture(path: str, q: Any, k: Any, v: Any, **kwargs: Any) -> Reference:
    """Compute the reference (arguments of :func:`symattn.reference`) and write a fixture file
    (.safetensors or .npz), atomically. Returns the reference."""
    kwargs.setdefault("workers", 1)
    ref = reference(q, k, v, **kwargs)
    _write_atomic(ref.to_bytes(path, fixture=True), path)
    return ref


def _write_atomic(data: bytes, path: str) -> None:
    """A temp file beside ``path``, then a rename (``testing`` sits beside the command line, so it
    cannot use ``symattn.cli.output``; the semantics are the same)."""
    import os
    import tempfile
    from pathlib import Path

    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.is_dir():
        raise SymattnError(f"{path}: the folder {folder} does not exist")
    if target.exists() and not target.is_file():
        raise SymattnError(f"{path}: exists and is not a regular file; not replacing it")
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(tmp, 0o666 & ~mask)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def load_fixture(path: str) -> Fixture:
    """Read a fixture written by :func:`save_fixture` or ``symattn reference --save-fixture``."""
    from .read.tensors_results import read_reference

    ref, scales, meta, inputs = read_reference(path)
    if inputs is None:
        raise SymattnError(f"{path}: a reference without inputs, not a fixture (write one with --save-fixture)")
    return Fixture(path, inputs, ref, scales, meta, dict(meta.get("conventions", {})))


def assert_fixture_close(out: Any, fixture: Fixture, *, lse: Any = None, dq: Any = None, dk: Any = None,
                         dv: Any = None, max_ulp: Optional[float] = None, max_cond_ulp: Optional[float] = None) \
        -> Comparison:
    """Judge a kernel's outputs on a fixture's inputs against the fixture's reference (no recomputation)."""
    if max_ulp is None and max_cond_ulp is None:
        raise TypeError("assert_fixture_close needs a bound: max_ulp=... and/or max_cond_ulp=...")
    kernel = {"O": _kernel(out, "out")}
    for name, val in (("LSE", lse), ("dQ", dq), ("dK", dk), ("dV", dv)):
        if val is not None:
            kernel[name] = _kernel(val, name.lower())
    inputs = {r: (t if r != "mask" else t[0]) for r, t in fixture.inputs_data.items()}
    c = compare(kernel, fixture.reference, scales=fixture.scales, meta=fixture.meta, max_ulp=max_ulp,
                max_cond_ulp=max_cond_ulp, inputs={"q": inputs["q"], "k": inputs["k"], "v": inputs["v"],
                                                   "bias": inputs.get("bias"), "mask": inputs.get("mask"),
                                                   "alibi": inputs.get("alibi")},
                reference_source=fixture.path)
    if not c.ok:
        raise AssertionError(failure_message(c))
    return c
