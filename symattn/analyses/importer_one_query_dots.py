"""One query's scores and weights written entry by entry with the key's index only, as a study guide
writes them when it works a single query against a few keys::

    q · k₁ = (1×1) + (0×1) + (1×0) + (0×0) = 1 + 0 + 0 + 0 = 1
    α₁ = e¹ / (e¹ + e¹) = e / 2e = 0.5

The query has no index (there is one), so each line is the entry of query 1 on key j: the dot product
``q · k_j`` is its score, ``α_j`` its weight, the number after the last '=' the value (what comes before
it is arithmetic). A line that divides by a root (``q · k₁ / √2``) is not a raw score and is not read
here; a name with two indices (``α₁₂``, ``q₁ · k₂``) is read by the readers of indexed entries.

>>> one_query_entries("q · k_1 = (1×1) + (0×1) + (1×0) + (0×0) = 1 + 0 + 0 + 0 = 1")
[('scores', 1, '1')]
>>> one_query_entries("α₂ = e¹ / (e¹ + e¹) = e / 2e = 0.5"), one_query_entries("**α₁ = 0.5** and **α₂ = 0.5**")
([('weights', 2, '0.5')], [('weights', 1, '0.5'), ('weights', 2, '0.5')])
>>> one_query_entries("q · k_1 / √2 = 0.71"), one_query_entries("α₁₂ = 0.3"), one_query_entries("q_2 · k_1 = 4")
([], [], [])
>>> one_query_entries("α₁ = 0.5 × 3")  # a product after the number: not the weight
[]
"""

from __future__ import annotations

import re

from typing import Any

from ..read.pages.model import Line

__all__ = ["one_query_entries", "one_query_items"]

_SUB = str.maketrans("₀₁₂₃₄₅₆₇₈₉", "0123456789")
_NUM = r"([+-]?(?:\d{1,40}\.\d{1,40}|\.\d{1,40}|\d{1,40}))"
#: the arithmetic between the name and the number: digits, operators, parentheses, e and its powers
_ARITH = r"(?:[\d\s.+\-*/×·()e^¹²³⁴⁵⁶⁷⁸⁹⁰]{1,160}?(?:=|≈)\s*)*?"
_END = r"(?![\d.]*\s*(?:[×·/^(+]|\*(?!\*)|-\s*\d))"  # ('**' closes bold: not a product)
_DOT_RE = re.compile(r"(?<![\w\\])q\s*(?:·|⋅|•|∙|\\cdot|\*)\s*k_?\{?([1-9]\d?)\}?(?:\s*(?:\^\{?(?:T|\\top)\}?|ᵀ))?"
                     r"\s*(?:=|≈)\s*" + _ARITH + _NUM + _END)
_ALPHA_RE = re.compile(r"(?<![\w\\])(?:α|\\alpha)_?\{?([1-9])\}?(?![\d,_])\s*(?:=|≈)\s*" + _ARITH + _NUM + _END)


def one_query_entries(text: str) -> list[tuple[str, int, str]]:
    """The (step, key index, number as printed) entries a line writes for the one query."""
    t = text.translate(_SUB).replace("−", "-")
    if len(t) > 600:
        return []
    out = []
    if not re.search(r"/\s*(?:√|\\sqrt|sqrt)", t):
        out += [("scores", int(m.group(1)), m.group(2)) for m in _DOT_RE.finditer(t)]
    out += [("weights", int(m.group(1)), m.group(2)) for m in _ALPHA_RE.finditer(t)]
    return out


def one_query_items(lines: list[Line], items: list[Any], make: type) -> list[Any]:
    """Items for the entries of :func:`one_query_entries` on lines outside code, each an entry of query 1
    (``#1``) on key j, unless an item of the same line already holds it; ``make`` is the importer's Item
    class (passed in: the module that defines it calls this while collecting)."""
    out: list[Any] = []
    for k, ln in enumerate(lines):
        if ln.role in ("code", "output") or "=" not in ln.text or not re.search(r"k_?\{?\d|k[₀-₉]|α|\\alpha", ln.text):
            continue
        for step, j, num in one_query_entries(ln.text):
            if any(o.line == k and o.kind == "pair" and o.step == step and o.pair and o.pair[1] == f"#{j}"
                   for o in items):
                continue
            it = make(rows=[[num]], where=[ln.where], line=k, end=k, kind="pair", label=ln.text.strip()[:100],
                      step=step, strength=2, pair=("#1", f"#{j}"), role=ln.role)
            it.notes.append(f"the one query's {'score' if step == 'scores' else 'weight'} on key {j}")
            out.append(it)
    return out
