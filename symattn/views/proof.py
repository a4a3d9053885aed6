"""Views of proofs, softmax closed forms, recognised formulas and gradient verifications:
text, LaTeX (a fragment or a whole document) and Markdown. Every statement and argument
line is printed by the printers from its SymPy expressions.

>>> from symattn.analyses.proofs import prove
>>> print(text(prove("rows-sum-to-one")).splitlines()[1])
  claim: Σⱼ pᵢⱼ = 1, where pᵢⱼ = e^sᵢⱼ/(Σₗ e^sᵢₗ)
"""

from __future__ import annotations

from typing import Sequence

import sympy

from ..analyses.formula import Formula
from ..analyses.proofs import Proof
from ..analyses.softmax_forms import ClosedForms
from ..analyses.verify import Verification
from ..pipeline.notation import Chain, Continued
from .printers import escape_text, latex as print_latex, render_phrase

__all__ = ["text", "latex", "markdown", "forms_text", "forms_latex", "forms_markdown", "formula_text",
           "formula_markdown", "verification_text"]


def _phrase(line: object) -> list:
    return list(line) if isinstance(line, (list, tuple)) else [line]


def text(p: Proof) -> str:
    """A proof as terminal text: claim, argument with reasons, the SymPy checks, ∎."""
    lines = [f"{p.title}", f"  claim: {render_phrase(p.statement, 'text')}", "  proof:"]
    for line, why in p.argument:
        body = render_phrase(_phrase(line), "text")
        lines.append(f"    {body}" + (f"    ({render_phrase(why, 'text')})" if why else ""))
    lines.append("  checked with SymPy:")
    for what, ok in p.checks:
        lines.append(f"    {'✓' if ok else '✗'} {what}")
    lines.append("  ∎" if p.holds else "  NOT PROVED")
    return "\n".join(lines) + "\n"


def _aligned(line: object) -> str:
    """One argument line for ``align*``: ``lhs &= a = b``, or ``&= b`` continuing the line above."""
    if isinstance(line, Chain):
        first, rest = line.args[0], line.args[1:]
        lhs = "" if isinstance(first, Continued) else print_latex(first)
        return lhs + " &= " + " = ".join(print_latex(a) for a in rest)
    if isinstance(line, sympy.Equality):
        return f"{print_latex(line.lhs)} &= {print_latex(line.rhs)}"
    return "& " + render_phrase(_phrase(line), "latex-math")


def _body(p: Proof) -> str:
    out = [f"\\paragraph{{{escape_text(p.title)}.}}", _display(p.statement), r"\textit{Proof.}", r"\begin{align*}"]
    out.append(" \\\\\n".join(f"{_aligned(line)} && \\text{{{render_phrase(why, 'latex')}}}"
                              for line, why in p.argument))
    out += [r"\end{align*}", "Checked with SymPy:", r"\begin{itemize}"]
    out += [f"  \\item {escape_text(w)}: {'holds' if ok else 'FAILS'}" for w, ok in p.checks]
    out += [r"\end{itemize}", r"\hfill$\blacksquare$" if p.holds else r"\textbf{not proved}", ""]
    return "\n".join(out)


def latex(p: Proof, standalone: bool = False) -> str:
    """A proof as a LaTeX fragment (a paragraph, an ``align*`` of the argument, the checks), or
    with ``standalone`` a whole document that compiles with pdflatex."""
    if not standalone:
        return _body(p)
    from .latex import standalone as doc

    return doc(p.title, _body(p), author="proved by symattn")


def markdown(p: Proof) -> str:
    """A proof as Markdown with ``$$`` blocks (GitHub, KaTeX, Jupyter)."""
    out = [f"**{p.title}**", "", f"Claim: {_md_phrase(p.statement)}", "", "$$\\begin{aligned}"]
    out.append(" \\\\\n".join(f"{_aligned(line)} && \\text{{{render_phrase(why, 'text')}}}"
                              for line, why in p.argument))
    out += ["\\end{aligned}$$", ""]
    out += [f"- {'✓' if ok else '✗'} {w}" for w, ok in p.checks]
    out += ["", "∎" if p.holds else "**not proved**"]
    return "\n".join(out) + "\n"


def _md_phrase(parts: Sequence[object]) -> str:
    return "".join(f"${print_latex(x)}$" if isinstance(x, sympy.Basic) else str(x) for x in parts)


def forms_text(forms: ClosedForms) -> str:
    """Softmax closed forms as terminal text."""
    size = "a symbolic size n" if forms.n == "n" else f"n = {forms.n}"
    return f"softmax closed forms for {size}\n" + "".join(
        f"\n── {f.title}\n  {render_phrase(f.statement, 'text')}\n  {'✓' if f.checked else '✗'} {f.how}\n"
        for f in forms)


def _display(phrase: Sequence[object]) -> str:
    """A statement at display size: ``gather*`` with its words in ``\\text``."""
    return "\\begin{gather*}\n" + render_phrase(phrase, "latex-math") + "\n\\end{gather*}"


def _forms_body(forms: ClosedForms) -> str:
    return "\n".join(f"\\paragraph{{{escape_text(f.title)}.}}\n{_display(f.statement)}\n"
                     f"{escape_text('Checked: ' + f.how + ('.' if f.checked else ' (FAILED).'))}\n"
                     for f in forms)


def forms_latex(forms: ClosedForms, standalone: bool = False) -> str:
    """Softmax closed forms as LaTeX paragraphs, or a whole document with ``standalone``."""
    if not standalone:
        return _forms_body(forms)
    from .latex import standalone as doc

    size = "a symbolic size n" if forms.n == "n" else f"n = {forms.n}"
    return doc(f"Softmax closed forms for {size}", _forms_body(forms), author="checked by symattn")


def forms_markdown(forms: ClosedForms) -> str:
    size = "a symbolic size $n$" if forms.n == "n" else f"$n = {forms.n}$"
    out = [f"**Softmax closed forms for {size}**", ""]
    for f in forms:
        out += [f"- *{f.title}*: {_md_phrase(f.statement)} ({'✓' if f.checked else '✗'} {f.how})"]
    return "\n".join(out) + "\n"


_KINDS = {"scaled_dot_product": "standard scaled dot-product attention",
          "dot_product": "unscaled dot-product attention", "other": "not standard dot-product attention"}


def _formula(f: Formula, fmt: str) -> str:
    md = fmt == "markdown"
    kind = f"**{_KINDS[f.kind]}**" if md else _KINDS[f.kind]
    lines = [kind + (f" ({f.form} form)" if f.form != "unknown" else "")] + ([""] if md else [])
    code = (lambda x: f"`{x}`") if md else (lambda x: x)
    item = "- " if md else ""
    if f.scale is not None:
        lines.append(f"{item}scale: {code(f.scale)}")
    lines.append(f"{item}parsed: {code(f.expression)}")
    if f.reason:
        lines.append(f"{item}why: {f.reason}")
    return "\n".join(lines) + "\n"


def formula_text(f: Formula) -> str:
    """What a recognised formula is, as terminal text."""
    return _formula(f, "text")


def formula_markdown(f: Formula) -> str:
    """What a recognised formula is, as Markdown (Jupyter)."""
    return _formula(f, "markdown")


def verification_text(checks: Sequence[Verification]) -> str:
    """The verification of closed-form gradients, one line each."""
    return "── verification\n" + "".join(
        f"  {'✓' if c.ok else '✗'} ∂L/∂{c.wrt} (step {c.step}), {c.method}, {c.entries} entries: {c.detail}\n"
        for c in checks)
