"""The two printers of symattn: one for LaTeX, one for plain text (Unicode). Every formula,
written-out entry, exact value, proof line and closed form is a SymPy expression printed by
one of them (``_print_X`` methods, dispatch by type); nothing is converted between LaTeX
and text.

>>> import sympy
>>> from symattn.pipeline.notation import Num, entry
>>> K = sympy.MatrixSymbol("K", 3, 2)
>>> latex(K.T), text(K.T)
('K^{\\\\top}', 'Kᵀ')
>>> latex(sympy.exp(2) / (1 + 2 * sympy.exp(2))), text(sympy.exp(2) / (1 + 2 * sympy.exp(2)))
('\\\\frac{e^{2}}{1 + 2 e^{2}}', 'e²/(1 + 2e²)')
>>> latex(sympy.Rational(279, 250) * sympy.sqrt(2) / 2), text(sympy.Rational(279, 250) * sympy.sqrt(2) / 2)
('\\\\frac{279 \\\\sqrt{2}}{500}', '279√2/500')
>>> q11, k11 = sympy.symbols("q_11 k_11")
>>> text(q11 * k11), latex(q11 * k11)
('k₁₁·q₁₁', 'k_{11} q_{11}')
>>> s = sympy.Add(sympy.Mul(Num("0.4"), Num("0.1"), evaluate=False),
...               sympy.Mul(Num("-0.5"), Num("0.2"), evaluate=False), evaluate=False)
>>> text(s), latex(s)
('0.4·0.1 − 0.5·0.2', '0.4 \\\\cdot 0.1 - 0.5 \\\\cdot 0.2')
>>> text(entry("stilde", ["1", "2"])), latex(entry("p", ["love", "I"]))
('s̃₁₂', 'p_{\\\\text{love},\\\\text{I}}')
>>> latex_decimal("5.07596e-435"), latex_decimal("-inf")
('5.07596 \\\\times 10^{-435}', '-\\\\infty')
>>> escape_text("\\\\input{/etc/passwd} }{ 50% & $x_1$")
'\\\\textbackslash{}input\\\\{/etc/passwd\\\\} \\\\}\\\\{ 50\\\\% \\\\& \\\\$x\\\\_1\\\\$'
>>> escape_text("τ ≤ 1 − p · Σ")
'\\\\ensuremath{\\\\tau} \\\\ensuremath{\\\\le} 1 \\\\ensuremath{-} p \\\\ensuremath{\\\\cdot} \\\\ensuremath{\\\\Sigma}'
"""

from __future__ import annotations

import re
from typing import Iterable, Sequence

import sympy
from sympy.matrices.expressions.matexpr import MatrixElement
from sympy.printing.latex import LatexPrinter as _SympyLatex
from sympy.printing.precedence import PRECEDENCE, precedence
from sympy.printing.str import StrPrinter as _SympyStr

from ..pipeline.notation import Dots, Label, Num, SumIn as SumOf

__all__ = ["LatexPrinter", "TextPrinter", "latex", "text", "latex_decimal", "escape_text", "label",
           "render_phrase", "elide", "MAX_TERMS"]

#: terms of a sum, entries of a row shown before eliding (⋯): the one elision rule of every view
MAX_TERMS = 8


def elide(n: int, limit: int = MAX_TERMS) -> list[int | None]:
    """Indices to show of ``n`` items within ``limit`` places: all of them, or the first
    ``limit − 3``, a gap (None) and the last two. The rule for rows, columns and terms.

    >>> elide(4), elide(20)
    ([0, 1, 2, 3], [0, 1, 2, 3, 4, None, 18, 19])
    >>> elide(20, 3)
    [0, None, 19]
    """
    if n <= limit:
        return list(range(n))
    head = max(1, limit - 3)
    tail = max(1, min(2, limit - head - 1))
    return list(range(head)) + [None] + list(range(n - tail, n))


def _canonical(expr: sympy.Basic) -> bool:
    """Whether an Add or Mul is as SymPy would build it (then it is printed in SymPy's
    order); an unevaluated one (a written-out entry) keeps its own order."""
    if expr.is_Atom:
        return True
    try:
        return expr.func(*expr.args) == expr and expr.func(*expr.args).args == expr.args
    except Exception:  # noqa: BLE001 - a display object SymPy cannot rebuild
        return False


def _written(expr: sympy.Basic) -> bool:
    """A written-out expression (printed numbers, or its own order of terms)."""
    return expr.has(Num) or not _canonical(expr)


def _split_sign(term: sympy.Basic) -> tuple[bool, sympy.Basic]:
    """(negative, positive part) of a term of a sum, so that sums read ``a − b``, never
    ``a + (−b)``: a printed negative number, a product starting with one or with −1, or a
    SymPy term with a negative coefficient."""
    if isinstance(term, Num) and term.negative_text:
        return True, Num(term.name[1:])
    if isinstance(term, sympy.Mul) and term.args:
        first = term.args[0]
        if isinstance(first, Num) and first.negative_text:
            return True, sympy.Mul(Num(first.name[1:]), *term.args[1:], evaluate=False)
        if first == -1 and _written(term):
            rest = term.args[1:]
            return True, rest[0] if len(rest) == 1 else sympy.Mul(*rest, evaluate=False)
    if not _written(term) and term.could_extract_minus_sign():
        return True, -term
    return False, term


def _sum_terms(expr: sympy.Add) -> list[sympy.Basic]:
    """The terms of a sum in the order they are stored (a written-out sum keeps its own;
    SymPy's puts numbers first), with a leading negative number moved last (x − 1)."""
    terms = list(expr.args)
    if _written(expr):
        return terms
    keys = [_exponent_key(t) for t in terms] if len(terms) <= 64 else [None]
    if all(k is not None for k in keys):  # a softmax sum: 1 + e^(1/10) + e^(1/5) + … by exponent
        return [t for _, t in sorted(zip(keys, terms), key=lambda kt: kt[0])]
    if len(terms) > 1 and terms[0].is_Number and terms[0].is_negative:
        terms = terms[1:] + terms[:1]
    return terms


def _exponent_key(term: sympy.Basic) -> tuple[float, str] | None:
    """(the value of e's exponent, text) for a term c·e^x with a number x (0 for a constant)."""
    _, rest = term.as_coeff_Mul()
    if rest == 1:
        return (0.0, "")
    if isinstance(rest, sympy.exp) and not rest.args[0].free_symbols:
        try:
            return (float(rest.args[0]), str(rest.args[0]))
        except (TypeError, ValueError):
            return None
    return None


def _is_number(e: sympy.Basic) -> bool:
    return isinstance(e, Num) or (isinstance(e, sympy.Number) and e.is_finite is not False)


# -- LaTeX ----------------------------------------------------------------------------------------


class LatexPrinter(_SympyLatex):
    """SymPy's LaTeX printer with attention notation: ``^{\\top}`` for transposes,
    ``\\operatorname{softmax}``, ``\\odot``, ``e^{…}`` for exponentials (short exponents as a/b),
    exact fractions as ``\\frac``, plain (not bold) matrices, entries ``p_{\\text{love},1}``,
    ``\\cdot`` between printed numbers, and long sums elided."""

    printmethod = None  # dispatch by type only: objects' own _latex methods are not used
    _default_settings = dict(_SympyLatex._default_settings, mat_str="bmatrix", mat_delim="",
                             mul_symbol=None, fold_short_frac=False, max_terms=MAX_TERMS,
                             order="none")  # sorting a number's terms evaluates them (minutes)

    # numbers and labels
    def _print_Num(self, expr: Num) -> str:
        return latex_decimal(expr.name)

    def _print_Label(self, expr: Label) -> str:
        return label(expr.name)

    def _print_Dots(self, expr: Dots) -> str:
        return r"\cdots"

    def _print_Masked(self, expr: sympy.Basic) -> str:
        return r"-\infty"

    def _print_NegativeInfinity(self, expr: sympy.Basic) -> str:
        return r"-\infty"

    def _print_Indexed(self, expr: sympy.Indexed) -> str:
        base = self._print(expr.base)
        if "_" in base or "^" in base:
            base = "{%s}" % base
        idx = [self._print(i) for i in expr.indices]
        # p_{ij} for one-letter index symbols, p_{\text{love},1} for labels
        sep = "" if all(isinstance(i, sympy.Symbol) and not isinstance(i, Label) and len(t) == 1
                        for i, t in zip(expr.indices, idx)) else ","
        return "%s_{%s}" % (base, sep.join(idx))

    def _print_MatrixElement(self, expr: MatrixElement) -> str:
        return "%s_{%s,%s}" % (self.parenthesize(expr.parent, PRECEDENCE["Atom"], strict=True),
                               self._print(expr.i + 1), self._print(expr.j + 1))

    # functions
    def _print_exp(self, expr: sympy.Basic, exp: str | None = None) -> str:
        base = "e^{%s}" % _EXPONENT.doprint(expr.args[0])
        return base if exp is None else "\\left(%s\\right)^{%s}" % (base, exp)

    def _print_Exp1(self, expr: sympy.Basic) -> str:
        return "e"

    def _print_Softmax(self, expr: sympy.Basic) -> str:
        return r"\operatorname{softmax}\left(%s\right)_{%s}" % (
            ", ".join(self._print(x) for x in expr.args[1:]), self._print(expr.args[0]))

    def _print_Sigmoid(self, expr: sympy.Basic, exp: str | None = None) -> str:
        s = r"\sigma\left(%s\right)" % self._print(expr.args[0])
        return s if exp is None else "%s^{%s}" % (s, exp)

    # sums and products
    def _print_Add(self, expr: sympy.Add, order: str | None = None) -> str:
        terms = _sum_terms(expr)
        out = ""
        for n, k in enumerate(elide(len(terms), self._settings["max_terms"])):
            if k is None:
                out += r" + \cdots"
                continue
            neg, term = _split_sign(terms[k])
            out += ("-" if neg else "") if n == 0 else (" - " if neg else " + ")
            out += self._add_term(term, first=n == 0)
        return out

    def _add_term(self, term: sympy.Basic, first: bool = False) -> str:
        tex = self._print(term)
        # a negative number after + or −: 1.21 - \left(-1.35\right), never 1.21 - -1.35
        wrap = self._needs_add_brackets(term) or (not first and tex.lstrip().startswith("-"))
        return r"\left(%s\right)" % tex if wrap else tex

    def _print_Mul(self, expr: sympy.Mul) -> str:
        if not _written(expr):
            return super()._print_Mul(expr)
        # a written-out product: its own order; \cdot between numbers, a fraction for x·y⁻¹
        if expr.args[0] == -1:
            rest = expr.args[1:]
            inner = rest[0] if len(rest) == 1 else sympy.Mul(*rest, evaluate=False)
            return "-" + self.parenthesize(inner, PRECEDENCE["Mul"], strict=True)
        num, den = sympy.fraction(expr, exact=True)
        if den != 1:
            if self._settings["fold_short_frac"] and (den.is_Atom or isinstance(den, sympy.Pow)):
                return r"%s / %s" % (self.parenthesize(num, PRECEDENCE["Mul"], strict=True), self._print(den))
            return r"\frac{%s}{%s}" % (self._print(num), self._print(den))
        parts: list[str] = []
        prev: sympy.Basic | None = None
        for f in sympy.Mul.make_args(expr):
            tex = self._print(f)
            paren = precedence(f) < PRECEDENCE["Mul"]
            if paren:
                tex = r"\left(%s\right)" % tex
            if prev is not None:
                # a dot beside a printed number or before a fraction; juxtaposed otherwise
                dot = _is_number(prev) or _is_number(f) or tex[:1].isdigit() or tex.startswith(r"\frac")
                if isinstance(prev, sympy.Integer) and paren:
                    dot = False  # 100(1 + e^{x}), as a coefficient
                parts.append(r" \cdot " if dot else " ")
            parts.append(tex)
            prev = f
        return "".join(parts)

    # matrices
    def _print_MatrixSymbol(self, expr: sympy.Basic) -> str:
        return self._print(sympy.Symbol(expr.name))

    def _print_Transpose(self, expr: sympy.Basic) -> str:
        inner = self._print(expr.arg)
        if isinstance(expr.arg, (sympy.MatrixSymbol, sympy.Symbol, sympy.OneMatrix)):
            return "%s^{\\top}" % (inner if "^" not in inner else "{%s}" % inner)
        return "\\left(%s\\right)^{\\top}" % inner

    def _print_MatMul(self, expr: sympy.MatMul) -> str:
        coeff, mats = expr.as_coeff_mmul()
        body = r"\, ".join(self.parenthesize(m, PRECEDENCE["Mul"], strict=False) for m in mats.args)
        if coeff == 1:
            return body
        num, den = sympy.fraction(coeff)
        if num == 1 and den != 1 and not den.is_Integer:
            return r"\frac{%s}{%s}" % (body, self._print(den))
        return "%s %s" % (self.parenthesize(coeff, PRECEDENCE["Mul"], strict=True), body)

    def _print_Infinity(self, expr: sympy.Basic) -> str:
        return r"\infty"

    def _print_Tuple(self, expr: sympy.Basic) -> str:
        return r"\left(%s\right)" % ", ".join(self._print(a) for a in expr.args)

    def _print_MatAdd(self, expr: sympy.MatAdd) -> str:
        out = ""
        for n, (neg, term) in enumerate(_signed_terms(expr)):
            t = self._print(term)
            out += ("-" if neg else "") + t if n == 0 else (" - " if neg else " + ") + t
        return out

    def _print_HadamardProduct(self, expr: sympy.Basic) -> str:
        return r" \odot ".join(self.parenthesize(a, PRECEDENCE["Mul"], strict=False) for a in expr.args)

    def _print_OneMatrix(self, expr: sympy.Basic) -> str:
        return r"\mathbf{1}"

    def _print_Ones(self, expr: sympy.Basic) -> str:
        return r"\mathbf{1}^{\top}" if expr.row else r"\mathbf{1}"

    def _print_MatrixSoftmax(self, expr: sympy.Basic) -> str:
        name = r"\operatorname{softmax}" if expr.kind == "softmax" else r"\operatorname{normalize}_{\Sigma}"
        if expr.over == "queries":
            name += r"_{\text{queries}}" if expr.kind == "softmax" else r"^{\text{queries}}"
        return r"%s\left(%s\right)" % (name, self._print(expr.arg))

    def _print_Given(self, expr: sympy.Basic) -> str:
        return r"%s \text{ (given)}" % self._print(expr.arg)

    def _print_Rotary(self, expr: sympy.Basic) -> str:
        return r"\operatorname{RoPE}%s\left(%s\right)" % ("^{\top}" if expr.transposed else "", self._print(expr.arg))

    def _print_RowSum(self, expr: sympy.Basic) -> str:
        return r"\operatorname{rowsum}\left(%s\right)" % self._print(expr.args[0])

    def _print_ColSum(self, expr: sympy.Basic) -> str:
        return r"\mathbf{1}^{\top} %s" % self.parenthesize(expr.args[0], PRECEDENCE["Mul"], strict=False)

    def _print_Concat(self, expr: sympy.Basic) -> str:
        heads = list(expr.args)
        shown = [self._print(heads[k]) if k is not None else r"\dots" for k in elide(len(heads), 4)]
        return r"\operatorname{Concat}\left(%s\right)" % ", ".join(shown)

    def _print_Columns(self, expr: sympy.Basic) -> str:
        span = "%d..%d" % (expr.start, expr.stop)
        idx = (span + r",\,:") if expr.rows else (r":,\," + span)
        return "%s_{%s}" % (self.parenthesize(expr.arg, PRECEDENCE["Atom"], strict=True), idx)

    def _print_Inner(self, expr: sympy.Basic) -> str:
        return r"\langle %s, %s \rangle" % (self._print(expr.args[0]), self._print(expr.args[1]))

    def _print_SquaredNorm(self, expr: sympy.Basic) -> str:
        return r"\lVert %s \rVert^{2}" % self._print(expr.args[0])

    def _print_Partial(self, expr: sympy.Basic) -> str:
        return r"\frac{\partial %s}{\partial %s}" % (self._print(expr.args[0]), self._print(expr.args[1]))

    def _print_RowOver(self, expr: sympy.Basic) -> str:
        nums = list(expr.numerators)
        row = r",\ ".join(self._print(nums[k]) if k is not None else r"\dots"
                          for k in elide(len(nums), self._settings["max_terms"]))
        return r"\frac{\left(%s\right)}{%s}" % (row, self._print(expr.denominator))

    def _print_Chain(self, expr: sympy.Basic) -> str:
        return " = ".join(self._print(a) for a in expr.args).lstrip()

    def _print_Continued(self, expr: sympy.Basic) -> str:
        return ""

    def _print_SoftmaxEntry(self, expr: sympy.Basic) -> str:
        return r"\operatorname{softmax}\left(%s\right)_{%s}" % (self._print(expr.args[0]), self._print(expr.args[1]))

    def _print_Diag(self, expr: sympy.Basic) -> str:
        return r"\operatorname{diag}\left(%s\right)" % self._print(expr.arg)

    def _print_Determinant(self, expr: sympy.Basic) -> str:
        return r"\det %s" % self.parenthesize(expr.arg, PRECEDENCE["Mul"], strict=False)

    def _print_Elem(self, expr: sympy.Basic) -> str:
        return r"%s \in %s" % (self._print(expr.args[0]), self._print(expr.args[1]))

    def _print_Hull(self, expr: sympy.Basic) -> str:
        return r"\operatorname{conv}\{%s\}" % self._print(expr.args[0])

    def _print_SumIn(self, expr: sympy.Basic) -> str:
        f, j, where = expr.args
        return r"\sum_{%s \in %s} %s" % (self._print(j), self._print(where),
                                         self.parenthesize(f, PRECEDENCE["Mul"], strict=False))

    def _print_Dot(self, expr: sympy.Basic) -> str:
        return r"%s \cdot %s" % (self._print(expr.args[0]), self._print(expr.args[1]))

    def _print_Sum(self, expr: sympy.Sum) -> str:
        limits = expr.limits
        if len(limits) == 1 and not _generic(limits[0]):
            var, lo, hi = limits[0]
            sub = r"\sum_{%s=%s}^{%s} " % (self._print(var), self._print(lo), self._print(hi))
        else:
            sub = r"\sum_{%s} " % ",".join(self._print(v) for v, *_ in limits)
        return sub + self.parenthesize(expr.function, PRECEDENCE["Mul"], strict=True)

    def _print_Equality(self, expr: sympy.Basic) -> str:
        return "%s = %s" % (self._print(expr.lhs), self._print(expr.rhs))


def _signed_terms(expr: sympy.MatAdd) -> list[tuple[bool, sympy.Basic]]:
    """The terms of a matrix sum in their own order, each as (negative, positive part)."""
    out = []
    for a in expr.args:
        if isinstance(a, sympy.MatMul):
            coeff, rest = a.as_coeff_mmul()
            if coeff == -1:
                out.append((True, rest.doit() if len(rest.args) > 1 else rest.args[0]))
                continue
        out.append((False, a))
    return out


def _generic(limit: tuple) -> bool:
    """A summation over a whole index range written without bounds (Σ_j)."""
    _, lo, hi = limit
    return lo == 1 and isinstance(hi, sympy.Symbol) and hi.name in ("n", "m", "d")


# -- plain text (Unicode) ---------------------------------------------------------------------------

_SUB = dict(zip("0123456789+-=()aehijklmnoprstuvx", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓ"))
_SUP = dict(zip("0123456789+-=()n", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁿ"))
_GREEK = {"alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "lambda": "λ", "mu": "μ",
          "pi": "π", "sigma": "σ", "tau": "τ", "theta": "θ", "phi": "φ", "Sigma": "Σ", "Pi": "Π", "Delta": "Δ",
          "ell": "ℓ", "omega": "ω"}
_MODIFIERS = {"tilde": "\u0303", "hat": "\u0302", "bar": "\u0304", "dot": "\u0307"}


def _subscript(s: str) -> str | None:
    return "".join(_SUB[c] for c in s) if s and all(c in _SUB for c in s) else None


def _superscript(s: str) -> str | None:
    return "".join(_SUP[c] for c in s) if s and all(c in _SUP for c in s) else None


def _symbol_text(name: str) -> str:
    """``k_11`` → ``k₁₁``, ``Stilde`` → ``S̃``, ``tau`` → ``τ``, ``d_k`` → ``dₖ``, ``W^Q`` → ``W_q``."""
    sup = ""
    if "^" in name:
        name, sup = name.split("^", 1)
        sup = _superscript(sup) or ("_" + sup.lower() if sup.isalpha() else "^" + sup)
    sub = ""
    if "_" in name:
        name, sub = name.split("_", 1)
        sub = _subscript(sub) or "_" + sub
    for mod, mark in _MODIFIERS.items():
        if name.endswith(mod) and len(name) > len(mod):
            name = _GREEK.get(name[: -len(mod)], name[: -len(mod)]) + mark
            break
    else:
        name = _GREEK.get(name, name)
    return name + sub + sup


class TextPrinter(_SympyStr):
    """Plain text in Unicode: ``·`` for products of numbers, ``e²`` and ``e^(…)`` for
    exponentials (never ``E`` or ``exp``), ``√2``, ``−``, ``ᵀ``, ``∘``, subscripts (``k₁₁``,
    ``pᵢⱼ``) where Unicode has them, ``p[love, I]`` otherwise."""

    printmethod = None  # dispatch by type only: objects' own _sympystr methods are not used
    _default_settings = dict(_SympyStr._default_settings, max_terms=MAX_TERMS)

    def _print_Num(self, expr: Num) -> str:
        if expr.name.endswith("inf"):
            return "−∞" if expr.name.startswith("-") else "∞"
        return "−" + expr.name[1:] if expr.negative_text else expr.name

    def _print_Label(self, expr: Label) -> str:
        return expr.name

    def _print_Dots(self, expr: Dots) -> str:
        return "…"

    def _print_Masked(self, expr: sympy.Basic) -> str:
        return "−∞"

    def _print_Symbol(self, expr: sympy.Symbol) -> str:
        return _symbol_text(expr.name)

    def _print_Indexed(self, expr: sympy.Indexed) -> str:
        base = self._print(expr.base)
        labels = [self._print(i) for i in expr.indices]
        # subscripts for numbers and one-letter indices (k₁₁, pᵢⱼ); token names in brackets
        subs = [_subscript(x) if (x.isdigit() or (len(x) == 1 and not isinstance(i, Label))) else None
                for x, i in zip(labels, expr.indices)]
        if all(s is not None for s in subs) and "_" not in base and "[" not in base:
            return base + ("".join(subs) if all(len(x) == 1 for x in labels) else ",".join(subs))  # type: ignore[arg-type]
        return "%s[%s]" % (base, ", ".join(labels))

    def _print_IndexedBase(self, expr: sympy.IndexedBase) -> str:
        return self._print(expr.label)

    def _print_MatrixElement(self, expr: MatrixElement) -> str:
        return "%s[%s, %s]" % (self._print(expr.parent), expr.i + 1, expr.j + 1)

    def _print_Integer(self, expr: sympy.Integer) -> str:
        return str(expr.p).replace("-", "−")

    def _print_Rational(self, expr: sympy.Rational) -> str:
        return ("−" if expr.p < 0 else "") + "%d/%d" % (abs(expr.p), expr.q)

    def _print_Half(self, expr: sympy.Rational) -> str:
        return "1/2"

    def _print_NegativeInfinity(self, expr: sympy.Basic) -> str:
        return "−∞"

    def _print_Infinity(self, expr: sympy.Basic) -> str:
        return "∞"

    def _print_Exp1(self, expr: sympy.Basic) -> str:
        return "e"

    def _print_Pi(self, expr: sympy.Basic) -> str:
        return "π"

    def _print_ImaginaryUnit(self, expr: sympy.Basic) -> str:
        return "i"

    def _print_exp(self, expr: sympy.Basic) -> str:
        x = expr.args[0]
        if x == 1:
            return "e"
        if x.is_Integer or (isinstance(x, Num) and x.name.lstrip("-").isdigit()):
            n = str(int(x)) if x.is_Integer else x.name
            return "e" + (_superscript(n) or "^(%s)" % self._print(x))
        t = self._print(x)
        if isinstance(x, (sympy.Symbol, sympy.Indexed)) and not any(c in t for c in " [−-+/·"):
            return "e^" + t
        return "e^(%s)" % t

    def _print_log(self, expr: sympy.Basic) -> str:
        return "log(%s)" % self._print(expr.args[0])

    def _print_Function(self, expr: sympy.Basic) -> str:
        name = expr.func.__name__
        return "%s(%s)" % (_GREEK.get(name, name), ", ".join(self._print(a) for a in expr.args))

    def _print_Inverse(self, expr: sympy.Basic) -> str:
        return "%s⁻¹" % self._factor(expr.arg)

    def _print_Softmax(self, expr: sympy.Basic) -> str:
        i = self._print(expr.args[0])
        return "softmax(%s)%s" % (", ".join(self._print(x) for x in expr.args[1:]), _subscript(i) or "_" + i)

    def _print_Sigmoid(self, expr: sympy.Basic) -> str:
        return "σ(%s)" % self._print(expr.args[0])

    def _print_KroneckerDelta(self, expr: sympy.Basic) -> str:
        idx = "".join(self._print(a) for a in expr.args)
        return "δ" + (_subscript(idx) or "_" + idx)

    def _print_Add(self, expr: sympy.Add, order: str | None = None) -> str:
        terms = _sum_terms(expr)
        out = ""
        for n, k in enumerate(elide(len(terms), self._settings["max_terms"])):
            if k is None:
                out += " + …"
                continue
            neg, term = _split_sign(terms[k])
            t = self._print(term)
            if precedence(term) <= PRECEDENCE["Add"] and not isinstance(term, Num) or n > 0 and t.startswith("−"):
                t = "(%s)" % t  # 1.21 − (−1.35), never 1.21 − −1.35
            out += ("−" if neg else "") + t if n == 0 else (" − " if neg else " + ") + t
        return out

    def _factor(self, f: sympy.Basic) -> str:
        t = self._print(f)
        fraction = isinstance(f, sympy.Rational) and not f.is_Integer or (
            isinstance(f, sympy.Mul) and sympy.fraction(f)[1] != 1)
        if precedence(f) < PRECEDENCE["Mul"] or fraction:
            return "(%s)" % t
        return t

    def _product(self, factors: Sequence[sympy.Basic]) -> str:
        out = ""
        prev: sympy.Basic | None = None
        for f in factors:
            t = self._factor(f)
            if prev is not None:
                # 2e², 279√2 and 3(x + 1) juxtaposed; everything else with a centred dot
                juxtapose = ((isinstance(prev, sympy.Integer) and not _is_number(f)
                              and not t[:1].isdigit() and not isinstance(f, sympy.Indexed))
                             or (t.startswith("(") and isinstance(prev, (sympy.Symbol, sympy.Indexed))
                                 and not _is_number(prev)))
                out += "" if juxtapose else "·"
            out += t
            prev = f
        return out

    def _print_Mul(self, expr: sympy.Mul) -> str:
        canonical = not _written(expr)
        if not canonical and expr.args[0] == -1:
            rest = expr.args[1:]
            return "−" + self._factor(rest[0] if len(rest) == 1 else sympy.Mul(*rest, evaluate=False))
        if canonical and expr.could_extract_minus_sign():
            return "−" + self._factor(-expr) if isinstance(-expr, sympy.Add) else "−" + self._print(-expr)
        num, den = sympy.fraction(expr, exact=not canonical)
        if den != 1:
            n = self._print(num)
            if precedence(num) < PRECEDENCE["Mul"] or isinstance(num, (sympy.Sum, SumOf)):
                n = "(%s)" % n
            d = self._print(den)
            if not (den.is_Atom or isinstance(den, (sympy.Indexed, sympy.exp)) or
                    (isinstance(den, sympy.Pow) and den.exp == sympy.S.Half and den.base.is_Atom)):
                d = "(%s)" % d
            return "%s/%s" % (n, d)
        factors = expr.as_ordered_factors() if canonical else list(sympy.Mul.make_args(expr))
        return self._product(factors)

    def _print_Pow(self, expr: sympy.Pow, rational: bool = False) -> str:
        b, e = expr.args
        if e == sympy.S.Half:
            inner = self._print(b)
            return "√" + (inner if b.is_Atom or isinstance(b, sympy.Indexed) else "(%s)" % inner)
        if e.is_Rational and e.is_negative:
            return "1/" + self._factor(sympy.Pow(b, -e, evaluate=False) if -e != 1 else b)
        base = self._print(b)
        if precedence(b) <= PRECEDENCE["Pow"] or isinstance(b, (sympy.Pow, sympy.exp)):
            base = "(%s)" % base
        if e.is_Integer and _superscript(str(int(e))):
            return base + _superscript(str(int(e)))  # type: ignore[operator]
        return "%s^(%s)" % (base, self._print(e)) if not e.is_Atom else "%s^%s" % (base, self._print(e))

    def _print_Equality(self, expr: sympy.Basic) -> str:
        return "%s = %s" % (self._print(expr.lhs), self._print(expr.rhs))

    def _print_Sum(self, expr: sympy.Sum) -> str:
        limits = expr.limits
        if len(limits) == 1 and not _generic(limits[0]):
            var, lo, hi = limits[0]
            sub = "Σ_{%s=%s..%s} " % (self._print(var), self._print(lo), self._print(hi))
        else:
            idx = "".join(self._print(v) for v, *_ in limits)
            sub = "Σ" + (_subscript(idx) or "_" + idx) + " "
        f = expr.function
        body = self._print(f)
        return sub + ("(%s)" % body if precedence(f) < PRECEDENCE["Mul"] else body)

    # matrices
    def _print_MatrixSymbol(self, expr: sympy.Basic) -> str:
        return _symbol_text(expr.name)

    def _print_Transpose(self, expr: sympy.Basic) -> str:
        inner = self._print(expr.arg)
        if isinstance(expr.arg, (sympy.MatrixSymbol, sympy.OneMatrix)):
            return inner + "ᵀ"
        return "(%s)ᵀ" % inner

    def _print_MatMul(self, expr: sympy.MatMul) -> str:
        coeff, mats = expr.as_coeff_mmul()
        body = "·".join(self._factor(m) for m in mats.args)
        if coeff == 1:
            return body
        num, den = sympy.fraction(coeff)
        if num == 1 and den != 1 and not den.is_Integer:
            d = self._print(den)
            return "%s/%s" % (body, d if den.is_Atom or isinstance(den, sympy.Pow) else "(%s)" % d)
        return "%s·%s" % (self._factor(coeff), body)

    def _print_MatAdd(self, expr: sympy.MatAdd) -> str:
        out = ""
        for n, (neg, term) in enumerate(_signed_terms(expr)):
            t = self._print(term)
            out += ("−" if neg else "") + t if n == 0 else (" − " if neg else " + ") + t
        return out

    def _print_HadamardProduct(self, expr: sympy.Basic) -> str:
        return " ∘ ".join(self._factor(a) for a in expr.args)

    def _print_OneMatrix(self, expr: sympy.Basic) -> str:
        return "1"

    def _print_Ones(self, expr: sympy.Basic) -> str:
        return "1ᵀ" if expr.row else "1"

    def _print_MatrixSoftmax(self, expr: sympy.Basic) -> str:
        name = "softmax" if expr.kind == "softmax" else "sum-normalize"
        where = " over queries" if expr.over == "queries" else ""
        return "%s(%s)%s" % (name, self._print(expr.arg), where)

    def _print_Given(self, expr: sympy.Basic) -> str:
        return "%s (given)" % self._print(expr.arg)

    def _print_Rotary(self, expr: sympy.Basic) -> str:
        return "RoPE%s(%s)" % ("ᵀ" if expr.transposed else "", self._print(expr.arg))

    def _print_Abs(self, expr: sympy.Basic) -> str:
        return "|%s|" % self._print(expr.args[0])

    def _print_RowSum(self, expr: sympy.Basic) -> str:
        return "rowsum(%s)" % self._print(expr.args[0])

    def _print_ColSum(self, expr: sympy.Basic) -> str:
        return "1ᵀ·" + self._factor(expr.args[0])

    def _print_Concat(self, expr: sympy.Basic) -> str:
        heads = list(expr.args)
        return "Concat(%s)" % ", ".join(self._print(heads[k]) if k is not None else "…"
                                        for k in elide(len(heads), 4))

    def _print_Columns(self, expr: sympy.Basic) -> str:
        span = "%d..%d" % (expr.start, expr.stop)
        return "%s[%s]" % (self._print(expr.arg), (span + ", :") if expr.rows else (":, " + span))

    def _print_Inner(self, expr: sympy.Basic) -> str:
        return "⟨%s, %s⟩" % (self._print(expr.args[0]), self._print(expr.args[1]))

    def _print_SquaredNorm(self, expr: sympy.Basic) -> str:
        return "‖%s‖²" % self._print(expr.args[0])

    def _print_Partial(self, expr: sympy.Basic) -> str:
        return "∂%s/∂%s" % (self._print(expr.args[0]), self._print(expr.args[1]))

    def _print_Tuple(self, expr: sympy.Basic) -> str:
        return "(%s)" % ", ".join(self._print(a) for a in expr.args)

    def _print_Chain(self, expr: sympy.Basic) -> str:
        return " = ".join(self._print(a) for a in expr.args).lstrip()

    def _print_Continued(self, expr: sympy.Basic) -> str:
        return ""

    def _print_SoftmaxEntry(self, expr: sympy.Basic) -> str:
        i = self._print(expr.args[1])
        return "softmax(%s)%s" % (self._print(expr.args[0]), _subscript(i) or "_" + i)

    def _print_Diag(self, expr: sympy.Basic) -> str:
        return "diag(%s)" % self._print(expr.arg)

    def _print_Determinant(self, expr: sympy.Basic) -> str:
        return "det " + self._factor(expr.arg)

    def _print_Elem(self, expr: sympy.Basic) -> str:
        return "%s ∈ %s" % (self._print(expr.args[0]), self._print(expr.args[1]))

    def _print_Hull(self, expr: sympy.Basic) -> str:
        return "conv{%s}" % self._print(expr.args[0])

    def _print_SumIn(self, expr: sympy.Basic) -> str:
        f, j, where = expr.args
        return "Σ_{%s∈%s} %s" % (self._print(j), self._print(where), self._factor(f))

    def _print_Dot(self, expr: sympy.Basic) -> str:
        return "%s·%s" % (self._print(expr.args[0]), self._print(expr.args[1]))

    _RELATIONS = {"<=": "≤", ">=": "≥", "!=": "≠", "<": "<", ">": ">"}

    def _print_Relational(self, expr: sympy.Basic) -> str:
        return "%s %s %s" % (self._print(expr.lhs), self._RELATIONS.get(expr.rel_op, expr.rel_op),
                             self._print(expr.rhs))

    def _print_Limit(self, expr: sympy.Basic) -> str:
        f, x, x0, d = expr.args
        side = {"+": "⁺", "-": "⁻"}.get(str(d), "") if x0.is_finite else ""
        return "lim_{%s→%s%s} %s" % (self._print(x), self._print(x0), side, self._factor(f))

    def _print_RowOver(self, expr: sympy.Basic) -> str:
        nums = list(expr.numerators)
        row = ", ".join(self._print(nums[k]) if k is not None else "…"
                        for k in elide(len(nums), self._settings["max_terms"]))
        den = expr.denominator
        d = self._print(den)
        return "(%s)/%s" % (row, d if den.is_Atom or isinstance(den, sympy.exp) else "(%s)" % d)


_LATEX = LatexPrinter()
_EXPONENT = LatexPrinter({"fold_short_frac": True})  # a/b rather than a tiny \frac in exponents
_TEXT = TextPrinter()


def latex(expr: sympy.Basic, **settings: object) -> str:
    """LaTeX of an expression in symattn's notation (math mode)."""
    return (LatexPrinter(settings) if settings else _LATEX).doprint(expr)


def text(expr: sympy.Basic, **settings: object) -> str:
    """Plain text (Unicode) of an expression in symattn's notation."""
    return (TextPrinter(settings) if settings else _TEXT).doprint(expr)


def latex_decimal(s: str) -> str:
    """LaTeX of a certified decimal string (``e`` notation as ``\\times 10^{…}``)."""
    if s in ("-inf", "inf"):
        return r"-\infty" if s == "-inf" else r"\infty"
    m = re.fullmatch(r"(-?[0-9.]+)e([+-])([0-9]+)", s)
    if m:
        exp = int(m.group(3)) * (-1 if m.group(2) == "-" else 1)
        return f"{m.group(1)} \\times 10^{{{exp}}}"
    return s


_ESCAPES = {"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "$": r"\$", "&": r"\&", "#": r"\#",
            "^": r"\^{}", "_": r"\_", "%": r"\%", "~": r"\textasciitilde{}", "<": r"\textless{}",
            ">": r"\textgreater{}", "|": r"\textbar{}", '"': r"\textquotedbl{}"}
#: characters beyond Latin-1 that have a LaTeX form (text from files and symattn's own words)
_UNICODE = {"−": r"\ensuremath{-}", "–": "--", "—": "---", "‘": "`", "’": "'", "“": "``", "”": "''",
            "…": r"\ldots{}", "·": r"\ensuremath{\cdot}", "×": r"\ensuremath{\times}", "≤": r"\ensuremath{\le}",
            "≥": r"\ensuremath{\ge}", "≠": r"\ensuremath{\neq}", "≈": r"\ensuremath{\approx}",
            "∞": r"\ensuremath{\infty}", "√": r"\ensuremath{\surd}", "∘": r"\ensuremath{\circ}",
            "⊙": r"\ensuremath{\odot}", "→": r"\ensuremath{\to}", "⇒": r"\ensuremath{\Rightarrow}",
            "∈": r"\ensuremath{\in}", "∑": r"\ensuremath{\Sigma}", "∂": r"\ensuremath{\partial}",
            "‖": r"\ensuremath{\|}", "⟨": r"\ensuremath{\langle}", "⟩": r"\ensuremath{\rangle}",
            "ᵀ": r"\ensuremath{^{\top}}", "✓": r"\ensuremath{\checkmark}", "✗": r"\ensuremath{\times}",
            "∎": r"\ensuremath{\blacksquare}", "±": r"\ensuremath{\pm}", "½": r"\ensuremath{\tfrac12}",
            "²": r"\ensuremath{^2}", "³": r"\ensuremath{^3}", "¹": r"\ensuremath{^1}", "°": r"\ensuremath{^\circ}",
            "\u0303": "", "\u0302": ""}
_GREEK_TEX = {"α": "alpha", "β": "beta", "γ": "gamma", "δ": "delta", "ε": "epsilon", "θ": "theta",
              "λ": "lambda", "μ": "mu", "π": "pi", "σ": "sigma", "τ": "tau", "φ": "phi", "ω": "omega",
              "Δ": "Delta", "Σ": "Sigma", "Π": "Pi", "Ω": "Omega", "ℓ": "ell"}
_SUB_TEX = {v: k for k, v in _SUB.items()}
_SUP_TEX = {v: k for k, v in _SUP.items()}


def escape_text(s: str) -> str:
    """Text from a file or a message, safe in LaTeX text mode (and inside ``\\text{…}``):
    special characters are escaped, control sequences cannot be formed, common
    mathematical and Greek characters become their LaTeX forms, and any other character
    outside Latin-1 is written as its code point (``U+65E5``)."""
    out = []
    for ch in s:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif ch == "\n":
            out.append(" ")
        elif ord(ch) < 32 or 0x7F <= ord(ch) < 0xA0:
            continue
        elif ord(ch) <= 0xFF and ch not in _UNICODE:
            out.append(ch)
        elif ch in _UNICODE:
            out.append(_UNICODE[ch])
        elif ch in _GREEK_TEX:
            out.append(r"\ensuremath{\%s}" % _GREEK_TEX[ch])
        elif ch in _SUB_TEX:
            out.append(r"\ensuremath{_{%s}}" % _SUB_TEX[ch])
        elif ch in _SUP_TEX:
            out.append(r"\ensuremath{^{%s}}" % _SUP_TEX[ch])
        else:
            out.append(r"\texttt{U+%04X}" % ord(ch))
    return "".join(out)


def label(s: str) -> str:
    """A row or column label in math mode: numbers as they are, token names as text."""
    return s if re.fullmatch(r"[0-9]+|:", s) else r"\text{%s}" % escape_text(s)


Phrase = Sequence[object]


def render_phrase(parts: Iterable[object], fmt: str) -> str:
    r"""Words and expressions in a line of prose: strings as words, SymPy objects as
    mathematics. ``fmt`` is ``text``, ``latex`` (text mode, mathematics in ``$…$``) or
    ``latex-math`` (math mode, words in ``\text{…}``).

    >>> print(render_phrase(["so ", sympy.Symbol("tau"), " is positive"], "latex"))
    so $\tau$ is positive
    >>> print(render_phrase(["so ", sympy.Symbol("tau")], "latex-math"))
    \text{so }\tau
    """
    out = []
    for p in ([parts] if isinstance(parts, sympy.Basic) else parts):
        if isinstance(p, sympy.Basic):
            out.append(text(p) if fmt == "text" else latex(p) if fmt == "latex-math" else "$%s$" % latex(p))
        elif fmt == "text":
            out.append(str(p))
        elif fmt == "latex-math":
            out.append(r"\text{%s}" % escape_text(str(p)) if str(p) else "")
        else:
            out.append(escape_text(str(p)))
    return "".join(out)
