"""LaTeX and Markdown views of a derivation: one ``align*`` block per step.

Each block has the general formula, the substituted matrices, one entry written
out term by term, the exact result and the certified decimals (``\\approx``).
The output depends only on the input, so the same file gives byte-identical text.

>>> import symattn as sa
>>> d = sa.derive(sa.load("i_love_statistics"))
>>> tex = document(d)
>>> tex.startswith("\\\\documentclass")
True
>>> r"Q_{\\text{love},1} &= 0.4 \\cdot 0.1 + 0.8 \\cdot 0.2 + 0.6 \\cdot 0.5 = 0.5" in tex
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from ..analyses.check import Report
from ..pipeline.steps import Derivation, Example, Operand, Ref, Step
from .text import EXAMPLE_DIGITS, exact_decimals
from .printers import escape_text, label, latex, latex_decimal

__all__ = ["Style", "document", "body", "markdown", "step_block", "matrix"]

EXACT_CELL_MAX = 48  # LaTeX characters of an exact entry that still fits in a matrix


@dataclass(frozen=True)
class Style:
    """What to print: digits of the certified decimals, rows and columns before eliding,
    and whether exact closed forms are shown (None: only when small)."""

    digits: int = 6
    max_rows: int = 8
    max_cols: int = 8
    exact: bool | None = None


def _elide(n: int, limit: int) -> list[int | None]:
    if n <= limit:
        return list(range(n))
    head = max(1, limit - 2)
    return list(range(head)) + [None] + list(range(n - 1, n))


def matrix(cells: list[list[str]], rows: Sequence[str], cols: Sequence[str], style: Style,
           labelled: bool | None = None) -> str:
    """A matrix: ``bmatrix``, or with token labels an array with a header row and a label
    column; large ones elided with ``\\cdots``, ``\\vdots``, ``\\ddots``.

    >>> print(matrix([["1", "2"]], ["a"], ["1", "2"], Style()))
    \\begin{array}{l|cc} & 1 & 2 \\\\ \\hline \\text{a} & 1 & 2 \\end{array}
    >>> print(matrix([["1", "2"]], ["1"], ["1", "2"], Style()))
    \\begin{bmatrix} 1 & 2 \\end{bmatrix}
    """
    ri, ci = _elide(len(rows), style.max_rows), _elide(len(cols), style.max_cols)
    if labelled is None:
        labelled = any(not r.isdigit() for r in rows) or any(not c.isdigit() for c in cols)
    body = []
    for i in ri:
        if i is None:
            body.append(" & ".join(r"\vdots" if j is not None else r"\ddots" for j in ci))
            if labelled:
                body[-1] = r"\vdots & " + body[-1]
            continue
        line = " & ".join(cells[i][j] if j is not None else r"\cdots" for j in ci)
        body.append((label(rows[i]) + " & " + line) if labelled else line)
    if not labelled:
        return r"\begin{bmatrix} " + r" \\ ".join(body) + r" \end{bmatrix}"
    head = "& " + " & ".join(label(cols[j]) if j is not None else r"\cdots" for j in ci)
    return (r"\begin{array}{l|" + "c" * len(ci) + "} " + head + r" \\ \hline " + r" \\ ".join(body)
            + r" \end{array}")


def _dec_cells(node_decimals: list) -> list[list[str]]:
    return [[latex_decimal(x) for x in row] for row in node_decimals]


def _operand(op: Operand, style: Style) -> str:
    dec = op.node.decimals(min(style.digits, EXAMPLE_DIGITS))
    cells = _dec_cells(dec) if dec is not None else [[latex(op.node.exact()[i, j]) for j in range(op.node.shape[1])]
                                                      for i in range(op.node.shape[0])]
    return matrix(cells, op.rows, op.cols, style)


def _num(ref: Ref) -> str:
    s = latex_decimal(ref.decimal(EXAMPLE_DIGITS))
    return f"({s})" if s.startswith("-") else s


def _target(step: Step, ex: Example) -> str:
    idx = ex.result.node.index(ex.result.index)
    if len(idx) == 3:
        return (fr"p_{{{label(step.row_labels[idx[0]])},{label(step.col_labels[idx[1]])}}}\, "
                fr"v_{{{label(step.col_labels[idx[1]])},{label(step.depth_labels[idx[2]])}}}")  # type: ignore[index]
    return f"{step.symbol}_{{{label(step.row_labels[idx[0]])},{label(step.col_labels[idx[1]])}}}"


def example_latex(step: Step, ex: Example) -> str | None:
    """One entry written out: ``Q_{\\text{love},1} &= 0.4 \\cdot 0.1 + … = 0.5``."""
    res = latex_decimal(ex.result.decimal(EXAMPLE_DIGITS))
    if ex.result.node.symbolic:
        res = latex(ex.result.exact())
        if len(res) > 120:
            return None
    eq = "=" if ex.result.node.symbolic or ex.result.is_exact_decimal(EXAMPLE_DIGITS) else r"\approx"
    t = _target(step, ex)
    if ex.kind == "given":
        return f"{t} &= {res} \\quad \\text{{(given)}}"
    if ex.kind in ("dot", "product"):
        terms = [f"{_num(a)} \\cdot {_num(b)}" for a, b in ex.terms]
        if len(terms) > 8:
            terms = terms[:3] + [r"\cdots"] + terms[-2:]
        body_ = " + ".join(terms) + (f" + {_num(ex.bias)}" if ex.bias is not None else "")
        return f"{t} &= {body_} {eq} {res}"
    if ex.kind == "scale":
        assert ex.operand is not None and ex.factor is not None
        return f"{t} &= {latex(ex.factor)} \\cdot {_num(ex.operand)} {eq} {res}"
    if ex.kind == "mask":
        assert ex.operand is not None
        if ex.masked:
            return f"{t} &= {res} \\quad \\text{{(masked)}}"
        extra = f" + {_num(ex.bias)}" if ex.bias is not None else ""
        return f"{t} &= {_num(ex.operand)}{extra} {eq} {res}"
    if ex.kind in ("softmax", "ratio"):
        top = ex.exponents[ex.position]
        if top.node.is_infinite(top.index):
            return f"{t} &= 0 \\quad \\text{{(masked)}}"
        live = [r for r in ex.exponents if not r.node.is_infinite(r.index)]
        if ex.kind == "softmax":
            parts = [f"e^{{{latex_decimal(r.decimal(EXAMPLE_DIGITS))}}}" for r in live]
            num = f"e^{{{latex_decimal(top.decimal(EXAMPLE_DIGITS))}}}"
        else:
            parts = [_num(r) for r in live]
            num = _num(top)
        if len(parts) > 8:
            parts = parts[:3] + [r"\cdots"] + parts[-2:]
        return f"{t} &= \\frac{{{num}}}{{{' + '.join(parts)}}} {eq} {res}"
    return None  # pragma: no cover


def _general(formula: str) -> str:
    """``Q = X W^{Q}`` -> ``Q &= X W^{Q}`` (aligned at the first '=')."""
    k = formula.find("=")
    return formula if k < 0 else formula[:k].rstrip() + " &= " + formula[k + 1:].lstrip()


def _substitution(step: Step, style: Style) -> str | None:
    sub = step.substitution
    if sub is None or any(op.node.size > 4096 for op in sub.operands):
        return None
    ops = [_operand(op, style) for op in sub.operands]
    if sub.kind == "product":
        inner = " ".join(ops[:2] if len(ops) > 2 and sub.operands[-1].symbol.startswith("b") else ops)
        if len(ops) > 2 and sub.operands[-1].symbol.startswith("b"):
            inner += " + " + ops[-1]
        return "&= " + inner
    if sub.kind == "scale":
        return f"&= {latex(sub.factor)} \\cdot {ops[0]}"
    if sub.kind == "add":
        return "&= " + " + ".join(ops)
    if sub.kind == "softmax":
        return f"&= \\operatorname{{softmax}}\\left({ops[0]}\\right)"
    if sub.kind == "ratio":
        return f"&= \\operatorname{{normalize}}_{{\\Sigma}}\\left({ops[0]}\\right)"
    return None  # pragma: no cover


def _show_exact(step: Step, style: Style) -> bool:
    from .text import show_exact_by_default

    return style.exact if style.exact is not None else show_exact_by_default(step)


def step_block(step: Step, style: Style = Style(), env: str = "align*") -> str:
    """The step as one ``align*`` (or ``aligned``) block."""
    lines = [_general(step.formula)]
    two_d = len(step.shape) == 2
    sub = _substitution(step, style) if two_d else None
    if sub:
        lines.append(sub)
    if step.example is not None:
        ex = example_latex(step, step.example)
        if ex:
            lines.append(ex)
    dec = step.decimals(style.digits)
    sym = step.symbol or step.name
    if two_d and dec is not None and exact_decimals(step, style.digits):
        lines.append(f"{sym} &= " + matrix(_dec_cells(dec), step.row_labels, step.col_labels, style))
    elif two_d:
        exact_cells = None
        if _show_exact(step, style):
            exact_cells = [[latex(step.exact[i, j]) for j in range(step.shape[1])] for i in range(step.shape[0])]
        if exact_cells is not None:
            if max(len(c) for r in exact_cells for c in r) <= EXACT_CELL_MAX:
                lines.append(f"{sym} &= " + matrix(exact_cells, step.row_labels, step.col_labels, style))
            else:
                ri, ci = _elide(step.shape[0], style.max_rows), _elide(step.shape[1], style.max_cols)
                for i in ri:
                    for j in ci:
                        if i is None or j is None:
                            continue
                        lines.append(f"{sym}_{{{label(step.row_labels[i])},{label(step.col_labels[j])}}} &= "
                                     f"{exact_cells[i][j]}")
                if None in ri or None in ci:
                    lines.append(r"&\;\;\vdots")
        if dec is not None:
            lines.append(f"{sym} &\\approx " + matrix(_dec_cells(dec), step.row_labels, step.col_labels, style))
    elif dec is not None:
        # weighted values (queries × keys × d_v): one matrix per query, keys × d_v
        depth = step.depth_labels or []
        for i in _elide(step.shape[0], style.max_rows):
            if i is None:
                lines.append(r"&\;\;\vdots")
                continue
            lines.append(f"p_{{{label(step.row_labels[i])},j}}\\, v_j &\\approx "
                         + matrix(_dec_cells(dec[i]), step.col_labels, depth, style, labelled=True))
    return f"\\begin{{{env}}}\n" + " \\\\\n".join(lines) + f"\n\\end{{{env}}}"


def _conventions(d: Derivation, style: Style) -> list[str]:
    from ..read.conventions import LAYOUTS, MASKS

    c = d.convention
    items = [f"layout \\texttt{{{c['layout']}}}: {escape_text(LAYOUTS[c['layout']])}",
             f"scale \\texttt{{{escape_text(c['scale'])}}}"
             + (f", so the scores are multiplied by $\\tau = {latex(_tau(d))}$" if c.get("tau") else ""),
             f"mask: {escape_text(MASKS[c['mask']])}" + (" plus an additive bias" if c["bias"] else "")
             + (f"; masked entries are ${latex_decimal(c['mask_value'])}$" if c["mask"] != "none" or c["bias"] else ""),
             f"softmax over the {c['softmax_axis']}"
             + ("" if c.get("normalization", "softmax") == "softmax" else " (dividing by the sum, not a softmax)"),
             f"{c['heads']} head{'s' if c['heads'] != 1 else ''}"]
    if c["temperature"] != "1":
        items.insert(2, f"temperature $T = {escape_text(c['temperature'])}$")
    if c["query"] is not None:
        items.append(f"one query row: \\text{{{escape_text(str(c['query']))}}}")
    items.append(f"decimals: {style.digits} significant digits, each certified by ball arithmetic "
                 "(round to nearest); terminating exact values are printed exactly")
    return items


def _tau(d: Derivation) -> object:
    spec = d.spec
    return spec.convention.tau(d_k=spec.d_k, d_v=spec.d_v or None, d_model=spec.d_model, h=spec.convention.heads)


def _claims_table(r: Report | None) -> str | None:
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


def body(d: Derivation, style: Style = Style(), steps: Sequence[str] | None = None,
         report: Report | None = None) -> str:
    """The derivation as a LaTeX fragment (to ``\\input``): needs amsmath, amssymb,
    booktabs and longtable. With a check ``report``, a table of the checked claims follows."""
    out = ["\\section*{Conventions}", "\\begin{itemize}"]
    out += [f"  \\item {item}" for item in _conventions(d, style)]
    out.append("\\end{itemize}")
    for st in d.select(steps):
        out.append("")
        out.append(f"\\subsection*{{Step \\texttt{{{escape_text(st.name)}}}: {escape_text(st.title)}}}")
        for note in st.notes:
            if not note.startswith("τ ="):  # the substitution line shows the factor
                out.append(escape_text(note) + "\n")
        out.append(step_block(st, style))
    table = _claims_table(report)
    if table:
        out += ["", table]
    return "\n".join(out) + "\n"


def document(d: Derivation, style: Style = Style(), steps: Sequence[str] | None = None,
             report: Report | None = None, heatmap: str | None = None) -> str:
    """A standalone LaTeX document that compiles with pdflatex (with the claims table when a
    check ``report`` is given, and a TikZ ``heatmap`` from :mod:`symattn.views.heatmap_tex`)."""
    from .heatmap_tex import PREAMBLE as TIKZ

    title = escape_text(d.title)
    desc = escape_text(d.spec.description)
    return (
        "\\documentclass[11pt]{article}\n"
        "\\usepackage[T1]{fontenc}\n"
        "\\usepackage[utf8]{inputenc}\n"
        "\\usepackage{lmodern}\n"
        "\\usepackage{amsmath,amssymb}\n"
        "\\usepackage{booktabs,longtable}\n"
        "\\usepackage[margin=2cm,landscape]{geometry}\n"
        + (TIKZ if heatmap else "")
        + "\\allowdisplaybreaks\n"
        "\\setlength{\\arraycolsep}{3pt}\n"
        f"\\title{{{title}}}\n"
        "\\author{derived exactly by symattn}\n"
        "\\date{}\n"
        "\\begin{document}\n"
        "\\maketitle\n"
        + (f"{desc}\n\n" if desc else "")
        + body(d, style, steps, report)
        + (heatmap or "")
        + "\\end{document}\n"
    )


def _md_text(s: str) -> str:
    return "".join("\\" + ch if ch in "\\`*_{}[]()#+-.!|<>" else ch for ch in s)


def markdown(d: Derivation, style: Style = Style(), steps: Sequence[str] | None = None) -> str:
    """Headings and ``$$`` blocks (``aligned``) that render on GitHub and with KaTeX."""
    c = d.convention
    out = [f"# {_md_text(d.title)}", ""]
    if d.spec.description:
        out += [_md_text(d.spec.description), ""]
    out.append(f"Conventions: layout `{c['layout']}`, scale `{c['scale']}`"
               + (f" (τ = `{c['tau']}`)" if c.get("tau") else "")
               + f", mask `{c['mask']}`, softmax over {c['softmax_axis']}, {c['heads']} head(s)"
               + (f", query `{c['query']}`" if c["query"] is not None else "") + ".")
    out.append(f"Decimals: {style.digits} significant digits, each certified.")
    for st in d.select(steps):
        out += ["", f"### Step `{st.name}`: {_md_text(st.title)}", "", "$$",
                step_block(st, style, env="aligned"), "$$"]
    return "\n".join(out) + "\n"
