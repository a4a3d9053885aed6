"""A fused projection: one weight for the queries, keys and values together (``qkv_proj``,
``c_attn``, ``in_proj_weight``, ``W_qkv``), and its product ``qkv`` printed before the page
splits it (``q, k, v = qkv.split(C, dim=1)``), read as the three matrices they hold.

>>> fused_name("qkv_proj_weight"), fused_name("self.c_attn.weight"), fused_name("qkv:"), fused_name("q")
('weight', 'weight', 'product', None)
"""

from __future__ import annotations

import re
from typing import Any

# (no import of importer_items: it asks fused_name about printed names, so Item is taken as it comes)
Item = Any

__all__ = ["fused_name", "split_fused", "splits_into_thirds"]

_FUSED_RE = re.compile(r"(?<![a-z])(?:w_?)?(?:qkv|c_?attn|in_?proj)(?:_?w)?(?![a-z])", re.I)
_WEIGHT_RE = re.compile(r"weight|proj|(?<![a-z])w_?qkv|qkv_?w(?![a-z])|c_?attn", re.I)


def fused_name(label: str) -> str | None:
    """'weight' when a name is a fused Q/K/V projection weight, 'product' when it is what such a
    weight makes (``qkv``), else None. Gradients (``grad``) are neither."""
    t = re.sub(r"\\n", " ", label).strip(" :=\n")
    if not t or len(t) > 60 or re.search(r"grad|bias|(?<![a-z])b_", t, re.I) or not _FUSED_RE.search(t):
        return None
    return "weight" if _WEIGHT_RE.search(t) else "product"


def _part(it: Item, rows: list[list[str]], where: list, step: str, layout: str | None) -> Item:
    p = type(it)(rows=rows, where=where, line=it.line, end=it.end, kind="matrix", label=f"{it.label.strip()} ({step})",
             step=step, strength=3, role=it.role, form=it.form, before=it.before, after=it.after)
    p.layout = layout
    p.head = it.head
    p.notes.append(f"a third of the fused {it.label.strip()!r} ({it.shape[0]}×{it.shape[1]}): {step}")
    return p


_SPLIT_RE = re.compile(r"(?<![\w.])[qQ]\w{0,10}\s*,\s*[kK]\w{0,10}\s*,\s*[vV]\w{0,10}\s*=\s*[^=#]*"
                       r"(?:\.|\b)(?:split|chunk|unbind|tensor_split)\s*\(")


def splits_into_thirds(code: list[str]) -> bool:
    """Whether the code cuts a fused product into the queries, keys and values in that order
    (``q, k, v = qkv.split(C, dim=1)``, ``torch.chunk(qkv, 3, -1)``, ``.unbind(0)``).

    >>> splits_into_thirds(["q, k, v = torch.split(qkv, C, dim=1)"]), splits_into_thirds(["q = x @ w"])
    (True, False)
    """
    return any(_SPLIT_RE.search(t.split("#")[0]) for t in code)


def split_fused(items: list[Item], code: list[str]) -> list[Item]:
    """Each fused weight or product replaced by its three parts, where the page's code cuts the
    product into q, k and v (else, with no order stated, it is left as it is). A weight 3C×C
    (``nn.Linear(C, 3C)``'s (out, in) weight: rows 1…C make the queries, then the keys, then the
    values) splits by rows, in the torch layout; a weight C×3C (``X @ W``, GPT-2's Conv1D) and a
    printed product n×3C split by columns. A block whose shape is no such split is left as it is."""
    if not splits_into_thirds(code):
        return items
    out: list[Item] = []
    for it in items:
        kind = fused_name(it.label) if it.kind == "matrix" and not it.batches > 1 else None
        r, c = it.shape
        if kind == "weight" and r == 3 * c:
            out += [_part(it, it.rows[k * c:(k + 1) * c], it.where[k * c:(k + 1) * c], w, "torch")
                    for k, w in enumerate(("Wq", "Wk", "Wv"))]
        elif kind is not None and c % 3 == 0 and c >= 3 and (kind == "product" or r * 3 == c):
            d = c // 3
            names = ("Wq", "Wk", "Wv") if kind == "weight" else ("Q", "K", "V")
            out += [_part(it, [row[k * d:(k + 1) * d] for row in it.rows], list(it.where), n,
                          "row" if kind == "weight" else None) for k, n in enumerate(names)]
        else:
            out.append(it)
    return out
