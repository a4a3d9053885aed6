"""Heatmaps: the pixels of the PNG, the text of the SVG, the PDF, and bad input.

The cells are found from the figure's own layout (cell (i, j) of panel k is the unit
square at x = j..j+1, y = i..i+1 of axes k), then read back from the written PNG. The
values they must show are computed here independently, in floating point with NumPy,
from the example's inputs.
"""

import io
import math
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("matplotlib")  # the `plot` extra; the test extras install it

import symattn as sa  # noqa: E402
from symattn.cli import main  # noqa: E402
from symattn.views.heatmap import heatmap  # noqa: E402
from symattn.views.plot import DPI, figure, figure_bytes  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SVG = "{http://www.w3.org/2000/svg}"


def _png(h):
    from matplotlib.image import imread

    return (imread(io.BytesIO(figure_bytes(h, "png")), format="png")[:, :, :3] * 255).round().astype(int)


def _cell_pixels(h, panel, i, j, pixels, frac=0.22):
    """The pixels of a patch of cell (i, j) away from its centre (where the decimal is)."""
    fig = figure(h)
    ax = fig.axes[panel]
    height = pixels.shape[0]
    (x0, y0), (x1, y1) = ax.transData.transform([(j + 0.06, i + 0.06), (j + frac, i + frac)])
    rows = sorted((height - y0, height - y1))
    cols = sorted((x0, x1))
    return pixels[int(math.ceil(rows[0])):int(rows[1]), int(math.ceil(cols[0])):int(cols[1])].reshape(-1, 3)


def _luminance(px):
    return float(np.mean(0.2126 * px[:, 0] + 0.7152 * px[:, 1] + 0.0722 * px[:, 2]))


def _hide_matplotlib(monkeypatch):
    """Make ``import matplotlib`` fail, as on an install without the plot extra."""
    import builtins

    real = builtins.__import__

    def no_matplotlib(name, *args, **kwargs):
        if name == "matplotlib" or name.startswith("matplotlib."):
            raise ImportError("No module named 'matplotlib'")
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)


def _softmax_rows(s):
    e = np.exp(s - s.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def test_largest_weight_is_the_darkest_cell_and_lightness_follows_the_weights():
    spec = sa.load("i_love_statistics").unfocused()
    X, Wq, Wk = (np.array([[float(x) for x in r] for r in spec.inputs[k]]) for k in ("X", "Wq", "Wk"))
    P = _softmax_rows((X @ Wq) @ (X @ Wk).T / math.sqrt(2))  # independent: NumPy, float64
    h = heatmap(sa.derive(spec))
    px = _png(h)
    lum = np.array([[_luminance(_cell_pixels(h, 0, i, j, px)) for j in range(3)] for i in range(3)])
    i, j = np.unravel_index(np.argmax(P), P.shape)
    assert lum[i, j] == lum.min()
    k, m = np.unravel_index(np.argmin(P), P.shape)
    assert lum[k, m] == lum.max()
    # darker is larger, cell by cell (pairs that differ by more than the colour resolution)
    flat_p, flat_l = P.ravel(), lum.ravel()
    for a in range(9):
        for b in range(9):
            if flat_p[a] > flat_p[b] + 0.01:
                assert flat_l[a] < flat_l[b]
    # every unmasked cell is a tint of blue (on the scale), none grey
    for a in range(3):
        for b in range(3):
            r, g, bl = _cell_pixels(h, 0, a, b, px).mean(axis=0)
            assert bl > r + 20


def test_masked_cells_are_grey_and_hatched_on_every_head():
    spec = sa.load("two_heads_causal").unfocused()
    h = heatmap(sa.derive(spec))
    assert [p.title for p in h.panels] == ["head 1", "head 2"]
    px = _png(h)
    n = spec.n_queries
    for k in range(2):
        for i in range(n):
            for j in range(n):
                patch = _cell_pixels(h, k, i, j, px, frac=0.26)  # a corner, clear of the decimal
                spread = np.abs(patch[:, 0] - patch[:, 2]).max()
                if j > i:  # causal: key j is hidden from query i
                    assert spread <= 3, (k, i, j)  # neutral grey: not a colour of the blue scale
                    levels = {int(v) for v in patch[:, 1]}
                    assert max(levels) >= 200 and min(levels) <= 140, (k, i, j)  # fill and hatching
                else:
                    mean = patch.mean(axis=0)
                    assert mean[2] > mean[0] + 10, (k, i, j)  # a tint of blue
                    assert np.abs(patch - patch.mean(axis=0)).max() < 4  # flat: no hatching


def test_one_head_and_a_gradient_on_a_diverging_scale():
    g = sa.grad(sa.derive(sa.load("two_heads_causal")))
    h = heatmap(g, "dS", head=2)
    assert len(h.panels) == 1 and h.panels[0].title == "head 2" and h.scale.kind == "diverging"
    dec = g["head2.dS"].decimals(3)
    px = _png(h)
    for i, row in enumerate(dec):
        for j, text in enumerate(row):
            mean = _cell_pixels(h, 0, i, j, px).mean(axis=0)
            if j > i:
                continue
            if float(text) > 0.05:
                assert mean[0] > mean[2] + 10, (i, j, text)  # red side
            elif float(text) < -0.05:
                assert mean[2] > mean[0] + 10, (i, j, text)  # blue side


def _texts(svg_bytes):
    root = ET.fromstring(svg_bytes)
    out = []
    for t in root.iter(f"{SVG}text"):
        x, y = t.get("x"), t.get("y")
        if x is None:  # rotated labels: transform="translate(x y) rotate(-45)"
            x, y = t.get("transform").split("(")[1].split(")")[0].split()
        out.append(("".join(t.itertext()), float(x), float(y)))
    return out


def test_svg_labels_are_the_tokens_in_order_and_cells_their_certified_decimals():
    d = sa.derive(sa.load("two_heads_causal").unfocused())
    h = heatmap(d, head=1)
    texts = _texts(figure_bytes(h, "svg"))
    tokens = ["<s>", "the", "cat", "sat"]
    # keys across (x increasing, one y), queries down (y increasing, one x)
    keys = [t for t in texts if t[0] in tokens and t[2] < min(y for s, _, y in texts if s == "1")]
    queries = [t for t in texts if t[0] in tokens and t not in keys]
    assert [t[0] for t in sorted(keys, key=lambda t: t[1])] == tokens
    assert [t[0] for t in sorted(queries, key=lambda t: t[2])] == tokens
    assert len({round(t[2]) for t in keys}) == 1 and len({round(t[1]) for t in queries}) == 1
    # cell annotations: the certified decimals, negative signs as U+2212
    expected = [x for row in d["head1.weights"].decimals(3) for x in row]
    cells = [s for s, _, _ in texts if s in set(expected)]
    assert sorted(cells) == sorted(expected)
    joined = " ".join(s for s, _, _ in texts)
    assert "Two heads, causal: attention weights P" in joined and "softmax over keys" in joined
    assert "grey hatched: masked" in joined and "mask causal" in joined


def test_same_input_same_bytes_and_pdf_has_the_tokens(tmp_path):
    h = heatmap(sa.derive(sa.load("i_love_statistics")))
    for fmt in ("png", "svg", "pdf"):
        assert figure_bytes(h, fmt) == figure_bytes(h, fmt), fmt
    pdf = figure_bytes(h, "pdf")
    assert pdf.startswith(b"%PDF")
    if shutil.which("pdftotext") is None:
        if os.environ.get("CI"):
            pytest.fail("pdftotext is missing in CI")
        return
    (tmp_path / "h.pdf").write_bytes(pdf)
    out = subprocess.run(["pdftotext", str(tmp_path / "h.pdf"), "-"], capture_output=True, text=True).stdout
    assert "statistics" in out and "0.357" in out


def test_labels_are_literal_text():
    spec = sa.from_dict({"title": "odd $x$ tokens", "tokens": ["$a$", "b\x07", "50%"],
                         "inputs": {"Q": [[1, 0], [0, 1], [1, 1]], "K": [[1, 0], [0, 1], [1, 1]],
                                    "V": [[1, 2], [3, 4], [5, 6]]}})
    texts = {s for s, _, _ in _texts(figure_bytes(heatmap(sa.derive(spec)), "svg"))}
    assert {"$a$", "b\\x07", "50%"} <= texts
    assert any("odd $x$ tokens" in s for s in texts)


def test_plot_command_writes_png_svg_pdf(tmp_path, capsys):
    for name in ("w.png", "w.svg", "w.pdf"):
        assert main(["plot", "two_heads_causal", "-o", str(tmp_path / name)]) == 0
    assert (tmp_path / "w.png").read_bytes().startswith(b"\x89PNG")
    assert b"<svg" in (tmp_path / "w.svg").read_bytes()[:400]
    assert (tmp_path / "w.pdf").read_bytes().startswith(b"%PDF")
    assert main(["plot", "two_heads_causal", "--step", "dP", "--head", "1", "-o", str(tmp_path / "dp.svg")]) == 0
    svg = (tmp_path / "dp.svg").read_text()
    assert "gradient dP" in svg and "head 1" in svg and "head 2" not in svg
    assert main(["plot", "--query", "love", "--step", "scores", "-o", str(tmp_path / "s.svg")]) == 0
    assert ">1.12</text>" in (tmp_path / "s.svg").read_text()  # S[love, I] = 1.116
    # the file is replaced atomically: no temporary file left behind
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dp.svg", "s.svg", "w.pdf", "w.png", "w.svg"]
    assert capsys.readouterr().out == ""


@pytest.mark.parametrize("args, message", [
    (["-o", "w.txt"], "must end in .png, .svg or .pdf"),
    (["two_heads_causal", "--head", "3", "-o", "w.png"], "this example has 2 heads, so the head is 1 to 2"),
    (["--head", "2", "-o", "w.png"], "this example has 1 head, so the head is 1, got 2"),
    (["symbolic_two_tokens", "-o", "w.png"], "a heatmap needs numbers"),
    (["--step", "masked", "-o", "w.png"], "no step 'masked' (the example has no mask or bias)"),
    (["--digits", "0", "-o", "w.png"], "1 to 8 significant digits"),
    (["--digits", "9", "-o", "w.png"], "1 to 8 significant digits"),
    (["--loss", "sum", "-o", "w.png"], "are for gradient steps"),
    (["--step", "dS", "--query", "love", "-o", "w.png"], "gradient heatmaps show every query"),
    (["-o", "no/such/folder/w.png"], "does not exist"),
])
def test_bad_plot_options_one_line_exit_2(tmp_path, capsys, args, message, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["plot", *args]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err
    assert list(tmp_path.iterdir()) == []


def test_unknown_step_and_missing_output_are_usage_errors():
    r = subprocess.run([sys.executable, "-m", "symattn", "plot", "--step", "output", "-o", "x.png"],
                       capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 2 and "invalid choice: 'output'" in r.stderr and "Traceback" not in r.stderr
    r = subprocess.run([sys.executable, "-m", "symattn", "plot"], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 2 and "-o/--output" in r.stderr


def test_without_matplotlib_the_message_says_what_to_install(monkeypatch):
    _hide_matplotlib(monkeypatch)
    with pytest.raises(sa.SymattnError, match=r"pip install 'symattn\[plot\]'"):
        figure_bytes(heatmap(sa.derive(sa.load("i_love_statistics"))), "png")


def test_large_examples_drop_the_decimals_and_past_the_limit_say_so():
    from symattn.limits import HEATMAP_ANNOTATE_MAX, HEATMAP_MAX_SIDE

    def spec(n):
        return sa.from_dict({"title": "big", "inputs": {"Q": [[i % 3, 1] for i in range(n)],
                                                        "K": [[1, i % 2] for i in range(n)],
                                                        "V": [[1, 0] for _ in range(n)]}})

    assert heatmap(sa.derive(spec(HEATMAP_ANNOTATE_MAX))).annotated
    big = heatmap(sa.derive(spec(HEATMAP_ANNOTATE_MAX + 1)))
    assert not big.annotated and "too many cells to print their decimals" in big.caption
    assert heatmap(sa.derive(spec(HEATMAP_MAX_SIDE))).panels[0].rows[-1] == str(HEATMAP_MAX_SIDE)
    with pytest.raises(sa.SymattnError, match=f"at most {HEATMAP_MAX_SIDE} queries and keys"):
        heatmap(sa.derive(spec(HEATMAP_MAX_SIDE + 1)))


def test_png_is_drawn_at_the_documented_resolution():
    h = heatmap(sa.derive(sa.load("i_love_statistics")))
    fig = figure(h)
    px = _png(h)
    assert abs(px.shape[0] - fig.get_figheight() * DPI) <= 1 and abs(px.shape[1] - fig.get_figwidth() * DPI) <= 1


def test_jupyter_shows_the_heatmap_with_the_steps(monkeypatch):
    d = sa.derive(sa.load("two_heads_causal"))
    html = d._repr_html_()
    assert html.count("<svg") == 1 and "<?xml" not in html
    assert ">head 2</text>" in html and "&lt;s&gt;</text>" in html  # the tokens, escaped for HTML
    assert html.count("$$") == 2 * len(d.steps) and "\\begin{aligned}" in html and "&amp;=" in html
    g = sa.grad(sa.derive(sa.load("i_love_statistics")))
    assert "gradient dS" in g._repr_html_()
    # symbols: no picture, so Jupyter falls back to the Markdown
    s = sa.derive(sa.load("symbolic_two_tokens"))
    assert s._repr_html_() is None and s._repr_markdown_().startswith("# ")
    h = sa.heatmap(d, head=1)
    assert h._repr_svg_().lstrip().startswith("<?xml") and len(figure(h).axes) == 2  # the panel and its bar

    _hide_matplotlib(monkeypatch)
    assert d._repr_html_() is None and d._repr_markdown_()
