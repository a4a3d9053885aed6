"""A product written three ways on one line: its name, its symbols, its factors as matrices, then the
result::

    \\text{Output} = A V = \\begin{bmatrix} … \\end{bmatrix} \\begin{bmatrix} … \\end{bmatrix} = \\begin{bmatrix} … \\end{bmatrix}
    Q = X W^Q = [X as a matrix] [W^Q as a matrix] = [Q]

The two matrices written side by side after ``= A V =`` are the factors (A and V again: operands, not
results) and the matrix after the last '=' is the product the left side names.

>>> from symattn.analyses.importer_items import Item
>>> from symattn.read.pages.model import Where
>>> def item(rows, before, after, step=None, strength=0):
...     return Item(rows=rows, where=[Where(5)], line=4, end=4, step=step, strength=strength, before=before, after=after)
>>> a = item([["1"]], r"\\text{Output} = A V = ", r" \\begin{bmatrix} 2 \\end{bmatrix} = …", "output", 2)
>>> v = item([["2"]], r"… \\end{bmatrix} ", r" = \\begin{bmatrix} 2 \\end{bmatrix}")
>>> r = item([["2"]], r"… \\end{bmatrix} = ", "")
>>> factored_products([a, v, r])
>>> [(x.step, x.operand, x.label) for x in (a, v, r)]
[('weights', True, 'A'), ('V', True, 'V'), ('output', False, '\\\\text{Output}')]
"""

from __future__ import annotations

import re
from typing import Any

from .importer_names import product_factors, product_step, step_of_ident

__all__ = ["factored_products", "FACTORED_NOTE"]

FACTORED_NOTE = "a factor of a product written out between its symbols and its result, not a result"
_HEAD_RE = re.compile(r"(?:^|[$\s&])(?P<lhs>[^=$&]{1,60}?)\s*=\s*(?P<formula>[^=$&]{1,60}?)\s*=\s*$")
_SIDE_BY_SIDE_RE = re.compile(r"\s*(?:\\cdot|\\times|×|·)?\s*\\begin\{")
_THEN_RESULT_RE = re.compile(r"\s*=\s*\\begin\{")


def factored_products(items: list[Any]) -> None:
    """Mark, in place, each such line's factors (their symbols' steps, as operands) and its result (the
    step the left side names)."""
    by_line: dict[int, list[Any]] = {}
    for it in items:
        if it.line == it.end and it.kind == "matrix":
            by_line.setdefault(it.line, []).append(it)
    for group in by_line.values():
        for a, b, r in zip(group, group[1:], group[2:]):
            h = _HEAD_RE.search(a.before)
            if h is None or not _SIDE_BY_SIDE_RE.match(a.after) or not _THEN_RESULT_RE.match(b.after):
                continue
            factors = product_factors(h.group("formula"))
            lhs = h.group("lhs").strip()
            step = (a.step if a.strength >= 2 and a.step else None) or step_of_ident(lhs) or \
                product_step(h.group("formula"))
            if factors is None or len(factors) != 2 or step is None:
                continue
            for it, sym in ((a, factors[0]), (b, factors[1])):
                it.step, it.strength, it.operand, it.label = step_of_ident(sym), 2 if step_of_ident(sym) else 0, True, sym
                it.notes.append(FACTORED_NOTE)
            r.step, r.strength, r.operand, r.label = step, 2, False, lhs
