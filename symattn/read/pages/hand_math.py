"""Hand-written vector arithmetic: what a study guide types in a fenced block without a language,
or in prose, the way it would write it on paper::

    q · k₁ = (1×1) + (0×1) + (1×0) + (0×0) = 1
    z = 0.5 × (2, 0, 1, 1) + 0.5 × (0, 1, 2, 1)
    z = (1, 0, 0.5, 0.5) + (0, 0.5, 1, 0.5)
    S = | 0.5  0.3 |
        | 0.2  0.4 |

A fence that names no language (a bare ```` ``` ````) and whose lines are such math, not a program
(no keyword, no library call, no braces or semicolons; at least one line with a sign of vectors worked
by hand: a tuple of numbers after '=', a matrix row between bars, a letter with one subscript digit
such as k₁ or α₂), is text: its lines are read as prose. In those lines, and in prose lines that name a
vector with a subscript (``k₁ = (1, 1, 0, 0), v₁ = (2, 0, 1, 1)``), a tuple of numbers after '=', '+',
'×' or '·' is written as the bracketed vector it is, and a Latin letter's subscript digits as an
index (``k₁`` → ``k_1``), so that the rows, sums and products are read as bracketed ones are. The
numbers keep their printed text; only delimiters change.

>>> from .model import Line, Where
>>> hand_vectors("z = 0.5 × (2, 0, 1, 1) + 0.5 × (0, 1, 2, 1)"), hand_vectors("- k₁ = (1, 1, 0, 0), v₁ = (2, 0, 1, 1)")
('z = 0.5 × [2, 0, 1, 1] + 0.5 × [0, 1, 2, 1]', '- k_1 = [1, 1, 0, 0], v_1 = [2, 0, 1, 1]')
>>> hand_vectors("plt.figure(figsize=(8, 6))"), hand_vectors("f(1, 2) = 3"), hand_vectors("shape = (2, 3)")
('plt.figure(figsize=(8, 6))', 'f(1, 2) = 3', 'shape = (2, 3)')
>>> hand_math_line("α₁ = e¹ / (e¹ + e¹) = 0.5"), hand_math_line("x = np.array([1, 2])"), hand_math_line("Gradient ≈ 0")
(True, False, False)
"""

from __future__ import annotations

import re

from .model import Line

__all__ = ["hand_math_fences", "hand_vectors", "hand_math_line"]

#: a longer line is not hand-written math (bounded work)
_MAX_LINE = 400
#: a fence with more lines than this is a listing, not a worked calculation
_MAX_FENCE_LINES = 80

_NUM = r"[+-]?(?:\d{1,40}(?:\.\d{1,40})?|\.\d{1,40})"
#: a tuple of 2 to 64 numbers, after '=', '≈', '+', '×', '·', '*' or ':' (not a call's arguments: f(1, 2))
_TUPLE_RE = re.compile(rf"(?P<pre>(?:=|≈|\+|×|·|\*|:)\s{{0,8}})\((?P<body>\s{{0,4}}{_NUM}(?:\s{{0,4}},\s{{0,4}}{_NUM}){{1,63}}\s{{0,4}})\)")
#: names of sizes and ranges: a tuple after them is a shape or an interval, not a vector
_SHAPE_NAME_RE = re.compile(r"(?:shape|size|dims?|range|interval|xlim|ylim|stride|padding|axis|axes|kernel)\w*\s*[=:]\s*$",
                            re.I)
_SUB = "₀₁₂₃₄₅₆₇₈₉"
_SUB_RE = re.compile(rf"(?<![\w\\])([A-Za-z])([{_SUB}]{{1,3}})(?![\w{_SUB}])")
#: a subscripted name given a tuple: 'k₁ = (', 'v_2 = ('
_NAMED_SUB_TUPLE_RE = re.compile(rf"(?<![\w\\])[A-Za-z](?:[{_SUB}]{{1,3}}|_\d{{1,3}})\s{{0,4}}=\s{{0,4}}\(\s{{0,4}}{_NUM}\s{{0,4}},")
#: a program, not math: keywords, library calls, braces, semicolons, comparisons, augmented assignment
_PROGRAM_RE = re.compile(r"^\s*(?:import|from|def|class|return|for|while|if|elif|else|print|with|try|except|let|const|var|fn|"
                         r"pub|function|#include|>>>|\$\s|#|//|@)\b|\b(?:np|numpy|torch|tf|jnp|math|self|F|nn)\.|"
                         r"[;{}]\s*$|==|\+=|-=|\blambda\b|\w\(\s*\)|print\(|=>|->|:\s*$")
#: signs of vectors worked by hand: a tuple of numbers after '=', a matrix row between bars, a letter with one
#: subscript digit (k₁, α₂: a vector or one weight; Q₂₁ with two names an entry of a matrix worked in code)
_MATH_SIGN_RE = re.compile(rf"=\s*\(\s*{_NUM}\s*,|^\s*(?:[A-Za-z][\w']{{0,8}}\s*=\s*)?\|\s*-?(?:{_NUM}|∞)\s|"
                           rf"(?<![\w\\])[A-Za-zα-ω][{_SUB}](?![{_SUB}])")
_FENCE_RE = re.compile(r"\s{0,3}(```+|~~~+)\s*")


def hand_math_line(text: str) -> bool:
    """Whether a line reads as math written by hand (a sign of it, no sign of a program)."""
    return len(text) <= _MAX_LINE and not _PROGRAM_RE.search(text) and bool(_MATH_SIGN_RE.search(text))


def hand_vectors(text: str) -> str:
    """The line with each tuple of numbers that stands for a vector written in brackets, and each Latin
    letter's subscript digits written as an index (only when a tuple was rewritten)."""
    if len(text) > _MAX_LINE or "(" not in text:
        return text

    def one(m: re.Match) -> str:
        if _SHAPE_NAME_RE.search(text[:m.start()] + m.group("pre")):
            return m.group(0)
        head = text[:m.start()]
        if head.count("(") > head.count(")"):
            return m.group(0)  # inside a call: an argument (figsize=(8, 6))
        return m.group("pre") + "[" + m.group("body") + "]"

    new = _TUPLE_RE.sub(one, text)
    if new == text:
        return text
    return subscripts(new)


def subscripts(text: str) -> str:
    """A Latin letter's subscript digits as an index: 'k₁' → 'k_1', 'v₁₂' → 'v_12'."""
    return _SUB_RE.sub(lambda m: m.group(1) + "_" + m.group(2).translate(str.maketrans(_SUB, "0123456789")), text)


def _fence_of(raw: list[str], ln: Line) -> tuple[str, bool] | None:
    """(fence, bare) for a blank code line whose source line is a fence (bare: it names no language)."""
    if ln.role != "code" or ln.text or ln.where.cell is not None or not 1 <= ln.where.line <= len(raw):
        return None
    m = _FENCE_RE.match(raw[ln.where.line - 1])
    return (m.group(1), not raw[ln.where.line - 1][m.end():].strip()) if m else None


def hand_math_fences(lines: list[Line], source: str) -> list[Line]:
    """The lines of a Markdown page, with each fence without a language that holds hand-written math
    (see the module's docstring) read as prose, and the vectors of its lines (and of prose lines that
    give subscripted names tuples) written in brackets."""
    raw = source.split("\n")
    out = list(lines)
    opened: tuple[int, str, bool] | None = None  # (index, fence, bare) of the fence open
    for k, ln in enumerate(out):
        f = _fence_of(raw, ln)
        if f is not None and opened is None:
            opened = (k, f[0], f[1])
            continue
        if f is not None and opened is not None and f[0].startswith(opened[1]) and f[1]:
            i, _, bare = opened
            opened = None
            body = [x for x in out[i + 1:k] if x.text.strip()]
            if bare and body and k - i <= _MAX_FENCE_LINES and all(x.role == "code" for x in out[i + 1:k]) and \
                    not any(_PROGRAM_RE.search(x.text) or len(x.text) > _MAX_LINE for x in body) and \
                    any(_MATH_SIGN_RE.search(x.text) for x in body):
                for j in range(i + 1, k):
                    x = out[j]
                    out[j] = Line(subscripts(hand_vectors(x.text)), x.where, "prose", x.level)
            continue
        if opened is not None and ln.role != "code":
            opened = None  # not a fence after all (lines of another kind inside)
        if opened is None and ln.role == "prose" and "(" in ln.text and _NAMED_SUB_TUPLE_RE.search(ln.text):
            out[k] = Line(hand_vectors(ln.text), ln.where, ln.role, ln.level)
    return out
