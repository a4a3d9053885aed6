"""The notation of the field, as a SymPy ``LatexPrinter`` subclass.

>>> import sympy
>>> K = sympy.MatrixSymbol("K", 3, 2)
>>> latex(K.T)
'K^{\\\\top}'
>>> latex(sympy.exp(2) / (1 + 2 * sympy.exp(2)))
'\\\\frac{e^{2}}{1 + 2 e^{2}}'
>>> latex(sympy.Rational(279, 250) * sympy.sqrt(2) / 2)
'\\\\frac{279 \\\\sqrt{2}}{500}'
>>> latex_decimal("5.07596e-435"), latex_decimal("-inf")
('5.07596 \\\\times 10^{-435}', '-\\\\infty')
>>> escape_text("\\\\input{/etc/passwd} }{ 50% & $x_1$")
'\\\\textbackslash{}input\\\\{/etc/passwd\\\\} \\\\}\\\\{ 50\\\\% \\\\& \\\\$x\\\\_1\\\\$'
"""

from __future__ import annotations

import re

import sympy
from sympy.printing.latex import LatexPrinter

__all__ = ["AttentionLatexPrinter", "latex", "latex_decimal", "escape_text", "label"]


class AttentionLatexPrinter(LatexPrinter):
    """SymPy's LaTeX printer with attention notation: ``^{\\top}`` for transposes,
    ``\\operatorname{softmax}``, ``\\odot`` for element-wise products, ``e^{…}`` for
    exponentials, exact fractions as ``\\frac``, plain (not bold) matrices."""

    printmethod = "_symattn_latex"
    _default_settings = dict(LatexPrinter._default_settings, mat_str="bmatrix", mat_delim="",
                             mul_symbol=None, fold_short_frac=False, order="none")

    def _print_Transpose(self, expr: sympy.Basic) -> str:
        inner = self._print(expr.arg)
        if isinstance(expr.arg, (sympy.MatrixSymbol, sympy.Symbol)):
            return "%s^{\\top}" % inner
        return "\\left(%s\\right)^{\\top}" % inner

    def _print_MatrixSymbol(self, expr: sympy.Basic) -> str:
        return self._print(sympy.Symbol(expr.name))

    def _print_HadamardProduct(self, expr: sympy.Basic) -> str:
        return r" \odot ".join(self.parenthesize(a, 50) for a in expr.args)

    def _print_Softmax(self, expr: sympy.Basic) -> str:
        return r"\operatorname{softmax}\left(%s\right)" % self._print(expr.args[0])

    def _print_exp(self, expr: sympy.Basic, exp: str | None = None) -> str:
        base = "e^{%s}" % _EXPONENT.doprint(expr.args[0])
        return base if exp is None else "\\left(%s\\right)^{%s}" % (base, exp)

    def _print_NegativeInfinity(self, expr: sympy.Basic) -> str:
        return r"-\infty"


_PRINTER = AttentionLatexPrinter()
_EXPONENT = AttentionLatexPrinter({"fold_short_frac": True})  # a/b rather than tiny \\frac in exponents


def latex(expr: sympy.Basic) -> str:
    """LaTeX of an exact value in symattn's notation."""
    return _PRINTER.doprint(expr)


def latex_decimal(text: str) -> str:
    """LaTeX of a certified decimal string (``e`` notation as ``\\times 10^{…}``)."""
    if text in ("-inf", "inf"):
        return r"-\infty" if text == "-inf" else r"\infty"
    m = re.fullmatch(r"(-?[0-9.]+)e([+-])([0-9]+)", text)
    if m:
        exp = int(m.group(3)) * (-1 if m.group(2) == "-" else 1)
        return f"{m.group(1)} \\times 10^{{{exp}}}"
    return text


_ESCAPES = {"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "$": r"\$", "&": r"\&", "#": r"\#",
            "^": r"\^{}", "_": r"\_", "%": r"\%", "~": r"\textasciitilde{}", "<": r"\textless{}",
            ">": r"\textgreater{}", "|": r"\textbar{}", '"': r"\textquotedbl{}"}


def escape_text(s: str) -> str:
    """Text from a file, safe in LaTeX text mode (and inside ``\\text{…}``): special characters
    are escaped, control sequences cannot be formed, and characters outside Latin-1 are
    written as their code points."""
    out = []
    for ch in s:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif ch == "\n":
            out.append(" ")
        elif ord(ch) < 32:
            continue
        elif ord(ch) > 0xFF:
            out.append(r"\texttt{U+%04X}" % ord(ch))
        else:
            out.append(ch)
    return "".join(out)


def label(s: str) -> str:
    """A row or column label in math mode: numbers as they are, token names as text."""
    return s if re.fullmatch(r"[0-9]+", s) else r"\text{%s}" % escape_text(s)
