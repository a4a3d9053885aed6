"""Closed forms of softmax (concrete and symbolic n), each checked by SymPy."""

from __future__ import annotations

from dataclasses import dataclass, field

import sympy

__all__ = ["Fact", "closed_forms"]


# ---------------------------------------------------------------------------------------
# closed forms, for a concrete n or a symbolic n



@dataclass
class Fact:
    """A closed form of softmax, with the SymPy check that establishes it."""

    name: str
    title: str
    latex: str
    text: str
    checked: bool
    how: str
    value: object = field(default=None, repr=False)

    def to_data(self) -> dict:
        return {"name": self.name, "title": self.title, "latex": self.latex, "text": self.text,
                "checked": self.checked, "how": self.how}


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


def closed_forms(n: int | str = 3) -> list[Fact]:
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
    facts = [Fact("softmax", "softmax", r"p_i = \frac{e^{x_i}}{\sum_{j=1}^{%d} e^{x_j}}" % n,
                  f"p_i = exp(x_i) / Σ_j exp(x_j), j = 1..{n}",
                  sympy.simplify(sum(p) - 1) == 0, "the entries sum to 1 (SymPy simplify)", p)]
    m = sympy.Symbol("m", real=True)
    lse = sympy.log(Z)
    shifted = m + sympy.log(sum(sympy.exp(v - m) for v in x))
    facts.append(Fact("logsumexp", "log-sum-exp", r"\operatorname{LSE}(x) = \log \sum_j e^{x_j} = m + \log "
                      r"\sum_j e^{x_j - m}\ \text{for every } m",
                      "LSE(x) = log Σ exp(x_j) = m + log Σ exp(x_j − m) for every m; ∇LSE = softmax",
                      sympy.simplify(sympy.expand_log(sympy.exp(lse) - sympy.exp(shifted), force=True)) == 0
                      and all(sympy.simplify(sympy.diff(lse, v) - pv) == 0 for v, pv in zip(x, p)),
                      "exp of both sides agree; the gradient of LSE is p", lse))
    J = p.jacobian(x)
    closed = sympy.diag(*p) - p * p.T
    facts.append(Fact("jacobian", "Jacobian", r"J = \frac{\partial p}{\partial x} = \operatorname{diag}(p) - p "
                      r"p^{\top},\quad J_{ik} = p_i(\delta_{ik} - p_k)", "J = diag(p) − p·pᵀ",
                      (J - closed).applyfunc(sympy.simplify) == sympy.zeros(n, n),
                      "SymPy's Jacobian of p equals diag(p) − ppᵀ entry by entry", closed))
    a, b = sympy.symbols("a b", real=True)
    sig = 1 / (1 + sympy.exp(-(a - b)))
    facts.append(Fact("sigmoid", "n = 2: the logistic sigmoid of the difference",
                      r"\operatorname{softmax}(a, b)_1 = \sigma(a - b) = \frac{1}{1 + e^{-(a - b)}}",
                      "softmax(a, b)_1 = σ(a − b)",
                      sympy.simplify(sympy.exp(a) / (sympy.exp(a) + sympy.exp(b)) - sig) == 0,
                      "SymPy simplify", sig))
    T = sympy.Symbol("T", positive=True)
    ties = [3, 3, 1][:max(n, 2)] if n <= 3 else [3, 3] + [1] * (n - 2)
    zt = sum(sympy.exp(sympy.Integer(v) / T) for v in ties)
    lim0 = [sympy.limit(sympy.exp(sympy.Integer(v) / T) / zt, T, 0, "+") for v in ties]
    want0 = [sympy.Rational(1, 2) if v == 3 else 0 for v in ties]
    facts.append(Fact("temperature_zero", "T → 0: the argmax, ties shared",
                      r"\lim_{T \to 0^+} \operatorname{softmax}(x / T) = \text{uniform on } \arg\max_j x_j",
                      f"T → 0: uniform on the argmax; for x = {tuple(ties)} the limit is "
                      f"{tuple(str(v) for v in lim0)}", lim0 == want0, "SymPy limit, with a tie", lim0))
    lim_inf = [sympy.limit(pv.subs({v: v / T for v in x}), T, sympy.oo) for pv in p]
    facts.append(Fact("temperature_infinity", "T → ∞: uniform",
                      r"\lim_{T \to \infty} \operatorname{softmax}(x / T) = \tfrac{1}{%d}\mathbf{1}" % n,
                      f"T → ∞: every p_i → 1/{n}", all(v == sympy.Rational(1, n) for v in lim_inf),
                      "SymPy limit with symbolic x", lim_inf))
    c = sympy.Symbol("c", real=True)
    ps = x.applyfunc(lambda v: sympy.exp(v + c) / sum(sympy.exp(w + c) for w in x))
    facts.append(Fact("shift", "shift invariance", r"\operatorname{softmax}(x + c\mathbf{1}) = \operatorname{softmax}(x)",
                      "softmax(x + c) = softmax(x)", (ps - p).applyfunc(sympy.simplify) == sympy.zeros(n, 1),
                      "SymPy simplify with symbolic c", None))
    return facts


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
    return [
        Fact("softmax", "softmax (symbolic n)", r"p_i = \frac{e^{x_i}}{\sum_{j=1}^{n} e^{x_j}}",
             "p_i = exp(x_i) / Σ_{j=1..n} exp(x_j)", sums_to_one,
             "Σ_i p_i = (Σ_i e^{x_i}) / Z = 1, the sum over i of the numerators being Z", p),
        Fact("logsumexp", "log-sum-exp (symbolic n)", r"\operatorname{LSE}(x) = \log \sum_{j=1}^{n} e^{x_j}, "
             r"\quad \frac{\partial\,\operatorname{LSE}}{\partial x_k} = p_k",
             "LSE = log Σ exp(x_j); ∂LSE/∂x_k = p_k", lse_grad, "SymPy diff of the Sum, sifting δ_jk", None),
        Fact("jacobian", "Jacobian (symbolic n)", r"\frac{\partial p_i}{\partial x_k} = p_i(\delta_{ik} - p_k)",
             "∂p_i/∂x_k = p_i (δ_ik − p_k)", jac, "SymPy diff of the Sum, sifting δ_jk", None),
        Fact("shift", "shift invariance (symbolic n)", r"\frac{e^{x_i + c}}{\sum_j e^{x_j + c}} = "
             r"\frac{e^{x_i}}{\sum_j e^{x_j}}", "softmax(x + c) = softmax(x)", shift,
             "e^{c} factors out of every term of the Sum", None),
        Fact("temperature_infinity", "T → ∞ (symbolic n)", r"\lim_{T\to\infty} p_i(x/T) = \frac{1}{n}",
             "T → ∞: p_i → 1/n",
             sympy.limit(sympy.exp(x[i] / T), T, sympy.oo) == 1, "each e^{x_j/T} → 1, so p_i → 1/n", None),
    ]


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
