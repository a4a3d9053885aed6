"""LaTeX and Markdown views of a derivation: one ``align*`` block per step.

Each block has the general formula, the formula with the matrices substituted, one entry
written out, the exact result and the certified decimals (``\\approx``). Every formula
and entry is a SymPy expression printed by :class:`~symattn.views.printers.LatexPrinter`.
The output depends only on the input, so the same file gives byte-identical text.

The document is built from small section functions (:func:`conventions_section`,
:func:`step_section`, :func:`claims_section`) that :func:`body` joins; another view (a
heatmap, say) adds a section function of its own.

>>> import symattn as sa
>>> d = sa.derive(sa.load("i_love_statistics"))
>>> tex = document(d)
>>> tex.startswith("\\\\documentclass")
True
>>> r"q_{\\text{love},1} &= 0.4 \\cdot 0.1 + 0.8 \\cdot 0.2 + 0.6 \\cdot 0.5 = 0.5" in tex
True
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, Sequence

import sympy

from ..analyses.check import Report
from ..pipeline.notation import Chain
from ..pipeline.steps import Derivation, Operand, Step
from .conventions import digits_line, summary
from .entries import (Line, aligned_decimals, entry_symbol, exact_cells, exact_rows, named_entry, row_symbol,
                      show_exact, worked)
from .printers import LatexPrinter, elide, escape_text, label, latex, latex_decimal, render_phrase

__all__ = ["Style", "document", "body", "markdown", "step_block", "matrix", "conventions_section",
           "step_section", "claims_section", "PREAMBLE", "SECTIONS"]

EXACT_CELL_MAX = 32  # LaTeX characters of an exact entry that still fits in a matrix
SUBSTITUTE_MAX = 4096  # entries of an operand that are still substituted into the formula


@dataclass(frozen=True)
class Style:
    """What to print: digits of the certified decimals, rows and columns before eliding,
    whether exact closed forms are shown (None: only when small), whether symbolic entries
    are fully expanded, and whether the target is KaTeX/MathJax (Markdown, Jupyter), which
    has no ``blockarray``."""

    digits: int = 6
    max_rows: int = 8
    max_cols: int = 8
    exact: bool | None = None
    expand: bool = False
    katex: bool = False


def matrix(cells: list[list[str]], rows: Sequence[str], cols: Sequence[str], style: Style,
           labelled: bool | None = None) -> str:
    """A matrix in brackets (``bmatrix``). With token labels, the labels stand outside the
    brackets (``blockarray``; in KaTeX an array with a header row and a label column). Large
    ones are elided with ``\\cdots``, ``\\vdots``, ``\\ddots``.

    >>> print(matrix([["1", "2"]], ["1"], ["1", "2"], Style()))
    \\begin{bmatrix} 1 & 2 \\end{bmatrix}
    >>> print(matrix([["1", "2"]], ["a"], ["1", "2"], Style()))
    \\begin{blockarray}{ccc} & 1 & 2 \\\\ \\begin{block}{r[>{\\,}cc<{\\,}]} \\text{a} & 1 & 2 \\\\ \\end{block} \\end{blockarray}
    """
    ri, ci = elide(len(rows), style.max_rows), elide(len(cols), style.max_cols)
    if labelled is None:
        labelled = any(not r.isdigit() for r in rows) or any(not c.isdigit() for c in cols)
    body = []
    for i in ri:
        if i is None:
            line = " & ".join(r"\vdots" if j is not None else r"\ddots" for j in ci)
            body.append((r"\vdots & " + line) if labelled else line)
            continue
        line = " & ".join(cells[i][j] if j is not None else r"\cdots" for j in ci)
        body.append((label(rows[i]) + " & " + line) if labelled else line)
    if not labelled:
        return r"\begin{bmatrix} " + r" \\ ".join(body) + r" \end{bmatrix}"
    head = " & ".join(label(cols[j]) if j is not None else r"\cdots" for j in ci)
    if style.katex:
        return (r"\begin{array}{r|" + "c" * len(ci) + "} & " + head + r" \\ \hline " + r" \\ ".join(body)
                + r" \end{array}")
    inner = ["c"] * len(ci)
    inner[0] = r">{\,}" + inner[0]
    inner[-1] = inner[-1] + r"<{\,}"
    return (r"\begin{blockarray}{" + "c" * (len(ci) + 1) + "} & " + head + r" \\ \begin{block}{r["
            + "".join(inner) + "]} " + " ".join(b + r" \\" for b in body) + r" \end{block} \end{blockarray}")


def _decimal_matrix(step_or_op: Step | Operand, style: Style) -> str | None:
    node = step_or_op.node
    if node.symbolic:
        return None
    rows = step_or_op.row_labels if isinstance(step_or_op, Step) else step_or_op.rows
    cols = step_or_op.col_labels if isinstance(step_or_op, Step) else step_or_op.cols
    ri = [i for i in elide(len(rows), style.max_rows) if i is not None]
    ci = [j for j in elide(len(cols), style.max_cols) if j is not None]
    shown = aligned_decimals(node, style.digits, ri, ci)
    cells = [[latex_decimal(shown[(i, j)]) if (i, j) in shown else "" for j in range(len(cols))]
             for i in range(len(rows))]
    return matrix(cells, rows, cols, style)


def _named_matrix(op: Operand, style: Style) -> str:
    """A symbolic operand: its values when given, else its named entries (s̃_{a,b})."""
    r, c = op.node.shape
    ri = [i for i in elide(r, style.max_rows) if i is not None]
    ci = [j for j in elide(c, style.max_cols) if j is not None]
    cells = [["" for _ in range(c)] for _ in range(r)]
    for i in ri:
        for j in ci:
            cells[i][j] = latex(named_entry(op, i, j))
    return matrix(cells, op.rows, op.cols, style)


class _Substituting(LatexPrinter):
    """The LaTeX printer with some matrix symbols printed as the matrices they stand for."""

    _default_settings = dict(LatexPrinter._default_settings, substitute=None)

    def _print(self, expr: object, **kwargs: object) -> str:
        sub = self._settings.get("substitute") or {}
        if isinstance(expr, sympy.Basic) and expr in sub:
            return sub[expr]
        return super()._print(expr, **kwargs)

    def _print_MatMul(self, expr: sympy.MatMul) -> str:
        # matrices side by side in a product are spaced so that they never collide
        coeff, mats = expr.as_coeff_mmul()
        body = r" \; ".join(self._print(m) for m in mats.args)
        return body if coeff == 1 else "%s %s" % (self._print(coeff), body)


def _substitution(step: Step, style: Style) -> str | None:
    """The formula's right side with the operands' matrices in place of their symbols."""
    if step.given or not step.operands or len(step.shape) != 2 or not isinstance(step.formula, sympy.Equality):
        return None
    rhs = step.substituted if step.substituted is not None else step.formula.rhs
    if not isinstance(rhs, sympy.MatrixExpr) or any(op.node.size > SUBSTITUTE_MAX for op in step.operands.values()):
        return None
    mats = {}
    for op in step.operands.values():
        if op.symbol is None or not rhs.has(op.symbol):
            continue
        m = _decimal_matrix(op, style) if not op.node.symbolic else _named_matrix(op, style)
        mats[op.symbol] = m
    if not mats:
        return None
    printer = _Substituting({"substitute": mats})
    if isinstance(rhs, sympy.MatAdd) and any(isinstance(a, sympy.MatMul) for a in rhs.args):
        # a sum of products of matrices: one term a line, so that the line never runs off the page
        return "&= " + " \\\\\n&\\quad + ".join(printer.doprint(a) for a in rhs.args)
    return "&= " + printer.doprint(rhs)


def _line(w: Line, align: bool = True) -> str:
    rel = {"=": "=", "≈": r"\approx"}
    parts = [f"{rel[r]} {latex(e)}" for r, e in w.parts]
    if align and parts:
        parts[0] = "&" + parts[0]
    out = latex(w.lhs) + " " + " ".join(parts)
    return out + (r" \quad \text{(%s)}" % escape_text(w.note) if w.note else "")


def _general(step: Step) -> str:
    f = step.formula
    if isinstance(f, sympy.Equality):
        return f"{latex(f.lhs)} &= {latex(f.rhs)}"
    if isinstance(f, Chain):
        return f"{latex(f.args[0])} &= " + " = ".join(latex(a) for a in f.args[1:])
    return f"& {latex(f)}"


def step_block(step: Step, style: Style = Style(), env: str = "align*") -> str:
    """The step as one ``align*`` (or ``aligned``) block."""
    lines = [_general(step)]
    two_d = len(step.shape) == 2
    sub = _substitution(step, style) if two_d else None
    if sub:
        lines.append(sub)
    w = worked(step, style.digits, style.expand)
    if w is not None and not (step.symbolic and len(w.parts) == 1 and two_d and show_exact(step, style.exact)):
        lines.append(_line(w))  # (a symbolic entry as a name of earlier entries is in the exact lines below)
    sym = latex(step.symbol) if step.symbol is not None else escape_text(step.name)
    dec = _decimal_matrix(step, style) if two_d else None
    if two_d and dec is not None and step.exact_decimals(style.digits):
        lines.append(f"{sym} &= {dec}")
    elif two_d:
        if show_exact(step, style.exact):
            lines += _exact_lines(step, sym, style)
        if dec is not None:
            lines.append(f"{sym} &\\approx {dec}")
    elif step.decimals(style.digits) is not None:
        # weighted values (queries × keys × d_v): one matrix per query, keys × d_v
        depth = step.depth_labels or []
        dec3 = step.decimals(style.digits)
        for i in elide(step.shape[0], style.max_rows):
            if i is None:
                lines.append(r"&\;\;\vdots")
                continue
            cells = [[latex_decimal(x) for x in row] for row in dec3[i]]  # type: ignore[index]
            lines.append(f"{latex(entry_symbol_row(step, i))} &\\approx "
                         + matrix(cells, step.col_labels, depth, style, labelled=True))
    return f"\\begin{{{env}}}\n" + " \\\\\n".join(lines) + f"\n\\end{{{env}}}"


def entry_symbol_row(step: Step, i: int) -> sympy.Basic:
    """p_{i,j} v_j for query i of the weighted step."""
    from ..pipeline.notation import entry

    if "P" not in step.operands or "V" not in step.operands:  # another 3-index step (preact, state): x_{i, j, t}
        return entry(step.entry_name or step.name, [step.row_labels[i], "j", "t"])
    P = step.operands["P"]
    Vop = step.operands["V"]
    j = sympy.Symbol("j")
    return sympy.Mul(entry(P.entry_name, [step.row_labels[i], "j"]),
                     sympy.Indexed(sympy.IndexedBase(sympy.Symbol(Vop.entry_name)), j), evaluate=False)


def _exact_lines(step: Step, sym: str, style: Style) -> list[str]:
    """The exact value: a matrix when its entries are short, else one entry a line (at
    normal size), or the weights row by row over their common denominators."""
    rows = exact_rows(step)
    if rows is not None:
        return [f"{latex(row_symbol(step, i))} &= {latex(r)}" for i, (_, r) in enumerate(rows)
                if i in set(k for k in elide(len(rows), style.max_rows) if k is not None)]
    cells = exact_cells(step, style.expand)
    ri, ci = elide(step.shape[0], style.max_rows), elide(step.shape[1], style.max_cols)
    tex = {(i, j): latex(cells[i][j]) for i in ri if i is not None for j in ci if j is not None}
    inline = {k: latex(cells[k[0]][k[1]], fold_short_frac=True) for k in tex}  # a/b: normal size in a matrix
    if max((len(t) for t in inline.values()), default=0) <= EXACT_CELL_MAX and not any(
            r"\frac" in t for t in inline.values()):
        full = [[inline.get((i, j), "") for j in range(step.shape[1])] for i in range(step.shape[0])]
        return [f"{sym} &= " + matrix(full, step.row_labels, step.col_labels, style)]
    out = [f"{latex(entry_symbol(step, (i, j)))} &= {tex[(i, j)]}" for i in ri if i is not None
           for j in ci if j is not None]
    if None in ri or None in ci:
        out.append(r"&\;\;\vdots")
    return out


# ---------------------------------------------------------------------------------------
# the document


def conventions_section(d: Derivation, style: Style, report: Report | None = None) -> str:
    out = ["\\section*{Conventions}", "\\begin{itemize}"]
    out += [f"  \\item {render_phrase(item.long, 'latex')}" for item in summary(d)]
    out += [f"  \\item {escape_text(digits_line(style.digits))}", "\\end{itemize}"]
    return "\n".join(out)


def step_section(st: Step, style: Style) -> str:
    out = ["\\Needspace{10\\baselineskip}",
           f"\\subsection*{{Step \\texttt{{{escape_text(st.name)}}}: {escape_text(st.title)}}}"]
    out += [render_phrase(note, "latex") + "\n" for note in st.notes]
    out.append(step_block(st, style))
    return "\n".join(out)


def claims_section(r: Report | None) -> str | None:
    """The checked claims as a table (the report is computed by the caller, never here)."""
    if r is None or not r.claims:
        return None
    rows = []
    for c in r.claims:
        mark = r"$\checkmark$" if c.ok else ("?" if c.undecided else r"$\times$")
        right = "" if c.ok else (f"in {escape_text(c.enclosure or '')}" if c.undecided
                                 else f"${latex_decimal(c.decimal)}$")
        where = escape_text(c.position + (f" ({c.group})" if c.group else ""))
        rows.append(f"{mark} & {where} & {escape_text(c.claimed)} & {right} \\\\")
    s = r.summary()
    head = (f"The page's printed numbers, checked: {s['correct']} of {s['total']} correct"
            + (f"; the first wrong step is \\texttt{{{escape_text(s['first_wrong_step'])}}}."
               if s["first_wrong_step"] else "."))
    return ("\\section*{Printed numbers checked}\n" + head + "\n\n"
            "\\begin{longtable}{cllr}\n\\toprule\n & entry & printed & right value \\\\\n\\midrule\n\\endhead\n"
            + "\n".join(rows) + "\n\\bottomrule\n\\end{longtable}")


#: the document's sections after the conventions: (derivation, style, steps, report) -> LaTeX or None
SECTIONS: list[Callable[[Derivation, Style, Sequence[str] | None, Report | None], str | None]] = [
    lambda d, style, steps, report: "\n\n".join(step_section(st, style) for st in d.select(steps)),
    lambda d, style, steps, report: claims_section(report),
]


def body(d: Derivation, style: Style = Style(), steps: Sequence[str] | None = None,
         report: Report | None = None) -> str:
    """The derivation as a LaTeX fragment (to ``\\input``): needs the packages of
    :data:`PREAMBLE`. With a check ``report``, a table of the checked claims follows."""
    parts = [conventions_section(d, style, report)]
    for section in SECTIONS:
        got = section(d, style, steps, report)
        if got:
            parts.append(got)
    return "\n\n".join(parts) + "\n"


PREAMBLE = (
    "\\usepackage[T1]{fontenc}\n"
    "\\usepackage[utf8]{inputenc}\n"
    "\\usepackage{lmodern}\n"
    "\\usepackage{amsmath,amssymb}\n"
    "\\usepackage{booktabs,longtable}\n"
    "\\usepackage{blkarray}\n"
    "\\usepackage{needspace}\n"
    "\\usepackage[margin=2cm,landscape]{geometry}\n"
    "\\allowdisplaybreaks\n"
    "\\setlength{\\arraycolsep}{3pt}\n"
)


def standalone(title: str, content: str, description: str = "", extra_preamble: str = "",
               author: str = "derived exactly by symattn") -> str:
    """A whole document around ``content`` (LaTeX) with symattn's preamble."""
    return ("\\documentclass[11pt]{article}\n" + PREAMBLE + extra_preamble
            + f"\\title{{{escape_text(title)}}}\n\\author{{{escape_text(author)}}}\n\\date{{}}\n"
            "\\begin{document}\n\\maketitle\n"
            + (f"{escape_text(description)}\n\n" if description else "")
            + content + "\\end{document}\n")


def document(d: Derivation, style: Style = Style(), steps: Sequence[str] | None = None,
             report: Report | None = None, heatmap: str | None = None) -> str:
    """A standalone LaTeX document that compiles with pdflatex (with the claims table when a
    check ``report`` is given, and a TikZ ``heatmap`` from :mod:`symattn.views.heatmap_tex`)."""
    from .heatmap_tex import PREAMBLE as TIKZ

    return standalone(d.title, body(d, style, steps, report) + (heatmap or ""), d.spec.description,
                      TIKZ if heatmap else "")


def _md_text(s: str) -> str:
    return "".join("\\" + ch if ch in "\\`*_{}[]()#+-.!|<>" else ch for ch in s)


def markdown(d: Derivation, style: Style = Style(), steps: Sequence[str] | None = None) -> str:
    """Headings and ``$$`` blocks (``aligned``) that render on GitHub and with KaTeX."""
    style = replace(style, katex=True)
    out = [f"# {_md_text(d.title)}", ""]
    if d.spec.description:
        out += [_md_text(d.spec.description), ""]
    items = summary(d)
    out.append("Conventions: " + ", ".join(_md_phrase(i.short) for i in items) + ".")
    out.append(f"Decimals: {style.digits} significant digits, each certified.")
    for st in d.select(steps):
        out += ["", f"### Step `{st.name}`: {_md_text(st.title)}", ""]
        out += [_md_phrase(n) for n in st.notes]
        out += ["$$", step_block(st, style, env="aligned"), "$$"]
    return "\n".join(out) + "\n"


def _md_phrase(parts: Sequence[object]) -> str:
    return "".join(f"${latex(p)}$" if isinstance(p, sympy.Basic) else _md_text(str(p)) for p in parts)
