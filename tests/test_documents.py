"""Nothing leaks: every document symattn emits compiles with pdflatex, and its text has no
U+ placeholder and no character that failed to typeset. Documents: `latex` for every
built-in example with and without claims, `grad --latex`, `prove NAME --latex` for every
identity, `softmax 3 --latex`, `softmax n --latex`."""

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import symattn as sa
from symattn.analyses.proofs import IDENTITIES
from test_latex import need

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = [n for n, _ in sa.list_examples()]


def typeset(tex: str, tmp_path: Path) -> str:
    """Compile with pdflatex (missing characters logged) and return the PDF's text; fail on
    any error, any character the fonts lack, or any U+ placeholder."""
    need("pdflatex")
    need("pdftotext")
    for sty in ("blkarray.sty", "needspace.sty"):
        if shutil.which("kpsewhich") and subprocess.run(["kpsewhich", sty], capture_output=True).returncode:
            need(f"{sty} (texlive-latex-extra)")
    (tmp_path / "doc.tex").write_text(tex, encoding="utf-8")
    r = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "-no-shell-escape", "-jobname=doc",
                        r"\tracinglostchars=2 \input{doc.tex}"], cwd=tmp_path, capture_output=True, text=True,
                       timeout=300)
    log = (tmp_path / "doc.log").read_text(errors="replace")
    errors = [x for x in log.splitlines() if x.startswith("!")]
    assert r.returncode == 0 and not errors, errors[:3] or r.stdout[-2000:]
    missing = [x for x in log.splitlines() if "Missing character" in x]
    assert not missing, missing[:3]
    pdf_text = subprocess.run(["pdftotext", "doc.pdf", "-"], cwd=tmp_path, capture_output=True, text=True,
                              check=True).stdout
    assert not re.search(r"U\+[0-9A-F]{4}", pdf_text), re.findall(r".{30}U\+[0-9A-F]{4}.{10}", pdf_text)[:3]
    assert "\ufffd" not in pdf_text
    return pdf_text


@pytest.mark.parametrize("name", EXAMPLES)
@pytest.mark.parametrize("claims", [False, True])
def test_latex_of_every_builtin_example(name, claims, tmp_path):
    spec = sa.load(name)
    if claims and not spec.claims:
        pytest.skip(f"{name} has no [claims]: the document without them is the other case")
    report = sa.check(spec) if claims else None
    tex = sa.latex(sa.derive(spec), standalone=True, report=report)
    text = typeset(tex, tmp_path)
    assert "Conventions" in text and ("Printed numbers checked" in text) == claims


@pytest.mark.parametrize("name", [n for n in EXAMPLES if "output" in sa.derive(sa.load(n))])
def test_grad_latex_of_every_builtin_example(name, tmp_path):
    g = sa.grad(sa.derive(sa.load(name)))
    text = typeset(sa.latex(g, standalone=True), tmp_path)
    assert "gradient of the scores" in text


@pytest.mark.parametrize("name", sorted(IDENTITIES))
def test_prove_latex_of_every_identity(name, tmp_path):
    text = typeset(sa.latex(sa.prove(name), standalone=True), tmp_path)
    assert "Checked with SymPy" in text


@pytest.mark.parametrize("n", ["3", "n"])
def test_softmax_latex(n, tmp_path):
    r = subprocess.run([sys.executable, "-m", "symattn", "softmax", n, "--latex"], capture_output=True, text=True,
                       cwd=ROOT, timeout=600)
    assert r.returncode == 0 and r.stdout.startswith(r"\documentclass"), r.stderr
    text = typeset(r.stdout, tmp_path)
    assert "sigmoid" in text or n == "n"


def test_the_commands_emit_these_documents():
    """`prove --latex` and `grad --latex` print exactly the documents tested above."""
    r = subprocess.run([sys.executable, "-m", "symattn", "prove", "jacobian", "--latex"], capture_output=True,
                       text=True, cwd=ROOT, timeout=600)
    assert r.returncode == 0 and r.stdout == sa.latex(sa.prove("jacobian"), standalone=True)
    r = subprocess.run([sys.executable, "-m", "symattn", "grad", "illustrated_self_attention", "--latex"],
                       capture_output=True, text=True, cwd=ROOT, timeout=600)
    g = sa.grad(sa.derive(sa.load("illustrated_self_attention")))
    assert r.returncode == 0 and r.stdout == sa.latex(g, standalone=True)


def test_symattn_words_and_a_title_in_greek_typeset(tmp_path):
    spec = sa.from_dict({"title": "Σ-attention: τ ≤ 1 − p · q, ‖x‖ → ∞ … “quoted”", "tokens": ["α", "β"],
                         "inputs": {"Q": [[1, 0], [0, 1]], "K": [[1, 0], [0, 1]], "V": [[1], [2]]},
                         "convention": {"mask": "causal"}})
    text = typeset(sa.latex(sa.derive(spec), standalone=True), tmp_path)
    assert "τ" in text and "≤" in text and "α" in text
