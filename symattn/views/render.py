"""Every view of every object, by type: the functions behind ``sa.text``, ``sa.to_json``,
``sa.latex`` and ``sa.markdown``, and behind ``print(obj)`` and Jupyter's rich display.

>>> import symattn as sa
>>> d = sa.derive(sa.load("i_love_statistics"))
>>> text(d).splitlines()[0]
'I love statistics'
>>> to_json(d)["steps"][0]["name"]
'Q'
>>> text(d["scores"].formula), latex(d["scores"].formula)
('S = Q·Kᵀ', 'S = Q\\\\, K^{\\\\top}')
"""

from __future__ import annotations

from typing import Any, Sequence

import sympy

from ..analyses.check import Report
from ..analyses.formula import Formula
from ..analyses.proofs import Proof
from ..analyses.softmax_forms import ClosedForms
from ..analyses.verify import Verification
from ..pipeline.steps import Derivation, Step

__all__ = ["render", "text", "to_json", "latex", "markdown", "html"]


def text(obj: Any, digits: int = 6, steps: Sequence[str] | None = None, exact: bool | None = None,
         expand: bool = False) -> str:
    """Terminal text of a derivation (or gradient), a step, a check report, a proof, softmax
    closed forms, a recognised formula, verifications, or a SymPy expression."""
    if isinstance(obj, Derivation):
        from .text import render as render_text

        return render_text(obj, digits=digits, steps=steps, exact=exact, expand=expand)
    if isinstance(obj, Step):
        from .text import step_text

        return step_text(obj, digits, exact, expand) + "\n"
    if isinstance(obj, Report):
        from .report import text as report_text

        return report_text(obj)
    if isinstance(obj, (Proof, ClosedForms, Formula)):
        from . import proof

        return {Proof: proof.text, ClosedForms: proof.forms_text, Formula: proof.formula_text}[type(obj)](obj)
    if isinstance(obj, Verification) or (isinstance(obj, list) and obj and all(isinstance(v, Verification)
                                                                                for v in obj)):
        from .proof import verification_text

        return verification_text(obj if isinstance(obj, list) else [obj])
    if isinstance(obj, sympy.Basic):
        from .printers import text as print_text

        return print_text(obj)
    if _is_comparison(obj):
        from .compare import text as compare_text

        return compare_text(obj)
    raise TypeError(f"no text view of {type(obj).__name__}")


def to_json(obj: Any, digits: int = 6, steps: Sequence[str] | None = None, exact: bool | None = None) -> Any:
    """JSON-ready data (stable key order) of a derivation, a report, a proof, closed forms,
    a formula or verifications."""
    from .data import to_data

    return to_data(obj, digits=digits, steps=steps, exact=exact)


def latex(obj: Any, digits: int = 6, steps: Sequence[str] | None = None, standalone: bool = False,
          report: Report | None = None, expand: bool = False, exact: bool | None = None) -> str:
    """LaTeX: a derivation as a fragment to ``\\input`` (or a whole document with
    ``standalone``), a step as an ``align*`` block, a proof or closed forms as paragraphs
    (or documents), a SymPy expression in symattn's notation."""
    from . import latex as lx

    style = lx.Style(digits=digits, exact=exact, expand=expand)
    if isinstance(obj, Derivation):
        return lx.document(obj, style, steps, report) if standalone else lx.body(obj, style, steps, report)
    if isinstance(obj, Step):
        return lx.step_block(obj, style)
    if isinstance(obj, (Proof, ClosedForms)):
        from . import proof

        fn = proof.latex if isinstance(obj, Proof) else proof.forms_latex
        return fn(obj, standalone=standalone)  # type: ignore[arg-type]
    if isinstance(obj, sympy.Basic):
        from .printers import latex as print_latex

        return print_latex(obj)
    raise TypeError(f"no LaTeX view of {type(obj).__name__}")


def markdown(obj: Any, digits: int = 6, steps: Sequence[str] | None = None, expand: bool = False) -> str:
    """Markdown with ``$$`` blocks (GitHub, KaTeX, Jupyter) of a derivation, a step, a
    report, a proof, closed forms or a formula."""
    if isinstance(obj, Derivation):
        from .latex import Style, markdown as derivation_markdown

        return derivation_markdown(obj, Style(digits=digits, expand=expand), steps)
    if isinstance(obj, Step):
        from .latex import Style, step_block

        return f"**{obj.name}**: {obj.title}\n\n$$" + step_block(obj, Style(digits=digits, expand=expand, katex=True),
                                                               env="aligned") + "$$\n"
    if isinstance(obj, Report):
        from .report import markdown as report_markdown

        return report_markdown(obj)
    if isinstance(obj, (Proof, ClosedForms, Formula)):
        from . import proof

        return {Proof: proof.markdown, ClosedForms: proof.forms_markdown,
                Formula: proof.formula_markdown}[type(obj)](obj)
    raise TypeError(f"no Markdown view of {type(obj).__name__}")


def _is_comparison(obj: Any) -> bool:
    """A kernel comparison (checked by name, so that rendering other objects does not import NumPy)."""
    return type(obj).__name__ == "Comparison" and type(obj).__module__ == "symattn.analyses.compare"


def render(obj: object, fmt: str) -> str | None:
    """The hook behind ``str(obj)`` and ``_repr_*``: None when there is no such view."""
    try:
        if fmt == "text":
            return text(obj)
        if fmt == "markdown":
            return markdown(obj)
        if fmt == "latex":
            if isinstance(obj, Step):
                from .latex import Style, step_block

                return "$$" + step_block(obj, Style(katex=True), env="aligned") + "$$"
            if isinstance(obj, Derivation):
                from .latex import Style, step_block

                style = Style(katex=True)
                return "$$" + " \\\\ ".join(step_block(s, style, env="aligned") for s in obj.steps) + "$$"
            if isinstance(obj, sympy.Basic):
                return "$" + latex(obj) + "$"
            return None
        if fmt == "html" and isinstance(obj, Derivation):
            return html(obj)
        if fmt == "svg":
            from .heatmap import Heatmap

            if isinstance(obj, Heatmap):
                from .plot import svg

                return svg(obj)
    except TypeError:
        return None
    return None


def html(d: Derivation, digits: int = 6) -> str | None:
    """HTML for Jupyter: the heatmap of the weights (of dS for a gradient) as inline SVG,
    then every step as a ``$$`` block (typeset by the notebook's MathJax). None when there
    is no picture to draw (matplotlib missing, symbols), so that Jupyter shows the Markdown."""
    import html as _html

    from ..errors import SymattnError
    from ..pipeline.backward import Gradient
    from .conventions import digits_line, summary
    from .heatmap import heatmap
    from .latex import Style, step_block
    from .printers import render_phrase

    step = ("dS" if "dS" in d else "dA") if isinstance(d, Gradient) else "weights"  # dA: linear attention
    try:
        picture = _svg_inline(heatmap(d, step, digits=3))
        blocks = [step_block(st, Style(digits=digits, katex=True), env="aligned") for st in d.steps]
    except SymattnError:  # no matplotlib, symbols, a step too large to draw
        return None
    conventions = ", ".join(_html.escape(render_phrase(i.short, "text")) for i in summary(d))
    parts = [f"<h3>{_html.escape(d.title)}</h3>",
             f"<p>Conventions: {conventions}. {_html.escape(digits_line(digits).capitalize())}.</p>",
             f'<div class="symattn-heatmap">{picture}</div>']
    for st, block in zip(d.steps, blocks):
        parts.append(f"<h4>Step <code>{_html.escape(st.name)}</code>: {_html.escape(st.title)}</h4>")
        parts.append("<div>$$" + _html.escape(block, quote=False) + "$$</div>")
    return "\n".join(parts)


def _svg_inline(h: object) -> str:
    """The heatmap's SVG without its XML prolog, to sit inside HTML."""
    from .plot import svg

    out = svg(h)  # type: ignore[arg-type]
    return out[out.index("<svg"):]
