"""Examples drawn as grids of numbers on an exercise page, copied as text one number a line:
the query, key and value grids, an arrow (``↓``), then the expected output grid, and the
next example's grids right after it. The copy keeps no shapes, so the numbers decide them:
the three inputs are equal thirds of the numbers before the arrow, and their shape is the
only one under which attention of them gives the printed output.

>>> shape_that_fits(["1.0", "2", "3", "4"], ["1.0", "1", "0", "0"], ["2.0", "2", "3", "3"],
...                 ["2.1070", "2.1070", "2.0070", "2.0070"], scaled=True)
(2, 2, 2, 2)
"""

from __future__ import annotations

import math
import re

from ..read.pages.model import Line
from .importer_items import Item
from .importer_model import _num, _ulp
from .importer_names import step_of_ident, step_of_text

__all__ = ["shape_that_fits", "grid_examples"]

_ARROW_RE = re.compile(r"\s*(?:↓|⬇|→|⇒|=>|->|⟶)\s*")
_MAX_GRID = 256  # numbers in one grid: past this, not tried


def _attention(q: list[list[float]], k: list[list[float]], v: list[list[float]], scaled: bool) -> list[list[float]]:
    d = len(q[0])
    out = []
    for qi in q:
        s = [sum(a * b for a, b in zip(qi, kj)) / (math.sqrt(d) if scaled else 1.0) for kj in k]
        top = max(s)
        e = [math.exp(x - top) for x in s]
        tot = sum(e)
        out.append([sum(e[j] / tot * v[j][c] for j in range(len(k))) for c in range(len(v[0]))])
    return out


def _fits(printed: str, value: float) -> bool:
    p = _num(printed)
    return p is not None and abs(p - value) <= _ulp(printed) * 0.51 + 1e-9 * max(1.0, abs(value))


def shape_that_fits(q: list[str], k: list[str], v: list[str], out: list[str], scaled: bool
                    ) -> tuple[int, int, int, int] | None:
    """(queries, d_k, keys, d_v): the one shape that, given to the flat grids (row by row: Q n×d_k,
    K m×d_k, V m×d_v), makes attention of them print ``out`` (n×d_v, to its printed digits); None when
    no shape or more than one does."""
    if max(len(q), len(k), len(v), len(out)) > _MAX_GRID or not (q and k and v and out):
        return None
    vals = [[_num(x) for x in g] for g in (q, k, v)]
    if any(x is None for g in vals for x in g):
        return None
    found = []
    for a in range(1, len(q) + 1):
        d = len(q) // a
        if len(q) % a or len(k) % d:
            continue
        b = len(k) // d
        if len(v) % b or len(out) != a * (len(v) // b):
            continue
        e = len(v) // b
        qm = [[vals[0][r * d + c] for c in range(d)] for r in range(a)]  # type: ignore[misc]
        km = [[vals[1][r * d + c] for c in range(d)] for r in range(b)]  # type: ignore[misc]
        vm = [[vals[2][r * e + c] for c in range(e)] for r in range(b)]  # type: ignore[misc]
        got = _attention(qm, km, vm, scaled)
        if all(_fits(out[r * e + c], got[r][c]) for r in range(a) for c in range(e)):
            found.append((a, d, b, e))
    return found[0] if len(found) == 1 else None


def _column(it: Item) -> bool:
    return it.kind == "matrix" and it.shape[1] == 1 and it.shape[0] >= 3 and all(_num(r[0]) is not None for r in it.rows)


def grid_examples(items: list[Item], lines: list[Line], scaled: bool) -> list[Item]:
    """The items with each run of one-number-a-line columns read as examples, where the run is
    - joined by arrows: Q, K and V (each a third of the numbers before an arrow) and the output after
      it (as many numbers as Q has); the numbers after those, up to the next arrow, are the next
      example's inputs;
    - or four columns each under a line naming it (``query``, ``key``, ``value``, ``output``).
    Only where every example's shape is the one its printed output follows; else the items are left
    as they are."""
    out: list[Item] = []
    i = 0
    while i < len(items):
        named = _named_run(items, i, lines)
        if named is not None:
            made = _make(*[_flat(c) for c in named], scaled=scaled, role=named[0].role)
            out += made if made is not None else items[i:i + 4]
            i += 4
            continue
        j = i
        while j + 1 < len(items) and _column(items[j]) and _column(items[j + 1]) and \
                items[j + 1].line == items[j].end + 2 and _ARROW_RE.fullmatch(lines[items[j].end + 1].text):
            j += 1
        if j == i:
            out.append(items[i])
            i += 1
            continue
        made = _read_run(items[i:j + 1], scaled)
        out += made if made is not None else items[i:j + 1]
        i = j + 1
    return out


def _flat(col: Item) -> list[tuple]:
    return [(r[0], w, col.line + n) for n, (r, w) in enumerate(zip(col.rows, col.where))]


def _named_run(items: list[Item], i: int, lines: list[Line]) -> list[Item] | None:
    """Four columns from ``i``, each right under a line that names it, in the order Q, K, V, output."""
    cols = items[i:i + 4]
    if len(cols) < 4 or not all(c.kind in ("matrix", "scalar") and c.shape[1] == 1 and c.line > 0 and
                                c.end - c.line + 1 == len(c.rows) and all(_num(r[0]) is not None for r in c.rows)
                                for c in cols):
        return None  # (named, a grid may be one number, or two)
    names = []
    for c in cols:
        t = lines[c.line - 1].text.strip(" :=*`#")
        names.append((step_of_ident(t) or step_of_text(t)) if 0 < len(t) <= 40 else None)
    return cols if names == ["Q", "K", "V", "output"] else None


def _make(q: list[tuple], k: list[tuple], v: list[tuple], res: list[tuple], scaled: bool, role: str) -> list[Item] | None:
    """Q, K, V and the output of one example from flat grids of (number, where, line), in the one shape
    that fits; None when none (or more than one) does."""
    shape = shape_that_fits([g[0] for g in q], [g[0] for g in k], [g[0] for g in v], [g[0] for g in res], scaled)
    if shape is None:
        return None
    a, d, b, e = shape
    made: list[Item] = []
    for name, grid, r_, c_ in (("Q", q, a, d), ("K", k, b, d), ("V", v, b, e), ("output", res, a, e)):
        rows = [[g[0] for g in grid[r * c_:(r + 1) * c_]] for r in range(r_)]
        where = [grid[r * c_][1] for r in range(r_)]
        it = Item(rows=rows, where=where, line=grid[0][2], end=grid[-1][2], kind="matrix",
                  label=f"{name} (a grid copied one number a line, read {r_}×{c_})", step=name,
                  strength=3 if name != "output" else 2, role="code" if name != "output" else role,
                  form="list")  # the inputs given as in code: a new Q starts a new example
        it.notes.append(f"{r_}×{c_}: the only shape under which the grids give the printed output")
        made.append(it)
    return made


def _read_run(cols: list[Item], scaled: bool) -> list[Item] | None:
    if any(c.end - c.line + 1 != len(c.rows) for c in cols):
        return None  # not one number on each line of the run
    made: list[Item] = []
    ins = _flat(cols[0])
    for col in cols[1:]:
        after = _flat(col)
        if len(ins) % 3:
            return None
        m = len(ins) // 3
        if len(after) < m:
            return None
        res, rest = after[:m], after[m:]
        one = _make(ins[:m], ins[m:2 * m], ins[2 * m:], res, scaled, cols[0].role)
        if one is None:
            return None
        made += one
        ins = rest
    if ins:
        return None  # numbers left after the last output: not an exercise's grids
    return made
