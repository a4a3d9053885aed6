"""Undefined values never get digits (issue 8, item 4, the exact side).

The guarantee sits where digits are made (``Node.decimals``/``Node.decimal``, and the
checker's ``judge``): a value computed from an undefined one (0/0, ∞ − ∞, NaN, a division
by zero, a -inf that reaches anything but a softmax or a normalisation) is an error
naming the step and the entry. Expected values here are worked out by hand or with
Fractions, independently of symattn.
"""

from fractions import Fraction

import pytest
import sympy

import symattn as sa
from symattn.cli import main
from symattn.errors import UndefinedValueError
from symattn.exact import nodes as V


def cli(tmp_path, capsys, text, *args):
    path = tmp_path / "ex.toml"
    path.write_text(text)
    code = main([args[0], str(path), *args[1:]])
    out, err = capsys.readouterr()
    return code, out, err


def sum_normalized(rows, allowed):
    """x_ij / Σ_k x_ik over the allowed keys, 0 elsewhere (the documented meaning)."""
    out = []
    for i, r in enumerate(rows):
        keys = [j for j in range(len(r)) if allowed(i, j)]
        total = sum(Fraction(r[j]) for j in keys)
        out.append([Fraction(r[j]) / total if j in keys else Fraction(0) for j in range(len(r))])
    return out


# ---- normalization = "sum" with masks: a documented meaning ----


def test_sum_normalization_with_a_causal_mask_leaves_masked_keys_out():
    spec = sa.from_dict({"inputs": {"Q": [[1], [2], [3]], "K": [[1], [2], [3]], "V": [[1], [2], [3]]},
                         "convention": {"mask": "causal", "normalization": "sum"}})
    d = sa.derive(spec)
    scores = [[i * j for j in (1, 2, 3)] for i in (1, 2, 3)]
    expected = sum_normalized(scores, lambda i, j: j <= i)
    assert d["weights"].exact == sympy.Matrix(expected)
    assert d["weights"].decimals(6) == [["1", "0", "0"], ["0.333333", "0.666667", "0"], ["0.166667", "0.333333", "0.5"]]
    outputs = [sum(w * v for w, v in zip(row, (1, 2, 3))) for row in expected]
    assert d["output"].exact == sympy.Matrix([[o] for o in outputs])  # 1, 5/3, 7/3: never nan
    assert "nan" not in sa.text(d)


def test_sum_normalization_with_a_finite_mask_value_keeps_the_replaced_entries():
    # masked_fill semantics: the replaced value (-2) is an ordinary entry of its row
    spec = sa.from_dict({"inputs": {"scores": [[1, 3], [2, 4]], "V": [[1], [2]]},
                         "convention": {"mask": "causal", "mask_value": "-2", "normalization": "sum",
                                        "scale": "none"}})
    d = sa.derive(spec)
    assert d["weights"].exact == sympy.Matrix(sum_normalized([[1, -2], [2, 4]], lambda i, j: True))
    assert d["weights"].decimals(6) == [["-1", "2"], ["0.333333", "0.666667"]]


def test_a_row_that_sums_to_zero_is_an_error_naming_the_step_and_row(tmp_path, capsys):
    text = """title = "t"
[inputs]
Q = [[1], [2], [3]]
K = [[1], [-1], [3]]
V = [[1], [2], [3]]
[convention]
mask = "causal"
normalization = "sum"
scale = "1/sqrt(2)"
"""
    code, out, err = cli(tmp_path, capsys, text, "derive")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "Traceback" not in err
    assert "weights[2, 1] is undefined" in err and "row 2" in err and "sum to exactly 0" in err
    # the same through JSON, LaTeX and check: never digits
    for args in (("derive", "--json"), ("latex",)):
        code, out, err = cli(tmp_path, capsys, text, *args)
        assert code == 2 and "weights[2, 1] is undefined" in err


def test_sum_normalization_zero_sum_of_irrational_scores_is_found_exactly():
    # τ = 1/sqrt(2): the row sum (1 − 1)/√2 is 0 exactly, seen through the closed form
    s = V.scale(V.rational_matrix([[1, -1]]), 1 / sympy.sqrt(2))
    w = V.normalize(s, "sum")
    w.name_as("weights", ["q"], ["a", "b"])
    with pytest.raises(UndefinedValueError, match=r"weights\[q, a\] is undefined: the entries of row 1"):
        w.decimals(6)


# ---- -inf outside a mask ----


def test_minus_infinity_entering_a_product_is_refused():
    q = V.SympyNode(sympy.Matrix([[-sympy.oo], [2]]))
    q.name_as("Q", ["a", "b"], ["1"])
    scores = V.matmul(q, V.rational_matrix([[1, 2]]))
    scores.name_as("scores", ["a", "b"], ["x", "y"])
    with pytest.raises(UndefinedValueError, match=r"Q\[a, 1\] is undefined: it is -inf .* enters a product"):
        scores.decimals(6)
    assert q.decimals(6) == [["-inf"], ["2"]]  # the input itself prints as written
    w = V.softmax(scores)
    with pytest.raises(UndefinedValueError, match=r"Q\[a, 1\].*\(needed for scores\)|Q\[a, 1\]"):
        w.decimals(6)


def test_minus_infinity_in_q_through_the_cli_never_prints_digits(tmp_path, capsys):
    text = 'title = "t"\n[inputs]\nQ = [["-\\\\infty"], [2]]\nK = [[1], [2]]\nV = [[1], [2]]\n'
    code, out, err = cli(tmp_path, capsys, text, "derive")
    assert code == 2, out
    assert err.count("\n") == 1 and "Traceback" not in err
    assert "0.500000" not in out and "2.00000" not in out


@pytest.mark.parametrize("bad", [sympy.nan, sympy.zoo, sympy.oo])
def test_nan_and_infinite_leaves_get_no_digits(bad):
    m = V.SympyNode(sympy.Matrix([[1, bad]]))
    m.name_as("K", ["k"], ["1", "2"])
    with pytest.raises(UndefinedValueError, match=r"K\[k, 2\] is undefined"):
        m.decimals(6)
    with pytest.raises(UndefinedValueError):
        m.decimal(0, 6)
    with pytest.raises(UndefinedValueError):
        V.attend(V.softmax(V.rational_matrix([[0, 1]])), V.transpose(m)).decimals(6)


def test_an_undefined_scale_or_mask_value_is_refused():
    s = V.scale(V.rational_matrix([[1, 2]]), sympy.zoo)
    with pytest.raises(UndefinedValueError, match="the scale"):
        s.decimals(6)
    m = V.masked(V.rational_matrix([[1, 2]]), replace={(0, 1): sympy.nan})
    with pytest.raises(UndefinedValueError, match="the mask value"):
        V.softmax(m).decimals(6)


def test_masked_scores_still_print_minus_inf_and_weights_zero():
    spec = sa.from_dict({"inputs": {"Q": [[1], [2]], "K": [[1], [2]], "V": [[1], [2]]},
                         "convention": {"mask": "causal"}})
    d = sa.derive(spec)
    assert d["masked"].decimals(6)[0] == ["1", "-inf"]
    assert d["weights"].decimals(6)[0] == ["1", "0"]


def test_check_refuses_claims_on_undefined_values(tmp_path, capsys):
    text = """title = "t"
[inputs]
scores = [[1, -1], [2, 1]]
V = [[1], [2]]
[convention]
normalization = "sum"
scale = "none"
[claims]
weights = [[0.5, 0.5], [0.6667, 0.3333]]
"""
    code, out, err = cli(tmp_path, capsys, text, "check")
    assert code == 2 and err.count("\n") == 1
    assert "weights[1, 1] is undefined" in err
