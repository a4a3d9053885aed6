"""Test cases of a coding-practice page copied as text: the box's "Input:" line holds the arguments of
the attention call with no names, in the call's order (Q, K, V), and "Expected:" (or "Output:") glued
after them announces the result on the next line::

    Input:
    [[1,2],[3,4]] [[5,6],[7,8]] [[9,10],[11,12]]Expected:
    [[2.5,3.5],[6.5,7.5]]Test Case 2

Three matrices read as Q, K and V only when their shapes allow it (K and Q as wide, V as tall as K), and
the result only when it has Q's rows and V's columns.
"""

from __future__ import annotations

import re

from .importer_items import Item

__all__ = ["read_test_cases", "TEST_CASE_NOTE"]

#: the note on each argument read from a test case (the next test case starts a new example)
TEST_CASE_NOTE = "a test case's input"

_INPUT_RE = re.compile(r"\s*(?:test\s+case\s+\d+\s*)?inputs?\s*:?\s*$", re.I)
_EXPECTED_RE = re.compile(r"\s*(?:expected(?:\s+output)?|output|returns?)\s*:?\s*$", re.I)


def _bare(it: Item) -> bool:
    return it.kind == "matrix" and it.batches == 1 and not it.row_labels and not it.exprs and not it.aside


def read_test_cases(items: list[Item], lines: list) -> int:
    """Names the three unnamed matrices of each test case's input line Q, K and V, and the matrix after
    "Expected:" the output (strength 2: what the box says). Returns how many test cases were read.

    >>> def m(rows, line, before="", after=""):
    ...     return Item(rows=rows, where=[None], line=line, end=line, label="Input:", step="X", strength=2,
    ...                 before=before, after=after)
    >>> its = [m([["1", "2"], ["3", "4"]], 5, after=" [[5,6],[7,8]] [[9,10],[11,12]]Expected:"),
    ...        m([["5", "6"], ["7", "8"]], 5, "[[1,2],[3,4]] ", " [[9,10],[11,12]]Expected:"),
    ...        m([["9", "10"], ["11", "12"]], 5, "[[1,2],[3,4]] [[5,6],[7,8]] ", "Expected:"),
    ...        m([["2.5", "3.5"], ["6.5", "7.5"]], 6, after="Test Case 2")]
    >>> from symattn.read.pages.model import Line, Where
    >>> lines = [Line("", Where(k + 1)) for k in range(4)] + [Line("Input:", Where(5))] + [Line("", Where(6))] * 2
    >>> read_test_cases(its, lines), [(it.step, it.strength) for it in its]
    (1, [('Q', 2), ('K', 2), ('V', 2), ('output', 2)])
    """
    found = 0
    by_line: dict[int, list[Item]] = {}
    for it in items:
        by_line.setdefault(it.line, []).append(it)
    for k, row in sorted(by_line.items()):
        mats = sorted((it for it in row if _bare(it) and it.end == k), key=lambda it: len(it.before))
        if len(mats) != 3 or not _EXPECTED_RE.fullmatch(mats[-1].after) or mats[0].before.strip():
            continue
        if not (k > 0 and _INPUT_RE.fullmatch(lines[k - 1].text)):
            continue
        q, kk, v = mats
        if q.shape[1] != kk.shape[1] or v.shape[0] != kk.shape[0]:
            continue
        nxt = [it for it in by_line.get(k + 1, []) if _bare(it) and not it.before.strip()]
        for it, step in zip(mats, ("Q", "K", "V")):
            it.step, it.strength = step, 2
            it.operand, it.chain = False, None  # (side by side, they read as the factors of a product)
            it.notes.append(f"{TEST_CASE_NOTE}, argument {'QKV'.index(step) + 1} of the call: {step}")
        if len(nxt) == 1 and nxt[0].shape == (q.shape[0], v.shape[1]):
            nxt[0].step, nxt[0].strength = "output", 2
            nxt[0].notes.append("the test case's expected result: the output")
        found += 1
        for other in items:
            # the statement quoting an argument ("Given the input [[1,2],[3,4]] and …") restates it
            if other.line < k - 1 and _bare(other) and other.kind == "matrix" and \
                    any(other.rows == m.rows for m in mats) and other.step not in ("Q", "K", "V"):
                other.step, other.strength = None, 0
    return found
