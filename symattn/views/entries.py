"""What every view shows of a step's entries, as SymPy expressions for the printers: the one
worked-entry line, the exact form of an entry, a weights row over its common denominator,
and certified decimals with one number of places per matrix.

A numeric example writes an entry out with the operands' certified decimals
(``q[love, 1] = 0.4·0.1 + 0.8·0.2 + 0.6·0.5 = 0.5``); a symbolic one with the earlier
steps' named entries (``dS[a, b] = p[a, b](dP[a, b] − D[a])``), fully expanded only on
request.

>>> import symattn as sa
>>> from symattn.views.printers import text
>>> d = sa.derive(sa.load("i_love_statistics"))
>>> w = worked(d["Q"], 6)
>>> text(w.lhs), [(rel, text(e)) for rel, e in w.parts]
('q[love, 1]', [('=', '0.4·0.1 + 0.8·0.2 + 0.6·0.5'), ('=', '0.5')])
>>> d = sa.derive(sa.load("illustrated_self_attention"))
>>> text(exact_rows(d["weights"])[0][1])
'(1, e², e²)/(1 + 2e²)'
"""

from __future__ import annotations

from dataclasses import dataclass, field
import sympy

from ..exact.nodes import Node
from ..limits import JSON_EXACT_MAX_ENTRIES, JSON_EXACT_MAX_KEYS
from ..pipeline.notation import Num, RowOver, entry
from ..pipeline.rules import over, plus, times
from ..pipeline.steps import Lookup, Operand, Step, exact_decimal

__all__ = ["Line", "worked", "exact_form", "exact_cells", "exact_rows", "entry_symbol", "show_exact",
           "aligned_decimals", "rational_step", "one_fraction", "numbers", "names", "row_symbol", "named_entry"]

#: closed forms larger than this (SymPy operations) are printed as they are, not rearranged
REARRANGE_MAX_OPS = 4000


@dataclass
class Line:
    """An entry written out: ``lhs`` then (relation, expression) pairs: ``=`` or ``≈``."""

    lhs: sympy.Basic
    parts: list[tuple[str, sympy.Basic]] = field(default_factory=list)
    note: str = ""


def _flat(node: Node, idx: tuple[int, ...]) -> int:
    """The flat index of an entry; an index outside the shape is a rule's bug, never another entry."""
    if len(idx) != len(node.shape) or not all(0 <= i < n for n, i in zip(node.shape, idx)):
        raise IndexError(f"entry {idx} of a {'×'.join(map(str, node.shape))} operand")
    k = 0
    for n, i in zip(node.shape, idx):
        k = k * n + i
    return k


def named_entry(op: Operand, *idx: int) -> sympy.Basic:
    """An operand's entry for a symbolic example: its value when given, else its name."""
    k = _flat(op.node, idx)
    if op.node.is_infinite(k):
        return sympy.S.NegativeInfinity
    if op.given or not op.entry_name:
        return op.node.entry(*idx)
    return _named(op.entry_name, op.labels(*idx), op.node.shape if not op.transposed else op.node.shape[::-1])


def numbers(step: Step, digits: int) -> Lookup:
    """Operand entries as their certified decimals (a numeric example)."""
    def at(key: str, *idx: int) -> sympy.Basic:
        op = step.operands[key]
        k = _flat(op.node, idx)
        if op.node.is_infinite(k):
            return sympy.S.NegativeInfinity
        if op.node.symbolic:
            return op.node.entry(*idx)
        return Num(op.node.decimal(k, digits))
    return at


def names(step: Step) -> Lookup:
    """Operand entries by name (s̃[a, b], p[a, b], dP[a, b]); given inputs by their values."""
    def at(key: str, *idx: int) -> sympy.Basic:
        return named_entry(step.operands[key], *idx)
    return at


def _named(name: str, labels: list[str], shape: tuple[int, ...]) -> sympy.Basic:
    """An entry's name; a column vector's entries without their column (D[love], not
    D[love, 1])."""
    if len(shape) == 2 and shape[1] == 1 and labels[1] == "1":
        labels = labels[:1]
    return entry(name, labels)


def drop_ones(e: sympy.Basic) -> sympy.Basic:
    """A written-out expression without factors 1 (p·1 → p), for named entries."""
    if isinstance(e, sympy.Mul):
        args = [drop_ones(a) for a in e.args if a != 1]
        if not args:
            return sympy.Integer(1)
        return args[0] if len(args) == 1 else sympy.Mul(*args, evaluate=False)
    if isinstance(e, sympy.Add):
        return sympy.Add(*[drop_ones(a) for a in e.args], evaluate=False)
    if isinstance(e, sympy.Pow) and not e.is_Atom:
        return sympy.Pow(drop_ones(e.base), e.exp, evaluate=False)
    return e


def entry_symbol(step: Step, idx: tuple[int, ...]) -> sympy.Basic:
    """The name of one entry of a step: q[love, 1], D[love], L."""
    if step.shape == (1, 1) and step.symbol is not None and not isinstance(step.symbol, sympy.MatrixSymbol):
        return step.symbol
    labels = step.labels(*idx)
    if step.transposed:  # the entry of the named (row-form) matrix
        labels = [labels[1], labels[0]] + labels[2:]
    shape = step.shape if not step.transposed else step.shape[::-1]
    return _named(step.entry_name, labels, shape)


def row_symbol(step: Step, i: int) -> sympy.Basic:
    """The name of row ``i`` of a step: p[love, :]."""
    return entry(step.entry_name, [step.row_labels[i], ":"])


def _lhs(step: Step, idx: tuple[int, ...]) -> sympy.Basic:
    if step.entry_name:
        return entry_symbol(step, idx)
    assert step.rule is not None
    return step.rule(names(step), *idx).chain[0]


def worked(step: Step, digits: int, expand: bool = False, idx: tuple[int, ...] | None = None) -> Line | None:
    """One entry of the step written out (its ``example`` entry unless ``idx`` is given):
    numbers for a numeric example, named entries for a symbolic one (then the fully
    expanded closed form too, with ``expand``)."""
    if step.rule is None:
        return None
    idx = idx if idx is not None else step.example
    node = step.node
    k = _flat(node, idx)
    symbolic = node.symbolic
    w = step.rule(names(step) if symbolic else numbers(step, digits), *idx)
    lhs = _lhs(step, idx)
    chain = [drop_ones(e) for e in w.chain] if symbolic else w.chain
    line = Line(lhs, [("=", e) for e in chain if e != lhs], w.note)
    if symbolic:
        if expand and not step.given:
            line.parts.append(("=", exact_form(node, idx)))
        return line if line.parts else None
    if node.is_infinite(k):
        return line
    result = Num(node.decimal(k, digits))
    rel = "=" if exact_decimal(node, k, digits) else "≈"
    last = line.parts[-1][1] if line.parts else None
    if rel == "=" and (isinstance(last, (Num, sympy.Number)) or last == result):
        return line  # the entry is written as its value already (given, a constant)
    line.parts.append((rel, result))
    return line


def exact_form(node: Node, idx: tuple[int, ...]) -> sympy.Basic:
    """An exact entry as a reader can use it: a rational as that rational, −∞, or one
    fraction with integer coefficients over the closed form's denominator."""
    k = _flat(node, idx)
    if node.is_infinite(k):
        return sympy.S.NegativeInfinity
    if node.symbolic:
        return node.entry(*idx)  # SymPy's own form: √2·(k₁₁·q₁₁ + k₁₂·q₁₂)/2
    q = node.rational(k)
    if q is not None:
        return sympy.Rational(q.numerator, q.denominator)
    return one_fraction(node.entry(*idx))


def one_fraction(e: sympy.Basic) -> sympy.Basic:
    """``(12/25 + 3/5·e^x)/(1 + e^x)`` as ``(12 + 15e^x)/(25(1 + e^x))``: one fraction,
    integer coefficients on top, the denominator kept as the softmax wrote it. A sum of
    terms over different denominators (several heads) becomes one fraction per denominator.

    >>> from symattn.views.printers import text
    >>> text(one_fraction((sympy.Rational(12, 25) + sympy.Rational(3, 5) * sympy.exp(2)) / (1 + sympy.exp(2))))
    '(12 + 15e²)/(25(1 + e²))'
    >>> x = sympy.exp(2)
    >>> text(one_fraction((1 / (1 + x) + x / (1 + x) + 3 / (2 + x)) / 2))
    '(1 + e²)/(2(1 + e²)) + 3/(2(2 + e²))'
    """
    if not isinstance(e, sympy.Expr) or e.is_Atom or sympy.count_ops(e) > REARRANGE_MAX_OPS:
        return e
    flat = sympy.expand_mul(e)
    if flat.is_Add:
        groups: dict[sympy.Basic, list[sympy.Basic]] = {}
        for t in flat.args:
            n, d = sympy.fraction(t)
            cd, pd = d.as_content_primitive()
            groups.setdefault(pd, []).append(n / cd)
        return plus(*[_over_common(sympy.Add(*nums), d) for d, nums in groups.items()])
    n, d = sympy.fraction(e)
    return _over_common(n, d)


def _over_common(n: sympy.Basic, d: sympy.Basic) -> sympy.Basic:
    """n/d with the rational content taken out of both: integer coefficients on top."""
    cn, pn = n.as_content_primitive()
    cd, pd = d.as_content_primitive()
    c = sympy.Rational(cn) / sympy.Rational(cd)
    if pn.is_Add:
        num = sympy.expand_mul(c.p * pn)
    elif c.p == 1 or pn == 1:
        num = pn * c.p
    else:
        num = times(sympy.Integer(c.p), pn)
    den = pd if c.q == 1 else (times(sympy.Integer(c.q), pd) if pd != 1 else sympy.Integer(c.q))
    return num if den == 1 else over(num, den)


def exact_cells(step: Step, expand: bool = False) -> list:
    """The exact entries of a step for display, nested like the step: for a symbolic
    example each entry in terms of the earlier steps' named entries (their rule), fully
    expanded only with ``expand``."""
    node = step.node
    named = node.symbolic and not expand and step.rule is not None and not step.given
    lookup = names(step) if named else None
    if not named:
        node.exact()  # bounded: a LimitError past MAX_EXACT_NODES instead of building without end

    def cell(*idx: int) -> sympy.Basic:
        if named:
            assert step.rule is not None and lookup is not None
            return drop_ones(step.rule(lookup, *idx).chain[0])
        return exact_form(node, idx)

    if len(step.shape) == 2:
        return [[cell(i, j) for j in range(step.shape[1])] for i in range(step.shape[0])]
    a, b, c = step.shape
    return [[[cell(i, j, l) for l in range(c)] for j in range(b)] for i in range(a)]


def exact_rows(step: Step) -> list[tuple[str, sympy.Basic]] | None:
    """The weights row by row over one common denominator, ``(1, e², e²)/(1 + 2e²)``, when
    every row's non-zero entries share one (a softmax row); None otherwise."""
    node = step.node
    if step.symbolic or len(step.shape) != 2 or step.name.split(".")[-1] != "weights" or step.transposed:
        return None
    rows = []
    for i in range(step.shape[0]):
        nums, den = [], None
        for j in range(step.shape[1]):
            e = node.entry(i, j)
            n, d = sympy.fraction(e)
            if n == 0:
                nums.append(sympy.Integer(0))
                continue
            if den is None:
                den = d
            elif d != den:
                return None
            nums.append(n)
        if den is None or den == 1:
            return None
        rows.append((step.row_labels[i], RowOver(nums, den)))
    return rows


def rational_step(step: Step) -> bool:
    """Whether every entry is a rational number (projections, scores)."""
    node = step.node
    if node.symbolic or node.terms() > 1:
        return False
    return all(node.rational(k) is not None for k in range(node.size))


def show_exact(step: Step, exact: bool | None = None) -> bool:
    """Exact closed forms are shown by default only when small: rational steps always, others
    with at most ``JSON_EXACT_MAX_KEYS`` exponentials per entry and ``JSON_EXACT_MAX_ENTRIES``
    entries (``exact=True`` always, ``False`` never)."""
    if exact is not None:
        return exact
    if rational_step(step):
        return True
    return (step.node.terms() <= JSON_EXACT_MAX_KEYS and step.node.size <= JSON_EXACT_MAX_ENTRIES
            and step.node.exact_fits())


def _places(s: str) -> int | None:
    if "e" in s or "inf" in s:
        return None
    return len(s.split(".")[1]) if "." in s else 0


def aligned_decimals(node: Node, digits: int, rows: list[int], cols: list[int]) -> dict[tuple[int, int], str]:
    """Certified decimals of the entries shown (``rows`` × ``cols``) with one number of
    decimal places for the whole matrix (0.90 beside 0.76): exact values padded with
    zeros, others certified to more digits. Entries in e-notation keep their form.

    >>> from fractions import Fraction
    >>> from symattn.exact.nodes import rational_matrix
    >>> aligned_decimals(rational_matrix([[Fraction(9, 10), Fraction(76, 100)]]), 6, [0], [0, 1])
    {(0, 0): '0.90', (0, 1): '0.76'}
    """
    dec = node.decimals(digits)
    assert dec is not None
    cells = {(i, j): dec[i][j] for i in rows for j in cols}
    want = max((p for p in (_places(s) for s in cells.values()) if p is not None), default=0)
    for (i, j), s in cells.items():
        p = _places(s)
        if p is None or p >= want:
            continue
        k = i * node.shape[1] + j
        if exact_decimal(node, k, digits):
            if s.lstrip("-") != "0":  # an exact 0 stays 0
                cells[(i, j)] = (s if "." in s else s + ".") + "0" * (want - p)
            continue
        extra = want - p
        for _ in range(3):  # a carry (9.99 → 10.0) can change the places: try again
            t = node.decimal(k, digits + extra)
            tp = _places(t)
            if tp is None or tp == want:
                break
            extra += want - tp
        cells[(i, j)] = t
    return cells

