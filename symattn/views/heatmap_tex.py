r"""A heatmap drawn natively in LaTeX with TikZ: no image files, the same picture as ``symattn plot``.

Each cell is a filled square in the colour of :class:`~symattn.views.heatmap.Scale` with its
certified decimal; masked cells are light grey with a hatching (TikZ's ``patterns``
library), outside the colour scale; the colour bar is a column of small squares drawn by
the same rule; the title and the conventions follow in a caption. The preamble needs
``\usepackage{tikz}`` and ``\usetikzlibrary{patterns}`` (:data:`PREAMBLE`), which TeX
Live ships in ``texlive-pictures``.

>>> import symattn as sa
>>> from symattn.views.heatmap import heatmap
>>> tex = tikz(heatmap(sa.derive(sa.load("two_heads_causal").unfocused()), head=1))
>>> tex.count(r"\begin{tikzpicture}"), "pattern=north east lines" in tex, r"{$0.622$}" in tex
(1, True, True)
"""

from __future__ import annotations

from .heatmap import MASKED_FILL, MASKED_HATCH, Heatmap
from .printers import escape_text, latex_decimal

__all__ = ["PREAMBLE", "tikz", "section"]

#: what a document's preamble needs for :func:`tikz`
PREAMBLE = "\\usepackage{tikz}\n\\usetikzlibrary{patterns}\n"
WIDTH_CM = 22.0  # room for the panels on a landscape page (the document's geometry)
BAR_STEPS = 40
#: the title of each step, in LaTeX (the plain-text titles are :data:`~symattn.views.heatmap.STEPS`)
STEPS_TEX = {
    "weights": r"attention weights $P$",
    "scores": r"scores $S = QK^{\top}$",
    "scaled": r"scaled scores $\tilde S$",
    "masked": r"masked scores $\hat S$",
    "dP": r"gradient $dP = \partial L / \partial P$",
    "dS": r"gradient $dS = \partial L / \partial \tilde S$",
    "dB": r"gradient $dB = \partial L / \partial B$",
    "dscores": r"gradient $\partial L / \partial S$",
    # the score variants (issue 13)
    "energies": r"energies $e_{ij} = v_a^{\top} \tanh(W_a q_i + U_a k_j)$",
    "dE": r"gradient $dE = \partial L / \partial E$",
    "dA": r"gradient $dA$ of the linear scores $\phi(q_i) \cdot \phi(k_j)$",
    "pe": r"sinusoidal positional encoding $PE$",
    "embedded": r"inputs plus positions $X + PE$",
    "Q_rot": r"rotated queries $\operatorname{RoPE}(Q)$",
    "K_rot": r"rotated keys $\operatorname{RoPE}(K)$",
    "alibi": r"ALiBi bias $-m\,|i - j|$",
    "biased": r"scores with the ALiBi bias",
}


def _rgb(c: tuple[int, int, int]) -> str:
    return f"{{rgb,255:red,{c[0]};green,{c[1]};blue,{c[2]}}}"


def _num(x: float) -> str:
    return f"{x:.4f}".rstrip("0").rstrip(".") or "0"


def _tick(x: float) -> str:
    return latex_decimal(f"{x:.3g}")


def tikz(h: Heatmap) -> str:
    """The heatmap as a ``center`` block holding one ``tikzpicture`` and its caption."""
    n_rows, n_cols = len(h.panels[0].rows), len(h.panels[0].cols)
    panels = len(h.panels)
    label_w = 0.22 * min(24, max(len(r) for p in h.panels for r in p.rows)) + 0.3  # cm, for the query labels
    gap = 0.6 + label_w
    cell = min(1.1, (WIDTH_CM - label_w - 2.2 - (panels - 1) * gap) / (panels * n_cols))
    cell = max(0.12, cell)
    font = r"\footnotesize" if cell >= 0.95 else (r"\scriptsize" if cell >= 0.7 else r"\tiny")
    rotate = max(len(c) for p in h.panels for c in p.cols) > 4
    out = [r"\begin{center}", fr"\begin{{tikzpicture}}[x={_num(cell)}cm, y=-{_num(cell)}cm, font={font}]"]
    for k, p in enumerate(h.panels):
        x0 = k * (n_cols + gap / cell)
        dx = _num(x0)
        out.append(f"\\begin{{scope}}[xshift={dx}*{_num(cell)}cm]" if x0 else r"\begin{scope}")
        for i, row in enumerate(p.cells):
            for j, c in enumerate(row):
                box = f"({j},{i}) rectangle ({j + 1},{i + 1})"
                if c.masked:
                    out.append(f"\\fill[fill={_rgb(MASKED_FILL)}] {box};")
                    out.append(f"\\fill[pattern=north east lines, pattern color={_rgb(MASKED_HATCH)}] {box};")
                else:
                    out.append(f"\\fill[fill={_rgb(h.scale.colour(c.level))}] {box};")
                if h.annotated:
                    colour = _rgb((64, 64, 64)) if c.masked else ("white" if abs(c.level) > 0.55 else "black")
                    out.append(f"\\node[text={colour}] at ({j + 0.5},{i + 0.5}) {{${latex_decimal(c.text)}$}};")
        lines = [f"(0,{i}) -- ({n_cols},{i})" for i in range(n_rows + 1)]
        lines += [f"({j},0) -- ({j},{n_rows})" for j in range(n_cols + 1)]
        out.append("\\draw[white, line width=0.8pt] " + " ".join(lines) + ";")
        for j, name in enumerate(p.cols):
            spec = "anchor=south west, rotate=45" if rotate else "anchor=south"
            out.append(f"\\node[{spec}, inner sep=2pt] at ({j + 0.5},0) {{{escape_text(name)}}};")
        for i, name in enumerate(p.rows):
            out.append(f"\\node[anchor=east, inner sep=3pt] at (0,{i + 0.5}) {{{escape_text(name)}}};")
        if p.title:
            lift = 1.6 if rotate else 0.9
            out.append(f"\\node[anchor=south, font=\\small] at ({n_cols / 2},-{_num(lift * 0.7 / cell + 0.2)}) "
                       f"{{{escape_text(p.title)}}};")
        out.append(r"\end{scope}")
    # the colour bar: BAR_STEPS squares of the same rule, highest on top
    bx = panels * n_cols + (panels - 1) * gap / cell + 0.5
    bw = 0.35 / cell
    lo, hi = h.scale.vmin, h.scale.hi
    for s in range(BAR_STEPS):
        t = (s + 0.5) / BAR_STEPS
        value = lo + (hi - lo) * t
        level = h.scale.level(value)
        y1 = n_rows * (1 - s / BAR_STEPS)
        y0 = n_rows * (1 - (s + 1) / BAR_STEPS)
        out.append(f"\\fill[fill={_rgb(h.scale.colour(level))}] ({_num(bx)},{_num(y0)}) rectangle "
                   f"({_num(bx + bw)},{_num(y1)});")
    out.append(f"\\draw[black!60] ({_num(bx)},0) rectangle ({_num(bx + bw)},{n_rows});")
    for value, y in ((hi, 0.0), ((lo + hi) / 2, n_rows / 2), (lo, float(n_rows))):
        out.append(f"\\node[anchor=west, font=\\tiny] at ({_num(bx + bw)},{_num(y)}) {{${_tick(value)}$}};")
    out.append(f"\\node[anchor=south, font=\\tiny] at ({_num(bx + bw / 2)},0) {{{escape_text(h.label)}}};")
    out.append(r"\end{tikzpicture}")
    out.append("")
    title = f"{escape_text(h.example)}: {STEPS_TEX[h.step]}"
    out.append(f"\\parbox{{0.9\\linewidth}}{{\\small\\textbf{{{title}.}} {escape_text(h.caption)}}}")
    out.append(r"\end{center}")
    return "\n".join(out) + "\n"


def section(h: Heatmap) -> str:
    """The heatmap as a section of a document (``\\section*{Heatmap}`` and the picture)."""
    return "\n\\section*{Heatmap}\n" + tikz(h)
