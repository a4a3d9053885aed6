"""Undecided is not an error (issue 8, item 8): a claim whose verdict cannot be decided
within the precision limit is reported ``undecided`` with its certified enclosure, and the
rest of the report stands."""

from fractions import Fraction

import mpmath
import pytest

import symattn as sa
from symattn.analyses import check as C
from symattn.cli import main
from symattn.exact import nodes as V

# The README's mask_value = -1e9 example with a claim of 0.9 for a weight of 1 − 4.6e-434294483:
# 0.9 is that weight truncated to one decimal, but telling 1 − 10^-434294483 from 1 would take
# about 1.4·10^9 bits, far past the precision limit.
TEXT = """title = "mask value -1e9, one claim that cannot be decided"
[inputs]
Q = [[1], [2]]
K = [[1], [2]]
V = [[1], [2]]
[convention]
mask = "causal"
mask_value = -1e9
[claims]
weights = [[0.9, 0], [0.1192, 0.8809]]
output = [[1.0000], [1.8808]]
"""


def test_an_undecidable_claim_is_undecided_and_the_report_stands():
    r = sa.check(sa.loads(TEXT))
    c = r.find("weights", "1", "1")
    assert c.verdict == "undecided" and not c.ok
    lo, hi = c.enclosure.strip("[]").split(", ")
    with mpmath.workdps(50):
        exact = 1 / (1 + mpmath.exp(-(mpmath.mpf(10) ** 9 + 1)))
        assert mpmath.mpf(lo) <= exact <= mpmath.mpf(hi)
    assert "not decided" in c.note
    # every other claim is judged as usual
    assert r.find("weights", "1", "2").verdict == "correct"
    assert r.find("weights", "2", "1").verdict == "correct"  # 0.119203 -> 0.1192
    assert r.find("weights", "2", "2").verdict == "wrong"  # 0.880797 -> 0.8808, not 0.8809
    assert r.find("output", "2", "1").verdict == "correct"
    s = r.summary()
    assert (s["undecided"], s["wrong"], s["correct"]) == (1, 1, 4)
    assert r.undecided == [c] and not r.all_right
    assert r.first_wrong_step == "weights"


def test_the_cli_reports_undecided_with_exit_1_not_2(tmp_path, capsys):
    path = tmp_path / "u.toml"
    path.write_text(TEXT.replace("0.8809", "0.8808"))
    assert main(["check", str(path)]) == 1  # not all right, but not an error either
    out, err = capsys.readouterr()
    assert err == "" and "1 undecided" in out and "?  weights[1, 1]" in out
    assert main(["check", str(path), "--json"]) == 1
    data = __import__("json").loads(capsys.readouterr()[0])
    assert data["summary"]["undecided"] == 1 and data["claims"][0]["enclosure"].startswith("[")


def test_judge_is_undecided_past_its_limit(monkeypatch):
    # 5e-41 + e^-200 (≈ 1.4e-87) against the claim "0" with a unit of 1e-40: the value is past
    # the rounding boundary 5e-41 by 3·10^-47 of it. At the default limit that is decided
    # (truncated: 0 is the value cut off); at 128 bits it is not.
    w = V.softmax(V.rational_matrix([[0, 200]]))
    near = V.elementwise("add", w, V.rational_matrix([[Fraction(1, 2 * 10**40), 0]]))
    assert C.judge(near, 0, Fraction(0), Fraction(1, 10**40))[0] == "truncated"
    monkeypatch.setattr(C, "JUDGE_MAX_PREC", 128)
    near = V.elementwise("add", w, V.rational_matrix([[Fraction(1, 2 * 10**40), 0]]))
    assert C.judge(near, 0, Fraction(0), Fraction(1, 10**40))[0] == "undecided"
    assert C.judge(w, 0, Fraction(0), Fraction(1, 10**40))[0] == "correct"


def test_a_claim_with_400_digits_is_judged():
    with mpmath.workdps(450):
        exact = 1 / (1 + mpmath.exp(1))
        claimed = mpmath.nstr(exact, 400, strip_zeros=False)
    text = f"""title = "t"
[inputs]
scores = [[0, 1]]
V = [[1], [2]]
[convention]
scale = "none"
[claims]
weights = [["{claimed}", ".."]]
"""
    r = sa.check(sa.loads(text))
    assert r.find("weights", "1", "1").verdict == "correct"
    wrong = text.replace(claimed, claimed[:-1] + str((int(claimed[-1]) + 2) % 10))
    assert sa.check(sa.loads(wrong)).find("weights", "1", "1").verdict == "wrong"


@pytest.mark.parametrize("claimed,ulp,expected", [("0.3012", "0.0001", 15), ("2", "1", 15),
                                                   ("0." + "1" * 400, "1e-400", 403)])
def test_claim_digits_are_computed_exactly(claimed, ulp, expected):
    c = C.Claim("w", "a", "b", (0, 0), claimed, "f", value=Fraction(claimed), ulp=Fraction(ulp))
    assert C._claim_digits(c) == expected
