"""Gradients, their verification, softmax closed forms and the proved identities."""

import json
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import sympy

import symattn as sa
from symattn.analyses.proofs import IDENTITIES, prove
from symattn.exact.zero import is_zero
from symattn.analyses.softmax_forms import closed_forms
from symattn.analyses.verify import verify

ROOT = Path(__file__).resolve().parent.parent


def run(*args):
    return subprocess.run([sys.executable, "-m", "symattn", *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=600)


def small(seed=1, **conv):
    rng = random.Random(seed)
    m = lambda r, c: [[f"{rng.randint(-9, 9)}/5" for _ in range(c)] for _ in range(r)]  # noqa: E731
    return sa.from_dict({"inputs": {"Q": m(2, 2), "K": m(2, 2), "V": m(2, 2)}, "convention": conv})


def numeric_grad(f, A, h=1e-6):
    G = np.zeros_like(A)
    for idx in np.ndindex(*A.shape):
        Ap, Am = A.copy(), A.copy()
        Ap[idx] += h
        Am[idx] -= h
        G[idx] = (f(Ap) - f(Am)) / (2 * h)
    return G


@pytest.mark.parametrize("rows", ["focus", "all"])
def test_closed_forms_against_finite_differences_in_numpy(rows):
    spec = sa.load("i_love_statistics")  # its focus query is "love" (row 1)
    d = sa.derive(spec if rows == "focus" else spec.unfocused())
    g = sa.grad(d)
    X = np.array([[0.2, 0.5, 0.7], [0.4, 0.8, 0.6], [0.1, 0.6, 0.9]])
    W = {k: np.array(v) for k, v in {"Wq": [[0.1, 0.3], [0.2, 0.4], [0.5, 0.6]], "Wk": [[0.6, 0.2], [0.3, 0.5], [0.7, 0.9]],
                                      "Wv": [[0.5, 0.8], [0.2, 0.3], [0.4, 0.6]]}.items()}

    def loss(X, Wq, Wk, Wv):
        S = (X @ Wq) @ (X @ Wk).T / np.sqrt(2)
        P = np.exp(S - S.max(1, keepdims=True))
        O = P / P.sum(1, keepdims=True) @ (X @ Wv)
        return O[1].sum() if rows == "focus" else O.sum()  # the loss of the output derive shows

    got = lambda name: np.array(g[name].decimals(17), dtype=float)  # noqa: E731
    np.testing.assert_allclose(got("dWq"), numeric_grad(lambda A: loss(X, A, W["Wk"], W["Wv"]), W["Wq"]), atol=1e-8)
    np.testing.assert_allclose(got("dX"), numeric_grad(lambda A: loss(A, W["Wq"], W["Wk"], W["Wv"]), X), atol=1e-8)
    assert g.names[:6] == ["loss", "dO", "dV", "dP", "D", "dS"]


def test_identities_hold_in_the_computed_gradients():
    g = sa.grad(sa.derive(small(seed=4)), loss="upstream", upstream=[["1", "-2"], ["1/3", "5"]])
    # rows of dS sum to 0, and 1ᵀ dK = 0, exactly
    dS, dK = g["dS"].exact, g["dK"].exact
    assert all(is_zero(sum(dS.row(i))) for i in range(dS.rows))
    assert all(is_zero(sum(dK.col(j))) for j in range(dK.cols))
    # D_i = rowsum(dO ∘ O) = rowsum(P ∘ dP)
    P, dP, D = g.forward["weights"].exact, g["dP"].exact, g["D"].exact
    assert all(is_zero(D[i, 0] - sum(P[i, j] * dP[i, j] for j in range(2))) for i in range(2))


def test_masked_entries_get_zero_gradient():
    g = sa.grad(sa.derive(small(seed=2, mask="causal")))
    assert g["dS"].decimals()[0][1] == "0" and g["dP"].exact.shape == (2, 2)


def test_multi_head_gradient_is_the_concatenation_of_heads():
    rng = random.Random(8)
    m = lambda r, c: [[f"{rng.randint(-9, 9)}/10" for _ in range(c)] for _ in range(r)]  # noqa: E731
    Q, K, V = m(3, 4), m(3, 4), m(3, 2)
    g = sa.grad(sa.derive(sa.from_dict({"inputs": {"Q": Q, "K": K, "V": V}, "convention": {"heads": 2}})))
    for h in range(2):
        part = sa.from_dict({"inputs": {"Q": [r[2 * h:2 * h + 2] for r in Q], "K": [r[2 * h:2 * h + 2] for r in K],
                                        "V": [r[h:h + 1] for r in V]}, "convention": {"scale": "1/sqrt(2)"}})
        one = sa.grad(sa.derive(part))
        assert [r[2 * h:2 * h + 2] for r in g["dQ"].decimals(20)] == one["dQ"].decimals(20)


def test_exact_verification_on_a_small_example():
    g = sa.grad(sa.derive(small()))
    results = verify(g, method="exact")
    assert [r.wrt for r in results] == ["Q", "K", "V"] and all(r.ok for r in results)
    assert all(r.method == "exact" and r.entries == 4 for r in results)


def test_exact_verification_catches_a_wrong_closed_form(monkeypatch):
    # break the softmax backward (drop D: dS = P ∘ dP): verification must fail
    G = sys.modules["symattn.pipeline.backward"]  # the module that builds the backward steps
    real = G.V.softmax_backward
    monkeypatch.setattr(G.V, "softmax_backward",
                        lambda p, dp, axis: (G.V.elementwise("mul", p, dp), real(p, dp, axis)[1]))
    # an upstream gradient with arbitrary values, so that D matters
    g = sa.grad(sa.derive(small(seed=3)), loss="upstream", upstream=[["1", "2"], ["-1", "1/2"]])
    assert not all(r.ok for r in verify(g, wrt=["Q"], method="exact"))
    assert not all(r.ok for r in verify(g, wrt=["Q"], method="numeric"))
    monkeypatch.undo()
    g = sa.grad(sa.derive(small(seed=3)), loss="upstream", upstream=[["1", "2"], ["-1", "1/2"]])
    assert all(r.ok for r in verify(g, wrt=["Q"], method="exact"))


def test_exact_verification_with_a_mask_and_a_bias():
    spec = sa.from_dict({"inputs": {"Q": [["1", "2/5"], ["-1/2", "1"]], "K": [["3/5", "-1"], ["1", "1/5"]],
                                    "V": [["1", "-2"], ["1/3", "1"]]},
                         "convention": {"mask": "causal", "bias": [["1/2", "0"], ["-1", "1/4"]]}})
    g = sa.grad(sa.derive(spec), loss="upstream", upstream=[["1", "2"], ["-1", "1/2"]])
    results = verify(g, method="exact")
    assert [r.wrt for r in results] == ["Q", "K", "V"] and all(r.ok for r in results)
    assert g["dS"].decimals()[0][1] == "0"  # masked


def test_softmax_over_queries_with_a_finite_mask_value():
    # D becomes column sums; the replaced (finite-masked) scores pass no gradient to Q and K
    spec = sa.from_dict({"inputs": {"Q": [["1", "2/5"], ["-1/2", "1"], ["1/3", "1"]],
                                    "K": [["3/5", "-1"], ["1", "1/5"], ["0", "1"]],
                                    "V": [["1", "-2"], ["1/3", "1"], ["2", "1/7"]]},
                         "convention": {"softmax_axis": "queries", "mask": "causal", "mask_value": "-3"}})
    g = sa.grad(sa.derive(spec), loss="upstream", upstream=[["1", "2"], ["-1", "1/2"], ["1/5", "3"]])
    assert g["D"].shape == (1, 3)
    assert all(r.ok for r in verify(g, method="auto"))


def test_numeric_verification_with_masks_and_heads():
    rng = random.Random(6)
    m = lambda r, c: [[f"{rng.randint(-9, 9)}/10" for _ in range(c)] for _ in range(r)]  # noqa: E731
    spec = sa.from_dict({"inputs": {"X": m(4, 4), "Wq": m(4, 4), "Wk": m(4, 4), "Wv": m(4, 4), "Wo": m(4, 3)},
                         "convention": {"heads": 2, "mask": "causal"}})
    results = verify(sa.grad(sa.derive(spec)), method="numeric")
    assert {r.wrt for r in results} == {"X", "Wq", "Wk", "Wv", "Wo", "Q", "K", "V"}
    assert all(r.ok for r in results)


def test_exact_verification_past_the_size_limit():
    g = sa.grad(sa.derive(sa.load("fox_jumps")))
    with pytest.raises(sa.LimitError, match="exact verification is limited"):
        verify(g, method="exact")


def _random_qkv(n, d, seed=0):
    rng = random.Random(seed)
    m = lambda r, c: [[f"{rng.randint(-9, 9)}/10" for _ in range(c)] for _ in range(r)]  # noqa: E731
    return sa.from_dict({"inputs": {"Q": m(n, d), "K": m(n, d), "V": m(n, d)}})


def test_exact_verification_at_the_size_limit_and_one_past_it():
    from symattn.analyses.verify import EXACT_MAX_DIM, EXACT_MAX_TOKENS

    assert (EXACT_MAX_TOKENS, EXACT_MAX_DIM) == (4, 4)  # the README's Limits table
    results = verify(sa.grad(sa.derive(_random_qkv(4, 4))), method="exact")
    assert all(r.ok for r in results) and [r.entries for r in results] == [16, 16, 16]
    for n, d in ((5, 4), (4, 5)):
        g = sa.grad(sa.derive(_random_qkv(n, d)))
        with pytest.raises(sa.LimitError, match="4 tokens and matrices 4 wide"):
            verify(g, method="exact")
        assert {r.method for r in verify(g, method="auto")} == {"central differences"}


def test_exact_verification_of_a_multi_head_block_by_reverse_mode():
    # two heads, torch layout, causal mask plus a score bias, projection biases and W_O
    g = sa.grad(sa.derive(sa.load("two_heads_causal")))
    results = verify(g, method="exact")
    assert {r.wrt for r in results} == {"X", "Wq", "Wk", "Wv", "Wo", "bq", "bk", "bv", "bo", "Q", "K", "V"}
    assert all(r.ok and "reverse-mode differentiation" in r.detail for r in results)


def test_exact_verification_of_the_builtin_example_covers_every_input():
    g = sa.grad(sa.derive(sa.load("i_love_statistics")))
    results = verify(g, method="exact")
    assert [(r.wrt, r.entries) for r in results] == [("X", 9), ("Wq", 6), ("Wk", 6), ("Wv", 6), ("Q", 6), ("K", 6),
                                                     ("V", 6)]
    assert all(r.ok and "is proved 0 for every entry" in r.detail for r in results)


def test_exact_field_proves_zero_and_refuses_what_it_cannot_hold():
    from symattn.analyses.adjoint import Adjoint, Unsupported

    x, y = sympy.symbols("x y")
    at = {x: sympy.Rational(3, 10), y: sympy.Rational(-7, 5)}
    f = sympy.exp(x * y) / (sympy.exp(x) + sympy.exp(y) + sympy.exp(-x * sympy.sqrt(2) / 2))
    field = Adjoint([f], at)
    grad = field.gradient(f, [x, y])
    for s in (x, y):  # against SymPy's own derivative, written in other (unshifted) atoms
        want = sympy.diff(f, s).xreplace(at)
        assert field.is_zero(field.sub(field.value(want), grad[s]))
        assert not field.is_zero(field.sub(field.value(want + sympy.exp(x).xreplace(at) / 10**6), grad[s]))
    with pytest.raises(Unsupported):
        Adjoint([sympy.Float(0.5) * x], at)
    with pytest.raises(Unsupported):
        Adjoint([sympy.sqrt(x)], at)


# -- softmax closed forms and proofs ---------------------------------------------------------------

@pytest.mark.parametrize("n", [1, 2, 3, 4, "n"])
def test_softmax_closed_forms_are_checked(n):
    facts = closed_forms(n)
    assert facts and all(f.checked for f in facts), [f.name for f in facts if not f.checked]


def test_softmax_jacobian_value_is_the_closed_form():
    J = next(f for f in closed_forms(2) if f.name == "jacobian").value
    x1, x2 = sympy.symbols("x_1 x_2", real=True)
    p1 = sympy.exp(x1) / (sympy.exp(x1) + sympy.exp(x2))
    assert sympy.simplify(J[0, 0] - p1 * (1 - p1)) == 0 and sympy.simplify(J[0, 1] + p1 * (1 - p1)) == 0


def test_temperature_zero_shares_ties():
    lim = next(f for f in closed_forms(3) if f.name == "temperature_zero").value
    assert lim == [sympy.Rational(1, 2), sympy.Rational(1, 2), 0]


@pytest.mark.parametrize("name", sorted(IDENTITIES))
def test_every_identity_is_proved(name):
    p = prove(name)
    assert p.holds, [c for c in p.checks if not c[1]]
    assert "∎" in sa.text(p) and r"\blacksquare" in sa.latex(p)


def test_is_zero_can_fail():
    a, b = sympy.symbols("a b", real=True)
    assert is_zero(sympy.exp(a + b) - sympy.exp(a) * sympy.exp(b))
    assert not is_zero(sympy.exp(a) / (sympy.exp(a) + sympy.exp(b)) - sympy.Rational(1, 2))


# -- the command -----------------------------------------------------------------------------------

def test_grad_command(tmp_path):
    r = run("grad", "examples/i_love_statistics.toml", "--loss", "sum", "--wrt", "Q,K,V,Wq", "--digits", "20",
            "--json")
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert [s["name"] for s in data["steps"]] == ["loss", "dO", "dV", "dQ", "dK", "dWq"]
    assert data["convention"]["loss"] == "sum"
    up = tmp_path / "dO.toml"
    up.write_text("dO = [[1, 0]]\n")  # the focus row's output, as derive shows it
    r = run("grad", "i_love_statistics", "--upstream", str(up), "--verify", "numeric", "--wrt", "V")
    assert r.returncode == 0 and "✓ ∂L/∂V (step dV)" in r.stdout, r.stdout + r.stderr
    assert "the loss of the focus row love" in r.stdout
    up.write_text("dO = [[1, 0], [0, 1], [1, 1]]\n")
    r = run("grad", "i_love_statistics", "--upstream", str(up), "--all-rows", "--verify", "numeric", "--wrt", "V")
    assert r.returncode == 0 and "✓ ∂L/∂V (step dV)" in r.stdout, r.stdout + r.stderr
    r = run("grad", "i_love_statistics", "--latex", "--wrt", "Q")
    assert r.returncode == 0 and r.stdout.startswith(r"\documentclass") and r"dQ &= \tau dS\, K" in r.stdout


@pytest.mark.parametrize("args,message", [
    (["grad", "--loss", "l1"], "invalid choice"),
    (["grad", "--wrt", "Wqq"], "did you mean 'Wq'"),
    (["grad", "--loss", "mse"], "needs a target"),
    (["grad", "fox_jumps", "--verify", "exact"], "exact verification is limited"),
])
def test_grad_bad_input(args, message):
    r = run(*args)
    assert r.returncode == 2 and message in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_upstream_of_the_wrong_shape(tmp_path):
    up = tmp_path / "dO.toml"
    up.write_text("dO = [[1, 0], [0, 1], [1, 1]]\n")
    r = run("grad", "i_love_statistics", "--upstream", str(up))  # focus query love: one row
    assert r.returncode == 2 and "expected a 1×2 matrix (the shape of the output O as derive shows it)" in r.stderr
    up.write_text("dO = [[1, 0]]\n")
    r = run("grad", "i_love_statistics", "--upstream", str(up), "--all-rows")
    assert r.returncode == 2 and "expected a 3×2 matrix" in r.stderr


def test_softmax_and_prove_commands():
    r = run("softmax", "n", "--json")
    assert r.returncode == 0 and all(f["checked"] for f in json.loads(r.stdout)["facts"])
    r = run("softmax", "9")
    assert r.returncode == 2
    r = run("prove", "online-softmax")
    assert r.returncode == 0 and "∎" in r.stdout
    r = run("prove", "--list")
    assert r.returncode == 0 and "block-merge" in r.stdout
    r = run("prove", "onlinesoftmax")
    assert r.returncode == 2 and "did you mean 'online-softmax'" in r.stderr
