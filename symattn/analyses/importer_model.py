"""The importer's records: notes, choices and claim rows, and the number helpers they are compared with
(a printed text read as an exact value, its last digit's size, closeness within that rounding)."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from ..read.pages.latex_cells import is_number
from ..read.pages.scan import entry_kind


CLAIM_ORDER = ("Q", "K", "V", "scores", "scaled", "masked", "weights", "weights_sum", "weighted", "output")


@dataclass
class Note:
    """One thing the importer found, assumed or could not place, and where."""

    kind: str  # found, stated, assumed, unplaced, repeat, echo, info
    text: str
    where: str = ""

    def __str__(self) -> str:
        return f"{self.where}: {self.text}" if self.where else self.text

    def to_data(self) -> dict:
        return {"kind": self.kind, "where": self.where, "text": self.text}


@dataclass
class Choice:
    """A convention of the draft, why, and whether the page said it or it was assumed."""

    value: Any
    reason: str
    assumed: bool = False
    where: str = ""


@dataclass
class ClaimRow:
    """One printed row of a step (or a row sum), as printed."""

    step: str  # Q, K, V, scores, scaled, masked, weights, weights_sum, weighted, output
    row: str  # the row's token
    values: list[str]  # the printed texts ("..": not printed); one value for a sum
    where: str
    group: str | None = None  # None: the first printing; else where it is printed again
    key: str | None = None  # weighted: the key token


def _num(text: str) -> float | None:
    t = text.strip()
    if is_number(t):
        try:
            return float(t)
        except (OverflowError, ValueError):  # pragma: no cover - is_number guards
            return None
    m = re.fullmatch(r"([+-]?\d+)/(\d+)", t)
    if m and int(m.group(2)):
        return int(m.group(1)) / int(m.group(2))
    if t.lower() in ("-inf", "-∞"):
        return -math.inf
    return None


def _ulp(text: str) -> float:
    t = text.strip()
    if not is_number(t):
        return 0.0
    try:
        e = Decimal(t).as_tuple().exponent
    except ArithmeticError:  # pragma: no cover
        return 0.0
    return 10.0 ** e if isinstance(e, int) else 0.0


def _close(text: str, value: float) -> bool:
    """Whether a printed number is the value up to its printed precision or 1%."""
    p = _num(text)
    if p is None or value is None:
        return False
    if math.isinf(p) or math.isinf(value):
        return p == value
    return abs(p - value) <= max(_ulp(text) * 0.51, 0.01 * abs(value), 1e-12)


def _same_values(a: list[list[str]], b: list[list[str]]) -> bool:
    """The same numbers, however they are printed ("1." and "1.0")."""
    return len(a) == len(b) and all(len(x) == len(y) and all(_num(u) is not None and _num(u) == _num(v)
                                                              for u, v in zip(x, y)) for x, y in zip(a, b))


def _eq(u: str, v: str) -> bool:
    if u == v:
        return True
    a, b = _num(u), _num(v)
    return a is not None and b is not None and a == b and (_ulp(u) == _ulp(v) or not is_number(u) or not is_number(v))


def _numeric(rows: list[list[str]]) -> bool:
    return any(entry_kind(x) == "number" for r in rows for x in r)


def _rows_float(rows: list[list[str]]) -> list[list[float]] | None:
    out = []
    for r in rows:
        vals = [_num(x) for x in r]
        if any(v is None for v in vals):
            return None
        out.append(vals)
    return out  # type: ignore[return-value]


def _index(token: str | None, labels: list[str] | None) -> int | None:
    if token is None or not labels:
        return None
    hits = [i for i, t in enumerate(labels) if t == token]
    if not hits:
        hits = [i for i, t in enumerate(labels) if t.lower() == token.lower()]
    return hits[0] if len(hits) == 1 else None


def _floats(dec: Any) -> Any:
    if isinstance(dec, list):
        return [_floats(x) for x in dec]
    if dec in ("-inf", "-oo"):
        return -math.inf
    try:
        return float(dec)
    except (TypeError, ValueError):
        return math.nan
