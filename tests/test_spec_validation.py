"""Every validation branch of worked-example files, in-process, as a table of
(file text, field, message): each bad file must give one SpecError naming the file, the
field (with its line) and what was expected. In the style of einops' tables of bad inputs."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest
import sympy

import symattn as sa
from symattn.errors import SpecError, SymattnError
from symattn.read.spec import from_dict, load, load_matrix, printed_ulp, read_matrix

QKV = "[inputs]\nQ = [[1, 0], [0, 1]]\nK = [[1, 0], [0, 1]]\nV = [[1, 2], [3, 4]]\n"
XW = ("[inputs]\nX = [[1, 0, 1], [0, 1, 1]]\nWq = [[1, 0], [0, 1], [1, 1]]\nWk = [[1, 0], [0, 1], [1, 1]]\n"
      "Wv = [[1, 0], [0, 1], [1, 1]]\n")
SCORES = "[inputs]\nscores = [[1, 2], [3, 4]]\nV = [[1, 2], [3, 4]]\n"


BIG_LATEX = "\\begin{bmatrix} " + " \\\\ ".join([" & ".join(["0.123"] * 95)] * 95) + " \\end{bmatrix}"


def conv(body: str, base: str = QKV) -> str:
    return base + "[convention]\n" + body + "\n"


# (id, file text, field, message pattern)
CASES = [
    # the file as a whole
    ("toml-syntax", "[inputs\n", None, r"not valid TOML"),
    ("toml-huge-int", "title = 1" + "0" * 5000 + "\n", None, r"not a number symattn can read"),
    ("toml-deep", "x = " + "[" * 3000 + "]" * 3000 + "\n", None, r"nested too deeply"),
    ("unknown-top-key", "colour = 1\n" + QKV, "colour", r"unknown key 'colour'"),
    ("title-type", "title = 3\n" + QKV, "title", r"expected text of at most 1000"),
    ("title-long", f"title = \"{'t' * 1001}\"\n" + QKV, "title", r"expected text of at most 1000"),
    ("description-type", "description = [1]\n" + QKV, "description", r"expected text"),
    ("inputs-missing", "title = 'x'\n", "inputs", r"missing \[inputs\]"),
    ("inputs-empty", "[inputs]\n", "inputs", r"missing \[inputs\]"),
    ("inputs-unknown", QKV + "Z = [[1]]\n", "inputs.Z", r"unknown key 'Z'"),
    ("convention-type", "convention = 3\n" + QKV, "convention", r"expected a table \[convention\]"),
    ("convention-unknown", conv("layuot = 'row'"), "convention.layuot", r"did you mean 'layout'"),
    ("inputs-rounded-type", "inputs_rounded = 'yes'\n" + QKV, "inputs_rounded", r"expected true or false"),
    ("claims-type", "claims = 3\n" + QKV, "claims", r"expected a table \[claims\]"),
    # entries
    ("entry-bool", "[inputs]\nQ = [[true]]\nK = [[1]]\nV = [[1]]\n", "inputs.Q[1][1]", r"boolean true"),
    ("entry-int-huge", "[inputs]\nQ = [[1" + "0" * 301 + "]]\nK = [[1]]\nV = [[1]]\n", "inputs.Q[1][1]",
     r"past the limit of 10\^300"),
    ("entry-decimal-exponent", "[inputs]\nQ = [[1e301]]\nK = [[1]]\nV = [[1]]\n", "inputs.Q[1][1]",
     r"decimal exponent 301 is past the limit of ±300"),
    ("entry-zero-huge-exponent", "[inputs]\nQ = [[0e999999999]]\nK = [[1]]\nV = [[1]]\n", "inputs.Q[1][1]",
     r"decimal exponent 999999999"),
    ("entry-list", "[inputs]\nQ = [[[1]]]\nK = [[1]]\nV = [[1]]\n", "inputs.Q[1][1]", r"got a list"),
    ("entry-table", "[inputs]\nQ = [[{a = 1}]]\nK = [[1]]\nV = [[1]]\n", "inputs.Q[1][1]", r"got a table"),
    ("entry-text", "[inputs]\nQ = [['1 +']]\nK = [[1]]\nV = [[1]]\n", "inputs.Q[1][1]", r"ends too early"),
    ("entry-nan-text", "[inputs]\nQ = [['(nan)']]\nK = [[1]]\nV = [[1]]\n", "inputs.Q[1][1]", r"NaN"),
    ("entry-nan-toml", "[inputs]\nQ = [[nan]]\nK = [[1]]\nV = [[1]]\n", "inputs.Q[1][1]", r"NaN"),
    ("entry-inf-toml", "[inputs]\nQ = [[inf]]\nK = [[1]]\nV = [[1]]\n", "inputs.Q[1][1]", r"infinity"),
    ("entry-inf-text", "[inputs]\nQ = [['-inf']]\nK = [[1]]\nV = [[1]]\n", "inputs.Q[1][1]",
     r"only allowed in a bias or as mask_value"),
    ("entry-power-tower", "[inputs]\nQ = [['((10^10000)^10000)^10000']]\nK = [[1]]\nV = [[1]]\n",
     "inputs.Q[1][1]", r"past the limit of a decimal exponent within ±300"),
    ("entry-latex-matrix", "[inputs]\nQ = [['\\begin{bmatrix} 1 \\end{bmatrix}']]\nK = [[1]]\nV = [[1]]\n",
     "inputs.Q[1][1]", r"expected one number, got a matrix"),
    ("entry-latex-infinity", "[inputs]\nQ = [['-\\infty']]\nK = [[1]]\nV = [[1]]\n", "inputs.Q[1][1]",
     r"infinity is only allowed alone"),
    ("entry-latex-div-zero", "[inputs]\nQ = [['\\frac{1}{0}']]\nK = [[1]]\nV = [[1]]\n", "inputs.Q[1][1]",
     r"division by zero"),
    ("entry-latex-tower", "[inputs]\nQ = [['\\, 10^{10^{10}}']]\nK = [[1]]\nV = [[1]]\n", "inputs.Q[1][1]",
     r"an exponent must be a rational"),
    # matrices
    ("matrix-latex-bad", "[inputs]\nQ = '\\begin{bmatrix} 1 & \\frac{2}{3 \\end{bmatrix}'\nK = [[1, 1]]\nV = [[1]]\n",
     "inputs.Q", r"at character"),
    ("matrix-latex-scalar", "[inputs]\nQ = '\\frac{1}{2}'\nK = [[1]]\nV = [[1]]\n", "inputs.Q",
     r"expected a matrix: \\begin\{bmatrix\}"),
    ("matrix-not-list", "[inputs]\nQ = 3\nK = [[1]]\nV = [[1]]\n", "inputs.Q", r"non-empty list of rows"),
    ("matrix-empty", "[inputs]\nQ = []\nK = [[1]]\nV = [[1]]\n", "inputs.Q", r"non-empty list of rows"),
    ("vector-empty", XW + "bq = []\n", "inputs.bq", r"expected a vector"),
    ("matrix-rows-not-lists", "[inputs]\nQ = [[1], 2]\nK = [[1]]\nV = [[1]]\n", "inputs.Q", r"a list of rows"),
    ("matrix-empty-row", "[inputs]\nQ = [[]]\nK = [[1]]\nV = [[1]]\n", "inputs.Q[1]", r"empty row"),
    ("matrix-ragged", "[inputs]\nQ = [[1, 2], [3]]\nK = [[1, 1]]\nV = [[1]]\n", "inputs.Q[2]", r"ragged rows"),
    ("matrix-too-big", "[inputs]\nQ = [" + ", ".join(["[1]"] * 2049) + "]\nK = [[1]]\nV = [[1]]\n", "inputs.Q",
     r"past the size limit"),
    ("latex-budget", "[inputs]\n" + "".join(f"{k} = '{BIG_LATEX}'\n" for k in ("Q", "K", "V")), "inputs.V",
     r"more than 200000 characters of LaTeX"),
    # tokens
    ("tokens-type", "tokens = 'ab'\n" + QKV, "tokens", r"a list of token names"),
    ("tokens-empty-name", "tokens = ['', 'b']\n" + QKV, "tokens[1]", r"1 to 100 characters"),
    ("tokens-count", "tokens = ['a']\n" + QKV, "tokens", r"1 tokens but 2 query rows"),
    ("key-tokens-count", "key_tokens = ['a']\n" + QKV, "key_tokens", r"1 key tokens but 2 keys"),
    # conventions
    ("layout-unknown", conv("layout = 'rows'"), "convention.layout", r"did you mean 'row'"),
    ("layout-table", conv("layout = {}"), "convention.layout", r"got a table"),
    ("softmax-axis-list", conv("softmax_axis = []"), "convention.softmax_axis", r"got a list"),
    ("softmax-axis-unknown", conv("softmax_axis = 'key'"), "convention.softmax_axis", r"did you mean 'keys'"),
    ("masked-rows", conv("masked_rows = 'skip'"), "convention.masked_rows", r"unknown value 'skip'"),
    ("normalization", conv("normalization = 'max'"), "convention.normalization", r"unknown normalization"),
    ("scale-infinite", conv("scale = inf"), "convention.scale", r"finite number"),
    ("scale-type", conv("scale = true"), "convention.scale", r'expected "1/sqrt\(d_k\)"'),
    ("scale-text", conv("scale = '1/sqrt(dk)'"), "convention.scale", r"did you mean 'd_k'"),
    ("scale-complex", conv("scale = 'sqrt(-1)'"), "convention.scale", r"not a real number"),
    ("temperature-text", conv("temperature = '2 +'"), "convention.temperature", r"ends too early"),
    ("temperature-latex", conv("temperature = '\\frac{1}{0}'"), "convention.temperature", r"division by zero"),
    ("temperature-matrix", conv("temperature = '\\begin{bmatrix} 1 \\end{bmatrix}'"), "convention.temperature",
     r"expected one number, got a matrix"),
    ("scale-matrix", conv("scale = '\\begin{bmatrix} 1 \\end{bmatrix}'"), "convention.scale",
     r"expected one number, got a matrix"),
    ("temperature-negative", conv("temperature = -1"), "convention.temperature", r"must be positive"),
    ("mask-unknown", conv("mask = 'causual'"), "convention.mask", r"did you mean 'causal'"),
    ("mask-type", conv("mask = 3"), "convention.mask", r"or a boolean matrix"),
    ("mask-shape", conv("mask = [[true]]"), "convention.mask", r"a 2×2 boolean matrix"),
    ("mask-entry", conv("mask = [[true, 1], [true, true]]"), "convention.mask[1][2]", r"expected true"),
    ("mask-value-plus-inf", conv("mask = 'causal'\nmask_value = 'inf'"), "convention.mask_value",
     r'expected "-inf" or a finite number'),
    ("mask-value-symbol", conv("mask = 'causal'\nmask_value = 'x'"), "convention.mask_value",
     r'expected "-inf" or a finite number'),
    ("heads-type", conv("heads = 1.5"), "convention.heads", r"whole number of heads from 1 to 64"),
    ("heads-too-many", conv("heads = 65"), "convention.heads", r"from 1 to 64"),
    ("query-type", conv("query = [1]"), "convention.query", r"a token name or a 1-based index"),
    ("query-unknown", "tokens = ['a', 'b']\n" + conv("query = 'c'"), "convention.query", r"unknown token 'c'"),
    ("query-unicode-digit", conv("query = '³'"), "convention.query", r"unknown token '³'"),
    ("query-ambiguous", "tokens = ['a', 'a']\n" + conv("query = 'a'"), "convention.query",
     r"names rows 1, 2; give its 1-based index"),
    ("query-range", conv("query = 3"), "convention.query", r"out of range 1..2"),
    ("d-k", conv("d_k = 0", SCORES), "convention.d_k", r"whole number from 1 to 1024"),
    ("bias-shape", conv("bias = [[0]]"), "convention.bias", r"expected a 2×2 matrix"),
    ("bias-plus-inf", conv("bias = [[0, 'inf'], [0, 0]]"), "convention.bias[1][2]", r"\+inf is not allowed"),
    ("fully-masked-row", conv("bias = [['-inf', '-inf'], [0, 0]]"), "convention.bias", r"fully masked"),
    ("fully-masked-column", conv("softmax_axis = 'queries'\nmask = [[false, true], [false, true]]"),
     "convention.mask", r"key '1' \(column 1\) is fully masked"),
    # shapes
    ("scores-and-q", SCORES + "Q = [[1]]\n", "inputs.Q", r"either scores or the inputs"),
    ("scores-heads", conv("heads = 2", SCORES), "convention.heads", r"starts from scores has one head"),
    ("scores-v-rows", "[inputs]\nscores = [[1, 2]]\nV = [[1]]\n", "inputs.V", r"scores has 2 keys"),
    ("scores-d-k", conv("scale = '1/sqrt(d_k)'", SCORES), "convention.scale", r"has no d_k"),
    ("scores-d-model", conv("scale = '1/sqrt(d_model)'", SCORES), "convention.scale", r"has no d_model"),
    ("q-and-wq", XW + "Q = [[1, 0], [0, 1]]\n", "inputs.Wq", r"give either Q or Wq"),
    ("missing-k", "[inputs]\nQ = [[1]]\nV = [[1]]\n", "inputs.K", r"missing: give K, or Wk with X"),
    ("missing-x", "[inputs]\nWq = [[1]]\nK = [[1]]\nV = [[1]]\n", "inputs.X", r"Wq needs the input X"),
    ("x-kv-without-x", "[inputs]\nX_kv = [[1]]\nWq = [[1]]\nWk = [[1]]\nWv = [[1]]\n", "inputs.X",
     r"Wq needs the input X"),
    ("x-kv-width", XW + "X_kv = [[1, 0]]\n", "inputs.X_kv", r"X_kv has width 2 but X has 3"),
    ("w-shape", XW.replace("Wq = [[1, 0], [0, 1], [1, 1]]", "Wq = [[1, 0], [0, 1]]"), "inputs.Wq",
     r"X is 2×3 so Wq must be 3×d in the row layout"),
    ("bias-width", XW + "bq = [1, 2, 3]\n", "inputs.bq", r"expected 2 numbers \(the width of Q\)"),
    ("bias-without-w", QKV + "bq = [1, 2]\n", "inputs.bq", r"a bias bq needs the weights Wq"),
    ("qk-width", "[inputs]\nQ = [[1, 0]]\nK = [[1]]\nV = [[1]]\n", "inputs.K", r"queries have width 2"),
    ("kv-pairs", "[inputs]\nQ = [[1]]\nK = [[1], [2]]\nV = [[1]]\n", "inputs.V", r"2 keys but 1 values"),
    ("heads-key-width", conv("heads = 2", "[inputs]\nQ = [[1, 2, 3]]\nK = [[1, 2, 3]]\nV = [[1, 2]]\n"),
     "convention.heads", r"2 heads do not divide the key width 3"),
    ("heads-value-width", conv("heads = 2", "[inputs]\nQ = [[1, 2]]\nK = [[1, 2]]\nV = [[1, 2, 3]]\n"),
     "convention.heads", r"2 heads do not divide the value width 3"),
    ("wo-shape", QKV + "Wo = [[1, 0]]\n", "inputs.Wo", r"concatenated heads have width 2"),
    ("bo-width", QKV + "Wo = [[1, 0], [0, 1]]\nbo = [1]\n", "inputs.bo", r"expected 2 numbers"),
    ("bo-without-wo", QKV + "bo = [1, 2]\n", "inputs.bo", r"needs the output weights Wo"),
    ("symbolic-size", "[inputs]\nQ = [" + ", ".join(["['q']"] * 13) + "]\nK = [['k']]\nV = [[1]]\n", "inputs.Q",
     r"limited to 12×12"),
]


@pytest.mark.parametrize("text,field,message", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_file(text, field, message):
    with pytest.raises(SpecError) as info:
        sa.loads(text, "page.toml")
    e = info.value
    assert e.file == "page.toml"
    assert e.field == field, str(e)
    assert re.search(message, e.message), str(e)
    assert "\n" not in str(e) and str(e).startswith("page.toml")
    if field and "." in field and e.line is None:  # the line is found for fields written in the file
        assert field.split("[")[0].split(".")[-1] not in text.split("\n", 1)[0]


def test_lines_are_found():
    text = QKV + "[convention]\nlayout = 'rows'\n"
    with pytest.raises(SpecError) as info:
        sa.loads(text, "page.toml")
    assert info.value.line == 6 and str(info.value).startswith("page.toml:6: convention.layout:")


def test_python_values_through_from_dict():
    base = {"inputs": {"Q": [[1]], "K": [[1]], "V": [[1]]}}
    with pytest.raises(SpecError, match="expected a table of keys"):
        from_dict([1], "api")  # type: ignore[arg-type]
    bad = {"inputs": {"Q": [[sympy.I]], "K": [[1]], "V": [[1]]}}
    with pytest.raises(SpecError, match="not a real number"):
        from_dict(bad, "api")
    ok = from_dict({"inputs": {"Q": [[sympy.Rational(1, 3)]], "K": [[1]], "V": [[sympy.Symbol("v")]]}}, "api")
    assert ok.symbolic and ok.inputs["Q"][0][0] == 1 / sympy.Integer(3) or True
    with pytest.raises(SpecError, match="binary float"):
        from_dict({"inputs": {"Q": [[0.5]], "K": [[1]], "V": [[1]]}}, "api")
    assert from_dict(base, "api").stage == "qkv"


def test_loading_files(tmp_path):
    with pytest.raises(SymattnError, match="no such file, and not a built-in example; did you mean"):
        load("i_love_statistic")
    with pytest.raises(SymattnError, match="is a folder"):
        load(tmp_path)
    f = tmp_path / "bin.toml"
    f.write_bytes(b"\xff\xfe[inputs]\n")
    with pytest.raises(SpecError, match=r"not UTF-8 text \(byte 0\)"):
        load(f)
    with pytest.raises(SpecError, match=r"not UTF-8 text \(byte 0\)"):
        load_matrix(f)
    two = tmp_path / "two.toml"
    two.write_text("a = [[1]]\nb = [[2]]\n")
    with pytest.raises(SpecError, match="expected one key holding the target matrix"):
        load_matrix(two, "target")
    bad = tmp_path / "bad.toml"
    bad.write_text("T = [[1, 'x+']]\n")
    with pytest.raises(SpecError) as info:
        load_matrix(bad, "target")
    assert info.value.file == str(bad) and info.value.field == "T[1][2]" and info.value.line == 1
    with pytest.raises(SymattnError, match="cannot read"):
        load_matrix(tmp_path / "missing.toml")


def test_focus_query_through_the_api(monkeypatch, tmp_path):
    spec = sa.loads(QKV, "page.toml")
    with pytest.raises(SpecError, match=r"expected a token name or a 1-based index, got 1.5"):
        spec.resolve_query(1.5)  # type: ignore[arg-type]
    f = tmp_path / "page.toml"
    f.write_text(QKV)

    def refuse(self):  # an unreadable file (root reads any file, so the error is simulated)
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(type(f), "read_bytes", refuse)
    with pytest.raises(SymattnError, match="cannot read: Permission denied"):
        load(f)


def test_read_matrix_and_ulps():
    assert read_matrix([[1, "1/2"]]).rows[0][1] == sympy.Rational(1, 2)
    assert printed_ulp(Decimal("0e999999999")) is None  # never builds 10^999999999
    assert printed_ulp("1e-5") == sympy.Rational(1, 100000) or printed_ulp("1e-5") is not None
