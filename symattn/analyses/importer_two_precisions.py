"""One run printed at two precisions: a page whose code makes Q, K and V from weights it never prints, shows
them at a coarse print precision (``torch.set_printoptions(precision=1)``: one decimal), then raises the
precision (``set_printoptions(precision=9)``) before it prints the results. The printed Q, K and V are the
run's numbers cut to far fewer digits than its results carry, so they are not inputs the results follow from
(to their printed digits): the example is a file of claims only, Q, K and V among its claims.

Also here: the row a one-row query is of, read off the code that takes it (``x_2 = embedded[2]``, then
``query_2 = W_query @ x_2``: the embedding row at code index 2, the third token).

>>> print_precision_raised(["torch.set_printoptions(precision=9, sci_mode=False)"])
9
>>> code_row_index("query_2", ["x_2 = sentence_embedded[2]", "query_2 = W_query.matmul(x_2)"])
2
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .importer_model import ClaimRow, Given

_PRECISION = re.compile(r"\bset_printoptions\s*\((?:[^()]{0,200}?[,\s(])?precision\s*=\s*(\d{1,2})\b")
_ASSIGN = re.compile(r"^\s*([A-Za-z_]\w{0,60})\s*=\s*(.{1,300})$")
_ROW_TAKEN = re.compile(r"^[A-Za-z_]\w{0,60}\s*\[\s*(\d{1,4})\s*\]$")
_IDENT = re.compile(r"[A-Za-z_]\w{0,60}")


def print_precision_raised(code: Sequence[str]) -> int | None:
    """The print precision the last ``set_printoptions(precision=N)`` among these code lines sets, or None."""
    found = None
    for t in code:
        for m in _PRECISION.finditer(t):
            found = int(m.group(1))
    return found


def _decimals(text: str) -> int:
    t = text.strip().lstrip("+-−")
    if re.search(r"[eE]", t):
        return 99  # e-notation: no fixed count of decimals
    return len(t.split(".", 1)[1]) if "." in t else 0


def printed_decimals(rows: Sequence[Sequence[str]]) -> int:
    """The most decimals any entry of a printed matrix has."""
    return max((_decimals(x) for r in rows for x in r), default=0)


def coarser_than_results(inputs: dict[str, Given], claims: Sequence[ClaimRow], raised: int | None) -> bool:
    """Whether the printed inputs carry at most two decimals while the code raised the print precision to
    at least three more than that before the results, and some placed result is printed with those
    extra digits (the same run, its inputs shown cut short)."""
    if raised is None or not inputs:
        return False
    d_in = max(printed_decimals(g.rows) for g in inputs.values())
    if d_in > 2 or raised < d_in + 3:
        return False
    return any(c.step not in inputs and c.group is None and printed_decimals([c.values]) >= d_in + 3
               for c in claims)


def inputs_claimed(inputs: dict[str, Given], query_labels: list[str], key_labels: list[str]) -> list[ClaimRow]:
    """The printed inputs, each row a claim of its step (Q rows by query, K and V rows by key)."""
    out: list[ClaimRow] = []
    for name, g in inputs.items():
        labels = key_labels if name in ("K", "V") else query_labels
        for i, r in enumerate(g.rows):
            out.append(ClaimRow(name, labels[i] if i < len(labels) else str(i + 1), list(r),
                                g.where[i] if i < len(g.where) else g.where[0]))
    return out


def code_row_index(name: str, code: Sequence[str]) -> int | None:
    """The code index of the embedding row a one-row vector ``name`` is made from: ``name = … v …`` with
    ``v = M[i]`` assigned before it (or ``M[i]`` in the expression itself); None unless exactly one index.

    >>> code_row_index("q", ["q = W_q @ X[1]"]), code_row_index("q", ["q = W_q @ X[1] + X[2]"])
    (1, None)
    >>> code_row_index("q", ["x = X[0]", "q = W_q @ y"]) is None
    True
    """
    if not re.fullmatch(r"[A-Za-z_]\w{0,60}", name or ""):
        return None
    taken: dict[str, int] = {}
    for t in code[-400:]:
        m = _ASSIGN.match(t.split("#", 1)[0].rstrip())
        if m is None:
            continue
        var, expr = m.group(1), m.group(2).strip()
        r = _ROW_TAKEN.match(expr)
        if r is not None:
            taken[var] = int(r.group(1))
            continue
        if var != name:
            continue
        found = {int(i) for i in re.findall(r"\b[A-Za-z_]\w{0,60}\s*\[\s*(\d{1,4})\s*\]", expr)}
        found |= {taken[v] for v in _IDENT.findall(expr) if v in taken}
        return next(iter(found)) if len(found) == 1 else None
    return None
