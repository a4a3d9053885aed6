"""Score variants (issue 13): Luong's general score, Bahdanau's additive score, linear attention.

Each is checked against an attention written here in mpmath at high precision (sharing no code
with symattn), against exact identities (general with W_a = I is the unscaled dot score; causal
linear attention's recurrent form equals its masked form), and for bad specs (one clear line
naming the field, exit 2)."""

from __future__ import annotations

import subprocess
import sys
from fractions import Fraction

import mpmath
import pytest
import sympy
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

import symattn as sa
from symattn.cli import main
from mp_attention import rounds_correctly

SETTINGS = settings(max_examples=25, derandomize=True, deadline=None, database=None,
                    suppress_health_check=list(HealthCheck), phases=[Phase.generate])
DIGITS = 30


def _toml(inputs: dict, conv: dict, tokens: list | None = None) -> str:
    def val(v):
        if isinstance(v, list):
            return "[" + ", ".join(val(x) for x in v) + "]"
        if isinstance(v, Fraction):
            return f'"{v.numerator}/{v.denominator}"'
        if isinstance(v, str):
            return f'"{v}"'
        return str(v).lower() if isinstance(v, bool) else str(v)
    lines = [f"tokens = {val(tokens)}"] if tokens else []
    lines.append("[inputs]")
    lines += [f"{k} = {val(v)}" for k, v in inputs.items()]
    lines.append("[convention]")
    lines += [f"{k} = {val(v)}" for k, v in conv.items()]
    return "\n".join(lines) + "\n"


def _mp(x) -> mpmath.mpf:
    x = Fraction(x) if not isinstance(x, Fraction) else x
    return mpmath.mpf(x.numerator) / x.denominator


def _mat(m):
    return [[_mp(Fraction(str(x))) for x in r] for r in m]


def _softmax_rows(s):
    out = []
    for r in s:
        m = max(r)
        e = [mpmath.exp(x - m) for x in r]
        t = mpmath.fsum(e)
        out.append([x / t for x in e])
    return out


def _matmul(a, b):
    return [[mpmath.fsum(a[i][t] * b[t][j] for t in range(len(b))) for j in range(len(b[0]))] for i in range(len(a))]


def _check_step(d, name, ref):
    got = d[name].decimals(DIGITS)
    hi = ref(80)
    lo = ref(60)
    with mpmath.workdps(80):
        for i, row in enumerate(got):
            for j, text in enumerate(row):
                assert rounds_correctly(text, hi[i][j], lo[i][j], DIGITS), (name, i, j, text, hi[i][j])


# ---------------------------------------------------------------------------------------
# additive (Bahdanau)


def _mp_additive(Q, K, V, Wa, Ua, va):
    """e_ij = Σ_t va_t tanh((q_i Wa)_t + (k_j Ua)_t) (row layout), softmax, P V: in mpmath."""
    def run(dps):
        with mpmath.workdps(dps):
            q, k, v, wa, ua = (_mat(m) for m in (Q, K, V, Wa, Ua))
            vv = [_mp(Fraction(str(x))) for x in va]
            a, b = _matmul(q, wa), _matmul(k, ua)
            e = [[mpmath.fsum(vv[t] * mpmath.tanh(a[i][t] + b[j][t]) for t in range(len(vv)))
                  for j in range(len(k))] for i in range(len(q))]
            p = _softmax_rows(e)
            return {"energies": e, "weights": p, "output": _matmul(p, v)}
    return run


def test_additive_example_against_mpmath():
    spec = sa.load("bahdanau_additive")
    d = sa.derive(spec)
    ins = spec.raw["inputs"]
    run = _mp_additive(ins["Q"], ins["K"], ins["V"], ins["Wa"], ins["Ua"], ins["va"])
    for name in ("energies", "weights", "output"):
        _check_step(d, name, lambda dps, name=name: run(dps)[name])
    # by hand (the example's header): e[the, the] = tanh(1) + tanh(0) = tanh(1)
    assert d["energies"].exact[0, 0] == sympy.tanh(1)
    assert d["energies"].decimals(6)[0][0] == "0.761594"
    # Bahdanau has no scale: τ = 1 unless the file sets one
    assert d["scaled"].params["tau"] == 1


def test_additive_preactivations_are_the_pair_sums():
    d = sa.derive(sa.load("bahdanau_additive"))
    h = d["preact"].exact
    qa, ka = d["Q_a"].exact, d["K_a"].exact
    for i in range(3):
        for j in range(3):
            for t in range(2):
                assert h[i, j, t] == qa[i, t] + ka[j, t]


@pytest.mark.parametrize("layout", ["column", "torch"])
def test_additive_layouts_give_the_same_energies(layout):
    base = sa.load("bahdanau_additive").raw["inputs"]
    T = lambda m: [list(r) for r in zip(*m)]  # noqa: E731
    ins = {"Q": base["Q"], "K": base["K"], "V": base["V"], "Wa": T(base["Wa"]), "Ua": T(base["Ua"]), "va": base["va"]}
    if layout == "column":
        ins.update(Q=T(base["Q"]), K=T(base["K"]), V=T(base["V"]))
    d = sa.derive(sa.loads(_toml(ins, {"score": "additive", "layout": layout})))
    ref = sa.derive(sa.load("bahdanau_additive"))
    assert d["energies"].exact == ref["energies"].exact
    out = d["output"].exact
    assert (out.T if layout == "column" else out) == ref["output"].exact


def test_additive_with_an_explicit_scale():
    ins = sa.load("bahdanau_additive").raw["inputs"]
    d = sa.derive(sa.loads(_toml(ins, {"score": "additive", "scale": "1/2"})))
    assert d["scaled"].exact == d["energies"].exact / 2


def test_tanh_is_certified_at_many_digits():
    # tanh(1) to 60 digits, against mpmath at 100
    d = sa.derive(sa.load("bahdanau_additive"))
    text = d["energies"].decimals(60)[0][0]
    with mpmath.workdps(100):
        assert rounds_correctly(text, mpmath.tanh(1), mpmath.tanh(1), 60)


# ---------------------------------------------------------------------------------------
# general (Luong)


def test_general_example_against_mpmath():
    spec = sa.load("luong_general")
    d = sa.derive(spec)
    ins = spec.raw["inputs"]

    def run(dps):
        with mpmath.workdps(dps):
            q, k, v, wa = (_mat(m) for m in (ins["Q"], ins["K"], ins["V"], ins["Wa"]))
            s = _matmul(_matmul(q, wa), [list(r) for r in zip(*k)])
            p = _softmax_rows(s)
            return {"scores": s, "weights": p, "output": _matmul(p, v)}
    for name in ("scores", "weights", "output"):
        _check_step(d, name, lambda dps, name=name: run(dps)[name])
    # by hand (the example's header): q_the·W_a = (1, 1/2), scores 1, 1/2, 1/2
    assert d["Q_a"].exact.row(0).tolist() == [[1, sympy.Rational(1, 2)]]
    assert d["scores"].exact.row(0).tolist() == [[1, sympy.Rational(1, 2), sympy.Rational(1, 2)]]


def test_general_keeps_wa_as_written_in_every_layout():
    # qᵀ W_a k: the column layout stores Q, K as columns but W_a as written
    base = sa.load("luong_general").raw["inputs"]
    T = lambda m: [list(r) for r in zip(*m)]  # noqa: E731
    ins = {"Q": T(base["Q"]), "K": T(base["K"]), "V": T(base["V"]), "Wa": base["Wa"]}
    d = sa.derive(sa.loads(_toml(ins, {"score": "general", "layout": "column"})))
    assert d["scores"].exact == sa.derive(sa.load("luong_general"))["scores"].exact


_SMALL = st.sampled_from([Fraction(x) for x in ("0", "1", "-1", "1/2", "-2/3", "3/4", "2", "-3/2")])


def _matrix(n, m):
    return st.lists(st.lists(_SMALL, min_size=m, max_size=m), min_size=n, max_size=n)


@SETTINGS
@given(st.data())
def test_general_with_identity_is_the_unscaled_dot_score(data):
    n, dk = data.draw(st.integers(1, 3)), data.draw(st.integers(1, 3))
    Q, K, V = data.draw(_matrix(n, dk)), data.draw(_matrix(n, dk)), data.draw(_matrix(n, 2))
    eye = [[Fraction(int(i == j)) for j in range(dk)] for i in range(dk)]
    g = sa.derive(sa.loads(_toml({"Q": Q, "K": K, "V": V, "Wa": eye}, {"score": "general"})))
    dot = sa.derive(sa.loads(_toml({"Q": Q, "K": K, "V": V}, {"scale": "none"})))
    assert g["scores"].exact == dot["scores"].exact
    assert g["output"].decimals(20) == dot["output"].decimals(20)


# ---------------------------------------------------------------------------------------
# linear attention


def _elu1(x):
    return x + 1 if x > 0 else mpmath.exp(x)


def _mp_linear(Q, K, V, fm, causal):
    """φ(Q)(φ(K)ᵀV) / φ(Q)(φ(K)ᵀ1) row by row (causal: keys j ≤ i), in mpmath."""
    def run(dps):
        with mpmath.workdps(dps):
            phi = _elu1 if fm == "elu+1" else (lambda x: x)
            q = [[phi(x) for x in r] for r in _mat(Q)]
            k = [[phi(x) for x in r] for r in _mat(K)]
            v = _mat(V)
            out = []
            for i, qi in enumerate(q):
                keys = [j for j in range(len(k)) if not causal or j <= i]
                a = {j: mpmath.fsum(x * y for x, y in zip(qi, k[j])) for j in keys}
                z = mpmath.fsum(a.values())
                out.append([mpmath.fsum(a[j] * v[j][c] for j in keys) / z for c in range(len(v[0]))])
            return {"output": out}
    return run


@pytest.mark.parametrize("fm,causal", [("elu+1", True), ("elu+1", False), ("identity", False)])
def test_linear_against_mpmath(fm, causal):
    ins = sa.load("linear_causal").raw["inputs"]
    Q = ins["Q"] if fm == "elu+1" else [[1, 2], [2, 1], [1, 1]]  # identity: positive normalisers
    K = ins["K"] if fm == "elu+1" else [[1, 0], [0, 1], [1, 1]]
    conv = {"score": "linear", "feature_map": fm} | ({"mask": "causal"} if causal else {})
    d = sa.derive(sa.loads(_toml({"Q": Q, "K": K, "V": ins["V"]}, conv)))
    _check_step(d, "output", lambda dps: _mp_linear(Q, K, ins["V"], fm, causal)(dps)["output"])


def test_linear_example_by_hand():
    d = sa.derive(sa.load("linear_causal"))
    e = sympy.E
    assert d["phiQ"].exact == sympy.Matrix([[2, 1], [1, 1 / e], [2, 2]])  # e^{-1} for the entry −1
    assert d["state"].exact[0, 1, 0] == 2  # S₁ = φ(k₁)v₁ᵀ = [[1, 0], [2, 0]]
    assert d["output"].exact.row(0).tolist() == [[1, 0]]
    # the implicit weights: rows sum to 1, zero above the diagonal
    P = d["weights"].exact
    assert all(P[i, j] == 0 for i in range(3) for j in range(3) if j > i)
    assert all(sympy.simplify(sum(P.row(i)) - 1) == 0 for i in range(3))


def _masked_form(Q, K, V, fm):
    """The masked form written directly in SymPy: (φ(Q)φ(K)ᵀ ∘ M) V / (φ(Q)φ(K)ᵀ ∘ M) 1."""
    def phi(x):
        x = sympy.Rational(x.numerator, x.denominator)
        return (x + 1 if x > 0 else sympy.exp(x)) if fm == "elu+1" else x
    q = sympy.Matrix([[phi(x) for x in r] for r in Q])
    k = sympy.Matrix([[phi(x) for x in r] for r in K])
    a = (q * k.T).applyfunc(lambda x: x)
    n = a.rows
    a = sympy.Matrix(n, n, lambda i, j: a[i, j] if j <= i else 0)
    v = sympy.Matrix([[sympy.Rational(x.numerator, x.denominator) for x in r] for r in V])
    num, den = a * v, a * sympy.ones(n, 1)
    return sympy.Matrix(num.rows, num.cols, lambda i, j: num[i, j] / den[i, 0])


@SETTINGS
@given(st.data())
def test_recurrent_linear_attention_equals_the_masked_form(data):
    n, dk = data.draw(st.integers(1, 4)), data.draw(st.integers(1, 2))
    Q, K, V = data.draw(_matrix(n, dk)), data.draw(_matrix(n, dk)), data.draw(_matrix(n, 1))
    from symattn.exact.zero import is_zero

    d = sa.derive(sa.loads(_toml({"Q": Q, "K": K, "V": V}, {"score": "linear", "mask": "causal"})))
    ref = _masked_form(Q, K, V, "elu+1")
    got = d["output"].exact
    for i in range(n):
        assert is_zero(got[i, 0] - ref[i, 0]), (i, got[i, 0], ref[i, 0])


def test_zero_normaliser_is_an_error_not_digits():
    text = _toml({"Q": [[1, -1], [1, 0]], "K": [[1, 1], [2, 2]], "V": [[1], [2]]},
                 {"score": "linear", "feature_map": "identity"})
    d = sa.derive(sa.loads(text))
    with pytest.raises(sa.UndefinedValueError, match="normaliser.*exactly 0"):
        d["output"].decimals(6)
    with pytest.raises(sa.UndefinedValueError, match="normaliser"):
        d["weights"].decimals(6)
    # the second query (φ(q)·φ(k) = 1, 2; normaliser 3) is fine exactly: (1·1 + 2·2)/3
    assert d["output"].exact[1, 0] == sympy.Rational(5, 3)


def test_zero_normaliser_cli_exits_2(tmp_path, capsys):
    f = tmp_path / "zero.toml"
    f.write_text(_toml({"Q": [[1, -1]], "K": [[1, 1], [2, 2]], "V": [[1], [2]]},
                       {"score": "linear", "feature_map": "identity"}))
    assert main(["derive", str(f)]) == 2
    err = capsys.readouterr().err
    assert "exactly 0" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


# ---------------------------------------------------------------------------------------
# bad specs: one clear line naming the field

_QKV = {"Q": [[1, 0]], "K": [[1, 0], [0, 1]], "V": [[1], [2]]}
_ADD = {**_QKV, "Wa": [[1, 0], [0, 1]], "Ua": [[1, 0], [0, 1]], "va": [1, 1]}

BAD = [
    ({**_QKV}, {"score": "cosine"}, "convention.score", "unknown score"),
    ({**_QKV}, {"score": 3}, "convention.score", "unknown score"),
    ({**_QKV}, {"score": "linear", "feature_map": "relu"}, "convention.feature_map", "unknown feature map"),
    ({**_QKV}, {"score": "linear", "feature_map": "elu"}, "convention.feature_map", "did you mean"),
    ({**_QKV}, {"feature_map": "elu+1"}, "convention.feature_map", "belongs to linear attention"),
    ({**_QKV}, {"score": "linear", "scale": "none"}, "convention.scale", "linear attention has no scale"),
    ({**_QKV}, {"score": "linear", "temperature": 2}, "convention.temperature", "no temperature"),
    ({**_QKV}, {"score": "linear", "mask": "causal_bottom_right"}, "convention.mask", '"none" or "causal"'),
    ({**_QKV}, {"score": "general"}, "inputs.Wa", "missing"),
    ({**_QKV, "Wa": [[1, 0, 0], [0, 1, 0]]}, {"score": "general"}, "inputs.Wa", "must be 2×2"),
    ({**_QKV, "Wa": [[1, 0], [0, 1]]}, {}, "inputs.Wa", "set convention.score"),
    ({k: v for k, v in _ADD.items() if k != "va"}, {"score": "additive"}, "inputs.va", "missing"),
    ({**_ADD, "va": [1, 2, 3]}, {"score": "additive"}, "inputs.va", "expected 2 numbers"),
    ({**_ADD, "Ua": [[1, 0, 0], [0, 1, 0]]}, {"score": "additive"}, "inputs.Ua", "Ua must be"),
    ({**_ADD, "Wa": [[1, 0]]}, {"score": "additive"}, "inputs.Wa", "Wa must be"),
    ({**_ADD, "Ua": [[1, 0], [0, 1]]}, {"score": "general"}, "inputs.Ua", "input of score"),
    ({"scores": [[1, 2]], "V": [[1], [2]]}, {"score": "linear"}, "inputs.scores", "give Q and K"),
    ({**_QKV}, {"score": "linear", "mask": "causal"}, "convention.mask", "as many queries as keys"),
    ({**_QKV}, {"score": "linear", "mask": [[True, False]]}, "convention.mask", '"none" or "causal"'),
    ({"Q": [[1, 0, 1, 0]], "K": [[1, 0, 1, 0]], "V": [[1, 1]], "Wa": [[1, 0], [0, 1]]},
     {"score": "general", "heads": 2}, "convention.heads", "one head"),
]


@pytest.mark.parametrize("inputs,conv,field,msg", BAD)
def test_bad_variant_specs(inputs, conv, field, msg, tmp_path, capsys):
    text = _toml(inputs, conv)
    with pytest.raises(sa.SpecError) as e:
        sa.loads(text, source="bad.toml")
    assert field in str(e.value) and msg in str(e.value), str(e.value)
    f = tmp_path / "bad.toml"
    f.write_text(text)
    assert main(["derive", str(f)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and field in err and "Traceback" not in err


@pytest.mark.parametrize("name", ["luong_general", "bahdanau_additive", "linear_causal"])
def test_examples_run_through_derive_text_and_json(name, capsys):
    assert main(["derive", name]) == 0
    assert main(["derive", name, "--json"]) == 0
    out = capsys.readouterr().out
    assert '"score"' in out


def test_module_runs_as_a_script_without_traceback():
    r = subprocess.run([sys.executable, "-m", "symattn", "derive", "linear_causal"], capture_output=True, text=True)
    assert r.returncode == 0 and "state" in r.stdout


# ---------------------------------------------------------------------------------------
# gradients: verified exactly against SymPy's differentiation of the forward expression


@pytest.mark.parametrize("name,wrt", [("luong_general", ["Q", "K", "Wa"]), ("bahdanau_additive", ["Wa", "va"])])
def test_variant_gradients_verify_exactly(name, wrt):
    from symattn.analyses.verify import verify

    g = sa.grad(sa.derive(sa.load(name)))
    results = verify(g, wrt=wrt, method="exact")
    assert [r.wrt for r in results] == wrt and all(r.ok for r in results), [r.detail for r in results]


def test_additive_gradient_through_tanh_by_hand():
    # one query, one key, d_a = 1: e = v·tanh(a + b) and the softmax of one score is 1, so use
    # two keys; dv = Σ_j dE_j tanh(a + b_j) with dE = dS. Checked against SymPy's diff here.
    x, y = sympy.symbols("x y", real=True)
    text = _toml({"Q": [[1]], "K": [[1], [0]], "V": [[2], [-1]], "Wa": [[Fraction(1, 2)]], "Ua": [[1]],
                  "va": [Fraction(3, 2)]}, {"score": "additive"})
    g = sa.grad(sa.derive(sa.loads(text)))
    e1, e2 = x * sympy.tanh(sympy.Rational(3, 2)), x * sympy.tanh(sympy.Rational(1, 2))  # x = v_a
    L = (2 * sympy.exp(e1) - sympy.exp(e2)) / (sympy.exp(e1) + sympy.exp(e2))
    want = sympy.diff(L, x).subs(x, sympy.Rational(3, 2))
    from symattn.exact.zero import is_zero

    assert is_zero(g["dva"].exact[0, 0] - want)
    del y


@pytest.mark.parametrize("layout", ["column", "torch"])
def test_additive_gradients_in_other_layouts(layout):
    base = sa.load("bahdanau_additive").raw["inputs"]
    T = lambda m: [list(r) for r in zip(*m)]  # noqa: E731
    ins = {"Q": base["Q"], "K": base["K"], "V": base["V"], "Wa": T(base["Wa"]), "Ua": T(base["Ua"]), "va": base["va"]}
    if layout == "column":
        ins.update(Q=T(base["Q"]), K=T(base["K"]), V=T(base["V"]))
    g = sa.grad(sa.derive(sa.loads(_toml(ins, {"score": "additive", "layout": layout}))))
    ref = sa.grad(sa.derive(sa.load("bahdanau_additive")))
    for name in ("dWa", "dUa", "dQ", "dK"):
        got = g[name].decimals(12)
        want = ref[name].decimals(12)
        transposed = name in ("dWa", "dUa") or layout == "column"
        assert got == ([list(r) for r in zip(*want)] if transposed else want), name
    assert g["dva"].decimals(12) == ref["dva"].decimals(12)


@pytest.mark.parametrize("fm,mask", [("elu+1", "causal"), ("elu+1", "none"), ("identity", "none")])
def test_linear_attention_gradients_verify_exactly(fm, mask):
    from symattn.analyses.verify import verify

    Q = [[1, 0], [0, -1], [1, 1]] if fm == "elu+1" else [[1, 2], [2, 1], [1, 1]]
    K = [[0, 1], [1, 0], [-1, 1]] if fm == "elu+1" else [[1, 0], [0, 1], [1, 1]]
    text = _toml({"Q": Q, "K": K, "V": [[1, 0], [0, 1], [1, 1]]}, {"score": "linear", "feature_map": fm, "mask": mask})
    g = sa.grad(sa.derive(sa.loads(text)))
    results = verify(g, method="auto")
    assert {r.wrt for r in results} == {"Q", "K", "V"} and all(r.ok for r in results), [r.detail for r in results]


def test_linear_gradient_by_hand():
    # one query, two keys, identity map, d = 1: o = (q k1 v1 + q k2 v2)/(q k1 + q k2) does not
    # depend on q, so dQ = 0 exactly; dV_j = k_j/(k1 + k2) for the loss Σ O
    text = _toml({"Q": [[2]], "K": [[1], [3]], "V": [[5], [7]]}, {"score": "linear", "feature_map": "identity"})
    g = sa.grad(sa.derive(sa.loads(text)))
    assert g["dQ"].exact == sympy.Matrix([[0]])
    assert g["dV"].exact == sympy.Matrix([[sympy.Rational(1, 4)], [sympy.Rational(3, 4)]])


# ---------------------------------------------------------------------------------------
# check: claims on the new steps, and the convention diagnosis


def test_check_reads_claims_on_the_variant_steps():
    spec = sa.load("bahdanau_additive")
    raw = dict(spec.raw)
    # tanh(1) = 0.761594…, 2·tanh(1/2) = 0.924234…; the third is printed wrong on purpose
    raw["claims"] = {"energies": {"the": ["0.7616", "0", "1.2237"], "cat": ["0.9242", "0", "1.3000"]},
                     "preact": {"the": {"the": [1, 0], "cat": ["0.5", "-0.5"]}}}
    from symattn.read.spec import from_dict

    r = sa.check(from_dict(raw, "claims.toml"))
    verdicts = {(c.step, c.row, c.col, c.index): c.verdict for c in r.claims}
    wrong = [k for k, v in verdicts.items() if v == "wrong"]
    assert wrong == [("energies", "cat", "sat", (1, 2))], verdicts
    assert len(verdicts) == 10 and r.first_wrong_step == "energies"


def test_check_names_the_other_feature_map():
    # numbers printed with the identity map, file says elu+1 (the default)
    ins = {"Q": [[1, 0], [0, -1], [1, 1]], "K": [[0, 1], [1, 0], [-1, 1]], "V": [[1, 0], [0, 1], [1, 1]]}
    text = _toml(ins, {"score": "linear"}, tokens=["a", "b", "c"]) + '[claims.phiQ]\nb = [0, -1]\n'
    r = sa.check(sa.loads(text))
    assert any("identity feature map" in str(x) for x in r.diagnosis), r.diagnosis


# ---------------------------------------------------------------------------------------
# random examples against mpmath (every certified digit)


@SETTINGS
@given(st.data())
def test_random_additive_examples_against_mpmath(data):
    n, m, dk, da = (data.draw(st.integers(1, 3)) for _ in range(4))
    Q, K, V = data.draw(_matrix(n, dk)), data.draw(_matrix(m, dk)), data.draw(_matrix(m, 1))
    Wa, Ua, va = data.draw(_matrix(dk, da)), data.draw(_matrix(dk, da)), data.draw(_matrix(1, da))[0]
    text = _toml({"Q": Q, "K": K, "V": V, "Wa": Wa, "Ua": Ua, "va": va}, {"score": "additive"})
    d = sa.derive(sa.loads(text))
    run = _mp_additive(*[[[str(x) for x in r] for r in M] for M in (Q, K, V, Wa, Ua)], [str(x) for x in va])
    for name in ("energies", "weights", "output"):
        _check_step(d, name, lambda dps, name=name: run(dps)[name])


@SETTINGS
@given(st.data())
def test_random_linear_examples_against_mpmath(data):
    n, dk = data.draw(st.integers(1, 4)), data.draw(st.integers(1, 3))
    causal = data.draw(st.booleans())
    Q, K, V = data.draw(_matrix(n, dk)), data.draw(_matrix(n, dk)), data.draw(_matrix(n, 2))
    conv = {"score": "linear"} | ({"mask": "causal"} if causal else {})
    d = sa.derive(sa.loads(_toml({"Q": Q, "K": K, "V": V}, conv)))
    s = lambda M: [[str(x) for x in r] for r in M]  # noqa: E731
    _check_step(d, "output", lambda dps: _mp_linear(s(Q), s(K), s(V), "elu+1", causal)(dps)["output"])


def test_additive_energy_cancelling_to_zero_is_exact():
    # tanh(1/2) + tanh(−1/2) = 0 exactly: printed 0, not digits of an enclosure around 0
    text = _toml({"Q": [[1]], "K": [[1], [0]], "V": [[1], [2]], "Wa": [[Fraction(1, 2)]], "Ua": [[-1]],
                  "va": [1]}, {"score": "additive"})
    d = sa.derive(sa.loads(text))
    assert d["energies"].exact[0, 0] == -sympy.tanh(sympy.Rational(1, 2))
    text = _toml({"Q": [[1, 1]], "K": [[1, -1]], "V": [[1]], "Wa": [[Fraction(1, 2), 0], [0, Fraction(-1, 2)]],
                  "Ua": [[0, 0], [0, 0]], "va": [1, 1]}, {"score": "additive"})
    d = sa.derive(sa.loads(text))
    assert d["energies"].exact[0, 0] == 0 and d["energies"].decimals(6) == [["0"]]
