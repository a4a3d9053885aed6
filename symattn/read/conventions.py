"""Conventions of a worked example: layout, scale, temperature, masks, softmax axis, heads.

Every convention is explicit and echoed in every output:

>>> c = Convention()
>>> c.layout, c.scale_text, c.softmax_axis
('row', '1/sqrt(d_k)', 'keys')
>>> c.tau(d_k=2, d_v=2, d_model=3, heads=1)
sqrt(2)/2
>>> sorted(allowed_pattern("causal", None, 2, 3))
[(0, 0), (1, 0), (1, 1)]
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Sequence

import sympy

from ..errors import InputError
from .numbers import parse_expression

__all__ = ["Convention", "LAYOUTS", "MASKS", "AXES", "MASKED_ROWS", "NORMALIZATIONS", "allowed_pattern",
           "window_pattern"]

#: layout -> (description, how a projection is written)
LAYOUTS = {
    "row": "row vectors, Q = X·W_q (Vaswani et al., NumPy); W is (d_in, d_out)",
    "column": "column vectors, q = W_q·x; X is (d_in, n), W is (d_out, d_in), Q is (d_k, n)",
    "torch": "row vectors with nn.Linear weights, Q = X·W_qᵀ; W is (d_out, d_in)",
}
MASKS = {
    "none": "no mask",
    "causal": "query i sees key j when j ≤ i (top-left; PyTorch is_causal, JAX)",
    "causal_bottom_right": "query i sees key j when j ≤ i + n_keys − n_queries (FlashAttention)",
    "matrix": "an explicit boolean matrix, true = attend (PyTorch SDPA attn_mask)",
}
AXES = {"keys": "each query row sums to 1 (standard)", "queries": "each key column sums to 1"}
MASKED_ROWS = {"error": "a fully masked row is an error", "zero": "a fully masked row gives weights 0"}
NORMALIZATIONS = {"softmax": "exp(x_j) / Σ_k exp(x_k) (the standard)",
                  "sum": "x_j / Σ_k x_k: dividing by the sum instead of a softmax (a bug, reproduced)"}

_SCALE_NAMES = ("d_k", "d_v", "d_model", "h")


@dataclass
class Convention:
    """How a worked example computes attention."""

    layout: str = "row"
    scale_text: str = "1/sqrt(d_k)"
    scale_expr: sympy.Expr | None = None  # None means parse scale_text
    temperature: sympy.Expr = sympy.Integer(1)
    mask: str = "none"
    mask_matrix: list[list[bool]] | None = None
    has_bias: bool = False
    mask_value: sympy.Expr = sympy.S.NegativeInfinity
    masked_rows: str = "error"
    softmax_axis: str = "keys"
    normalization: str = "softmax"
    heads: int = 1
    query: str | int | None = None
    d_k: int | None = None  # needed to resolve 1/sqrt(d_k) when starting from scores
    score: str = "dot"  # dot | general | additive | linear (symattn.read.scores_spec)
    feature_map: str = "elu+1"  # linear attention's φ
    kv_heads: int | None = None  # grouped-query attention: key/value heads (None: one per query head)
    kv_order: str = "interleave"  # query head h reads key/value head h // (H/G) ("interleave") or h mod G ("tile")
    window: tuple[int | None, int | None] | None = None  # sliding window (left, right); None = no limit

    @property
    def groups(self) -> int:
        """Key/value heads (``kv_heads``, or one per query head)."""
        return self.kv_heads or self.heads

    def kv_head(self, head: int) -> int:
        """The 0-based key/value head that serves 0-based query head ``head`` (repeat_interleave order).

        >>> Convention(heads=4, kv_heads=2).kv_head(1), Convention(heads=4, kv_heads=2).kv_head(2)
        (0, 1)
        >>> Convention(heads=4, kv_heads=2, kv_order="tile").kv_head(1)
        1
        """
        if self.kv_order == "tile":  # K.repeat(…): heads cycle through the key/value heads
            return head % self.groups
        return head // (self.heads // self.groups)

    def window_offset(self, n_queries: int, n_keys: int) -> int:
        """``off`` in a window i + off − left ≤ j ≤ i + off + right: n_keys − n_queries with the
        bottom-right causal mask, else 0 (the window is aligned like the causal mask)."""
        return n_keys - n_queries if self.mask == "causal_bottom_right" else 0
    # positions (issue 13; symattn.pipeline.positions): none | sinusoidal | rope, and ALiBi
    positions: str = "none"
    position_base: sympy.Expr = sympy.Integer(10000)
    rope_style: str = "interleaved"
    rope_base: sympy.Expr = sympy.Integer(10000)
    position_ids: list | None = None  # exact numbers or symbols, one per query (default 0..n-1)
    key_position_ids: list | None = None  # one per key (cross-attention)
    alibi: bool = False
    alibi_slopes: list | None = None  # one per head; None with alibi: the official geometric rule

    def scale_value(self, **dims: int | None) -> sympy.Expr:
        """The scale with the example's dimensions substituted (before temperature)."""
        if self.scale_text.strip().lower() == "none":
            return sympy.Integer(1)
        if self.scale_expr is not None:
            return self.scale_expr
        names = {k: sympy.Integer(v) for k, v in dims.items() if v is not None}
        if "\\" in self.scale_text:
            from .latex_numbers import parse_latex

            value = parse_latex(self.scale_text, names)
            if isinstance(value, sympy.MatrixBase):
                raise InputError("expected one number, got a matrix")
            return value
        return parse_expression(self.scale_text, names)

    def tau(self, **dims: int | None) -> sympy.Expr:
        """The factor applied to the scores: scale / temperature."""
        return self.scale_value(**dims) / self.temperature

    def check_scale(self) -> None:
        """Parse the scale once with placeholder dimensions, to report errors early."""
        if self.scale_text.strip().lower() == "none" or self.scale_expr is not None:
            return
        self.scale_value(**{k: 1 for k in _SCALE_NAMES})

    def echo(self, **dims: int | None) -> dict:
        """The conventions as they were applied, for every output (stable key order)."""
        tau_text = _tau_text(self.scale_text, self.scale_expr, self.temperature, tuple(sorted(dims.items())))
        out = {
            "layout": self.layout,
            "scale": self.scale_text,
            "temperature": str(self.temperature),
            "tau": tau_text,
            "mask": self.mask,
            "bias": self.has_bias,
            "mask_value": "-inf" if self.mask_value == sympy.S.NegativeInfinity else str(self.mask_value),
            "masked_rows": self.masked_rows,
            "softmax_axis": self.softmax_axis,
            "normalization": self.normalization,
            "heads": self.heads,
            "query": self.query,
            **({"kv_heads": self.kv_heads} if self.kv_heads is not None else {}),
            **({"kv_order": self.kv_order} if self.kv_order != "interleave" else {}),
            **({"window": [_inf_text(w) for w in self.window]} if self.window is not None else {}),
            **self.position_echo(),
        }
        if self.score != "dot":  # echoed only for the variants (issue 13)
            out["score"] = self.score
            if self.score == "linear":
                out["feature_map"] = self.feature_map
        return out

    def position_echo(self) -> dict:
        """The position conventions, only when the example uses them (other outputs stay as they were)."""
        out: dict = {}
        if self.positions != "none":
            out["positions"] = self.positions
            if self.positions == "sinusoidal":
                out["position_base"] = str(self.position_base)
            else:
                out["rope_style"] = self.rope_style
                out["rope_base"] = str(self.rope_base)
        if self.positions != "none" or self.alibi:
            if self.position_ids is not None:
                out["position_ids"] = [str(p) for p in self.position_ids]
            if self.key_position_ids is not None:
                out["key_position_ids"] = [str(p) for p in self.key_position_ids]
        if self.alibi:
            out["alibi"] = True
            if self.alibi_slopes is not None:
                out["alibi_slopes"] = [str(m) for m in self.alibi_slopes]
        return out


def _inf_text(w: int | None) -> int | str:
    return "inf" if w is None else w


def window_pattern(window: tuple[int | None, int | None], off: int, n_queries: int,
                   n_keys: int) -> set[tuple[int, int]]:
    """The (query, key) pairs inside a sliding window: i + off − left ≤ j ≤ i + off + right
    (None = no limit on that side).

    >>> sorted(window_pattern((1, 0), 0, 3, 3))
    [(0, 0), (1, 0), (1, 1), (2, 1), (2, 2)]
    """
    left, right = window
    return {(i, j) for i in range(n_queries) for j in range(n_keys)
            if (left is None or j >= i + off - left) and (right is None or j <= i + off + right)}

@functools.lru_cache(maxsize=64)
def _tau_text(scale_text: str, scale_expr: sympy.Expr | None, temperature: sympy.Expr,
              dims: tuple[tuple[str, int | None], ...]) -> str | None:
    """τ as text, once per scale, temperature and dimensions (a check derives one example many times)."""
    try:
        conv = Convention(scale_text=scale_text, scale_expr=scale_expr, temperature=temperature)
        return str(conv.tau(**dict(dims)))
    except InputError:
        return None


def allowed_pattern(mask: str, matrix: Sequence[Sequence[bool]] | None,
                    n_queries: int, n_keys: int) -> set[tuple[int, int]]:
    """The (query, key) pairs that may attend, for the full (unfocused) score matrix.

    >>> sorted(allowed_pattern("causal_bottom_right", None, 2, 5))
    [(0, 0), (0, 1), (0, 2), (0, 3), (1, 0), (1, 1), (1, 2), (1, 3), (1, 4)]
    """
    if mask == "none":
        return {(i, j) for i in range(n_queries) for j in range(n_keys)}
    if mask == "causal":
        return {(i, j) for i in range(n_queries) for j in range(n_keys) if j <= i}
    if mask == "causal_bottom_right":
        off = n_keys - n_queries
        return {(i, j) for i in range(n_queries) for j in range(n_keys) if j <= i + off}
    if mask == "matrix":
        assert matrix is not None
        return {(i, j) for i in range(n_queries) for j in range(n_keys) if matrix[i][j]}
    raise ValueError(f"unknown mask {mask!r}")
