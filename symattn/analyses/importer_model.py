"""The importer's records: notes, choices and claim rows, and the number helpers they are compared with
(a printed text read as an exact value, its last digit's size, closeness within that rounding)."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from ..read.pages.scan import entry_kind
from ..read.spec import Spec
from .importer_items import Item
from ..read.pages.latex_cells import is_number


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


@dataclass
class Given:
    """An input matrix as printed: each row's texts and where it is."""

    rows: list[list[str]]
    where: list[str]
    label: str = ""


@dataclass
class ImportedExample:
    """One worked example found on a page: what a draft example file holds."""

    title: str
    source: str
    format: str
    index: int
    count: int
    tokens: list[str] | None
    key_tokens: list[str] | None
    inputs: dict[str, Given]
    convention: dict[str, Choice]
    claims: list[ClaimRow]
    notes: list[Note]
    spec: Spec | None = None
    first_line: str = ""
    last_line: str = ""
    first_index: int = 0  # index of its first line in the page
    inputs_rounded: bool = False

    @property
    def assumptions(self) -> list[Note]:
        return [n for n in self.notes if n.kind == "assumed"]

    @property
    def unplaced(self) -> list[Note]:
        return [n for n in self.notes if n.kind == "unplaced"]

    @property
    def placed(self) -> int:
        """How many printed numbers were placed (claims, including restatements)."""
        return sum(1 for c in self.claims for v in c.values if v not in ("..",))

    def data(self) -> dict:
        """The example as Python data for :func:`symattn.read.spec.from_dict` (the same data
        the draft file holds)."""
        d: dict[str, Any] = {"title": self.title,
                             "description": f"Imported from {self.source} ({self.format}), worked example "
                                            f"{self.index} of {self.count}."}
        if self.tokens:
            d["tokens"] = list(self.tokens)
        if self.key_tokens:
            d["key_tokens"] = list(self.key_tokens)
        if self.inputs_rounded:
            d["inputs_rounded"] = True
        d["inputs"] = {k: [[toml_value(x) for x in r] for r in g.rows] for k, g in self.inputs.items()}
        d["convention"] = {k: c.value for k, c in self.convention.items()}
        claims: dict[str, Any] = {}
        also: dict[str, dict] = {}
        for c in self.claims:
            target = claims if c.group is None else also.setdefault(c.group, {"where": c.group})
            if c.step == "weighted":
                target.setdefault("weighted", {}).setdefault(c.row, {})[c.key] = [toml_value(v) for v in c.values]
            elif c.step.endswith("_sum"):
                target.setdefault(c.step, {})[c.row] = toml_value(c.values[0])
            else:
                target.setdefault(c.step, {})[c.row] = [toml_value(v) for v in c.values]
        if also:
            claims["also"] = list(also.values())
        if claims:
            d["claims"] = claims
            if not d["inputs"]:
                del d["inputs"]  # the page prints a step and none of its inputs: a file of claims only
        return d

    def notes_data(self) -> dict:
        return {"source": self.source, "format": self.format, "example": self.index, "examples": self.count,
                "lines": [self.first_line, self.last_line],
                "placed": self.placed, "unplaced": len(self.unplaced),
                "assumptions": [n.to_data() for n in self.assumptions],
                "notes": [n.to_data() for n in self.notes]}


@dataclass
class ImportNotes:
    """What :func:`import_page` found where, what it assumed, and what it could not place."""

    example: ImportedExample
    examples: int

    @property
    def assumptions(self) -> list[Note]:
        return self.example.assumptions

    @property
    def unplaced(self) -> list[Note]:
        return self.example.unplaced

    @property
    def notes(self) -> list[Note]:
        return self.example.notes

    def to_data(self) -> dict:
        return self.example.notes_data()

    def __str__(self) -> str:
        return "\n".join(str(n) for n in self.notes)


_EXAMPLE_SUFFIX_RE = re.compile(r"\s*\(example \d+ of \d+\)$")


def number_examples(exs: list[ImportedExample]) -> list[ImportedExample]:
    """The examples numbered among themselves, in place and returned: index and count set, and each title
    ending in " (example n of m)" when there are several (an earlier such ending replaced)."""
    for n, ex in enumerate(exs, 1):
        ex.index, ex.count = n, len(exs)
        ex.title = _EXAMPLE_SUFFIX_RE.sub("", ex.title) + (f" (example {n} of {len(exs)})" if len(exs) > 1 else "")
    return exs


def toml_value(text: str) -> Any:
    """A printed number as it goes into a draft: a Decimal (or int) when TOML writes it
    bare and reads it back with the same text, else the text itself.

    >>> toml_value("0.5152"), toml_value("2"), toml_value("6.3379e-02"), toml_value("1."), toml_value("..")
    (Decimal('0.5152'), 2, '6.3379e-02', '1.', '..')
    >>> toml_value("-∞")  # a masked entry written with the sign of infinity: the draft's spelling of it
    '-inf'
    """
    if text in ("-∞", "−∞", "+∞", "∞"):
        return "inf" if text[0] not in "-−" else "-inf"
    if re.fullmatch(r"-?(0|[1-9]\d{0,299})", text):
        return int(text)
    if re.fullmatch(r"-?(0|[1-9]\d*)\.\d+", text) and len(text) <= 300:
        return Decimal(text)
    return text


@dataclass
class _Segment:
    inputs: dict[str, Item] = field(default_factory=dict)
    items: list[Item] = field(default_factory=list)
    first: int = 0
    last: int = 0
    hidden: list[tuple[int, str, str]] = field(default_factory=list)  # weights made in code, not printed
    random: list[str] = field(default_factory=list)  # inputs made in code and printed (rounded)
    masked: bool = False  # the page has introduced a causal mask by this part
    keep_mask: list[list[bool]] | None = None  # a 0/1 mask passed to the call that works this part
    bias: Item | None = None  # an additive mask given (0 where kept, -1e9 or -inf where masked)
