"""LaTeX in: numbers and matrices for example files.

The LaTeX a worked example needs is a small language: numbers, ``+ − \\cdot \\times /``,
``\\frac``, ``\\sqrt[n]{…}``, powers, ``\\exp``, ``\\ln`` (``\\log`` is the natural log, as in
ML texts), ``e``, ``\\pi``, names with subscripts (``q_{11}``, ``d_k``), ``\\left( … \\right)``,
spacing, and the ``bmatrix``/``pmatrix``/``matrix``/``array`` environments. It is read in three
stages:

1. **A front-end of symattn's own**, in time linear in the text: the whitelist of control
   sequences and characters, the size limits, the nesting limit
   (:data:`~symattn.limits.MAX_LATEX_DEPTH`), matrix environments split into entries, ``±\\infty``
   only alone where allowed, and the semantic traps removed (``\\log`` is ``\\ln``; ``1.5e-3`` is
   refused; ``2\\frac{1}{2}`` is refused rather than read as a mixed number or a product;
   ``a / b c`` is refused as ambiguous). Each entry becomes a *canonical* string in which every
   number and name is a placeholder (``\\variable{p0}``): numbers are read exactly from their text
   by the front-end, so the parser never sees a digit and cannot compute anything.
2. **latex2sympy2_extended** (ANTLR 4) parses each canonical entry, under ``sympy.evaluate(False)``.
   Entries with the same shape (the same string of placeholders and operators) are parsed once.
3. **The returned SymPy tree is walked**: only the node types the canonical grammar can produce
   pass, and every value is rebuilt by the bounded
   :class:`~symattn.read.bounded.Evaluator`, which refuses huge values before building them.

>>> parse_latex(r"\\frac{59}{100}")
59/100
>>> parse_latex(r"\\begin{bmatrix} 0.2 & 0.5 \\\\ 0.4 & 0.8 \\end{bmatrix}")
Matrix([
[1/5, 1/2],
[2/5, 4/5]])
>>> parse_latex(r"\\frac{1}{\\sqrt{d_k}}", names={"d_k": 2})
sqrt(2)/2
>>> parse_latex(r"10^{10^{10}}")
Traceback (most recent call last):
...
symattn.errors.InputError: an exponent must be a rational number p/q with |p| ≤ 10000 and q ≤ 100, got 10000000000 (at character 5)

Why this parser and this shape: on the forms above, SymPy's own LaTeX parser (Lark backend) took
6.2 s for a 16×16 bmatrix and cannot read ``\\pi`` or ``q_{11}``; latex2sympy2_extended reads
them all, but its ANTLR grammar is ambiguous (sets, intervals, function calls), so on raw LaTeX
its full-LL prediction grows steeply with nesting (10 nested braces: 4.3 s, 15: 48 s), and it
reads ``0.59`` as a binary Float and ``2\\frac{1}{2}`` as 5/2. The canonical strings avoid the
ambiguous productions (15 nested groups: 0.09 s); at the nesting limit the worst entry takes a
fraction of a second and about 550 of Python's 1000 frames (``\\ln(1+2\\cdot`` ten deep: 548).
See the CHANGELOG.
"""

from __future__ import annotations

import bisect
import functools
import gc
import re
from decimal import Decimal
from typing import Any, Mapping

import sympy

from ..errors import InputError
from ..limits import MAX_LATEX, MAX_LATEX_DEPTH, MAX_LATEX_PARSE, MAX_TEXT
from .bounded import Evaluator
from .numbers import decimal_to_rational, did_you_mean, symbol

__all__ = ["parse_latex", "looks_like_latex", "ParseBudget", "PARSER_PACKAGE"]

#: the parser package and the versions symattn is tested with (pyproject.toml says the same)
PARSER_PACKAGE = "latex2sympy2_extended>=1.10.1,<2"

# -- the whitelist ---------------------------------------------------------------------------------

#: control sequences dropped as spacing (``\left``/``\right`` keep the delimiter that follows)
_SPACING = {",", ";", ":", "!", " ", "quad", "qquad", "displaystyle", "textstyle", "left", "right"}
_FRACS = {"frac", "dfrac", "tfrac"}
_FUNCS = {"exp", "ln", "log"}
_MULS = {"cdot", "times"}
_ALLOWED_CS = _SPACING | _FRACS | _FUNCS | _MULS | {"sqrt", "pi", "infty", "begin", "end", "mathrm", "div",
                                                    "\\", "{", "}"}
#: environments that mean a plain matrix (``vmatrix`` would be a determinant)
_ENVIRONMENTS = {"bmatrix", "pmatrix", "matrix", "Bmatrix", "smallmatrix", "array"}

_TOKEN = re.compile(r"(?P<space>[\s~]+)|\\(?P<cs>[A-Za-z]+|[^A-Za-z])|(?P<num>[0-9]+(?:\.[0-9]*)?|\.[0-9]+)"
                    r"|(?P<letter>[A-Za-z])|(?P<op>[-+*/^_(){}\[\]&,])|(?P<bad>.)", re.S)
_ENV_NAME = re.compile(r"\s*\{\s*([A-Za-z]+)\s*\}")
_ARRAY_SPEC = re.compile(r"\s*\{[\s|clr]*\}")
_MATHRM = re.compile(r"\s*\{\s*([A-Za-z][A-Za-z0-9_]*)\s*\}")
_SUBSCRIPT = re.compile(r"_(?:\s*\{\s*([A-Za-z0-9,\s]*?)\s*\}|\s*([A-Za-z0-9]))")
_E_NOTATION = re.compile(r"[eE][+-]?[0-9]")

Tok = tuple  # (kind, value, column): kind is num, name, cs, op, begin or end

#: user closers for each opener; ``{`` that is not an argument is a group, like ``(``
_CLOSERS = {"(": ")", "[": "]", "{": "}", "\\{": "\\}"}
#: what the parser sees for a group opened by each user opener
_CANON_GROUP = {"(": ("(", ")"), "[": ("[", "]"), "{": ("(", ")"), "\\{": ("(", ")")}
_OPERAND_CS = _FRACS | _FUNCS | {"sqrt", "pi"}


def looks_like_latex(text: str) -> bool:
    """A string is read as LaTeX when it has a backslash (``\\frac``, ``\\begin``, ...) or a
    brace (``2^{10}``), which the text grammar never has.

    >>> looks_like_latex(r"\\frac{1}{2}"), looks_like_latex("2^{10}"), looks_like_latex("2^10")
    (True, True, False)
    """
    return "\\" in text or "{" in text or "}" in text


class ParseBudget:
    """The parser work allowed for all the LaTeX of one file: canonical tokens given to the
    parser (:data:`~symattn.limits.MAX_LATEX_PARSE`). An entry whose shape was parsed before
    costs nothing, so a large matrix of plain numbers or fractions is cheap.

    >>> b = ParseBudget(10)
    >>> b.spend(8); b.left
    2
    >>> b.spend(3)
    Traceback (most recent call last):
    ...
    symattn.errors.InputError: the LaTeX needs more than 10 tokens of parsing (entries of different shapes); see the README's limits
    """

    def __init__(self, limit: int = MAX_LATEX_PARSE) -> None:
        self.limit = limit
        self.left = limit

    def spend(self, tokens: int, column: int | None = None) -> None:
        self.left -= tokens
        if self.left < 0:
            raise InputError(f"the LaTeX needs more than {self.limit} tokens of parsing (entries of different "
                             "shapes); see the README's limits", column)


# -- stage 1a: tokens ------------------------------------------------------------------------------

def _tokens(text: str) -> list[Tok]:
    """Whitelisted tokens with their 1-based columns, spacing dropped, names with their
    subscripts joined (``q_{11}``), ``\\mathrm{…}`` read as a name; linear in the text."""
    out: list[Tok] = []
    pos, n = 0, len(text)
    while pos < n:
        m = _TOKEN.match(text, pos)
        assert m is not None  # the last alternative matches any character
        kind = m.lastgroup or "bad"
        value = m.group(kind)
        col = pos + 1
        pos = m.end()
        if kind == "space":
            continue
        if kind == "bad":
            raise InputError(f"unexpected character {value!r} in LaTeX", col)
        if kind == "cs":
            if value not in _ALLOWED_CS:
                allowed = ", ".join("\\" + c for c in sorted(c for c in _ALLOWED_CS if c.isalpha()))
                raise InputError(f"LaTeX command \\{value} is not allowed here (allowed: {allowed})", col)
            if value in _SPACING:
                continue
            if value in ("begin", "end"):
                env = _ENV_NAME.match(text, pos)
                if not env or env.group(1) not in _ENVIRONMENTS:
                    raise InputError("only matrix environments (bmatrix, pmatrix, matrix, array) are allowed", col)
                pos = env.end()
                if value == "begin" and env.group(1) == "array":
                    spec = _ARRAY_SPEC.match(text, pos)
                    if not spec:
                        raise InputError("\\begin{array} needs its column letters, e.g. {cc}", col)
                    pos = spec.end()
                out.append((value, env.group(1), col))
                continue
            if value == "mathrm":  # \mathrm{e}, \mathrm{d_k}: the name inside
                inner = _MATHRM.match(text, pos)
                if not inner:
                    raise InputError("\\mathrm{…} may hold only a name such as e or d_k", col)
                pos = inner.end()
                out.append(("name", inner.group(1), col))
                continue
        elif kind == "num":
            if _E_NOTATION.match(text, pos):
                raise InputError("e-notation is not LaTeX: write 1.5 \\times 10^{-3}, not 1.5e-3", pos + 1)
        elif kind == "letter":
            kind = "name"
            sub = _SUBSCRIPT.match(text, pos)
            if sub:
                if sub.group(1) is not None:
                    inner = re.sub(r"[\s,]", "", sub.group(1))
                    if not inner:
                        raise InputError("an empty subscript", col)
                    value = f"{value}_{inner}"
                else:
                    value = f"{value}_{sub.group(2)}"
                    if sub.end() < n and text[sub.end()].isdigit():  # q_11 is not q_{11}: refused; q_1x is q_1 x
                        raise InputError(f"write {value[0]}_{{{sub.group(2)}{text[sub.end()]}…}}: without braces "
                                         "a subscript is one character", sub.end() + 1)
                pos = sub.end()
                if pos < n and text[pos] == "_":
                    raise InputError("a double subscript", pos + 1)
        elif value == "_":
            raise InputError("a subscript belongs to a name such as q_{11} or d_k", col)
        elif value == "," and out and out[-1][0] == "num":
            raise InputError("a comma after a number: write a decimal point (0.5), and & between matrix entries",
                             col)
        out.append((kind, value, col))
    return out


def _shown(tok: Tok | None) -> str:
    if tok is None:
        return "the end"
    kind, value, _ = tok
    if kind in ("begin", "end"):
        return f"\\{kind}{{{value}}}"
    if kind == "cs":
        return repr(value) if not value.isalpha() and value != "\\" else f"\\{value}"
    return repr(value)


def _short(text: str) -> str:
    t = " ".join(text.split())
    return t if len(t) <= 60 else t[:57] + "..."


# -- stage 1b: one entry to its canonical form -----------------------------------------------------

class _Level:
    """What the front-end knows about the current nesting level."""

    __slots__ = ("prev", "last_num", "after_div", "sup", "bare_func", "signs")

    def __init__(self) -> None:
        self.prev = "start"  # start, operand or op
        self.last_num = False  # the last operand is a bare number
        self.after_div = False  # a / came since the last +, -, \cdot
        self.sup = False  # the last operand has a superscript
        self.bare_func = False  # the last operand is \exp or \ln of one token without parentheses
        self.signs = 0  # unary signs in a row


class _Owner:
    """A command waiting for its arguments (\\frac: 2, \\sqrt and ^: 1, \\exp and \\ln: 1)."""

    __slots__ = ("cmd", "left", "col", "tail")

    def __init__(self, cmd: str, left: int, col: int, tail: tuple[str, ...] = ()) -> None:
        self.cmd, self.left, self.col, self.tail = cmd, left, col, tail


class _Canon:
    """One entry (a scalar, or one cell of a matrix) as the parser's input: ``key`` holds the
    canonical tokens with ``P`` for each leaf, ``leaves`` the leaves in order, ``cols`` the
    user's column of each canonical token. Linear in the entry's tokens.

    The canonical form: numbers, names, ``e`` and ``\\pi`` are placeholders; groups are ``( )``
    or ``[ ]``; arguments are always braced (``\\frac12`` is ``\\frac{1}{2}``);
    juxtaposition, ``\\cdot`` and ``/`` are the only products; ``\\exp(x)`` is ``(\\exp[x])`` and
    ``\\ln(x)``, ``\\log(x)`` are ``(\\ln[x])``, so no function call is ever ambiguous.
    """

    def __init__(self, text: str, toks: list[Tok], stop: Tok | None) -> None:
        self.text, self.toks, self.stop = text, toks, stop
        self.key: list[str] = []
        self.cols: list[int] = []
        self.leaves: list[tuple[str, str | None, int]] = []
        #: open groups: (the enclosing level, the user's closer, canonical closing tokens, owner, column)
        self.stack: list[tuple[_Level, str, tuple[str, ...], _Owner | None, int]] = []
        self.level = _Level()
        self.want: _Owner | None = None
        for i, tok in enumerate(toks):
            if self.skip:
                self.skip -= 1
                continue
            self.step(tok, i)
        self.finish()

    skip = 0

    # -- emitting --
    def emit(self, col: int, *canon: str) -> None:
        for c in canon:
            self.key.append(c)
            self.cols.append(col)

    def leaf(self, tok: Tok) -> None:
        kind, value, col = tok
        self.leaves.append(("pi", None, col) if kind == "cs" else (kind, value, col))
        self.emit(col, "P")

    def depth_check(self, col: int) -> None:
        if len(self.stack) + self.level.signs > MAX_LATEX_DEPTH:
            raise InputError(f"LaTeX nested deeper than {MAX_LATEX_DEPTH} levels", col)

    # -- operands --
    def start_operand(self, tok: Tok) -> None:
        """Checks before an operand; an operand right after an operand is an implicit product."""
        lv = self.level
        kind, value, col = tok
        if lv.prev == "operand":
            if kind == "num" and lv.last_num:
                raise InputError("two numbers side by side: write \\cdot or \\times between them", col)
            if kind == "cs" and value in _FRACS and lv.last_num:
                raise InputError("a number directly before \\frac is ambiguous (a mixed number or a product): "
                                 "write 2 + \\frac{1}{2} or 2 \\cdot \\frac{1}{2}", col)
            if lv.after_div:
                raise InputError("a product after / is ambiguous (a / b c): write \\frac{a}{b c} or (a / b) c", col)
        lv.signs = 0

    def end_operand(self, number: bool = False, sup: bool = False, bare_func: bool = False) -> None:
        lv = self.level
        lv.prev, lv.last_num, lv.sup, lv.bare_func = "operand", number, sup, bare_func

    # -- arguments of \frac, \sqrt, ^, \exp and \ln --
    def argument(self, tok: Tok) -> None:
        owner = self.want
        assert owner is not None
        self.want = None
        kind, value, col = tok
        func = owner.cmd in ("exp", "ln")
        fgroup = ("[", "]")  # a function's argument: (\exp[x]), (\ln[x])
        opener = value if kind == "op" and value in "([{" else "\\{" if kind == "cs" and value == "{" else None
        if opener is not None and (func or opener == "{"):
            self.open(tok, owner, fgroup if func else ("[", "]") if opener == "[" else ("{", "}"))
            return
        if kind == "num" and not func:  # \frac12 reads 1 and 2; 2^10 is refused
            if "." in value or len(value) > owner.left:
                raise InputError(f"write {_OWNER_SHOWN[owner.cmd]}: without braces an argument is one digit", col)
            for k, digit in enumerate(value):
                self.emit(col + k, "{")
                self.leaf(("num", digit, col + k))
                self.emit(col + k, "}")
            owner.left -= len(value)
            self.after_argument(owner, number=True)  # \frac12 3 is two numbers side by side
            return
        if kind == "num" or (kind == "name" and (func or len(value) == 1)) or (kind == "cs" and value == "pi"):
            group = fgroup if func else ("{", "}")
            self.emit(col, group[0])
            self.leaf(tok)
            self.emit(col, group[1])
            owner.left -= 1
            self.after_argument(owner, bare=func, number=kind == "num")
            return
        if func:
            raise InputError(f"write \\{owner.cmd}(…): its argument needs parentheses here, found {_shown(tok)}",
                             col)
        if kind == "name":
            raise InputError(f"write {{{value}}}: an argument without braces is one character", col)
        raise InputError(f"expected {{ after {_OWNER_SHOWN[owner.cmd].split('{')[0]}, found {_shown(tok)}", col)

    def after_argument(self, owner: _Owner, bare: bool = False, number: bool = False) -> None:
        """An argument is complete: the next one is wanted, or the command is an operand."""
        if owner.left > 0:
            self.want = owner
            return
        self.emit(owner.col, *owner.tail)
        self.end_operand(number=number, sup=owner.cmd == "^", bare_func=bare)

    # -- groups --
    def open(self, tok: Tok, owner: _Owner | None, canon: tuple[str, str]) -> None:
        kind, value, col = tok
        self.emit(col, canon[0])
        self.stack.append((self.level, _CLOSERS[value if kind == "op" else "\\" + value], (canon[1],), owner, col))
        self.level = _Level()
        self.depth_check(col)

    def close(self, tok: Tok) -> None:
        kind, value, col = tok
        if not self.stack:
            raise InputError(f"unexpected {_shown(tok)} in {_short(self.text)!r}: nothing to close", col)
        parent, closer, canon, owner, opened = self.stack[-1]
        if (value if kind == "op" else "\\" + value) != closer:
            raise InputError(f"expected {closer!r}, found {_shown(tok)}", col)
        if self.level.prev == "start":
            raise InputError("an empty group", opened)
        if self.level.prev != "operand":
            raise InputError(f"unexpected {_shown(tok)} in {_short(self.text)!r}", col)
        self.stack.pop()
        self.emit(col, *canon)
        self.level = parent
        if owner is None:
            self.end_operand()
        else:
            owner.left -= 1
            self.after_argument(owner)

    # -- one token --
    def step(self, tok: Tok, i: int) -> None:
        kind, value, col = tok
        lv = self.level
        if self.want is not None:
            self.argument(tok)
        elif kind in ("num", "name") or (kind == "cs" and value == "pi"):
            self.start_operand(tok)
            self.leaf(tok)
            self.end_operand(number=kind == "num")
        elif (kind == "op" and value in "([{") or (kind == "cs" and value == "{"):
            self.start_operand(tok)
            self.open(tok, None, _CANON_GROUP[value if kind == "op" else "\\{"])
        elif (kind == "op" and value in ")]}") or (kind == "cs" and value == "}"):
            self.close(tok)
        elif kind == "op" and value in "+-":
            if lv.prev == "operand":  # binary
                lv.prev, lv.after_div, lv.sup, lv.last_num, lv.bare_func = "op", False, False, False, False
            else:  # a sign: signs in a row nest
                lv.prev = "op"
                lv.signs += 1
                self.depth_check(col)
            self.emit(col, value)
        elif (kind == "op" and value in "*/") or (kind == "cs" and value in _MULS | {"div"}):
            if lv.prev != "operand":
                raise InputError(f"unexpected {_shown(tok)} in {_short(self.text)!r}", col)
            div = value in ("/", "div")
            lv.prev, lv.after_div, lv.sup, lv.last_num, lv.bare_func = "op", div, False, False, False
            self.emit(col, "/" if div else "\\cdot")
        elif kind == "op" and value == "^":
            if lv.prev != "operand":
                raise InputError("a superscript needs something to raise: write x^{2}", col)
            if lv.sup:
                raise InputError("a double superscript: write a^{b^{c}}", col)
            if lv.bare_func:
                raise InputError("the power is ambiguous: write \\exp(x^{2}) or (\\exp x)^{2}", col)
            self.emit(col, "^")
            self.want = _Owner("^", 1, col)
        elif kind == "cs" and value in _FRACS:
            self.start_operand(tok)
            self.emit(col, "\\frac")
            self.want = _Owner("frac", 2, col)
        elif kind == "cs" and value == "sqrt":
            self.start_operand(tok)
            self.emit(col, "\\sqrt")
            toks = self.toks
            if i + 1 < len(toks) and toks[i + 1][:2] == ("op", "["):
                index = toks[i + 2] if i + 2 < len(toks) else None
                close = toks[i + 3] if i + 3 < len(toks) else None
                if (index is None or index[0] != "num" or not index[1].isdigit() or not 2 <= int(index[1]) <= 100
                        or close is None or close[:2] != ("op", "]")):
                    raise InputError("the root's index must be a whole number from 2 to 100, as in \\sqrt[3]{…}",
                                     toks[i + 1][2])
                self.emit(index[2], "[")
                self.leaf(index)
                self.emit(index[2], "]")
                self.skip = 3
            self.want = _Owner("sqrt", 1, col)
        elif kind == "cs" and value in _FUNCS:
            self.start_operand(tok)
            nxt = self.toks[i + 1] if i + 1 < len(self.toks) else None
            if nxt is not None and nxt[:2] == ("op", "^"):
                raise InputError(f"\\{value}^… is ambiguous: write (\\{value} x)^{{n}}", col)
            # ( \exp [ x ] ) and ( \ln [ x ] ) (\log too: natural): measured, square brackets keep the
            # parser's prediction short (\ln( ten deep: 0.4 s cold, with ( … ): 2.6 s) and the outer
            # parentheses keep (\ln[x])^{2} from meaning \ln[x^{2}]
            self.emit(col, "(", "\\exp" if value == "exp" else "\\ln")
            self.want = _Owner("exp" if value == "exp" else "ln", 1, col, (")",))
        elif kind == "cs" and value == "infty":
            raise InputError("infinity is only allowed alone, in a bias or as mask_value", col)
        elif kind in ("begin", "end"):
            raise InputError("a matrix environment must be the whole field, not part of an entry", col)
        elif value in ("&", "\\"):
            raise InputError("& and \\\\ separate matrix entries, inside \\begin{bmatrix} … \\end{bmatrix}", col)
        else:
            raise InputError(f"unexpected {_shown(tok)} in {_short(self.text)!r}", col)

    def finish(self) -> None:
        """The entry ends (at ``stop``: & or \\\\ or \\end, or the end of the text)."""
        if self.want is None and not self.stack and self.level.prev == "operand":
            return
        stop = self.stop
        expected = ("an argument in {…}" if self.want is not None
                    else repr(self.stack[-1][1]) if self.stack and self.level.prev == "operand" else "a number")
        if stop is None:
            raise InputError(f"the LaTeX {_short(self.text)!r} ends too early: expected {expected}",
                             len(self.text) + 1)
        raise InputError(f"expected {expected}, found {_shown(stop)}", stop[2])


_OWNER_SHOWN = {"frac": "\\frac{…}{…}", "sqrt": "\\sqrt{…}", "^": "x^{…}"}


# -- stage 2: the parser ---------------------------------------------------------------------------

def _load_parser() -> Any:
    """latex2sympy2_extended's entry point, or an InputError naming the real cause."""
    try:
        from latex2sympy2_extended import latex2sympy
    except Exception as e:  # ImportError, an unsupported antlr4 runtime, a broken install
        cause = " ".join(f"{type(e).__name__}: {e}".split())
        fix = ("pip install 'antlr4-python3-runtime==4.13.2' (latex2sympy2_extended supports the antlr4 runtimes "
               "4.9.3, 4.11 and 4.13.2)" if "antlr" in cause.lower() else f"pip install '{PARSER_PACKAGE}'")
        raise InputError(f"reading LaTeX needs the package latex2sympy2_extended, which could not be imported "
                         f"({cause}); {fix}") from None
    return functools.partial(latex2sympy, normalization_config=None)


_PARSER: list[Any] = []
#: ``\phantom{…}`` is an identity in latex2sympy2_extended that keeps its top rule (sets, intervals,
#: tuples) from predicting over the whole entry, which made nested parentheses slow
_WRAP = ("\\phantom{", "}")
#: parsed shapes, oldest first; at most this many are kept
_SHAPES: dict[tuple[str, ...], tuple[Any, int | None, str]] = {}
_SHAPES_KEPT = 4096
_TOO_DEEP = "the entry is too deep for the parser"


def _shape(key: tuple[str, ...], budget: ParseBudget, column: int) -> tuple[Any, int | None, str]:
    """The parsed shape of an entry, from the cache or (spending the budget) from the parser."""
    hit = _SHAPES.get(key)
    if hit is not None:
        return hit
    budget.spend(len(key), column)
    result = _parse_shape(key)
    if result[2] == _TOO_DEEP:  # depends on the caller's stack, not on the shape: not kept
        return result
    if len(_SHAPES) >= _SHAPES_KEPT:
        del _SHAPES[next(iter(_SHAPES))]
    _SHAPES[key] = result
    return result


def _parse_shape(key: tuple[str, ...]) -> tuple[Any, int | None, str]:
    """The SymPy tree of one canonical entry (placeholders ``p0``, ``p1``, … in order) parsed
    under ``evaluate(False)``, or None with the canonical token index and text of the error."""
    if not _PARSER:
        _PARSER.append(_load_parser())
    parts = [_WRAP[0]]
    starts = []
    pos = len(_WRAP[0])
    k = 0
    for c in key:
        if c == "P":
            c = f"\\variable{{p{k}}}"
            k += 1
        starts.append(pos)
        parts.append(c + " ")
        pos += len(c) + 1
    parts.append(_WRAP[1])
    paused = gc.isenabled()  # ANTLR allocates many short-lived cycles: collecting them one by one
    gc.disable()  # during a parse costs more than the parse (up to 3x, with a large heap)
    try:
        with sympy.evaluate(False):
            return _PARSER[0]("".join(parts)), None, ""
    except RecursionError:  # the nesting limit keeps the parser within about 550 frames: a deep caller
        return None, None, _TOO_DEEP
    except Exception as e:  # a syntax error: its text ends with a line of ~ and a ^ under the place
        lines = str(e).split("\n")
        at = len(lines[-1]) - 1 if len(lines) >= 3 and lines[-1].endswith("^") else None
        index = max(bisect.bisect_right(starts, at) - 1, 0) if at is not None else None
        return None, index, " ".join(lines[0].split())[:200]
    finally:
        if paused:
            gc.enable()


# -- stage 3: the tree, rebuilt by the bounded evaluator -------------------------------------------

_HALF = sympy.Rational(1, 2)


class _Reciprocal:
    """1/x as the parser writes a divisor or a root's index, before it is used."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


class _Rebuild:
    """Walk the parser's tree (iteratively) and build its value through the evaluator. Only
    what the canonical grammar produces passes: placeholders, sums, products, powers, square
    roots, exp, logs, and the constants -1, 1/2 and E that the parser itself writes."""

    def __init__(self, canon: _Canon, names: Mapping[str, Any], allow_symbols: bool, ev: Evaluator) -> None:
        self.canon, self.names, self.allow_symbols, self.ev = canon, names, allow_symbols, ev

    def __call__(self, tree: Any) -> Any:
        done: dict[int, tuple[Any, int | None]] = {}  # id(node) -> (value, column of its first leaf)
        keep = []  # the nodes whose ids are in done stay alive
        stack: list[tuple[Any, bool]] = [(tree, False)]
        while stack:
            node, ready = stack.pop()
            args = node.args if isinstance(node, sympy.Basic) and not node.is_Atom else ()
            if args and not ready:
                stack.append((node, True))
                stack.extend((a, False) for a in args)
                continue
            keep.append(node)
            done[id(node)] = self.node(node, [done[id(a)] for a in args])
        return self.plain(done[id(tree)])

    def plain(self, vc: tuple[Any, int | None]) -> Any:
        value, col = vc
        if isinstance(value, _Reciprocal):
            return self.ev.div(sympy.Integer(1), value.value, col)
        return value

    def leaf(self, index: int) -> Any:
        kind, value, col = self.canon.leaves[index]
        ev = self.ev
        if kind == "num":
            try:
                return ev.value(decimal_to_rational(Decimal(value)))
            except InputError as e:
                raise InputError(e.message, col) from None
        if kind == "pi":
            return ev.constant("pi")
        if kind == "e" or value == "e":
            return ev.constant("e")
        if value in self.names:
            v = self.names[value]
            return ev.value(v if isinstance(v, sympy.Basic) else sympy.Integer(v))
        if self.allow_symbols:
            return ev.symbol(symbol(value))
        known = sorted(self.names)
        raise InputError(f"unknown name {value!r} in {_short(self.canon.text)!r}"
                         + (did_you_mean(value, known) if known else "; only numbers are allowed here"), col)

    def node(self, node: Any, args: list[tuple[Any, int | None]]) -> tuple[Any, int | None]:
        ev = self.ev
        cols = [c for _, c in args if c is not None]
        col = min(cols) if cols else None
        if isinstance(node, sympy.Symbol):
            name = node.name
            if name[:1] == "p" and name[1:].isdigit() and int(name[1:]) < len(self.canon.leaves):
                index = int(name[1:])
                return self.leaf(index), self.canon.leaves[index][2]
        elif node == -1 or node == _HALF or node == sympy.E:  # written by the parser: a sign, sqrt, ln's base
            return node, None
        elif isinstance(node, sympy.Add) and args:
            acc = self.plain(args[0])
            for vc in args[1:]:
                acc = ev.add(acc, self.plain(vc), vc[1])
            return acc, col
        elif isinstance(node, sympy.Mul) and args:
            negative = False
            acc: Any = None
            divisors = []
            for a, (v, c) in zip(node.args, args):
                if a == -1:
                    negative = not negative
                elif isinstance(v, _Reciprocal):
                    divisors.append((v.value, c))
                else:
                    acc = v if acc is None else ev.mul(acc, v, c)
            acc = sympy.Integer(1) if acc is None else acc
            for v, c in divisors:
                acc = ev.div(acc, v, c)
            return (ev.neg(acc) if negative else acc), col
        elif isinstance(node, sympy.Pow) and len(args) == 2:
            (base, cb), (exponent, ce) = args
            base = self.plain((base, cb))
            if node.args[1] == -1:  # 1/x: a divisor, or a root's index
                return _Reciprocal(base), cb
            if node.args[1] == _HALF:
                return ev.apply("sqrt", base, cb), cb
            return ev.power(base, self.plain((exponent, ce)), ce), col
        elif isinstance(node, sympy.log) and args and (len(args) == 1 or node.args[1] == sympy.E):
            return ev.apply("log", self.plain(args[0]), args[0][1]), col
        elif isinstance(node, sympy.exp) and len(args) == 1:
            return ev.apply("exp", self.plain(args[0]), args[0][1]), col
        raise InputError(f"LaTeX {type(node).__name__} is not allowed here", col)


# -- the whole text --------------------------------------------------------------------------------

def _entry(text: str, toks: list[Tok], stop: Tok | None, names: Mapping[str, Any], allow_symbols: bool,
           allow_inf: bool, ev: Evaluator, budget: ParseBudget) -> Any:
    """One scalar entry: ±∞ alone, or the front-end, the parser and the bounded rebuild."""
    if not toks:
        if stop is None:
            raise InputError("empty LaTeX where a number was expected")
        raise InputError(f"an empty matrix entry before {_shown(stop)}", stop[2])
    signed = toks[0][:2] in (("op", "-"), ("op", "+"))
    if len(toks) == 1 + signed and toks[-1][:2] == ("cs", "infty"):
        if not allow_inf:
            raise InputError("infinity is only allowed alone, in a bias or as mask_value", toks[-1][2])
        return -sympy.oo if toks[0][1] == "-" else sympy.oo
    first = toks[0][2]
    canon = _Canon(text, toks, stop)  # linear: the whitelist's grammar and the nesting limit first
    if toks[-1][2] - first >= MAX_TEXT:
        raise InputError(f"a LaTeX entry longer than {MAX_TEXT} characters", first)
    tree, at, message = _shape(tuple(canon.key), budget, first)
    if tree is None:  # the front-end lets through only what the parser reads, so this is a safety net
        col = canon.cols[at] if at is not None and at < len(canon.cols) else first
        raise InputError(f"the LaTeX parser cannot read {_short(text)!r}: {message}", col)
    return _Rebuild(canon, names, allow_symbols, ev)(tree)


def _matrix(text: str, toks: list[Tok], names: Mapping[str, Any], allow_symbols: bool, allow_inf: bool,
            ev: Evaluator, budget: ParseBudget) -> sympy.Matrix:
    """A matrix environment, split into entries at each & and \\\\ (linear); each entry is parsed
    on its own, so the parser only ever sees one small entry."""
    _, env, col0 = toks[0]
    rows: list[list[Any]] = [[]]
    start = 1
    for j in range(1, len(toks)):
        kind, value, col = toks[j]
        if kind == "begin":
            raise InputError("a matrix inside a matrix entry", col)
        sep = kind == "op" and value == "&"
        if not (sep or kind == "end" or (kind == "cs" and value == "\\")):
            continue
        cell = toks[start:j]
        start = j + 1
        if cell or sep or rows[-1]:  # not the empty tail after a last \\
            try:
                rows[-1].append(_entry(text, cell, toks[j], names, allow_symbols, allow_inf, ev, budget))
            except InputError as e:
                raise InputError(f"row {len(rows)}, column {len(rows[-1]) + 1}: {e.message}", e.column) from None
        if kind == "end":
            if value != env:
                raise InputError(f"\\begin{{{env}}} ended by \\end{{{value}}}", col)
            if j != len(toks) - 1:
                raise InputError(f"unexpected {_shown(toks[j + 1])} after \\end{{{env}}}", toks[j + 1][2])
            break
        if not sep:
            rows.append([])
    else:
        raise InputError(f"\\begin{{{env}}} without \\end{{{env}}}", col0)
    if not rows[-1]:
        rows.pop()
    if not rows:
        raise InputError("an empty matrix", col0)
    width = len(rows[0])
    for r, row in enumerate(rows):
        if len(row) != width:
            raise InputError(f"ragged matrix: row 1 has {width} entries, row {r + 1} has {len(row)}", col0)
    return sympy.Matrix(rows)


def parse_latex(text: str, names: Mapping[str, Any] | None = None, allow_symbols: bool = False,
                allow_inf: bool = False, evaluator: Evaluator | None = None,
                budget: ParseBudget | None = None) -> Any:
    """An exact SymPy number (or Matrix) from LaTeX, built through the bounded evaluator.

    ``names`` maps allowed names (``d_k``) to values; other names are symbols when
    ``allow_symbols``, else an error. ``allow_inf`` admits ``\\infty`` or ``-\\infty``
    standing alone (an entry of a bias, or mask_value). ``budget`` is the parser work left
    for the file the text is in (by default, a fresh :class:`ParseBudget`).

    >>> parse_latex(r"\\begin{pmatrix} 0 & -\\infty \\end{pmatrix}", allow_inf=True)
    Matrix([[0, -oo]])
    >>> parse_latex(r"1 - \\infty")
    Traceback (most recent call last):
    ...
    symattn.errors.InputError: infinity is only allowed alone, in a bias or as mask_value (at character 5)
    >>> parse_latex(r"\\frac{1}{0}")
    Traceback (most recent call last):
    ...
    symattn.errors.InputError: division by zero (at character 10)
    >>> parse_latex(r"2\\frac{1}{2}")
    Traceback (most recent call last):
    ...
    symattn.errors.InputError: a number directly before \\frac is ambiguous (a mixed number or a product): write 2 + \\frac{1}{2} or 2 \\cdot \\frac{1}{2} (at character 2)
    """
    if not isinstance(text, str):
        raise InputError(f"expected LaTeX text, got {type(text).__name__}")
    if len(text) > MAX_LATEX:
        raise InputError(f"LaTeX longer than {MAX_LATEX} characters")
    toks = _tokens(text)
    names = names or {}
    ev = evaluator or Evaluator()
    budget = budget or ParseBudget()
    if toks and toks[0][0] == "begin":
        return _matrix(text, toks, names, allow_symbols, allow_inf, ev, budget)
    if len(toks) > 2 and toks[1][0] == "begin" and (toks[0][1], toks[-1][1]) in (("(", ")"), ("[", "]")):
        return _matrix(text, toks[1:-1], names, allow_symbols, allow_inf, ev, budget)  # \left[ … \right]
    return _entry(text, toks, None, names, allow_symbols, allow_inf, ev, budget)
