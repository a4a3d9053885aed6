"""Views of proofs, softmax closed forms and recognised formulas: text and LaTeX.

>>> from symattn.analyses.proofs import prove
>>> print(text(prove("rows-sum-to-one")).splitlines()[-1])
  ∎
"""

from __future__ import annotations

from ..analyses.formula import Formula
from ..analyses.proofs import Proof
from ..analyses.softmax_forms import Fact
from .printers import escape_text
from .text import _plain_latex

__all__ = ["text", "latex", "facts_text", "facts_latex", "formula_text"]


def text(p: Proof) -> str:
    """A proof as terminal text: claim, argument with reasons, the SymPy checks, ∎."""
    lines = [f"{p.title}", f"  claim: {_plain_latex(p.statement)}", "  proof:"]
    for tex, why in p.argument:
        lines.append(f"    {_plain_latex(tex)}" + (f"    ({why})" if why else ""))
    lines.append("  checked with SymPy:")
    for what, ok in p.checks:
        lines.append(f"    {'✓' if ok else '✗'} {what}")
    lines.append("  ∎" if p.holds else "  NOT PROVED")
    return "\n".join(lines) + "\n"


def latex(p: Proof) -> str:
    """A proof as a LaTeX fragment: a paragraph, an ``align*`` of the argument, the checks."""
    body = [f"\\paragraph{{{escape_text(p.title)}.}} ${p.statement}$", "", r"\begin{align*}"]
    body.append(" \\\\\n".join(f"{tex} && \\text{{{escape_text(why)}}}" for tex, why in p.argument))
    body += [r"\end{align*}", "Checked with SymPy:", r"\begin{itemize}"]
    body += [f"  \\item {escape_text(w)}: {'holds' if ok else 'FAILS'}" for w, ok in p.checks]
    body += [r"\end{itemize}", r"\hfill$\blacksquare$" if p.holds else r"\textbf{not proved}", ""]
    return "\n".join(body)


def facts_text(n: object, facts: list[Fact]) -> str:
    """Softmax closed forms as terminal text."""
    return f"softmax closed forms, n = {n}\n" + "".join(
        f"\n── {f.title}\n  {f.text}\n  {'✓' if f.checked else '✗'} {f.how}\n" for f in facts)


def facts_latex(facts: list[Fact]) -> str:
    """Softmax closed forms as LaTeX paragraphs."""
    return "\n".join(f"\\paragraph{{{escape_text(f.title)}.}} \\[ {f.latex} \\] "
                     f"{escape_text('Checked: ' + f.how + ('.' if f.checked else ' (FAILED).'))}\n"
                     for f in facts)


def formula_text(f: Formula) -> str:
    """What a recognised formula is, as terminal text."""
    what = {"scaled_dot_product": "standard scaled dot-product attention",
            "dot_product": "unscaled dot-product attention", "other": "not standard dot-product attention"}
    lines = [f"{what[f.kind]} ({f.form} form)" if f.form != "unknown" else what[f.kind]]
    if f.scale is not None:
        lines.append(f"scale: {f.scale}")
    lines.append(f"parsed: {f.expression}")
    if f.reason:
        lines.append(f"why: {f.reason}")
    return "\n".join(lines) + "\n"
