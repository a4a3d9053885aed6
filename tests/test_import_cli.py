"""`symattn import` and `symattn check PAGE` on the command line (issue 11, items 3–5, 7):
outputs, files, several examples, standard input, and bad input (one line, exit 2)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import symattn as sa
from symattn.limits import MAX_PAGE_BYTES

ROOT = Path(__file__).resolve().parent.parent
PAGES = ROOT / "tests" / "pages"
# The seed pages are published pages, not copied into the repository: read beside the checkout.
SEEDS = next((p for p in (ROOT.parent / "shared" / "seeds", ROOT / "shared" / "seeds") if p.is_dir()), None)
needs_seeds = pytest.mark.skipif(SEEDS is None, reason="the seed pages (../shared/seeds) are not beside this checkout")
SEED_001 = SEEDS / "001_26cf55f894db80de.txt" if SEEDS else None


def run(*args, stdin=None, cwd=None):
    env = dict(os.environ, PYTHONIOENCODING="utf-8")
    return subprocess.run([sys.executable, "-m", "symattn", *args], capture_output=True, text=True, input=stdin,
                          cwd=cwd or ROOT, env=env, timeout=600)


def one_line_error(r, *needles):
    assert r.returncode == 2, (r.stdout, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in r.stderr, r.stderr
    for n in needles:
        assert n in lines[0], lines[0]


@needs_seeds
def test_import_prints_a_draft_that_loads(tmp_path):
    r = run("import", str(SEED_001), "--format", "text")
    assert r.returncode == 0, r.stderr
    spec = sa.loads(r.stdout, "draft.toml")
    assert spec.tokens == ["I", "love", "statistics"]
    assert "love = [0.5152, 0.7178, 0.8934]  # line 79; line 80; line 81" in r.stdout
    assert "X = [\n  [0.2, 0.5, 0.7],  # line 27: Word Embedding for \"I\"" in r.stdout


@needs_seeds
def test_import_to_a_file_and_check_it(tmp_path):
    out = tmp_path / "love.toml"
    r = run("import", str(SEED_001), "--format", "text", "-o", str(out))
    assert r.returncode == 0 and r.stdout == ""
    assert f"wrote {out}" in r.stderr
    r = run("check", str(out), "--json")
    assert r.returncode == 1  # the page's numbers are wrong
    assert json.loads(r.stdout)["summary"]["first_wrong_step"] == "Q"


def test_several_examples(tmp_path):
    page = PAGES / "journey_torch.ipynb"
    r = run("import", str(page), "-o", str(tmp_path / "x.toml"))
    one_line_error(r, "has 3 worked examples", "--example N (1..3)", "--out-dir DIR")
    assert not (tmp_path / "x.toml").exists()
    r = run("import", str(page), "--example", "2", "-o", str(tmp_path / "x.toml"))
    assert r.returncode == 0 and sa.load(tmp_path / "x.toml").inputs_rounded
    r = run("import", str(page), "--out-dir", str(tmp_path / "drafts"))
    assert r.returncode == 0, r.stderr
    files = sorted(p.name for p in (tmp_path / "drafts").iterdir())
    assert files == ["journey_torch-1.toml", "journey_torch-2.toml", "journey_torch-3.toml"]
    assert r.stdout.count("journey_torch-") == 3 and "(example 3 of 3:" in r.stdout
    assert sa.load(tmp_path / "drafts" / "journey_torch-3.toml").convention.mask == "causal"
    r = run("import", str(page))
    assert r.returncode == 0 and r.stdout.count("# ===== worked example") == 3
    assert "3 worked examples found" in r.stderr
    r = run("import", str(page), "--example", "4")
    one_line_error(r, "--example 4 is out of range: the page has 3 worked examples (1..3)")


def test_standard_input_with_a_format():
    text = (PAGES / "journey.md").read_text(encoding="utf-8")
    r = run("import", "-", "--format", "markdown", stdin=text)
    assert r.returncode == 0, r.stderr
    assert sa.loads(r.stdout).convention.query == "journey"
    assert "<stdin> (markdown)" in r.stdout


@needs_seeds
def test_check_page_reports_assumptions_first():
    r = run("check", str(SEEDS / "000_6a139a01770c7dc3.txt"))
    assert r.returncode == 1
    head, _, report = r.stdout.partition("Check:")
    assert "assumed where the page is silent" in head and 'scale = "none"' in head
    assert head.index("assumed") < len(head) and "weights" in report
    assert "✗  weights[jumps, The]" in report


def test_check_page_json_has_the_import_notes():
    r = run("check", str(PAGES / "journey.md"), "--json")
    assert r.returncode == 0, r.stdout + r.stderr
    data = json.loads(r.stdout)
    assert data["summary"]["wrong"] == 0 and data["summary"]["total"] == 15
    imp = data["import"]
    assert imp["format"] == "markdown" and imp["example"] == 1 and imp["placed"] == 15
    assert [a["text"].split(":")[0] for a in imp["assumptions"]] == ["Q = K = V = X"]


def test_check_page_with_several_examples():
    r = run("check", str(PAGES / "cat_sat.ipynb"), "--json")
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert [e["import"]["example"] for e in data["examples"]] == [1, 2]
    assert all(e["summary"]["wrong"] == 0 for e in data["examples"])
    r = run("check", str(PAGES / "cat_sat.ipynb"), "--example", "2", "--format", "markdown")
    assert r.returncode == 0 and r.stdout.startswith("### Import:") and "mask = \"causal\"" in r.stdout


BAD = [
    (["import", "missing.md"], ["missing.md: no such file"]),
    (["import", "tests"], ["tests: is a folder, not a page"]),
    (["import", "tests/pages/refused/no_example.txt"], ["no worked example of attention found", "looked for"]),
    (["import", "tests/pages/journey.md", "--format", "nope"], ["invalid choice"]),
    (["import", "tests/pages/journey.md", "-o", "x.toml", "--out-dir", "d"], ["either -o FILE or --out-dir DIR"]),
    (["import", "tests/pages/journey.md", "-o", "no/such/folder/x.toml"], ["does not exist"]),
    (["check", "tests/pages/refused/no_example.txt"], ["no worked example of attention found"]),
]


@pytest.mark.parametrize("args,needles", BAD)
def test_bad_input_is_one_line(args, needles):
    one_line_error(run(*args), *needles)


def test_binary_and_broken_pages(tmp_path):
    p = tmp_path / "b.md"
    p.write_bytes(b"\xff\xfe\x00 [[1, 2]]")
    one_line_error(run("import", str(p)), "not UTF-8 text (byte 0)")
    p = tmp_path / "n.ipynb"
    p.write_text('{"cells": [', encoding="utf-8")
    one_line_error(run("import", str(p)), "not a Jupyter notebook: the JSON does not parse")


def test_page_size_limit_at_the_boundary_and_one_past(tmp_path):
    ok = tmp_path / "ok.txt"
    ok.write_bytes(b"Q = [[1, 0]]\nK = [[1, 0], [0, 1]]\nV = [[1, 2], [3, 4]]\nscores = [[1, 0]]\n".ljust(MAX_PAGE_BYTES))
    # past MAX_PAGE_TEXT, but that limit is the next one to answer, with its own message
    r = run("import", str(ok))
    assert r.returncode == 2 and "characters of text, past the limit" in r.stderr
    big = tmp_path / "big.txt"
    big.write_bytes(b" " * (MAX_PAGE_BYTES + 1))
    one_line_error(run("import", str(big)), f"larger than {MAX_PAGE_BYTES} bytes")


def test_nothing_on_a_page_is_executed(tmp_path):
    """A notebook whose code would write a file, an HTML page with scripts and remote images:
    importing and checking them runs nothing and fetches nothing."""
    marker = tmp_path / "pwned"
    nb = {"cells": [{"cell_type": "code", "source": f"open({str(marker)!r}, 'w').write('x')\n"
                                                    "__import__('os').system('touch " + str(marker) + "')\n"
                                                    "Q = [[1, 0]]\nK = [[1, 0], [0, 1]]\nV = [[1, 2], [3, 4]]",
                      "outputs": []},
                     {"cell_type": "code", "source": "scores = Q @ K.T\nscores",
                      "outputs": [{"output_type": "execute_result", "data": {"text/plain": "array([[1, 0]])"}}]}],
          "nbformat": 4, "nbformat_minor": 5, "metadata": {}}
    page = tmp_path / "evil.ipynb"
    page.write_text(json.dumps(nb), encoding="utf-8")
    r = run("check", str(page))
    assert r.returncode == 0, r.stdout + r.stderr
    assert not marker.exists()
    html = tmp_path / "evil.html"
    html.write_text("<script>fetch('http://example.invalid')</script><img src='http://example.invalid/x.png'>"
                    "<pre>Q = [[1, 0]]\nK = [[1, 0], [0, 1]]\nV = [[1, 2], [3, 4]]\nscores = [[1, 0]]</pre>",
                    encoding="utf-8")
    code = ("import socket, sys\n"
            "def no(*a, **k): raise SystemExit('a socket was opened')\n"
            "socket.socket = no; socket.create_connection = no\n"
            "from symattn.cli import main\n"
            f"sys.exit(main(['check', {str(html)!r}]))\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr


def test_draft_escapes_what_it_copies(tmp_path):
    page = ('Word Embedding for "a\\"b": [1, 0]\nWord Embedding for "c": [0, 1]\n'
            "Query Weight Matrix (Wq): [[1, 0], [0, 1]]\nKey Weight Matrix (Wk): [[1, 0], [0, 1]]\n"
            "Value Weight Matrix (Wv): [[1, 2], [3, 4]]\nScores: [[1, 0], [0, 1]]\n")
    from symattn.views.draft import draft

    ex = sa.import_examples(page, "text", source="we\nird\x07.md")[0]
    text = draft(ex, "x.toml")
    assert "\x07" not in text
    spec = sa.loads(text)
    assert spec.tokens == ex.spec.tokens
