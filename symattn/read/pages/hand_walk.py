"""One query walked through attention by hand, read from the text of a page's lines.

Pages that work a single query often name every vector and every number instead of printing
matrices: ``q_i = [0.3, 1.2, 2.2]``, ``k_1 = [0.4, 1.4, 0],\\ v_1 = [2.3, 1.1, 3.5]``, a table with
a row per token and a column for the query, the key and the value, named dot products
``q_i^T k_1 = 0.3(0.4) + … = 1.80``, keyed numbers ``e_{C,A} = … = 1``, ``\\tilde{e}_{C,A} = 0.71``,
``\\alpha_{C,B} \\approx 0.25``, an output ``out_C = … = (0.25, 0.25, 0.50)``, and a step's row printed
alone on its line under a step's words (``Step 2 — scale …:`` then ``(1.04, -0.73, 5.97)``).

This module only reads: each function returns the texts as printed (numbers are never converted or
evaluated here); placing them is :mod:`symattn.analyses.importer_hand_walk`'s work. Every pattern is
anchored and linear (no nested repetition), and lines longer than :data:`MAX_LINE` are not read.

>>> norm(r"$\\mathbf{q}_i^\\top \\mathbf{k}_1 = 1.80$")
'$q_i^T k_1 = 1.80$'
>>> vectors_in(norm(r"$\\mathbf{k}_2 = [0.2, -1.1, 0],\\ \\mathbf{v}_2 = [3.0, 1.0, 0.5]$"))
[('k', '2', ['0.2', '-1.1', '0']), ('v', '2', ['3.0', '1.0', '0.5'])]
>>> dot_results(norm(r"$\\mathbf{q}^\\top \\mathbf{k}_1 = 1$, $\\mathbf{q}^\\top \\mathbf{k}_2 = 0$"))
[('', '1', '1'), ('', '2', '0')]
>>> keyed_results(norm(r"\\alpha_{C,B} \\approx 0.25, \\quad \\alpha_{C,C} \\approx 0.50"))
[('weights', 'C', 'B', '0.25'), ('weights', 'C', 'C', '0.50')]
"""

from __future__ import annotations

import re

#: lines longer than this are not read as a hand walk (a pasted blob, not a worked line)
MAX_LINE = 2000

NUM = r"[-+]?\d+(?:\.\d+)?"
_NUM_RE = re.compile(NUM + r"\Z")
_SUB = r"(?:_\{?([A-Za-z0-9]{1,12})\}?)?"

_MACROS = [
    (re.compile(r"\\(?:mathbf|boldsymbol|vec|bm|mathit|mathrm|operatorname)\s*\{([^{}]{0,40})\}"), r"\1"),
    (re.compile(r"\\text\s*\{\s*(out|output)\s*\}"), r"out"),
    (re.compile(r"\\(?:tilde|hat)\s*\{\s*([A-Za-z])\s*\}"), r"~\1"),
    (re.compile(r"\^\s*\{?\s*(?:\\top|\\intercal|\\mathsf\{T\}|T|\\mathrm\{T\}|⊤|ᵀ)\s*\}?\s*"), "^T "),
    (re.compile(r"\\alpha(?![A-Za-z])"), "α"),
    (re.compile(r"\\approx(?![A-Za-z])"), "≈"),
    (re.compile(r"\\(?:cdot|times)(?![A-Za-z])"), "·"),
    (re.compile(r"\\(?:qquad|quad)(?![A-Za-z])|\\[,;:! ]"), " "),
    (re.compile(r"\\(?:left|right|big|Big|bigg)(?![A-Za-z])"), ""),
    (re.compile(r"−"), "-"),
]


def norm(text: str) -> str:
    """A line's text with the LaTeX that names vectors taken off (``\\mathbf{q}_i^\\top`` is ``q_i^T``)."""
    if len(text) > MAX_LINE:
        return ""
    for pat, rep in _MACROS:
        text = pat.sub(rep, text)
    return re.sub(r"[ \t]+", " ", text)


def numbers_of(body: str) -> list[str] | None:
    """The numbers of a bracket's inside (``0.3, 1.2, 2.2``), or None when any entry is not a number."""
    parts = [p.strip() for p in body.split(",")]
    if len(parts) < 2 or not all(_NUM_RE.match(p) for p in parts):
        return None
    return parts


_VEC = re.compile(r"(?<![\w^~])([qkv])" + _SUB + r"\s*=\s*([\[(])([^\[\]()]{1,400})[\])](?!\s*[(\[\d·*])")


def vectors_in(text: str) -> list[tuple[str, str, list[str]]]:
    """``(letter, subscript, numbers)`` of each ``q_i = [..]`` / ``k_A = (..)`` written on a (normalized)
    line; a name read as a factor of a product (``q^T k_A = (1)(1) + …``) is not a definition."""
    out = []
    for m in _VEC.finditer(text):
        before = text[:m.start()].rstrip()
        if before.endswith("^T") or before.endswith("·"):
            continue
        vals = numbers_of(m.group(4))
        if vals is not None:
            out.append((m.group(1), m.group(2) or "", vals))
    return out


_DOT = re.compile(r"(?<![\w~])q" + _SUB + r"\s*(?:\^T\s*|·\s*)k" + _SUB + r"(?![\w^])")
_ENDS = re.compile(r"(?:=|≈)\s*(" + NUM + r")\s*[,.;]?\s*\Z")


def _results(text: str, pat: re.Pattern) -> list[tuple[re.Match, str]]:
    """Each match of ``pat`` with the number its statement ends on (``… = 1.80``): the statement runs to
    the next match, a ``$`` or the line's end."""
    ms = list(pat.finditer(text))
    out = []
    for n, m in enumerate(ms):
        stop = ms[n + 1].start() if n + 1 < len(ms) else len(text)
        seg = text[m.end():stop]
        cut = seg.find("$")
        if cut >= 0:
            seg = seg[:cut]
        seg = seg.rstrip(" ,")
        e = _ENDS.search(seg)
        if e:
            out.append((m, e.group(1)))
    return out


def dot_results(text: str) -> list[tuple[str, str, str]]:
    """``(query subscript, key subscript, result)`` of each named dot product ``q^T k_j = … = r``."""
    return [(m.group(1) or "", m.group(2) or "", v) for m, v in _results(text, _DOT)]


#: a keyed name's letter and the step it names
_KEYED_STEP = {"e": "scores", "s": "scores", "~e": "scaled", "~s": "scaled", "α": "weights", "a": "weights"}
_KEYED = re.compile(r"(?<![\w~])(~?[es]|α|a)_\{\s*([A-Za-z0-9]{1,12})\s*,\s*([A-Za-z0-9]{1,12})\s*\}")


def keyed_results(text: str) -> list[tuple[str, str, str, str]]:
    """``(step, query, key, result)`` of each keyed number ``e_{C,A} = … = 1``, ``\\tilde{e}_{C,A} = 0.71``,
    ``\\alpha_{C,B} \\approx 0.25`` (the name must be followed at once by ``=`` or ``≈``)."""
    out = []
    for m, v in _results(text, _KEYED):
        if re.match(r"\s*(?:=|≈)", text[m.end():]):
            out.append((_KEYED_STEP[m.group(1)], m.group(2), m.group(3), v))
    return out


_OUT = re.compile(r"(?<![\w~])(?:out|z|o|y)" + _SUB + r"\s*(?:=|≈)")
_TAIL = re.compile(r"(?:=|≈)\s*[\[(]([^\[\]()]{1,400})[\])]\s*[,.;]?\s*\Z")


def output_result(text: str) -> tuple[str, list[str]] | None:
    """``(subscript, numbers)`` of an output written ``out_C = … = (0.25, 0.25, 0.50)``: the vector its
    statement ends on, after ``=`` or ``≈``."""
    m = _OUT.search(text)
    if not m:
        return None
    seg = text[m.end() - 1:]
    cut = seg.find("$")
    seg = seg[:cut] if cut >= 0 else seg
    t = _TAIL.search(seg.rstrip())
    if not t or t.start() == 0:
        return None
    vals = numbers_of(t.group(1))
    return (m.group(1) or "", vals) if vals is not None else None


_LONE = re.compile(r"\A[$\s]*(?:(?:=|≈)\s*)?[\[(]([^\[\]()]{1,400})[\])][$\s]*[,.;]?[$\s]*\Z")


def lone_vector(text: str) -> list[str] | None:
    """The numbers of a line that is one bracketed row and nothing else (``$(1.04, -0.73, 5.97)$.``,
    ``$\\approx [-2.16, 4.08, 2.51]$.``)."""
    m = _LONE.match(text)
    return numbers_of(m.group(1)) if m else None


#: words of a step's heading line, in the order they are tried
STEP_WORDS = [("output", re.compile(r"weighted sum|sum of (?:the )?values|\boutput\b", re.I)),
              ("weights", re.compile(r"softmax", re.I)),
              ("scaled", re.compile(r"\bscal(?:e|ed|ing)\b|\\sqrt|√|divide", re.I)),
              ("scores", re.compile(r"dot[- ]product|similarit|raw score", re.I))]


def step_words(text: str) -> str | None:
    """The step a line's words announce (``Step 3 — softmax``: weights), or None."""
    for step, pat in STEP_WORDS:
        if pat.search(text):
            return step
    return None


_CELL_VEC = re.compile(r"\A[$\s]*[\[(]([^\[\]()]{1,400})[\])][$\s]*\Z")
_ROLE_HEAD = [("q", re.compile(r"\bquer(?:y|ies)\b|\bq\b", re.I)), ("k", re.compile(r"\bkeys?\b|\bk\b", re.I)),
              ("v", re.compile(r"\bvalues?\b|\bv\b", re.I))]


def table_row_cells(text: str) -> list[str] | None:
    """The cells of a pipe-table line (``| A | — | $(1, 0)$ |``), or None."""
    t = text.strip()
    if not (t.startswith("|") and t.endswith("|")) or t.count("|") > 40:
        return None
    return [c.strip() for c in t[1:-1].split("|")]


def role_columns(header: list[str]) -> dict[int, str]:
    """Which columns of a table's header name the query, the key and the value (``Query $\\mathbf{q}$``)."""
    out: dict[int, str] = {}
    for j, cell in enumerate(header):
        c = norm(cell)
        hits = [r for r, pat in _ROLE_HEAD if pat.search(c)]
        if len(hits) == 1 and hits[0] not in out.values():
            out[j] = hits[0]
    return out


def cell_vector(cell: str) -> list[str] | None:
    """A table cell that is one bracketed vector (``$(1, 0)$``), as printed."""
    m = _CELL_VEC.match(cell)
    return numbers_of(m.group(1)) if m else None
