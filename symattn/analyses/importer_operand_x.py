"""Embeddings that the code names only by what it does with them: a literal matrix under a name that says
nothing of attention (``tokens = torch.tensor([...])``, ``data = np.array([...])``) that every projection
the code writes multiplies (``Q = tokens @ W_q``, ``K = tokens @ W_k``, ``V = tokens @ W_v``). The weights
multiply it, so it is the example's embeddings X, as if it were named so.

Only where the code writes at least two projections, all of one operand, that operand is assigned one
literal matrix the importer read under that very name with no step of its own, and nothing else on the
page is already the embeddings: a matrix no projection touches, or one projected beside another, is left
as it was.

>>> from types import SimpleNamespace as L
>>> code = [L(role="code", text="Q = tokens @ W_q"), L(role="code", text="K = tokens @ W_k")]
>>> projected_operand(code)
'tokens'
>>> projected_operand(code + [L(role="code", text="V = other @ W_v")]) is None
True
>>> projected_operand(code[:1]) is None
True
"""

from __future__ import annotations

import re

from .importer_items import Item
from .importer_names import step_of_ident
from .importer_operand import _projections

__all__ = ["projected_operand", "name_projected_operand"]

_IDENT = re.compile(r"[A-Za-z_]\w{0,40}")


def projected_operand(lines: list) -> str | None:
    """The one variable every projection of the code multiplies, when there are at least two; else None."""
    projs = _projections(lines)
    ops = {op for op, _ in projs}
    if len(projs) < 2 or len(ops) != 1:
        return None
    return ops.pop()


def name_projected_operand(items: list[Item], lines: list) -> None:
    """Give the step X to the code matrix the projections multiply (see the module's docstring)."""
    if any(it.step == "X" for it in items):
        return
    op = projected_operand(lines)
    if op is None or step_of_ident(op) is not None:
        return
    hits = [it for it in items if it.role == "code" and it.kind == "matrix" and it.label.strip() == op]
    if len(hits) != 1 or hits[0].step is not None or hits[0].aside:
        return
    it = hits[0]
    if not _IDENT.fullmatch(op) or len(it.rows) < 1 or len(it.rows[0]) < 1:
        return
    it.step, it.strength = "X", 3
    it.notes.append(f"the projections multiply {op}: the embeddings")
