"""Structural variants of attention: grouped-query heads, sliding windows, KV-cache decoding.

* ``kv_heads = G`` (grouped-query attention; G = 1 is multi-query): key/value head g serves
  query heads g·(H/G) … (g+1)·(H/G) − 1, the ``repeat_interleave`` order of PyTorch SDPA
  (``enable_gqa=True``) and Hugging Face ``repeat_kv``. The forward hook is in
  :func:`symattn.pipeline.forward.head_slices`; :func:`grouped_kv_grads` sums the gradients
  of the query heads that share a key/value head.
* ``window = [left, right]``: key j is visible to query i when i + off − left ≤ j ≤ i + off + right
  (off = n_keys − n_queries with the bottom-right causal mask, else 0). :func:`window_step` shows
  the window as a 0/1 step before the masked scores.
* :func:`full_pass_spec`: the causal full pass that :func:`symattn.pipeline.decode.decode` reproduces
  token by token from a growing KV cache, each decoded row checked exactly against it.

>>> import symattn as sa
>>> d = sa.derive(sa.load("gqa_two_groups"))
>>> [s.name for s in d.steps if s.name.startswith("head2.")][:3]
['head2.Q', 'head2.K', 'head2.V']
>>> d["head2.K"].exact == d["head1.K"].exact   # heads 1 and 2 share key/value head 1
True
"""

from __future__ import annotations

import dataclasses
from typing import Any

import sympy

from ..errors import SymattnError
from ..exact import nodes as V
from ..read.conventions import window_pattern
from ..read.spec import Spec
from . import rules as R
from .notation import Concat, Given, matrix
from .steps import Lookup, Operand, Worked

__all__ = ["window_step", "window_note", "grouped_kv_grads", "full_pass_spec", "kv_title"]


# ---------------------------------------------------------------------------------------
# grouped-query attention


def kv_title(conv: Any, head: int) -> str:
    """``(key/value head 1 of 2, shared by query heads 1–2)`` for 0-based query head ``head``."""
    g = conv.kv_head(head)
    served = [h + 1 for h in range(conv.heads) if conv.kv_head(h) == g]
    if len(served) == 1:
        shared = f"query head {served[0]}"
    elif served == list(range(served[0], served[-1] + 1)):
        shared = f"query heads {served[0]}–{served[-1]}"
    else:
        shared = "query heads " + ", ".join(map(str, served))
    return f"key/value head {g + 1} of {conv.groups}, for {shared}"


def grouped_kv_grads(b: Any, hs: list, name: str, attr: str, title: str) -> None:
    """dK (or dV) with ``kv_heads``: the gradient of a shared key/value head is the sum of its
    query heads' gradients (``kv1.dK = dK_1 + dK_2``), then the key/value heads side by side."""
    conv = b.conv
    per = conv.heads // conv.groups
    kv_nodes, kv_syms, ops_all = [], [], {}
    for g in range(conv.groups):
        group = [h for n, h in enumerate(hs) if conv.kv_head(n) == g]
        steps = [b.step(h.name("d" + name)) for h in group]
        node = getattr(group[0], attr)
        for h in group[1:]:
            node = V.elementwise("add", node, getattr(h, attr))
        sym = matrix(f"d{name}_kv{g + 1}")
        ops = {f"h{h.number}": b.op(st, h.sym("d" + name)) for h, st in zip(group, steps)}
        keys = list(ops)

        def rule(at: Lookup, i: int, j: int, keys: list = keys) -> Worked:
            return Worked([R.plus(*[at(k, i, j) for k in keys])])

        rhs = sympy.MatAdd(*[h.sym("d" + name) for h in group], evaluate=False) if per > 1 else group[0].sym(
            "d" + name)
        b.add(f"kv{g + 1}.d{name}", f"gradient of the shared {name} head {g + 1} (sum over its {per} query heads)",
              sympy.Eq(sym, rhs, evaluate=False), node, like=steps[0], operands=ops,
              rule=rule, symbol=sym, entry_name=f"d{name}kv{g + 1}")
        kv_nodes.append(node)
        kv_syms.append(sym)
        ops_all[f"g{g + 1}"] = b.op(b.step(f"kv{g + 1}.d{name}"), sym)
    first = b.step(f"kv1.d{name}")
    width = kv_nodes[0].shape[1]
    parts = [(f"g{g + 1}", g * width, width) for g in range(conv.groups)]
    sym = matrix("d" + name)
    b.add("d" + name, f"gradient of the {title} (all key/value heads)", sympy.Eq(sym, Concat(*kv_syms), evaluate=False),
          V.concat(kv_nodes), like=b.fwd(name), operands=ops_all, rule=R.pieces(parts, along_rows=first.transposed),
          symbol=sym, entry_name="d" + name)


# ---------------------------------------------------------------------------------------
# sliding windows


def _side(w: int | None) -> str:
    return "∞" if w is None else str(w)


def window_note(conv: Any, n_queries: int, n_keys: int) -> str:
    """The window in words, for the masked step's note.

    >>> from symattn.read.conventions import Convention
    >>> window_note(Convention(window=(1, 0)), 3, 3)
    '; sliding window: query i sees key j when i − 1 ≤ j ≤ i'
    >>> window_note(Convention(window=(None, 2), mask="causal_bottom_right"), 2, 5)
    '; sliding window: query i sees key j when j ≤ i + 3 + 2'
    """
    left, right = conv.window
    off = conv.window_offset(n_queries, n_keys)
    at = "i" if off == 0 else f"i + {off}" if off > 0 else f"i − {-off}"
    lo = "" if left is None else (f"{at} ≤ " if left == 0 else f"{at} − {left} ≤ ")
    hi = "" if right is None else (f" ≤ {at}" if right == 0 else f" ≤ {at} + {right}")
    if not lo and not hi:
        return "; sliding window [inf, inf]: every key"
    return f"; sliding window: query i sees key j when {lo}j{hi}"


def window_step(b: Any, h: Any) -> None:
    """The sliding window as a step (1 = key inside the query's window, 0 = outside), once for
    all heads, before the masked scores that apply it."""
    conv, spec = b.conv, b.spec
    if conv.window is None or h.number not in (None, 1) or h.logits is None:
        return
    nq, nk = spec.n_queries, spec.n_keys
    inside = window_pattern(conv.window, conv.window_offset(nq, nk), nq, nk)
    rows = [[1 if (i, j) in inside else 0 for j in range(nk)] for i in b.rows]
    node = V.rational_matrix(rows)
    Wn = matrix("W^win")
    left, right = conv.window
    note = window_note(conv, nq, nk).lstrip("; ")
    b.add("window", "sliding-window mask (1 = visible)", Given(Wn), node, b.q_labels, b.k_labels,
          operands={"W": Operand(Wn, node, b.q_labels, b.k_labels, given=True)}, rule=R.given("W"),
          notes=[[note + f" (window = [{_side(left)}, {_side(right)}])"]], symbol=Wn, entry_name="w", given=True)


# ---------------------------------------------------------------------------------------
# KV-cache decoding


def full_pass_spec(spec: Spec) -> Spec:
    """The causal full pass a decoding must reproduce, as a spec with Q, K and V given.

    Without a cache: the example's queries, keys and values (row form) with the causal mask.
    With ``K_cache``/``V_cache``: queries are the new tokens, keys and values the cache
    followed by the new tokens, and the mask is causal bottom-right (the new token t sees the
    whole cache and the new tokens up to itself).
    """
    conv = spec.convention
    if spec.stage == "scores":
        raise SymattnError(f"{spec.source}: decoding needs queries, keys and values (this example starts "
                           "from scores)")
    if "X_kv" in spec.inputs:
        raise SymattnError(f"{spec.source}: decoding is for self-attention (this example has X_kv)")
    if conv.mask not in ("none", "causal", "causal_bottom_right"):
        raise SymattnError(f"{spec.source}: decoding is causal; it cannot follow an explicit mask matrix")
    if conv.mask_value != -sympy.oo:
        raise SymattnError(f"{spec.source}: decoding needs masked scores of -inf: with mask_value = "
                           f"{conv.mask_value} the causal full pass gives later tokens a tiny weight that a KV "
                           "cache never sees")
    if conv.softmax_axis != "keys" or spec.score_bias is not None:
        raise SymattnError(f"{spec.source}: decoding needs the softmax over keys and no score bias")
    unfocused = dataclasses.replace(spec, convention=dataclasses.replace(conv, query=None))
    q, k, v = (_project(unfocused, t) for t in ("Q", "K", "V"))
    kc, vc = unfocused.row("K_cache") or [], unfocused.row("V_cache") or []
    inputs = {"Q": q, "K": [list(r) for r in kc] + k, "V": [list(r) for r in vc] + v}
    if "Wo" in spec.inputs:
        inputs["Wo"] = unfocused.row("Wo")  # type: ignore[assignment]
        if "bo" in spec.inputs:
            inputs["bo"] = spec.inputs["bo"]
    n_cache = len(kc)
    labels = spec.query_labels()
    key_tokens = [f"c{i + 1}" for i in range(n_cache)] + labels
    mask = "causal_bottom_right" if n_cache else "causal"
    new_conv = dataclasses.replace(conv, layout="row", mask=mask, query=None)
    return dataclasses.replace(unfocused, inputs=inputs, convention=new_conv, tokens=labels, key_tokens=key_tokens,
                               stage="qkv", n_keys=n_cache + spec.n_queries, raw={}, input_ulps={},
                               d_model=None)


def _entry(x: sympy.Basic) -> Any:
    from fractions import Fraction

    if isinstance(x, sympy.Rational):
        return Fraction(int(x.p), int(x.q))
    return x


def _project(spec: Spec, tgt: str) -> list[list]:
    """Q, K or V of the new tokens, in row form: given, or X·W (+ b), computed exactly."""
    if tgt in spec.inputs:
        return [list(r) for r in spec.row(tgt)]  # type: ignore[union-attr]

    def mat(m: Any) -> sympy.Matrix:
        return sympy.Matrix([[sympy.Rational(x.numerator, x.denominator) if not isinstance(x, sympy.Basic) else x
                              for x in r] for r in m])

    y = mat(spec.row("X")) * mat(spec.row(f"W{tgt.lower()}"))
    bias = spec.inputs.get(f"b{tgt.lower()}")
    if bias is not None:
        y += sympy.ones(y.rows, 1) * mat(bias)
    return [[_entry(sympy.expand(y[i, j])) for j in range(y.cols)] for i in range(y.rows)]
