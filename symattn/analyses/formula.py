"""Attention formulas written in LaTeX, recognised: standard scaled dot-product attention,
unscaled dot-product attention, or something else.

Formulas are read by a small parser of their own (general LaTeX parsers cannot read
``\\operatorname``, sums without bounds, or non-commuting matrix products):

>>> f = parse_formula(r"\\text{softmax}\\left(\\frac{QK^T}{\\sqrt{d_k}}\\right)V")
>>> f.kind, f.scale
('scaled_dot_product', '1/sqrt(d_k)')
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import sympy

from ..display import render
from ..errors import InputError
from ..limits import MAX_FORMULA, MAX_FORMULA_DEPTH as MAX_DEPTH
from ..pipeline.notation import Softmax
from ..read.bounded import Evaluator

__all__ = ["parse_formula", "Formula", "MAX_FORMULA", "MAX_DEPTH"]

#: operations in a scale up to which SymPy's simplify may compare it with 1/sqrt(d_k)
_SIMPLIFY_MAX_OPS = 40

@dataclass
class Formula:
    """What a formula is: ``scaled_dot_product``, ``dot_product`` or ``other``."""

    kind: str
    scale: str | None
    expression: str
    form: str  # "matrix" (softmax(QKᵀ)V) or "sum" (Σ_i exp(q·k_i)/Σ_j exp(q·k_j) v_i) or "unknown"
    reason: str = ""

    def __str__(self) -> str:
        return render(self, "text") or repr(self)

    def _repr_markdown_(self) -> str | None:
        return render(self, "markdown")


_SOFTMAX = re.compile(r"\\(?:operatorname|text|mathrm|textrm|mathit|mathsf|textit)\s*\{\s*softmax\s*\}", re.I)
_T = r"(?:T|\\top|\\intercal|\\mathsf\s*\{\s*T\s*\}|\\mathrm\s*\{\s*T\s*\}|\\rm\s*T)"
_TRANSPOSE = re.compile(r"\^\s*(?:\{\s*" + _T + r"\s*\}|" + _T + r"(?![A-Za-z]))")


def _rhs(t: str) -> str:
    """The right-hand side of ``Attention(Q, K, V) = ...`` (the last '=' outside braces)."""
    depth, cut = 0, -1
    for i, ch in enumerate(t):
        if ch in "{(":
            depth += 1
        elif ch in "})":
            depth -= 1
        elif ch == "=" and depth == 0:
            cut = i
    return t[cut + 1:] if cut >= 0 else t


def _normalise(text: str) -> str:
    t = _rhs(text.strip().strip("$"))
    t = _SOFTMAX.sub(r"\\softmax", t)
    t = re.sub(r"(?<![A-Za-z\\])softmax", r"\\softmax", t, flags=re.I)
    t = re.sub(r"\\(?:operatorname|text|mathrm)\s*\{\s*exp\s*\}", r"\\exp", t)
    t = re.sub(r"(?<![A-Za-z\\])exp(?=\s*[({])", r"\\exp", t)
    t = re.sub(r"\\(?:left|right|displaystyle|big|Big|bigg|Bigg)(?![A-Za-z])", " ", t)
    t = re.sub(r"\\[,;!:]|\\q?quad(?![A-Za-z])|~", " ", t)
    t = _TRANSPOSE.sub("^{T}", t)
    t = re.sub(r"\\(?:mathbf|boldsymbol|bm|mathit|mathrm)\s*\{\s*([A-Za-z])\s*\}", r"\1", t)
    t = re.sub(r"\^\s*\{\s*(?:<|\\langle|\()\s*([A-Za-z0-9]+)\s*(?:>|\\rangle|\))\s*\}", r"_{\1}", t)
    t = re.sub(r"\\(?:cdot|times|ast)(?![A-Za-z])", "*", t)
    t = re.sub(r"(?<=[A-Za-z}])\s*\.\s*(?=[A-Za-z\\])", "*", t)  # q.k written with a period
    t = re.sub(r"\\text\s*\{\s*Attention\s*\}", "A", t)
    t = re.sub(r"\\operatorname\s*\{\s*Attention\s*\}|\\mathrm\s*\{\s*Attention\s*\}", "A", t)
    return t


_TOKEN = re.compile(r"\s*(?:(?P<cs>\\[A-Za-z]+)|(?P<num>\d+(?:\.\d+)?)|(?P<name>[A-Za-z])|(?P<op>[-+*/^_(){}=,\[\]<>]))")
_FUNCS = {"\\softmax", "\\exp", "\\frac", "\\sqrt", "\\sum", "\\log", "\\ln", "\\top", "\\tau", "\\alpha",
          "\\beta", "\\sigma", "\\lambda"}


class _FormulaParser:
    def __init__(self, text: str) -> None:
        self.toks: list[tuple[str, str, int]] = []
        pos = 0
        text = text.rstrip()
        while pos < len(text):
            m = _TOKEN.match(text, pos)
            if not m:
                raise InputError(f"cannot read the formula at {text[pos:pos + 12]!r}", pos + 1)
            kind = m.lastgroup or "op"
            val = m.group(kind)
            if kind == "cs" and val not in _FUNCS:
                raise InputError(f"LaTeX command {val} is not allowed in a formula", m.start(kind) + 1)
            self.toks.append((kind, val, m.start(kind) + 1))
            pos = m.end()
        self.i = 0
        self.depth = 0

    def peek(self) -> tuple[str, str, int] | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def take(self, v: str | None = None) -> tuple[str, str, int]:
        t = self.peek()
        if t is None:
            raise InputError("the formula ends too early" + (f": expected {v!r}" if v else ""))
        if v is not None and t[1] != v:
            raise InputError(f"expected {v!r} in the formula, found {t[1]!r}", t[2])
        self.i += 1
        return t

    def enter(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            col = self.peek()[2] if self.peek() else None  # type: ignore[index]
            raise InputError(f"formula nested deeper than {MAX_DEPTH} levels", col)

    def leave(self) -> None:
        self.depth -= 1

    def parse(self) -> Any:
        e = self.expr()
        if self.peek() and self.peek()[1] == "=":  # type: ignore[index]
            self.take("=")
            e = self.expr()  # the right-hand side is the formula
        if self.peek() is not None:
            raise InputError(f"unexpected {self.peek()[1]!r} in the formula", self.peek()[2])  # type: ignore[index]
        return e

    def expr(self) -> Any:
        terms = [self.term()]
        while (t := self.peek()) and t[1] in "+-" and t[0] == "op":
            self.take()
            x = self.term()
            terms.append(("neg", x) if t[1] == "-" else x)
        return terms[0] if len(terms) == 1 else ("add", terms)

    def _starts_factor(self, t: tuple[str, str, int] | None) -> bool:
        return t is not None and (t[0] in ("name", "num") or t[1] in ("(", "{", "\\softmax", "\\exp", "\\frac",
                                                                      "\\sqrt", "\\sum", "\\log", "\\ln")
                                  or (t[0] == "cs" and t[1] not in ("\\top",)))

    def term(self) -> Any:
        factors = [self.unary()]
        while True:
            t = self.peek()
            if t and t[1] == "*":
                self.take()
                factors.append(self.unary())
            elif t and t[1] == "/":
                self.take()
                factors = [("div", ("mul", factors) if len(factors) > 1 else factors[0], self.unary())]
            elif self._starts_factor(t):
                factors.append(self.unary())
            else:
                break
        return factors[0] if len(factors) == 1 else ("mul", factors)

    def unary(self) -> Any:
        t = self.peek()
        if t and t[1] == "-":
            self.take()
            self.enter()
            e = ("neg", self.unary())
            self.leave()
            return e
        return self.postfix()

    def group(self) -> Any:
        t = self.peek()
        self.enter()
        if t and t[1] == "{":
            self.take()
            e = self.expr() if self.peek() and self.peek()[1] != "}" else ("empty",)  # type: ignore[index]
            self.take("}")
        else:
            e = self.postfix(simple=True)
        self.leave()
        return e

    def sum_index(self) -> str | None:
        """The index of ``\\sum_i`` or ``\\sum_{i=1}``: the first letter (bounds are ignored)."""
        t = self.take()
        if t[1] != "{":
            return t[1] if t[0] == "name" else None
        index, depth = None, 1
        while depth:
            t = self.take()
            if t[1] == "{":
                depth += 1
            elif t[1] == "}":
                depth -= 1
            elif t[0] == "name" and index is None:
                index = t[1]
        return index

    def postfix(self, simple: bool = False) -> Any:
        base = self.primary()
        while (t := self.peek()) and t[1] in ("^", "_"):
            self.take()
            arg = self.group()
            if t[1] == "^":
                base = ("T", base) if arg == ("sym", "T", None) else ("pow", base, arg)
            else:
                base = ("sub", base, arg)
            if simple:
                break
        return base

    def primary(self) -> Any:
        kind, val, col = self.take()
        if kind == "num":
            return ("num", sympy.Rational(val))
        if kind == "name":
            return ("sym", val, None)
        if val in ("(", "{", "["):
            close = {"(": ")", "{": "}", "[": "]"}[val]
            self.enter()
            e = self.expr()
            self.take(close)
            self.depth -= 1
            return e
        if val == "\\frac":
            return ("div", self.group(), self.group())
        if val == "\\sqrt":
            return ("pow", self.group(), ("num", sympy.Rational(1, 2)))
        if val in ("\\softmax", "\\exp", "\\log", "\\ln"):
            t = self.peek()
            while t and t[1] in ("_", "^"):  # softmax_{keys} etc.
                self.take()
                self.group()
                t = self.peek()
            self.enter()
            arg = self.primary() if t and t[1] in ("(", "{", "[") else self.postfix()
            self.leave()
            return ({"\\softmax": "softmax", "\\exp": "exp"}.get(val, "log"), arg)
        if val == "\\sum":
            index = None
            while (t := self.peek()) and t[1] in ("_", "^"):
                self.take()
                if t[1] == "_":
                    index = self.sum_index()
                else:
                    self.group()
            self.enter()
            body = self.term()
            self.depth -= 1
            return ("sum", index, body)
        if val in ("\\tau", "\\alpha", "\\beta", "\\sigma", "\\lambda"):
            return ("sym", val[1:], None)
        raise InputError(f"unexpected {val!r} in the formula", col)


def _first_symbol(node: Any) -> str | None:
    if isinstance(node, tuple):
        if node[0] == "sym":
            return node[1]
        for x in node[1:]:
            if isinstance(x, (tuple, list)):
                for y in (x if isinstance(x, list) else [x]):
                    s = _first_symbol(y)
                    if s:
                        return s
    return None


def _name(node: Any) -> tuple[str, str | None] | None:
    """('k', 'i') for k_i; ('Q', None) for Q."""
    if node[0] == "sym":
        return node[1], None
    if node[0] == "sub" and node[1][0] == "sym":
        sub = node[2]
        if sub[0] == "sym":
            return node[1][1], sub[1]
        if sub[0] == "num":
            return node[1][1], str(sub[1])
        return node[1][1], "".join(x[1] for x in sub[1]) if sub[0] == "mul" and all(x[0] == "sym" for x in sub[1]) else None
    return None


def _flatten(node: Any) -> list:
    if node[0] == "mul":
        out = []
        for f in node[1]:
            out += _flatten(f)
        return out
    return [node]


_DK = sympy.Symbol("d_k", positive=True)
#: builds every scalar of a formula, refusing sizes past the limits (a 10^12-digit power)
_EV = Evaluator()


def _scalar(node: Any) -> sympy.Expr | None:
    """A scalar factor (numbers, d_k, sqrt, ...) as SymPy, or None if it is not one."""
    kind = node[0]
    if kind == "num":
        return node[1]
    if kind == "sym":
        return None
    if kind == "sub" and _name(node) and _name(node)[0] == "d":  # type: ignore[index]
        return sympy.Symbol("d_" + (_name(node)[1] or "").lower().replace("model", "model"), positive=True)  # type: ignore[index]
    if kind == "pow":
        b, e = _scalar(node[1]), _scalar(node[2])
        return None if b is None or e is None else _EV.power(b, e)
    if kind == "div":
        a, b = _scalar(node[1]), _scalar(node[2])
        return None if a is None or b is None or b == 0 else _EV.div(a, b)
    if kind == "mul":
        out: sympy.Expr = sympy.Integer(1)
        for f in node[1]:
            s = _scalar(f)
            if s is None:
                return None
            out = _EV.mul(out, s)
        return out
    if kind == "neg":
        s = _scalar(node[1])
        return None if s is None else _EV.neg(s)
    if kind == "empty":
        return sympy.Integer(1)
    return None


def _split(node: Any) -> tuple[sympy.Expr, list] | None:
    """A product as (scalar factor, the non-scalar factors in order); handles a/b."""
    if node[0] == "div":
        num = _split(node[1])
        den = _scalar(node[2])
        if num is None or den is None or den == 0:
            return sympy.Integer(1), [node]  # a quotient of non-scalars stays one factor
        return _EV.div(num[0], den), num[1]
    if node[0] == "neg":
        inner = _split(node[1])
        return None if inner is None else (-inner[0], inner[1])
    scale, rest = sympy.Integer(1), []
    for f in _flatten(node):
        s = _scalar(f)
        if s is not None:
            scale = _EV.mul(scale, s)
        elif f[0] == "div":
            sub = _split(f)
            if sub is None:
                return None
            scale = _EV.mul(scale, sub[0])
            rest += sub[1] if sub[1] != [f] else [f]
        else:
            rest.append(f)
    return scale, rest


def _same(a: sympy.Expr, b: sympy.Expr) -> bool:
    """a == b, by SymPy's simplify only when both are small (its time is not bounded otherwise)."""
    if a == b:
        return True
    if sympy.count_ops(a) + sympy.count_ops(b) > _SIMPLIFY_MAX_OPS:
        return False
    return sympy.simplify(a - b) == 0


def _kind(scale: sympy.Expr) -> str:
    if scale == 1:
        return "dot_product"
    if _same(scale, 1 / sympy.sqrt(_DK)):
        return "scaled_dot_product"
    return "other"


def _matrix_form(node: Any) -> Formula | None:
    parts = _split(node)
    if parts is None:
        return None
    outer, factors = parts
    if len(factors) != 2 or factors[0][0] != "softmax":
        return None
    v = _name(factors[1])
    inner = _split(factors[0][1])
    if inner is None or v is None or v[0] not in ("V", "v"):
        return None
    scale, mats = inner
    names = [("T", _name(m[1])) if m[0] == "T" else ("", _name(m)) for m in mats]
    if len(names) != 2 or names[0][0] != "" or names[1][0] != "T" or not names[0][1] or not names[1][1]:
        return None
    q, k = names[0][1][0], names[1][1][0]  # type: ignore[index]
    n, m, dk, dv = sympy.symbols("n m d_k d_v", positive=True, integer=True)
    Q, K, Vm = sympy.MatrixSymbol(q, n, dk), sympy.MatrixSymbol(k, m, dk), sympy.MatrixSymbol(v[0], m, dv)
    scores = sympy.MatMul(Q, K.T) if scale == 1 else sympy.MatMul(scale, Q, K.T)
    expr = sympy.MatMul(Softmax(scores), Vm)
    if outer != 1:
        expr = outer * expr
    if (q.lower(), k.lower()) != ("q", "k"):
        return Formula("other", str(scale), str(expr), "matrix", f"a softmax of {q}{k}ᵀ, not of QKᵀ")
    if outer != 1:
        return Formula("other", str(scale), str(expr), "matrix", f"the result is multiplied by {outer}")
    kind = _kind(scale)
    reason = "" if kind != "other" else f"the scores are scaled by {scale}, not 1/sqrt(d_k)"
    return Formula(kind, str(scale), str(expr), "matrix", reason)


def _exp_arg(node: Any) -> Any:
    if node[0] == "exp":
        return node[1]
    if node[0] == "pow" and node[1] == ("sym", "e", None):
        return node[2]
    return None


def _score(node: Any, index: str) -> tuple[sympy.Expr, str, str] | None:
    """c·(q·k_index) -> (c, 'q', 'k')."""
    parts = _split(node)
    if parts is None:
        return None
    scale, vecs = parts
    if len(vecs) == 1 and vecs[0][0] == "mul":
        vecs = _flatten(vecs[0])
    if len(vecs) != 2:
        return None
    a, b = _name(vecs[0] if vecs[0][0] != "T" else vecs[0][1]), _name(vecs[1])
    if not a or not b or b[1] != index or a[1] not in (None,):
        return None
    return scale, a[0], b[0]


def _sum_form(node: Any) -> Formula | None:
    if node[0] != "sum" or not node[1]:
        return None
    i = node[1]
    parts = _split(node[2])
    if parts is None:
        return None
    outer, factors = parts
    num = den = v = None
    for f in factors:
        if f[0] == "div":
            num, den = f[1], f[2]
        elif _exp_arg(f) is not None:
            num = f
        elif f[0] == "pow" and f[2] == ("num", -1):
            den = f[1]
        elif _name(f) and _name(f)[1] == i:  # type: ignore[index]
            v = _name(f)[0]  # type: ignore[index]
        else:
            return None
    if num is None or den is None or v is None:
        return None
    num_parts = _split(num)
    if num_parts is None:
        return None
    if len(num_parts[1]) == 2 and v is None:
        return None
    top = [x for x in num_parts[1] if _exp_arg(x) is not None]
    others = [x for x in num_parts[1] if _exp_arg(x) is None]
    if len(top) != 1 or others:
        if len(top) == 1 and len(others) == 1 and _name(others[0]) and _name(others[0])[1] == i:  # type: ignore[index]
            v = _name(others[0])[0]  # type: ignore[index]
        else:
            return None
    s_top = _score(_exp_arg(top[0]), i)
    if den[0] != "sum" or not den[1]:
        return None
    j = den[1]
    den_parts = _split(den[2])
    if den_parts is None or len(den_parts[1]) != 1 or _exp_arg(den_parts[1][0]) is None:
        return None
    s_den = _score(_exp_arg(den_parts[1][0]), j)
    if s_top is None or s_den is None:
        return None
    c1, q1, k1 = s_top
    c2, q2, k2 = s_den
    scale = c1 * outer * num_parts[0] / den_parts[0]
    iq, jq = sympy.symbols(f"{i} {j}", integer=True, positive=True)
    m = sympy.Symbol("m", integer=True, positive=True)
    q = sympy.Symbol(q1)
    kb, vb = sympy.IndexedBase(k1), sympy.IndexedBase(v)
    dot = sympy.Function("dot")
    expr = sympy.Sum(sympy.exp(c1 * dot(q, kb[iq])) * vb[iq] / sympy.Sum(sympy.exp(c2 * dot(q, kb[jq])), (jq, 1, m)),
                     (iq, 1, m))
    del scale
    if (q1, k1) != (q2, k2) or not _same(c1, c2):
        return Formula("other", str(c1), str(expr), "sum", "the numerator and the denominator use different scores")
    if outer * num_parts[0] / den_parts[0] != 1:
        return Formula("other", str(c1), str(expr), "sum", "the weights do not sum to 1")
    kind = _kind(c1)
    reason = "" if kind != "other" else f"the scores are scaled by {c1}, not 1/sqrt(d_k)"
    return Formula(kind, str(c1), str(expr), "sum", reason)


def parse_formula(text: str) -> Formula:
    """Recognise an attention formula written in LaTeX: standard scaled dot-product
    attention, unscaled dot-product attention, or something else.

    >>> parse_formula(r"\\operatorname{softmax}(QK^\\top)V").kind
    'dot_product'
    >>> parse_formula(r"\\sum_i \\frac{\\exp(q\\cdot k_i)}{\\sum_j \\exp(q\\cdot k_j)} v_i").form
    'sum'
    """
    if not isinstance(text, str) or not text.strip():
        raise InputError("expected a formula in LaTeX")
    if len(text) > MAX_FORMULA:
        raise InputError(f"formula longer than {MAX_FORMULA} characters")
    norm = _normalise(text)
    tree = _FormulaParser(norm).parse()
    _check_depth(tree)
    for recognise in (_matrix_form, _sum_form):
        f = recognise(tree)
        if f is not None:
            return f
    return Formula("other", None, _describe(tree), "unknown",
                   "not of the form softmax(c·QKᵀ)V or Σ_i exp(c·q·k_i)/Σ_j exp(c·q·k_j) v_i")


def _check_depth(tree: Any) -> None:
    """The parse tree is at most MAX_DEPTH deep (x^x^…^x nests without groups), checked without
    recursion, so that the recognisers below, which recurse, stay far from Python's limit."""
    stack = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise InputError(f"formula nested deeper than {MAX_DEPTH} levels")
        for x in node[1:] if isinstance(node, tuple) else node:
            if isinstance(x, (tuple, list)):
                stack.append((x, depth + 1))


def _describe(node: Any) -> str:
    """A readable form of a parse tree that is not attention."""
    kind = node[0]
    if kind == "sym":
        return node[1]
    if kind == "num":
        return str(node[1])
    if kind == "mul":
        return "*".join(_describe(f) for f in node[1])
    if kind == "add":
        return " + ".join(_describe(f) for f in node[1])
    if kind == "div":
        return f"({_describe(node[1])})/({_describe(node[2])})"
    if kind == "pow":
        return f"({_describe(node[1])})^({_describe(node[2])})"
    if kind == "sub":
        return f"{_describe(node[1])}_{_describe(node[2])}"
    if kind == "T":
        return f"{_describe(node[1])}.T"
    if kind in ("softmax", "exp", "log", "neg"):
        return f"{kind}({_describe(node[1])})"
    if kind == "sum":
        return f"Sum_{node[1]}({_describe(node[2])})"
    return kind
