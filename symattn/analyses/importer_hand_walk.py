"""One query walked through attention by hand, with every vector and number named in the text.

A section of a page that names one query vector (``q_i = [0.3, 1.2, 2.2]``, or a table whose
columns are the query, key and value and whose rows are tokens) and two or more keys (``k_1``,
``k_2``, …, or ``k_A``, ``k_B``, …), then works that query's steps in lines of text: named dot
products (``q_i^T k_1 = … = 1.80``), keyed numbers (``e_{C,A} = 1``, ``\\tilde{e}_{C,A} = 0.71``,
``\\alpha_{C,A} \\approx 0.25``), a step's row printed alone under the step's words
(``Step 3 — softmax`` then ``(0.0072, 0.0012, 0.992)``) and the output (``out_C = … = (0.25, 0.25, 0.5)``).

Each such section is one example: the query, keys and values are its inputs (one query row); a
section naming no values has none, and its query and keys are placed as Q and K claims beside the
scores. Only sections no other reading has placed anything in are read this way, and a section
must print at least one of the query's steps. The text is read by :mod:`symattn.read.pages.hand_walk`.
"""

from __future__ import annotations

import re

from ..read.pages.hand_walk import (cell_vector, dot_results, keyed_results, lone_vector, norm, output_result,
                                    role_columns, step_words, table_row_cells, vectors_in)
from ..read.pages.model import Page
from .importer_attend_list import attend_lists
from .importer_model import CLAIM_ORDER, Choice, ClaimRow, Given, ImportedExample, Note, number_examples

#: how many lines above a lone row its step's words may be
_STEP_REACH = 6


def _sections(page: Page) -> list[tuple[int, int]]:
    """[first, end) line ranges between headings."""
    heads = [k for k, ln in enumerate(page.lines) if ln.role == "heading"]
    bounds = [0] + heads + [len(page.lines)]
    return [(a, b) for a, b in zip(bounds, bounds[1:]) if b > a]


def _used_lines(out: list[ImportedExample]) -> set[int]:
    """The page lines (1-based) any example already places a number from."""
    used: set[int] = set()
    for ex in out:
        wheres = [c.where for c in ex.claims] + [w for g in ex.inputs.values() for w in g.where]
        for w in wheres:
            used.update(int(n) for n in re.findall(r"line (\d+)", str(w)))
    return used


def _vectors(page: Page, a: int, b: int) -> tuple[dict[str, dict[str, tuple[list[str], int]]], int | None]:
    """Each named q/k/v vector of lines a..b, by letter and subscript: (numbers, line index), first one kept."""
    found: dict[str, dict[str, tuple[list[str], int]]] = {"q": {}, "k": {}, "v": {}}
    first = None
    cols: dict[int, str] | None = None
    for n in range(a, b):
        text = page.lines[n].text
        cells = table_row_cells(text)
        if cells is not None:
            if cols is None:
                cols = role_columns(cells) if len(role_columns(cells)) >= 2 else {}
                continue
            if cols and cells and cells[0] and not set(cells[0]) <= set("-: "):
                tok = re.sub(r"[`*$]", "", cells[0]).strip()
                for j, role in cols.items():
                    vec = cell_vector(cells[j]) if j < len(cells) and tok else None
                    if vec is not None:
                        found[role].setdefault(tok, (vec, n))
                        first = n if first is None else first
            continue
        cols = None
        for letter, sub, vals in vectors_in(norm(text)):
            found[letter].setdefault(sub, (vals, n))
            first = n if first is None else first
    return found, first


def _walk(page: Page, a: int, b: int) -> ImportedExample | None:
    found, first = _vectors(page, a, b)
    if first is None or len(found["q"]) != 1 or len(found["k"]) < 2:
        return None
    (qs, (q, _)), = found["q"].items()
    keys = list(found["k"])
    ks = [found["k"][s][0] for s in keys]
    if any(len(k) != len(q) for k in ks):
        return None
    vs = None
    if found["v"]:
        if list(found["v"]) != keys or len({len(found["v"][s][0]) for s in keys}) != 1:
            return None
        vs = [found["v"][s][0] for s in keys]
    steps: dict[str, dict[str, tuple[str, int]]] = {}
    out_row: tuple[list[str], int] | None = None
    lone: dict[str, tuple[list[str], int]] = {}
    heard: tuple[str, int] | None = None
    for n in range(first, b):
        text = norm(page.lines[n].text)
        said = step_words(text)
        for qsub, ksub, v in dot_results(text):
            if qsub in ("", qs) and ksub in keys:
                steps.setdefault("scores", {}).setdefault(ksub, (v, n))
        for step, qsub, ksub, v in keyed_results(text):
            if qsub == qs and ksub in keys:
                steps.setdefault(step, {}).setdefault(ksub, (v, n))
        res = output_result(text)
        if res is not None and res[0] in ("", qs) and vs is not None and len(res[1]) == len(vs[0]):
            out_row = out_row or (res[1], n)
        row = lone_vector(text)
        if row is not None and heard is not None and n - heard[1] <= _STEP_REACH:
            want = (len(vs[0]) if vs is not None else -1) if heard[0] == "output" else len(keys)
            if len(row) == want:
                lone.setdefault(heard[0], (row, n))
            heard = None
            continue
        if said is not None:
            heard = (said, n)
    claims: list[ClaimRow] = []
    tokens = key_tokens = None
    if all(not s.isdigit() for s in keys) and qs in keys:
        tokens, key_tokens = [qs], keys
    qrow = qs if tokens else "1"
    for step in ("scores", "scaled", "weights"):
        got = steps.get(step, {})
        if len(got) == len(keys):
            claims.append(ClaimRow(step, qrow, [got[s][0] for s in keys], f"line {page.lines[got[keys[0]][1]].where.line}"))
        elif step in lone:
            row, n = lone[step]
            claims.append(ClaimRow(step, qrow, row, str(page.lines[n].where)))
    if "output" in lone and out_row is None:
        out_row = lone["output"]
    if out_row is not None and vs is not None:
        claims.append(ClaimRow("output", qrow, out_row[0], str(page.lines[out_row[1]].where)))
    if not claims:
        return None
    where = str(page.lines[first].where)
    inputs: dict[str, Given] = {}
    if vs is not None:
        at = {r: [str(page.lines[found[r][s][1]].where) for s in found[r]] for r in "qkv"}
        inputs = {"Q": Given([q], at["q"]), "K": Given(ks, at["k"]), "V": Given(vs, at["v"])}
    else:
        claims = [ClaimRow("Q", qrow, q, where)] + [
            ClaimRow("K", str(j + 1), k, str(page.lines[found["k"][s][1]].where)) for j, (s, k) in enumerate(zip(keys, ks))] \
            + claims
        tokens = key_tokens = None
        claims = [replace_row(c, "1") if c.step not in ("Q", "K") else c for c in claims]
    claims.sort(key=lambda c: CLAIM_ORDER.index(c.step))
    scaled = any(c.step == "scaled" for c in claims)
    conv = {"scale": Choice("1/sqrt(d_k)", "the page divides the named dot products by the root of d_k")
            if scaled else Choice("none", "the page prints no scaled scores for its named dot products", assumed=True)}
    notes = [Note("found", "one query walked by hand: named query, key and value vectors and named steps", where)]
    last = max([first] + [int(m) - 1 for c in claims for m in re.findall(r"line (\d+)", c.where)])
    return ImportedExample(title=_title(page, a), source=page.source, format=page.format, index=1, count=1,
                           tokens=tokens, key_tokens=key_tokens, inputs=inputs, convention=conv, claims=claims,
                           notes=notes, first_index=first, first_line=where,
                           last_line=str(page.lines[min(last, len(page.lines) - 1)].where))


def replace_row(c: ClaimRow, row: str) -> ClaimRow:
    return ClaimRow(c.step, row, c.values, c.where, c.group, c.key)


def _title(page: Page, a: int) -> str:
    for k in range(min(a, len(page.lines) - 1), -1, -1):
        ln = page.lines[k]
        if ln.role == "heading" and ln.text.strip():
            return re.sub(r"[#*`]", "", ln.text).strip()[:80] or "Worked example"
    return "Worked example"


def hand_walks(page: Page, out: list[ImportedExample]) -> list[ImportedExample]:
    """The examples of sections that walk one named query by hand, where no example places anything, and
    one query's weights listed one line a key (:mod:`.importer_attend_list`)."""
    used = _used_lines(out)
    found = []
    for a, b in _sections(page):
        if any(page.lines[n].where.line in used for n in range(a, b)):
            continue
        ex = _walk(page, a, b)
        if ex is not None:
            found.append(ex)
    return found + attend_lists(page, used)


def renumber(more: list[ImportedExample], out: list[ImportedExample]) -> list[ImportedExample]:
    """``out`` with ``more`` put in page order, every example numbered and titled among them all."""
    if not more:
        return out
    return number_examples(sorted(out + more, key=lambda e: e.first_index))
