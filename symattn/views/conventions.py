"""The conventions of a derivation (or a check), summarised once for every view: each item
has a short form (a terminal line, Markdown, the check report) and a long one (the LaTeX
document), both phrases of words and expressions.

>>> import symattn as sa
>>> from symattn.views.printers import render_phrase
>>> items = summary(sa.derive(sa.load("i_love_statistics")))
>>> " · ".join(render_phrase(i.short, "text") for i in items)
'layout row · scale 1/sqrt(d_k) (τ = √2/2) · mask none · softmax over keys · 1 head · query love'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import sympy

from ..pipeline.backward import Gradient
from ..pipeline.notation import TAU, TEMPERATURE, matrix
from ..pipeline.steps import Derivation
from ..read.conventions import MASKS

__all__ = ["Item", "summary", "digits_line"]


@dataclass(frozen=True)
class Item:
    key: str
    short: Sequence[object]
    long: Sequence[object]


_Q, _X, _W = matrix("Q"), matrix("X"), matrix("W^Q")
_LAYOUT = {
    "row": ("row vectors, ", sympy.Eq(_Q, _X * _W, evaluate=False), " (Vaswani et al., NumPy); W is (d_in, d_out)"),
    "torch": ("row vectors with nn.Linear weights, ", sympy.Eq(_Q, _X * _W.T, evaluate=False),
              "; W is (d_out, d_in)"),
    "column": ("column vectors, ", sympy.Eq(_Q, _W * _X, evaluate=False),
               "; X is (d_in, n), W is (d_out, d_in), Q is (d_k, n)"),
}


def _tau(d: Derivation) -> sympy.Expr | None:
    """τ as the derivation applied it: read from its (first) scaled step."""
    forward = d.forward if isinstance(d, Gradient) else d
    for st in forward.all_steps:
        if st.name.split(".")[-1] == "scaled":
            return st.params.get("tau")
    return None


def summary(d: Derivation | None, convention: dict | None = None) -> list[Item]:
    """The conventions of a derivation (or, with ``convention`` and no derivation, of a check
    report's echo)."""
    c = convention if convention is not None else d.convention
    tau = _tau(d) if d is not None else None
    items = [Item("layout", [f"layout {c['layout']}"], [f"layout {c['layout']}: ", *_LAYOUT[c["layout"]]])]
    score = c.get("score", "dot")  # the score variants (issue 13)
    if score != "dot":
        from ..read.scores_spec import FEATURE_MAPS, SCORES

        fm = c.get("feature_map")
        items.append(Item("score", [f"score {score}" + (f" (φ = {fm})" if fm else "")],
                          [f"score {score}: {SCORES[score]}" + (f"; feature map {FEATURE_MAPS[fm]}" if fm else "")]))
    scale = c["scale"]
    if score == "linear":
        pass  # no scale and no softmax: the score item says how the output is normalised
    elif tau is not None and (scale.strip().lower() != "none" or c["temperature"] != "1"):
        items.append(Item("scale", [f"scale {scale} (", sympy.Eq(TAU, tau, evaluate=False), ")"],
                          [f"scale {scale}, so the scores are multiplied by ", sympy.Eq(TAU, tau, evaluate=False)]))
    else:
        items.append(Item("scale", [f"scale {scale}"], ["no scaling" if scale.strip().lower() == "none"
                                                        else f"scale {scale}"]))
    if c.get("temperature", "1") != "1":
        long_t: list[object] = [f"temperature {c['temperature']}"]
        if d is not None:
            long_t = ["temperature ", sympy.Eq(TEMPERATURE, d.spec.convention.temperature, evaluate=False)]
        items.append(Item("temperature", [f"temperature {c['temperature']}"], long_t))
    masked = c["mask"] != "none" or c["bias"]
    neg = c.get("mask_value", "-inf") == "-inf"
    short = f"mask {c['mask']}" + (" + bias" if c["bias"] else "")
    if masked:
        short += f", masked = {c['mask_value']}"
    long: list[object] = [f"mask: {MASKS[c['mask']]}" + (" plus an additive bias" if c["bias"] else "")]
    if masked:
        long += ["; masked entries are ", sympy.S.NegativeInfinity if neg else f"replaced by {c['mask_value']}"]
    if c.get("masked_rows") == "zero":
        long.append("; a fully masked row gives weights 0")
    items.append(Item("mask", [short], long))

    def _keys(w: object) -> str:
        return "every key" if w == "inf" else f"{w} key{'s' if w != 1 else ''}"

    if c.get("window") is not None:  # sliding window [left, right]
        left, right = c["window"]
        items.append(Item("window", [f"window [{left}, {right}]"],
                          [f"sliding window: each query sees {_keys(left)} before its own position and "
                           f"{_keys(right)} after it"]))
    axis = c["softmax_axis"]
    how = "softmax" if c.get("normalization", "softmax") == "softmax" else "division by the sum"
    if score != "linear":
        items.append(Item("softmax", [f"{how} over {axis}"],
                      [f"{how} over the {axis} (each {'row' if axis == 'keys' else 'column'} sums to 1)"
                       + ("" if how == "softmax" else ", not a softmax")]))
    h = int(c["heads"])
    items.append(Item("heads", [f"{h} head{'s' if h != 1 else ''}"], [f"{h} head{'s' if h != 1 else ''}"]))
    if c.get("kv_heads") is not None:  # grouped-query attention
        g = int(c["kv_heads"])
        kind = "multi-query" if g == 1 else "grouped-query"
        items.append(Item("kv_heads", [f"{g} key/value head{'s' if g != 1 else ''}"],
                          [f"{kind} attention: {g} key/value head{'s' if g != 1 else ''}, each shared by "
                           f"{h // g} query heads in order (repeat_interleave)"]))
    if c.get("decode"):
        items.append(Item("decode", ["decoded token by token"],
                          ["decoded token by token from a KV cache; each decoded row is checked against the causal "
                           "full pass"]))
    items += _positions(c)
    if c.get("query") is not None:
        items.append(Item("query", [f"query {c['query']}"], [f"one query row: {c['query']}"]))
    if c.get("loss"):
        from ..pipeline.loss import LOSSES

        loss = LOSSES[c["loss"]]
        focus = d.focus if isinstance(d, Gradient) else None
        items.append(Item("loss", [f"loss {c['loss']}" + (f" of row {focus}" if focus else "")],
                          ["the loss ", loss.formula] + ([f", of the focus row {focus} only"] if focus else [])))
    return items


def digits_line(digits: int) -> str:
    """What the decimals are."""
    return (f"decimals: {digits} significant digits, each one certified (round to nearest); "
            "terminating exact values are printed exactly")


def _positions(c: dict) -> list[Item]:
    """Sinusoidal encodings, RoPE and ALiBi (issue 13), when the example uses them."""
    out = []
    ids = f"; positions {', '.join(c['position_ids'])}" if c.get("position_ids") else ""
    kids = f"; key positions {', '.join(c['key_position_ids'])}" if c.get("key_position_ids") else ""
    if c.get("positions") == "sinusoidal":
        out.append(Item("positions", [f"sinusoidal positions (base {c['position_base']})"],
                        [f"sinusoidal positional encodings added to X (Vaswani et al. §3.5), base {c['position_base']}"
                         + ids + kids]))
    elif c.get("positions") == "rope":
        out.append(Item("positions", [f"RoPE {c['rope_style']} (base {c['rope_base']})"],
                        [f"rotary position embeddings (RoPE), {c['rope_style']} pairs"
                         + (" (rotate_half)" if c["rope_style"] == "half" else " (RoFormer)")
                         + f", base {c['rope_base']}, on queries and keys only" + ids + kids]))
    if c.get("alibi"):
        slopes = c.get("alibi_slopes")
        out.append(Item("alibi", ["ALiBi" + (f" (slopes {', '.join(slopes)})" if slopes else "")],
                        ["ALiBi: the bias −m·|i − j| added to the scaled scores, slopes "
                         + (", ".join(slopes) if slopes else "by the official get_slopes rule")
                         + ("" if c.get("positions") not in (None, "none") else ids + kids)]))
    return out
