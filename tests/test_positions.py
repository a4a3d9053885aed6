"""Positions (issue 13): sinusoidal encodings, RoPE (both styles) and ALiBi against an independent
implementation written here in mpmath (60 digits), properties (RoPE norm and relativity, ALiBi
shift invariance), symbolic positions, gradients verified exactly, and bad specs (one line, exit 2)."""

from __future__ import annotations

import math
import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import mpmath
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

import symattn as sa
from mp_attention import rounds_correctly
from symattn.analyses.verify import verify
from symattn.read.spec import from_dict

ROOT = Path(__file__).resolve().parent.parent
DIGITS = 30


# ---------------------------------------------------------------------------------------
# the independent reference (mpmath; shares no code with symattn)


def mp(x):
    x = Fraction(x) if not isinstance(x, Fraction) else x
    return mpmath.mpf(x.numerator) / x.denominator


def mat(rows):
    return [[mp(Fraction(str(x))) for x in r] for r in rows]


def rope_ref(x, positions, base, style):
    """RoFormer Eq. 34 (interleaved) or Hugging Face's q·cos + rotate_half(q)·sin (half)."""
    d = len(x[0])
    inv = [mpmath.mpf(1) / mpmath.power(base, mpmath.mpf(2 * i) / d) for i in range(d // 2)]
    out = []
    for row, m in zip(x, positions):
        if style == "half":
            cos = [mpmath.cos(m * f) for f in inv] * 2
            sin = [mpmath.sin(m * f) for f in inv] * 2
            half = d // 2
            rot = [-row[i + half] for i in range(half)] + [row[i] for i in range(half)]  # rotate_half
            out.append([row[i] * cos[i] + rot[i] * sin[i] for i in range(d)])
        else:
            cos = [mpmath.cos(m * inv[i // 2]) for i in range(d)]
            sin = [mpmath.sin(m * inv[i // 2]) for i in range(d)]
            rot = []
            for i in range(0, d, 2):
                rot += [-row[i + 1], row[i]]
            out.append([row[i] * cos[i] + rot[i] * sin[i] for i in range(d)])
    return out


def sinusoid_ref(positions, d, base):
    return [[(mpmath.sin if c % 2 == 0 else mpmath.cos)(p / mpmath.power(base, mpmath.mpf(2 * (c // 2)) / d))
             for c in range(d)] for p in positions]


def official_slopes(n):
    """get_slopes(n) as published (ofirpress/attention_with_linear_biases), in floats."""
    def power_of_2(n):
        start = 2 ** (-2 ** -(math.log2(n) - 3))
        return [start * start ** i for i in range(n)]
    if math.log2(n).is_integer():
        return power_of_2(n)
    closest = 2 ** math.floor(math.log2(n))
    return power_of_2(closest) + official_slopes(2 * closest)[0::2][:n - closest]


def attention_ref(q, k, v, scale, bias=None, causal=False):
    out, weights = [], []
    for i, qi in enumerate(q):
        s = [scale * mpmath.fsum(a * b for a, b in zip(qi, kj)) + (bias[i][j] if bias else 0) for j, kj in enumerate(k)]
        allowed = [j for j in range(len(k)) if not causal or j <= i]
        top = max(s[j] for j in allowed)
        e = [mpmath.exp(s[j] - top) if j in allowed else mpmath.mpf(0) for j in range(len(k))]
        z = mpmath.fsum(e)
        p = [x / z for x in e]
        weights.append(p)
        out.append([mpmath.fsum(p[j] * v[j][c] for j in range(len(k))) for c in range(len(v[0]))])
    return weights, out


def matmul(a, b):
    return [[mpmath.fsum(a[i][t] * b[t][j] for t in range(len(b))) for j in range(len(b[0]))] for i in range(len(a))]


def assert_digits(step, ref):
    """Every certified digit of ``step`` against the reference at 60 digits (and at 50, for exact zeros)."""
    texts = step.decimals(DIGITS)
    for i, row in enumerate(texts):
        for j, t in enumerate(row):
            with mpmath.workdps(60):
                hi = ref[i][j]
                assert rounds_correctly(t, hi, hi, DIGITS), (step.name, i, j, t, mpmath.nstr(hi, 40))


# ---------------------------------------------------------------------------------------
# RoPE


Q4 = [["1", "0", "1/2", "-1"], ["0", "2", "1", "0"], ["-3/2", "1", "0", "1/3"]]
K4 = [["1", "1", "0", "0"], ["0", "-1", "1", "2"], ["1/4", "0", "-1", "1"]]
V2 = [["1", "0"], ["0", "1"], ["1", "-1"]]


def rope_spec(style, base=10000, ids=None, q=Q4, k=K4, heads=1, extra=None):
    conv = {"positions": "rope", "rope_style": style, "rope_base": base, "heads": heads, **(extra or {})}
    if ids is not None:
        conv["position_ids"] = ids
    return from_dict({"inputs": {"Q": [[Fraction(x) for x in r] for r in q],
                                 "K": [[Fraction(x) for x in r] for r in k],
                                 "V": [[Fraction(x) for x in r] for r in V2]}, "convention": conv})


@pytest.mark.parametrize("style", ["interleaved", "half"])
@pytest.mark.parametrize("base,ids", [(10000, None), (500, [3, 5, 10]), (10000, [Fraction(1, 2), 7, 100])])
def test_rope_matches_mpmath(style, base, ids):
    d = sa.derive(rope_spec(style, base, ids))
    with mpmath.workdps(60):
        pos = [mp(p) for p in (ids or [0, 1, 2])]
        qr, kr = rope_ref(mat(Q4), pos, mp(base), style), rope_ref(mat(K4), pos, mp(base), style)
        w, o = attention_ref(qr, kr, mat(V2), 1 / mpmath.sqrt(4))
        s = matmul(qr, [list(c) for c in zip(*kr)])
    assert_digits(d["Q_rot"], qr)
    assert_digits(d["K_rot"], kr)
    assert_digits(d["scores"], s)
    assert_digits(d["weights"], w)
    assert_digits(d["output"], o)
    assert d["V"].exact == sympy.Matrix([[1, 0], [0, 1], [1, -1]])  # values are never rotated


def test_rope_styles_differ_and_heads_rotate_separately():
    a, b = sa.derive(rope_spec("interleaved")), sa.derive(rope_spec("half"))
    assert a["scores"].decimals(12) != b["scores"].decimals(12)
    # two heads of width 2: each head rotates its own pair with θ₀ = 1
    d = sa.derive(rope_spec("interleaved", heads=2))
    with mpmath.workdps(60):
        q = mat(Q4)
        ref = rope_ref([r[2:] for r in q], [0, 1, 2], mp(10000), "interleaved")
    assert_digits(d["head2.Q_rot"], ref)


def test_rope_torch_float64():
    torch = pytest.importorskip("torch")

    def rotate_half(x):
        x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
        return torch.cat((-x2, x1), dim=-1)

    def hf_rope(x, pos, base):  # Hugging Face LLaMA: inv_freq, cat(freqs, freqs), rotate_half
        dim = x.shape[-1]
        inv_freq = 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.float64) / dim))
        freqs = torch.outer(pos, inv_freq)
        emb = torch.cat((freqs, freqs), dim=-1)
        return x * emb.cos() + rotate_half(x) * emb.sin()

    def interleaved(x, pos, base):  # RoFormer / Meta LLaMA: complex multiplication of pairs
        dim = x.shape[-1]
        inv_freq = 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.float64) / dim))
        z = torch.view_as_complex(x.reshape(*x.shape[:-1], -1, 2).contiguous())
        return torch.view_as_real(z * torch.polar(torch.ones_like(torch.outer(pos, inv_freq)),
                                                  torch.outer(pos, inv_freq))).flatten(-2)

    q = torch.tensor([[float(Fraction(x)) for x in r] for r in Q4], dtype=torch.float64)
    k = torch.tensor([[float(Fraction(x)) for x in r] for r in K4], dtype=torch.float64)
    v = torch.tensor([[float(Fraction(x)) for x in r] for r in V2], dtype=torch.float64)
    pos = torch.tensor([3.0, 5.0, 10.0], dtype=torch.float64)
    for style, fn in (("half", hf_rope), ("interleaved", interleaved)):
        d = sa.derive(rope_spec(style, 500, [3, 5, 10]))
        qr, kr = fn(q, pos, 500.0), fn(k, pos, 500.0)
        out = torch.nn.functional.scaled_dot_product_attention(qr[None], kr[None], v[None])[0]
        for name, t in (("Q_rot", qr), ("K_rot", kr), ("output", out)):
            got = [[float(x) for x in r] for r in d[name].decimals(20)]
            assert torch.allclose(torch.tensor(got, dtype=torch.float64), t, atol=1e-12, rtol=0), (style, name)


@settings(max_examples=25, deadline=None, derandomize=True)
@given(st.lists(st.integers(-4, 4), min_size=4, max_size=4), st.integers(-50, 50), st.integers(0, 200),
       st.sampled_from(["interleaved", "half"]))
def test_rope_norm_and_relativity(row, m, shift, style):
    """‖R_m x‖ = ‖x‖ (exactly, by balls at 400 bits), and shifting every position changes no score."""
    q = [row, [1, 2, 0, -1], [0, 0, 1, 1]]
    spec = rope_spec(style, 10000, [m, m + 3, m - 7], q=[[str(x) for x in r] for r in q], k=[[str(x) for x in r] for r in q])
    d = sa.derive(spec)
    from symattn.exact.certify import workprec

    qr = d["Q_rot"].node.ball_mat(400)
    with workprec(400):
        for i, r in enumerate(q):
            norm2 = sum(qr[i, c] ** 2 for c in range(4))
            assert norm2.contains(sum(x * x for x in r)) and norm2.rad() < 1e-100
    shifted = sa.derive(rope_spec(style, 10000, [m + shift, m + 3 + shift, m - 7 + shift], q=[[str(x) for x in r] for r in q],
                                  k=[[str(x) for x in r] for r in q]))
    assert shifted["scores"].decimals(25) == d["scores"].decimals(25)


def test_rope_symbolic_positions_depend_on_the_offset_only():
    m, n, t = sympy.symbols("m n t", real=True)
    spec = from_dict({"inputs": {"Q": [[1, 2], [0, 1]], "K": [[3, 1], [1, 1]], "V": [[1], [2]]},
                      "convention": {"positions": "rope", "position_ids": ["m", "n"]}})
    d = sa.derive(spec)
    s = d["scores"].exact
    assert s[0, 0] == 5 and s[1, 1] == 1  # qᵀk at equal positions
    ms, ns = sorted(s.free_symbols, key=str)
    for e in s:
        assert sympy.simplify(e.subs({ms: ms + t, ns: ns + t}, simultaneous=True) - e) == 0
    # (q·k) cos Δ + (q₂k₁ − q₁k₂) sin Δ with Δ = n − m
    assert sympy.simplify(s[0, 1] - (3 * sympy.cos(ns - ms) + (2 * 1 - 1 * 1) * sympy.sin(ns - ms))) == 0


# ---------------------------------------------------------------------------------------
# sinusoidal


X4 = [["1", "0", "1", "0"], ["0", "1", "0", "1"], ["1", "0", "1", "0"]]
W42 = [["1", "0"], ["0", "1"], ["1", "0"], ["0", "1"]]
WK = [["1", "0"], ["0", "1"], ["0", "1"], ["1", "0"]]
WV = [["1", "0"], ["0", "1"], ["1", "1"], ["0", "0"]]


@pytest.mark.parametrize("base,ids,d6", [(10000, None, False), (100, [2, 3, 7], False), (10000, None, True)])
def test_sinusoidal_matches_mpmath(base, ids, d6):
    x = [r + ["1/2", "-1"] for r in X4] if d6 else X4
    wq, wk, wv = ([r for r in m] + ([["1", "1"], ["0", "-1"]] if d6 else []) for m in (W42, WK, WV))
    conv = {"positions": "sinusoidal", "position_base": base}
    if ids:
        conv["position_ids"] = ids
    spec = from_dict({"inputs": {"X": [[Fraction(v) for v in r] for r in x], "Wq": [[Fraction(v) for v in r] for r in wq],
                                 "Wk": [[Fraction(v) for v in r] for r in wk],
                                 "Wv": [[Fraction(v) for v in r] for r in wv]}, "convention": conv})
    d = sa.derive(spec)
    dm = len(x[0])
    with mpmath.workdps(60):
        pe = sinusoid_ref([mp(p) for p in (ids or [0, 1, 2])], dm, mp(base))
        emb = [[a + b for a, b in zip(r, p)] for r, p in zip(mat(x), pe)]
        q, k, v = matmul(emb, mat(wq)), matmul(emb, mat(wk)), matmul(emb, mat(wv))
        w, o = attention_ref(q, k, v, 1 / mpmath.sqrt(2))
    assert_digits(d["pe"], pe)
    assert_digits(d["embedded"], emb)
    assert_digits(d["Q"], q)
    assert_digits(d["weights"], w)
    assert_digits(d["output"], o)


def test_sinusoidal_pe_is_exact_and_transposed_in_the_column_layout():
    d = sa.derive(sa.load("sinusoidal_positions"))
    assert d["pe"].exact.row(1) == sympy.Matrix([[sympy.sin(1), sympy.cos(1), sympy.sin(sympy.Rational(1, 100)),
                                                  sympy.cos(sympy.Rational(1, 100))]])
    col = from_dict({"inputs": {"X": [list(c) for c in zip(*[[Fraction(v) for v in r] for r in X4])],
                                "Wq": [list(c) for c in zip(*[[Fraction(v) for v in r] for r in W42])],
                                "Wk": [list(c) for c in zip(*[[Fraction(v) for v in r] for r in WK])],
                                "Wv": [list(c) for c in zip(*[[Fraction(v) for v in r] for r in WV])]},
                     "convention": {"positions": "sinusoidal", "layout": "column"}})
    c = sa.derive(col)
    row = sa.derive(from_dict({"inputs": {"X": [[Fraction(v) for v in r] for r in X4],
                                          "Wq": [[Fraction(v) for v in r] for r in W42],
                                          "Wk": [[Fraction(v) for v in r] for r in WK],
                                          "Wv": [[Fraction(v) for v in r] for r in WV]},
                               "convention": {"positions": "sinusoidal"}}))
    assert c["pe"].exact == row["pe"].exact.T
    assert c["weights"].decimals(20) == row["weights"].decimals(20)


def test_cross_attention_positions():
    spec = from_dict({"inputs": {"X": [[1, 0], [0, 1]], "X_kv": [[1, 1], [0, 1], [1, 0]],
                                 "Wq": [[1, 0], [0, 1]], "Wk": [[1, 0], [0, 1]], "Wv": [[1, 0], [0, 1]]},
                      "convention": {"positions": "sinusoidal", "position_ids": [5, 6],
                                     "key_position_ids": [0, 1, 2]}})
    d = sa.derive(spec)
    assert d["pe"].exact[0, 0] == sympy.sin(5) and d["pe_kv"].exact[2, 1] == sympy.cos(2)


# ---------------------------------------------------------------------------------------
# ALiBi


QA = [["1", "0", "2", "0"], ["0", "1", "0", "2"], ["1", "1", "1", "1"], ["2", "0", "0", "1"]]
KA = [["1", "0", "1", "0"], ["0", "1", "0", "1"], ["1", "1", "0", "0"], ["0", "0", "1", "1"]]
VA = [["1", "0", "0", "1"], ["0", "1", "1", "0"], ["1", "1", "0", "0"], ["0", "0", "1", "1"]]


def alibi_spec(heads, mask="causal", slopes=None, bias=None, alibi=True):
    conv = {"heads": heads, "mask": mask}
    if alibi:
        conv["alibi"] = True
    if slopes is not None:
        conv["alibi_slopes"] = slopes
    if bias is not None:
        conv["bias"] = bias
    width = 4 if heads != 3 else 3
    cut = lambda m: [[Fraction(x) for x in r[:width]] for r in m]  # noqa: E731
    return from_dict({"inputs": {"Q": cut(QA), "K": cut(KA), "V": cut(VA)}, "convention": conv})


@pytest.mark.parametrize("heads,mask", [(1, "causal"), (2, "causal"), (2, "none"), (4, "causal"), (3, "none")])
def test_alibi_matches_mpmath_and_the_published_slopes(heads, mask):
    d = sa.derive(alibi_spec(heads, mask))
    slopes = official_slopes(heads)
    width = 4 if heads != 3 else 3
    dk = width // heads
    for h in range(heads):
        pre = "" if heads == 1 else f"head{h + 1}."
        m = d[pre + "alibi"].params["slope"]
        assert abs(float(m) - slopes[h]) < 1e-15
        with mpmath.workdps(60):
            cols = slice(h * dk, (h + 1) * dk)
            q, k, v = ([r[cols] for r in mat([r[:width] for r in M])] for M in (QA, KA, VA))
            mm = mpmath.mpf(sympy.Rational(m).p) / sympy.Rational(m).q if m.is_Rational else mpmath.mpf(str(sympy.N(m, 80)))
            bias = [[-mm * abs(i - j) for j in range(4)] for i in range(4)]
            w, o = attention_ref(q, k, v, 1 / mpmath.sqrt(dk), bias, causal=mask == "causal")
        assert_digits(d[pre + "alibi"], bias)
        assert_digits(d[pre + "weights"], w)
        assert_digits(d[pre + "output"], o)


def test_alibi_slopes_for_eight_and_twelve_heads():
    from symattn.pipeline.positions import alibi_slopes

    assert alibi_slopes(8) == [sympy.Rational(1, 2 ** k) for k in range(1, 9)]
    assert [float(m) for m in alibi_slopes(12)] == pytest.approx(official_slopes(12), rel=1e-15)
    assert [round(float(m), 4) for m in alibi_slopes(12)[8:]] == [0.7071, 0.3536, 0.1768, 0.0884]


@settings(max_examples=15, deadline=None, derandomize=True)
@given(st.sampled_from(["1/2", "1/16", "3", "2/7"]))
def test_alibi_equals_the_row_constant_form_on_the_causal_support(slope):
    """softmax(s − m|i − j|) = softmax(s + m·j) for j ≤ i (ALiBi's own implementation trick)."""
    m = Fraction(slope)
    a = sa.derive(alibi_spec(1, "causal", slopes=[slope]))
    row_form = [[str(m * j) for j in range(4)] for _ in range(4)]
    b = sa.derive(alibi_spec(1, "causal", bias=row_form, alibi=False))
    assert a["weights"].decimals(DIGITS) == b["weights"].decimals(DIGITS)
    # without the causal mask the two differ
    c = sa.derive(alibi_spec(1, "none", slopes=[slope]))
    e = sa.derive(alibi_spec(1, "none", bias=row_form, alibi=False))
    assert c["weights"].decimals(DIGITS) != e["weights"].decimals(DIGITS)


def test_symbolic_slope():
    d = sa.derive(from_dict({"inputs": {"Q": [[1], [0]], "K": [[1], [1]], "V": [[1], [0]]},
                             "convention": {"alibi_slopes": ["m"], "scale": "none"}}))
    mm = next(iter(d["biased"].exact.free_symbols))
    assert d["biased"].exact == sympy.Matrix([[1, 1 - mm], [-mm, 0]])


# ---------------------------------------------------------------------------------------
# gradients, views, bad input


@pytest.mark.parametrize("name", ["rope_rotary", "sinusoidal_positions", "alibi_causal"])
def test_gradients_verify_exactly(name):
    g = sa.grad(sa.derive(sa.load(name)))
    results = verify(g, method="exact")
    assert results and all(r.ok for r in results), [(r.wrt, r.detail) for r in results]


def test_rope_gradient_is_the_rotation_transposed():
    g = sa.grad(sa.derive(sa.load("rope_rotary")))
    d = g.forward
    from symattn.exact.certify import workprec

    rot, back = d["Q_rot"].node.ball_mat(300), g["dQ"].node.ball_mat(300)
    # ⟨dQ, Q⟩ = ⟨dQ_rot, Q_rot⟩: the rotation is orthogonal
    q, drot = d["Q"].node.ball_mat(300), g["dQ_rot"].node.ball_mat(300)
    with workprec(300):
        lhs = sum(back[i, c] * q[i, c] for i in range(3) for c in range(4))
        rhs = sum(drot[i, c] * rot[i, c] for i in range(3) for c in range(4))
    assert (lhs - rhs).contains(0) and (lhs - rhs).rad() < 1e-60
    assert "dQ_rot" in g.names and "dX" not in g.names


def test_alibi_adds_nothing_to_dq():
    a = sa.grad(sa.derive(alibi_spec(1, "causal", slopes=["1/2"])))
    assert [s.name for s in a.steps if "alibi" in s.name] == []


def run(*args):
    env = dict(os.environ, PYTHONIOENCODING="utf-8")
    return subprocess.run([sys.executable, "-m", "symattn", *args], capture_output=True, text=True, cwd=ROOT,
                          env=env, timeout=300)


BASE = "[inputs]\nQ = [[1, 0, 1, 0], [0, 1, 0, 1]]\nK = [[1, 0, 0, 1], [0, 1, 1, 0]]\nV = [[1], [2]]\n[convention]\n"
BAD = {
    "odd d": ("[inputs]\nQ = [[1, 0, 1]]\nK = [[1, 0, 0]]\nV = [[1]]\n[convention]\npositions = 'rope'\n",
              "convention.positions", "d_k = 3"),
    "odd d per head": (BASE.replace("V = [[1], [2]]", "V = [[1, 0, 0, 1], [2, 0, 0, 1]]")
                       + "positions = 'rope'\nheads = 4\n", "convention.positions", "d_k = 1"),
    "unknown positions": (BASE + "positions = 'rotary'\n", "convention.positions", "unknown positions"),
    "unknown style": (BASE + "positions = 'rope'\nrope_style = 'neox'\n", "convention.rope_style", "half"),
    "style without rope": (BASE + "rope_style = 'half'\n", "convention.rope_style", 'positions = "rope"'),
    "base without sinusoidal": (BASE + "positions = 'rope'\nposition_base = 100\n", "convention.position_base",
                                "rope_base"),
    "base 1": (BASE + "positions = 'rope'\nrope_base = 1\n", "convention.rope_base", "above 1"),
    "base symbol": (BASE + "positions = 'rope'\nrope_base = 'b'\n", "convention.rope_base", "above 1"),
    "ids length": (BASE + "positions = 'rope'\nposition_ids = [0]\n", "convention.position_ids", "expected 2"),
    "ids not a list": (BASE + "positions = 'rope'\nposition_ids = 3\n", "convention.position_ids", "a list"),
    "id too large": (BASE + "positions = 'rope'\nposition_ids = [0, 2000000]\n", "convention.position_ids[2]",
                     "at most"),
    "ids without positions": (BASE + "position_ids = [0, 1]\n", "convention.position_ids", "applies"),
    "sinusoidal without X": (BASE + "positions = 'sinusoidal'\n", "convention.positions", "give X"),
    "sinusoidal odd width": ("[inputs]\nX = [[1, 0, 1]]\nWq = [[1], [0], [1]]\nWk = [[1], [0], [1]]\n"
                             "Wv = [[1], [0], [1]]\n[convention]\npositions = 'sinusoidal'\n",
                             "convention.positions", "even"),
    "alibi not bool": (BASE + "alibi = 'yes'\n", "convention.alibi", "true or false"),
    "slopes count": (BASE + "alibi_slopes = [0.5, 0.25]\n", "convention.alibi_slopes", "expected 1 slopes"),
    "negative slope": (BASE + "alibi_slopes = [-0.5]\n", "convention.alibi_slopes[1]", "positive"),
    "slopes with alibi false": (BASE + "alibi = false\nalibi_slopes = [0.5]\n", "convention.alibi_slopes",
                                "alibi = false"),
    "rope from scores": ("[inputs]\nscores = [[1, 2]]\nV = [[1], [2]]\n[convention]\npositions = 'rope'\n"
                         "scale = 'none'\n", "convention.positions", "scores"),
    "cross without key ids": ("[inputs]\nQ = [[1, 0]]\nK = [[1, 0], [0, 1]]\nV = [[1], [2]]\n[convention]\n"
                              "positions = 'rope'\nposition_ids = [4]\n", "convention.key_position_ids", "cross"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_position_specs_one_line_exit_2(case, tmp_path):
    content, *expected = BAD[case]
    f = tmp_path / "page.toml"
    f.write_text(content, encoding="utf-8")
    r = run("derive", str(f))
    assert r.returncode == 2, (r.stdout, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in r.stderr, r.stderr
    assert str(f) in lines[0]
    for e in expected:
        assert e in lines[0], lines[0]


def test_position_limit_boundary():
    ok = from_dict({"inputs": {"Q": [[1, 0]], "K": [[1, 0]], "V": [[1]]},
                    "convention": {"positions": "rope", "position_ids": [10 ** 6]}})
    with mpmath.workdps(60):
        assert rounds_correctly(sa.derive(ok)["Q_rot"].decimals(20)[0][0], mpmath.cos(10 ** 6), mpmath.cos(10 ** 6), 20)
    with pytest.raises(sa.SpecError if hasattr(sa, "SpecError") else Exception, match="at most"):
        from_dict({"inputs": {"Q": [[1, 0]], "K": [[1, 0]], "V": [[1]]},
                   "convention": {"positions": "rope", "position_ids": [10 ** 6 + 1]}})


@pytest.mark.parametrize("name", ["rope_rotary", "sinusoidal_positions", "alibi_causal"])
def test_json_echoes_the_position_conventions(name):
    import json

    r = run("derive", name, "--json")
    assert r.returncode == 0, r.stderr
    conv = json.loads(r.stdout)["convention"]
    assert conv.get("positions", "none") in ("rope", "sinusoidal", "none")
    assert ("alibi" in conv) == (name == "alibi_causal")


@pytest.mark.parametrize("name,step,rows,cols", [("sinusoidal_positions", "pe", 3, 4), ("rope_rotary", "Q_rot", 3, 4),
                                                 ("alibi_causal", "alibi", 4, 4)])
def test_heatmaps_of_position_steps(name, step, rows, cols, tmp_path):
    from symattn.views.heatmap import heatmap

    d = sa.derive(sa.load(name).unfocused())
    h = heatmap(d, step)
    p = h.panels[0]
    assert (len(p.rows), len(p.cols)) == (rows, cols)
    first = d[p.step].decimals(3)
    assert [[c.text for c in r] for r in p.cells] == first
    if step == "pe":
        assert "columns: dimensions" in h.caption and p.cells[0][1].text == "1"
    out = tmp_path / "h.svg"
    r = run("plot", name, "--step", step, "-o", str(out))
    assert r.returncode == 0 and out.read_text().startswith("<?xml"), r.stderr


def _page(conv_page: dict, steps: tuple[str, ...], digits: int = 4) -> str:
    """A page written with ``conv_page`` whose file says plain RoPE (interleaved, base 10000, from 0)."""
    inputs = {"Q": [[1, 0, 1, 0], [0, 1, 1, 0], [1, 0, 1, 0]], "K": [[1, 1, 0, 0], [0, 0, 1, 1], [1, 1, 0, 0]],
              "V": [[1, 0], [0, 1], [1, 1]]}
    d = sa.derive(from_dict({"inputs": inputs, "convention": {"positions": "rope", **conv_page}}))
    lines = ['tokens = ["x", "y", "z"]', "[inputs]"] + [f"{k} = {v}" for k, v in inputs.items()]
    lines += ["[convention]", 'positions = "rope"', "[claims]"]
    lines += [f"{s} = {str(d[s].decimals(digits)).replace(chr(39), '')}" for s in steps]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("conv_page,steps,expected", [
    ({"rope_style": "half"}, ("weights", "output"), "the half RoPE style"),
    ({"rope_base": 100}, ("Q_rot", "weights"), "RoPE base 100 instead of 10000"),
    ({"position_ids": [1, 2, 3]}, ("Q_rot", "K_rot"), "positions counted from 1 instead of 0"),
])
def test_check_diagnoses_the_rope_convention(conv_page, steps, expected, tmp_path):
    f = tmp_path / "page.toml"
    f.write_text(_page(conv_page, steps), encoding="utf-8")
    r = run("check", str(f))
    assert r.returncode == 1, r.stderr  # the page disagrees with the file's convention ...
    assert expected in r.stdout  # ... and the diagnosis names the one that explains it


def test_check_accepts_the_right_rope_page(tmp_path):
    f = tmp_path / "page.toml"
    f.write_text(_page({}, ("Q_rot", "K_rot", "scores", "weights", "output")), encoding="utf-8")
    r = run("check", str(f))
    assert r.returncode == 0, r.stdout


def test_irrational_slope_is_exact_and_certified():
    d = sa.derive(alibi_spec(1, "none", slopes=["sqrt(2)/2"]))
    assert d["alibi"].exact[0, 3] == -3 * sympy.sqrt(2) / 2
    with mpmath.workdps(60):
        m = mpmath.sqrt(2) / 2
        bias = [[-m * abs(i - j) for j in range(4)] for i in range(4)]
        w, o = attention_ref(mat(QA), mat(KA), mat(VA), mpmath.mpf(1) / 2, bias)
    assert_digits(d["alibi"], bias)
    assert_digits(d["output"], o)


def test_published_pe_table_verdicts_agree_with_mpmath(tmp_path):
    """The MachineLearningMastery table (base 100, d = 4, 8 decimals): check's verdicts are those of an
    independent recomputation (|printed − mpmath| ≤ half a unit of the last printed digit), and one
    corrupted digit is found."""
    spec = sa.load("pe_table_gentle_intro")
    printed = spec.claims["pe"]
    with mpmath.workdps(40):
        ref = sinusoid_ref([0, 1, 2, 3], 4, mpmath.mpf(100))
        independent = [[abs(mpmath.mpf(str(x)) - ref[i][j]) <= mpmath.mpf("0.5e-8") for j, x in enumerate(r)]
                       for i, r in enumerate(printed)]
    report = sa.check(spec)
    verdicts = {(c.row, c.col): c.ok for c in report.claims}
    assert all(all(r) for r in independent) and all(verdicts.values()) and len(verdicts) == 16
    text = (ROOT / "symattn" / "examples" / "pe_table_gentle_intro.toml").read_text(encoding="utf-8")
    bad = tmp_path / "bad.toml"
    bad.write_text(text.replace("0.19866933", "0.19866993"), encoding="utf-8")
    r = sa.check(sa.load(str(bad)))
    wrong = [c for c in r.claims if not c.ok]
    assert len(wrong) == 1 and wrong[0].index == (2, 2)


@pytest.mark.parametrize("pos", [{"positions": "rope", "rope_style": "half"}, {"positions": "sinusoidal"},
                                 {"alibi": True, "heads": 2}], ids=["rope", "sinusoidal", "alibi"])
def test_every_layout_gives_the_same_attention_and_gradients_check_numerically(pos):
    x = [[1, 0, 1, 0], [0, 1, 0, 1], [1, 1, 0, 0]]
    w = [[1, 0], [0, 1], [1, 0], [0, 1]]
    t = lambda m: [list(c) for c in zip(*m)]  # noqa: E731
    outs = {}
    for lay in ("row", "torch", "column"):
        spec = from_dict({"inputs": {"X": x if lay != "column" else t(x), "Wq": w if lay == "row" else t(w),
                                     "Wk": w if lay == "row" else t(w), "Wv": w if lay == "row" else t(w)},
                          "convention": {"layout": lay, **pos}})
        d = sa.derive(spec)
        o = d["output"].decimals(20)
        outs[lay] = o if lay != "column" else [list(r) for r in zip(*o)]
        results = verify(sa.grad(d), wrt=["X", "Wq", "Q", "K"], method="numeric")
        assert all(r.ok for r in results), [(r.wrt, r.detail) for r in results]
    assert outs["row"] == outs["torch"] == outs["column"]
