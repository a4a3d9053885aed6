"""Claims -> verdicts: every printed number of a worked example checked.

A claim keeps its printed text; its precision is what was printed. Each claim is
judged *globally* (from the file's inputs through the whole pipeline) and
*locally* (this step recomputed from the author's own earlier printed numbers,
which is the same pipeline with those numbers patched in). When claims disagree,
the usual alternative conventions are tried.

>>> import symattn as sa
>>> r = sa.check(sa.load("i_love_statistics"))
>>> r.first_wrong_step
'Q'
>>> c = r.find("Q", "love", "1")
>>> c.claimed, c.exact, c.verdict
('0.59', '1/2', 'wrong')
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from typing import Any, Callable

import sympy
from flint import arb, fmpq

from ..display import render
from ..errors import CertificationError, InputError, SpecError, SymattnError
from ..exact import nodes as V
from ..exact.certify import certify, enclosure, format_rational, workprec
from ..limits import MAX_VERDICT_PRECISION_BITS
from ..pipeline.forward import derive
from ..pipeline.steps import Derivation, Step
from ..read.numbers import did_you_mean, exact_number
from ..read.positions import position_alternatives
from ..read.spec import Spec, from_dict, printed_ulp
from .scores_check import alternatives as score_alternatives

__all__ = ["Claim", "Report", "check", "VERDICTS"]

#: verdict -> meaning
VERDICTS = {
    "correct": "the exact value rounds to the printed number",
    "truncated": "the printed number is the exact value cut off, not rounded (counted as wrong)",
    "wrong": "the exact value does not round to the printed number",
    "consistent": "not the exact value of the printed inputs, but possible for inputs within their rounding",
    "undecided": "the verdict could not be decided within the precision limit; the report gives the value's "
                 "certified enclosure",
}
PLACEHOLDERS = {"..", "...", "…", "?", ""}
CHECK_PREC = 160  # bits for interval (rounded-input) judgments
JUDGE_MAX_PREC = MAX_VERDICT_PRECISION_BITS  # bits past which a verdict is reported undecided


@dataclass
class Claim:
    """One printed number and what symattn finds about it."""

    step: str  # as keyed in the file: "weights", "head1.output", "weights_sum"
    row: str
    col: str | None
    index: tuple[int, ...]  # in the step as shown; (row,) for a row sum
    claimed: str  # the printed text
    field: str  # where it is in the file
    group: str | None = None  # a further group of claims ("also"), or None
    value: Fraction | None = None  # exact rational of the printed text; None for -inf
    ulp: Fraction | None = None  # unit in the last printed place; None for an exact claim
    # results
    decimal: str = ""
    verdict: str = ""
    tie: bool = False
    error_ulps: str | None = None
    local_verdict: str | None = None
    local_value: str | None = None
    note: str = ""
    enclosure: str | None = None  # for an undecided verdict: the interval the value is proved to lie in
    closed_form: bool = False  # the exact value is a closed form (in exp, sqrt), not a rational number
    _exact: str = field(default="", repr=False)
    _exact_of: Callable[[], str] | None = field(default=None, repr=False, compare=False)

    @property
    def exact(self) -> str:
        """The exact value as text SymPy reads back ("1/2", "exp(2)/(1 + 2*exp(2))"), written
        on first use: printing a closed form costs more than judging it."""
        if self._exact_of is not None:
            self._exact, self._exact_of = self._exact_of(), None
        return self._exact

    @exact.setter
    def exact(self, text: str) -> None:
        self._exact, self._exact_of = text, None

    @property
    def base(self) -> str:
        return self.step[:-4] if self.step.endswith("_sum") else self.step

    @property
    def is_sum(self) -> bool:
        return self.step.endswith("_sum")

    @property
    def position(self) -> str:
        if self.is_sum:
            return f"Σ {self.base}[{self.row}, :]"
        if len(self.index) == 3:
            return f"{self.step}[{self.row}, {self.col}]"
        return f"{self.step}[{self.row}, {self.col}]"

    @property
    def ok(self) -> bool:
        return self.verdict in ("correct", "consistent")

    @property
    def undecided(self) -> bool:
        return self.verdict == "undecided"


@dataclass
class Report:
    """The result of checking a worked example."""

    title: str
    source: str
    convention: dict
    claims: list[Claim]
    steps: list[dict] = field(default_factory=list)
    checks: list[dict] = field(default_factory=list)
    diagnosis: list[dict] = field(default_factory=list)
    first_wrong_step: str | None = None
    conventions: list[str] = field(default_factory=list)
    rounded: bool = False
    based_on: str = ""  # a file with claims only: the printed steps taken as its inputs

    @property
    def wrong(self) -> list[Claim]:
        return [c for c in self.claims if not c.ok and not c.undecided and c.verdict != "unchecked"]

    @property
    def undecided(self) -> list[Claim]:
        """Claims whose verdict could not be decided within the precision limit."""
        return [c for c in self.claims if c.undecided]

    @property
    def all_right(self) -> bool:
        return not self.wrong and not self.undecided and not self.checks

    def find(self, step: str, row: str, col: str | None = None, group: str | None = None) -> Claim:
        """The claim at a step, row (and column) label."""
        for c in self.claims:
            if c.step == step and c.row == row and (col is None or c.col == col) and c.group == group:
                return c
        raise KeyError((step, row, col))

    def summary(self) -> dict:
        count: dict[str, int] = {}
        for c in self.claims:
            count[c.verdict] = count.get(c.verdict, 0) + 1
        return {
            "total": len(self.claims),
            "correct": count.get("correct", 0),
            "wrong": count.get("wrong", 0) + count.get("truncated", 0),
            "truncated": count.get("truncated", 0),
            "consistent": count.get("consistent", 0),
            "undecided": count.get("undecided", 0),
            "checks_failed": len(self.checks),
            "first_wrong_step": self.first_wrong_step,
            "conventions": list(self.conventions),
        }

    def __str__(self) -> str:
        return render(self, "text") or repr(self)

    def _repr_markdown_(self) -> str | None:
        return render(self, "markdown")


# ---------------------------------------------------------------------------------------
# reading claims


def _claim_number(raw: Any, where: str, spec: Spec) -> tuple[str, Fraction | None, Fraction | None] | None:
    """(text, value, ulp) of a printed number; None for a placeholder ("..", "?")."""
    if isinstance(raw, str) and raw.strip() in PLACEHOLDERS:
        return None
    if isinstance(raw, bool) or not isinstance(raw, (int, Decimal, str)):
        raise spec.error(where, f"expected a printed number, got {type(raw).__name__} {raw!r}")
    text = raw.strip() if isinstance(raw, str) else str(raw)
    try:
        v = exact_number(raw, allow_inf=True)
    except InputError as e:
        raise spec.error(where, e.message) from None
    if v == -sympy.oo:
        return text, None, None
    if not v.is_Rational:
        raise spec.error(where, f"expected a printed number such as 0.3012, got {text!r}")
    return text, Fraction(int(v.p), int(v.q)), printed_ulp(raw)


def _vector_index(step: Step, token: str, where: str, spec: Spec) -> list[tuple[int, ...]]:
    """Indices (as shown) of a token's vector in a 2-D step: a row, or a column when the
    step shows tokens as columns (column layout)."""
    for labels, as_row in ((step.row_labels, True), (step.col_labels, False)):
        if as_row is False and not step.transposed:
            break
        hits = [i for i, t in enumerate(labels) if t == token]
        if len(hits) > 1:
            raise spec.error(where, f"token {token!r} names several rows of {step.name}; "
                                    "give the whole matrix instead")
        if hits:
            i = hits[0]
            if as_row:
                return [(i, j) for j in range(step.shape[1])]
            return [(r, i) for r in range(step.shape[0])]
    labels = step.col_labels if step.transposed else step.row_labels
    raise spec.error(where, f"no token {token!r} in the rows of {step.name}{did_you_mean(token, labels)}")


def _label(step: Step, idx: tuple[int, ...]) -> tuple[str, str | None]:
    if len(idx) == 3:
        return step.row_labels[idx[0]], f"{step.col_labels[idx[1]]}, {step.depth_labels[idx[2]]}"  # type: ignore[index]
    return step.row_labels[idx[0]], step.col_labels[idx[1]]


def parse_claims(spec: Spec, d: Derivation) -> list[Claim]:
    """Validate the file's ``[claims]`` against the derivation's steps."""
    raw = spec.claims
    groups: list[tuple[str | None, dict, str]] = [(None, {k: v for k, v in raw.items() if k != "also"}, "claims")]
    also = raw.get("also", [])
    if not isinstance(also, list) or not all(isinstance(g, dict) for g in also):
        raise spec.error("claims.also", "expected [[claims.also]] tables (further printed versions of claims)")
    for n, g in enumerate(also):
        label = g.get("where", f"also {n + 1}")
        if not isinstance(label, str):
            raise spec.error(f"claims.also[{n + 1}].where", "expected text saying where these numbers are printed")
        groups.append((label, {k: v for k, v in g.items() if k != "where"}, f"claims.also[{n + 1}]"))
    names = d.names
    out: list[Claim] = []
    for group, table, prefix in groups:
        for key, value in table.items():
            where = f"{prefix}.{key}"
            base = key[:-4] if key.endswith("_sum") else key
            if base not in names:
                choices = names + [n + "_sum" for n in names]
                raise spec.error(where, f"no step {key!r} in this example{did_you_mean(key, choices)}")
            step = d[base]
            if key.endswith("_sum"):
                out += _sum_claims(spec, step, key, value, where, group)
            elif len(step.shape) == 3:
                out += _weighted_claims(spec, step, key, value, where, group)
            else:
                out += _matrix_claims(spec, step, key, value, where, group)
    return out


def _make(spec: Spec, step: Step, key: str, idx: tuple[int, ...], raw: Any, where: str,
          group: str | None) -> Claim | None:
    parsed = _claim_number(raw, where, spec)
    if parsed is None:
        return None
    text, value, ulp = parsed
    row, col = _label(step, idx)
    return Claim(key, row, col, idx, text, where, group, value, ulp)


def _matrix_claims(spec: Spec, step: Step, key: str, value: Any, where: str, group: str | None) -> list[Claim]:
    out: list[Claim] = []
    r, c = step.shape
    if isinstance(value, list):
        if len(value) != r or not all(isinstance(x, list) and len(x) == c for x in value):
            raise spec.error(where, f"{step.name} is {r}×{c}; the whole-matrix claim must be {r}×{c} "
                                    "(or give rows by token: [claims.{0}] token = [...])".format(key))
        for i, row in enumerate(value):
            for j, x in enumerate(row):
                cl = _make(spec, step, key, (i, j), x, f"{where}[{i + 1}][{j + 1}]", group)
                if cl:
                    out.append(cl)
        return out
    if not isinstance(value, dict):
        raise spec.error(where, "expected a matrix (list of rows) or a table of rows by token")
    for token, vec in value.items():
        idxs = _vector_index(step, token, f"{where}.{token}", spec)
        if not isinstance(vec, list) or len(vec) != len(idxs):
            raise spec.error(f"{where}.{token}", f"expected a list of {len(idxs)} numbers "
                                                 f"(the {step.name} vector of {token!r})")
        for t, (idx, x) in enumerate(zip(idxs, vec)):
            cl = _make(spec, step, key, idx, x, f"{where}.{token}[{t + 1}]", group)
            if cl:
                out.append(cl)
    return out


def _one(labels: list[str], token: str, what: str, step: Step, where: str, spec: Spec) -> int:
    """The index of the one label equal to ``token``, or a clear error."""
    hits = [i for i, t in enumerate(labels) if t == token]
    if len(hits) != 1:
        raise spec.error(where, f"no single {what} {token!r} in {step.name}{did_you_mean(token, labels)}")
    return hits[0]


def _weighted_claims(spec: Spec, step: Step, key: str, value: Any, where: str, group: str | None) -> list[Claim]:
    if not isinstance(value, dict):
        raise spec.error(where, f"expected tables by query and key token: [claims.{key}.QUERY] KEY = [...]")
    out: list[Claim] = []
    for qtok, inner in value.items():
        qi = _one(step.row_labels, qtok, "query", step, f"{where}.{qtok}", spec)
        if not isinstance(inner, dict):
            raise spec.error(f"{where}.{qtok}", "expected key tokens with lists of numbers")
        for ktok, vec in inner.items():
            kj = _one(step.col_labels, ktok, "key", step, f"{where}.{qtok}.{ktok}", spec)
            dv = step.shape[2]
            if not isinstance(vec, list) or len(vec) != dv:
                raise spec.error(f"{where}.{qtok}.{ktok}", f"expected a list of {dv} numbers (p·v has width d_v)")
            for l, x in enumerate(vec):
                cl = _make(spec, step, key, (qi, kj, l), x, f"{where}.{qtok}.{ktok}[{l + 1}]", group)
                if cl:
                    out.append(cl)
    return out


def _sum_claims(spec: Spec, step: Step, key: str, value: Any, where: str, group: str | None) -> list[Claim]:
    if len(step.shape) != 2 or not isinstance(value, dict):
        raise spec.error(where, f"expected row sums by token: [claims.{key}] token = 1.0")
    out: list[Claim] = []
    for token, x in value.items():
        i = _one(step.row_labels, token, "row", step, f"{where}.{token}", spec)
        parsed = _claim_number(x, f"{where}.{token}", spec)
        if parsed is None:
            continue
        text, v, ulp = parsed
        out.append(Claim(key, token, None, (i,), text, f"{where}.{token}", group, v, ulp))
    return out


# ---------------------------------------------------------------------------------------
# judging one number


def _node_for(d: Derivation, claim: Claim, patches: dict | None = None) -> tuple[V.Node, int]:
    """The value a claim is judged against, and its flat index."""
    step = d[claim.base]
    node = step.node
    if claim.is_sum:
        if patches is not None and claim.base in patches:
            node = V.patch(node, patches[claim.base])
        return V.row_sums(node), claim.index[0]
    k = 0
    for n, i in zip(node.shape, claim.index):
        k = k * n + i
    return node, k


def _fq(q: Fraction) -> arb:
    return arb(fmpq(q.numerator, q.denominator))


def judge(node: V.Node, k: int, value: Fraction | None, ulp: Fraction | None) -> tuple[str, bool]:
    """(verdict, tie) of a printed number against an exact value (node entry ``k``).

    >>> judge(V.rational_matrix([[Fraction(1, 8)]]), 0, Fraction(12, 100), Fraction(1, 100))
    ('correct', True)
    >>> judge(V.rational_matrix([[Fraction(2, 3)]]), 0, Fraction(66, 100), Fraction(1, 100))
    ('truncated', False)

    A verdict that cannot be decided within ``JUDGE_MAX_PREC`` bits is ``undecided``
    (an undefined value is an error: it has no verdict).
    """
    node.refuse_undefined()
    if value is None:
        return ("correct" if node.is_infinite(k) else "wrong"), False
    if node.is_infinite(k):
        return "wrong", False
    q = node.rational(k) if node.is_rational_matrix else None
    if ulp is None:
        if q is None:
            q = node.rational(k)
        return ("correct" if q == value else "wrong"), False
    if q is not None:
        return _judge_exact(q, value, ulp)
    prec, tried = 64, False
    while prec <= JUDGE_MAX_PREC:
        with workprec(prec):  # the printed number too: a claim may have more digits than a double
            half, c, u = _fq(ulp / 2), _fq(value), _fq(ulp)
            x = node.balls(prec)[k]
            diff = x - c
            if diff.abs_upper() < half:
                return "correct", False
            if diff.abs_lower() > half and (x > 0 or x < 0):
                # truncated: the printed number is the value cut toward zero,
                # i.e. t = (x - c)·sign(x) lies in [0, ulp)
                t = diff if x > 0 else -diff
                if t >= 0 and t < u:
                    return "truncated", False
                if t < 0 or t >= u:
                    return "wrong", False
        if not tried:  # an exact tie or boundary can only be a rational value
            tried = True
            q = node.rational(k)
            if q is not None:
                return _judge_exact(q, value, ulp)
        prec *= 2
    return "undecided", False


def _enclosure(node: V.Node, k: int, digits: int) -> str:
    """The interval entry ``k`` is proved to lie in, at the judge's last precision."""
    with workprec(JUDGE_MAX_PREC):
        return enclosure(node.balls(JUDGE_MAX_PREC)[k], digits)


def _judge_exact(q: Fraction, value: Fraction, ulp: Fraction) -> tuple[str, bool]:
    d = abs(q - value)
    if d < ulp / 2:
        return "correct", False
    if d == ulp / 2:
        return "correct", True
    t = (q - value) if q > 0 else (value - q)
    return ("truncated" if q != 0 and 0 <= t < ulp else "wrong"), False


def consistent(node: V.Node, k: int, value: Fraction | None, ulp: Fraction | None) -> bool:
    """Whether some value in the node's enclosure rounds to the printed number
    (inputs known only to their printed digits)."""
    if value is None:
        return node.is_infinite(k)
    if node.is_infinite(k):
        return False
    half = (ulp or Fraction(0)) / 2
    with workprec(CHECK_PREC):
        x = node.balls(CHECK_PREC)[k]
        return not ((x - _fq(value)).abs_lower() > _fq(half))


def _describe(node: V.Node, k: int, digits: int) -> tuple[Callable[[], str], str]:
    """(a function giving the exact text, certified decimals) of one entry; the certified
    enclosure when its digits cannot be decided within the precision limit. The exact text is
    written on first use (printing a closed form costs more than judging it); rationals
    without building a SymPy number; none for closed forms of more than 64 terms."""
    if node.is_infinite(k):
        return (lambda: "-oo"), "-inf"
    if node.is_rational_matrix:  # "1/2" as SymPy prints it
        q = node.rational(k)
        exact = lambda: str(q)  # noqa: E731
    else:
        exact = (lambda: str(node.entry(*node.index(k)))) if node.terms() <= 64 else (lambda: "")  # noqa: E731
    try:
        return exact, node.decimal(k, digits)
    except CertificationError:
        return exact, _enclosure(node, k, digits)


def _error_ulps(node: V.Node, k: int, value: Fraction, ulp: Fraction) -> str:
    """(printed − exact) in units of the last printed digit, to 3 significant digits."""
    q = node.rational(k) if node.is_rational_matrix else None
    if q is not None:
        return format_rational((value - q) / ulp, 3)

    def balls(p: int) -> list[arb]:
        with workprec(p):
            return [(_fq(value) - node.balls(p)[k]) / _fq(ulp)]

    def rat(_: int) -> Fraction | None:
        r = node.rational(k)
        return None if r is None else (value - r) / ulp

    try:
        return certify(1, 3, balls, rat)[0]
    except CertificationError:
        return None


def _floor_log10(q: Fraction) -> int:
    """floor(log10(q)) of a positive rational, exactly (no float: a claim may have 400 digits)."""
    e = (q.numerator.bit_length() - q.denominator.bit_length()) * 30103 // 100000
    while Fraction(10) ** e > q:
        e -= 1
    while Fraction(10) ** (e + 1) <= q:
        e += 1
    return e


def _claim_digits(c: Claim) -> int:
    """Significant digits to show beside a claim: those it printed, and a few more.

    >>> _claim_digits(Claim("w", "a", "b", (0, 0), "0.3012", "f", value=Fraction(3012, 10**4),
    ...                     ulp=Fraction(1, 10**4)))
    15
    >>> _claim_digits(Claim("w", "a", "b", (0, 0), "…", "f", value=Fraction(1, 3), ulp=Fraction(1, 10**400)))
    403
    """
    if c.value is None or c.value == 0 or c.ulp is None:
        return 15
    sig = _floor_log10(abs(c.value)) - _floor_log10(c.ulp) + 1
    return max(15, sig + 3)


# ---------------------------------------------------------------------------------------
# the whole check


def _patches(spec: Spec, d: Derivation, claims: list[Claim], rounded: bool) -> dict[str, dict]:
    """Per step, the author's printed numbers as patches in row form (main group only)."""
    out: dict[str, dict] = {}
    for c in claims:
        if c.group is not None or c.is_sum or len(c.index) != 2:
            continue
        step = d[c.step]
        if c.value is None and not _feeds_softmax(d, c.step):
            continue  # a printed -inf is the page's mask only where the softmax reads it
        i, j = c.index
        if step.transposed:
            i, j = j, i
        radius = (c.ulp / 2) if (rounded and c.ulp is not None) else Fraction(0)
        out.setdefault(c.step, {})[(i, j)] = (c.value, radius)
    return out


def _feeds_softmax(d: Derivation, name: str) -> bool:
    """Whether step ``name`` is what the softmax (or normalisation) reads: the step just before
    the weights of its head, e.g. ``masked``, or ``scaled`` when there is no mask."""
    names = [s.name for s in d.all_steps]
    k = names.index(name) if name in names else -1
    prefix = name[: len(name) - len(name.rpartition(".")[2])]  # "head1." or ""
    return 0 <= k < len(names) - 1 and names[k + 1] == prefix + "weights"


def _softmax_input(d: Derivation, name: str) -> str | None:
    """The step the softmax of ``name``'s head reads, when it is another step than ``name``."""
    prefix = name[: len(name) - len(name.rpartition(".")[2])]
    other = next((s.name for s in d.all_steps if s.name.startswith(prefix) and _feeds_softmax(d, s.name)), None)
    return other if other != name else None


def _all_correct(node: V.Node, cs: list[Claim]) -> bool:
    """Whether every claim (of one 2-D step) is correct against ``node`` at the claim's index."""
    try:
        return all(judge(node, c.index[0] * node.shape[1] + c.index[1], c.value, c.ulp)[0] == "correct"
                   for c in cs)
    except (SymattnError, IndexError):
        return False


def _patch_fn(patches: dict[str, dict]) -> Callable[[str, V.Node], V.Node]:
    def fn(name: str, node: V.Node) -> V.Node:
        p = patches.get(name)
        return V.patch(node, p) if p else node
    return fn


def check(spec: Spec, inputs_rounded: bool | None = None, diagnose: bool = True) -> Report:
    """Check every claim of a worked example (its ``[claims]``).

    ``inputs_rounded`` (default: the file's ``inputs_rounded``) treats every input as
    known only to its printed digits: a claim that cannot be excluded is ``consistent``.
    """
    rounded = spec.inputs_rounded if inputs_rounded is None else inputs_rounded
    if not spec.claims:
        raise SymattnError(f"{spec.source}: no [claims] to check (see the README: claims keyed by step name)")
    conv_echo: dict = {}
    if spec.stage == "claims":
        promoted = promote_printed(spec)
        if promoted is None:
            return _check_without_inputs(spec)
        report = check(promoted[0], diagnose=diagnose)
        report.based_on = promoted[1]
        return report
    base = spec.unfocused()
    d = derive(base)
    conv_echo = d.convention
    claims = parse_claims(spec, d)
    patches = _patches(spec, d, claims, rounded=False)
    local_d = derive(base, patch=_patch_fn(patches))
    rounded_d = derive(base, rounded=True) if rounded else None
    # the page's own numbers are known only to their printed digits: a step recomputed from
    # them is judged against every value their rounding allows (and the inputs' too, if rounded)
    interval_patches = _patches(spec, d, claims, True)
    rounded_local = derive(base, rounded=rounded, patch=_patch_fn(interval_patches))
    for c in claims:
        node, k = _node_for(d, c)
        node.refuse_undefined()
        c._exact_of, c.decimal = _describe(node, k, _claim_digits(c))
        c.closed_form = not node.is_rational_matrix and not node.is_infinite(k)
        if node.symbolic:
            c.verdict = "correct" if c.value is not None and c.exact == str(sympy.Rational(c.value.numerator, c.value.denominator)) else "wrong"
            continue
        c.verdict, c.tie = judge(node, k, c.value, c.ulp)
        if c.undecided:
            c.enclosure = _enclosure(node, k, _claim_digits(c))
            c.note = (f"not decided within {JUDGE_MAX_PREC} bits of precision: the value lies in "
                      f"{c.enclosure}")
        if c.verdict == "correct" and c.tie:
            c.note = "an exact tie: accepted whether rounded half up or half to even"
        if c.verdict == "truncated":
            c.note = "the printed digits are the exact value cut off, not rounded"
        if rounded_d is not None and not c.ok:
            rn, rk = _node_for(rounded_d, c)
            if consistent(rn, rk, c.value, c.ulp):
                c.verdict = "consistent"
                c.note = "possible for inputs within their printed rounding"
        if c.value is not None and c.ulp is not None and not node.is_infinite(k):
            c.error_ulps = _error_ulps(node, k, c.value, c.ulp)
        # local: the step recomputed from the author's own numbers
        ln, lk = _node_for(local_d, c, patches)
        if ln.undefined() is not None:  # e.g. printed scores whose row sums to 0 under normalization = "sum"
            c.local_verdict, c.local_value = "undefined", str(ln.undefined())
            continue
        _, c.local_value = _describe(ln, lk, max(6, _claim_digits(c) - 9))
        c.local_verdict, ltie = judge(ln, lk, c.value, c.ulp)
        if ltie and c.local_verdict == "correct":
            c.note = (c.note + "; " if c.note else "") + (
                f"from the page's numbers an exact tie ({ln.decimal(lk, 30)}): right if rounded half to even")
        if c.local_verdict in ("wrong", "truncated"):
            rl, rlk = _node_for(rounded_local, c, interval_patches)
            if consistent(rl, rlk, c.value, c.ulp):
                c.local_verdict = "consistent"
    report = Report(spec.title, spec.source, conv_echo, claims, rounded=rounded)
    _summarise_steps(report, d)
    report.checks = sanity_checks(spec, claims, d)
    if diagnose:
        _diagnose(report, spec, d, claims, patches)
    return report


def _summarise_steps(report: Report, d: Derivation) -> None:
    order = []
    for st in d.all_steps:
        order += [st.name, st.name + "_sum"]
    by_step: dict[str, list[Claim]] = {}
    for c in report.claims:
        by_step.setdefault(c.step, []).append(c)
    first = None
    for name in order:
        cs = by_step.get(name)
        if not cs:
            continue
        wrong = [c for c in cs if not c.ok and not c.undecided]
        lwrong = [c for c in cs if c.local_verdict not in ("correct", "consistent", "undecided", "undefined")]
        entry = {"step": name, "claims": len(cs), "correct": sum(c.verdict == "correct" for c in cs),
                 "wrong": len(wrong), "undecided": sum(c.undecided for c in cs), "locally_wrong": len(lwrong),
                 "follows_from_printed": not lwrong}
        if wrong and first is None:
            first = name
            entry["first_wrong"] = True
        report.steps.append(entry)
    report.first_wrong_step = first


# ---------------------------------------------------------------------------------------
# checks that need no inputs


def sanity_checks(spec: Spec, claims: list[Claim], d: Derivation | None) -> list[dict]:
    """Weights rows that do not sum to 1 within their printed precision, negative
    weights, weights above 1, outputs outside the range of the value rows."""
    out: list[dict] = []
    axis = spec.convention.softmax_axis
    groups: dict[tuple[str | None, str, int], list[Claim]] = {}
    for c in claims:
        if c.base.split(".")[-1] != "weights" or c.is_sum or c.value is None:
            continue
        if c.ulp is not None:
            half = c.ulp / 2
            if c.value < -half:
                out.append({"check": "negative_weight", "step": c.step, "row": c.row, "col": c.col,
                            "message": f"{c.position} = {c.claimed} is negative; softmax weights are > 0"})
            if c.value > 1 + half:
                out.append({"check": "weight_above_one", "step": c.step, "row": c.row, "col": c.col,
                            "message": f"{c.position} = {c.claimed} is above 1; softmax weights are < 1"})
        line = c.index[0] if axis == "keys" else c.index[1]
        groups.setdefault((c.group, c.step, line), []).append(c)
    for (group, step, _), cs in groups.items():
        width = _width(spec, d, step, axis) if d is not None else _printed_width(spec, step, axis)
        if width is None or len(cs) != width or any(c.ulp is None and c.value is None for c in cs):
            continue
        total = sum((c.value for c in cs), Fraction(0))  # type: ignore[misc]
        slack = sum(((c.ulp or Fraction(0)) / 2 for c in cs), Fraction(0))
        if total == 0:
            continue  # a fully masked row shown as zeros
        if abs(total - 1) > slack:
            what = "row" if axis == "keys" else "column"
            label = cs[0].row if axis == "keys" else cs[0].col
            shown = format_rational(total, 12)
            where = f" ({group})" if group else ""
            out.append({"check": "weights_sum", "step": step, "row": label, "col": None, "group": group,
                        "message": f"the printed weights of {what} {label!r}{where} sum to {shown}, not 1 "
                                   f"(their rounding allows ±{format_rational(slack, 6)})"})
    out += _hull_checks(spec, claims, d)
    return out


def _printed_width(spec: Spec, step: str, axis: str) -> int | None:
    """With no derivation, how many weights a line of ``step`` has: the widest printing of it,
    elided entries ("..") included, so that a line printed in part is not taken for a whole
    distribution; None when it cannot be told (columns of a table keyed by token).

    >>> from symattn.read.spec import from_dict
    >>> s = from_dict({"claims": {"weights": [[0.5, 0.5]], "also": [{"weights": [[0.5, ".."]]}]}})
    >>> _printed_width(s, "weights", "keys")
    2
    """
    tables = [spec.claims] + [g for g in spec.claims.get("also") or [] if isinstance(g, dict)]
    widths: list[int] = []
    for t in tables:
        v = t.get(step)
        rows = list(v.values()) if isinstance(v, dict) else v if isinstance(v, list) else []
        rows = [r for r in rows if isinstance(r, list)]
        if axis == "keys":
            widths += [len(r) for r in rows]
        elif rows and all(len(r) == len(rows[0]) for r in rows):
            widths.append(len(rows) if isinstance(v, list) else 0)
    return max(widths) if widths and max(widths) > 0 else None


def _width(spec: Spec, d: Derivation | None, step: str, axis: str) -> int | None:
    if d is not None and step in d:
        return d[step].shape[1] if axis == "keys" else d[step].shape[0]
    return None


def _hull_checks(spec: Spec, claims: list[Claim], d: Derivation | None) -> list[dict]:
    """An output is a convex combination of the value rows, so each coordinate lies
    between the smallest and largest value in that coordinate."""
    if d is None:
        return []
    out = []
    for c in claims:
        if c.is_sum or c.value is None or c.base.split(".")[-1] != "output" or len(c.index) != 2:
            continue
        prefix = c.base[: -len("output")]
        vname = prefix + "V"
        if vname not in d or (prefix == "" and "Wo" in spec.inputs):
            continue
        vstep = d[vname]
        col = c.index[1] if not vstep.transposed else c.index[0]
        vals = []
        for key in range(vstep.shape[0] if not vstep.transposed else vstep.shape[1]):
            idx = (key, col) if not vstep.transposed else (col, key)
            printed = next((x.value for x in claims if x.step == vname and x.index == idx and x.group is None
                            and x.value is not None), None)
            vals.append(printed if printed is not None else vstep.node.rational(idx[0] * vstep.shape[1] + idx[1]))
        if any(v is None for v in vals):
            continue
        half = (c.ulp or Fraction(0)) / 2
        lo, hi = min(vals), max(vals)  # type: ignore[type-var]
        if c.value < lo - half or c.value > hi + half:
            out.append({"check": "convex_hull", "step": c.step, "row": c.row, "col": c.col,
                        "message": f"{c.position} = {c.claimed} is outside the convex hull of the value rows: "
                                   f"coordinate {c.col} of the values lies in [{format_rational(lo, 6)}, "
                                   f"{format_rational(hi, 6)}]"})
    return out


def _printed_rows(value: Any) -> tuple[list[list[Any]], list[str] | None] | None:
    """A step printed whole as claims: its rows and, when keyed by token, the tokens; None for
    anything else (a vector by position, placeholders, sums)."""
    if isinstance(value, list) and value and all(isinstance(r, list) and r for r in value):
        rows, labels = value, None
    elif isinstance(value, dict) and value and all(isinstance(r, list) and r for r in value.values()):
        rows, labels = list(value.values()), [str(k) for k in value]
    else:
        return None
    if len({len(r) for r in rows}) != 1 or any(isinstance(x, str) and x.strip() in PLACEHOLDERS
                                               for r in rows for x in r):
        return None
    return rows, labels


def _exact_integers(rows: list[list[Any]]) -> list[list[Any]]:
    """Whole numbers printed without a point (``1``, ``0``) are taken as exact; a number printed
    with a point is known only to its printed digits."""
    return [[f"{x}/1" if isinstance(x, int) and not isinstance(x, bool) else x for x in r] for r in rows]


def _keep_of_masked(rows: list[list[Any]]) -> list[list[bool]] | None:
    """Which entries of printed masked scores are kept (False where −∞ is printed); None when a row
    is masked whole (no distribution to check from it).

    >>> _keep_of_masked([[1, "-inf"], ["0.5", "0.2"]])
    [[True, False], [True, True]]
    """
    keep = [[not _is_minus_inf(x) for x in r] for r in rows]
    return None if any(not any(r) for r in keep) else keep


def _is_minus_inf(x: Any) -> bool:
    if isinstance(x, (float, Decimal)):
        return x == float("-inf")
    return isinstance(x, str) and x.strip().replace("\u2212", "-").lower() in ("-inf", "-infinity", "-∞", "-\\infty")


def promote_printed(spec: Spec) -> tuple[Spec, str] | None:
    """A file with claims and no inputs, read from its own printed steps: the first printing of
    Q, K and V (else of the scaled scores, else of the scores) becomes the inputs, known only to
    their printed digits, and every other claim is checked from them. None when the file prints
    no such step whole (or the steps do not fit together).

    >>> from symattn.read.spec import from_dict
    >>> s = from_dict({"claims": {"scores": [[0, 0], [1, 0]], "weights": [["0.5", "0.5"], ["0.73", "0.27"]]}})
    >>> promoted, why = promote_printed(s)
    >>> sorted(promoted.inputs), why
    (['scores'], 'no inputs given: checked from the printed scores, each known only to its printed digits; the file names no scale or d_k, so softmax is applied to them as printed (scale = none)')
    >>> check(s).find("weights", "2", "1").verdict
    'correct'
    """
    raw = spec.raw if isinstance(spec.raw, dict) else {}
    claims = raw.get("claims")
    if not isinstance(claims, dict):
        return None
    main = {k: v for k, v in claims.items() if k != "also"}
    conv = dict(raw.get("convention") or {})
    options: list[tuple[tuple[str, ...], dict, str]] = [
        (("Q", "K", "V"), {}, "Q, K and V"),
        (("scaled",), {"scale": "1"}, "scaled scores"),
        (("masked",), {"scale": "1", "mask": "none"}, "masked scores"),
        (("scores",), {}, "scores"),
    ]
    scale = str(conv.get("scale", "")).replace(" ", "")
    if scale and ("d_k" not in scale or "d_k" in conv):
        # the file fixes its scale: the raw scores, printed whole, check every later step
        options = [options[0], options[3], options[1], options[2]]
    for names, conv_change, what in options:
        got = {n: _printed_rows(main.get(n)) for n in names}
        if any(g is None for g in got.values()):
            continue
        data = {k: v for k, v in raw.items() if k not in ("claims", "inputs")}
        inputs = {("scores" if n in ("scaled", "masked") else n): _exact_integers(g[0])  # type: ignore[index]
                  for n, g in got.items()}
        conv_change = dict(conv_change)
        if names == ("masked",):
            keep = _keep_of_masked(inputs["scores"])
            if keep is None:
                continue
            if not all(all(r) for r in keep):  # −∞ entries: the mask they show, over finite scores
                conv_change["mask"] = keep
                inputs["scores"] = [[x if k else "0/1" for x, k in zip(r, kr)] for r, kr in zip(inputs["scores"], keep)]
        printed_v = _printed_rows(main.get("V"))
        part_v = ""
        if names != ("Q", "K", "V") and printed_v is not None:
            if len(printed_v[0]) == len(got[names[0]][0][0]):  # type: ignore[index]
                inputs["V"] = _exact_integers(printed_v[0])
            else:  # V printed for some keys only: the output cannot be checked from it
                part_v = f"; V is printed for {len(printed_v[0])} of the keys only, so V and the output are not checked"
                main = {k: v for k, v in main.items() if k not in ("V", "output", "weighted")}
        elif names != ("Q", "K", "V") and ("output" in main or "weighted" in main):
            part_v = "; the file prints no V, so the output is not checked"
            main = {k: v for k, v in main.items() if k not in ("output", "weighted")}
        first = got[names[0]]
        if "tokens" not in data and first[1] is not None:  # type: ignore[index]
            data["tokens"] = first[1]  # type: ignore[index]
        elif first[1] is not None and names != ("Q", "K", "V") and isinstance(data.get("tokens"), list) \
                and len(first[1]) < len(data["tokens"]) and set(first[1]) <= set(map(str, data["tokens"])):
            # the scores of some queries of the sentence (one query's row): those are the queries, the
            # sentence's tokens the keys
            data.setdefault("key_tokens", list(data["tokens"]))
            data["tokens"] = first[1]
        keys = got.get("K")
        if "key_tokens" not in data and keys is not None and keys[1] is not None and keys[1] != data.get("tokens"):
            data["key_tokens"] = keys[1]
        data["inputs"] = inputs
        data["inputs_rounded"] = True
        data["convention"] = dict(conv, **conv_change)
        unscaled = ""
        if names == ("scores",) and "scale" not in conv and "d_k" not in conv:
            data["convention"]["scale"] = "none"
            unscaled = "; the file names no scale or d_k, so softmax is applied to them as printed (scale = none)"
        rest = {k: v for k, v in main.items() if k not in names and not (k == "V" and "V" in inputs)}
        # steps before the one the check starts from cannot be judged from it: Q and K before any scores,
        # and the raw (and scaled) scores before the scaled (masked) scores taken as given
        before = {("scaled",): ("Q", "K", "scores"), ("masked",): ("Q", "K", "scores", "scaled")}.get(
            names, ("Q", "K") if names != ("Q", "K", "V") else ())
        skipped = [k for k in before if k in main and k not in ("Q", "K")]
        rest = {k: v for k, v in rest.items() if k not in before}
        also = claims.get("also")
        drop = set(before) | ({"V", "output", "weighted"} if part_v else set())
        if also and drop and isinstance(also, list):
            also = [g for g in ({k: v for k, v in g.items() if k not in drop}
                                for g in also if isinstance(g, dict)) if any(k != "where" for k in g)]
        if also:
            rest["also"] = also
        if not any(k != "also" for k in rest) and not also:
            return None
        data["claims"] = rest
        try:
            promoted = from_dict(data, spec.source)
            parse_claims(promoted, derive(promoted.unfocused()))
        except (SpecError, InputError, SymattnError):
            continue
        used = what + (" with the printed V" if "V" in inputs and names != ("Q", "K", "V") else "")
        earlier = "; the mask is where they print −∞" if isinstance(conv_change.get("mask"), list) else ""
        if skipped:
            said = " and the ".join({"scores": "raw scores", "scaled": "scaled scores"}[k] for k in skipped)
            earlier += f"; the {said} printed before them are not checked (the check starts after them)"
        return promoted, (f"no inputs given: checked from the printed {used}, each known only to its printed digits"
                          + unscaled + part_v + earlier)
    return None


def _check_without_inputs(spec: Spec) -> Report:
    """A file with claims and no inputs: only the checks that need no inputs."""
    claims: list[Claim] = []
    groups: list[tuple[dict, str, str | None]] = [(spec.claims, "claims", None)]
    also = spec.claims.get("also")
    if isinstance(also, list):
        groups += [(g, f"claims.also[{i + 1}]", str(g.get("where", f"also {i + 1}")))
                   for i, g in enumerate(also) if isinstance(g, dict)]
    for table, prefix, group in groups:
        for key, value in table.items():
            if key in ("also", "where"):
                continue
            where = f"{prefix}.{key}"
            if isinstance(value, dict):
                rows = [(str(token), vec, f"{where}.{token}") for token, vec in value.items()]
            elif isinstance(value, list) and value and all(isinstance(r, list) for r in value):
                rows = [(str(i + 1), vec, f"{where}[{i + 1}]") for i, vec in enumerate(value)]
            else:
                continue
            for row, (token, vec, at) in enumerate(rows):
                items = vec if isinstance(vec, list) else [vec]
                for t, x in enumerate(items):
                    parsed = _claim_number(x, f"{at}[{t + 1}]", spec)
                    if parsed is None:
                        continue
                    text, v, ulp = parsed
                    claims.append(Claim(key, token, str(t + 1), (row, t), text, f"{at}[{t + 1}]", group, v,
                                        ulp, verdict="unchecked"))
    r = Report(spec.title, spec.source, {}, claims)
    r.checks = sanity_checks(spec, claims, None)
    return r


# ---------------------------------------------------------------------------------------
# convention diagnosis


def _alternatives(spec: Spec) -> list[tuple[str, dict]]:
    """(description, convention changes) for the usual slips."""
    conv = spec.convention
    out: list[tuple[str, dict]] = []
    scale = conv.scale_text.replace(" ", "").lower()
    dk, dv, dm, h = spec.d_k, spec.d_v, spec.d_model, conv.heads
    scales: list[tuple[str, str]] = []
    if scale != "none":
        scales.append(("no scaling (scale = none)", "none"))
    if scale not in ("1/sqrt(d_k)",) and dk:
        scales.append(("scaling by 1/√d_k", "1/sqrt(d_k)"))
    if dk and dm and dm != dk:
        scales.append((f"scaling by 1/√d_model (d = {dm} instead of d_k = {dk})", "1/sqrt(d_model)"))
    if dk and dv and dv != dk:
        scales.append((f"scaling by 1/√d_v (d = {dv} instead of d_k = {dk})", "1/sqrt(d_v)"))
    if dk and h > 1:
        scales.append((f"scaling by 1/√(h·d_k) (the full width {h * dk} instead of the head's {dk})",
                       "1/sqrt(h*d_k)"))
    if dk and dk != 1:
        scales.append(("dividing by d_k instead of √d_k", "1/d_k"))
    for label, s in scales:
        out.append((label, {"scale": s}))
    flip = "queries" if conv.softmax_axis == "keys" else "keys"
    out.append((f"softmax over the {'query' if flip == 'queries' else 'key'} axis", {"softmax_axis": flip}))
    if conv.normalization == "softmax":
        out.append(("dividing by the row sum instead of softmax", {"normalization": "sum"}))
    for lay, desc in (("row", "X·W (row layout)"), ("torch", "X·Wᵀ (torch layout)"), ("column", "W·x (column layout)")):
        if lay != conv.layout and spec.stage == "x":
            out.append((desc, {"layout": lay}))
    if conv.mask != "none":
        out.append(("the mask not applied", {"mask": "none"}))
        out.append(("masked scores set to 0 instead of -inf", {"mask_value": "0"}))
        if conv.mask in ("causal", "causal_bottom_right"):
            other = "causal_bottom_right" if conv.mask == "causal" else "causal"
            out.append((f"the causal mask aligned {'bottom-right' if other != 'causal' else 'top-left'}",
                        {"mask": other}))
    elif spec.n_queries == spec.n_keys and spec.n_queries > 1:
        out.append(("a causal mask", {"mask": "causal"}))
    out += [a for a in score_alternatives(spec) if a not in out]  # issue 13: the score variants
    from .check_structure import alternatives as structure_alternatives

    out += structure_alternatives(spec)  # sliding windows: left out, off by one
    out += position_alternatives(spec)  # RoPE style and base, position offsets (issue 13)
    # a few pairs: no scaling together with the other slips
    if scale != "none":
        for label, change in list(out):
            if "scale" not in change and ("softmax_axis" in change or "normalization" in change):
                out.append((f"no scaling and {label}", {"scale": "none", **change}))
    return out


def _alt_spec(spec: Spec, change: dict) -> Spec | None:
    raw = copy.deepcopy(spec.raw)
    conv = raw.setdefault("convention", {})
    conv.update(change)
    for k in [k for k, v in change.items() if v is None]:  # a change to None removes the key
        conv.pop(k, None)
    conv.pop("query", None)
    if "bias" in conv and change.get("mask") == "none":
        conv.pop("bias")
    try:
        return from_dict(raw, spec.source, spec.text)
    except (SpecError, InputError, SymattnError):
        return None


def _diagnose(report: Report, spec: Spec, d: Derivation, claims: list[Claim], patches: dict) -> None:
    wrong_steps = [s["step"] for s in report.steps if s["wrong"]]
    local_wrong = [s["step"] for s in report.steps if s["locally_wrong"]]
    if not wrong_steps and not local_wrong:
        return
    found: dict[tuple[str, str], list[str]] = {}
    tried: dict[str, list[tuple[str, list[str]]]] = {}
    for label, change in _alternatives(spec):
        alt = _alt_spec(spec, change)
        if alt is None:
            continue
        try:
            ad = derive(alt)
            al = derive(alt, patch=_patch_fn(patches))
        except SymattnError:
            continue
        for scope, steps, dd in (("global", wrong_steps, ad), ("local", local_wrong, al)):
            for step in steps:
                cs = [c for c in claims if c.step == step and c.group is None]
                if not cs or any(c.base not in dd for c in cs):
                    continue
                if scope == "local" and change == {"scale": "none"}:
                    try:
                        tried.setdefault(step, []).append(
                            (label, [_node_for(dd, c, patches)[0].decimal(_node_for(dd, c, patches)[1], 6)
                                     for c in cs]))
                    except SymattnError:
                        pass
                try:
                    ok = all(judge(*_node_for(dd, c, patches if scope == "local" else None), c.value, c.ulp)[0]
                             == "correct" for c in cs)
                except (SymattnError, IndexError):
                    ok = False
                masked = _softmax_input(dd, step) if scope == "global" and _feeds_softmax(d, step) else None
                if not ok and masked is not None and any(c.value is None for c in cs):
                    # the page prints -inf in the scores the softmax reads: compare with the masked
                    # scores of a convention that masks them (its softmax reads a later step)
                    ok = _all_correct(dd[masked].node, cs)
                    if ok:
                        found.setdefault((scope, step), []).append(f"{label} (the printed {step} scores are its "
                                                                   f"{masked} scores)")
                        continue
                if ok:
                    found.setdefault((scope, step), []).append(label)
    for scope, steps in (("global", wrong_steps), ("local", local_wrong)):
        for step in steps:
            labels = found.get((scope, step), [])
            entry: dict = {"step": step, "scope": scope, "conventions": labels}
            if scope == "local":
                cs = [c for c in claims if c.step == step and c.group is None]
                entry["local_values"] = [c.local_value for c in cs]
                entry["tried"] = [{"convention": lab, "values": vals} for lab, vals in tried.get(step, [])]
                for lab, vals in tried.get(step, []):
                    if not labels and step.split(".")[-1] == "weights":
                        report.conventions.append(
                            f"{step}: from the page's own numbers, the file's convention gives "
                            f"{', '.join(entry['local_values'])}; {lab} gives {', '.join(vals)}; "
                            f"the page prints {', '.join(c.claimed for c in cs)}")
            report.diagnosis.append(entry)
            if labels:
                src = "the file's inputs" if scope == "global" else "the page's own earlier numbers"
                report.conventions.append(f"{step}: the printed numbers follow from {src} with "
                                          + " or with ".join(labels))
            elif scope == "global":
                report.conventions.append(f"{step}: no tried convention explains the printed numbers")
