"""Verification of the closed-form gradients.

* **exact** (small sizes): the entries of one input become symbols; the forward loss
  is expanded symbolically and differentiated element by element with SymPy; the
  closed-form gradient of the same example must equal it exactly at the example's
  values: their difference, with each exponential an independent atom, cancels to 0.
* **central differences** (any size): (L(x + h) − L(x − h)) / 2h in ball arithmetic at
  high precision (h = 2⁻⁸⁰), against the closed form's value, for a sample of entries.

>>> import symattn as sa
>>> g = sa.grad(sa.derive(sa.load("illustrated_self_attention")))
>>> [r.ok for r in verify(g, wrt=["V"], method="exact")]
[True]
"""

from __future__ import annotations

import dataclasses
import random
from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence

import sympy
from flint import arb, fmpq

from ..errors import LimitError, OptionError, SymattnError
from ..exact import nodes as V
from ..exact.certify import workprec
from ..exact.zero import is_zero
from ..pipeline.backward import WRT, Gradient, grad
from ..pipeline.forward import derive
from ..read.numbers import symbol
from ..read.spec import Spec
from .adjoint import Adjoint, Unsupported

__all__ = ["verify", "Verification", "EXACT_MAX_TOKENS", "EXACT_MAX_DIM"]

#: exact (symbolic) verification up to this many tokens (queries and keys) ...
EXACT_MAX_TOKENS = 4
#: ... and this width of any matrix
EXACT_MAX_DIM = 4
#: entries checked by central differences per gradient
SAMPLE = 12


@dataclass
class Verification:
    """One gradient checked one way."""

    wrt: str
    step: str
    method: str  # "exact" or "central differences"
    ok: bool
    entries: int
    detail: str


def _inputs_for(g: Gradient, wrt: Sequence[str] | None) -> list[str]:
    names = [s.name for s in g.all_steps]
    inputs = g.spec.inputs
    cands = [w for w in ("Q", "K", "V", "scores", "X", "X_kv", "Wq", "Wk", "Wv", "Wo", "bq", "bk", "bv", "bo",
                         "Wa", "Ua", "va")
             if (w in inputs or w in ("Q", "K", "V")) and WRT[w] in names]
    if wrt:
        bad = [w for w in wrt if w not in cands]
        if bad:
            raise OptionError("verify", f"cannot check the gradient with respect to {bad[0]!r} "
                               f"(inputs of this example: {', '.join(cands)})")
        return list(wrt)
    return cands


def _symbolic_spec(spec: Spec, name: str) -> tuple[Spec, list[list[sympy.Symbol]]]:
    """The same example with every entry of input ``name`` a symbol (the others as given)."""
    m = spec.inputs[name]
    base = name.lower().replace("_", "")
    syms = [[symbol(f"{base}_{i + 1}{j + 1}") for j in range(len(m[0]))] for i in range(len(m))]
    sym_spec = dataclasses.replace(spec.unfocused(), inputs={**spec.inputs, name: syms}, symbolic=True)
    return sym_spec, syms


def _loss_node(g: Gradient, d) -> V.Node:  # noqa: ANN001
    """The loss of a (possibly symbolic) forward derivation, as the gradient defines it."""
    return g.loss_of(d["output"].value)


def _exact(g: Gradient, names: list[str]) -> list[Verification]:
    spec = g.spec
    if not exact_size_ok(spec):
        raise LimitError(f"exact verification is limited to {EXACT_MAX_TOKENS} tokens and matrices "
                         f"{EXACT_MAX_DIM} wide; use --verify numeric")
    out = []
    for name in names:
        sym_spec, syms = _symbolic_spec(spec, name)
        L = _loss_node(g, derive(sym_spec)).entry(0, 0)
        step = WRT[name]
        closed = g[step].node.build()  # the closed forms being checked, at the example's values
        values = {s: sympy.Rational(x.numerator, x.denominator) if isinstance(x, Fraction) else x
                  for r, vr in zip(syms, spec.inputs[name]) for s, x in zip(r, vr)}
        flat = [(i, j, s) for i, row in enumerate(syms) for j, s in enumerate(row)]
        try:
            field = Adjoint([L, *closed], values)
            derivative = field.gradient(L, [s for _, _, s in flat])
            bad = sum(not field.is_zero(field.sub(field.value(closed[i, j]), derivative[s])) for i, j, s in flat)
            how = "reverse-mode differentiation of the forward expression, exact at the example's values"
        except Unsupported:  # something the exact field does not hold: differentiate with SymPy
            bad = sum(not is_zero((closed[i, j] - sympy.diff(L, s)).xreplace(values)) for i, j, s in flat)
            how = "SymPy differentiation of the forward expression"
        out.append(Verification(name, step, "exact", bad == 0, len(flat),
                                f"closed form − ∂L/∂{name} ({how}) is proved 0 for every entry"
                                if bad == 0 else f"{bad} of {len(flat)} entries differ"))
    return out


def exact_size_ok(spec: Spec) -> bool:
    """Whether an example is small enough for exact verification (:data:`EXACT_MAX_TOKENS`,
    :data:`EXACT_MAX_DIM`)."""
    return spec.n_queries <= EXACT_MAX_TOKENS and spec.n_keys <= EXACT_MAX_TOKENS and all(
        len(m[0]) <= EXACT_MAX_DIM and len(m) <= max(EXACT_MAX_DIM, EXACT_MAX_TOKENS) for m in spec.inputs.values())


def _close(a: str, b: str) -> bool:
    x, y = sympy.Float(a, 40), sympy.Float(b, 40)
    return abs(x - y) <= abs(y) * sympy.Float("1e-28") + sympy.Float("1e-32")


def _central(g: Gradient, names: list[str], prec: int = 400) -> list[Verification]:
    spec = g.spec
    base = spec.unfocused()
    h = Fraction(1, 2**80)
    rng = random.Random(0)
    out = []
    # elu + 1 (linear attention) is C¹ but its second derivative jumps at 0: where a feature's
    # argument is exactly 0, central differences are accurate to O(h) only, not O(h²)
    kink = spec.convention.score == "linear" and spec.convention.feature_map == "elu+1"
    tol, note = (arb("1e-20"), "; tolerance 1e-20: φ = elu + 1 has a kink in φ′′ at 0") if kink else (arb("1e-40"), "")
    for name in names:
        m = spec.inputs[name]
        cells = [(i, j) for i in range(len(m)) for j in range(len(m[0]))]
        sample = cells if len(cells) <= SAMPLE else sorted(rng.sample(cells, SAMPLE))
        step = g[WRT[name]]
        worst = 0.0
        ok = True
        for i, j in sample:
            x = m[i][j]
            # a rational, or an exact closed form without symbols (Q from X + PE), moved by ±h exactly
            if not isinstance(x, Fraction) and (not isinstance(x, sympy.Expr) or x.free_symbols):
                raise SymattnError("central differences need numeric inputs")
            step_h = h if isinstance(x, Fraction) else sympy.Rational(h.numerator, h.denominator)
            losses = []
            for sign in (1, -1):
                new = [list(r) for r in m]
                new[i][j] = x + sign * step_h
                d = derive(dataclasses.replace(base, inputs={**spec.inputs, name: new}))
                losses.append(_loss_node(g, d).balls(prec)[0])
            with workprec(prec):
                fd = (losses[0] - losses[1]) / (2 * arb(fmpq(h.numerator, h.denominator)))
                cf = step.node.balls(prec)[i * step.shape[1] + j]
                err = abs(fd - cf)
                scale = max(abs(cf).upper(), arb(1))
                rel = err.upper() / scale
            worst = max(worst, float(rel))
            if not rel < tol:
                ok = False
        out.append(Verification(name, step.name, "central differences", ok, len(sample),
                                f"h = 2^-80 at {prec} bits; worst |difference| / max(1, |gradient|) = {worst:.1e}"
                                + note))
    return out


def _exact_entry(node: V.Node, i: int, j: int) -> Fraction | sympy.Expr:
    """An entry as an example file holds it: a Fraction when it is rational, else its exact value."""
    q = node.rational(node.flat(i, j))
    return q if q is not None else node.entry(i, j)


def _core(g: Gradient) -> Gradient:
    """The same attention started from its exact Q, K, V: to check dQ, dK, dV of an example
    that starts from X."""
    spec, fwd = g.spec, g.forward
    inputs = {}
    for name in ("Q", "K", "V"):
        node = fwd[name].node  # as the file would hold it (in its layout)
        if not node.is_rational_matrix and node.symbolic:
            raise SymattnError(f"cannot check d{name}: {name} has symbols")
        inputs[name] = [[_exact_entry(node, i, j) for j in range(node.shape[1])] for i in range(node.shape[0])]
    for name in ("Wo", "bo"):
        if name in spec.inputs:
            inputs[name] = spec.inputs[name]
    core = dataclasses.replace(spec, inputs=inputs, stage="qkv",
                               input_ulps={k: [[None] * len(r) for r in m] for k, m in inputs.items()})
    return grad(derive(core), loss=g.loss, upstream=g.upstream, target=g.target, focus=g.focus)


def verify(g: Gradient, wrt: Sequence[str] | None = None, method: str = "auto") -> list[Verification]:
    """Check the closed-form gradients: ``exact`` (symbolic, small sizes), ``numeric``
    (central differences), or ``auto`` (exact when the sizes allow, and numeric)."""
    if method not in ("exact", "numeric", "auto"):
        raise SymattnError(f"unknown verification method {method!r}: exact, numeric or auto")
    if g.spec.symbolic:
        raise SymattnError("verification needs a numeric example (this one has symbols)")
    names = _inputs_for(g, wrt)
    groups: list[tuple[Gradient, list[str]]] = []
    direct = [n for n in names if n in g.spec.inputs]
    core = [n for n in names if n not in g.spec.inputs]
    if direct:
        groups.append((g, direct))
    if core:
        groups.append((_core(g), core))
    out: list[Verification] = []
    for gg, ns in groups:
        spec = gg.spec
        if method == "exact" or (method == "auto" and exact_size_ok(spec)):
            out += _exact(gg, ns)
        if method in ("numeric", "auto"):
            out += _central(gg, ns)
    return out
