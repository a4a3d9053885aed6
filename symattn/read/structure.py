"""Spec keys of the structural variants: grouped-query attention (``kv_heads``), sliding windows
(``window``) and a given KV cache (``K_cache``, ``V_cache``).

Each bad value gets one line naming the field:

>>> from symattn.read.spec import loads
>>> s = loads('[inputs]\\nQ = [[1, 0]]\\nK = [[1, 0]]\\nV = [[1]]\\n[convention]\\nwindow = [1, "inf"]\\n')
>>> s.convention.window
(1, None)
>>> loads('[inputs]\\nQ = [[1, 0]]\\nK = [[1, 0]]\\nV = [[1]]\\n[convention]\\nwindow = [-1, 0]\\n')
Traceback (most recent call last):
...
symattn.errors.SpecError: <string>:6: convention.window[1]: expected a whole number ≥ 0 or "inf", got -1
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Callable

from ..errors import SpecError
from ..limits import MAX_TOKENS
from .conventions import Convention

__all__ = ["read_structure", "check_gqa_widths", "check_cache", "WINDOW_HELP"]

Err = Callable[[str | None, str], SpecError]

WINDOW_HELP = 'expected [left, right]: two whole numbers ≥ 0 or "inf", e.g. window = [2, 0]'


def _window_side(err: Err, value: Any, field: str) -> int | None:
    if isinstance(value, str) and value.strip().lower() in ("inf", "+inf", "infinity"):
        return None
    if isinstance(value, Decimal) and value.is_infinite() and value > 0:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, Decimal)):
        raise err(field, f'expected a whole number ≥ 0 or "inf", got {value!r}')
    if isinstance(value, Decimal) and value != value.to_integral_value():
        raise err(field, f'expected a whole number ≥ 0 or "inf", got {value}')
    n = int(value)
    if n < 0:
        raise err(field, f'expected a whole number ≥ 0 or "inf", got {n}')
    return min(n, MAX_TOKENS)  # a window wider than any example is no limit, but stays a number


def read_structure(err: Err, c: dict, conv: Convention) -> None:
    """``kv_heads`` and ``window`` of a ``[convention]`` table, into ``conv``."""
    if "kv_heads" in c:
        g = c["kv_heads"]
        if isinstance(g, bool) or not isinstance(g, int) or g < 1:
            raise err("convention.kv_heads", f"expected a whole number ≥ 1 of key/value heads, got {g!r}")
        if conv.heads % g:
            raise err("convention.kv_heads", f"{g} key/value heads do not divide the {conv.heads} query heads "
                                             "(each key/value head serves heads/kv_heads query heads)")
        conv.kv_heads = g
    if "kv_order" in c:
        order = c["kv_order"]
        if order not in ("interleave", "tile"):
            raise err("convention.kv_order", 'expected "interleave" (query head h reads key/value head h // (H/G), '
                                             'repeat_interleave) or "tile" (h mod G, repeat)')
        conv.kv_order = order
    if "window" in c:
        w = c["window"]
        if not isinstance(w, list) or len(w) != 2:
            raise err("convention.window", WINDOW_HELP + (f", got {len(w)} numbers" if isinstance(w, list) else ""))
        if conv.mask == "matrix":
            raise err("convention.window", "a window with an explicit mask matrix: put the window in the matrix")
        conv.window = (_window_side(err, w[0], "convention.window[1]"),
                       _window_side(err, w[1], "convention.window[2]"))


def check_gqa_widths(err: Err, has: set, h: int, g: int, dq: int, dk: int, dv: int) -> None:
    """With ``kv_heads = g``: queries have h·d_k columns, keys g·d_k, values g·d_v."""
    if dq % h:
        raise err("convention.heads", f"{h} heads do not divide the query width {dq}")
    d_k = dq // h
    if dk != g * d_k:
        raise err("inputs.K" if "K" in has else "inputs.Wk",
                  f"{h} query heads of width {d_k} and {g} key/value heads need keys of width {g}·{d_k} = "
                  f"{g * d_k}, got {dk}")
    if dv % g:
        raise err("inputs.V" if "V" in has else "inputs.Wv",
                  f"{g} key/value heads do not divide the value width {dv}")


def check_cache(err: Err, s: Any) -> None:
    """``K_cache`` and ``V_cache``: keys and values of the tokens before the new ones (rows), as
    wide as the new keys and values."""
    has = set(s.inputs)
    if not ({"K_cache", "V_cache"} & has):
        return
    for a, b in (("K_cache", "V_cache"), ("V_cache", "K_cache")):
        if a in has and b not in has:
            raise err(f"inputs.{b}", f"missing: {a} needs {b} (keys and values are cached in pairs)")
    if s.stage == "scores" or "X_kv" in has:
        raise err("inputs.K_cache", "a KV cache is for decoding self-attention: give the new tokens as X "
                                    "(with Wq, Wk, Wv) or as Q, K, V, not scores or X_kv")
    kc, vc = s.row("K_cache"), s.row("V_cache")
    if len(kc) != len(vc):
        raise err("inputs.V_cache", f"K_cache has {len(kc)} tokens but V_cache has {len(vc)}")
    dk = s.d_k * s.convention.groups
    dv = s.d_v * s.convention.groups
    if len(kc[0]) != dk:
        raise err("inputs.K_cache", f"expected cached keys of width {dk} (the keys' width), got {len(kc[0])}")
    if len(vc[0]) != dv:
        raise err("inputs.V_cache", f"expected cached values of width {dv} (the values' width), got {len(vc[0])}")
    if len(kc) + s.n_keys > MAX_TOKENS:
        raise err("inputs.K_cache", f"the cache and the new tokens together are past {MAX_TOKENS} tokens")
    if s.convention.mask not in ("none", "causal", "causal_bottom_right"):
        raise err("convention.mask", "decoding from a cache is causal: leave out the mask (or set \"causal\")")
