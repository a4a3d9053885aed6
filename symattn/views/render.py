"""Every view of every object, by type: the functions behind ``sa.text``, ``sa.to_json``,
``sa.latex`` and ``sa.markdown``, and behind ``print(obj)`` and Jupyter's rich display.

>>> import symattn as sa
>>> d = sa.derive(sa.load("i_love_statistics"))
>>> text(d).splitlines()[0]
'I love statistics'
>>> to_json(d)["steps"][0]["name"]
'Q'
"""

from __future__ import annotations

from typing import Any, Sequence

from ..analyses.check import Report
from ..analyses.formula import Formula
from ..analyses.proofs import Proof
from ..pipeline.steps import Derivation, Step

__all__ = ["render", "text", "to_json", "latex", "markdown", "html"]


def text(obj: Any, digits: int = 6, steps: Sequence[str] | None = None, exact: bool | None = None) -> str:
    """Terminal text of a derivation (or gradient), a check report, a proof or a formula."""
    if isinstance(obj, Derivation):
        from .text import render as render_text

        return render_text(obj, digits=digits, steps=steps, exact=exact)
    if isinstance(obj, Report):
        from .report import text as report_text

        return report_text(obj)
    if isinstance(obj, Proof):
        from .proof import text as proof_text

        return proof_text(obj)
    if isinstance(obj, Formula):
        from .proof import formula_text

        return formula_text(obj)
    if _is_comparison(obj):
        from .compare import text as compare_text

        return compare_text(obj)
    raise TypeError(f"no text view of {type(obj).__name__}")


def to_json(obj: Any, digits: int = 6, steps: Sequence[str] | None = None, exact: bool | None = None) -> dict:
    """JSON-ready data (stable key order) of a derivation, a report, a proof or a formula."""
    if isinstance(obj, Derivation):
        from .data import to_data

        return to_data(obj, digits=digits, steps=steps, exact=exact)
    if isinstance(obj, (Report, Proof, Formula)) or _is_comparison(obj):
        return obj.to_data()
    raise TypeError(f"no JSON view of {type(obj).__name__}")


def latex(obj: Any, digits: int = 6, steps: Sequence[str] | None = None, standalone: bool = False,
          report: Report | None = None) -> str:
    """LaTeX: a derivation as a fragment to ``\\input`` (or a whole document with
    ``standalone``), a step as an ``align*`` block, a proof as a paragraph."""
    from .latex import Style, body, document, step_block

    if isinstance(obj, Derivation):
        style = Style(digits=digits)
        return document(obj, style, steps, report) if standalone else body(obj, style, steps, report)
    if isinstance(obj, Step):
        return step_block(obj, Style(digits=digits))
    if isinstance(obj, Proof):
        from .proof import latex as proof_latex

        return proof_latex(obj)
    raise TypeError(f"no LaTeX view of {type(obj).__name__}")


def markdown(obj: Any, digits: int = 6, steps: Sequence[str] | None = None) -> str:
    """Markdown with ``$$`` blocks (GitHub, KaTeX, Jupyter) of a derivation or a report."""
    if isinstance(obj, Derivation):
        from .latex import Style, markdown as derivation_markdown

        return derivation_markdown(obj, Style(digits=digits), steps)
    if isinstance(obj, Report):
        from .report import markdown as report_markdown

        return report_markdown(obj)
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

                return "$$" + step_block(obj, Style(), env="aligned") + "$$"
            if isinstance(obj, Derivation):
                from .latex import Style, step_block

                return "$$" + " \\\\ ".join(step_block(s, Style(), env="aligned") for s in obj.steps) + "$$"
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
    from .heatmap import heatmap
    from .latex import Style, step_block

    step = "dS" if hasattr(d, "forward") else "weights"
    try:
        picture = _svg_inline(heatmap(d, step, digits=3))
        blocks = [step_block(st, Style(digits=digits), env="aligned") for st in d.steps]
    except SymattnError:  # no matplotlib, symbols, a step too large to draw
        return None
    c = d.convention
    parts = [f"<h3>{_html.escape(d.title)}</h3>",
             f"<p>Conventions: layout <code>{_html.escape(c['layout'])}</code>, scale <code>"
             f"{_html.escape(c['scale'])}</code>, mask <code>{_html.escape(c['mask'])}</code>, softmax over "
             f"{_html.escape(c['softmax_axis'])}, {c['heads']} head(s). Decimals: {digits} significant digits, "
             "each certified.</p>", f'<div class="symattn-heatmap">{picture}</div>']
    for st, block in zip(d.steps, blocks):
        parts.append(f"<h4>Step <code>{_html.escape(st.name)}</code>: {_html.escape(st.title)}</h4>")
        parts.append("<div>$$" + _html.escape(block, quote=False) + "$$</div>")
    return "\n".join(parts)


def _svg_inline(h: object) -> str:
    """The heatmap's SVG without its XML prolog, to sit inside HTML."""
    from .plot import svg

    text = svg(h)  # type: ignore[arg-type]
    return text[text.index("<svg"):]
