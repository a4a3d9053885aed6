"""Heatmaps drawn with matplotlib: PNG, SVG or PDF bytes of a :class:`~symattn.views.heatmap.Heatmap`.

Query tokens down, key tokens across (labelled on top, like a matrix's header), each cell
annotated with its certified decimal, masked cells light grey and hatched (not a colour of
the scale), a colour bar, the title above and the caption with the conventions below. A
multi-head example gets one panel per head, side by side, on one scale. Text stays text in
SVG (selectable, searchable); the same input gives the same bytes.

Needs matplotlib (``pip install 'symattn[plot]'``).

>>> import symattn as sa
>>> svg = figure_bytes(heatmap(sa.derive(sa.load("i_love_statistics"))), "svg").decode()
>>> ">statistics</text>" in svg and ">0.357</text>" in svg
True
"""

from __future__ import annotations

import io
import textwrap

from ..errors import SymattnError
from .heatmap import TOKEN_STEPS, MASKED_FILL, MASKED_HATCH, Heatmap, heatmap

__all__ = ["FORMATS", "figure", "figure_bytes", "heatmap", "svg"]

#: file formats, by suffix
FORMATS = ("png", "svg", "pdf")
DPI = 150
CELL = 0.62  # inches per cell


def _rgb(c: tuple[int, int, int]) -> tuple[float, float, float]:
    return (c[0] / 255, c[1] / 255, c[2] / 255)


def _plain(s: str) -> str:
    """A label as literal text: no mathtext ($ … $), control characters escaped."""
    out = []
    for ch in s:
        if ch == "$":
            out.append(r"\$")
        elif ord(ch) < 32 or 0x7F <= ord(ch) < 0xA0:
            out.append(f"\\x{ord(ch):02x}")
        else:
            out.append(ch)
    return "".join(out)


def _matplotlib():  # noqa: ANN202
    try:
        import matplotlib
    except ImportError:
        raise SymattnError("drawing a heatmap needs matplotlib: pip install 'symattn[plot]' "
                           "(or pip install matplotlib)") from None
    from matplotlib.colors import LinearSegmentedColormap, Normalize
    from matplotlib.figure import Figure
    from matplotlib.patches import Rectangle

    return matplotlib, Figure, Rectangle, LinearSegmentedColormap, Normalize


def figure(h: Heatmap):  # noqa: ANN201 - matplotlib is optional, so no annotation
    """The heatmap as a matplotlib ``Figure`` (no pyplot, no global state): axes ``k`` is
    panel ``k``, with cell (i, j) the unit square at x = j..j+1, y = i..i+1."""
    return _draw(h)[0]


def _draw(h: Heatmap):  # noqa: ANN202
    matplotlib, Figure, Rectangle, LinearSegmentedColormap, Normalize = _matplotlib()
    n_rows, n_cols = len(h.panels[0].rows), len(h.panels[0].cols)
    longest_row = max(len(r) for p in h.panels for r in p.rows)
    longest_col = max(len(c) for p in h.panels for c in p.cols)
    cell = CELL if h.annotated else max(0.12, min(CELL, 8.0 / max(n_rows, n_cols)))
    left = 0.4 + 0.085 * min(longest_row, 24)  # inches for the query labels
    rotate = longest_col > 6
    top_pad = 0.45 + (0.055 * min(longest_col, 24) if rotate else 0.15)  # the key labels (rotated when long)
    panel_w, panel_h = n_cols * cell, n_rows * cell
    gap = left
    width = left + len(h.panels) * panel_w + (len(h.panels) - 1) * gap + 1.4
    width = max(width, 4.5)
    caption = textwrap.fill(_plain(h.caption), width=max(40, int(width * 15)))
    cap_lines = caption.count("\n") + 1
    bottom = 0.35 + 0.19 * cap_lines
    title_h = 0.55 + (0.3 if len(h.panels) > 1 else 0.0)
    height = bottom + panel_h + top_pad + title_h
    fig = Figure(figsize=(width, height), dpi=DPI)
    cmap = LinearSegmentedColormap.from_list("symattn", [(p, _rgb(c)) for p, c in h.scale.stops()])
    norm = Normalize(vmin=h.scale.vmin, vmax=h.scale.hi if h.scale.hi != h.scale.vmin else h.scale.vmin + 1)
    fontsize = 9 if h.annotated else 6
    mappable = None
    for k, p in enumerate(h.panels):
        x0 = left + k * (panel_w + gap)
        ax = fig.add_axes((x0 / width, bottom / height, panel_w / width, panel_h / height))
        ax.set_xlim(0, n_cols)
        ax.set_ylim(n_rows, 0)
        for i, row in enumerate(p.cells):
            for j, c in enumerate(row):
                if c.masked:
                    ax.add_patch(Rectangle((j, i), 1, 1, facecolor=_rgb(MASKED_FILL), edgecolor=_rgb(MASKED_HATCH),
                                           hatch="///", linewidth=0, gid=f"masked-{i}-{j}"))
                else:
                    ax.add_patch(Rectangle((j, i), 1, 1, facecolor=_rgb(h.scale.colour(c.level)), linewidth=0,
                                           gid=f"cell-{i}-{j}"))
                if h.annotated:
                    colour = "#404040" if c.masked else ("white" if abs(c.level) > 0.55 else "black")
                    ax.text(j + 0.5, i + 0.5, _plain(c.text.replace("-", "−")), ha="center", va="center",
                            fontsize=fontsize, color=colour)
        for edge in range(n_rows + 1):
            ax.axhline(edge, color="white", linewidth=1.0)
        for edge in range(n_cols + 1):
            ax.axvline(edge, color="white", linewidth=1.0)
        ax.set_xticks([j + 0.5 for j in range(n_cols)])
        ax.set_yticks([i + 0.5 for i in range(n_rows)])
        ax.set_xticklabels([_plain(c) for c in p.cols], fontsize=fontsize,
                           rotation=45 if rotate else 0, ha="left" if rotate else "center")
        ax.set_yticklabels([_plain(r) for r in p.rows] if k == 0 or p.rows != h.panels[0].rows else [],
                           fontsize=fontsize)
        ax.xaxis.tick_top()
        ax.tick_params(length=0)
        for side in ax.spines.values():
            side.set_visible(False)
        tokens = h.step in TOKEN_STEPS  # positions: tokens × dimensions
        if k == 0:
            ax.set_ylabel("tokens" if tokens else "queries")
        ax.set_xlabel("dimensions" if tokens else "keys")
        ax.xaxis.set_label_position("top")
        if p.title:
            ax.set_title(p.title, fontsize=10, pad=top_pad * 72 - 4)
        mappable = ax
    assert mappable is not None
    from matplotlib.cm import ScalarMappable

    bar_x = left + len(h.panels) * panel_w + (len(h.panels) - 1) * gap + 0.25
    cax = fig.add_axes((bar_x / width, bottom / height, 0.18 / width, panel_h / height))
    bar = fig.colorbar(ScalarMappable(norm=norm, cmap=cmap), cax=cax)
    bar.set_label(h.label, fontsize=9)
    bar.ax.tick_params(labelsize=8)
    fig.suptitle(_plain(h.title), fontsize=11, y=1 - 0.12 / height, va="top")
    fig.text(0.4 / width, 0.2 / height, caption, fontsize=7.5, va="bottom", ha="left", color="#333333")
    return fig, matplotlib


def figure_bytes(h: Heatmap, fmt: str) -> bytes:
    """The heatmap as a ``png``, ``svg`` or ``pdf`` file's bytes (deterministic)."""
    if fmt not in FORMATS:
        raise SymattnError(f"a heatmap is written as {', '.join(FORMATS)}, got {fmt!r}")
    fig, matplotlib = _draw(h)
    buf = io.BytesIO()
    meta = {"png": {"Software": "symattn"}, "svg": {"Date": None, "Creator": "symattn"},
            "pdf": {"CreationDate": None, "ModDate": None, "Creator": "symattn", "Producer": "symattn"}}[fmt]
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "symattn", "hatch.linewidth": 0.8,
                                "font.family": "DejaVu Sans", "pdf.fonttype": 42}):
        fig.savefig(buf, format=fmt, dpi=DPI, metadata=meta)
    return buf.getvalue()


def svg(h: Heatmap) -> str:
    """The heatmap as SVG text (for HTML and Jupyter)."""
    return figure_bytes(h, "svg").decode("utf-8")
