"""Property-based tests (Hypothesis, derandomized, bounded): every certified digit of random
valid examples against an independent mpmath attention, and the invariants of attention.

The specs come from ``tests/mp_attention.py`` (2–6 tokens, widths 1–4, every layout, scales,
temperatures, causal/bottom-right/boolean masks, biases, finite mask values including -1e9,
heads, cross-attention, focus queries). ``benchmarks/exact_vs_mpmath.py`` runs the same
check on 500+ specs.
"""

from decimal import MAX_EMAX, MIN_EMIN, Decimal, localcontext
from fractions import Fraction

import pytest
import sympy
from flint import arb
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

import symattn as sa
from mp_attention import NUMBERS, allowed, check_one, random_spec, relayout
from symattn.exact import nodes as V
from symattn.exact.certify import workprec

# no shrinking: a failing example's spec is in the assertion message, and shrinking a spec
# through derivations can take minutes
SETTINGS = settings(max_examples=100, derandomize=True, deadline=None, database=None,
                    phases=[Phase.explicit, Phase.generate],
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
DIGITS = 30


class HypDraw:
    """The ``draw`` interface of ``mp_attention.random_spec`` on Hypothesis data."""

    def __init__(self, data: st.DataObject) -> None:
        self.data = data

    def int(self, lo: int, hi: int) -> int:
        return self.data.draw(st.integers(lo, hi))

    def choice(self, seq):
        return self.data.draw(st.sampled_from(list(seq)))

    def flip(self, p: float = 0.5) -> bool:
        return self.data.draw(st.integers(0, 99)) < int(p * 100)


def derive(spec: dict):
    return sa.derive(sa.from_dict(spec))


@SETTINGS
@given(st.data())
def test_every_certified_digit_is_mpmath_correctly_rounded(data):
    spec = random_spec(HypDraw(data))
    count, bad = check_one(spec, derive, DIGITS)
    assert count > 0
    assert bad == [], (spec, bad)


# ---- invariants ----


def _weights_lines(step, axis: str) -> list[list[str]]:
    dec = step.value.decimals(DIGITS)
    return dec if axis == "keys" else [list(c) for c in zip(*dec)]


@SETTINGS
@given(st.data())
def test_weights_rows_sum_to_one(data):
    spec = random_spec(HypDraw(data))
    conv = spec["convention"]
    axis = conv.get("softmax_axis", "keys")
    if axis == "queries" and "query" in conv:
        return  # one row of a softmax over queries: its columns are cut, nothing sums to 1
    d = derive(spec)
    for name in d.names:
        if name.split(".")[-1] != "weights":
            continue
        step = d[name]
        node = step.value if axis == "keys" else V.transpose(step.value)
        for i, line in enumerate(_weights_lines(step, axis)):
            with localcontext() as ctx:
                ctx.Emax, ctx.Emin, ctx.prec = MAX_EMAX, MIN_EMIN, 100
                total = sum((Decimal(x) for x in line), Decimal(0))
                if total == 0:  # a fully masked row, documented as zeros
                    assert conv.get("masked_rows") == "zero", (spec, name, i)
                    continue
                # the printed digits: within the rounding of the printed numbers
                slack = sum((Decimal(1).scaleb(Decimal(x).adjusted() - DIGITS + 1) / 2 for x in line if x != "0"),
                            Decimal(0))
                assert abs(total - 1) <= slack, (spec, name, i, line)
            # the enclosures: their sum contains 1, and is narrow
            with workprec(256):
                balls = node.ball_mat(256).tolist()[i]
                s = sum(balls[1:], balls[0])
                assert s.contains(1) and s.rad() < arb(2) ** -200, (spec, name, i)


@SETTINGS
@given(st.data())
def test_shift_invariance(data):
    n = data.draw(st.integers(2, 5))
    m = data.draw(st.integers(2, 5))
    scores = [[data.draw(st.sampled_from(NUMBERS)) for _ in range(m)] for _ in range(n)]
    shift = [data.draw(st.sampled_from(NUMBERS)) for _ in range(n)]
    mask = data.draw(st.sampled_from(["none", "causal", "causal_bottom_right"]))
    conv = {"scale": data.draw(st.sampled_from(["none", "1/sqrt(2)", "3/2"])), "mask": mask, "masked_rows": "zero"}
    base = {"inputs": {"scores": scores, "V": [["1"]] * m}, "convention": conv}
    tau = {"none": Fraction(1), "3/2": Fraction(3, 2)}.get(conv["scale"])
    if tau is not None:  # softmax(τS) against softmax(τS + c), the latter written unscaled
        moved = [[str(tau * Fraction(x) + Fraction(c)) for x in r] for r, c in zip(scores, shift)]
        shifted_conv = dict(conv, scale="none")
    else:  # τ = 1/√2: τ(S + c) = τS + τc, again one constant per row
        moved = [[str(Fraction(x) + Fraction(c)) for x in r] for r, c in zip(scores, shift)]
        shifted_conv = conv
    shifted = {"inputs": {"scores": moved, "V": [["1"]] * m}, "convention": shifted_conv}
    a = derive(base)["weights"].decimals(DIGITS)
    b = derive(shifted)["weights"].decimals(DIGITS)
    assert a == b
    ok = allowed(conv, n, m)
    assert all(a[i][j] == "0" for i in range(n) for j in range(m) if not ok[i][j])


@SETTINGS
@given(st.data())
def test_multi_head_is_the_concatenation_of_single_heads(data):
    heads = data.draw(st.integers(2, 3))
    dk = data.draw(st.integers(1, 2))
    dv = data.draw(st.integers(1, 2))
    n, m = data.draw(st.integers(2, 4)), data.draw(st.integers(2, 4))
    mat = lambda r, c: [[data.draw(st.sampled_from(NUMBERS)) for _ in range(c)] for _ in range(r)]  # noqa: E731
    Q, K, Vm = mat(n, heads * dk), mat(m, heads * dk), mat(m, heads * dv)
    conv = {"mask": data.draw(st.sampled_from(["none", "causal_bottom_right"])), "scale": "1/sqrt(d_k)",
            "masked_rows": "zero"}
    multi = derive({"inputs": {"Q": Q, "K": K, "V": Vm}, "convention": dict(conv, heads=heads)})
    out = multi["output"].decimals(DIGITS)
    for h in range(heads):
        cols = lambda M, w: [r[h * w:(h + 1) * w] for r in M]  # noqa: E731
        single = derive({"inputs": {"Q": cols(Q, dk), "K": cols(K, dk), "V": cols(Vm, dv)}, "convention": conv})
        assert single["output"].decimals(DIGITS) == [r[h * dv:(h + 1) * dv] for r in out]
        assert single["weights"].decimals(DIGITS) == multi[f"head{h + 1}.weights"].decimals(DIGITS)


@SETTINGS
@given(st.data())
def test_row_torch_and_column_layouts_give_the_same_weights(data):
    spec = random_spec(HypDraw(data))
    results = {}
    for layout in ("row", "torch", "column"):
        d = derive(relayout(spec, layout))
        results[layout] = {name: d[name].value.decimals(DIGITS) for name in d.names
                           if name.split(".")[-1] in ("weights", "output", "scores")}
    assert results["row"] == results["torch"] == results["column"]


def test_relayout_changes_what_is_written():
    # the layout test is not vacuous: the files differ, the values do not
    spec = {"inputs": {"X": [["1", "2"]], "Wq": [["1", "0", "2"], ["0", "1", "3"]], "Wk": [["1"] * 3] * 2,
                       "Wv": [["1"] * 3] * 2}, "convention": {"layout": "row"}}
    torch = relayout(spec, "torch")
    assert torch["inputs"]["Wq"] == [["1", "0"], ["0", "1"], ["2", "3"]]
    column = relayout(spec, "column")
    assert column["inputs"]["X"] == [["1"], ["2"]]
    assert derive(spec)["Q"].value.exact() == derive(torch)["Q"].value.exact() == \
        derive(column)["Q"].value.exact() == sympy.Matrix([[1, 2, 8]])


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_reference_itself_catches_a_wrong_digit(seed):
    # the mpmath comparison can fail: one changed digit is found
    from mp_attention import RandomDraw, compare

    spec = random_spec(RandomDraw(seed))
    d = derive(spec)
    step = d["weights"] if "weights" in d.names else d[[n for n in d.names if n.endswith("weights")][0]]
    dec = step.value.decimals(DIGITS)
    i, j = next((i, j) for i, r in enumerate(dec) for j, x in enumerate(r) if len(x) > 20 and "e" not in x)
    text = dec[i][j]
    dec[i][j] = text[:-1] + str((int(text[-1]) + 1) % 10)
    try:
        assert any(step.name in b for b in compare(spec, d, DIGITS))
    finally:
        dec[i][j] = text
