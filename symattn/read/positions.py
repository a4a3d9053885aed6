"""The position conventions of an example file: sinusoidal encodings, RoPE and ALiBi.

Keys of ``[convention]`` (issue 13; the derivation is :mod:`symattn.pipeline.positions`):

* ``positions = "none" | "sinusoidal" | "rope"``;
* ``position_base`` (sinusoidal, default 10000), ``rope_base`` (default 10000),
  ``rope_style = "interleaved" | "half"`` (RoFormer's pairs (x₁,x₂),(x₃,x₄)… or the
  ``rotate_half`` pairs i, i + d/2 of GPT-NeoX, LLaMA and Hugging Face);
* ``position_ids`` (one per query, default 0 … n−1) and ``key_position_ids`` (one per
  key, for cross-attention): whole numbers, exact fractions or symbols (``"m"``);
* ``alibi = true`` (slopes from the head count, the official rule) or
  ``alibi_slopes = [...]`` (one positive slope per head, or a symbol).

Every bad value gets one line naming the file and the field:

>>> from symattn.read.spec import loads
>>> loads('[inputs]\\nQ = [[1, 2, 3]]\\nK = [[1, 0, 0]]\\nV = [[1]]\\n[convention]\\npositions = "rope"\\n')
Traceback (most recent call last):
...
symattn.errors.SpecError: <string>:6: convention.positions: RoPE rotates pairs of coordinates, so the key width per head must be even; got d_k = 3
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import sympy

from ..limits import MAX_POSITION, MAX_POSITION_BASE
from .numbers import did_you_mean

__all__ = ["POSITIONS", "ROPE_STYLES", "POSITION_KEYS", "read_positions", "check_positions", "position_alternatives"]

POSITIONS = {"none": "no positional information (attention is permutation-equivariant)",
             "sinusoidal": "sinusoidal encodings added to X (Vaswani et al. 2017, §3.5)",
             "rope": "rotary embeddings of the queries and keys (Su et al., RoFormer)"}
ROPE_STYLES = {"interleaved": "pairs (x₁,x₂),(x₃,x₄),… (RoFormer, Eq. 34)",
               "half": "pairs i and i + d/2, rotate_half (GPT-NeoX, LLaMA, Hugging Face)"}
POSITION_KEYS = ("positions", "position_base", "rope_style", "rope_base", "position_ids", "key_position_ids",
                 "alibi", "alibi_slopes")


def _as_expr(x: Any) -> sympy.Expr:
    return sympy.Rational(x.numerator, x.denominator) if isinstance(x, Fraction) else x


def _base(v: Any, c: dict, key: str) -> sympy.Expr:
    field = f"convention.{key}"
    b = _as_expr(v.entry(c[key], field))
    if b.free_symbols or not b.is_real or not (b > 1) or b > MAX_POSITION_BASE:
        raise v.err(field, f"expected a number above 1 and at most {MAX_POSITION_BASE:.0e}, got {b}")
    return b


def _ids(v: Any, c: dict, key: str) -> list[sympy.Expr]:
    field = f"convention.{key}"
    raw = c[key]
    if not isinstance(raw, list) or not raw:
        raise v.err(field, "expected a list of positions, one per token, e.g. [0, 1, 2]")
    out = []
    for k, x in enumerate(raw):
        e = _as_expr(v.entry(x, f"{field}[{k + 1}]"))
        if not e.free_symbols and (not e.is_real or abs(e) > MAX_POSITION):
            raise v.err(f"{field}[{k + 1}]", f"expected a real position of size at most {MAX_POSITION}, got {e}")
        out.append(e)
    return out


def read_positions(v: Any, c: dict, conv: Any) -> None:
    """Read the position keys of ``[convention]`` into ``conv`` (``v`` is the validator:
    ``err(field, message)`` and ``entry(value, field)``)."""
    pos = c.get("positions", "none")
    if pos not in POSITIONS:
        raise v.err("convention.positions", f"unknown positions {pos!r}{did_you_mean(str(pos), list(POSITIONS))}; "
                                            "expected \"none\", \"sinusoidal\" or \"rope\"")
    conv.positions = pos
    if "position_base" in c:
        if pos != "sinusoidal":
            raise v.err("convention.position_base", 'position_base applies with positions = "sinusoidal" '
                                                    '(RoPE has rope_base)')
        conv.position_base = _base(v, c, "position_base")
    for key in ("rope_style", "rope_base"):
        if key in c and pos != "rope":
            raise v.err(f"convention.{key}", f'{key} applies with positions = "rope"')
    if "rope_style" in c:
        st = c["rope_style"]
        if st not in ROPE_STYLES:
            raise v.err("convention.rope_style", f"unknown RoPE style {st!r}{did_you_mean(str(st), list(ROPE_STYLES))};"
                                                 " expected \"interleaved\" (RoFormer) or \"half\" (rotate_half: "
                                                 "GPT-NeoX, LLaMA, Hugging Face)")
        conv.rope_style = st
    if "rope_base" in c:
        conv.rope_base = _base(v, c, "rope_base")
    alibi = c.get("alibi", False)
    if not isinstance(alibi, bool):
        raise v.err("convention.alibi", "expected true or false")
    if "alibi_slopes" in c:
        if "alibi" in c and not alibi:
            raise v.err("convention.alibi_slopes", "alibi_slopes given with alibi = false")
        raw = c["alibi_slopes"]
        if not isinstance(raw, list) or not raw:
            raise v.err("convention.alibi_slopes", "expected a list of slopes, one per head, e.g. [0.5, 0.25]")
        slopes = []
        for k, x in enumerate(raw):
            m = _as_expr(v.entry(x, f"convention.alibi_slopes[{k + 1}]"))
            if not m.free_symbols and not (m.is_real and m > 0):
                raise v.err(f"convention.alibi_slopes[{k + 1}]", f"a slope must be a positive number, got {m}")
            slopes.append(m)
        conv.alibi_slopes = slopes
        alibi = True
    conv.alibi = alibi
    for key in ("position_ids", "key_position_ids"):
        if key in c:
            if pos == "none" and not alibi:
                raise v.err(f"convention.{key}", f'{key} applies with positions = "sinusoidal" or "rope", '
                                                 "or with alibi")
            setattr(conv, key, _ids(v, c, key))


def check_positions(v: Any, s: Any) -> None:
    """Check the position conventions against the example's sizes (after the shapes)."""
    conv = s.convention
    if conv.positions == "none" and not conv.alibi:
        return
    cross = s.n_queries != s.n_keys or "X_kv" in s.inputs
    if conv.position_ids is not None and len(conv.position_ids) != s.n_queries:
        raise v.err("convention.position_ids", f"expected {s.n_queries} positions (one per query), "
                                               f"got {len(conv.position_ids)}")
    if conv.key_position_ids is not None and len(conv.key_position_ids) != s.n_keys:
        raise v.err("convention.key_position_ids", f"expected {s.n_keys} positions (one per key), "
                                                   f"got {len(conv.key_position_ids)}")
    if conv.key_position_ids is None and conv.position_ids is not None and cross:
        raise v.err("convention.key_position_ids", "cross-attention: give the keys' positions too "
                                                   "(key_position_ids, one per key)")
    if conv.positions == "sinusoidal":
        if "X" not in s.inputs:
            raise v.err("convention.positions", "sinusoidal encodings are added to X: give X with Wq, Wk, Wv")
        if (s.d_model or 0) % 2:
            raise v.err("convention.positions", "sinusoidal encodings fill sin/cos pairs, so the width of X "
                                                f"(d_model) must be even; got {s.d_model}")
    if conv.positions == "rope":
        if s.stage == "scores":
            raise v.err("convention.positions", "RoPE rotates queries and keys; this example starts from scores")
        if (s.d_k or 0) % 2:
            raise v.err("convention.positions", "RoPE rotates pairs of coordinates, so the key width per head must "
                                                f"be even; got d_k = {s.d_k}")
    if conv.alibi_slopes is not None and len(conv.alibi_slopes) != conv.heads:
        raise v.err("convention.alibi_slopes", f"expected {conv.heads} slopes (one per head), "
                                               f"got {len(conv.alibi_slopes)}")


def position_alternatives(spec: Any) -> list[tuple[str, dict]]:
    """(description, convention changes) for the usual slips with positions, for the checker's
    convention diagnosis: the other RoPE style, another base, positions counted from 1 (or 0),
    the encoding or ALiBi left out. A change to ``None`` removes a key."""
    conv = spec.convention
    out: list[tuple[str, dict]] = []
    raw = spec.raw.get("convention", {}) if isinstance(spec.raw, dict) else {}

    def shifted(by: int) -> dict:
        ids = conv.position_ids or [sympy.Integer(i) for i in range(spec.n_queries)]
        change: dict = {"position_ids": [int(p) + by if p.is_Integer else str(p + by) for p in ids]}
        if conv.key_position_ids is not None or spec.n_keys != spec.n_queries or "X_kv" in spec.inputs:
            kids = conv.key_position_ids or [sympy.Integer(j) for j in range(spec.n_keys)]
            change["key_position_ids"] = [int(p) + by if p.is_Integer else str(p + by) for p in kids]
        return change

    ids = conv.position_ids or []
    numeric = not any(getattr(p, "free_symbols", None) for p in ids)
    if conv.positions == "rope":
        other = "half" if conv.rope_style == "interleaved" else "interleaved"
        what = "rotate_half, GPT-NeoX/LLaMA/Hugging Face" if other == "half" else "RoFormer's pairs"
        out.append((f"the {other} RoPE style ({what})", {"rope_style": other}))
        for base in (10000, 500000, 1000000, 100):
            if sympy.Integer(base) != conv.rope_base:
                out.append((f"RoPE base {base} instead of {conv.rope_base}", {"rope_base": base}))
    if conv.positions == "sinusoidal":
        for base in (10000, 100, 1000):
            if sympy.Integer(base) != conv.position_base:
                out.append((f"base {base} instead of {conv.position_base}", {"position_base": base}))
    if conv.positions != "none" or conv.alibi:
        if numeric:
            out.append(("positions counted from 1 instead of 0" if not ids or ids[0] == 0 else
                        "positions shifted by +1", shifted(1)))
            if ids and all(p.is_Integer and p >= 1 for p in ids):
                out.append(("positions counted from 0 instead of 1", shifted(-1)))
    if conv.positions != "none":
        out.append(("no positional encoding", {"positions": "none", **{k: None for k in
                    ("rope_style", "rope_base", "position_base") if k in raw},
                    **({} if conv.alibi else {k: None for k in ("position_ids", "key_position_ids") if k in raw})}))
    if conv.alibi:
        out.append(("no ALiBi bias", {"alibi": None, "alibi_slopes": None,
                                      **({} if conv.positions != "none" else
                                         {k: None for k in ("position_ids", "key_position_ids") if k in raw})}))
    return out
