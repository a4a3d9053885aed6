"""The heatmap inside LaTeX documents (TikZ): it compiles, and its pixels show what they must.

Cells are found from the PDF itself: ``pdftotext -bbox`` gives where each label and each
cell's decimal was typeset, so the centre of cell (i, j) is (x of key j, y of query i);
the page rendered by ``pdftoppm`` is then read there, beside the decimal.
"""

import io
import math
import re
import shutil
import subprocess

import numpy as np
import pytest

import symattn as sa
from symattn.cli import main
from symattn.views.heatmap import heatmap
from symattn.views.heatmap_tex import PREAMBLE, tikz
from test_latex import compile_pdf, need  # the suite's pdflatex runner (tests/ is on the path)

DPI = 150


def _compile(tex, tmp_path):
    for tool in ("pdftoppm", "pdftotext"):
        need(tool)
    return compile_pdf(tex, tmp_path)


def _page(pdf, page=1):
    """(pixels as an RGB array, words with their centres in pixels) of one page."""
    pytest.importorskip("matplotlib")
    from matplotlib.image import imread

    png = subprocess.run(["pdftoppm", "-r", str(DPI), "-png", "-f", str(page), "-l", str(page), str(pdf)],
                         capture_output=True, check=True).stdout
    px = (imread(io.BytesIO(png), format="png")[:, :, :3] * 255).round().astype(int)
    html = subprocess.run(["pdftotext", "-bbox", "-f", str(page), "-l", str(page), str(pdf), "-"],
                          capture_output=True, text=True, check=True).stdout
    words = []
    for m in re.finditer(r'<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)</word>', html):
        x0, y0, x1, y1 = (float(v) * DPI / 72 for v in m.groups()[:4])
        words.append((m.group(5).replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&"),
                      (x0 + x1) / 2, (y0 + y1) / 2))
    return px, words


def _standalone(body):
    return ("\\documentclass{article}\n\\usepackage[T1]{fontenc}\n\\usepackage{lmodern}\n\\usepackage{amsmath}\n"
            + PREAMBLE + "\\pagestyle{empty}\n\\begin{document}\n" + body + "\\end{document}\n")


def _patch(px, x, y, cell):
    """Pixels in the upper-left part of the cell centred at (x, y), clear of its decimal."""
    x0, x1 = int(math.ceil(x - 0.42 * cell)), int(x - 0.22 * cell)
    y0, y1 = int(math.ceil(y - 0.42 * cell)), int(y - 0.25 * cell)
    return px[y0:y1, x0:x1].reshape(-1, 3)


def _softmax_rows(s):
    e = np.exp(s - s.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def test_largest_weight_is_the_darkest_cell(tmp_path):
    spec = sa.load("i_love_statistics").unfocused()
    X, Wq, Wk = (np.array([[float(x) for x in r] for r in spec.inputs[k]]) for k in ("X", "Wq", "Wk"))
    P = _softmax_rows((X @ Wq) @ (X @ Wk).T / math.sqrt(2))  # independent: NumPy, float64
    d = sa.derive(spec)
    dec = d["weights"].decimals(3)
    px, words = _page(_compile(_standalone(tikz(heatmap(d))), tmp_path))
    # the cells' decimals, grouped into rows by height and ordered across: the matrix, in place
    wanted = {x for row in dec for x in row}
    bar = next(x for t, x, _ in words if t == "weight")  # the colour bar's label; its ticks are right of it
    cells = sorted((y, x, t) for t, x, y in words if t in wanted and x < bar - 10)
    assert len(cells) == 9
    grid = [sorted(cells[3 * i:3 * i + 3], key=lambda c: c[1]) for i in range(3)]
    assert [[t for _, _, t in row] for row in grid] == dec
    assert all(abs(row[0][0] - row[2][0]) < 3 for row in grid)
    centres = {(i, j): (grid[i][j][1], grid[i][j][0]) for i in range(3) for j in range(3)}
    cell = centres[0, 1][0] - centres[0, 0][0]
    assert cell > 20
    lum = np.zeros((3, 3))
    for (i, j), (x, y) in centres.items():
        patch = _patch(px, x, y, cell)
        r, g, b = patch.mean(axis=0)
        assert b > r + 20, (i, j)  # a tint of blue: on the scale
        lum[i, j] = 0.2126 * r + 0.7152 * g + 0.0722 * b
    i, j = np.unravel_index(np.argmax(P), P.shape)
    assert lum[i, j] == lum.min()
    k, m = np.unravel_index(np.argmin(P), P.shape)
    assert lum[k, m] == lum.max()


def test_masked_cells_are_grey_and_hatched(tmp_path):
    d = sa.derive(sa.load("two_heads_causal").unfocused())
    tokens = ["<s>", "the", "cat", "sat"]
    px, words = _page(_compile(_standalone(tikz(heatmap(d, head=1))), tmp_path))
    labels = [(w, x, y) for w, x, y in words if w in tokens]
    top = min(y for _, _, y in labels)
    keys = {w: x for w, x, y in labels if abs(y - top) < 3}
    queries = {w: y for w, x, y in labels if abs(y - top) >= 3}
    assert list(keys) == tokens and list(queries) == tokens  # keys across, queries down, in order
    assert sorted(keys.values()) == list(keys.values()) and sorted(queries.values()) == list(queries.values())
    cell = keys["the"] - keys["<s>"]
    for i, q in enumerate(tokens):
        for j, k in enumerate(tokens):
            patch = _patch(px, keys[k], queries[q], cell)
            if j > i:
                assert np.abs(patch[:, 0] - patch[:, 2]).max() <= 4, (q, k)  # neutral grey
                assert patch[:, 1].max() >= 190 and patch[:, 1].min() <= 150, (q, k)  # fill and hatching
            else:
                r, g, b = patch.mean(axis=0)
                assert b > r + 10, (q, k)
    text = " ".join(w for w, _, _ in words)
    assert "0.622" in text and "0.378" in text  # head 1's weights, the certified decimals


def test_latex_command_puts_the_heatmap_in_the_document(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["latex", "two_heads_causal", "--heatmap", "-o", "d.tex"]) == 0
    tex = (tmp_path / "d.tex").read_text()
    assert "\\usetikzlibrary{patterns}" in tex and tex.count("\\begin{tikzpicture}") == 1
    assert "\\section*{Heatmap}" in tex and "head 2" in tex and "\\includegraphics" not in tex
    pdf = _compile(tex, tmp_path)
    pages = int(re.search(r"Pages:\s+(\d+)", subprocess.run(["pdfinfo", str(pdf)], capture_output=True,
                                                               text=True).stdout).group(1)) \
        if shutil.which("pdfinfo") else None
    last = subprocess.run(["pdftotext", "-f", str(pages or 1), str(pdf), "-"], capture_output=True,
                          text=True).stdout
    last = " ".join(last.split())
    assert "Heatmap" in last and "grey hatched: masked" in last
    # without --heatmap the document needs no TikZ
    assert main(["latex", "two_heads_causal", "-o", "plain.tex"]) == 0
    assert "tikz" not in (tmp_path / "plain.tex").read_text()
    # a fragment: the picture follows the steps
    assert main(["latex", "i_love_statistics", "--heatmap", "scores", "--body-only", "-o", "f.tex"]) == 0
    frag = (tmp_path / "f.tex").read_text()
    assert "\\documentclass" not in frag and "scores $S = QK^{\\top}$" in frag
    assert main(["latex", "--heatmap", "--format", "markdown"]) == 2


def test_hostile_labels_are_escaped_and_compile(tmp_path):
    spec = sa.from_dict({"title": "}{ \\input{/etc/passwd} 50%", "tokens": ["$a$", "\\x", "日"],
                         "inputs": {"Q": [[1, 0], [0, 1], [1, 1]], "K": [[1, 0], [0, 1], [1, 1]],
                                    "V": [[1, 2], [3, 4], [5, 6]]},
                         "convention": {"mask": "causal"}})
    tex = tikz(heatmap(sa.derive(spec), "masked"))
    assert "\\input{" not in tex and "$a$}" not in tex
    _compile(_standalone(tex), tmp_path)
