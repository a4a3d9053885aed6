"""Views: one printer per format, each fact written once, exact forms a reader can use, and
every view of every built-in example (the smoke matrix)."""

import itertools
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import sympy

import symattn as sa
from symattn.analyses.proofs import IDENTITIES
from symattn.analyses.softmax_forms import closed_forms
from symattn.pipeline.notation import Num, Sigmoid, Softmax, entry
from symattn.pipeline.rules import minus, plus, times
from symattn.views.conventions import summary
from symattn.views.data import to_data
from symattn.views.entries import numbers, worked
from symattn.views.printers import latex, render_phrase, text
from symattn.views.text import line

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = [n for n, _ in sa.list_examples()]


def run(*args):
    return subprocess.run([sys.executable, "-m", "symattn", *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=600)


# -- the printers ----------------------------------------------------------------------------------

def test_indexed_symbols_print_with_indices():
    k11 = sympy.Symbol("k_11", real=True)
    assert (latex(k11), text(k11)) == ("k_{11}", "k₁₁")
    i, j = sympy.symbols("i j")
    p = sympy.IndexedBase(sympy.Symbol("p"))
    assert (latex(p[i, j]), text(p[i, j])) == ("p_{ij}", "pᵢⱼ")
    assert (latex(entry("stilde", ["love", "I"])), text(entry("stilde", ["love", "I"]))) == (
        r"\tilde{s}_{\text{love},\text{I}}", "s̃[love, I]")
    assert text(entry("D", ["1"])) == "D₁"


def test_products_never_star_in_latex_and_parentheses_follow_precedence():
    q11, q12, k11, k12 = sympy.symbols("q_11 q_12 k_11 k_12", real=True)
    e = sympy.sqrt(2) * (k11 * q11 + k12 * q12) / 2
    assert "*" not in latex(e) and r"\left(k_{11} q_{11} + k_{12} q_{12}\right)" in latex(e)
    assert text(e) == "√2·(k₁₁·q₁₁ + k₁₂·q₁₂)/2"
    # a written-out entry keeps its order and its brackets: 0.4·(−0.5) and s/√2
    w = plus(times(Num("0.4"), Num("-0.5")), times(Num("-0.2"), Num("0.1")))
    assert (text(w), latex(w)) == ("0.4·(−0.5) − 0.2·0.1", r"0.4 \cdot \left(-0.5\right) - 0.2 \cdot 0.1")
    p, dp, d = entry("p", ["a", "b"]), entry("dP", ["a", "b"]), entry("D", ["a"])
    assert text(times(p, minus(dp, d))) == "p[a, b](dP[a, b] − D[a])"
    assert latex(times(p, minus(dp, d))) == (r"p_{\text{a},\text{b}} \left(dP_{\text{a},\text{b}} - "
                                             r"D_{\text{a}}\right)")


def test_e_is_printed_one_way():
    e = sympy.exp(1) + sympy.exp(2) + sympy.exp(sympy.Rational(1, 3))
    assert text(e) == "e + e² + e^(1/3)" or set(text(e).split(" + ")) == {"e", "e²", "e^(1/3)"}
    assert "exp" not in latex(e) and "E" not in text(e)


def test_softmax_function_and_sigmoid():
    a, b, c = sympy.symbols("a b c", real=True)
    # fdiff: the Jacobian p_i(δ_ik − p_k), checked against differentiating the closed form
    for i, k in ((1, 1), (1, 2), (3, 2)):
        closed = sympy.exp((a, b, c)[i - 1]) / (sympy.exp(a) + sympy.exp(b) + sympy.exp(c))
        got = sympy.diff(Softmax(i, a, b, c), (a, b, c)[k - 1]).rewrite(sympy.exp)
        assert sympy.simplify(got - sympy.diff(closed, (a, b, c)[k - 1])) == 0
    assert sympy.simplify((Softmax(2, a, b) - Sigmoid(b - a)).rewrite(sympy.exp)) == 0
    assert sympy.simplify(sympy.diff(Sigmoid(a), a) - (Sigmoid(a) * (1 - Sigmoid(a)))) == 0
    assert latex(Softmax(1, a, b)) == r"\operatorname{softmax}\left(a, b\right)_{1}"
    with pytest.raises(ValueError):
        Softmax(3, a, b)


def test_no_regex_conversion_between_latex_and_text():
    src = (ROOT / "symattn" / "views").glob("*.py")
    for f in src:
        code = f.read_text()
        assert "_plain_latex" not in code, f
    assert "import re" not in (ROOT / "symattn" / "views" / "text.py").read_text()


# -- each fact once ------------------------------------------------------------------------------

def test_tau_is_read_from_the_scaled_step():
    d = sa.derive(sa.load("illustrated_self_attention").unfocused())
    assert d.convention["tau"] == str(d["scaled"].params["tau"]) == "1"
    d = sa.derive(sa.load("i_love_statistics"))
    assert d["scaled"].params["tau"] == sympy.sqrt(2) / 2
    g = sa.grad(d)
    # the gradient reads τ from the step: change it there and dQ (= τ dS K) follows
    d2 = sa.derive(sa.load("i_love_statistics").unfocused())
    d2["scaled"].params["tau"] = sympy.Integer(1)
    from symattn.pipeline.backward import grad

    g2 = grad(d2, focus="love")
    for a_, b_ in zip(g["dQ"].exact, g2["dQ"].exact):
        assert sympy.simplify(a_ - b_ * sympy.sqrt(2) / 2) == 0
    assert summary(d)[1].long[-1] == sympy.Eq(sympy.Symbol("tau", positive=True), sympy.sqrt(2) / 2,
                                               evaluate=False)


@pytest.mark.parametrize("layout", ["row", "torch", "column"])
def test_one_layout_rule(layout):
    from symattn.pipeline.backward import Backward
    from symattn.pipeline.forward import Builder

    spec = sa.from_dict({"inputs": {"X": [[1, 2, 3], [4, 5, 6]] if layout != "column" else [[1, 4], [2, 5], [3, 6]],
                                    "Wq": [[1, 0], [0, 1], [1, 1]] if layout == "row" else [[1, 0, 1], [0, 1, 1]],
                                    "Wk": [[1, 0], [0, 1], [1, 1]] if layout == "row" else [[1, 0, 1], [0, 1, 1]],
                                    "Wv": [[1, 0], [0, 1], [1, 1]] if layout == "row" else [[1, 0, 1], [0, 1, 1]]},
                         "convention": {"layout": layout}})
    b = Builder(spec, None)
    bw = Backward(sa.derive(spec))
    for name in spec.inputs:
        want = sympy.Matrix(spec.row(name))
        assert b.input(name).exact() == want and bw.inputs.input(name).exact() == want


def test_one_loss_definition():
    spec = sa.load("i_love_statistics")
    for loss, kw in (("sum", {}), ("mse", {"target": [[1, 2]]}), ("upstream", {"upstream": [["g_1", "g_2"]]})):
        g = sa.grad(sa.derive(spec), loss=loss, **kw)
        assert g["loss"].exact == g.loss_of(g.forward["output"].value).exact()


def test_one_worked_entry_renderer_for_text_and_latex():
    d = sa.derive(sa.load("two_heads_causal"))
    for st in d.steps:
        w = worked(st, 6)
        if w is None:
            continue
        assert line(w) in sa.text(d)
        assert latex(w.lhs) in sa.latex(d)


def test_one_conventions_summary_in_every_view():
    spec = sa.load("two_heads_causal")
    d = sa.derive(spec)
    items = summary(d)
    assert [i.key for i in items] == ["layout", "scale", "mask", "softmax", "heads", "query"]
    txt, tex, md = sa.text(d), sa.latex(d), sa.markdown(d)
    for it in items:
        assert render_phrase(it.short, "text") in txt
        assert render_phrase(it.long, "latex") in tex
    assert "2 heads" in md and "head(s)" not in md + txt + tex


# -- exact forms a reader can use ----------------------------------------------------------------

def test_a_rational_value_is_shown_as_that_rational():
    spec = sa.from_dict({"key_tokens": ["a", "b"],
                         "inputs": {"Q": [[1, 0]], "K": [[1, 0], [0, 1]], "V": [[2, 1], [2, 3]]}})
    d = sa.derive(spec)
    out = sa.text(d["output"])
    assert "o₁₁ = 2\n" in out and "e^" in out  # o₁₂ is not rational
    assert sa.to_json(d)["steps"][-1]["exact"][0][0] == "2"
    assert r"o_{1,1} &= 2 \\" in sa.latex(d["output"]).replace("o_{11}", "o_{1,1}")


def test_weights_over_one_denominator_and_outputs_as_one_fraction():
    d = sa.derive(sa.load("illustrated_self_attention"))
    out = sa.text(d)
    assert "p[x1, :] = (1, e², e²)/(1 + 2e²)" in out
    assert "o[x1, 1] = (1 + 4e²)/(1 + 2e²)" in out
    tex = sa.latex(d)
    assert r"p_{\text{x1},:} &= \frac{\left(1,\ e^{2},\ e^{2}\right)}{1 + 2 e^{2}}" in tex
    # no nested fractions: the seed's outputs have rational values over a common denominator
    d = sa.derive(sa.load("i_love_statistics"))
    o = next(x for x in sa.latex(d["output"]).splitlines() if x.startswith(r"o_{\text{love},1} &= \frac"))
    assert o.count(r"\frac") == 1, o


def test_two_keys_give_the_sigmoid_form():
    d = sa.derive(sa.load("symbolic_two_tokens"))
    w = worked(d["weights"], 6)
    assert text(w.parts[-1][1]) == "σ(s̃[a, a] − s̃[a, b])"
    spec = sa.from_dict({"inputs": {"scores": [[1, 3]], "V": [[1], [2]]}, "convention": {"scale": "none"}})
    d = sa.derive(spec)
    assert "= σ(1 − 3) ≈ 0.119203" in sa.text(d["weights"])


def test_symbolic_steps_in_terms_of_earlier_named_entries():
    d = sa.derive(sa.load("symbolic_two_tokens"))
    out = sa.text(d)
    assert "s̃[a, a] = s[a, a]/√2" in out
    assert "o[a, 1] = p[a, a]·v₁₁ + p[a, b]·v₂₁" in out
    assert "exp" not in out and "E" not in re.findall(r"\bE\b", out)
    g = sa.grad(d)
    assert "dS[a, a] = p[a, a](dP[a, a] − D[a])" in sa.text(g) and "p[b, b](dP[b, b] − D[b])" in sa.text(g)
    assert r"dS_{\text{a},\text{b}} &= p_{\text{a},\text{b}} \left(dP_{\text{a},\text{b}} - D_{\text{a}}\right)" in \
        sa.latex(g)
    # fully expanded only on request
    expanded = sa.text(d, expand=True)
    assert "s̃[a, a] = s[a, a]/√2 = √2·(k₁₁·q₁₁ + k₁₂·q₁₂)/2" in expanded
    assert "√2·(k₁₁·q₁₁ + k₁₂·q₁₂)/2" not in out
    r = run("derive", "symbolic_two_tokens", "--expand")
    assert r.returncode == 0 and "√2·(k₁₁·q₁₁ + k₁₂·q₁₂)/2" in r.stdout
    r = run("grad", "symbolic_two_tokens", "--expand", "--steps", "dS")
    assert r.returncode == 0 and "dS[a, a] = p[a, a](dP[a, a] − D[a]) = " in r.stdout
    r = run("latex", "symbolic_two_tokens", "--expand")
    assert r.returncode == 0 and r"\sqrt{2} \left(k_{11} q_{11} + k_{12} q_{12}\right)" in r.stdout


def test_digits_apply_to_the_written_out_entry():
    d = sa.derive(sa.load("i_love_statistics"))
    assert "s̃[love, I] = 1.116/√2 ≈ 0.78913117\n" in sa.text(d, digits=8)  # 1.116/√2 = 0.789131169…
    assert "p[love, I] = e^0.78913117/(e^0.78913117 + e^0.89519718 + e^0.94681598) ≈ 0.30462799" in \
        sa.text(d, digits=8)
    r = run("derive", "--digits", "10", "--steps", "output")
    assert "o[love, 1] = 0.3046279943·0.48" in r.stdout


# -- typography ------------------------------------------------------------------------------------

def test_textbook_typography_in_documents():
    spec = sa.load("i_love_statistics")
    tex = sa.latex(sa.derive(spec), standalone=True, report=sa.check(spec))
    # token labels outside the brackets
    assert r"\begin{blockarray}" in tex and r"\begin{block}{r[" in tex and r"\begin{array}{l|" not in tex
    # one number of decimal places per matrix: 0.90 beside 0.76
    assert r"\text{I} & 0.76 & 0.92 \\ \text{love} & 0.90 & 1.02" in tex
    # matrices side by side are spaced
    assert r"\end{blockarray} \; \begin{bmatrix}" in tex
    # a heading is kept with its step; the claims table uses booktabs
    assert tex.count(r"\Needspace") == tex.count(r"\subsection*") > 0
    assert r"\toprule" in tex and r"\midrule" in tex and r"\bottomrule" in tex
    # long closed forms one entry a line, at normal size
    assert re.search(r"\no_\{\\text\{love\},1\} &= \\frac", tex)
    # Markdown (KaTeX) has no blockarray
    assert "blockarray" not in sa.markdown(sa.derive(spec))


# -- what a newcomer hits first ------------------------------------------------------------------

def test_every_readme_toml_block_with_inputs_loads():
    readme = (ROOT / "README.md").read_text()
    blocks = [b for b in re.findall(r"```toml\n(.*?)```", readme, re.S) if "[inputs]" in b]
    assert len(blocks) >= 2
    for b in blocks:
        d = sa.derive(sa.loads(b, "README.md"))
        assert "output" in d


def test_print_shows_the_text_view_of_every_object(capsys):
    spec = sa.load("i_love_statistics")
    objects = [sa.derive(spec), sa.derive(spec)["weights"], sa.grad(sa.derive(spec)), sa.check(spec),
               sa.prove("jacobian"), sa.parse_formula(r"\operatorname{softmax}(QK^\top)V"), closed_forms(2)]
    for obj in objects:
        print(obj)
        out = capsys.readouterr().out
        assert out.strip() == sa.text(obj).strip() and len(out) < 20000 and "dataclass" not in out
        assert "Claim(" not in out and "Report(" not in out


def test_rich_jupyter_reprs():
    spec = sa.load("i_love_statistics")
    d = sa.derive(spec)
    for obj in (d, sa.grad(d), sa.check(spec), sa.prove("online-softmax"), closed_forms("n"),
                sa.parse_formula(r"\operatorname{softmax}(QK^\top)V"), d["scores"]):
        md = obj._repr_markdown_()
        assert md and md.strip(), type(obj)
    assert d["scores"]._repr_latex_().startswith("$$")
    assert d._repr_latex_().startswith("$$") and "blockarray" not in d._repr_latex_()


def test_words_a_person_would_write():
    d = sa.derive(sa.load("two_heads_causal"))
    everything = sa.text(d) + sa.markdown(d) + sa.latex(d)
    assert "Concat(O₁, O₂)" in sa.text(d) and "head2)" not in everything
    assert "(s)" not in everything
    assert "n = n" not in sa.text(closed_forms("n")) and "for a symbolic size n" in sa.text(closed_forms("n"))
    t0 = next(f for f in closed_forms(3) if f.name == "temperature_zero")
    assert "(1/2, 1/2, 0)" in render_phrase(t0.statement, "text") and "'" not in render_phrase(t0.statement, "text")
    r = run("grad", "illustrated_self_attention", "--verify", "numeric", "--wrt", "Wq")
    assert r.returncode == 0 and "✓ ∂L/∂Wq (step dWq)" in r.stdout and "dWq (dWq)" not in r.stdout


def test_gradients_of_the_focus_row():
    spec = sa.load("i_love_statistics")  # focus query love: derive shows one output row
    g = sa.grad(sa.derive(spec), loss="upstream", upstream=[[1, 2]])
    assert g.focus == "love" and g["dO"].shape == (3, 2)
    assert g["dO"].exact.row(0) == sympy.Matrix([[0, 0]]) and g["dO"].exact.row(1) == sympy.Matrix([[1, 2]])
    assert "the loss of the focus row love" in sa.text(g)
    assert "dO[love, 1] = 1" in sa.text(g)  # the entry written out is in the focus row
    with pytest.raises(sa.SymattnError, match="1×2"):
        sa.grad(sa.derive(spec), loss="upstream", upstream=[[1, 2], [3, 4], [5, 6]])
    everyone = sa.grad(sa.derive(spec.unfocused()), loss="upstream", upstream=[[1, 2], [3, 4], [5, 6]])
    assert everyone.focus is None and "focus" not in sa.text(everyone)


def test_local_verdict_wording():
    out = sa.text(sa.check(sa.load("i_love_statistics")))
    assert "── weighted ── 0/6 correct · follows from the page's own numbers, within their printed rounding" in out
    assert "≈ 0.246984" in out
    assert "── scores ── 0/3 correct · does not follow from the page's own numbers either" in out


# -- JSON ----------------------------------------------------------------------------------------

def test_data_classes_carry_no_rendering():
    from symattn.analyses.check import Claim, Report
    from symattn.analyses.formula import Formula
    from symattn.analyses.proofs import Proof
    from symattn.analyses.softmax_forms import Fact
    from symattn.analyses.verify import Verification

    for cls in (Report, Claim, Proof, Fact, Formula, Verification):
        assert not hasattr(cls, "to_data"), cls
    p = to_data(sa.prove("rows-sum-to-one"))
    assert list(p) == ["name", "title", "statement", "holds", "argument", "checks"]
    assert p["statement"].startswith(r"\sum_{j} p_{ij} = 1")
    f = to_data(closed_forms(3))
    assert f["n"] == "3" and f["facts"][0]["text"] == "pᵢ = e^xᵢ/(Σ_{j=1..3} e^xⱼ)"


# -- the smoke matrix: every view of every built-in example --------------------------------------

FORBIDDEN_TEXT = ["exp(", "(s)", "Eq(", "Matrix(", "*"]


@pytest.mark.parametrize("name", EXAMPLES)
def test_every_view_of_every_builtin_example(name):
    spec = sa.load(name)
    d = sa.derive(spec)
    g = sa.grad(d) if "output" in d else None
    for obj in [d] + ([g] if g is not None else []):
        for expand in (False, True):
            txt = sa.text(obj, expand=expand)
            body = "\n".join(x for x in txt.splitlines() if "conventions:" not in x)  # the file's scale text
            for bad in FORBIDDEN_TEXT:
                assert bad not in body, (name, bad)
            assert not re.search(r"\bE\b", body)
            tex = sa.latex(obj, standalone=True, expand=expand)
            assert "*" not in re.sub(r"\\(?:begin|end)\{(?:align|gather)\*\}|\\(?:sub)?section\*", "", tex), name
            md = sa.markdown(obj, expand=expand)
            assert md.count("$$") == 2 * len(obj.steps)
        json.dumps(sa.to_json(obj))
        assert obj._repr_markdown_() and obj._repr_latex_()
        for st in obj.steps:
            assert st._repr_latex_() and st._repr_markdown_() and str(st)
    if spec.claims:
        r = sa.check(spec)
        for view in (sa.text(r), sa.markdown(r), r._repr_markdown_(), json.dumps(sa.to_json(r))):
            assert view
        assert "Printed numbers checked" in sa.latex(d, standalone=True, report=r)


@pytest.mark.parametrize("name", sorted(IDENTITIES))
def test_every_view_of_every_proof(name):
    p = sa.prove(name)
    assert p.holds
    for view in (sa.text(p), sa.latex(p), sa.latex(p, standalone=True), p._repr_markdown_(), json.dumps(to_data(p))):
        assert view and "U+" not in view
    assert "\\" not in sa.text(p)  # no LaTeX in the terminal text


# -- every written-out entry is the step's value -----------------------------------------------------

def _configurations():
    yield from ((n, sa.load(n)) for n in EXAMPLES)
    two_heads_column = {"title": "two heads, causal, column layout", "tokens": ["a", "b", "c"],
                        "inputs": {"X": [["1", "0", "2"], ["0", "1", "1"]],
                                   "Wq": [["1", "0"], ["0", "1"], ["1", "1"], ["2", "0"]],
                                   "Wk": [["0", "1"], ["1", "0"], ["1", "-1"], ["0", "2"]],
                                   "Wv": [["1", "1"], ["0", "1"], ["2", "0"], ["1", "0"]],
                                   "Wo": [["1", "0", "0", "1"], ["0", "1", "1", "0"]], "bq": ["1", "0", "0", "1"]},
                        "convention": {"layout": "column", "heads": 2, "mask": "causal",
                                       "bias": [["0", "0", "-inf"], ["1/2", "0", "0"], ["0", "0", "0"]]}}
    yield "two heads, column", sa.from_dict(two_heads_column)
    base = {"tokens": ["a", "b", "c"], "inputs": {"X": [[1, 0, 2], [0, 1, 1], [1, 1, 0]],
                                                  "Wq": [[1, 0], [0, 1], [1, 1]], "Wk": [[0, 1], [1, 0], [1, -1]],
                                                  "Wv": [[1, 1], [0, 1], [2, 0]], "bk": [1, 2]}}
    for conv in ({"softmax_axis": "queries", "query": "b"}, {"normalization": "sum"},
                 {"mask": "causal", "mask_value": "-3"},
                 {"scale": "0.5", "mask": [[True, False, True], [True, True, False], [False, True, True]]}):
        yield str(conv), sa.from_dict({**base, "convention": conv})
    torch = {k: (v if k in ("X", "bk") else [list(r) for r in zip(*v)]) for k, v in base["inputs"].items()}
    yield "torch", sa.from_dict({"tokens": base["tokens"], "inputs": torch,
                                 "convention": {"layout": "torch", "temperature": 2}})
    yield "cross", sa.from_dict({"tokens": ["q1"], "key_tokens": ["k1", "k2"],
                                 "inputs": {"X": [[1, 2]], "X_kv": [[0, 1], [2, 1]], "Wq": [[1, 0], [0, 1]],
                                            "Wk": [[1, 1], [0, 1]], "Wv": [[2, 0], [1, 1]]}})


def _value(e: sympy.Basic) -> sympy.Basic:
    """A written-out expression with its printed numbers as the exact rationals they print."""
    return e.xreplace({n: sympy.Rational(n.name) for n in e.atoms(Num)})


@pytest.mark.parametrize("label,spec", list(_configurations()), ids=[c[0] for c in _configurations()])
def test_every_written_out_entry_is_the_steps_value(label, spec):
    d = sa.derive(spec)
    steps = list(d.all_steps)
    if "output" in d and spec.convention.normalization == "softmax":
        r, c = d["output"].shape  # an upstream gradient with no pattern, so that no gradient is exactly 0
        steps += sa.grad(d, loss="upstream", upstream=[[(3 * i + 2 * j) % 5 - 2 for j in range(c)]
                                                       for i in range(r)]).all_steps
    for st in steps:
        if st.rule is None or st.symbolic:
            continue
        k = st.flat(*st.example)
        w = worked(st, 30)
        if st.node.is_infinite(k):
            assert text(w.parts[0][1]) == "−∞" and w.note == "masked", (label, st.name)
            continue
        for rel, e in w.parts:
            got = sympy.N(_value(e), 40)
            want = sympy.Float(st.node.decimal(k, 35), 40)  # certified: independent of the rule
            assert abs(got - want) <= sympy.Float("1e-25") * max(1, abs(want)), (label, st.name, text(e))


def test_an_entry_outside_an_operands_shape_is_an_error_not_another_entry():
    """A rule that asks for entry (0, 1) of a 2×1 operand must fail, not read entry (1, 0)."""
    d = sa.derive(sa.load("illustrated_self_attention"))
    at = numbers(d["scores"], 3)
    rows, cols = d["scores"].operands["A"].node.shape
    at("A", rows - 1, cols - 1)  # the last entry is fine
    for bad in ((rows, 0), (0, cols), (-1, 0), (0,)):
        with pytest.raises(IndexError):
            at("A", *bad)


def test_every_entry_of_cross_attention_is_the_steps_value():
    """Every entry (not only the example one) of every forward and gradient step, with fewer
    queries than keys, two heads and tokens as columns: an operand's index mixed up between
    queries and keys shows here (dK once summed over the keys)."""
    t = lambda m: [list(r) for r in zip(*m)]  # noqa: E731 - the column layout's inputs
    inputs = {"X": [[1, 2, 0], [0, 1, 1]], "X_kv": [[0, 1, 1], [2, 1, 0], [1, 0, 1]],
              "Wq": [[1, 0, 1, 0], [0, 1, 0, 1], [1, 1, 0, 0]], "Wk": [[1, 1, 0, 1], [0, 1, 1, 0], [1, 0, 0, 1]],
              "Wv": [[2, 0, 1, 0], [1, 1, 0, 1], [0, 1, 1, 1]], "Wo": [[1, 0, 1], [0, 1, 0], [1, 1, 0], [0, 0, 1]]}
    spec = sa.from_dict({"tokens": ["q1", "q2"], "key_tokens": ["k1", "k2", "k3"],
                         "inputs": {k: t(v) for k, v in inputs.items()},
                         "convention": {"layout": "column", "heads": 2}})
    d = sa.derive(spec)
    g = sa.grad(d, loss="upstream", upstream=[[1, -2], [3, 0], [-1, 2]])
    checked = 0
    for st in list(d.all_steps) + list(g.all_steps):
        if st.rule is None:
            continue
        for idx in itertools.product(*map(range, st.node.shape)):
            w = worked(st, 30, idx=idx)
            want = sympy.Float(st.node.decimal(st.flat(*idx), 35), 40)
            for _, e in w.parts:
                got = sympy.N(_value(e), 40)
                assert abs(got - want) <= sympy.Float("1e-25") * max(1, abs(want)), (st.name, idx, text(e))
            checked += 1
    assert checked > 300


def test_a_negative_number_after_a_minus_sign_is_parenthesized():
    # dS = P∘(dP − D): with D < 0 the written-out entry read "10 − −21" (seen on a grad example)
    from symattn.pipeline import rules as R
    from symattn.pipeline.notation import Num

    e = R.minus(Num("10"), Num("-21.0000"))
    assert text(e) == "10 − (−21.0000)"
    assert latex(e) == r"10 - \left(-21.0000\right)"
    assert text(R.minus(Num("10"), Num("21"))) == "10 − 21"
    assert text(R.plus(Num("-10"), Num("21"))) == "−10 + 21"
