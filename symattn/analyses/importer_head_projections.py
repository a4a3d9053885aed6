"""Pages that project a given Q, K and V again with each head's weights (the paper's MultiHead(Q, K, V):
head_i = Attention(Q·W^Q_i, K·W^K_i, V·W^V_i)) and print each head's projections Q_1, K_1, V_1, Q_2, ….
An example file cannot hold the three matrices and the weights (it projects one X), but it holds the
projections: Q = [Q_1 | Q_2 | …], K and V likewise, with one head per block of columns. The joined
projections are read only when each printed Q_i is exactly the page's Q times its W^Q_i (and K_i, V_i
likewise), so a page's other matrices named Q_1 (a layer, another example) are never taken for them.

>>> from symattn.analyses.importer_items import Item
>>> def m(rows, label=""):
...     return Item(rows=rows, where=[None] * len(rows), line=0, end=0, label=label)
>>> q, w = m([["1", "2"], ["0", "1"]]), m([["1", "0", "0", "1"], ["0", "1", "1", "1"]])  # W^Q_1 | W^Q_2
>>> exact_product(q.rows, w.rows)
[[Fraction(1, 1), Fraction(2, 1), Fraction(2, 1), Fraction(3, 1)], [Fraction(0, 1), Fraction(1, 1), Fraction(1, 1), Fraction(1, 1)]]
>>> joined_block([m([["1", "2"], ["0", "1"]], "Q_1"), m([["2", "3"], ["1", "1"]], "Q_2")], "Q", 2, 2)[0].rows
[['1', '2', '2', '3'], ['0', '1', '1', '1']]
"""

from __future__ import annotations

from fractions import Fraction

from ..limits import MAX_DIM
from .importer_items import Item, head_symbol


def _exact(x: str) -> Fraction | None:
    try:
        return Fraction(x.strip())
    except (ValueError, ZeroDivisionError):
        return None


def exact_values(rows: list[list[str]]) -> list[list[Fraction]] | None:
    """The rows in exact numbers (None when an entry is no number)."""
    out = [[_exact(x) for x in r] for r in rows]
    return None if any(x is None for r in out for x in r) else out  # type: ignore[return-value]


def exact_product(a: list[list[str]], b: list[list[str]]) -> list[list[Fraction]] | None:
    """a · b in exact numbers (None when an entry is no number or the shapes do not chain)."""
    if not a or not b or any(len(r) != len(b) for r in a) or len(b[0]) > MAX_DIM or len(b) > MAX_DIM:
        return None
    fa = [[_exact(x) for x in r] for r in a]
    fb = [[_exact(x) for x in r] for r in b]
    if any(x is None for r in fa + fb for x in r) or any(len(r) != len(b[0]) for r in b):
        return None
    return [[sum((r[k] * fb[k][j] for k in range(len(b))), Fraction(0)) for j in range(len(b[0]))]  # type: ignore
            for r in fa]


def joined_block(items: list[Item], kind: str, heads: int, n: int) -> tuple[Item, list[Item]] | None:
    """Each head's printed ``kind``_i (its first printing, n rows, all heads as wide) joined column block by
    column block: (the joined matrix, the printings used), or None when a head's is missing."""
    parts = []
    for h in range(1, heads + 1):
        it = next((c for c in items if head_symbol(c) == f"head{h}.{kind}" and c.shape[0] == n), None)
        if it is None:
            return None
        parts.append(it)
    if len({p.shape for p in parts}) != 1:
        return None
    rows = [sum((p.rows[i] for p in parts), []) for i in range(n)]
    label = " | ".join(p.label.strip(" =:$") for p in parts)
    joined = Item(rows=rows, where=list(parts[0].where), line=parts[0].line, end=parts[-1].end, step=kind,
                  strength=3, label=f"[{label}]", role=parts[0].role, form=parts[0].form)
    return joined, parts


def head_projections(items: list[Item], heads: int, given: tuple[Item, Item, Item],
                     ws: dict[str, Item]) -> tuple[tuple[Item, Item, Item], list[Item]] | None:
    """The printed per-head projections joined into Q, K and V (one block of columns per head) when each is the
    page's given matrix times that head's weights (``ws``: each projection's weights joined the same way);
    with the printings used. None when a head's projection is missing or another product."""
    out = []
    used: list[Item] = []
    for kind, src, w in zip("QKV", given, ("Wq", "Wk", "Wv")):
        got = joined_block(items, kind, heads, src.shape[0])
        if got is None or w not in ws:
            return None
        joined, parts = got
        want = exact_product(src.rows, ws[w].rows)
        have = [[_exact(x) for x in r] for r in joined.rows]
        if want is None or want != have:
            return None
        out.append(joined)
        used += parts
    return (out[0], out[1], out[2]), used


_WORK_STEPS = (None, "X", "Q", "K", "V", "Wq", "Wk", "Wv")


def set_projection_work_aside(items: list[Item], given: tuple[Item, Item, Item], used: list[Item],
                              joined: tuple[Item, Item, Item], heads: int) -> None:
    """The numbers of the projections' working (a row of Q, its head's W^Q_i, the row's product) printed between
    the given Q, K, V and the last projection used, and later printings of a head's projection (Q_1 restated,
    K_1ᵀ), are no steps of the heads' attention: each is set aside with its reason (listed, not placed)."""
    first = min(g.line for g in given)
    last = max(u.end for u in used)
    width = joined[0].shape[1] // heads if heads else 0
    blocks = []
    for kind, j in zip("QKV", joined):
        for h in range(heads):
            rows = [r[h * width:(h + 1) * width] for r in j.rows]
            blocks.append((kind, h + 1, rows, [list(c) for c in zip(*rows)]))
    for c in items:
        if c.aside or any(c is u for u in used) or c.kind not in ("matrix", "vector"):
            continue
        if first <= c.line <= last and c.step in _WORK_STEPS:
            c.aside = ("the working of a head's projection (a row of Q, K or V times that head's weights): "
                       "this example starts from the projections")
            continue
        for kind, h, rows, cols in blocks:
            if c.kind == "matrix" and c.rows in (rows, cols) and (c.step in _WORK_STEPS or c.strength <= 1
                                                                  or head_symbol(c) == f"head{h}.{kind}"):
                c.aside = f"restates head {h}'s {kind} ({kind}_{h}{'ᵀ' if c.rows == cols and rows != cols else ''}), " \
                          "a block of the input"
                break
