"""Terminal text view: each step as formula -> one entry written out -> exact -> decimals.

>>> import symattn as sa
>>> out = sa.text(sa.derive(sa.load("i_love_statistics")))
>>> print(out.splitlines()[0])
I love statistics
>>> "q[love, 1] = 0.4·0.1 + 0.8·0.2 + 0.6·0.5 = 0.5" in out
True
"""

from __future__ import annotations

from typing import Sequence

from ..display import escape
from ..pipeline.steps import Derivation, Step
from .conventions import digits_line, summary
from .entries import Line, entry_symbol, exact_cells, exact_rows, row_symbol, show_exact, worked
from .printers import elide, render_phrase, text as tx

__all__ = ["render", "table", "line", "step_text"]

MAX_CELL = 28
REL = {"=": "=", "≈": "≈"}


def table(cells: list[list[str]], rows: Sequence[str], cols: Sequence[str], indent: str = "    ") -> str:
    """Aligned matrix with row and column labels; large ones elided (⋮, …).

    >>> print(table([["1", "-0.5"]], ["a"], ["x", "y"]))
           x     y
        a  1  -0.5
    """
    ri, ci = elide(len(rows)), elide(len(cols))
    rows, cols = [escape(r) for r in rows], [escape(c) for c in cols]  # names a user wrote
    head = [""] + [cols[j] if j is not None else "…" for j in ci]
    body = []
    for i in ri:
        if i is None:
            body.append(["⋮"] + ["⋮" if j is not None else "⋱" for j in ci])
        else:
            body.append([rows[i]] + [cells[i][j] if j is not None else "…" for j in ci])
    grid = [head] + body
    widths = [max(len(r[c]) for r in grid) for c in range(len(head))]
    lines = []
    for r in grid:
        parts = [r[0].ljust(widths[0])] + [r[c].rjust(widths[c]) for c in range(1, len(r))]
        lines.append(indent + "  ".join(parts).rstrip())
    return "\n".join(lines)


def line(w: Line) -> str:
    """An entry written out, as one line of text."""
    out = tx(w.lhs) + "".join(f" {REL[rel]} {tx(e)}" for rel, e in w.parts)
    return out + (f" ({w.note})" if w.note else "")


def _matrix(step: Step, cells: list, label: str, indent: str = "  ") -> list[str]:
    """A block of values: a table, or one entry a line when the entries are long."""
    out = [f"{indent}{label}"]
    if len(step.shape) == 2:
        strs = [[x if isinstance(x, str) else tx(x) for x in row] for row in cells]
        if max((len(c) for r in strs for c in r), default=0) <= MAX_CELL:
            out.append(table(strs, step.row_labels, step.col_labels, indent + "  "))
            return out
        for i in elide(step.shape[0]):
            if i is None:
                out.append(f"{indent}  ⋮")
                continue
            for j in elide(step.shape[1]):
                if j is None:
                    out.append(f"{indent}  …")
                    continue
                out.append(f"{indent}  {tx(entry_symbol(step, (i, j)))} = {strs[i][j]}")
        return out
    depth = step.depth_labels or []
    for i in elide(step.shape[0]):
        if i is None:
            out.append(f"{indent}  ⋮")
            continue
        out.append(f"{indent}  query {escape(step.row_labels[i])}:")
        strs = [[x if isinstance(x, str) else tx(x) for x in row] for row in cells[i]]
        if max((len(c) for r in strs for c in r), default=0) <= MAX_CELL:
            out.append(table(strs, step.col_labels, depth, indent + "    "))
            continue
        for j in elide(step.shape[1]):
            if j is None:
                out.append(f"{indent}    …")
                continue
            for l in elide(step.shape[2]):
                if l is not None:
                    out.append(f"{indent}    [{escape(step.col_labels[j])}, {escape(depth[l])}] = {strs[j][l]}")
    return out


def step_text(step: Step, digits: int = 6, exact: bool | None = None, expand: bool = False) -> str:
    """One step as text: heading with the formula, notes, the written-out entry, exact, decimals."""
    shape = "×".join(str(n) for n in step.shape)
    lines = [f"── {step.name}: {step.title} ── {tx(step.formula)}   ({shape})"]
    lines += [f"  {render_phrase(note, 'text')}" for note in step.notes]
    w = worked(step, digits, expand)
    if w is not None:
        lines.append("  " + line(w))
    dec = step.decimals(digits)
    if dec is not None and step.exact_decimals(digits):
        lines += _matrix(step, dec, "exact (terminating decimals)")
        return "\n".join(lines)
    if show_exact(step, exact):
        rows = exact_rows(step)
        if rows is not None:
            lines.append("  exact (each row over its common denominator)")
            lines += [f"    {tx(row_symbol(step, i))} = {tx(r)}" for i, (_, r) in enumerate(rows)]
        else:
            what = "exact, in terms of the earlier steps' entries" if step.symbolic and not expand and not step.given \
                else "exact"
            lines += _matrix(step, exact_cells(step, expand), what)
    else:
        lines.append("  exact: closed forms omitted at this size (use --exact)")
    if dec is not None:
        lines += _matrix(step, dec, f"decimal ({digits} significant digits)")
    else:
        lines.append("  decimal: none (the value has symbols)")
    return "\n".join(lines)


def render(d: Derivation, digits: int = 6, steps: Sequence[str] | None = None, exact: bool | None = None,
           expand: bool = False) -> str:
    """The whole derivation as text."""
    lines = [d.title]
    if d.spec.description:
        lines.append("  " + d.spec.description)
    lines.append(f"  source: {d.spec.source}")
    lines.append("  conventions: " + " · ".join(render_phrase(i.short, "text") for i in summary(d)))
    lines.append("  " + digits_line(digits))
    for st in d.select(steps):
        lines += ["", step_text(st, digits, exact, expand)]
    return "\n".join(lines) + "\n"
