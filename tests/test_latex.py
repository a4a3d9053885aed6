"""LaTeX out (printer, documents that compile) and in (numbers, matrices, formulas)."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import sympy

import symattn as sa
from symattn.views.latex import Style, document, markdown, matrix
from symattn.analyses.formula import parse_formula
from symattn.read.latex_numbers import parse_latex
from symattn.views.printers import escape_text, latex, latex_decimal
from symattn.errors import InputError
from symattn.pipeline.notation import Softmax

ROOT = Path(__file__).resolve().parent.parent
IN_CI = os.environ.get("CI") == "true"


def need(tool):
    """TeX tools are installed by .ci/run: missing in CI is a failure, elsewhere a skip."""
    if shutil.which(tool) is None:
        if IN_CI:
            pytest.fail(f"{tool} is missing in CI (.ci/run installs TeX Live and poppler)")
        pytest.skip(f"{tool} is not installed (Debian: texlive-latex-base texlive-latex-recommended lmodern "
                    "poppler-utils)")


# -- the printer ----------------------------------------------------------------------------------

def test_printer_rules():
    Q, K = sympy.MatrixSymbol("Q", 3, 2), sympy.MatrixSymbol("K", 3, 2)
    assert latex(K.T) == r"K^{\top}"
    assert latex(sympy.Transpose(Q * K.T)) == r"\left(Q\, K^{\top}\right)^{\top}"
    assert latex(Softmax(Q * K.T)) == r"\operatorname{softmax}\left(Q\, K^{\top}\right)"
    assert latex(sympy.HadamardProduct(Q, K)) == r"Q \odot K"
    assert latex(sympy.Rational(59, 100)) == r"\frac{59}{100}"
    assert latex(sympy.exp(2) / (1 + 2 * sympy.exp(2))) == r"\frac{e^{2}}{1 + 2 e^{2}}"
    assert latex(sympy.exp(3 * sympy.sqrt(2) / 40)) == r"e^{3 \sqrt{2} / 40}"
    assert latex(sympy.Symbol("d_k")) == "d_{k}"
    assert latex(-sympy.oo) == r"-\infty"
    assert latex_decimal("6.3379e-02") == r"6.3379 \times 10^{-2}"
    assert latex_decimal("0.304628") == "0.304628"


def test_matrix_elision():
    cells = [[str(i * 20 + j) for j in range(20)] for i in range(20)]
    labels = [str(i + 1) for i in range(20)]
    tex = matrix(cells, labels, labels, Style(max_rows=5, max_cols=5))
    assert tex.count(r"\\") == 4  # 3 + dots + last
    assert r"\vdots" in tex and r"\cdots" in tex and r"\ddots" in tex
    assert "399" in tex and " 0 " in tex and "200" not in tex


def test_escaping():
    assert escape_text(r"\input{/etc/passwd}") == r"\textbackslash{}input\{/etc/passwd\}"
    assert escape_text("}{") == r"\}\{"
    assert escape_text("a_b^c~%$#&") == r"a\_b\^{}c\textasciitilde{}\%\$\#\&"
    assert escape_text("日") == r"\texttt{U+65E5}"


# -- documents ------------------------------------------------------------------------------------

def compile_pdf(tex: str, tmp_path: Path) -> Path:
    need("pdflatex")
    (tmp_path / "doc.tex").write_text(tex, encoding="utf-8")
    for _ in range(2):
        r = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "-no-shell-escape", "doc.tex"],
                           cwd=tmp_path, capture_output=True, text=True, timeout=300)
        log = (tmp_path / "doc.log").read_text(errors="replace")
        errors = [line for line in log.splitlines() if line.startswith("!")]
        assert r.returncode == 0 and not errors, errors[:3] or r.stdout[-2000:]
    return tmp_path / "doc.pdf"


def png_gray_pixels(png: bytes) -> tuple[int, int, list[int]]:
    """Width, height and gray levels of an 8-bit, non-interlaced grayscale or RGB PNG
    (as pdftoppm writes), decoded with zlib and the PNG row filters."""
    import struct
    import zlib

    assert png[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, w, h, bpp = 8, b"", 0, 0, 1
    while pos < len(png):
        length, kind = struct.unpack(">I4s", png[pos:pos + 8])
        chunk = png[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            w, h, depth, color = struct.unpack(">IIBB", chunk[:10])
            assert depth == 8 and color in (0, 2) and chunk[12] == 0, "expected 8-bit gray or RGB, not interlaced"
            bpp = 1 if color == 0 else 3
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + length
    stride = w * bpp
    raw, gray, prev = zlib.decompress(idat), [], bytearray(stride)
    for r in range(h):
        f = raw[r * (stride + 1)]
        line = bytearray(raw[r * (stride + 1) + 1:(r + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], (prev[i - bpp] if i >= bpp else 0)
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        gray += [sum(line[i:i + bpp]) // bpp for i in range(0, stride, bpp)]
        prev = line
    return w, h, gray


def first_page_has_ink(pdf: Path) -> float:
    """Render page 1 to PNG with pdftoppm and return the fraction of dark pixels."""
    need("pdftoppm")
    subprocess.run(["pdftoppm", "-png", "-gray", "-r", "40", "-f", "1", "-l", "1", str(pdf),
                    str(pdf.with_suffix(""))], check=True, timeout=120)
    png = next(pdf.parent.glob("doc-*1.png"))
    w, h, pixels = png_gray_pixels(png.read_bytes())
    return sum(1 for b in pixels if b < 128) / (w * h)


def pdf_text(pdf: Path) -> str:
    need("pdftotext")
    return subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True, check=True).stdout


@pytest.mark.parametrize("name", [n for n, _ in sa.list_examples()])
def test_every_builtin_example_compiles(name, tmp_path):
    d = sa.derive(sa.load(name))
    pdf = compile_pdf(document(d), tmp_path)
    ink = first_page_has_ink(pdf)
    assert 0.002 < ink < 0.5, ink
    text = pdf_text(pdf)
    assert d.title.split()[0] in text and "Conventions" in text


def test_masks_heads_column_layout_and_gradients_compile(tmp_path):
    spec = sa.from_dict({"title": "two heads, causal, column layout", "tokens": ["a", "b", "c"],
                         "inputs": {"X": [["1", "0", "2"], ["0", "1", "1"]],
                                    "Wq": [["1", "0"], ["0", "1"], ["1", "1"], ["2", "0"]],
                                    "Wk": [["0", "1"], ["1", "0"], ["1", "-1"], ["0", "2"]],
                                    "Wv": [["1", "1"], ["0", "1"], ["2", "0"], ["1", "0"]],
                                    "Wo": [["1", "0", "0", "1"], ["0", "1", "1", "0"]]},
                         "convention": {"layout": "column", "heads": 2, "mask": "causal",
                                        "bias": [["0", "0", "-inf"], ["1/2", "0", "0"], ["0", "0", "0"]]}})
    d = sa.derive(spec)
    tex = document(d, Style(exact=True))
    assert r"\hat{S}" in tex and r"-\infty" in tex
    pdf = compile_pdf(tex, tmp_path)
    assert first_page_has_ink(pdf) > 0.002
    g = sa.grad(d)
    gtex = sa.latex(g, standalone=True)
    assert "Printed numbers checked" not in gtex and "dS" in gtex
    gdir = tmp_path / "grad"
    gdir.mkdir()
    compile_pdf(gtex, gdir)


def test_document_content_for_the_seed():
    spec = sa.load("i_love_statistics")
    d = sa.derive(spec)
    tex = document(d, report=sa.check(spec))
    assert r"Q &= X\, W^{Q}" in tex
    assert r"q_{\text{love},1} &= 0.4 \cdot 0.1 + 0.8 \cdot 0.2 + 0.6 \cdot 0.5 = 0.5" in tex
    assert r"\begin{align*}" in tex and r"\approx" in tex
    assert r"\operatorname{softmax}" in tex
    assert r"279 \sqrt{2} / 500" in tex                     # exact scaled score, at normal size in a matrix
    assert r"e^{3 \sqrt{2} / 40}" in tex                    # exponentials as e^{...}
    assert r"\tau = \frac{\sqrt{2}}{2}" in tex
    # the page's printed numbers, checked
    assert "Printed numbers checked" in tex and r"$\times$" in tex and r"$\checkmark$" in tex


def test_output_is_byte_identical(tmp_path):
    a = document(sa.derive(sa.load("fox_jumps")))
    b = document(sa.derive(sa.load("fox_jumps")))
    assert a == b
    for k in (1, 2):
        r = subprocess.run([sys.executable, "-m", "symattn", "latex", "fox_jumps", "-o", str(tmp_path / f"{k}.tex")],
                           capture_output=True, text=True, cwd=ROOT, timeout=300)
        assert r.returncode == 0, r.stderr
    assert (tmp_path / "1.tex").read_bytes() == (tmp_path / "2.tex").read_bytes()


def test_hostile_text_renders_literally(tmp_path):
    spec = sa.from_dict({"title": r"Evil $title$ & \section{x} 100% #1 ~ ^ _ {", "description": r"\end{document}",
                         "tokens": [r"\input{/etc/passwd}", "}{", "<EOS>"],
                         "inputs": {"Q": [["1", "0"], ["0", "1"], ["1", "1"]], "K": [["1", "0"], ["0", "1"], ["1", "1"]],
                                    "V": [["1"], ["2"], ["3"]]}})
    pdf = compile_pdf(document(sa.derive(spec)), tmp_path)
    text = pdf_text(pdf)
    assert r"\input{/etc/passwd}" in text
    assert "<EOS>" in text
    assert "Evil $title$" in text


def test_body_only_and_markdown():
    d = sa.derive(sa.load("i_love_statistics"))
    body = sa.latex(d)
    assert not body.startswith(r"\documentclass") and r"\section*{Conventions}" in body
    assert sa.latex(d, standalone=True).startswith(r"\documentclass")
    md = markdown(d)
    assert md.startswith("# I love statistics")
    assert md.count("$$") == 2 * len(d.steps) and r"\begin{aligned}" in md and "### Step `weights`" in md
    assert d._repr_markdown_() == md
    assert d["weights"]._repr_latex_().startswith(r"$$\begin{aligned}")
    assert d._repr_latex_().startswith("$$")


def test_latex_command_and_pdf_flag(tmp_path):
    need("pdflatex")
    out = tmp_path / "derivation.tex"
    r = subprocess.run([sys.executable, "-m", "symattn", "latex", "i_love_statistics", "-o", str(out), "--pdf"],
                       capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert r.returncode == 0, r.stderr
    assert out.with_suffix(".pdf").read_bytes().startswith(b"%PDF")
    # without pdflatex on the PATH: a clear message, the .tex is still written
    env = dict(os.environ, PATH=str(Path(sys.executable).parent))
    out2 = tmp_path / "again.tex"
    r = subprocess.run([sys.executable, "-m", "symattn", "latex", "-o", str(out2), "--pdf"], capture_output=True,
                       text=True, cwd=ROOT, env=env, timeout=600)
    assert r.returncode == 1 and "pdflatex is not installed" in r.stderr and out2.exists()
    r = subprocess.run([sys.executable, "-m", "symattn", "latex", "--format", "markdown"], capture_output=True,
                       text=True, cwd=ROOT, timeout=600)
    assert r.returncode == 0 and "$$" in r.stdout


# -- LaTeX in: numbers and matrices ---------------------------------------------------------------

def test_latex_numbers_are_exact():
    assert parse_latex(r"\frac{59}{100}") == sympy.Rational(59, 100)
    assert parse_latex("0.59") == sympy.Rational(59, 100)
    assert parse_latex(r"-1.5 \times 10^{-3}") == sympy.Rational(-3, 2000)
    assert parse_latex(r"\frac{1}{\sqrt{d_k}}", {"d_k": 8}) == sympy.sqrt(2) / 4
    assert parse_latex(r"\begin{pmatrix} 1 & \frac{1}{3} \end{pmatrix}") == sympy.Matrix([[1, sympy.Rational(1, 3)]])


def test_latex_matrices_in_example_files_give_the_same_derivation():
    base = sa.derive(sa.load("i_love_statistics"))
    spec = sa.loads(r"""
title = "I love statistics, in LaTeX"
tokens = ["I", "love", "statistics"]
[inputs]
X  = '\begin{bmatrix} 0.2 & 0.5 & 0.7 \\ 0.4 & 0.8 & 0.6 \\ 0.1 & 0.6 & 0.9 \end{bmatrix}'
Wq = '\begin{bmatrix} \frac{1}{10} & 0.3 \\ 0.2 & 0.4 \\ \frac{1}{2} & 0.6 \end{bmatrix}'
Wk = [[0.6, '\frac{1}{5}'], [0.3, 0.5], [0.7, 0.9]]
Wv = [[0.5, 0.8], [0.2, 0.3], [0.4, 0.6]]
[convention]
scale = '\frac{1}{\sqrt{d_k}}'
query = "love"
""")
    d = sa.derive(spec)
    for name in ("Q", "K", "V", "scores", "scaled", "weights", "output"):
        assert d[name].exact == base[name].exact, name
    assert d["scaled"].formula == base["scaled"].formula


@pytest.mark.parametrize("bad,message", [
    (r"\frac{1}{2", "at character"),
    (r"\input{x}", r"\\input is not allowed"),
    (r"\begin{tabular}{c} 1 \end{tabular}", "only matrix environments"),
    (r"\frac{1}{x}", "unknown name 'x'"),
    ("1 @ 2", "unexpected character"),
])
def test_bad_latex_numbers(bad, message):
    with pytest.raises(InputError, match=message):
        parse_latex(bad)


def test_bad_latex_in_a_file_exits_2(tmp_path):
    f = tmp_path / "bad.toml"
    f.write_text("[inputs]\nQ = '\\begin{bmatrix} 1 & \\frac{2}{3 \\end{bmatrix}'\nK = [[1, 1]]\nV = [[1]]\n")
    r = subprocess.run([sys.executable, "-m", "symattn", "derive", str(f)], capture_output=True, text=True,
                       cwd=ROOT, timeout=300)
    assert r.returncode == 2 and "inputs.Q" in r.stderr and "at character" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


# -- LaTeX in: formulas ----------------------------------------------------------------------------

FORMS = [
    (r"\text{softmax}\left(\frac{QK^T}{\sqrt{d_k}}\right)V", "scaled_dot_product", "matrix"),
    (r"\operatorname{softmax}\left(\frac{QK^\top}{\sqrt{d_k}}\right)V", "scaled_dot_product", "matrix"),
    (r"\mathrm{softmax}(QK^{T}/\sqrt{d_k})V", "scaled_dot_product", "matrix"),
    (r"\mathrm{softmax}\left(\frac{Q K^{\top}}{\sqrt{d_k}}\right) V", "scaled_dot_product", "matrix"),
    (r"\text{Attention}(Q, K, V) = \text{Softmax}\left(\frac{QK^T}{\sqrt{d_K}}\right)V", "scaled_dot_product",
     "matrix"),
    (r"\operatorname{softmax}\left(\frac{\mathbf{Q}\mathbf{K}^{\intercal}}{\sqrt{d_k}}\right)\mathbf{V}",
     "scaled_dot_product", "matrix"),
    (r"\mathrm{softmax}\left(\frac{1}{\sqrt{d_k}} Q K^{\top}\right) V", "scaled_dot_product", "matrix"),
    (r"\operatorname{softmax}(QK^\top)V", "dot_product", "matrix"),
    (r"\text{softmax}(QK^T)V", "dot_product", "matrix"),
    (r"\sum_i \frac{\exp(q\cdot k_i)}{\sum_j \exp(q\cdot k_j)} v_i", "dot_product", "sum"),
    (r"A(q, K, V) = \sum_{i} \frac{exp(q.k^{<i>})}{\sum_{j} exp(q.k^{<j>})}v^{<i>}", "dot_product", "sum"),
    (r"\sum_{i=1}^{n} \frac{\exp(q^\top k_i / \sqrt{d_k})}{\sum_{j=1}^{n} \exp(q^\top k_j/\sqrt{d_k})} v_i",
     "scaled_dot_product", "sum"),
    (r"\sum_i \frac{e^{q \cdot k_i}}{\sum_j e^{q\cdot k_j}} v_i", "dot_product", "sum"),
    (r"\mathrm{softmax}\left(\frac{Q K^{T}}{d_k}\right) V", "other", "matrix"),
    (r"\operatorname{softmax}\left(\frac{QK^\top}{\sqrt{d_{model}}}\right)V", "other", "matrix"),
    (r"\operatorname{softmax}(KQ^T)V", "other", "matrix"),
    (r"Q K^T V", "other", "unknown"),
    (r"\sum_i \frac{\exp(q\cdot k_i)}{\sum_j \exp(q\cdot k_j / 2)} v_i", "other", "sum"),
]


@pytest.mark.parametrize("text,kind,form", FORMS)
def test_formula_forms(text, kind, form):
    f = parse_formula(text)
    assert (f.kind, f.form) == (kind, form), f
    if kind == "scaled_dot_product":
        assert f.scale == "1/sqrt(d_k)"


def test_formula_expression_is_noncommutative():
    f = parse_formula(r"\operatorname{softmax}\left(\frac{QK^\top}{\sqrt{d_k}}\right)V")
    assert f.expression == "softmax(1/sqrt(d_k)*Q*K.T)*V"
    assert parse_formula(r"\operatorname{softmax}(KQ^\top)V").expression == "softmax(K*Q.T)*V"


@pytest.mark.parametrize("bad", [r"\frac{Q", r"\input{x} V", r"\operatorname{softmax}(QK^T", "", "(" * 200 + "Q"])
def test_malformed_formulas(bad):
    with pytest.raises(InputError):
        parse_formula(bad)


def test_parse_formula_command():
    r = subprocess.run([sys.executable, "-m", "symattn", "parse-formula", "--json",
                        r"\text{softmax}\left(\frac{QK^T}{\sqrt{d_k}}\right)V"], capture_output=True, text=True,
                       cwd=ROOT, timeout=300)
    import json
    data = json.loads(r.stdout)
    assert r.returncode == 0 and data["kind"] == "scaled_dot_product" and data["scale"] == "1/sqrt(d_k)"
    assert list(data)[:3] == ["kind", "scale", "expression"]
    r = subprocess.run([sys.executable, "-m", "symattn", "parse-formula", r"\frac{Q"], capture_output=True,
                       text=True, cwd=ROOT, timeout=300)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1
