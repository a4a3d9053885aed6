"""Finding the blocks of a page in its lines: bracketed matrices and vectors, NumPy and
PyTorch printouts, LaTeX matrices, pipe tables, rows of numbers and lists of words.

Every entry keeps its printed text. Work is linear in the page (each bracket group is
bounded by :data:`MAX_GROUP_CHARS` characters and a nesting depth of 3) and a page
that needs more than :data:`symattn.limits.MAX_PAGE_SCAN` steps is refused.

>>> from .model import Line, Where
>>> def lines(*t, role="prose"):
...     return [Line(x, Where(i + 1), role) for i, x in enumerate(t)]
>>> [b.rows for b in scan(lines("Q = [[0.59, 0.78], [1, 2]]"))]
[[['0.59', '0.78'], ['1', '2']]]
>>> b = scan(lines("tensor([[6.3379e-02, 1.2e-01]], grad_fn=<SoftmaxBackward0>)", role="output"))[0]
>>> b.form, b.rows, b.suffix
('torch', [['6.3379e-02', '1.2e-01']], 'grad_fn=<SoftmaxBackward0>')
>>> b = scan(lines("[[0.33 0.89]", " [0.84 0.44]]", role="output"))[0]
>>> b.form, b.rows, [str(w) for w in b.where]
('numpy', [['0.33', '0.89'], ['0.84', '0.44']], ['line 1', 'line 2'])
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_right

from ...errors import LimitError
from ...limits import MAX_PAGE_BLOCKS, MAX_PAGE_SCAN
from .latex_cells import body_comments, cell, find_environment, is_number, split_body
from .model import Line, Numbers, Page, Table, Where, Words
from .shape_comments import shape_comment
from .printout_forms import rows_then_elision, trailing_elision, unquoted_numbers

__all__ = ["scan", "entry_kind", "MAX_GROUP_CHARS", "PLACEHOLDERS"]

#: characters one bracket group may span
MAX_GROUP_CHARS = 200_000
#: nesting depth of a bracket group ([[[…]]] is 3: a batch of matrices or heads; [[[[…]]]] is 4, read
#: when its outer dimension is 1: a batch of one, with heads)
MAX_GROUP_DEPTH = 4
#: texts that stand for a number the page does not print
PLACEHOLDERS = {"..", "...", "…", "?", "⋯", "⋮", "⋱"}
_INF = {"-inf", "inf", "+inf", "-∞", "∞", "nan", "-nan"}
_EXPR_RE = re.compile(r"[\d.\s+\-*/×·^()eE]+")
_PERCENT_RE = re.compile(r"[+-]?(?:\d{1,3}(?:\.\d{1,20})?|\.\d{1,20})\s?%")
_TRUNCATED_RE = re.compile(r"[+-]?(?:\d{1,300}\.\d{1,300}|\d{1,300})(?:…|\.\.\.|⋯)")
_FRACTION_RE = re.compile(r"[+-]?\d{1,300}/\d{1,300}")  # an exact claim, \frac{1}{3} → 1/3


class _Budget:
    def __init__(self) -> None:
        self.left = MAX_PAGE_SCAN
        self._closes_of: str | None = None
        self._closes: array | None = None  # per "[" of that text: the offset after its "]", else 0

    def spend(self, n: int) -> None:
        self.left -= n
        if self.left < 0:
            raise LimitError(f"the page needs more than {MAX_PAGE_SCAN} steps to read (see the README's limits)")

    def skip_to_close(self, text: str, i: int, end: int) -> int:
        """The offset after the bracket closing the one at ``text[i]`` (counting only brackets) when it
        closes before ``end``, else ``i + 1``. The brackets of ``text`` are matched once, in one pass
        charged to the budget, so that a run of unclosed brackets costs linear time, not a scan to
        ``end`` from each of them.

        >>> b = _Budget()
        >>> b.skip_to_close("[[[1]]] [", 0, 9), b.skip_to_close("[[[1]]] [", 8, 9), b.skip_to_close("[[1]]", 0, 3)
        (7, 9, 1)
        """
        if self._closes_of is not text:
            self.spend(len(text))
            closes = array("q", bytes(8 * len(text)))  # 0: no closing bracket
            stack: list[int] = []
            for m in re.finditer(r"[\[\]]", text):
                if m.group() == "[":
                    stack.append(m.start())
                elif stack:
                    closes[stack.pop()] = m.start() + 1
            self._closes_of, self._closes = text, closes
        c = self._closes[i] if self._closes is not None else 0
        return c if 0 < c <= end else i + 1


def entry_kind(text: str) -> str:
    """``number``, ``placeholder``, ``inf``, ``expr`` (such as ``0.3012 * 0.66``), ``truncated``
    (digits cut off and marked: ``0.7310…``, ``0.7310...``), ``percent`` (``73%``) or ``other``.

    >>> [entry_kind(t) for t in ("0.5", "1/3", "..", "-inf", "0.3012 * 0.66", "0.7310…", "73%", "x_1")]
    ['number', 'number', 'placeholder', 'inf', 'expr', 'truncated', 'percent', 'other']
    """
    if is_number(text) or _FRACTION_RE.fullmatch(text):
        return "number"
    if text in PLACEHOLDERS:
        return "placeholder"
    if _TRUNCATED_RE.fullmatch(text):
        return "truncated"
    if _PERCENT_RE.fullmatch(text):
        return "percent"
    if text.lower() in _INF:
        return "inf"
    if _EXPR_RE.fullmatch(text) and re.search(r"\d", text) and re.search(r"\d\s*[+\-*/×·^]", text):
        return "expr"
    return "other"


_MATH_SPACE_RE = re.compile(r"(?<!\\)\\[;,:!](?![A-Za-z])|(?<=,)\\ ")
_BOLD_NUMBER_RE = re.compile(r"\\(?:mathbf|boldsymbol|bm|textbf|mathbb)\{([+-]?\d{1,300}(?:\.\d{1,300})?)\}")


def _normalise(text: str) -> str:
    # LaTeX's spacing commands between entries ([0.5,\;0.5], and a control space after a comma: [0.5,\ 0.5])
    # are spaces (a control space elsewhere may be a row break that lost a backslash: 0.209\ 0.305)
    text = _MATH_SPACE_RE.sub("  ", text) if "\\" in text else text  # (two spaces: offsets kept)
    # a number set in bold for emphasis ([\mathbf{0.776},\ \mathbf{0.545}]) is that number (spaces: offsets kept)
    text = _BOLD_NUMBER_RE.sub(lambda m: " " * (m.start(1) - m.start()) + m.group(1) + " ", text) \
        if "\\" in text else text
    return text.replace("−", "-").replace("\u2009", " ").replace("\xa0", " ")


# ---------------------------------------------------------------------------------------
# bracket groups

_TOKEN_RE = re.compile(r"""
    (?P<open>\[) | (?P<close>\]) | (?P<comma>,) | (?P<nl>\n) | (?P<ws>[ \t\r]+)
  | (?P<comment>(?:\#|←|<--?|//)[^\n]*)
  | (?P<str>'[^'\n]{0,100}'|"[^"\n]{0,100}"|“[^”\n]{0,100}”)
  | (?P<atom>[^\[\],\s#'"“←]+)
""", re.VERBOSE)
_INF_CODE_RE = re.compile(r"""float\(\s*['"]([+-]?)inf(?:inity)?['"]\s*\)|([+-]?)(?:np|numpy|math|torch)\.inf\b""")
_ATOM_OK_RE = re.compile(r"[\d.+\-*/×·^()eE…⋯?]+|[+-]?inf|[+-]?nan|[+-]?∞|[+-]?(?:\d++(?:\.\d*+)?|\.\d+)%")


def _slash_comment(text: str, k: int, start: int) -> bool:
    """A C-style comment after a row, "[0.4, 0.1, 0.8], // tok_idx=0": `//` right after a comma or a
    bracket (not integer division, `6 // 2`, which follows a number)."""
    if not text.startswith("//", k):
        return False
    prev = text[start:k].rstrip(" \t")
    return bool(prev) and prev[-1] in ",[]"


def _match_bracket(text: str, i: int, budget: _Budget) -> int | None:
    """The offset after the bracket closing the one at ``text[i]``; None when it is not a group
    of numbers; minus the offset to resume at for a group nested too deep."""
    depth = 0
    k = i
    end = min(len(text), i + MAX_GROUP_CHARS)
    in_comment = False
    quote = ""
    while k < end:
        ch = text[k]
        if in_comment:
            if ch == "\n":
                in_comment = False
        elif quote:
            if ch == quote or ch == "\n" or (quote == "“" and ch == "”"):
                quote = ""
        elif ch == "[":
            depth += 1
            if depth > MAX_GROUP_DEPTH:
                budget.spend(k - i)
                return -budget.skip_to_close(text, i, end)
        elif ch == "]":
            depth -= 1
            if depth == 0:
                budget.spend(k - i)
                return k + 1
        elif ch in "#←" or _slash_comment(text, k, i):
            in_comment = True
        elif ch in "'\"“":
            quote = ch
        elif ch.isalpha() and ch not in "eE":
            # letters end a group of numbers unless they spell inf/nan (or a quoted word)
            m = re.compile(r"[A-Za-z_]+").match(text, k)
            word = m.group(0) if m else ch
            if word.lower() not in ("inf", "nan", "infinity", "float", "np", "numpy", "math", "torch", "e"):
                budget.spend(k - i)
                return None
            k += len(word)
            continue
        k += 1
    budget.spend(k - i)
    return None


class _Group:
    __slots__ = ("children", "entries", "line", "note", "commas", "entry_lines", "breaks", "amps")

    def __init__(self, line: int) -> None:
        self.children: list[_Group] = []
        self.entries: list[str] = []
        self.line = line
        self.note = ""
        self.commas = False
        self.entry_lines: list[int] = []  # the line of each entry
        self.amps = False  # entries parted by LaTeX's column separator '&'
        self.breaks: list[int] = []  # entries that follow a LaTeX row break '\\' ([ 1 0 \\ 0 1 ])


def _parse_group(text: str, offset: int, line_of) -> _Group | None:
    """Parse ``text`` (one balanced group starting with '[') into nested groups."""
    text = _INF_CODE_RE.sub(lambda m: (m.group(1) or m.group(2) or "") + "inf", text)
    stack: list[_Group] = []
    root: _Group | None = None
    pending: list[str] = []  # atoms of the entry being read (comma-separated groups)
    last_closed: _Group | None = None
    pos = 0
    pending_at = [0]  # where the entry being read starts

    def flush(g: _Group) -> None:
        if pending:
            g.entries.append(" ".join(pending))
            g.entry_lines.append(line_of(pending_at[0]))
            pending.clear()

    for m in _TOKEN_RE.finditer(text):
        kind = m.lastgroup
        tok = m.group(0)
        here = offset + m.start()
        pos = m.end()
        if kind == "open":
            g = _Group(line_of(here))
            if stack:
                if stack[-1].entries or pending:
                    return None  # numbers and groups mixed at one level
                stack[-1].children.append(g)
            else:
                root = g
            stack.append(g)
            last_closed = None
        elif kind == "close":
            if not stack:
                return None
            g = stack.pop()
            flush(g)
            if g.children and g.entries:
                return None
            last_closed = g
            if not stack:
                break
        elif kind == "comma":
            if not stack:
                return None
            g = stack[-1]
            g.commas = True
            if not g.children:
                if not pending:
                    return None  # an empty entry: [1,,2]
                flush(g)
        elif kind in ("ws", "nl"):
            if stack and not stack[-1].commas and pending and not stack[-1].children:
                # without commas (NumPy), whitespace separates entries
                if not _comma_ahead(text, m.end()):
                    flush(stack[-1])
            if kind == "nl":
                last_closed = None
        elif kind == "comment":
            if last_closed is not None and not last_closed.note:
                last_closed.note = tok.lstrip("#←<-/ ").strip()
        elif kind == "str":
            if not stack:
                return None
            if not pending:
                pending_at[0] = here
            pending.append(tok)
        else:  # atom
            if not stack:
                return None
            if tok == "\\\\" and not stack[-1].commas and not stack[-1].children and (pending or stack[-1].entries):
                flush(stack[-1])  # a LaTeX row break between rows of numbers: [ 0.1 0.2 \\ 0.5 0.6 ]
                stack[-1].breaks.append(len(stack[-1].entries))
                continue
            if tok == "&" and not stack[-1].commas and not stack[-1].children and (pending or stack[-1].entries):
                flush(stack[-1])  # LaTeX's column separator in such a bracket: [ 0.1 & 0.2 \\ 0.5 & 0.6 ]
                stack[-1].amps = True
                continue
            if not pending and stack[-1].children and trailing_elision(tok, text, m.end()):
                continue  # rows left out at the end ("[ 0.6, 1.3],\n ...])"): the rows printed are the first
            if not _ATOM_OK_RE.fullmatch(tok):
                return None
            if not pending:
                pending_at[0] = here
            pending.append(tok)
    if stack or root is None:
        return None
    del pos
    return root


def _comma_ahead(text: str, k: int) -> bool:
    """Whether the current group separates entries with commas (look ahead to its end)."""
    depth = 0
    for ch in text[k:k + 2000]:
        if ch == ",":
            return depth == 0
        if ch == "[":
            depth += 1
        elif ch == "]":
            if depth == 0:
                return False
            depth -= 1
    return False


def _group_rows(g: _Group) -> tuple[int, list[list[str]], list[int], list[str], list[list[list[str]]] | None] | None:
    """(depth, rows, row lines, row notes, batches) of a parsed group; None when not a matrix."""
    if not g.children:
        split = _rows_in_one_group(g)
        if split is not None:
            return 2, split[0], split[1], [""] * len(split[0]), None
        if g.breaks or g.amps:
            return None  # rows parted by '\\' but of different lengths: no matrix
        return 1, [g.entries], [g.line], [g.note], None
    if all(not c.children for c in g.children):
        rows = [c.entries for c in g.children]
        if not rows or any(len(r) != len(rows[0]) for r in rows) or not rows[0]:
            return None
        return 2, rows, [c.line for c in g.children], [c.note for c in g.children], None
    if len(g.children) == 1 and g.children[0].children and all(x.children for x in g.children[0].children):
        return _group_rows(g.children[0])  # a batch of one: [[[[…]]]] is the stack inside
    if all(c.children and all(x.children for x in c.children) for c in g.children):
        return _batch_of_stacks(g)
    batches = []
    lines: list[int] = []
    notes: list[str] = []
    for c in g.children:
        if not c.children or any(x.children for x in c.children):
            return None
        rows = [x.entries for x in c.children]
        if any(len(r) != len(rows[0]) for r in rows) or not rows[0]:
            return None
        batches.append(rows)
        lines += [x.line for x in c.children]
        notes += [x.note for x in c.children]
    if any(len(b) != len(batches[0]) or len(b[0]) != len(batches[0][0]) for b in batches):
        return None
    if len(batches) == 1:
        return 2, batches[0], lines, notes, None
    return 3, [r for b in batches for r in b], lines, notes, batches


def _batch_of_stacks(g: _Group) -> tuple[int, list[list[str]], list[int], list[str], list[list[list[str]]]] | None:
    """A 4-D printout, (batch, heads, rows, columns): depth 4, its matrices in order (batch item by batch
    item, head by head); None when its stacks differ in size or shape."""
    parts = [_group_rows(c) for c in g.children]
    if any(p is None or p[0] != 3 for p in parts):
        return None
    stacks = [p[4] for p in parts]  # type: ignore[index]
    if any(len(m) != len(stacks[0]) or len(m[0]) != len(stacks[0][0]) or len(m[0][0]) != len(stacks[0][0][0])
           for m in stacks):
        return None
    return (4, [r for p in parts for r in p[1]], [x for p in parts for x in p[2]],  # type: ignore[index]
            [x for p in parts for x in p[3]], [m for st in stacks for m in st])  # type: ignore[index]


def _rows_in_one_group(g: _Group) -> tuple[list[list[str]], list[int]] | None:
    """(rows, row lines) of one bracket holding a whole matrix without inner brackets: rows parted by
    LaTeX row breaks, ``[ 0.1 0.2 \\\\ 0.5 0.6 ]`` (Markdown's escaped math as pandoc writes it), or one
    row a line when the bracket stands alone on its line, ``X =`` / ``[`` / `` 0.1 0.2`` / `` 0.5 0.6`` /
    ``]`` (no commas: NumPy never opens a wrapped row alone on a line). None when it is one vector.

    >>> g = _Group(0); g.entries = ["1", "0", "0", "1"]; g.entry_lines = [1, 1, 1, 1]; g.breaks = [2]
    >>> _rows_in_one_group(g)
    ([['1', '0'], ['0', '1']], [1, 1])
    >>> g.breaks = []; g.entry_lines = [1, 1, 3, 3]
    >>> _rows_in_one_group(g)
    ([['1', '0'], ['0', '1']], [1, 3])
    >>> g.entry_lines = [0, 0, 1, 1]  # the first row on the bracket's own line: a wrapped vector
    >>> _rows_in_one_group(g) is None
    True
    """
    if g.commas or not g.entries:
        return None
    if g.breaks:
        cuts = [0] + [b for b in g.breaks if 0 < b < len(g.entries)] + [len(g.entries)]
        rows = [g.entries[a:b] for a, b in zip(cuts, cuts[1:]) if b > a]
        if len(rows) < 2 or any(len(r) != len(rows[0]) for r in rows):
            return None
        return rows, [g.entry_lines[a] for a, b in zip(cuts, cuts[1:]) if b > a]
    if g.entry_lines[0] == g.line or len(g.entries) != len(g.entry_lines):
        return None
    rows, lines = [], []
    for e, k in zip(g.entries, g.entry_lines):
        if not lines or k != lines[-1]:
            rows.append([])
            lines.append(k)
        rows[-1].append(e)
    if len(rows) < 2 or len(rows[0]) < 2 or any(len(r) != len(rows[0]) for r in rows):
        return None
    return rows, lines


def _classify_entries(rows: list[list[str]]) -> str:
    """``numbers``, ``words`` or ``reject``."""
    kinds = set()
    for r in rows:
        for e in r:
            if len(e) >= 2 and e[0] in "'\"“" and e[-1] in "'\"”":
                kinds.add("str")
            else:
                k = entry_kind(e)
                if k == "other":
                    return "reject"
                kinds.add(k)
    if kinds == {"str"}:
        return "words"
    if "str" in kinds or not kinds & {"number", "expr", "truncated", "percent"}:
        return "reject"
    return "numbers"


_PREFIX_RE = re.compile(r"(?:(?:torch|np|numpy|tf|jnp|jax\.numpy|mx)\.)?(tensor|array|Tensor|matrix|Array|DeviceArray|constant|"
                        r"Variable|convert_to_tensor)\(\s*$")
_SUFFIX_RE = re.compile(r"(?:\s*,\s*(?:grad_fn=<\w+>|requires_grad=(?:True|False)|dtype=[\w.]+|device='[^']*'"
                        r"|shape=\(\s*\d*(?:\s*,\s*\d+)*\s*,?\s*\)"
                        r"|[a-z_]+=[\w.'<>\-]+))*\s*\)")
_SCALAR_RE = re.compile(r"\b(tensor|np\.float(?:16|32|64)|float(?:32|64))\(\s*([+-]?(?:\d++(?:\.\d*+)?|\.\d+)(?:[eE][+-]?\d+)?)"
                        r"((?:\s*,\s*(?:grad_fn=<\w+>|requires_grad=(?:True|False)|dtype=[\w.]+|device='[^']*'))*)\s*\)")


def _only_argument(depth: int, text: str, end: int) -> bool:
    """A nested list of numbers that is the only argument of a call (``create_tensor([[1, 0], [0, 1]])``,
    a page's own helper around an array constructor): read as that array (nothing is executed)."""
    return depth >= 2 and re.match(r"\s*\)", text[end:end + 40] if end < len(text) else "") is not None


# ---------------------------------------------------------------------------------------
# one run of lines with the same role


class _Segment:
    def __init__(self, lines: list[Line], first: int) -> None:
        self.lines = lines
        self.first = first  # index of lines[0] in the page
        self.role = lines[0].role
        self.text = "\n".join(_normalise(x.text) for x in lines)
        self.starts = []
        k = 0
        for x in lines:
            self.starts.append(k)
            k += len(x.text) + 1

    def index(self, offset: int) -> int:
        """Index in the segment's lines of the line holding ``offset``."""
        return bisect_right(self.starts, offset) - 1

    def where(self, offset: int) -> Where:
        return self.lines[self.index(offset)].where

    def line_text(self, offset: int) -> tuple[int, int]:
        i = self.index(offset)
        s = self.starts[i]
        return s, s + len(self.lines[i].text)


_START_RE = re.compile(r"\[|\\begin\s*\{[A-Za-z]+\}|\b(?:tensor|np\.float(?:16|32|64)|float(?:32|64))\(\s*[+-]?[\d.]"
                       r"|\((?=\s*[+-]?[\d.]+\s*,)")
_TUPLE_RE = re.compile(r"\(\s*([+-]?(?:\d++(?:\.\d*+)?|\.\d+)(?:\s*,\s*[+-]?(?:\d++(?:\.\d*+)?|\.\d+)){1,63})\s*\)")


def _scan_segment(seg: _Segment, budget: _Budget) -> list:
    out: list = []
    text = seg.text
    pos = 0
    code = seg.role in ("code", "comment")
    while True:
        m = _START_RE.search(text, pos)
        if not m:
            break
        budget.spend(m.start() - pos + 1)
        i = m.start()
        tok = m.group(0)
        if tok.startswith("\\begin"):
            block, end = _latex_block(seg, i, budget)
        elif tok == "(":
            block, end = _tuple_block(seg, i) if not code or seg.role == "comment" else (None, i + 1)
        elif tok == "[":
            block, end = _bracket_block(seg, i, code, budget)
        else:
            block, end = _scalar_block(seg, i)
        if block is None:
            pos = max(end, i + 1)
            continue
        out.append(block)
        pos = end
    return out


#: how much of a block's line, each side of it, is its context (the label before it, what follows): bounded, so
#: that a line of thousands of blocks is read in linear time, not each block with all the line before it
MAX_CONTEXT_CHARS = 2_000


def _context(seg: _Segment, start: int, end: int) -> tuple[str, str]:
    ls, _ = seg.line_text(start)
    _, le = seg.line_text(max(start, end - 1))
    return seg.text[max(ls, start - MAX_CONTEXT_CHARS):start], seg.text[end:min(le, end + MAX_CONTEXT_CHARS)]


def _interval(before: str, entries: list[str]) -> bool:
    """Two numbers after the word "range" (or "interval"): the ends of an interval ("can be large:
    range [-64, 64]", "in reasonable range: ~ [-8, 8]"), not a vector."""
    return len(entries) == 2 and bool(re.search(
        r"\b(?:range|ranges|ranging|interval)\b\s*(?:of|from|is|=|:)?\s*:?\s*~?\s*$",
        before, re.I))


#: a matrix printout whose closing ']' was lost: '[[' and a row, then rows '[…]' one a line, up to a blank line
#: or the end of the run of lines
_UNCLOSED_RE = re.compile(r"\[\[[-+\d.eE, \t]*\](?:[ \t]*\n[ \t]*\[[-+\d.eE, \t]*\])+[ \t]*(?=\n[ \t]*\n|\s*$)")


def _bracket_block(seg: _Segment, i: int, code: bool, budget: _Budget):
    text = seg.text
    prev = text[i - 1] if i > 0 else ""
    if code and prev and (prev.isalnum() or prev in "_)]"):
        return None, i + 1  # indexing: inputs[1], x[0, 1]
    if prev and (prev.isalnum() or prev in "_]") and re.match(r"\[\s*\d{1,4}\s*\]", text[i:i + 12]) \
            and not re.search(r"\\[A-Za-z]+$", text[max(0, i - 24):i]):
        return None, i + 1  # a printed index, "Query for 'I' (Q[1]):", "output[0] =", not a vector
    end = _match_bracket(text, i, budget)
    closing = ""
    if end is None:
        cut = _UNCLOSED_RE.match(text, i)
        if cut is None:
            return None, i + 1
        # a printout pasted without its last ']' ("[[1.9 6.6]\n [1.9 7.9]" and the block ends): the rows
        # are whole, only the bracket closing the matrix is missing
        end, closing = cut.end(), "]"
    if end < 0:
        return None, -end  # nested deeper than a batch of matrices: skipped whole
    if end < len(text) and text[end] == "(" and not code:
        return None, i + 1  # a Markdown link [1](…)
    g = _parse_group(text[i:end] + closing, i, lambda off: seg.index(min(off, end - 1)))
    if g is None:
        return None, i + 1
    shaped = _group_rows(g)
    if shaped is None:
        return None, end  # ragged or mixed: not a matrix, and its parts are not either
    depth, rows, row_lines, notes, batches = shaped
    rows = unquoted_numbers(rows) or rows  # ['0.266', '0.240']: numbers formatted as strings, then printed
    kind = _classify_entries(rows)
    if kind == "reject":
        return None, i + 1
    before, _ = _context(seg, i, end)
    k = seg.index(i)
    if not before.strip() and k > 0 and re.search(r"[(=]\s*$", seg.lines[k - 1].text):
        before = seg.lines[k - 1].text.rstrip() + " "  # X = torch.tensor(\n  [[…
    call = re.search(r"([A-Za-z_][\w.]*)\(\s*$", before)
    if code and call and not re.search(r"(?:^|\.)(tensor|Tensor|array|asarray|matrix|Parameter|FloatTensor|"
                                       r"DoubleTensor|stack|vstack|hstack|concatenate|from_numpy|constant|Variable|"
                                       r"convert_to_tensor|transpose|Array|expand_dims|(?:scaled_dot_product_|self_)?attention|attn)$", call.group(1)) \
            and not _only_argument(depth, text, end):
        return None, end  # an argument of some other call in code (ax.set_xlim([0, 1]))
    # np.transpose([[…]]) or np.array([[…]]).T: the rows written are the columns of the variable
    flipped = bool(code and ((call and call.group(1).split(".")[-1] == "transpose")
                             or re.match(r"\s*\)?\s*\.T\b", text[end:end + 40] if end < len(text) else "")))
    if code and call and call.group(1).split(".")[-1] == "expand_dims" and depth == 1:
        ax = re.match(r"\s*,\s*(?:axis\s*=\s*)?(-?\d)\s*\)", text[end:end + 40])
        if ax is None:
            return None, end
        # tf.expand_dims([1., 2, 3, 4], 1): a column, one row per entry; axis 0: one row
        if ax.group(1) in ("1", "-1"):
            rows, row_lines, notes = [[x] for x in rows[0]], row_lines * len(rows[0]), [""] * len(rows[0])
        depth = 2
    if re.search(r"(Size|shape|size)\(\s*$|\.shape\s*[:=]?\s*$", before):
        return None, end  # a shape, torch.Size([6, 24]), not numbers of the example
    if depth == 1 and _interval(before, rows[0]):
        return None, end  # the ends of a range, [-64, 64], not a vector
    if kind == "words":
        after_end = end
        words = [w[1:-1] for w in rows[0]] if depth == 1 else []
        if not words:
            return None, i + 1
        return Words(words, seg.lines[seg.index(i)].where, seg.first + seg.index(i), seg.first + seg.index(end - 1),
                     before=before.strip(), role=seg.role), after_end
    if depth == 1 and len(rows[0]) == 1 and seg.role in ("prose", "heading") and re.fullmatch(r"\d{1,3}", rows[0][0]):
        return None, i + 1  # a citation [12]
    ls, le = seg.line_text(i)
    if code and depth == 1 and shape_comment(seg.text[ls:le], i - ls, rows[0]):
        return None, end  # 'W = torch.randn(d, d)  # [4, 4]': the shape made, in a comment (shape_comments.py)
    if depth == 1 and len(rows[0]) <= 4 and all(re.fullmatch(r"[1-9]\d{0,3}", e) for e in rows[0]) \
            and re.search(r"shape|size|dim", seg.text[ls:le], re.I):
        return None, end  # a shape, (6, 2) written as [6, 2] (no size is 0: '2-dim … x = [1, 0]' is a vector)
    pm = _PREFIX_RE.search(before)
    form = "list"
    suffix = ""
    end2 = end
    if pm:
        form = "torch" if pm.group(1).lower() == "tensor" else "numpy"
        sm = _SUFFIX_RE.match(text, end)
        if sm:
            suffix = sm.group(0).strip().lstrip(",").rstrip(")").strip()
            end2 = sm.end()
        before = before[: pm.start()]
    elif not g.commas and not any(c.commas for c in g.children) and (depth > 1 or len(rows[0]) > 1):
        form = "numpy"
    before2, after = _context(seg, i, end2)
    if pm or not before2.strip():
        before2 = before
    where = [seg.lines[k].where for k in row_lines]
    tail = re.search(r"(?:#|←|<--?|//)\s*(.+)$", after)
    if tail and notes and not notes[-1] and depth == 2:
        notes = list(notes[:-1]) + [tail.group(1).strip()]  # the last row's comment follows "]])"
    block = Numbers(rows=[list(r) for r in rows], where=where, form=form,
                    start=seg.first + seg.index(i), end=seg.first + seg.index(end2 - 1), depth=depth,
                    before=before2, after=after, row_notes=notes, suffix=suffix, role=seg.role)
    if batches is not None:
        block.batches = batches  # type: ignore[attr-defined]
        if depth == 4:
            block.outer = len(g.children)  # type: ignore[attr-defined]  # batch items, each a stack of heads
    if flipped:
        block.flipped = True  # type: ignore[attr-defined]
    block.alone = not before2.strip(" \t=:") and not after.strip(" \t,;)")
    return block, end2


def _tuple_block(seg: _Segment, i: int):
    """A vector written as a tuple after a label: "The new representation of bank: (0.59, 0.67)"."""
    m = _TUPLE_RE.match(seg.text, i)
    if not m:
        return None, i + 1
    before, after = _context(seg, i, m.end())
    if _interval(before, [x for x in m.group(1).split(",")]):
        return None, m.end()  # the ends of an interval, (0, 1)
    named = re.search(r"(?:^|[\s,;(])[A-Za-z](?:_?\{?\d{1,2}\}?)?\s*=\s*$", before)  # 'k1 = (1, 0), k2 = (0, 1)'
    if not re.search(r"(?:[:=→≈]|\\approx|\bis|\bare)\s*$", before) or (after.strip(" .,;") != "" and not named):
        return None, i + 1
    k = seg.index(i)
    entries = [x.strip() for x in m.group(1).split(",")]
    blk = Numbers(rows=[entries], where=[seg.lines[k].where], form="list", start=seg.first + k, end=seg.first + k,
                  depth=1, before=before, after=after, row_notes=[""], role=seg.role)
    return blk, m.end()


def _scalar_block(seg: _Segment, i: int):
    m = _SCALAR_RE.match(seg.text, i)
    if not m or seg.role == "code":
        return None, i + 1  # torch.tensor(2) in code is part of an expression, not a printed result
    before, after = _context(seg, i, m.end())
    k = seg.index(i)
    return Numbers(rows=[[m.group(2)]], where=[seg.lines[k].where], form="scalar", start=seg.first + k,
                   end=seg.first + k, depth=0, before=before, after=after,
                   suffix=(m.group(3) or "").strip(" ,"), role=seg.role), m.end()


def _latex_block(seg: _Segment, i: int, budget: _Budget):
    found = find_environment(seg.text, i, MAX_GROUP_CHARS)
    if found is None:
        return None, i + 1
    env, body, end = found
    budget.spend(len(body))
    if re.search(r"\\begin\s*\{[bpvBV]?matrix\}", body):
        return None, i + 1  # an array that lays out matrices (and their labels): read the matrices inside
    clean, comments = body_comments(body)  # '0.1 & 0.2 \\\\  % 어제': a TeX comment, a row's note
    raw = split_body(clean)
    if not raw:
        return None, end
    cells = [[cell(c) for c in r] for r in raw]
    start_line = seg.index(i)
    # the line of each row: count row separators in the body
    row_where = []
    body_start = seg.text.find(body, i) if body else i
    offs = [body_start]
    for mm in re.finditer(r"\\\\", body):
        offs.append(body_start + mm.end())
    for r in range(len(cells)):
        row_where.append(seg.where(offs[min(r, len(offs) - 1)]))
    before, after = _context(seg, i, end)
    if not before.strip() and start_line > 0 and re.search(r"=\s*$", seg.lines[start_line - 1].text) \
            and "\\end" not in seg.lines[start_line - 1].text:
        before = seg.lines[start_line - 1].text.rstrip() + " "  # X =\n\begin{bmatrix} …
    k0, k1 = seg.first + start_line, seg.first + seg.index(end - 1)
    width = max(len(r) for r in cells)
    kinds = [[entry_kind(c) for c in r] for r in cells]
    numeric = all(k in ("number", "placeholder", "inf") or (k == "other" and re.fullmatch(r"[+-]?\d+/\d+", c))
                  for r, kr in zip(cells, kinds) for c, k in zip(r, kr) if c != "")
    if numeric and all(len(r) == width for r in cells) and any(c for r in cells for c in r):
        blk = Numbers(rows=cells, where=row_where, form="latex", start=k0, end=k1, depth=2, before=before,
                      after=after, role=seg.role)
        blk.alone = not before.strip(" \t=:$") and not after.strip(" \t,;$")
        labels = _label_column(seg.text, end, len(cells))
        if labels is not None:  # \begin{matrix} \leftarrow \text{I} \\ … \end{matrix} beside the matrix
            blk.row_notes = labels
        elif len(comments) == len(cells) and any(comments):
            blk.row_notes = comments
        return blk, end
    # a table: a header row of words, and/or a label column
    cells = [r + [""] * (width - len(r)) for r in cells]
    header = None
    body_rows = cells
    if cells and all(entry_kind(c) != "number" for c in cells[0]):
        header, body_rows = cells[0], cells[1:]
    if not body_rows:
        return None, end
    return Table(header=header, rows=body_rows, where=row_where[len(cells) - len(body_rows):], start=k0, end=k1,
                 role=seg.role), end


def _label_column(text: str, end: int, n: int) -> list[str] | None:
    """The words of a column of labels written right after a LaTeX matrix (``\\quad
    \\begin{matrix} \\leftarrow \\text{I} \\\\ … \\end{matrix}``), one per row, or None."""
    m = re.match(r"(?:\s|\\quad|\\qquad|\\;|\\,|&|\\!)*\\begin\{(matrix|array)\}(?:\{[^{}]*\})?", text[end:end + 400])
    if not m:
        return None
    close = text.find("\\end{" + m.group(1) + "}", end + m.end())
    if close < 0 or close - end > 2000:
        return None
    rows = [r.strip() for r in re.split(r"\\\\", text[end + m.end():close]) if r.strip()]
    words = [cell(re.sub(r"\\(?:leftarrow|gets|longleftarrow|rightarrow|to)\b", "", r)).strip(" :") for r in rows]
    if len(words) != n or any(not w or is_number(w) for w in words):
        return None
    return words


# ---------------------------------------------------------------------------------------
# matrices drawn with bars

_BAR_NUM = r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?"
_BAR_GROUP_RE = re.compile(rf"\|\s*((?:{_BAR_NUM}|-?∞)(?:[ \t]+(?:{_BAR_NUM}|-?∞))*)\s*\|")  # -∞: a masked entry
#: the pieces of tall brackets copied from rendered math (⎡ ⎤ ⎢ ⎥ ⎣ ⎦, ⎛ ⎞ ⎜ ⎟ ⎝ ⎠) and box bars, as bars
_BAR_PIECES = str.maketrans({c: "|" for c in "⎡⎤⎢⎥⎣⎦⎛⎞⎜⎟⎝⎠│┃"})
_BAR_GAP_RE = re.compile(r"\s*(?:([A-Za-z][\w^{}']{0,30})\s*=\s*)?")


def _bar_line(text: str) -> list[tuple[int, list[str], str]] | None:
    """The matrices' rows on one line of ASCII art: ``Wk = | 1 0 0 0 |   Wv = | 0 0 0 1 |`` →
    [(column of its '|', entries, name written before it)], or None when the line holds
    anything else."""
    t = _normalise(text).translate(_BAR_PIECES)
    out = []
    pos = 0
    for m in _BAR_GROUP_RE.finditer(t):
        gap = _BAR_GAP_RE.fullmatch(t, pos, m.start())
        if gap is None:
            return None
        out.append((m.start(), m.group(1).split(), gap.group(1) or ""))
        pos = m.end()
    if not out or t[pos:].strip() or (len(out) == 1 and len(out[0][1]) < 2):
        return None
    return out


def _bar_matrices(lines: list[Line], taken: set[int]) -> list[Numbers]:
    """Matrices drawn in ASCII with a bar on each side of each row, several side by side on the
    same lines (their bars in the same columns), each named on one of its rows (``Wk = | 1 0 |``)
    or by a word on the line above, right over it."""
    out: list[Numbers] = []
    i, n = 0, len(lines)
    while i < n:
        first = _bar_line(lines[i].text) if i not in taken and lines[i].role in ("prose", "output", "comment") else None
        if first is None:
            i += 1
            continue
        cols = [(c, len(e)) for c, e, _ in first]
        run = [first]
        j = i + 1
        while j < n and j not in taken and lines[j].role == lines[i].role:
            nxt = _bar_line(lines[j].text)
            if nxt is None or [(c, len(e)) for c, e, _ in nxt] != cols:
                break
            run.append(nxt)
            j += 1
        if len(run) < 2:
            i += 1
            continue
        above = _normalise(lines[i - 1].text) if i > 0 and i - 1 not in taken else ""
        for g, (col, _) in enumerate(cols):
            names = [r[g][2] for r in run if r[g][2]]
            name = names[0] if len(names) == 1 else ""
            if not names and above.strip():
                stop = cols[g + 1][0] if g + 1 < len(cols) else len(above)
                words = re.findall(r"[A-Za-z][\w^{}']{0,30}", above[max(0, col - 2):stop])
                name = words[0] if len(words) == 1 else ""
            blk = Numbers(rows=[r[g][1] for r in run], where=[lines[k].where for k in range(i, j)], form="rows",
                          start=i, end=j - 1, depth=2, before=f"{name} = " if name else "", role=lines[i].role)
            blk.alone = not name and len(cols) == 1
            out.append(blk)
        taken.update(range(i, j))
        i = j
    return out


# ---------------------------------------------------------------------------------------
# line-based blocks: pipe tables and rows of numbers


def _pipe_cells(line: str) -> list[str]:
    s = line.strip()
    if s.startswith("|"):
        s = s[1:]
    if s.endswith("|") and not s.endswith("\\|"):
        s = s[:-1]
    parts = re.split(r"(?<!\\)\|", s)
    return [_unwrap_inline_math(re.sub(r"\*\*|__|`", "", _normalise(p.replace("\\|", "|"))).strip()) for p in parts]


_INLINE_MATH_RE = re.compile(r"\\\(\s*([^()]*?(?:\([^()]*\)[^()]*?)*)\s*\\\)")


def _unwrap_inline_math(cell: str) -> str:
    """A table cell's inline math ``\\( … \\)`` (MathJax) read as its content: a bracketed row
    ``\\([1, 0]\\)`` as ``[1, 0]``, a header's ``クエリ (\\( Q \\))`` as ``クエリ (Q)``."""
    if "\\(" not in cell:
        return cell
    return _INLINE_MATH_RE.sub(lambda m: m.group(1).strip(), cell)


_SEP_RE = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")


_BOX_RULE_RE = re.compile(r"\s*[┌├└╔╠╚╭╰+][─━═┬┼┴╦╬╩┐┤┘╗╣╝╮╯+\s-]*")
_ASCII_RULE_RE = re.compile(r"\s*\+(?:[-=]+\+)+\s*")  # +------+-------+


def _boxed(text: str) -> str:
    """A box-drawing table's line as a pipe table's: '│ a │ b │' → '| a | b |', a rule
    ('┌──┬──┐', '├──┼──┤', '└──┴──┘', '+----+----+') → '|---|'."""
    if _ASCII_RULE_RE.fullmatch(text):
        return "|---|"
    if "│" not in text and "║" not in text and not re.match(r"\s*[┌├└╔╠╚╭╰]", text):
        return text
    if _BOX_RULE_RE.fullmatch(text):
        return "|---|"
    return text.replace("│", "|").replace("║", "|")


def _pipe_tables(lines: list[Line], taken: set[int]) -> list[Table]:
    out = []
    i = 0
    n = len(lines)
    while i < n:
        t = _boxed(lines[i].text).strip()
        if i in taken or lines[i].role == "code" or not (t.startswith("|") and t.count("|") >= 2):
            i += 1
            continue
        j = i
        while j < n and j not in taken and lines[j].role != "code" and _boxed(lines[j].text).strip().startswith("|"):
            j += 1
        rows: list[list[str]] = []
        where: list[Where] = []
        header = None
        for k in range(i, j):
            if _SEP_RE.match(_boxed(lines[k].text)) or (k == i + 1 and _SEP1_RE.match(lines[k].text)):
                if len(rows) == 1 and header is None:
                    header = rows.pop()
                    where.pop()
                continue
            rows.append(_pipe_cells(_boxed(lines[k].text)))
            where.append(lines[k].where)
        if header is None and _corner_header(rows):
            header = rows.pop(0)  # '| | dog |' over '| le | 0.3 |': a header with an empty corner, no rule
            where.pop(0)
        if rows or header:
            out.append(Table(header=header, rows=rows, where=where, start=i, end=j - 1))
            taken.update(range(i, j))
        i = j
    return out


#: a delimiter row of single dashes right under a table's first row ('| - | - |'), as GitHub accepts it
_SEP1_RE = re.compile(r"^\s*\|\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|\s*$")


def _corner_header(rows: list[list[str]]) -> bool:
    """Whether a pipe table written without a delimiter row starts with a header: an empty corner then
    words (``| | dog |``), over two or more rows of a word then numbers (``| le | 0.3 |``).

    >>> _corner_header([["", "dog"], ["le", "0.3"], ["chien", "-2.1"]]), _corner_header([["a", "b"], ["1", "2"]])
    (True, False)
    """
    if len(rows) < 3 or rows[0][0] != "" or len(rows[0]) < 2:
        return False
    return all(r and entry_kind(r) == "other" for r in rows[0][1:]) and all(
        len(r) == len(rows[0]) and entry_kind(r[0]) == "other" and all(is_number(c) for c in r[1:]) for r in rows[1:])


_BOX_NUM = r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?"
#: a row of an ASCII box table whose row label stands outside the box, with an aside after it:
#: '   q1   | 2.1 | 0.3 | 0.1 |   <- q1 against every key'
_LABELLED_BOX_ROW_RE = re.compile(rf"\s*([^\s|+]{{1,24}})\s+\|((?:\s*{_BOX_NUM}\s*\|){{2,}})"
                                  r"(?:\s+(?:<-+|←|#|//|--|<=).*)?\s*")


def _labelled_box_tables(lines: list[Line], taken: set[int]) -> list[Table]:
    """ASCII box tables whose row labels stand left of the box and whose column labels stand
    above its top rule, in prose or in a plain code block::

                  k1    k2    k3
            +-----+-----+-----+
       q1   | 2.1 | 0.3 | 0.1 |   <- q1's scores
            +-----+-----+-----+
       q2   | 0.4 | 1.9 | 0.7 |
            +-----+-----+-----+

    read as a table with the header ['', 'k1', 'k2', 'k3'] and rows ['q1', '2.1', …]. Rules
    between the rows are optional; two rows at least."""
    out: list[Table] = []
    i, n = 0, len(lines)

    def row(k: int) -> list[str] | None:
        if k in taken or lines[k].role in ("heading", "math"):
            return None
        m = _LABELLED_BOX_ROW_RE.fullmatch(_normalise(lines[k].text).replace("│", "|").replace("┃", "|"))
        if not m or entry_kind(m.group(1)) != "other":
            return None
        return [m.group(1)] + [c.strip() for c in m.group(2).strip().strip("|").split("|")]

    def rule(k: int) -> bool:  # +-----+-----+, or drawn with box characters (┌──┬──┐, ├──┼──┤, └──┴──┘)
        return k not in taken and (_ASCII_RULE_RE.fullmatch(lines[k].text) is not None or (
            bool(lines[k].text.strip()) and _BOX_RULE_RE.fullmatch(lines[k].text) is not None))

    while i < n:
        first = row(i)
        if first is None:
            i += 1
            continue
        rows, where, last = [first], [lines[i].where], i
        j = i + 1
        while j < n:
            if rule(j):
                j += 1
                continue
            nxt = row(j)
            if nxt is None or len(nxt) != len(first) or lines[j].role != lines[i].role:
                break
            rows.append(nxt)
            where.append(lines[j].where)
            last = j
            j += 1
        if len(rows) < 2:
            i += 1
            continue
        start = i
        while start - 1 >= 0 and rule(start - 1):
            start -= 1
        header = None
        if start - 1 >= 0 and start - 1 not in taken and lines[start - 1].role == lines[i].role:
            words = _normalise(lines[start - 1].text).split()
            if len(words) == len(first) - 1 and all(entry_kind(w) == "other" for w in words):
                header = [""] + words
                start -= 1
        end = last
        while end + 1 < n and rule(end + 1):
            end += 1
        out.append(Table(header=header, rows=rows, where=where, start=start, end=end))
        taken.update(range(start, end + 1))
        i = end + 1
    return out


_PLUS_RULE_RE = re.compile(r"\s*-{2,}(?:\+-{2,})+\s*")  # ------+-------+-------
_DASH_RULE_RE = re.compile(r"\s*-{8,}\s*")  # -------------------------


def _printed_rule(head: str, rule: str) -> str:
    """The rule under a header of cells split by '|' as a pipe table's rule: the rule a program prints
    with '+' where the columns meet ('-----+-----+-----' → '-----|-----|-----'), or one run of dashes as
    long as the header at least (then as many columns as the header has cells). Any other line as it is.

    >>> _printed_rule("a | b | c", "--+---+--"), _printed_rule("step |  the |  cat", "-" * 18)
    ('--|---|--', '---|---|---')
    >>> _printed_rule("step |  the |  cat", "-" * 9)
    '---------'
    """
    if "|" not in head or "|" in rule:
        return rule
    if _PLUS_RULE_RE.fullmatch(rule):
        return rule.replace("+", "|")
    if _DASH_RULE_RE.fullmatch(rule) and len(rule.strip()) >= len(head.strip()):
        return "|".join(["---"] * len(_pipe_cells(head)))
    return rule


def _bare_pipe_tables(lines: list[Line], taken: set[int]) -> list[Table]:
    """Pipe tables written without the outer pipes, or inside a plain code block, which GitHub's
    Markdown also draws as tables: a header line of cells split by '|', a rule of dashes under it
    ('-----|-----', ':--|--:'), then rows of as many cells::

        Word    | Query      | Key
        --------|------------|-----------
        "the"   | [0.2, 0.8] | [0.1, 0.9]

    The rule under the header decides (a '|' alone in code is an operator, not a table); a program's
    printed rule ('-----+-----', or dashes alone as long as the header) counts (:func:`_printed_rule`)."""
    out = []
    i, n = 0, len(lines)
    while i + 1 < n:
        head, rule = lines[i].text, _printed_rule(lines[i].text, lines[i + 1].text)
        if i in taken or i + 1 in taken or "|" not in head or "|" not in rule or not _SEP_RE.match(rule) \
                or lines[i].role not in ("prose", "code", "output") or lines[i + 1].role != lines[i].role:
            i += 1
            continue
        header = _pipe_cells(head)
        if len(header) + 1 == len(_pipe_cells(rule)) and head.strip().startswith("|") and \
                not rule.strip().startswith("|"):
            header = [""] + header  # '     | x | y' over '-----|---|---': an empty corner, not an outer pipe
        if len(header) < 2 or len(_pipe_cells(rule)) != len(header) or not all(header[1:]):  # a corner may be empty
            i += 1
            continue
        j = i + 2
        rows: list[list[str]] = []
        where: list[Where] = []
        while j < n and j not in taken and lines[j].role == lines[i].role and "|" in lines[j].text:
            cells = _pipe_cells(lines[j].text)
            if len(cells) != len(header):
                break
            rows.append(cells)
            where.append(lines[j].where)
            j += 1
        if not rows:
            i += 1
            continue
        out.append(Table(header=header, rows=rows, where=where, start=i, end=j - 1))
        taken.update(range(i, j))
        i = j
    return out


_COMMA_ROW_RE = re.compile(r"[+-]?(?:\d++(?:\.\d*+)?|\.\d+)(?:[eE][+-]?\d+)?(?:\s*,\s+[+-]?(?:\d++(?:\.\d*+)?|\.\d+)(?:[eE][+-]?\d+)?)+"
                           r"\s*,?")


#: a note after a row of a printed table, set apart by two spaces: its sum ('(합계: 1.0)', '(sum = 1.00)')
_ROW_NOTE_RE = re.compile(r"\s{2,}\(\s*(?:[^\W\d]|[Σ∑])[^\d()\[\]]{0,19}?[:=]?\s*[+-]?\d{1,20}(?:\.\d{1,20})?\s*\)\s*$")


def _split_row(text: str) -> list[str]:
    """The cells of a row printed as text, without a note after it (a row sum in parentheses).

    >>> _split_row("token1  0.5124   0.4876   0.0000   (합계: 1.0)"), _split_row("a 0.5 (0.25)")
    (['token1', '0.5124', '0.4876', '0.0000'], ['a', '0.5', '(0.25)'])
    """
    t = _ROW_NOTE_RE.sub("", _normalise(text)).strip()
    if _COMMA_ROW_RE.fullmatch(t):  # "0.73, 0.27": numbers and commas (a comma with a space after it)
        return [c.strip() for c in t.rstrip(",").split(",")]
    if "\t" in t:
        return [c.strip() for c in t.split("\t") if c.strip() != ""]
    return t.split()


def _number_rows(lines: list[Line], taken: set[int]) -> list:
    """Runs of lines that hold only numbers (tab- or space-separated), and space-aligned
    tables with a label column (pandas): ``love  0.30  0.37``."""
    out: list = []
    i = 0
    n = len(lines)

    def numeric(k: int) -> list[str] | None:
        if k in taken or lines[k].role not in ("prose", "output", "table", "comment"):
            return None
        cells = _split_row(lines[k].text)
        if not cells or any(entry_kind(c) not in ("number", "placeholder", "inf", "truncated", "percent") for c in cells):
            return None
        if any("[" in c or "]" in c for c in cells):
            return None
        return cells

    def labelled(k: int) -> list[str] | None:
        if k in taken or lines[k].role not in ("prose", "output", "table"):
            return None
        cells = _split_row(lines[k].text)
        if len(cells) < 3 or entry_kind(cells[0]) != "other" or len(cells[0]) > 40:
            return None
        rest = cells[1:]
        if all(entry_kind(c) in ("number", "placeholder", "inf") for c in rest) and any(is_number(c) for c in rest):
            return cells
        return None

    def run(first: list[str], test) -> tuple[list[list[str]], list[Where], int]:
        """The lines from i on that ``test`` accepts with as many cells as the first."""
        rows, where = [first], [lines[i].where]
        j = i + 1
        while j < n:
            nxt = test(j)
            if nxt is None or len(nxt) != len(first):
                break
            rows.append(nxt)
            where.append(lines[j].where)
            j += 1
        return rows, where, j

    while i < n:
        cells = numeric(i)
        if cells is not None:
            rows, where, j = run(cells, numeric)
            if any(is_number(c) or entry_kind(c) in ("truncated", "percent") for r in rows for c in r):
                blk = Numbers(rows=rows, where=where, form="rows", start=i, end=j - 1, depth=2, role=lines[i].role)
                blk.alone = True
                out.append(blk)
                taken.update(range(i, j))
            i = j
            continue
        lab = labelled(i)
        if lab is not None:
            rows, where, j = run(lab, labelled)
            header = None
            start = i
            if i > 0 and (i - 1) not in taken and lines[i - 1].role == lines[i].role:
                words = _split_row(lines[i - 1].text)
                if len(words) in (len(lab) - 1, len(lab)) and all(entry_kind(w) == "other" for w in words):
                    header = ([""] + words) if len(words) == len(lab) - 1 else words
                    start = i - 1
            if header is not None or len(rows) >= 2:
                out.append(Table(header=header, rows=rows, where=where, start=start, end=j - 1,
                                 role=lines[i].role))
                taken.update(range(start, j))
                i = j
                continue
        i += 1
    return out


_R_HEAD_RE = re.compile(r"\s*(?:\[,\s*\d{1,4}\]\s*)+")
_R_ROW_RE = re.compile(rf"\s*\[\s*(\d{{1,4}}),\]((?:\s+(?:{_BAR_NUM}|NaN|NA|-?Inf))+)\s*")


def _r_printouts(lines: list[Line], taken: set[int]) -> list:
    """R's printout of a matrix: a header of column indices, then one row a line under its index::

                  [,1]      [,2]
        [1,] 0.6697615 0.3302385
        [2,] 0.3302385 0.6697615

    (wide matrices continue under a second header: its columns join the rows of the first)."""
    out: list = []
    i, n = 0, len(lines)
    while i < n:
        if i in taken or lines[i].role not in ("output", "prose", "code") or not _R_HEAD_RE.fullmatch(lines[i].text):
            i += 1
            continue
        rows: list[list[str]] = []
        where: list[Where] = []
        j, part = i, 0
        while j < n and j not in taken and _R_HEAD_RE.fullmatch(lines[j].text):
            k, r = j + 1, 0
            while k < n and k not in taken and (m := _R_ROW_RE.fullmatch(lines[k].text)) and int(m.group(1)) == r + 1:
                cells = m.group(2).split()
                if part == 0:
                    rows.append(cells)
                    where.append(lines[k].where)
                elif r < len(rows):
                    rows[r] += cells
                r, k = r + 1, k + 1
            if r == 0 or (part and r != len(rows)):
                break
            part, j = part + 1, k
        if not rows or len({len(r) for r in rows}) != 1:
            i += 1
            continue
        blk = Numbers(rows=rows, where=where, form="rows", start=i, end=j - 1, depth=2, role=lines[i].role)
        blk.alone = True
        out.append(blk)
        taken.update(range(i, j))
        i = j
    return out


def _merge_vectors(blocks: list, lines: list[Line]) -> list:
    """Consecutive lines that each hold one bare vector of the same length form a matrix
    (``[0.1, 0.3]`` / ``[0.2, 0.4]`` / ``[0.5, 0.6]`` under "Query Weight Matrix")."""
    out: list = []
    for b in blocks:
        prev = out[-1] if out else None
        if (isinstance(b, Numbers) and isinstance(prev, Numbers) and b.depth == 1 and b.alone and prev.alone
                and b.form == "list" and (b.role != "output" or rows_then_elision(lines, b.start))
                and prev.depth in (1, 2) and getattr(prev, "merged", prev.depth == 1) and b.form == prev.form
                and b.start == prev.end + 1 and len(b.rows[0]) == len(prev.rows[0]) and b.role == prev.role):
            prev.rows.append(b.rows[0])
            prev.where.append(b.where[0])
            prev.row_notes.append(b.row_notes[0] if b.row_notes else "")
            prev.end = b.end
            prev.depth = 2
            prev.merged = True  # type: ignore[attr-defined]
            prev.after = b.after
            continue
        out.append(b)
    return out


_NUM_RE = r"[+-]?(?:\d++(?:\.\d*+)?|\.\d+)(?:[eE][+-]?\d+)?[fFdDlL]?"
_SEMI_MATRIX_RE = re.compile(rf"\[\s*({_NUM_RE}(?:[ \t]+{_NUM_RE})*(?:\s*;\s*{_NUM_RE}(?:[ \t]+{_NUM_RE})*)+)\s*;?\s*\]")
_C_DIMS_RE = re.compile(r"(?<=\w)\s*(?:\[\s*\d*\s*\])+(?=\s*=)")  # double Q[2][2] = …
_TYPE_PREFIX_RE = re.compile(r"(?:\bnew\s+)?(?:\[\s*\d*\s*\])*\s*\b(?:float|double|int|long|f32|f64|float32|float64|int32|"
                             r"int64|Float32|Float64)\b(?:\s*\[\s*\d*\s*\])*\s*(?=\[)")  # [][]float64{…}, new double[][]{…}
#: a brace group of numbers (or of groups already written as brackets): {1.0, 0.5f}, {[1, 0], [0, 1]}
_BRACE_NUMS_RE = re.compile(r"\{([\s\d.eE+\-fFdD,\[\]]*\d[\s\d.eE+\-fFdD,\[\]]*)\}")


_R_MATRIX_RE = re.compile(rf"(?:<-|=)\s*matrix\(\s*c\(\s*({_NUM_RE}(?:\s*,\s*{_NUM_RE})*)\s*\)\s*,\s*"
                          r"(nrow|ncol)\s*=\s*(\d{1,3})\s*(?:,\s*byrow\s*=\s*(TRUE|T|FALSE|F)\s*)?\)")


def _r_matrix(m: re.Match) -> str:
    """R's ``<- matrix(c(…), nrow = n, byrow = TRUE)`` as ``= [[…], …]`` (R fills by columns unless byrow)."""
    vals = [v.strip() for v in m.group(1).split(",")]
    k = int(m.group(3))
    if k < 1 or len(vals) % k:
        return m.group(0)
    nrow = k if m.group(2) == "nrow" else len(vals) // k
    ncol = len(vals) // nrow
    byrow = (m.group(4) or "FALSE") in ("TRUE", "T")
    rows = [[vals[i * ncol + j] if byrow else vals[j * nrow + i] for j in range(ncol)] for i in range(nrow)]
    return "= [" + ", ".join("[" + ", ".join(r) + "]" for r in rows) + "]"


def foreign_literals(text: str) -> str:
    """A line of code with another language's array literal written as bracketed rows: C, Java and Go
    brace initialisers (``{{1.0, 0.5}, {0.3, 1.0}}``, their type prefixes and C's dimensions dropped), Rust's
    ``vec![…]``, MATLAB's and Julia's ``[1 0; 0 1]`` (rows split by ';'), R's ``matrix(c(…), nrow = 2)``.

    >>> foreign_literals("double Q[2][2] = {{1.0, 0.5}, {0.3, 1.0}};"), foreign_literals("float k[] = {1.0f, 0.5f};")
    ('double Q = [[1.0, 0.5], [0.3, 1.0]];', 'float k = [1.0, 0.5];')
    >>> foreign_literals("K := [][]float64{{1, 0}, {0, 1}}"), foreign_literals("let v = vec![vec![1.0, 2.0]];")
    ('K := [[1, 0], [0, 1]]', 'let v = [[1.0, 2.0]];')
    >>> foreign_literals("Q = [1 0; 0 1];"), foreign_literals("if (x) { return; }")
    ('Q = [[1, 0], [0, 1]];', 'if (x) { return; }')
    >>> foreign_literals("V <- matrix(c(1, 2, 3, 4), nrow = 2, byrow = TRUE)"), foreign_literals("V <- matrix(c(1, 2, 3, 4), nrow = 2)")
    ('V = [[1, 2], [3, 4]]', 'V = [[1, 3], [2, 4]]')
    """
    t = text
    if "matrix(" in t:
        t = _R_MATRIX_RE.sub(_r_matrix, t)
    if "<-" in t:  # R's assignment: 'V <- c(…)' names what follows as 'V = …' does
        t = re.sub(r"^(\s*[A-Za-z][\w.]*)\s*<-\s*(?=\S)", r"\1 = ", t)
    if "vec!" in t:
        t = re.sub(r"\bvec!\s*\[", "[", t)
    if "{" in t:
        before = t
        for _ in range(4):  # innermost groups first: {1, 0} → [1, 0], then {[1, 0], [0, 1]} → [[1, 0], [0, 1]]
            t = _BRACE_NUMS_RE.sub(lambda m: "[" + m.group(1).strip() + "]", t)
        if t != before:
            t = _C_DIMS_RE.sub("", _TYPE_PREFIX_RE.sub("", t))
            t = re.sub(r"(?<=\d)[fFdD](?=\s*[,\]])", "", t)  # C's and Java's 1.0f, 2.5d
    if ";" in t and "[" in t:
        t = _SEMI_MATRIX_RE.sub(lambda m: "[" + ", ".join("[" + ", ".join(r.split()) + "]"
                                                         for r in m.group(1).split(";") if r.strip()) + "]", t)
    return t


def _foreign_block(lines: list[Line]) -> list[Line]:
    """:func:`foreign_literals` on every line of code, and a brace initialiser written one row a line::

        double V[2][3] = {
            {1.0, 2.0, 0.0},
            {0.0, 1.0, 1.0}
        };

    (its opening brace at the end of the first line and its closing brace alone on the last) as brackets."""
    out = [Line(foreign_literals(ln.text), ln.where, ln.role) if ln.role == "code" else ln for ln in lines]
    open_at: int | None = None
    for k, ln in enumerate(out):
        if ln.role != "code":
            open_at = None
            continue
        if open_at is not None and re.fullmatch(r"\s*\}\s*[;,]?\s*", ln.text):
            out[k] = Line(ln.text.replace("}", "]", 1), ln.where, ln.role)
            open_at = None
            continue
        if open_at is not None and not re.match(r"\s*\[", ln.text):
            open_at = None
        nxt = out[k + 1].text if k + 1 < len(out) and out[k + 1].role == "code" else ""
        if re.search(r"=\s*\{\s*$", ln.text) and re.match(r"\s*\[\s*[+-]?[\d.]", nxt):
            t = re.sub(r"\{\s*$", "[", ln.text)
            out[k] = Line(_C_DIMS_RE.sub("", _TYPE_PREFIX_RE.sub("", t)), ln.where, ln.role)
            open_at = k
    return out


def _bounded(blocks: list) -> None:
    if len(blocks) > MAX_PAGE_BLOCKS:
        raise LimitError(f"the page prints more than {MAX_PAGE_BLOCKS} matrices, vectors and tables, past the "
                         "limit (see the README's limits); import the part that holds the worked example")


def scan(lines: list[Line]) -> list:
    """The blocks found in ``lines``, in page order."""
    budget = _Budget()
    taken: set[int] = set()
    blocks: list = []
    # comment lines in code are read like text (numbers written there: "# [[2 0 1]" …)
    lines = [Line(re.sub(r"^(\s*)#", r"\1 ", ln.text), ln.where, "comment")
             if ln.role == "code" and re.match(r"\s*#", ln.text) else ln for ln in lines]
    # array literals of other languages in code, written as the bracketed rows they are
    lines = _foreign_block(lines)
    blocks += _bar_matrices(lines, taken)
    blocks += _pipe_tables(lines, taken)
    blocks += _labelled_box_tables(lines, taken)
    blocks += _r_printouts(lines, taken)
    blocks += _bare_pipe_tables(lines, taken)
    # bracket groups, printouts and LaTeX matrices, per run of lines with one role
    i = 0
    n = len(lines)
    while i < n:
        j = i
        key = (lines[i].role, lines[i].where.cell, lines[i].where.output)
        while j < n and (lines[j].role, lines[j].where.cell, lines[j].where.output) == key and j not in taken:
            j += 1
        if j == i:
            i += 1
            continue
        seg = _Segment(lines[i:j], i)
        budget.spend(len(seg.text))
        blocks += _scan_segment(seg, budget)
        _bounded(blocks)
        i = j
    used = set()
    for b in blocks:
        if isinstance(b, (Numbers, Words)) or (isinstance(b, Table) and b.role != "table"):
            used.update(range(b.start, b.end + 1))
    blocks += _number_rows(lines, taken | used)
    _bounded(blocks)
    blocks.sort(key=lambda b: (b.start, 0 if isinstance(b, Table) else 1))
    return _merge_vectors(blocks, lines)


def read_lines(page: Page) -> Page:
    """Fill ``page.blocks`` from ``page.lines``."""
    page.blocks = scan(page.lines)
    return page
