"""The command line: outputs, JSON, and bad input (one line, exit 2, no traceback)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def run(*args, cwd=None):
    env = dict(os.environ, PYTHONIOENCODING="utf-8")
    return subprocess.run([sys.executable, "-m", "symattn", *args], capture_output=True, text=True,
                          cwd=cwd or ROOT, env=env, timeout=300)


def test_derive_builtin_example_without_a_file():
    r = run("derive")
    assert r.returncode == 0, r.stderr
    assert "I love statistics" in r.stdout
    assert "q[love, 1] = 0.4·0.1 + 0.8·0.2 + 0.6·0.5 = 0.5" in r.stdout
    assert "s[love, I] = 0.5·0.76 + 0.8·0.92 = 1.116" in r.stdout
    for name in ("── Q:", "── K:", "── V:", "── scores:", "── scaled:", "── weights:", "── weighted:", "── output:"):
        assert name in r.stdout


def test_digits_and_file_path():
    r = run("derive", "examples/i_love_statistics.toml", "--digits", "30", "--steps", "output")
    assert r.returncode == 0, r.stderr
    # mpmath at 60 digits: 0.538478610280736440640190293169...
    assert "[love, 1] = 0.538478610280736440640190293169" in r.stdout


def test_json_has_the_documented_shape_and_is_stable():
    r1 = run("derive", "examples/i_love_statistics.toml", "--json")
    r2 = run("derive", "examples/i_love_statistics.toml", "--json")
    assert r1.returncode == 0 and r1.stdout == r2.stdout
    data = json.loads(r1.stdout)
    assert list(data)[:2] == ["title", "source"]
    assert {"title", "convention", "steps"} <= set(data)
    step = data["steps"][3]
    assert list(step) == ["name", "title", "formula", "shape", "rows", "cols", "exact", "decimal"]
    assert step["name"] == "scores" and step["exact"] == [["279/250", "633/500", "1339/1000"]]
    assert step["rows"] == ["love"] and step["cols"] == ["I", "love", "statistics"]
    weighted = next(s for s in data["steps"] if s["name"] == "weighted")
    assert weighted["shape"] == [1, 3, 2] and len(weighted["decimal"][0][0]) == 2
    weights = next(s for s in data["steps"] if s["name"] == "weights")
    assert weights["formula"] == r"P = \operatorname{softmax}\left(\tilde{S}\right)"
    # exact strings are SymPy-readable closed forms
    assert weights["exact"][0][0] == "1/(1 + exp(3*sqrt(2)/40) + exp(223*sqrt(2)/2000))"
    assert data["convention"]["query"] == "love"


def test_steps_and_query_options():
    spec = ROOT / "examples" / "i_love_statistics.toml"
    r = run("derive", str(spec), "--query", "I", "--steps", "output,weights", "--json")
    data = json.loads(r.stdout)
    assert [s["name"] for s in data["steps"]] == ["weights", "output"]
    assert data["steps"][0]["rows"] == ["I"]


def test_examples_lists_builtins():
    r = run("examples")
    assert r.returncode == 0
    for name in ("i_love_statistics", "fox_jumps", "pizza_is_awesome", "symbolic_two_tokens"):
        assert name in r.stdout


def test_output_file_is_written_atomically(tmp_path):
    out = tmp_path / "steps.json"
    r = run("derive", "--json", "-o", str(out))
    assert r.returncode == 0 and json.loads(out.read_text())["title"] == "I love statistics"
    assert [p.name for p in tmp_path.iterdir()] == ["steps.json"]


BAD = {
    "malformed TOML": ("title = \n", "not valid TOML", ":1"),
    "non-numeric entry": ('[inputs]\nQ = [[1, "abc def"]]\nK = [[1, 2]]\nV = [[1]]\n', "inputs.Q[1][2]", ":2"),
    "ragged rows": ("[inputs]\nQ = [[1, 2], [3]]\nK = [[1, 2]]\nV = [[1]]\n", "ragged rows", "inputs.Q[2]"),
    "shapes that don't multiply": ("[inputs]\nX = [[1,2,3],[4,5,6],[7,8,9]]\nWq = [[1,2],[3,4]]\n"
                                   "Wk = [[1,2],[3,4],[5,6]]\nWv = [[1,2],[3,4],[5,6]]\n",
                                   "inputs.Wq: X is 3×3 so Wq must be 3×d", ":3"),
    "unknown key": ("[inputs]\nQ = [[1]]\nK = [[1]]\nV = [[1]]\n[convention]\nlayuot = 'row'\n",
                    "did you mean 'layout'", "convention.layuot"),
    "unknown query token": ('tokens = ["a"]\n[inputs]\nQ = [[1]]\nK = [[1]]\nV = [[1]]\n[convention]\n'
                            'query = "b"\n', "unknown token 'b'", "convention.query"),
    "NaN": ("[inputs]\nQ = [[nan]]\nK = [[1]]\nV = [[1]]\n", "NaN", "inputs.Q[1][1]"),
    "fully masked row": ("[inputs]\nQ = [[1], [2]]\nK = [[1], [2]]\nV = [[1], [2]]\n[convention]\n"
                         "mask = [[false, false], [true, true]]\n", "fully masked", "convention.mask"),
    "huge exponent": ("[inputs]\nQ = [[1e999]]\nK = [[1]]\nV = [[1]]\n", "exponent", "inputs.Q[1][1]"),
    "missing inputs": ('title = "x"\n', "missing [inputs]", "inputs"),
    "bad layout": ("[inputs]\nQ = [[1]]\nK = [[1]]\nV = [[1]]\n[convention]\nlayout = 'rows'\n",
                   "did you mean 'row'", "convention.layout"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_input_one_line_exit_2(case, tmp_path):
    content, *expected = BAD[case]
    f = tmp_path / "page.toml"
    f.write_text(content, encoding="utf-8")
    out = tmp_path / "out.txt"
    r = run("derive", str(f), "-o", str(out))
    assert r.returncode == 2, (r.stdout, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert "Traceback" not in r.stderr
    assert str(f) in lines[0]
    for e in expected:
        assert e in lines[0], lines[0]
    assert not out.exists()  # no half-written output


def test_bad_options_exit_2():
    for args in (["derive", "--digits", "x"], ["derive", "--digits", "0"], ["derive", "--digits", "1000001"],
                 ["derive", "--query", "nobody"], ["derive", "--steps", "wieghts"], ["derive", "no_such_file"],
                 ["frobnicate"]):
        r = run(*args)
        assert r.returncode == 2, args
        assert len(r.stderr.strip().splitlines()) == 1, (args, r.stderr)
        assert "Traceback" not in r.stderr
    r = run("derive", "--steps", "wieghts")
    assert "did you mean 'weights'" in r.stderr


@pytest.mark.parametrize("module,package", [("flint", "python-flint"), ("sympy", "sympy")])
def test_a_missing_dependency_is_named_not_reported_as_a_bug(module, package):
    # a Python where symattn's dependencies are not installed (seen when `python` is not the venv's)
    code = (f"import sys; sys.modules[{module!r}] = None\n"  # import of it now fails with ModuleNotFoundError
            "from symattn.cli import main\nraise SystemExit(main(['derive']))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2, r.stderr
    assert r.stderr.count("\n") == 1 and "internal error" not in r.stderr
    assert f"does not have {package}, which symattn needs" in r.stderr and "pip install" in r.stderr
