"""Closed forms of softmax (concrete and symbolic n), each checked by SymPy. Each form is
stated as SymPy expressions (with words between them), printed by the views' printers;
the component function is :class:`~symattn.pipeline.notation.Softmax`, whose ``fdiff``
gives the Jacobian.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import sympy

from ..display import render
from ..pipeline.notation import Chain, Diag, MatrixSoftmax, Ones, Partial, Sigmoid, Softmax, SoftmaxEntry, matrix
from ..pipeline.rules import over, plus, times

__all__ = ["Fact", "ClosedForms", "closed_forms"]


@dataclass
class Fact:
    """A closed form of softmax (a phrase of words and expressions), with the SymPy check
    that establishes it."""

    name: str
    title: str
    statement: list
    checked: bool
    how: str
    value: object = field(default=None, repr=False)


class ClosedForms(list):
    """The closed forms for one size ``n`` (a list of :class:`Fact`), with views."""

    def __init__(self, n: object, facts: list[Fact]) -> None:
        super().__init__(facts)
        self.n = n

    def __str__(self) -> str:
        return render(self, "text") or list.__repr__(self)

    def _repr_markdown_(self) -> str | None:
        return render(self, "markdown")


_i, _j, _k = sympy.symbols("i j k", integer=True, positive=True)
_xb, _pb, _Jb = (sympy.IndexedBase(sympy.Symbol(c)) for c in "xpJ")
_N = sympy.Symbol("n", integer=True, positive=True)


def _sift(expr: sympy.Expr) -> sympy.Expr:
    """Σ_j f(j) δ_{jk} = f(k) for k in range (the sum's index set contains k)."""
    def rule(s: sympy.Sum) -> sympy.Expr:
        (j, lo, hi) = s.limits[0]
        for d in s.function.atoms(sympy.KroneckerDelta):
            other = d.args[1] if d.args[0] == j else d.args[0] if d.args[1] == j else None
            if other is not None:
                return s.function.subs(j, other).subs(d.subs(j, other), 1)
        return s
    return expr.replace(lambda e: isinstance(e, sympy.Sum) and e.function.has(sympy.KroneckerDelta), rule)


def _gsum(f: sympy.Basic) -> sympy.Sum:
    """Σ_j f over a generic range (printed Σ_j)."""
    return sympy.Sum(f, (_j, 1, _N))


def closed_forms(n: int | str = 3) -> ClosedForms:
    """Softmax, log-sum-exp, the Jacobian, the n = 2 sigmoid form, temperature limits and
    shift invariance, each checked by SymPy.

    ``n`` is a size (1..8) or ``"n"`` for a symbolic size (IndexedBase and Sum).

    >>> [f.name for f in closed_forms(3)]
    ['softmax', 'logsumexp', 'jacobian', 'sigmoid', 'temperature_zero', 'temperature_infinity', 'shift']
    >>> all(f.checked for f in closed_forms("n"))
    True
    """
    if n == "n":
        return _symbolic_n()
    if not isinstance(n, int) or not 1 <= n <= 8:
        raise ValueError("n must be a whole number from 1 to 8, or 'n'")
    x = sympy.Matrix(sympy.symbols(f"x_1:{n + 1}", real=True))
    Z = sum(sympy.exp(v) for v in x)
    p = x.applyfunc(lambda v: sympy.exp(v) / Z)  # element-wise, not the matrix exponential
    facts = [Fact("softmax", "softmax",
                  [sympy.Eq(_pb[_i], over(sympy.exp(_xb[_i]), sympy.Sum(sympy.exp(_xb[_j]), (_j, 1, n))),
                            evaluate=False)],
                  sympy.simplify(sum(p) - 1) == 0, "the entries sum to 1 (SymPy simplify)", p)]
    m = sympy.Symbol("m", real=True)
    lse = sympy.log(Z)
    shifted = m + sympy.log(sum(sympy.exp(v - m) for v in x))
    lse_f = sympy.Function("LSE")(sympy.Symbol("x"))
    facts.append(Fact("logsumexp", "log-sum-exp",
                      [Chain(lse_f, sympy.log(_gsum(sympy.exp(_xb[_j]))),
                             plus(m, sympy.log(_gsum(sympy.exp(plus(_xb[_j], times(-1, m))))))),
                       " for every ", m, ", and the gradient of LSE is the softmax"],
                      sympy.simplify(sympy.expand_log(sympy.exp(lse) - sympy.exp(shifted), force=True)) == 0
                      and all(sympy.simplify(sympy.diff(lse, v) - pv) == 0 for v, pv in zip(x, p)),
                      "exp of both sides agree; the gradient of LSE is p", lse))
    J = p.jacobian(x)
    closed = sympy.diag(*p) - p * p.T
    # the Softmax function's own derivative (fdiff) gives the same Jacobian
    fd = sympy.Matrix(n, n, lambda a, b: sympy.diff(Softmax(a + 1, *x), x[b]).rewrite(sympy.exp))
    Jm, pm = matrix("J"), matrix("p")
    facts.append(Fact("jacobian", "Jacobian",
                      [Chain(Jm, Partial(sympy.Symbol("p"), sympy.Symbol("x")),
                             sympy.MatAdd(Diag(pm), -pm * pm.T, evaluate=False)), ", that is ",
                       sympy.Eq(_Jb[_i, _k], times(_pb[_i], plus(sympy.KroneckerDelta(_i, _k), times(-1, _pb[_k]))),
                                evaluate=False)],
                      (J - closed).applyfunc(sympy.simplify) == sympy.zeros(n, n)
                      and (fd - closed).applyfunc(sympy.simplify) == sympy.zeros(n, n),
                      "SymPy's Jacobian of p, and the derivative of the Softmax function, equal diag(p) − ppᵀ "
                      "entry by entry", closed))
    a, b = sympy.symbols("a b", real=True)
    sig = 1 / (1 + sympy.exp(-(a - b)))
    diff_ab = plus(a, times(-1, b))
    facts.append(Fact("sigmoid", "n = 2: the logistic sigmoid of the difference",
                      [Chain(Softmax(1, a, b), Sigmoid(diff_ab),
                             over(1, plus(1, sympy.exp(times(-1, diff_ab), evaluate=False))))],
                      sympy.simplify(sympy.exp(a) / (sympy.exp(a) + sympy.exp(b)) - sig) == 0
                      and sympy.simplify((Softmax(1, a, b) - Sigmoid(a - b)).rewrite(sympy.exp)) == 0,
                      "SymPy simplify", sig))
    T = sympy.Symbol("T", positive=True)
    ties = [3, 3, 1][:max(n, 2)] if n <= 3 else [3, 3] + [1] * (n - 2)
    zt = sum(sympy.exp(sympy.Integer(v) / T) for v in ties)
    lim0 = [sympy.limit(sympy.exp(sympy.Integer(v) / T) / zt, T, 0, "+") for v in ties]
    want0 = [sympy.Rational(1, 2) if v == 3 else 0 for v in ties]
    xs = matrix("x")
    facts.append(Fact("temperature_zero", "T → 0: the argmax, ties shared",
                      [sympy.Limit(MatrixSoftmax(xs / T), T, 0, "+"), " is uniform on the largest entries of x; for ",
                       sympy.Eq(sympy.Symbol("x"), sympy.Tuple(*ties), evaluate=False), " the limit is ",
                       sympy.Tuple(*lim0)], lim0 == want0, "SymPy limit, with a tie", lim0))
    lim_inf = [sympy.limit(pv.subs({v: v / T for v in x}), T, sympy.oo) for pv in p]
    facts.append(Fact("temperature_infinity", "T → ∞: uniform",
                      [sympy.Eq(sympy.Limit(MatrixSoftmax(xs / T), T, sympy.oo), sympy.Rational(1, n) * Ones(),
                                evaluate=False)],
                      all(v == sympy.Rational(1, n) for v in lim_inf), "SymPy limit with symbolic x", lim_inf))
    c = sympy.Symbol("c", real=True)
    ps = x.applyfunc(lambda v: sympy.exp(v + c) / sum(sympy.exp(w + c) for w in x))
    facts.append(Fact("shift", "shift invariance",
                      [sympy.Eq(MatrixSoftmax(sympy.MatAdd(xs, c * Ones(), evaluate=False)), MatrixSoftmax(xs),
                                evaluate=False)],
                      (ps - p).applyfunc(sympy.simplify) == sympy.zeros(n, 1), "SymPy simplify with symbolic c", None))
    return ClosedForms(n, facts)


def _symbolic_n() -> list[Fact]:
    n = sympy.Symbol("n", integer=True, positive=True)
    i, j, k = sympy.symbols("i j k", integer=True, positive=True)
    x = sympy.IndexedBase("x", real=True)
    Z = sympy.Sum(sympy.exp(x[j]), (j, 1, n))
    p = sympy.exp(x[i]) / Z
    pk = sympy.exp(x[k]) / Z
    total = sympy.Sum(p.subs(i, j), (j, 1, n))
    sums_to_one = sympy.simplify(total.doit() * Z / Z - 1) == 0 or sympy.simplify(
        sympy.factor_terms(total) - 1) == 0 or _sum_over_z(p, i, n, Z)
    dp = _sift(sympy.diff(p, x[k]))
    jac = sympy.simplify(dp - p * (sympy.KroneckerDelta(i, k) - pk)) == 0
    lse_grad = sympy.simplify(_sift(sympy.diff(sympy.log(Z), x[k])) - pk) == 0
    c = sympy.Symbol("c", real=True)
    shifted = sympy.exp(x[i] + c) / sympy.Sum(sympy.exp(x[j] + c), (j, 1, n))
    shift = sympy.simplify(sympy.powsimp(sympy.expand(shifted, power_exp=True)) - p) == 0 or _shift_sum(x, i, j, n, c)
    T = sympy.Symbol("T", positive=True)
    lse = sympy.Function("LSE")(sympy.Symbol("x"))
    return ClosedForms("n", [
        Fact("softmax", "softmax (symbolic n)", [sympy.Eq(_pb[i], over(sympy.exp(x[i]), Z), evaluate=False)],
             sums_to_one, "Σ_i p_i = (Σ_i e^(x_i)) / Z = 1, the sum over i of the numerators being Z", p),
        Fact("logsumexp", "log-sum-exp (symbolic n)",
             [sympy.Eq(lse, sympy.log(Z), evaluate=False), " and ",
              sympy.Eq(Partial(lse, x[k]), _pb[k], evaluate=False)],
             lse_grad, "SymPy diff of the Sum, sifting δ_jk", None),
        Fact("jacobian", "Jacobian (symbolic n)",
             [sympy.Eq(Partial(_pb[i], x[k]), times(_pb[i], plus(sympy.KroneckerDelta(i, k), times(-1, _pb[k]))),
                       evaluate=False)],
             jac, "SymPy diff of the Sum, sifting δ_jk", None),
        Fact("shift", "shift invariance (symbolic n)",
             [sympy.Eq(over(sympy.exp(plus(x[i], c)), sympy.Sum(sympy.exp(plus(x[j], c)), (j, 1, n))),
                       over(sympy.exp(x[i]), Z), evaluate=False)],
             shift, "e^c factors out of every term of the Sum", None),
        Fact("temperature_infinity", "T → ∞ (symbolic n)",
             [sympy.Eq(sympy.Limit(SoftmaxEntry(sympy.Symbol("x") / T, i), T, sympy.oo), over(1, n), evaluate=False)],
             sympy.limit(sympy.exp(x[i] / T), T, sympy.oo) == 1, "each e^(x_j/T) → 1, so p_i → 1/n", None),
    ])


def _sum_over_z(p: sympy.Expr, i: sympy.Symbol, n: sympy.Symbol, Z: sympy.Sum) -> bool:
    """Σ_i e^{x_i}/Z = (Σ_i e^{x_i})/Z, and the numerator is Z up to the name of its index."""
    num = sympy.Sum(p * Z, (i, 1, n))
    return bool(num.dummy_eq(Z) or sympy.simplify(num - Z) == 0)


def _shift_sum(x: sympy.IndexedBase, i: sympy.Symbol, j: sympy.Symbol, n: sympy.Symbol, c: sympy.Symbol) -> bool:
    """Σ_j e^{x_j + c} = e^{c} Σ_j e^{x_j}."""
    lhs = sympy.Sum(sympy.exp(x[j] + c), (j, 1, n))
    rhs = sympy.exp(c) * sympy.Sum(sympy.exp(x[j]), (j, 1, n))
    return sympy.simplify(sympy.expand(lhs.expand(power_exp=True), power_exp=True) - rhs) == 0 or \
        sympy.simplify(sympy.Sum(sympy.expand(sympy.exp(x[j] + c), power_exp=True), (j, 1, n)).factor() - rhs) == 0
