"""Attention conventions of kernels, explicit and validated (each has a flag and is echoed).

================  ==========================================================  ===================
convention        values                                                      default
================  ==========================================================  ===================
``layout``        ``bhsd`` (PyTorch SDPA, Triton), ``bshd`` (FlashAttention)  ``bhsd``
``scale``         ``kernel``: 1/√d rounded to ``scale_dtype``, as a kernel    ``kernel``
                  receives it; ``exact``: the exact 1/√d; or a number, rounded
                  to ``scale_dtype``
``scale_dtype``   the float a kernel receives the scale in                    float32 (float64 for
                                                                              float64 inputs)
``causal``        ``none``, ``top-left`` (key j ≤ i: SDPA ``is_causal``, JAX),  ``none``
                  ``bottom-right`` (j ≤ i + s_k − s_q: FlashAttention ≥ 2.1)
``window``        (left, right): j − (i + off) ∈ [−left, right]; −1 = no       none
                  limit; ``off`` = s_k − s_q (bottom-right) or 0 (top-left)
``masked_rows``   a row with every key masked: ``zero`` (FlashAttention, SDPA),  ``zero``
                  ``nan`` (a plain softmax), ``error``
``lse_base``      ``e`` (FlashAttention) or ``2`` (FlashInfer: log2 Σ e^s)     ``e``
``softcap``       c: scores become c·tanh(s/c) (FlashAttention, Gemma 2)       none
================  ==========================================================  ===================

Causal masks, windows and ALiBi share one alignment: bottom-right unless ``causal`` is
``top-left``. Scores are formed as FlashAttention's reference does: ``τ·q·k``, then the
softcap, then masks, then ALiBi (−slope·|i + off − j|) and the additive bias.

>>> c = KernelConventions(causal="bottom-right", window=(4, 0))
>>> c.offset(2, 5), c.align
(3, 'bottom-right')
>>> parse_window("128,-1"), parse_scale("0.125"), parse_scale("exact")
((128, -1), Fraction(1, 8), 'exact')
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from fractions import Fraction
from typing import Any, Optional

import numpy as np

from ..errors import SymattnError

__all__ = ["KernelConventions", "parse_window", "parse_scale", "CAUSAL", "MASKED_ROWS", "LSE_BASES"]

CAUSAL = ("none", "top-left", "bottom-right")
MASKED_ROWS = ("zero", "nan", "error")
LSE_BASES = ("e", "2")
_SCALE_DTYPES = ("float64", "float32", "bfloat16", "float16")


def parse_window(text: Any) -> Optional[tuple[int, int]]:
    """``"L,R"`` (or a pair) → (left, right); −1 means no limit on that side.

    >>> parse_window((256, 0)), parse_window(None)
    ((256, 0), None)
    """
    if text is None:
        return None
    if isinstance(text, str):
        parts = [p.strip() for p in text.split(",")]
    else:
        parts = list(text)
    try:
        if len(parts) == 1:
            left, right = int(parts[0]), -1
        elif len(parts) == 2:
            left, right = int(parts[0]), int(parts[1])
        else:
            raise ValueError
    except (TypeError, ValueError):
        raise SymattnError(f"window: expected LEFT,RIGHT (whole numbers, -1 for no limit), got {text!r}") from None
    if left < -1 or right < -1:
        raise SymattnError(f"window: sizes must be ≥ 0, or -1 for no limit; got {left},{right}")
    return left, right


def parse_scale(value: Any) -> str | Fraction:
    """``"kernel"``, ``"exact"`` (1/√d), or a number (decimal text, ``"1/8"``, a hex float, a
    Python number) → an exact Fraction.

    >>> parse_scale("0x1.0p-3"), parse_scale(0.1) == Fraction(0.1)
    (Fraction(1, 8), True)
    """
    if value is None:
        return "kernel"
    if isinstance(value, str):
        t = value.strip().lower()
        if t in ("kernel", "default"):
            return "kernel"
        if t in ("exact", "1/sqrt(d)", "1/√d"):
            return "exact"
        try:
            if t.startswith(("0x", "-0x", "+0x")):
                f = Fraction(float.fromhex(t))
            else:
                f = Fraction(t)
        except (ValueError, ZeroDivisionError, OverflowError):
            raise SymattnError(f"scale: expected 'kernel', 'exact' or a positive number, got {value!r}") from None
    elif isinstance(value, bool):
        raise SymattnError(f"scale: expected a number, got {value!r}")
    elif isinstance(value, (int, float, Fraction, np.floating, np.integer)):
        if not np.isfinite(float(value)):
            raise SymattnError(f"scale: expected a finite number, got {value!r}")
        f = Fraction(value) if not isinstance(value, np.floating) else Fraction(float(value))
    else:
        raise SymattnError(f"scale: expected 'kernel', 'exact' or a number, got {type(value).__name__}")
    if f <= 0:
        raise SymattnError(f"scale: expected a positive number, got {value!r}")
    return f


@dataclass(frozen=True)
class KernelConventions:
    """The conventions of one reference computation (see the module's table)."""

    layout: str = "bhsd"
    scale: Any = "kernel"
    scale_dtype: Optional[str] = None
    causal: str = "none"
    window: Optional[tuple[int, int]] = None
    masked_rows: str = "zero"
    lse_base: str = "e"
    softcap: Optional[Fraction] = None
    extras: dict = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        if self.layout not in ("bhsd", "bshd"):
            raise SymattnError(f"layout: expected bhsd (PyTorch SDPA, Triton) or bshd (FlashAttention, JAX), "
                               f"got {self.layout!r}")
        object.__setattr__(self, "scale", parse_scale(self.scale))
        if self.scale_dtype is not None and self.scale_dtype not in _SCALE_DTYPES:
            raise SymattnError(f"scale dtype: expected one of {', '.join(_SCALE_DTYPES)}, got {self.scale_dtype!r}")
        causal = {"true": "top-left", "false": "none", "top_left": "top-left", "bottom_right": "bottom-right",
                  "lower-right": "bottom-right", "upper-left": "top-left"}.get(str(self.causal).lower(),
                                                                                str(self.causal).lower())
        if self.causal is True:
            causal = "top-left"
        if self.causal is False or self.causal is None:
            causal = "none"
        if causal not in CAUSAL:
            raise SymattnError(f"causal: expected none, top-left (SDPA is_causal, JAX) or bottom-right "
                               f"(FlashAttention ≥ 2.1), got {self.causal!r}")
        object.__setattr__(self, "causal", causal)
        object.__setattr__(self, "window", parse_window(self.window))
        if self.masked_rows not in MASKED_ROWS:
            raise SymattnError(f"masked rows: expected zero, nan or error, got {self.masked_rows!r}")
        base = str(self.lse_base)
        if base not in LSE_BASES:
            raise SymattnError(f"LSE base: expected e or 2, got {self.lse_base!r}")
        object.__setattr__(self, "lse_base", base)
        if self.softcap is not None:
            cap = parse_scale(self.softcap)
            if not isinstance(cap, Fraction):
                raise SymattnError(f"softcap: expected a positive number, got {self.softcap!r}")
            object.__setattr__(self, "softcap", cap)

    @property
    def align(self) -> str:
        """The alignment of causal masks, windows and ALiBi."""
        return "top-left" if self.causal == "top-left" else "bottom-right"

    def offset(self, seq_q: int, seq_k: int) -> int:
        """``off`` in j ≤ i + off: s_k − s_q for bottom-right, 0 for top-left."""
        return seq_k - seq_q if self.align == "bottom-right" else 0

    def structural_mask(self, rows: np.ndarray, seq_q: int, seq_k: int) -> Optional[np.ndarray]:
        """The causal/window mask for query rows ``rows`` (True = attend), or None when there is none."""
        if self.causal == "none" and self.window is None:
            return None
        off = self.offset(seq_q, seq_k)
        j = np.arange(seq_k)[None, :]
        d = j - (rows[:, None] + off)
        allowed = np.ones((len(rows), seq_k), dtype=bool)
        if self.causal != "none":
            allowed &= d <= 0
        if self.window is not None:
            left, right = self.window
            if left >= 0:
                allowed &= d >= -left
            if right >= 0:
                allowed &= d <= right
        return allowed

    def to_data(self) -> dict[str, Any]:
        d = asdict(self)
        d.pop("extras")
        d["scale"] = self.scale if isinstance(self.scale, str) else str(self.scale)
        d["softcap"] = None if self.softcap is None else str(self.softcap)
        d["window"] = None if self.window is None else list(self.window)
        d["align"] = self.align
        return d

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> "KernelConventions":
        keys = {"layout", "scale", "scale_dtype", "causal", "window", "masked_rows", "lse_base", "softcap"}
        return cls(**{k: v for k, v in data.items() if k in keys})
