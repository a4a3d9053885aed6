"""A new worked example that prints Q, K and V afresh (``\\mathbf{Q} = \\begin{pmatrix}…``) under a heading
of its own, after a first example whose Q, K and V the page wrote in code (``q = np.array([1.0, 1.0])``,
``K = np.array([[…]])``) and worked to scores, weights or an output. The printed matrices start another
example (a second section working three queries where the first worked one), though some of them repeat
the code's numbers (the same keys and values).

Only when the example so far starts from Q, K or V written in code and nothing else (no embeddings, no
weights), the new matrix is printed (not code), is named Q, K or V by a symbol or a label, has at least two
rows and other numbers than the code's matrix of that name, the code's example was worked (a score,
weight or output named after its inputs, or anything its code printed), and a heading stands between that work and the new matrix:
the new example starts at the last such heading.

>>> from symattn.analyses.importer_items import Item
>>> q = Item([["1", "1"]], [], 2, 2, "vector", step="Q", strength=3, role="code")
>>> k = Item([["1", "0"], ["0", "1"]], [], 3, 3, "matrix", step="K", strength=3, role="code")
>>> w = Item([["0.5", "0.5"]], [], 6, 6, "vector", step="weights", strength=2)
>>> q2 = Item([["1", "0"], ["0", "1"]], [], 12, 12, "matrix", step="Q", strength=3, role="math")
>>> heading = lambda k: k == 10
>>> fresh_after_literals({"Q": q, "K": k}, [w], q2, heading)
10
>>> fresh_after_literals({"Q": q, "K": k}, [w], q2, lambda k: False) is None   # no heading between
True
>>> fresh_after_literals({"Q": q, "K": k}, [], q2, heading) is None            # nothing worked yet
True
"""

from __future__ import annotations

from typing import Callable

from .importer_items import Item
from .importer_model import _numeric, _same_values

__all__ = ["fresh_after_literals"]

_WORK = ("scores", "scaled", "masked", "weights", "output")


def fresh_after_literals(inputs: dict[str, Item], items: list[Item], it: Item,
                         is_heading: Callable[[int], bool]) -> int | None:
    """The heading line where a new example starts with ``it`` (see the module's docstring), or None."""
    if it.step not in ("Q", "K", "V") or it.strength < 2 or it.operand or it.batches > 1 or it.role == "code" \
            or it.head is not None or it.kind != "matrix" or len(it.rows) < 2 or it.token is not None \
            or not _numeric(it.rows):
        return None
    if not inputs or any(n not in ("Q", "K", "V") or g.role != "code" for n, g in inputs.items()):
        return None
    old = inputs.get(it.step)
    if old is None or _same_values(old.rows, it.rows):
        return None
    start = max(g.end for g in inputs.values())
    worked = [c.end for c in items if c.line > start and (c.step in _WORK or (c.step is None and c.role == "output"))
              and _numeric(c.rows) and c.line < it.line]
    if not worked:
        return None
    heads = [k for k in range(max(worked) + 1, it.line) if is_heading(k)]
    return heads[-1] if heads else None
