"""A chain of equal vectors written one per line, each continuation line starting with '=':

    Scores = [0.1*0.42 + 0.2*0.40, 0.1*0.50 + 0.2*0.70]
           = [0.042 + 0.08, 0.05 + 0.14]
           = [0.122, 0.19]

Read as text, the two continuation lines look like the rows of one matrix. They are the same vector
worked twice: the sums written out, then their value. The block is split back into its lines; the
line of plain numbers is the chain's result, named by the chain's head (``Scores`` the scores,
``Output`` the output); the line of sums is its working (an operand, not placed).
"""

from __future__ import annotations

import re
from dataclasses import replace

from .importer_model import Item
from .importer_names import step_of_ident, step_of_text
from ..read.pages.scan import entry_kind

__all__ = ["split_equal_chains"]

_HEAD_RE = re.compile(r"^\s*([A-Za-z][\w ]{0,40}?)\s*=\s*[\[\d]")


def _head(lines: list, k: int) -> str | None:
    """The name on the first line of the chain above line ``k`` (a run of lines starting with '=')."""
    j = k - 1
    while j >= 0 and k - j <= 6 and re.match(r"^\s*=", lines[j].text):
        j -= 1
    if j < 0 or k - j > 6:
        return None
    m = _HEAD_RE.match(lines[j].text)
    return m.group(1).strip() if m else None


def split_equal_chains(items: list[Item], lines: list) -> list[Item]:
    """Each 2-row block whose two lines both start with '=' and whose first row is written-out sums and
    second row plain numbers becomes two one-row vectors (see the module docstring)."""
    out: list[Item] = []
    for it in items:
        ok = it.kind == "matrix" and len(it.rows) == 2 and it.end == it.line + 1 and it.end < len(lines) \
            and all(re.match(r"^\s*=\s*\[", lines[k].text) for k in (it.line, it.end)) \
            and len(it.rows[0]) == len(it.rows[1]) \
            and all(entry_kind(x) == "expr" for x in it.rows[0]) and all(entry_kind(x) == "number" for x in it.rows[1])
        head = _head(lines, it.line) if ok else None
        step = (step_of_ident(head.replace(" ", "_")) or step_of_text(head)) if head else None
        if step not in ("scores", "scaled", "weights", "output"):
            out.append(it)
            continue
        w0, w1 = it.where[:1], it.where[-1:]
        terms = [[t.strip() for t in x.split("+")] for x in it.rows[0]]
        if step == "output" and len({len(t) for t in terms}) == 1 and len(terms[0]) >= 2 \
                and all(entry_kind(t) == "number" for ts in terms for t in ts):
            # '= [0.126 + 0.165 + 0.296, 0.12 + 0.231 + 0.333]': the j-th terms are key j's p_j·v_j
            keys = [[ts[j] for ts in terms] for j in range(len(terms[0]))]
            vs = Item(rows=keys, where=w0 * len(keys), line=it.line, end=it.line, kind="vsum", role=it.role,
                      form="list")
            vs.notes.append(f"a vector of sums of {len(keys)} terms each: the weighted values p·v of one query, "
                            "key by key")
            out.append(vs)
        else:
            out.append(replace(it, rows=[list(it.rows[0])], where=w0, end=it.line, kind="vector",
                               exprs=[list(it.rows[0])], operand=True, label=head, step=step, strength=2,
                               notes=list(it.notes)))
        out.append(replace(it, rows=[list(it.rows[1])], where=w1, line=it.end, kind="vector", exprs=None,
                           operand=False, label=head, step=step, strength=2, notes=list(it.notes)))
    return out
