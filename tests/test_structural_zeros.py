"""Exact zeros in gradients (issue 8, item 9), proved from the structure of the value graph.

Softmax is shift invariant along keys, so each row of dS sums to 0 (dS is built with its own
D = rowsum(P ∘ dP)); then 1ᵀ·dK = τ·(dS·1)ᵀ·Q = 0, and the key-bias gradient db_k is exactly
0. Such zeros are read off the structure (row and column sums pushed through products,
transposes, scalings and concatenations), never searched for by raising the precision.
"""

import json

import pytest
import sympy

import symattn as sa
from symattn.cli import main
from symattn.errors import CertificationError
from symattn.exact import nodes as V
from symattn.exact import zero as Z
from symattn.pipeline.backward import WRT

EXAMPLES = [name for name, _ in sa.list_examples()]


@pytest.mark.parametrize("name", EXAMPLES)
def test_grad_runs_on_every_builtin_example_with_every_wrt_name(name, capsys):
    d = sa.derive(sa.load(name))
    names = sa.grad(d).names
    ran = 0
    for w, step in WRT.items():
        code = main(["grad", name, "--wrt", w])
        out, err = capsys.readouterr()
        if step in names:
            assert code == 0, (w, err)
            assert f"── {step}:" in out
            ran += 1
        else:  # not a gradient of this example: one clear line, exit 2
            assert code == 2 and err.count("\n") == 1 and "no gradient with respect to" in err, (w, err)
    assert ran >= 4
    for fmt in ("--json", "--latex"):
        assert main(["grad", name, fmt]) == 0, capsys.readouterr()[1]
        capsys.readouterr()


def test_key_bias_gradient_of_two_heads_causal_is_exactly_zero(monkeypatch):
    # the reproducer: `symattn grad two_heads_causal` exited 2 on dbk
    g = sa.grad(sa.derive(sa.load("two_heads_causal")))
    # no symbolic zero test is needed: the structure proves it
    monkeypatch.setattr(Z, "is_zero", lambda e: False)
    monkeypatch.setattr(V, "is_zero", lambda e: False)
    node = g["dbk"].node
    assert all(node.rational(k) == 0 for k in range(node.size))
    assert g["dbk"].decimals(6) == [["0"] * node.size]
    # and it is 0, not a rounded tiny value: the sum of each dK column, by exact SymPy
    dk = g["dK"].exact
    for j in range(dk.cols):
        assert sympy.simplify(sum(dk.col(j))) == 0


@pytest.mark.parametrize("axis", ["keys", "queries"])
def test_softmax_backward_rows_or_columns_sum_to_zero(axis):
    S = V.rational_matrix([[0, 1, 3], [2, -1, 1], [1, 1, 1]])
    P = V.softmax(S, axis)
    dP = V.rational_matrix([[3, 5, -1], [2, 0, 7], [1, 4, 2]])
    dS, D = V.softmax_backward(P, dP, axis)
    sums = V.row_sums(dS) if axis == "keys" else V.col_sums(dS)
    assert [sums.rational(k) for k in range(3)] == [0, 0, 0]
    assert sums.decimals(6) in ([["0"], ["0"], ["0"]], [["0", "0", "0"]])
    # the other direction is not zero, and is not claimed to be
    other = V.col_sums(dS) if axis == "keys" else V.row_sums(dS)
    assert all(other.rational(k) is None for k in range(3))
    # 1ᵀ·(dSᵀ·Q) = (dS·1)ᵀ·Q = 0 (keys), and 1ᵀ·(dS·K) = 0 (queries)
    Q = V.rational_matrix([[1, 2], [3, -1], [0, 5]])
    prod = V.matmul(V.transpose(dS), Q) if axis == "keys" else V.matmul(dS, Q)
    cs = V.col_sums(V.scale(prod, 1 / sympy.sqrt(2)))
    assert [cs.rational(k) for k in range(2)] == [0, 0]
    # checked against the exact closed form
    assert all(sympy.simplify(x) == 0 for x in cs.exact())


def test_a_row_with_one_unmasked_key_has_zero_gradient():
    # causal row 1 sees one key: p = 1, so dS = 1·(dP − dP) = 0 and dQ's row is 0
    P = V.softmax(V.masked(V.rational_matrix([[1, 2], [3, 4]]), neg_inf=[(0, 1)]))
    dP = V.matmul(V.rational_matrix([[1], [1]]), V.rational_matrix([[2, -3]]))
    dS, _ = V.softmax_backward(P, dP)
    dQ = V.matmul(dS, V.rational_matrix([[1], [2]]))
    assert [dS.rational(k) for k in (0, 1)] == [0, 0] and dQ.rational(0) == 0
    assert dQ.decimals(6)[0] == ["0"]


def test_a_zero_that_cannot_be_proved_names_its_step_and_entry():
    # log 6 − log 2 − log 3 is 0, but not a closed form in exponentials: an error, not a guess
    n = V.SympyNode(sympy.Matrix([[1, sympy.log(6) - sympy.log(2) - sympy.log(3)]]))
    n.name_as("dbk", ["1"], ["a", "b"])
    with pytest.raises(CertificationError, match=r"dbk\[1, b\].*may be exactly 0"):
        n.decimals(6)


def test_grad_json_of_two_heads_causal_prints_the_zero_bias_gradient(capsys):
    assert main(["grad", "two_heads_causal", "--json", "--wrt", "bk"]) == 0
    data = json.loads(capsys.readouterr()[0])
    step = next(s for s in data["steps"] if s["name"] == "dbk")
    assert step["decimal"] == [["0", "0", "0", "0"]]
