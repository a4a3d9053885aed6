"""The neutral structure a page is read into, whatever its format.

A :class:`Page` is its text lines (each with its provenance and role) and the blocks
found in them, in page order: bracketed matrices and printouts (:class:`Numbers`),
tables (:class:`Table`) and lists of quoted words (:class:`Words`). Every entry keeps
its text exactly as printed; nothing is converted here.

>>> w = Where(12)
>>> str(w), str(Where(3, cell=5)), str(Where(1, cell=5, output=True))
('line 12', 'cell 5, line 3', 'cell 5 output, line 1')
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["Where", "Line", "Numbers", "Table", "Words", "Page", "ROLES", "FORMS"]

#: what a line of a page is
ROLES = {
    "prose": "running text (Markdown, HTML, LaTeX text, plain text)",
    "heading": "a heading or title",
    "code": "source code (a notebook's code cell, a fenced block, <pre>): read as text, never run",
    "output": "what a notebook printed (stream, execute_result, display_data)",
    "math": "display math ($$ … $$, \\[ … \\], math environments, MathJax and KaTeX sources)",
    "table": "a table row (pipe tables, HTML tables)",
    "comment": "a comment line in code (# …), read like text while finding numbers",
}
#: how a block of numbers was written
FORMS = {
    "list": "brackets with commas: [0.2, 0.5], [[…], […]]",
    "numpy": "a NumPy printout: array([[…]]) or [[0.33 0.89] [0.84 0.44]] without commas",
    "torch": "a PyTorch printout: tensor([[…]]), possibly with grad_fn=…",
    "latex": "a LaTeX matrix: bmatrix, pmatrix, matrix, vmatrix, array",
    "rows": "rows of numbers separated by tabs or spaces, one row per line",
    "scalar": "one printed number: tensor(0.9544)",
}


@dataclass(frozen=True)
class Where:
    """Where something is on a page: a 1-based line, and for notebooks the 1-based cell
    (the line is then counted within the cell's source or its outputs)."""

    line: int
    cell: int | None = None
    output: bool = False

    def __str__(self) -> str:
        if self.cell is None:
            return f"line {self.line}"
        return f"cell {self.cell}{' output' if self.output else ''}, line {self.line}"


@dataclass
class Line:
    """One line of a page's text, with its provenance and role."""

    text: str
    where: Where
    role: str = "prose"
    level: int = 0  # a heading's level where the page writes one (Markdown's number of #), else 0


@dataclass
class Numbers:
    """A matrix, vector or single number as printed.

    ``rows`` holds each entry's text exactly as printed ("0.5152", "6.3379e-02", "1.",
    "..", "-inf", or an expression such as "0.3012 * 0.66"). ``depth`` is 1 for a flat
    vector ``[a, b]`` (one row), 2 for a matrix, 0 for a single number.
    ``start``/``end`` are indices into :attr:`Page.lines`; ``before`` and ``after`` are
    the text on the same line before and after it; ``row_notes`` are comments after each
    row (``# The``, ``← walk``); ``suffix`` is what a printout adds (``grad_fn=<…>``).
    """

    rows: list[list[str]]
    where: list[Where]
    form: str
    start: int
    end: int
    depth: int = 2
    before: str = ""
    after: str = ""
    row_notes: list[str] = field(default_factory=list)
    suffix: str = ""
    role: str = "prose"
    alone: bool = False  # nothing else on its line(s)

    @property
    def shape(self) -> tuple[int, int]:
        return len(self.rows), (len(self.rows[0]) if self.rows else 0)


@dataclass
class Table:
    """A table: an optional header row and rows of cells, each cell's text as printed."""

    header: list[str] | None
    rows: list[list[str]]
    where: list[Where]  # one per row
    start: int
    end: int
    role: str = "table"


@dataclass
class Words:
    """A list of quoted words, such as ``['I', 'am', 'Batman']`` (token lists)."""

    words: list[str]
    where: Where
    start: int
    end: int
    before: str = ""
    role: str = "prose"


Block = Numbers | Table | Words


@dataclass
class Page:
    """A page read into lines and blocks. ``format`` is the format it was read as."""

    format: str
    lines: list[Line]
    blocks: list[Block] = field(default_factory=list)
    source: str = "<page>"
