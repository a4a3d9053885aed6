"""`symattn import` reads what a page says about the attention variants of issue 13 (positions,
score forms, ALiBi, grouped-query attention): tables of (what a page writes, the convention it
sets), tables of passing mentions that set nothing, and one page per variant (tests/pages/variants/,
written for these tests with the numbers of a built-in example) that imports to that example's
inputs and conventions, so that `check` on the page gives every printed number the verdict it has
against the built-in example."""

from pathlib import Path

import pytest

import symattn as sa
from import_compare import convention_of, inputs_of, verdicts
from symattn.analyses.importer_variants import variant_evidence
from symattn.read.pages.model import Line, Where

PAGES = Path(__file__).resolve().parent / "pages" / "variants"


def found(*lines: tuple[str, str]) -> dict:
    return {e.key: e.value for e in variant_evidence([Line(t, Where(k + 1), r) for k, (t, r) in enumerate(lines)])}


P, C, M = "prose", "code", "math"

# (lines, the conventions they set)
SETS = [
    # RoPE: its code names the style (rotate_half is the half style, complex pairs the interleaved)
    ([("q, k = apply_rotary_pos_emb(q, k, cos, sin)", C)], {"positions": "rope", "rope_style": "half"}),
    ([("def rotate_half(x):", C), ("    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2 :]", C)],
     {"positions": "rope", "rope_style": "half"}),
    ([("xq_ = torch.view_as_complex(xq.float().reshape(*xq.shape[:-1], -1, 2))", C)],
     {"positions": "rope", "rope_style": "interleaved"}),
    ([("freqs_cis = precompute_freqs_cis(dim, end, theta=500000.0)", C)],
     {"positions": "rope", "rope_style": "interleaved", "rope_base": 500000}),
    ([("config.rope_theta = 500000", C), ("q, k = apply_rotary_pos_emb(q, k, cos, sin)", C)],
     {"positions": "rope", "rope_style": "half", "rope_base": 500000}),
    ([("RoPE (RoFormer) rotates each pair of coordinates by m·θ_i, θ_i = 10000^{-2i/d}.", P)],
     {"positions": "rope", "rope_style": "interleaved", "rope_base": 10000}),
    ([("Rotary embeddings in LLaMA with base 10000:", P), (r"f(q, m) = R_{\Theta, m}^d q", M)],
     {"positions": "rope", "rope_style": "half", "rope_base": 10000}),
    # sinusoidal encodings: a formula or code, and the base it uses
    ([(r"PE_{(pos, 2i)} = \sin(pos / 10000^{2i/d_{model}})", M)],
     {"positions": "sinusoidal", "position_base": 10000}),
    ([("PE(pos, 2i) = sin(pos / 10000^(2i/d))", P)], {"positions": "sinusoidal", "position_base": 10000}),
    ([("P = getPositionEncoding(seq_len=4, d=4, n=100)", C)], {"positions": "sinusoidal", "position_base": 100}),
    ([(r"P(k, 2i) = \sin\left(\frac{k}{n^{2i/d}}\right)", M), ("P = getPositionEncoding(seq_len=4, d=4, n=100)", C)],
     {"positions": "sinusoidal", "position_base": 100}),
    ([("div_term = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))", C)],
     {"positions": "sinusoidal"}),
    # ALiBi
    ([("slopes = torch.tensor(get_slopes(n_heads))", C)], {"alibi": True}),
    ([("ALiBi adds a bias -m·|i - j| to each score.", P)], {"alibi": True}),
    # the score forms
    ([(r"e_{ij} = v_a^\top \tanh(W_a s_{i-1} + U_a h_j)", M)], {"score": "additive"}),
    ([("energy = self.v(torch.tanh(self.W(query) + self.U(keys)))", C)], {"score": "additive"}),
    ([("Bahdanau attention scores with e = va @ tanh(Wa @ q + Ua @ k)", P)], {"score": "additive"}),
    ([(r"\text{score}(h_t, \bar h_s) = h_t^\top W_a \bar h_s", M)], {"score": "general"}),
    ([("Luong's general score multiplies through a matrix.", P)], {"score": "general"}),
    ([("phi = lambda x: F.elu(x) + 1", C)], {"score": "linear", "feature_map": "elu+1"}),
    ([("Linear attention with the feature map φ(x) = elu(x) + 1", P)], {"score": "linear", "feature_map": "elu+1"}),
    # grouped-query and multi-query attention
    ([("num_key_value_heads = 2", C)], {"kv_heads": 2}),
    ([("model = Attention(n_heads=8, n_kv_heads=4)", C)], {"kv_heads": 4}),
    ([("Grouped-query attention: 8 query heads share two key/value heads.", P)], {"kv_heads": 2}),
    ([("In multi-query attention all heads share one key and value.", P)], {"kv_heads": 1}),
    # rivals: the strong evidence that comes first decides
    ([("PE(pos, 2i) = sin(pos / 10000^(2i/d))", P), ("q, k = apply_rotary_pos_emb(q, k, cos, sin)", C)],
     {"positions": "sinusoidal", "position_base": 10000}),
]

# passing mentions: names without a formula, a table's generator or code
NOTHING = [
    [("Each word's vector is a positionally-encoded word-embedding vector.", P)],
    [("e is added with the positional encoding into x.", P)],
    [("Modern models replace sinusoidal encodings with RoPE or ALiBi.", P)],
    [("Unlike linear attention, this is quadratic in the length.", P)],
    [("Bahdanau (2015) introduced attention for translation; we use the dot product.", P)],
    [("# apply_rotary_pos_emb is not used in this notebook", C)],  # a comment is not code
    [("apply_rotary_pos_emb(q, k)", P)],  # a name in prose is not the code calling it
    [("A general attention score table:", P)],
]


@pytest.mark.parametrize("lines,expected", SETS)
def test_a_pages_words_set_the_convention(lines, expected):
    assert found(*lines) == expected


@pytest.mark.parametrize("lines", NOTHING)
def test_a_passing_mention_sets_nothing(lines):
    assert found(*lines) == {}


def test_each_finding_cites_its_line():
    ev = variant_evidence([Line("Nothing here.", Where(1)), Line("num_key_value_heads = 2", Where(9), C)])
    assert [(e.key, e.value, e.where, e.text) for e in ev] == [("kv_heads", 2, "line 9", "num_key_value_heads = 2")]


# page -> the built-in example whose numbers it carries
PAGE_CASES = [
    ("rope.md", "rope_rotary"),
    ("sinusoidal.md", "sinusoidal_positions"),
    ("alibi.md", "alibi_causal"),
    ("bahdanau.md", "bahdanau_additive"),
    ("luong.md", "luong_general"),
    ("linear.md", "linear_causal"),
    ("gqa.md", "gqa_two_groups"),
]


def _import(name):
    return sa.import_page((PAGES / name).read_text(encoding="utf-8"), format="markdown", source=name)


@pytest.mark.parametrize("page,builtin", PAGE_CASES)
def test_a_variant_page_imports_to_its_builtin_example(page, builtin):
    spec, notes = _import(page)
    want = sa.load(builtin)
    assert inputs_of(spec) == inputs_of(want)
    assert convention_of(spec) == convention_of(want)
    # each variant key is stated with the line that says it
    stated = {n.text.split(" = ")[0]: n.where for n in notes.notes if n.kind == "stated"}
    for key in ("positions", "rope_style", "rope_base", "position_base", "alibi", "score", "feature_map", "kv_heads"):
        if key in spec.convention.echo():
            assert stated.get(key, "").startswith("line "), (key, stated)


@pytest.mark.parametrize("page,builtin", PAGE_CASES)
def test_check_on_a_variant_page_gives_the_builtin_examples_verdicts(page, builtin):
    spec, _ = _import(page)
    got = sa.check(spec)
    assert got.claims and all(c.verdict == "correct" for c in got.claims)
    # the same printed numbers judged against the built-in example (an independent derivation)
    want = sa.check(sa.loads(_with_claims(builtin, spec), "builtin.toml"))
    rename = dict(zip(spec.tokens, sa.load(builtin).tokens))
    assert {(s, rename.get(r, r), rename.get(c, c), x, v) for s, r, c, x, v in verdicts(got)} == verdicts(want)


def _with_claims(builtin: str, spec) -> str:
    from symattn.read.spec import example_path

    text = example_path(builtin).read_text(encoding="utf-8")
    tokens = sa.load(builtin).tokens  # the page may name the rows otherwise: the same row by position
    lines = ["", "[claims]"]
    for step, table in spec.claims.items():
        for row, vec in table.items():
            row = tokens[spec.tokens.index(row)]
            lines.append(f'"{step}".{_key(row)} = [{", ".join(str(x) for x in vec)}]')
    return text + "\n".join(lines) + "\n"


def _key(row: str) -> str:
    return row if row.isidentifier() else '"' + row + '"'


@pytest.mark.parametrize("page,keys", [("rope.md", ("positions", "rope_style", "rope_base")),
                                       ("sinusoidal.md", ("positions", "position_base")),
                                       ("alibi.md", ("alibi",)), ("bahdanau.md", ("score",)),
                                       ("gqa.md", ("kv_heads",))])
def test_the_variant_is_what_makes_the_pages_numbers_right(page, keys):
    # the draft without the variant's lines: check finds the page's numbers wrong (or cannot load
    # it, as for GQA's narrower key weights)
    from symattn.views.draft import draft

    ex = sa.import_examples((PAGES / page).read_text(encoding="utf-8"), format="markdown", source=page)[0]
    text = "\n".join(ln for ln in draft(ex, "x.toml").splitlines() if not ln.startswith(tuple(k + " =" for k in keys)))
    try:
        plain = sa.loads(text, "x.toml")
        report = sa.check(plain)
    except sa.SymattnError:
        assert page in ("gqa.md", "bahdanau.md")
        return
    assert any(c.verdict == "wrong" for c in report.claims)


def test_a_page_that_names_bahdanau_without_its_weights_leaves_the_score_out():
    page = ("# Bahdanau attention\n\n$$e_{ij} = v_a^T \\tanh(W_a q_i + U_a k_j)$$\n\n"
            "```python\nQ = [[1, 0], [0, 1]]\nK = [[1, 0], [0, 1]]\nV = [[1, 2], [3, 4]]\n```\n\n"
            "Weights: [[0.7311, 0.2689], [0.2689, 0.7311]]\n")
    spec, notes = sa.import_page(page, format="markdown")
    assert spec.convention.score == "dot"
    assert any(n.kind == "info" and "additive" in n.text and "leaves it out" in n.text for n in notes.notes)


_ROOT = Path(__file__).resolve().parent.parent
_SEEDS = next((p for p in (_ROOT.parent / "shared" / "seeds", _ROOT / "shared" / "seeds") if p.is_dir()), None)


@pytest.mark.skipif(_SEEDS is None, reason="the seed pages (../shared/seeds) are not beside this checkout")
def test_the_seed_that_mentions_positional_encoding_in_passing_gets_no_positions():
    page = (_SEEDS / "004_188c77765dbd8ce2.txt").read_text(encoding="utf-8")
    assert "positional encoding" in page and "positionally-encoded" in page
    from symattn.read.pages import read_page

    assert variant_evidence(read_page(page, "text").lines) == []
    with pytest.raises(sa.SymattnError, match="no worked example"):  # and it has no example to set them on
        sa.import_examples(page, format="text")


def test_a_notebook_with_rotate_half_imports_the_half_style():
    from decimal import Decimal

    # rope_rotary's numbers in the half style (Hugging Face's rotate_half), worked in a notebook
    spec, _ = sa.import_page((PAGES / "rope_half.ipynb").read_text(encoding="utf-8"), format="notebook")
    want = sa.from_dict({**_data("rope_rotary"), "convention": {**_data("rope_rotary")["convention"],
                                                                "rope_style": "half"}}, "half.toml")
    assert inputs_of(spec) == inputs_of(want)
    assert convention_of(spec) == convention_of(want)
    report = sa.check(spec)
    assert len(report.claims) == 15 and all(c.verdict == "correct" for c in report.claims)
    # read in the other style, the same printed weights are wrong
    other = sa.from_dict({**_data("rope_rotary"), "claims": {"weights": {"x": [Decimal("0.4352"), Decimal("0.2271"), Decimal("0.3378")]}}}, "inter.toml")
    assert [c.verdict for c in sa.check(other).claims] == ["wrong"] * 3


def _data(builtin: str) -> dict:
    import tomllib
    from decimal import Decimal

    from symattn.read.spec import example_path

    return tomllib.loads(example_path(builtin).read_text(encoding="utf-8"), parse_float=Decimal)


def test_multi_query_words_on_a_one_head_page_set_nothing():
    page = ("Unlike multi-query attention, each head here has its own keys.\n\n"
            "```python\nQ = [[1, 0], [0, 1]]\nK = [[1, 0], [0, 1]]\nV = [[1, 2], [3, 4]]\n```\n\n"
            "Weights: [[0.7311, 0.2689], [0.2689, 0.7311]]\n")
    spec, _ = sa.import_page(page, format="markdown")
    assert (spec.convention.heads, spec.convention.kv_heads) == (1, None)
    assert [c.verdict for c in sa.check(spec).claims] == ["correct"] * 4  # e/(e + 1) = 0.7311 (4 d.p.)


_QKV = ("```python\nQ = [[1, 0], [0, 1]]\nK = [[1, 0], [0, 1]]\nV = [[1, 2], [3, 4]]\n{extra}```\n\n"
        "Weights: [[0.7311, 0.2689], [0.2689, 0.7311]]\n")
_ADDITIVE = "# Additive attention\n\n$$e_{ij} = v_a^T \\tanh(W_a q_i + U_a k_j)$$\n\n"
_WA, _UA, _VA = "W_a = [[1, 0], [0, 1]]\n", "U_a = [[1, 0], [0, 1]]\n", "v_a = [1, 1]\n"


@pytest.mark.parametrize("head,extra,score,inputs,note", [
    # the page's own words decide; printed weights alone suggest the score they are the inputs of
    ("", _WA, "general", ["Q", "K", "V", "Wa"], 'score = "general": the page prints Wa, the input of the general score'),
    ("", _WA + _UA + _VA, "additive", ["Q", "K", "V", "Wa", "Ua", "va"], "the inputs of the additive score"),
    # U_a without v_a is no score: the draft leaves both weights out and says so
    ("", _WA + _UA, "dot", ["Q", "K", "V"], "Ua is printed (U_a), but the score of this example does not use it"),
    # a page that names the additive score but gives no U_a is not read as another score
    (_ADDITIVE, _WA, "dot", ["Q", "K", "V"], "needs Wa, Ua, va); this draft leaves it out"),
    (_ADDITIVE, _WA + _UA + _VA, "additive", ["Q", "K", "V", "Wa", "Ua", "va"], 'score = "additive": the page says so'),
])
def test_score_weights_and_the_score_they_belong_to(head, extra, score, inputs, note):
    spec, notes = sa.import_page(head + _QKV.format(extra=extra), format="markdown")
    assert spec.convention.score == score
    assert list(spec.inputs) == inputs
    assert any(note in n.text for n in notes.notes), [n.text for n in notes.notes]
