"""Spec keys of the score variants (issue 13): Luong's general score, Bahdanau's additive
score and linear attention.

``[convention]``: ``score = "dot" | "general" | "additive" | "linear"`` (``dot`` is the
default, Vaswani's scaled dot product); ``feature_map = "elu+1" | "identity"`` (linear
attention only). ``[inputs]``: ``Wa`` (general: d_k×d_k; additive: d_k×d_a in the row
layout, d_a×d_k in the column and torch layouts, like the projections), ``Ua`` (additive,
the keys' weights, shaped like ``Wa``) and ``va`` (additive, d_a numbers).

Bahdanau et al. (2015) and Luong et al. (2015) do not scale their scores: with
``score = "general"`` or ``"additive"`` the default scale is ``"none"`` (a file may still
set ``scale``). Linear attention has no softmax, so no scale, temperature, normalization,
softmax axis, bias or mask value; its masks are ``"none"`` and ``"causal"``.

>>> from symattn.read.spec import loads
>>> s = loads('[inputs]\\nQ = [[1, 0]]\\nK = [[1, 0], [0, 1]]\\nV = [[1], [2]]\\nWa = [[1, 0], [0, 1]]\\n'
...           '[convention]\\nscore = "general"')
>>> s.convention.score, s.convention.scale_text
('general', 'none')
"""

from __future__ import annotations

from typing import Any, Callable

from ..errors import SpecError
from .numbers import did_you_mean

__all__ = ["SCORES", "FEATURE_MAPS", "SCORE_INPUTS", "SCORE_CONVENTION_KEYS", "score_convention", "score_shapes",
           "weight_transposed"]

SCORES = {
    "dot": "q·k (Vaswani et al. 2017; scaled by 1/√d_k by default)",
    "general": "qᵀ W_a k (Luong et al. 2015, 'general'; unscaled by default)",
    "additive": "v_aᵀ tanh(W_a q + U_a k) (Bahdanau et al. 2015; unscaled by default)",
    "linear": "φ(q)·φ(k), normalised by its row sum (Katharopoulos et al. 2020)",
}
FEATURE_MAPS = {
    "elu+1": "φ(x) = elu(x) + 1: x + 1 for x > 0, e to the x for x ≤ 0 (Katharopoulos et al. 2020)",
    "identity": "φ(x) = x (the normaliser may then be 0 or negative)",
}
SCORE_INPUTS = ("Wa", "Ua", "va")
SCORE_CONVENTION_KEYS = ("score", "feature_map")
#: what each score needs among SCORE_INPUTS
NEEDS = {"dot": (), "general": ("Wa",), "additive": ("Wa", "Ua", "va"), "linear": ()}
#: conventions that have no meaning without a softmax
_NOT_LINEAR = {"scale": "there is no scale (the feature map is applied to the queries and keys as they are)",
               "temperature": "there is no softmax temperature",
               "normalization": "the output is always normalised by φ(Q)·φ(K)ᵀ·1",
               "softmax_axis": "the normaliser runs over keys",
               "bias": "there is no additive score bias (no softmax to add it to)",
               "mask_value": "a masked pair simply drops out of the sums",
               "masked_rows": "a row with no key has a zero normaliser, an error"}

Err = Callable[[str | None, str], SpecError]


def weight_transposed(conv: Any) -> bool:
    """Whether ``Wa`` is stored transposed in non-row layouts: yes for the additive score (a
    projection, like W_q), no for the general score (qᵀ W_a k reads W_a as written)."""
    return getattr(conv, "score", "dot") != "general"


def score_convention(err: Err, c: dict, conv: Any) -> None:
    """Read ``score`` and ``feature_map`` into the convention (one clear error per bad value)."""
    score = c.get("score", "dot")
    if not isinstance(score, str) or score not in SCORES:
        raise err("convention.score", f"unknown score {score!r}{did_you_mean(str(score), list(SCORES))}; "
                                      f"expected one of {', '.join(repr(k) for k in SCORES)}")
    conv.score = score
    if "feature_map" in c:
        fm = c["feature_map"]
        if score != "linear":
            raise err("convention.feature_map", 'a feature map belongs to linear attention: set score = "linear" '
                                                "or remove feature_map")
        if not isinstance(fm, str) or fm not in FEATURE_MAPS:
            raise err("convention.feature_map", f"unknown feature map {fm!r}"
                                                f"{did_you_mean(str(fm), list(FEATURE_MAPS))}; expected "
                                                f"{' or '.join(repr(k) for k in FEATURE_MAPS)}")
        conv.feature_map = fm
    if score in ("general", "additive") and "scale" not in c:
        conv.scale_text = "none"  # neither Luong nor Bahdanau scales the scores
    if score == "linear":
        conv.scale_text = "none"
        for key, why in _NOT_LINEAR.items():
            if key in c:
                raise err(f"convention.{key}", f"linear attention has no {key}: {why}; remove the key")
        if conv.mask not in ("none", "causal"):
            raise err("convention.mask", 'linear attention takes mask = "none" or "causal"')


def score_shapes(err: Err, s: Any, dims: Callable[[str], tuple[int, int]]) -> None:
    """Check the score inputs against the example's sizes (``dims`` gives a matrix's row-form shape)."""
    conv = s.convention
    score = conv.score
    has = set(s.inputs)
    for name in SCORE_INPUTS:
        if name in has and name not in NEEDS[score]:
            users = [k for k, v in NEEDS.items() if name in v]
            raise err(f"inputs.{name}", f"{name} is an input of score = {' or '.join(repr(u) for u in users)}, "
                                        f"but this example's score is {score!r}; set convention.score or remove "
                                        f"{name}")
    if score == "dot":
        return
    if s.stage == "scores":
        raise err("inputs.scores", f"score = {score!r} computes the scores from the queries and keys: give Q and K "
                                   "(or X with Wq and Wk) instead of scores")
    if conv.heads != 1:
        raise err("convention.heads", f"score = {score!r} is derived for one head (heads = 1)")
    for name in NEEDS[score]:
        if name not in has:
            raise err(f"inputs.{name}", f"missing: score = {score!r} needs {', '.join(NEEDS[score])}")
    if score == "linear" and conv.mask == "causal" and s.n_queries != s.n_keys:
        raise err("convention.mask", f"causal linear attention (its recurrent form) needs as many queries as keys; "
                                     f"got {s.n_queries} queries and {s.n_keys} keys")
    d = s.d_k
    shape = {"row": "{}×{}", "column": "{1}×{0}", "torch": "{1}×{0}"}[conv.layout]
    if score == "general":
        r, c = dims("Wa")
        if (r, c) != (d, d):
            raise err("inputs.Wa", f"the queries and keys have width {d}, so Wa must be {d}×{d} "
                                   f"(score qᵀ·W_a·k), got {r}×{c}")
    elif score == "additive":
        r, da = dims("Wa")
        if r != d:
            raise err("inputs.Wa", f"the queries have width {d}, so Wa must be {shape.format(d, 'd_a')} in the "
                                   f"{conv.layout} layout (W_a·q), got {len(s.inputs['Wa'])}×{len(s.inputs['Wa'][0])}")
        ru, du = dims("Ua")
        if ru != d or du != da:
            raise err("inputs.Ua", f"Ua must be {shape.format(d, da)} in the {conv.layout} layout (keys of width {d}, "
                                   f"and W_a·q has {da} entries), got {len(s.inputs['Ua'])}×{len(s.inputs['Ua'][0])}")
        nv = len(s.inputs["va"][0])
        if nv != da:
            raise err("inputs.va", f"expected {da} numbers (the width of W_a·q + U_a·k), got {nv}")
