"""Course macros a page uses but never defines (its preamble lives elsewhere): those whose names
say a matrix environment (``\\bpmat … \\epmat``, ``\\bmat{…}``) and ``\\li( … \\ri)`` for
``\\left( … \\right)`` are read as what they name, so the matrices in them can be read.

>>> print(undefined_macros(r"\\fa = \\li( \\bpmat 1 & 2\\\\ 3 & 4 \\epmat \\ri)"))
\\fa = \\left( \\begin{pmatrix} 1 & 2\\\\ 3 & 4 \\end{pmatrix} \\right)
>>> print(undefined_macros(r"\\newcommand{\\bpmat}{\\left[\\begin{matrix}} \\bpmat 1 \\epmat"))
\\newcommand{\\bpmat}{\\left[\\begin{matrix}} \\bpmat 1 \\epmat
"""

from __future__ import annotations

import re

__all__ = ["undefined_macros"]

_ENV = {"": "matrix", "p": "pmatrix", "b": "bmatrix", "v": "vmatrix", "V": "Vmatrix", "B": "Bmatrix"}
_ARG = re.compile(r"\\([pbvVB]?)mat(?:rix)?\s*\{([^{}]*)\}")  # \pmat{1 & 2 \\ 3 & 4}
_PAIR = re.compile(r"\\([be])([pbvVB]?)mat(?:rix)?(?![A-Za-z])")  # \bpmat … \epmat, \bmat … \emat
_DELIM = re.compile(r"\\(li|ri)(?=\s*[()\[\]|.]|\s*\\[{}])")


def _defined(text: str, name: str) -> bool:
    return re.search(r"\\(?:re|provide)?newcommand\*?\s*\{?\\" + name + r"(?![A-Za-z])|\\def\s*\\" + name +
                     r"(?![A-Za-z])|\\DeclareMathOperator\*?\s*\{?\\" + name + r"(?![A-Za-z])", text) is not None


def undefined_macros(text: str) -> str:
    """The text with matrix and delimiter macros it never defines written out (see the module)."""
    if "\\" not in text:
        return text

    def arg(m: re.Match) -> str:
        if _defined(text, m.group(0)[1:].split("{")[0].strip()) or "&" not in m.group(2) and "\\\\" not in m.group(2):
            return m.group(0)
        env = _ENV[m.group(1)]
        return f"\\begin{{{env}}}{m.group(2)}\\end{{{env}}}"

    text = _ARG.sub(arg, text)
    pairs = {}
    for m in _PAIR.finditer(text):
        pairs.setdefault(m.group(2), [0, 0])[m.group(1) == "e"] += 1
    ok = {k for k, (b, e) in pairs.items() if b == e and b > 0
          and not _defined(text, f"b{k}mat") and not _defined(text, f"e{k}mat")}

    def pair(m: re.Match) -> str:
        if m.group(2) not in ok:
            return m.group(0)
        return f"\\{'begin' if m.group(1) == 'b' else 'end'}{{{_ENV[m.group(2)]}}}"

    text = _PAIR.sub(pair, text)
    if not _defined(text, "li") and not _defined(text, "ri"):
        text = _DELIM.sub(lambda m: "\\left" if m.group(1) == "li" else "\\right", text)
    return text
