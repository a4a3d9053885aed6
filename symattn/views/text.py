"""Terminal text view: each step as formula -> one entry term by term -> exact -> decimals.

>>> import symattn as sa
>>> out = sa.text(sa.derive(sa.load("i_love_statistics")))
>>> print(out.splitlines()[0])
I love statistics
>>> "Q[love, 1] = 0.4·0.1 + 0.8·0.2 + 0.6·0.5 = 0.5" in out
True
"""

from __future__ import annotations

from typing import Sequence

from ..display import escape
from ..pipeline.steps import Derivation, Example, Ref, Step
from ..limits import JSON_EXACT_MAX_ENTRIES, JSON_EXACT_MAX_KEYS

__all__ = ["render", "table", "elide", "example_text", "show_exact_by_default", "exact_decimals",
           "exact_cells"]

EXAMPLE_DIGITS = 6
HEAD, TAIL = 4, 2
MAX_CELL = 28


def elide(n: int, limit: int = HEAD + TAIL + 2) -> list[int | None]:
    """Indices to show of ``n``: all, or the first and last few with None for the gap.

    >>> elide(4), elide(20)
    ([0, 1, 2, 3], [0, 1, 2, 3, None, 18, 19])
    """
    if n <= limit:
        return list(range(n))
    return list(range(HEAD)) + [None] + list(range(n - TAIL, n))


def table(cells: list[list[str]], rows: Sequence[str], cols: Sequence[str], indent: str = "    ") -> str:
    """Aligned matrix with row and column labels; large ones elided (⋮, …).

    >>> print(table([["1", "-0.5"]], ["a"], ["x", "y"]))
           x     y
        a  1  -0.5
    """
    ri, ci = elide(len(rows)), elide(len(cols))
    rows, cols = [escape(r) for r in rows], [escape(c) for c in cols]  # names a user wrote
    head = [""] + [cols[j] if j is not None else "…" for j in ci]
    body = []
    for i in ri:
        if i is None:
            body.append(["⋮"] + ["⋮" if j is not None else "⋱" for j in ci])
        else:
            body.append([rows[i]] + [cells[i][j] if j is not None else "…" for j in ci])
    grid = [head] + body
    widths = [max(len(r[c]) for r in grid) for c in range(len(head))]
    lines = []
    for r in grid:
        parts = [r[0].ljust(widths[0])] + [r[c].rjust(widths[c]) for c in range(1, len(r))]
        lines.append(indent + "  ".join(parts).rstrip())
    return "\n".join(lines)


def _num(ref: Ref, digits: int = EXAMPLE_DIGITS) -> str:
    s = ref.decimal(digits)
    return f"({s})" if s.startswith("-") else s


def example_text(ex: Example, digits: int = EXAMPLE_DIGITS) -> str | None:
    """One entry of a step written out, e.g. ``Q[love, 1] = 0.4·0.1 + 0.8·0.2 + 0.6·0.5 = 0.5``.

    None for symbolic values whose closed form is too long to be worth repeating.
    """
    res = ex.result.decimal(digits)
    symbolic = ex.result.node.symbolic
    if symbolic and len(res) > 60:
        return None
    eq = "=" if symbolic or ex.result.is_exact_decimal(digits) else "≈"
    if ex.kind == "given":
        return f"{ex.target} = {res} (given)"
    if ex.kind in ("dot", "product"):
        terms = [f"{_num(a)}·{_num(b)}" for a, b in ex.terms]
        if len(terms) > 8:
            terms = terms[:3] + ["…"] + terms[-2:]
        body = " + ".join(terms)
        if ex.bias is not None:
            body += f" + {_num(ex.bias)}"
        return f"{ex.target} = {body} {eq} {res}"
    if ex.kind == "scale":
        assert ex.operand is not None
        return f"{ex.target} = {_num(ex.operand)}·{ex.factor} {eq} {res}"
    if ex.kind == "mask":
        assert ex.operand is not None
        if ex.masked:
            return f"{ex.target} = {res} (masked)"
        body = _num(ex.operand) + (f" + {_num(ex.bias)}" if ex.bias is not None else "")
        return f"{ex.target} = {body} {eq} {res}"
    if ex.kind == "softmax":
        live = [r for r in ex.exponents if not r.node.is_infinite(r.index)]
        parts = [f"exp({r.decimal(digits)})" for r in live]
        if len(parts) > 8:
            parts = parts[:3] + ["…"] + parts[-2:]
        top = ex.exponents[ex.position]
        if top.node.is_infinite(top.index):
            return f"{ex.target} = 0 (masked)"
        return f"{ex.target} = exp({top.decimal(digits)}) / ({' + '.join(parts)}) {eq} {res}"
    if ex.kind == "ratio":
        top = ex.exponents[ex.position]
        if top.node.is_infinite(top.index):
            return f"{ex.target} = 0 (masked)"
        parts = [_num(r, digits) for r in ex.exponents if not r.node.is_infinite(r.index)]
        if len(parts) > 8:
            parts = parts[:3] + ["…"] + parts[-2:]
        return f"{ex.target} = {_num(top, digits)} / ({' + '.join(parts)}) {eq} {res}"
    raise ValueError(ex.kind)  # pragma: no cover


def show_exact_by_default(step: Step) -> bool:
    """Exact closed forms are shown by default only for small steps (see limits)."""
    if step.node.is_rational_matrix:
        return True  # rationals do not grow with the number of keys
    return (step.node.terms() <= JSON_EXACT_MAX_KEYS and step.node.size <= JSON_EXACT_MAX_ENTRIES
            and step.node.exact_fits())


def _block(step: Step, values: list, label: str) -> list[str]:
    out = [f"  {label}"]
    if len(step.shape) == 2:
        cells = [[str(x) for x in row] for row in values]
        if max((len(c) for r in cells for c in r), default=0) > MAX_CELL:
            # long closed forms: one entry a line
            for i in elide(step.shape[0]):
                if i is None:
                    out.append("    ⋮")
                    continue
                for j in elide(step.shape[1]):
                    if j is None:
                        out.append("    …")
                        continue
                    out.append(f"    [{escape(step.row_labels[i])}, {escape(step.col_labels[j])}] = {cells[i][j]}")
        else:
            out.append(table(cells, step.row_labels, step.col_labels))
    else:
        depth = step.depth_labels or []
        for i in elide(step.shape[0]):
            if i is None:
                out.append("    ⋮")
                continue
            out.append(f"    query {escape(step.row_labels[i])}:")
            cells = [[str(x) for x in row] for row in values[i]]
            if max((len(c) for r in cells for c in r), default=0) > MAX_CELL:
                for j in elide(step.shape[1]):
                    if j is None:
                        out.append("      …")
                        continue
                    for l in elide(step.shape[2]):
                        if l is None:
                            continue
                        out.append(f"      [{escape(step.col_labels[j])}, {escape(depth[l])}] = {cells[j][l]}")
            else:
                out.append(table(cells, step.col_labels, depth, indent="      "))
    return out


def exact_cells(step: Step) -> list:
    """Exact values as SymPy-readable strings, nested like the step (2-D or 3-D)."""
    from sympy import sstr as _sstr  # order="none": sorting a number's terms evaluates them (minutes)
    e = step.exact
    if len(step.shape) == 2:
        return [[_sstr(e[i, j], order="none") for j in range(step.shape[1])] for i in range(step.shape[0])]
    a, b, c = step.shape
    return [[[_sstr(e[i, j, l], order="none") for l in range(c)] for j in range(b)] for i in range(a)]


def render(d: Derivation, digits: int = 6, steps: Sequence[str] | None = None, exact: bool | None = None) -> str:
    """The whole derivation as text."""
    conv = d.convention
    lines = [d.title]
    if d.spec.description:
        lines.append("  " + d.spec.description)
    lines.append(f"  source: {d.spec.source}")
    tau = f" (τ = {conv['tau']})" if conv.get("tau") else ""
    mask = conv["mask"] + (" + bias" if conv["bias"] else "")
    if conv["mask"] != "none" or conv["bias"]:
        mask += f", masked = {conv['mask_value']}"
    lines.append(f"  conventions: layout {conv['layout']} · scale {conv['scale']}{tau}"
                 + (f" · temperature {conv['temperature']}" if conv["temperature"] != "1" else "")
                 + f" · mask {mask} · softmax over {conv['softmax_axis']} · heads {conv['heads']}"
                 + (f" · query {conv['query']}" if conv["query"] is not None else ""))
    lines.append(f"  decimals: {digits} significant digits, each one certified (round to nearest);"
                 " terminating exact values are printed exactly")
    for step in d.select(steps):
        shape = "×".join(str(n) for n in step.shape)
        lines.append("")
        lines.append(f"── {step.name}: {step.title} ── {step.formula_text}   ({shape})")
        for note in step.notes:
            lines.append(f"  {note}")
        written = example_text(step.example) if step.example is not None else None
        if written:
            lines.append("  " + escape(written))
        want_exact = exact if exact is not None else show_exact_by_default(step)
        dec = step.decimals(digits)

        if dec is not None and exact_decimals(step, digits):
            lines += _block(step, dec, "exact (terminating decimals)")
            continue
        if want_exact:
            lines += _block(step, exact_cells(step), "exact")
        else:
            lines.append("  exact: closed forms omitted at this size (use --exact)")
        if dec is not None:
            lines += _block(step, dec, f"decimal ({digits} significant digits)")
        else:
            lines.append("  decimal: none (the value has symbols)")
    return "\n".join(lines) + "\n"


def exact_decimals(step: Step, digits: int) -> bool:
    """Whether a step is rational with every decimal exact (then no separate exact table)."""
    node = step.node
    if not node.is_rational_matrix:
        return False
    return all(node.prints_exactly(k, digits) for k in range(node.size))


_SYMBOLS = {r"\sum": "Σ", r"\cdot": "·", r"\top": "ᵀ", r"\le": "≤", r"\ge": "≥", r"\in": "∈", r"\Rightarrow": "⇒",
            r"\tau": "τ", r"\delta": "δ", r"\Pi": "Π", r"\pi": "π", r"\ell": "ℓ", r"\det": "det", r"\infty": "∞",
            r"\lim": "lim", r"\to": "→", r"\log": "log", r"\sigma": "σ", r"\partial": "∂", r"\odot": "∘",
            r"\circ": "∘", r"\dots": "…", r"\cdots": "⋯", r"\quad": "   ", r"\;": " ", r"\,": " ", r"\!": "",
            r"\mathbf": "", r"\left": "", r"\right": "", r"\blacksquare": "∎", r"\approx": "≈", r"\neq": "≠"}


def _plain_latex(tex: str) -> str:
    r"""LaTeX of a formula as readable plain text (for terminals).

    >>> _plain_latex(r"\sum_j p_{ij} = \frac{e^{x_i}}{\sum_l e^{x_l}}")
    'Σ_j p_ij = (e^(x_i))/(Σ_l e^(x_l))'
    """
    import re

    t = tex
    for _ in range(6):  # innermost groups first
        t2 = re.sub(r"\\[dt]?frac\{([^{}]*)\}\{([^{}]*)\}", r"(\1)/(\2)", t)
        t2 = re.sub(r"\\(?:operatorname|text|mathrm|tilde|hat)\{([^{}]*)\}", r"\1", t2)
        t2 = re.sub(r"\^\{([^{}]*)\}", lambda m: "^" + (m.group(1) if len(m.group(1)) == 1 else f"({m.group(1)})"), t2)
        t2 = re.sub(r"_\{([^{}]*)\}", r"_\1", t2)
        t2 = re.sub(r"\\sqrt\{([^{}]*)\}", r"√(\1)", t2)
        t2 = re.sub(r"\\(?:tilde|hat)\s+([A-Za-z])", r"\1", t2)
        if t2 == t:
            break
        t = t2
    for k in sorted(_SYMBOLS, key=len, reverse=True):
        t = re.sub(re.escape(k) + r"(?![A-Za-z])", _SYMBOLS[k], t)
    t = t.replace("^ᵀ", "ᵀ").replace("{", "").replace("}", "")
    return re.sub(r"\s+", " ", t).strip()
