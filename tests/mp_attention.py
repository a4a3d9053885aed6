"""Random valid worked examples, and an independent attention in mpmath to check them against.

``random_spec(draw)`` builds a spec dict (the file format) from a ``draw`` object with
``int(lo, hi)``, ``choice(seq)`` and ``flip(p)``: Hypothesis drives it in the test suite,
``random.Random`` in ``benchmarks/exact_vs_mpmath.py``. ``reference(spec, dps)`` computes
every step from the same dict with mpmath at ``dps`` digits. It shares no code with symattn:
it reads the numbers with :class:`fractions.Fraction`, applies the layout, masks, biases,
heads and scale by the definitions in the README (Vaswani et al. eq. 1; ``masked_fill``
for finite mask values; PyTorch SDPA for boolean masks), and builds each step in row form
(tokens as rows). ``rounds_correctly(text, hi, lo, digits)`` says whether a certified decimal
is the value rounded to ``digits`` significant digits, half away from zero.
"""

from __future__ import annotations

import random
from decimal import MAX_EMAX, MIN_EMIN, ROUND_HALF_UP, Decimal, localcontext
from fractions import Fraction
from typing import Any, Callable, Sequence

import mpmath

Matrix = list[list[Any]]

NUMBERS = ["0", "1", "-1", "2", "-3", "1/2", "-1/3", "2/7", "0.25", "-0.6", "1.5", "3/4", "-2/5", "0.1",
           "5/3", "-1.25", "4", "7/10", "-9/8", "1e-3"]
SCALES = ["1/sqrt(d_k)", "none", "0.125", "1/sqrt(2)", "3/2"]
TEMPERATURES = [None, "2", "1/2", "3/2"]
MASK_VALUES = [None, "-inf", "-1e9", "-5", "0", "-1/3"]


class RandomDraw:
    """``draw`` backed by :class:`random.Random`."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def int(self, lo: int, hi: int) -> int:
        return self.rng.randint(lo, hi)

    def choice(self, seq: Sequence[Any]) -> Any:
        return seq[self.rng.randrange(len(seq))]

    def flip(self, p: float = 0.5) -> bool:
        return self.rng.random() < p


def relayout(spec: dict, layout: str) -> dict:
    """The same example written in another layout."""
    old = spec["convention"].get("layout", "row")
    inputs = {}
    for name, m in spec["inputs"].items():
        if name in ("bq", "bk", "bv", "bo", "scores"):
            inputs[name] = m
            continue
        token = name in ("X", "X_kv", "Q", "K", "V")
        row = m if old == "row" or (old == "torch" and token) else _t(m)
        inputs[name] = row if layout == "row" or (layout == "torch" and token) else _t(row)
    return {**spec, "inputs": inputs, "convention": {**spec["convention"], "layout": layout}}


def _mat(draw: Any, r: int, c: int) -> Matrix:
    return [[draw.choice(NUMBERS) for _ in range(c)] for _ in range(r)]


def _t(m: Matrix) -> Matrix:
    return [list(r) for r in zip(*m)]


def allowed(conv: dict, nq: int, nk: int) -> list[list[bool]]:
    """(query, key) pairs that may attend, from the mask alone."""
    mask = conv.get("mask", "none")
    if mask == "causal":
        ok = [[j <= i for j in range(nk)] for i in range(nq)]
    elif mask == "causal_bottom_right":
        ok = [[j <= i + nk - nq for j in range(nk)] for i in range(nq)]
    elif isinstance(mask, list):
        ok = [list(r) for r in mask]
    else:
        ok = [[True] * nk for _ in range(nq)]
    if "window" in conv:  # sliding window, aligned like the causal mask (bottom-right or top-left)
        off = nk - nq if mask == "causal_bottom_right" else 0
        left, right = (None if str(w) == "inf" else int(w) for w in conv["window"])
        ok = [[ok[i][j] and (left is None or j >= i + off - left) and (right is None or j <= i + off + right)
               for j in range(nk)] for i in range(nq)]
    return ok


def random_spec(draw: Any) -> dict:
    """A valid worked example: 2–6 tokens, widths 1–4, a layout, scale, temperature, mask,
    bias, finite or infinite mask value, heads, cross-attention and a focus query."""
    layout = draw.choice(["row", "torch", "column"])
    nq = draw.int(2, 6)
    cross = draw.flip(0.3)
    nk = draw.int(2, 6) if cross else nq
    heads = draw.choice([1, 1, 2])
    dk = draw.int(1, 4 // heads)  # per head
    dv = draw.int(1, 4 // heads)
    stage = draw.choice(["x", "x", "qkv", "scores"])
    if stage == "scores":
        heads = 1
    inputs: dict[str, Any] = {}
    conv: dict[str, Any] = {"layout": layout}

    def put(name: str, row_form: Matrix, weight: bool = False) -> None:
        # write a row-form matrix (tokens as rows; weights (d_in, d_out)) in the layout
        if layout == "row":
            inputs[name] = row_form
        elif layout == "torch":
            inputs[name] = _t(row_form) if weight else row_form
        else:
            inputs[name] = _t(row_form)

    if stage == "x":
        dm = draw.int(1, 4)
        put("X", _mat(draw, nq, dm))
        if cross:
            put("X_kv", _mat(draw, nk, dm))
        for w, width in (("Wq", heads * dk), ("Wk", heads * dk), ("Wv", heads * dv)):
            put(w, _mat(draw, dm, width), weight=True)
        for b, width in (("bq", heads * dk), ("bk", heads * dk), ("bv", heads * dv)):
            if draw.flip(0.25):
                inputs[b] = [draw.choice(NUMBERS) for _ in range(width)]
    elif stage == "qkv":
        put("Q", _mat(draw, nq, heads * dk))
        put("K", _mat(draw, nk, heads * dk))
        put("V", _mat(draw, nk, heads * dv))
    else:
        inputs["scores"] = _mat(draw, nq, nk)
        put("V", _mat(draw, nk, dv))
        conv["d_k"] = dk
    if heads > 1:
        conv["heads"] = heads
        if draw.flip(0.5):
            dout = draw.int(1, 3)
            put("Wo", _mat(draw, heads * dv, dout), weight=True)
            if draw.flip(0.5):
                inputs["bo"] = [draw.choice(NUMBERS) for _ in range(dout)]
    conv["scale"] = draw.choice(SCALES + (["2/sqrt(d_model)"] if stage == "x" else []))
    t = draw.choice(TEMPERATURES)
    if t is not None:
        conv["temperature"] = t
    mask = draw.choice(["none", "causal", "causal_bottom_right", "matrix"])
    if mask == "matrix":
        conv["mask"] = [[draw.flip(0.7) for _ in range(nk)] for _ in range(nq)]
    elif mask != "none":
        conv["mask"] = mask
    if draw.flip(0.3):
        bias = _mat(draw, nq, nk)
        for r in bias:
            if draw.flip(0.3):
                r[draw.int(0, nk - 1)] = "-inf"
        conv["bias"] = bias
    mv = draw.choice(MASK_VALUES)
    if mv is not None and (mask != "none" or "bias" in conv):
        conv["mask_value"] = mv
    axis = draw.choice(["keys", "keys", "keys", "queries"])
    if axis == "queries":
        conv["softmax_axis"] = axis
    # a row (column) with every key masked: weights 0, as documented
    if any(not any(line) for line in _live(conv, nq, nk, axis)):
        conv["masked_rows"] = "zero"
    if draw.flip(0.3):
        conv["query"] = draw.int(1, nq)
    return {"title": "random", "inputs": inputs, "convention": conv}


def _live(conv: dict, nq: int, nk: int, axis: str) -> list[list[bool]]:
    """Lines (rows for keys, columns for queries) of entries that are not -inf."""
    ok = allowed(conv, nq, nk)
    infinite = conv.get("mask_value", "-inf") == "-inf"
    live = [[ok[i][j] or not infinite for j in range(nk)] for i in range(nq)]
    for i, r in enumerate(conv.get("bias") or []):
        for j, x in enumerate(r):
            if x == "-inf" and ok[i][j]:
                live[i][j] = False
    return live if axis == "keys" else _t(live)


# ---------------------------------------------------------------------------------------
# the reference


def _num(x: Any) -> mpmath.mpf:
    q = Fraction(str(x))
    return mpmath.mpf(q.numerator) / q.denominator


def _row_form(spec: dict, name: str) -> Matrix | None:
    m = spec["inputs"].get(name)
    if m is None:
        return None
    layout = spec["convention"].get("layout", "row")
    if name in ("bq", "bk", "bv", "bo"):
        return [[_num(x) for x in m]]
    rows = [[_num(x) for x in r] for r in m]
    if name == "scores" or layout == "row" or (layout == "torch" and name in ("X", "X_kv", "Q", "K", "V")):
        return rows
    return _t(rows)


def _matmul(a: Matrix, b: Matrix) -> Matrix:
    return [[mpmath.fsum(a[i][k] * b[k][j] for k in range(len(b))) for j in range(len(b[0]))] for i in range(len(a))]


def _add_row(a: Matrix, b: Matrix | None) -> Matrix:
    return a if b is None else [[x + y for x, y in zip(r, b[0])] for r in a]


def _softmax(rows: Matrix, live: list[list[bool]]) -> Matrix:
    out = []
    for r, ok in zip(rows, live):
        keys = [j for j, good in enumerate(ok) if good]
        if not keys:
            out.append([mpmath.mpf(0)] * len(r))
            continue
        m = max(r[j] for j in keys)
        e = {j: mpmath.exp(r[j] - m) for j in keys}
        z = mpmath.fsum(e.values())
        out.append([e[j] / z if j in e else mpmath.mpf(0) for j in range(len(r))])
    return out


def reference(spec: dict, dps: int) -> dict[str, Matrix]:
    """Every step of ``spec`` in row form, computed with mpmath at ``dps`` digits (masked
    scores are ``-inf``; ``weighted`` is (queries, keys, d_v))."""
    conv = spec["convention"]
    out: dict[str, Matrix] = {}
    with mpmath.workdps(dps):
        X, Xkv = _row_form(spec, "X"), _row_form(spec, "X_kv")
        kv = Xkv if Xkv is not None else X
        heads = conv.get("heads", 1)
        query = conv.get("query")
        axis = conv.get("softmax_axis", "keys")
        scores_given = _row_form(spec, "scores")
        if scores_given is None:
            proj = {}
            for t, w, b, src in (("Q", "Wq", "bq", X), ("K", "Wk", "bk", kv), ("V", "Wv", "bv", kv)):
                given = _row_form(spec, t)
                proj[t] = given if given is not None else _add_row(_matmul(src, _row_form(spec, w)),
                                                                   _row_form(spec, b))
            Q, K, V = proj["Q"], proj["K"], proj["V"]
            dk = len(Q[0]) // heads
            dm = len(X[0]) if X is not None else None
        else:
            V = _row_form(spec, "V")
            dk, dm = conv.get("d_k"), None
        nq = len(scores_given) if scores_given is not None else len(Q)
        nk = len(V) if V is not None else len(scores_given[0])  # type: ignore[index]
        rows = [query - 1] if (query is not None and axis == "keys") else list(range(nq))
        groups = conv.get("kv_heads", heads)  # grouped-query: query head h uses key/value head h // (heads/groups)
        dv = len(V[0]) // groups
        s = conv.get("scale", "1/sqrt(d_k)")
        scale = {"1/sqrt(d_k)": lambda: 1 / mpmath.sqrt(dk), "none": lambda: mpmath.mpf(1),
                 "1/sqrt(2)": lambda: 1 / mpmath.sqrt(2), "2/sqrt(d_model)": lambda: 2 / mpmath.sqrt(dm)}.get(
            s, lambda: _num(s))()
        tau = scale / _num(conv.get("temperature", "1"))
        ok = allowed(conv, nq, nk)
        mv = conv.get("mask_value", "-inf")
        bias = conv.get("bias")
        live = _live(conv, nq, nk, "keys")
        if scores_given is None:
            out["Q"] = [Q[i] for i in rows]
            out["K"], out["V"] = K, V
        elif "V" in spec["inputs"]:
            out["V"] = V
        outs = []
        for h in range(heads):
            p = f"head{h + 1}." if (heads > 1 or "Wo" in spec["inputs"]) else ""
            g = h % groups if conv.get("kv_order") == "tile" else h // (heads // groups)
            if scores_given is None:
                Qh = [r[h * dk:(h + 1) * dk] for r in Q]
                Kh = [r[g * dk:(g + 1) * dk] for r in K]
                S = _matmul(Qh, _t(Kh))
                if p:
                    out[p + "Q"] = [Qh[i] for i in rows]
                    out[p + "K"] = Kh
                    out[p + "V"] = [r[g * dv:(g + 1) * dv] for r in V]
            else:
                S = scores_given
            Vh = [r[g * dv:(g + 1) * dv] for r in V]
            out[p + "scores"] = [S[i] for i in rows]
            St = [[tau * x for x in r] for r in S]
            out[p + "scaled"] = [St[i] for i in rows]
            M = [[St[i][j] + (_num(bias[i][j]) if bias and bias[i][j] != "-inf" else 0) for j in range(nk)]
                 for i in range(nq)]
            for i in range(nq):
                for j in range(nk):
                    if not ok[i][j]:
                        M[i][j] = -mpmath.inf if mv == "-inf" else _num(mv)
                    elif not live[i][j]:
                        M[i][j] = -mpmath.inf
            if conv.get("mask", "none") != "none" or bias is not None or "window" in conv:
                out[p + "masked"] = [M[i] for i in rows]
            P = _softmax(M, live) if axis == "keys" else _t(_softmax(_t(M), _t(live)))
            P = [P[i] for i in ([query - 1] if query is not None else range(nq))]
            out[p + "weights"] = P
            if "V" in spec["inputs"] or "Wv" in spec["inputs"]:
                out[p + "weighted"] = [[[P[i][j] * Vh[j][l] for l in range(dv)] for j in range(nk)]
                                       for i in range(len(P))]
                O = _matmul(P, Vh)
                out[p + "output"] = O
                outs.append(O)
        if heads > 1 or "Wo" in spec["inputs"]:
            cat = [sum((o[i] for o in outs), []) for i in range(len(outs[0]))]
            out["concat"] = cat
            Wo = _row_form(spec, "Wo")
            out["output"] = cat if Wo is None else _add_row(_matmul(cat, Wo), _row_form(spec, "bo"))
    return out


# ---------------------------------------------------------------------------------------
# correct rounding


def _sig_digits(text: str) -> int:
    return len(Decimal(text).normalize().as_tuple().digits) if Decimal(text) != 0 else 0


def rounds_correctly(text: str, hi: Any, lo: Any, digits: int) -> bool:
    """Whether ``text`` (a certified decimal) is the value rounded to ``digits`` significant
    digits, half away from zero, or the exact value when it has fewer digits. ``hi`` and
    ``lo`` are the value computed at two precisions (a cancellation to 0 shows as noise
    that differs between them)."""
    if text == "-inf":
        return hi == -mpmath.inf
    if hi == -mpmath.inf:
        return False
    if text == "0":
        if hi == 0:
            return True
        stable = abs(hi - lo) < abs(hi) / 2
        return not stable and abs(lo) < mpmath.mpf(10) ** -60
    d = Decimal(text)
    n = len(d.as_tuple().digits)
    if n < digits:  # printed exactly: a terminating rational
        return abs(hi - mpmath.mpf(text)) <= abs(hi) * mpmath.mpf(10) ** -(mpmath.mp.dps - 15)
    if n != digits:
        return False
    exact = Decimal(mpmath.nstr(hi, mpmath.mp.dps - 10, strip_zeros=False, min_fixed=1, max_fixed=0))
    with localcontext() as ctx:
        ctx.prec = digits
        ctx.rounding = ROUND_HALF_UP  # half away from zero
        ctx.Emax, ctx.Emin = MAX_EMAX, MIN_EMIN  # exp(-1e9) is a fine value
        expected = +exact
    return expected == d


def compare(spec: dict, derivation: Any, digits: int = 30, dps: int = 80) -> list[str]:
    """Every printed digit of every step against the reference; the list of mismatches
    (empty when every digit is right). Steps are compared in row form, and the shown
    (transposed) form too."""
    hi = reference(spec, dps + 30)
    lo = reference(spec, dps)
    bad = []
    names = derivation.names
    missing = sorted(set(hi) - set(names))
    if missing:
        bad.append(f"steps missing: {missing}")
    with mpmath.workdps(dps + 30):
        for name in names:
            if name not in hi:
                continue
            step = derivation[name]
            dec = step.value.decimals(digits)
            want_hi, want_lo = hi[name], lo[name]
            for idx, text, h, lw in _walk(dec, want_hi, want_lo):
                if not rounds_correctly(text, h, lw, digits):
                    bad.append(f"{name}{idx}: printed {text}, mpmath {mpmath.nstr(h, digits + 5)}")
            if step.transposed:
                shown = step.node.decimals(digits)
                if shown != [list(r) for r in zip(*dec)]:
                    bad.append(f"{name}: the shown (transposed) decimals differ from the row form")
    return bad


def _walk(dec: Any, hi: Any, lo: Any, idx: tuple = ()) -> Any:
    if isinstance(dec, str):
        yield idx, dec, hi, lo
        return
    if len(dec) != len(hi):
        raise AssertionError(f"shape differs at {idx}: {len(dec)} vs {len(hi)}")
    for k, (d, h, lw) in enumerate(zip(dec, hi, lo)):
        yield from _walk(d, h, lw, idx + (k,))


def check_one(spec: dict, derive: Callable[[dict], Any], digits: int = 30) -> tuple[int, list[str]]:
    """(number of printed values compared, mismatches) for one spec."""
    d = derive(spec)
    bad = compare(spec, d, digits)
    count = 0
    for name in d.names:
        dec = d[name].value.decimals(digits)
        count += sum(1 for _ in _walk(dec, dec, dec))
    return count, bad
