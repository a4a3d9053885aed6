"""The value graph's small query API, and each operation written once (issue 9, item 2).

Every element- or row-wise operation is one formula evaluated on exact SymPy values
(``entry``) and on balls (``ball_mat``); these tests check that the two agree on random
inputs, and that every structural claim (a proven rational, a known row or column sum) is
true of the enclosures.
"""

import inspect
import re
from fractions import Fraction
from pathlib import Path

import sympy
from flint import arb, fmpq
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from symattn.exact import nodes as V
from symattn.exact.certify import to_arb, workprec

SETTINGS = settings(max_examples=60, derandomize=True, deadline=None, database=None,
                    phases=[Phase.explicit, Phase.generate], suppress_health_check=[HealthCheck.too_slow])
PACKAGE = Path(V.__file__).resolve().parent.parent


def test_the_base_node_does_not_test_for_its_subclasses():
    subclasses = set()
    todo = [V.Node]
    while todo:
        for c in todo.pop().__subclasses__():
            subclasses.add(c.__name__)
            todo.append(c)
    source = inspect.getsource(V.Node)
    assert not [name for name in subclasses if re.search(rf"\b{name}\b", source)]
    assert "isinstance(self" not in source


def test_nothing_outside_the_value_graph_tests_for_a_node_class():
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        if path.parent.name == "exact":
            continue
        for n, line in enumerate(path.read_text().splitlines(), 1):
            if re.search(r"isinstance\([^)]*(RationalNode|SympyNode|SoftmaxNode)", line):
                offenders.append(f"{path.relative_to(PACKAGE)}:{n}")
    assert offenders == []


def test_query_api():
    r = V.rational_matrix([[1, Fraction(1, 3)], [Fraction(1, 8), 2]])
    p = V.softmax(r)
    assert r.is_rational_matrix and not p.is_rational_matrix and not V.transpose(p).is_rational_matrix
    assert [r.prints_exactly(k, 6) for k in range(4)] == [True, False, True, True]
    assert r.prints_exactly(2, 3) and not r.prints_exactly(2, 2)  # 0.125 needs 3 digits
    assert not p.prints_exactly(0, 6)
    m = V.masked(r, neg_inf=[(0, 1)])
    assert m.is_infinite(1) and m.prints_exactly(1, 6) and m.infinite_entries() == {(0, 1)}
    assert V.transpose(m).infinite_entries() == {(1, 0)}
    p.name_as("weights", ["a", "b"], ["x", "y"])
    p.name_as("later", ["c", "d"], ["z", "w"])  # the first name stays
    assert p.describe(1) == "weights[a, y]" and p.label == "weights"
    assert V.scale(r, sympy.sqrt(2)).describe(3) == "entry (2, 2) of an intermediate value"
    assert p.row_sum(0) == 1 and V.transpose(p).col_sum(1) == 1 and p.col_sum(0) is None
    assert r.row_sum(0) == Fraction(4, 3) and r.col_sum(1) == Fraction(7, 3)


def _rat_matrix(data, r, c):
    nums = st.fractions(min_value=-5, max_value=5, max_denominator=7)
    return V.rational_matrix([[data.draw(nums) for _ in range(c)] for _ in range(r)])


def _nodes(data):
    """A zoo of non-rational nodes, each built from random rationals."""
    n, m, d = data.draw(st.integers(1, 3)), data.draw(st.integers(2, 3)), data.draw(st.integers(1, 3))
    S = _rat_matrix(data, n, m)
    tau = data.draw(st.sampled_from([1 / sympy.sqrt(2), sympy.Rational(3, 2), sympy.sqrt(3) / 5]))
    scaled = V.scale(S, tau)
    mask = {(i, j) for i in range(n) for j in range(1, m) if data.draw(st.booleans())}
    masked = V.masked(scaled, _rat_matrix(data, n, m), neg_inf=mask, replace={(0, 0): sympy.Rational(-7, 2)})
    P = V.softmax(masked)
    Pq = V.softmax(scaled, "queries")
    Vm = _rat_matrix(data, m, d)
    dP = _rat_matrix(data, n, m)
    dS, D = V.softmax_backward(P, dP)
    dSq, Dq = V.softmax_backward(Pq, dP, "queries")
    O = V.attend(P, Vm)
    nodes = {
        "scale": scaled, "mask": masked, "softmax": P, "softmax over queries": Pq, "attend": O,
        "weighted": V.weighted(P, Vm), "sum": V.normalize(V.masked(V.elementwise("add", scaled, V.ones(n, m)),
                                                                 neg_inf=mask), "sum"),
        "add": V.elementwise("add", P, dP), "sub": V.elementwise("sub", O, _rat_matrix(data, n, 1)),
        "mul": V.elementwise("mul", P, _rat_matrix(data, 1, m)), "dS": dS, "D": D, "dS queries": dSq,
        "D queries": Dq, "row sums": V.row_sums(P), "col sums": V.col_sums(dS), "total": V.total(O),
        "matmul": V.matmul(V.transpose(dS), _rat_matrix(data, n, 2)), "concat": V.concat([O, P]),
        "slice": V.columns(V.concat([O, P]), 1, 2), "rows": V.rows(P, [n - 1]),
        "patch": V.patch(P, {(0, 0): (Fraction(1, 4), Fraction(0))}),
    }
    return nodes


@SETTINGS
@given(st.data())
def test_exact_entries_lie_in_their_balls(data):
    for name, node in _nodes(data).items():
        with workprec(200):
            balls = node.balls(200)
            for k, ball in enumerate(balls):
                idx = node.index(k)
                if node.is_infinite(k):
                    continue
                exact = to_arb(node.entry(*idx), 200)
                assert ball.overlaps(exact), (name, idx, node.entry(*idx), ball)
                q = node.rational(k)
                if q is not None:  # a proven rational is the value
                    assert ball.overlaps(arb(fmpq(q.numerator, q.denominator))), (name, idx, q, ball)
                    assert abs(exact - arb(fmpq(q.numerator, q.denominator))) < arb(2) ** -150, (name, idx, q)


@SETTINGS
@given(st.data())
def test_structural_sums_are_true(data):
    for name, node in _nodes(data).items():
        if len(node.shape) != 2:
            continue
        with workprec(200):
            rows = node.ball_mat(200).tolist()
            for i in range(node.shape[0]):
                s = node.row_sum(i)
                if s is not None and not any(node.is_infinite(node.flat(i, j)) for j in range(node.shape[1])):
                    total = sum(rows[i][1:], rows[i][0])
                    assert total.overlaps(arb(fmpq(s.numerator, s.denominator))), (name, "row", i, s, total)
            for j in range(node.shape[1]):
                s = node.col_sum(j)
                if s is not None and not any(node.is_infinite(node.flat(i, j)) for i in range(node.shape[0])):
                    col = [r[j] for r in rows]
                    total = sum(col[1:], col[0])
                    assert total.overlaps(arb(fmpq(s.numerator, s.denominator))), (name, "col", j, s, total)


def test_the_softmax_backward_formula_is_written_once():
    # one scalar function serves the exact entries and the balls
    src = inspect.getsource(V.SoftmaxBackwardNode)
    assert src.count("_softmax_backward(") == 3 and "* (" not in src  # exact, balls, proven rationals
    P = V.softmax(V.rational_matrix([[0, 1]]))
    dS, D = V.softmax_backward(P, V.rational_matrix([[3, 5]]))
    e = sympy.E
    p0, p1 = 1 / (1 + e), e / (1 + e)
    d = 3 * p0 + 5 * p1
    assert sympy.simplify(dS.entry(0, 0) - p0 * (3 - d)) == 0
    assert sympy.simplify(D.entry(0, 0) - d) == 0
