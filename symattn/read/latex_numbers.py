"""LaTeX in: numbers and matrices for example files.

Numbers and matrices go through latex2sympy2, behind a whitelist of control
sequences and characters; the result must hold only numbers (and allowed names).
Decimals become exact rationals:

>>> parse_latex(r"\\frac{59}{100}")
59/100
>>> parse_latex(r"\\begin{bmatrix} 0.2 & 0.5 \\\\ 0.4 & 0.8 \\end{bmatrix}")
Matrix([
[1/5, 1/2],
[2/5, 4/5]])
>>> parse_latex(r"\\frac{1}{\\sqrt{d_k}}", names={"d_k": 2})
sqrt(2)/2
"""

from __future__ import annotations

import re
from typing import Any, Mapping

import sympy

from ..errors import InputError
from .numbers import did_you_mean, symbol

__all__ = ["parse_latex", "looks_like_latex"]

MAX_LATEX = 200_000

_ALLOWED_CS = {
    "frac", "dfrac", "tfrac", "sqrt", "cdot", "times", "left", "right", "begin", "end", "exp", "log", "ln",
    "pi", "infty", "quad", "qquad", "displaystyle", "mathrm", "\\", ",", ";", "!", " ", "{", "}",
}
_ENVIRONMENTS = {"bmatrix", "pmatrix", "matrix", "vmatrix", "Bmatrix", "smallmatrix"}
_CHARS = re.compile(r"[0-9A-Za-z\s+\-*/^_{}()\[\].,&|]")


def looks_like_latex(text: str) -> bool:
    """A string is read as LaTeX when it has a backslash (``\\frac``, ``\\begin``, ...)."""
    return "\\" in text


def _whitelist(text: str) -> None:
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "\\":
            m = re.match(r"\\([A-Za-z]+|.)", text[i:])
            name = m.group(1) if m else ""
            if name not in _ALLOWED_CS:
                allowed = ", ".join("\\" + c for c in sorted(c for c in _ALLOWED_CS if c.isalpha()))
                raise InputError(f"LaTeX command \\{name} is not allowed here (allowed: {allowed})", i + 1)
            if name in ("begin", "end"):
                env = re.match(r"\\(?:begin|end)\s*\{([A-Za-z]+)\}", text[i:])
                if not env or env.group(1) not in _ENVIRONMENTS:
                    raise InputError("only matrix environments (bmatrix, pmatrix, matrix, vmatrix) are allowed", i + 1)
            i += 1 + len(name)
            continue
        if not _CHARS.match(ch):
            raise InputError(f"unexpected character {ch!r} in LaTeX", i + 1)
        i += 1


def _column(message: str) -> int | None:
    lines = message.splitlines()
    for line in reversed(lines):
        if line.strip().endswith("^") and set(line.strip()) <= {"~", "^"}:
            return line.index("^") + 1
    return None


def _clean_name(s: sympy.Symbol) -> str:
    return s.name.replace("{", "").replace("}", "")


def parse_latex(text: str, names: Mapping[str, Any] | None = None, allow_symbols: bool = False) -> Any:
    """An exact SymPy number (or Matrix) from LaTeX, through latex2sympy2 behind a whitelist.

    ``names`` maps allowed names (``d_k``) to values; other names are symbols when
    ``allow_symbols``, else an error.
    """
    if len(text) > MAX_LATEX:
        raise InputError(f"LaTeX longer than {MAX_LATEX} characters")
    _whitelist(text)
    try:
        from latex2sympy2 import latex2sympy
    except ImportError:  # pragma: no cover - a dependency
        raise InputError("reading LaTeX needs the package latex2sympy2 (pip install latex2sympy2)") from None
    try:
        value = latex2sympy(text)
    except Exception as e:  # latex2sympy2 raises plain Exceptions for syntax errors
        msg = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise InputError(f"cannot read the LaTeX {text.strip()[:60]!r}: {msg}", _column(str(e))) from None
    return _vet(value, names or {}, allow_symbols, text)


def _vet(value: Any, names: Mapping[str, Any], allow_symbols: bool, text: str) -> Any:
    if isinstance(value, sympy.Basic) and not isinstance(value, sympy.MatrixBase):
        value = value.doit()  # latex2sympy2 leaves products like 1·10⁻¹ unevaluated
    if isinstance(value, sympy.MatrixBase):
        return sympy.Matrix(value.rows, value.cols, [_vet(x, names, allow_symbols, text) for x in value])
    if not isinstance(value, sympy.Expr):
        raise InputError(f"the LaTeX {text.strip()[:60]!r} is not a number or a matrix")
    for f in value.atoms(sympy.Function):
        if not isinstance(f, (sympy.exp, sympy.log)):
            raise InputError(f"function {type(f).__name__} is not allowed in {text.strip()[:60]!r}")
    subs = {}
    for s in value.free_symbols:
        name = _clean_name(s)  # type: ignore[arg-type]
        if name in names:
            v = names[name]
            subs[s] = v if isinstance(v, sympy.Basic) else sympy.Integer(v)
        elif allow_symbols:
            subs[s] = symbol(name)
        else:
            known = sorted(names)
            raise InputError(f"unknown name {name!r} in {text.strip()[:60]!r}"
                             + (did_you_mean(name, known) if known else "; only numbers are allowed here"))
    out = value.xreplace(subs) if subs else value
    return sympy.nsimplify(out) if out.has(sympy.Float) else out
