"""What a printed row, caption or table says of itself: a row named by index ('Attentions for output 0'),
a head number in a caption, a grid's step from its title, a table whose rows are distributions, two printings of
one number within their roundings; and listing a claims-only page's other blocks."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from ..read.pages.scan import entry_kind
from .importer_items import Item
from .importer_names import step_of_ident, step_of_text
from .importer_model import Note, _num, _numeric, _ulp


WEIGHT_NAMES = ("Wq", "Wk", "Wv")


#: 'score[3,0] = Q[3] · K[0]  →  0.52', 'weight[3,2] = 0.42  ← most relevant': one entry of a step by its indexes
_ENTRY_LINE = re.compile(r"\s*([A-Za-z_][\w ]{0,30}?)\s*\[\s*(\d{1,3})\s*,\s*(\d{1,3})\s*\]\s*(?:=|:)"
                         r"(?:[^=→]*(?:=|→|->|≈))?\s*([+-]?(?:\d+\.\d*|\.\d+|\d+))\s*(?:(?:←|<-|#|\().*)?$")


def _prime_outputs(lines: list) -> set[str]:
    """Letters whose primed form the page's prose calls the outputs ('produces $N$ outputs $\\mathbf{x}'_{n}$')."""
    out: set[str] = set()
    for ln in lines:
        if ln.role in ("prose", "heading", "math"):
            for m in re.finditer(r"outputs?\s*\$?\s*(?:\\mathbf\{|\\boldsymbol\{)?([A-Za-z])\}?\s*(?:'|\\prime|’)",
                                 ln.text):
                out.add(m.group(1))
    return out


#: '<step> for output 0', 'Attention weights for query 2': a step's row by the query's index
_FOR_INDEX = re.compile(r"\s*(?P<name>[A-Za-z][\w ]{0,40}?)\s+for\s+(?:output|query|token|position|word|row)\s*#?\s*"
                        r"(?P<i>\d{1,3})\s*:?\s*$", re.I)


#: 'x_prime_0_calculated', 'weights_2': a name, the query's index, a qualifier of the printing
_NAME_INDEX = re.compile(r"\s*(?P<name>[A-Za-z][A-Za-z_]*?)_(?P<i>\d{1,3})"
                         r"(?:_(?:calculated|computed|true|expected|actual|ref|reference|ours))?\s*:?\s*$")


def _indexed_row_name(label: str, primes: set[str]) -> tuple[str, int] | None:
    """(step, index from 0) a printed row's name gives: 'Attentions for output  0' (attentions are the attention
    weights), 'x_prime_1_true' when the page calls x′ its outputs."""
    m = _FOR_INDEX.fullmatch(label or "")
    if m:
        name = m.group("name").strip()
        st = "weights" if name.lower() in ("attentions", "attention weights", "attention probabilities") \
            else step_of_text(name)
        return (st, int(m.group("i"))) if st in ("scores", "scaled", "weights", "output") else None
    m = _NAME_INDEX.fullmatch(label or "")
    if m:
        name = m.group("name")
        pm = re.fullmatch(r"([A-Za-z])_?prime", name)
        st = "output" if pm and pm.group(1) in primes else step_of_ident(name)
        return (st, int(m.group("i"))) if st in ("scores", "scaled", "weights", "output") else None
    return None


def _one_line_scalar_lists(items: list[Item], lines: list) -> list[Item]:
    """A NumPy list of 1×1 arrays printed on one line ('[array([[0.2]]), array([[0.5]]), array([[0.3]])]') is one
    vector; the other items as they are."""
    out: list[Item] = []
    by_line: dict[int, list[Item]] = {}
    for it in items:
        by_line.setdefault(it.line, []).append(it)
    done: set[int] = set()
    for it in items:
        if it.line in done:
            continue
        group = by_line[it.line]
        text = lines[it.line].text if it.line < len(lines) else ""
        if len(group) >= 2 and all(g.shape == (1, 1) and g.end == it.line for g in group) and re.fullmatch(
                r"\s*\[\s*array\(\[\[[^\]]*\]\]\)(?:\s*,\s*array\(\[\[[^\]]*\]\]\))+\s*\]\s*", text):
            done.add(it.line)
            out.append(replace(it, rows=[[g.rows[0][0] for g in group]], kind="vector"))
            continue
        if len(group) >= 2 and all(g.shape == (1, 1) for g in group):
            done.add(it.line)
            out.extend(group)
            continue
        out.append(it)
    return out


def _listed(items: list[Item], why: str) -> list[Note]:
    """The numbers of a claims-only page's other blocks, listed as not placed with the reason."""
    out: list[Note] = []
    for it in items:
        if _numeric(it.rows):
            shown = ", ".join(", ".join(r) for r in it.rows[:2])
            out.append(Note("unplaced", f"[{shown[:77] + '…' if len(shown) > 80 else shown}] "
                                        f"({it.shape[0]}×{it.shape[1]}): {why}", it.at()))
    return out


def _printed_head(label: str | None) -> int | None:
    """The head number a printed caption gives, from 0 ('HEAD 0: Attention Weights')."""
    m = re.match(r"\s*head\s*[_#-]?\s*(\d{1,2})\s*[:.)-]", label or "", re.I)
    return int(m.group(1)) if m else None


def _numeric_or_inf(rows: list[list[str]]) -> bool:
    return all(entry_kind(x) in ("number", "inf") for r in rows for x in r)


# a table row written after its label, one a line: 'Query0 [2.0, 0.0, 1.0]', 'Pos0 [[0.500, …', '"cat"  [0.4, …'
_GRID_LABEL = re.compile(r"\s*([\"“]?[A-Za-z][\w<>]{0,15}[\"”]?)\s+\[\[?\s*[-+.\d]")


def _grid_step(lines: list, k: int) -> str | None:
    """The step a labelled table prints, from the lines just above its first row (its title, a
    column header, a bold caption): scaled, softmax or attention weights, or scores."""
    for j in range(k - 1, max(-1, k - 5), -1):
        t = lines[j].text.lower()
        if re.search(r"\bscaled\b", t):
            return "scaled"
        if re.search(r"softmax|\bweights\b|attention matrix", t):
            return "weights"
        if re.search(r"\bscores?\b", t):
            return "scores"
        if lines[j].role == "heading":
            return None
    return None


# 'Position 0 ("The"):' / '"cat":' — the query a list of weights is for; '  Attends to "cat": 0.2 (…)' — one key's weight
_ATTENDS_HEAD = re.compile(r"\s*(?:(?:position|token|word|query)\s*\d{0,3}\s*\(\s*)?[\"“']([\w<>]+)[\"”']\s*\)?\s*:\s*$", re.I)


_ATTENDS_ROW = re.compile(r"\s*(?:attends?|looks?|pays?\s+attention)\s+(?:to|at)\s+[\"“']([\w<>]+)[\"”']\s*[:=]\s*"
                          r"(\d*\.\d+|[01])\b(?!\.\d)(?:\s*(?:\(.*\)|[-–—←#].*)?)?\s*$", re.I)


def _rows_sum_to_one(rows: list[list[str]]) -> str | None:
    """'weights' for a table under no step word whose every row is a distribution (entries in
    [0, 1], each row summing to 1 to its printed rounding): an attention matrix."""
    from fractions import Fraction
    try:
        vals = [[Fraction(x) for x in r] for r in rows]
    except (ValueError, ZeroDivisionError):
        return None
    def ulp(x: str) -> Fraction:
        return Fraction(1, 10 ** len(x.split(".")[1])) if "." in x else Fraction(0)

    ok = all(0 <= v <= 1 for r in vals for v in r) and all(
        abs(sum(v) - 1) <= sum(ulp(x) for x in r) / 2 for r, v in zip(rows, vals))
    return "weights" if ok and any("." in x for r in rows for x in r) else None


#: the steps a page may print alone, without the inputs that make them
_PRINTED_ONLY_STEPS = ("scores", "scaled", "masked", "weights")


def _within_rounding(a: str, b: str) -> bool:
    """Two printings of one number, each rounded to its own digits (0.827 and 0.83)."""
    x, y = _num(a), _num(b)
    return x is not None and y is not None and abs(x - y) <= (_ulp(a) + _ulp(b)) / 2 * 1.0001


def _show(v: Any) -> str:
    return f'"{v}"' if isinstance(v, str) else str(v)
