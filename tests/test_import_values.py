"""Steps told by their numbers (symattn/analyses/importer_values.py): on a page that prints the steps of
attention under names the importer does not read and none of their inputs, which printed block is which.
Tables of (blocks, what they must be); every expected relation worked by hand below."""

import math

import pytest

from import_snippets import claims, imported, notebook
from symattn.analyses.importer_values import chains_by_values, steps_by_values

# softmax(1, 0) = (0.731, 0.269); softmax(2, 0) = (0.881, 0.119); softmax(0, 0) = (0.5, 0.5)
assert f"{math.e / (math.e + 1):.3f}" == "0.731" and f"{math.e ** 2 / (math.e ** 2 + 1):.3f}" == "0.881"

S = [["2.00", "0.00"], ["0.00", "2.00"]]  # scores
SC = [["1.0", "0.0"], ["0.0", "1.0"]]     # scaled: S / √4 (2.00 / 1.0 lies in [1.985, 2.015]: √4 only)
W = [["0.731", "0.269"], ["0.269", "0.731"]]
V = [["1", "3"], ["5", "7"]]
O = [["2.076", "4.076"], ["3.924", "5.924"]]  # W·V: 0.731·(1, 3) + 0.269·(5, 7) = (2.076, 4.076)
M = [["1.0", "-inf"], ["0.0", "1.0"]]     # SC masked causally
MW = [["1.000", "0.000"], ["0.269", "0.731"]]

CASES = [
    ({0: S, 1: SC, 2: W}, {0: "scores", 1: "scaled", 2: "weights"}),
    ({0: SC, 1: W}, {0: "scores", 1: "weights"}),                  # nothing divides into it: taken as printed
    ({0: SC, 1: M, 2: MW}, {0: "scores", 1: "masked", 2: "weights"}),   # nothing divides into SC: the scores
    ({0: SC, 1: W, 2: V, 3: O}, {0: "scores", 1: "weights", 2: "V", 3: "output"}),
    ({0: [["0.50", "0.50"], ["0.25", "0.75"]], 1: [["1", "2"], ["3", "4"]], 2: [["2.0", "3.0"], ["2.5", "3.5"]]},
     {0: "weights", 1: "V", 2: "output"}),                          # weights times values, no scores printed
    ({0: [["1.00", "0.00", "0.00"], ["0.50", "0.50", "0.00"], ["0.33", "0.33", "0.34"]]}, {0: "weights"}),  # causal
    ({0: [["0.20", "0.80"], ["0.60", "0.40"]]}, {}),                # probabilities alone: nothing says attention
    ({0: [["1", "0"], ["0", "1"]]}, {}),                            # the identity is no causal weights
    ({0: [["0.1", "0.2"]], 1: [["0.5", "0.5"]]}, {}),               # one decimal says too little
    ({0: SC, 1: [["0.800", "0.200"], ["0.269", "0.731"]]}, {}),     # one row not the softmax (0.731 ± 0.05)
]


@pytest.mark.parametrize("blocks,want", CASES, ids=range(len(CASES)))
def test_steps_by_values(blocks, want):
    assert steps_by_values(blocks) == want


def test_two_chains_on_one_page():
    causal = [["1.00", "0.00", "0.00"], ["0.50", "0.50", "0.00"], ["0.33", "0.33", "0.34"]]
    assert chains_by_values({0: SC, 1: W, 2: causal}) == [{0: "scores", 1: "weights"}, {2: "weights"}]


# a notebook in Japanese: scores before and after scaling and the weights, under captions the importer does not
# read, and nothing that makes them
def _page():
    return notebook(
        "# Self-Attention",
        ("print('スケーリング前のスコア:')\nprint(a)\nprint('スケーリング後のスコア:')\nprint(a / 2)",
         "スケーリング前のスコア:\n[[ 2.000 -0.400]\n [ 0.600  2.000]]\nスケーリング後のスコア:\n[[ 1.000 -0.200]\n [ 0.300  1.000]]\n"),
        ("print(b)", "[[0.769 0.231]\n [0.332 0.668]]\n"),
    )


def test_a_page_whose_steps_only_the_numbers_name():
    ex = imported(_page(), "notebook")[0]
    assert not ex.inputs
    got = claims(ex)
    # softmax(1.0, -0.2) = (0.769, 0.231); softmax(0.3, 1.0) = (0.332, 0.668)
    assert ("scores", "1", ("2.000", "-0.400")) in got and ("scaled", "2", ("0.300", "1.000")) in got
    assert ("weights", "1", ("0.769", "0.231")) in got
    assert ex.convention["scale"].value == "1/sqrt(d_k)" and ex.convention["d_k"].value == 4  # 2 / 1 = √4
    assert any("their numbers tell which is which" in n.text for n in ex.notes)


def test_its_check_follows_the_printed_steps():
    import symattn as sa

    spec = sa.import_page(_page(), format="notebook")[0]
    report = sa.check(spec)
    assert report.based_on.startswith("no inputs given: checked from the printed scores")
    assert {c.step for c in report.claims} >= {"scaled", "weights"} and report.all_right


def test_causal_weights_printed_again_are_no_second_example():
    # M masked from SC, MW its softmax, then MW printed again on its own: one chain, not a lone second one
    assert chains_by_values({0: SC, 1: M, 2: MW, 3: MW}) == [{0: "scores", 1: "masked", 2: "weights"}]


def test_scores_a_heading_calls_weights_are_no_work_before_a_mask():
    # a block under "Self Attention" named like weights whose rows are no probabilities does not make the work
    # before a causal mask another example (only weights or outputs worked without the mask do)
    from symattn.analyses.importer import _worked_before_mask
    from symattn.analyses.importer_items import Item
    scores = Item(rows=[["1.93", "5.43"], ["1.35", "1.19"]], where=["cell 7"], line=7, end=8, step="weights",
                  strength=2)
    weights = Item(rows=[["0.731", "0.269"], ["0.5", "0.5"]], where=["cell 9"], line=9, end=10, step="weights",
                   strength=2)
    assert not _worked_before_mask([scores])
    assert _worked_before_mask([scores, weights])


def test_raw_scores_and_their_softmax_over_root_d():
    # the page prints the raw scores and the weights, not the scaled scores: softmax(S / √4) = softmax(S / 2)
    from symattn.analyses.importer_values import softmax_scale
    raw = [["2.00", "0.00"], ["0.00", "2.00"]]
    assert chains_by_values({0: raw, 1: W}) == [{0: "scores", 1: "weights"}]   # softmax(1, 0) = (0.731, 0.269)
    assert softmax_scale(raw, W) == 4
    assert softmax_scale(raw, [["0.881", "0.119"], ["0.119", "0.881"]]) is None  # softmax(2, 0): d = 1, no scaling
    # the same chain printed again is a restatement, not a second example
    assert chains_by_values({0: raw, 1: W, 2: raw, 3: W}) == [{0: "scores", 1: "weights"}]


INDEX_COLUMNS = [
    (["Token", "0", "1"], ["0", "1", "2"], True),
    (["#", "d1", "d2"], ["1", "2"], True),
    (["pos", "x"], ["0", "1", "2", "3"], True),
    (["Token", "0", "1"], ["0", "2", "1"], False),     # not in order
    (["x", "y"], ["0", "1", "2"], False),              # the header names no tokens
    (["Token", "a"], ["0.5", "1.5"], False),           # numbers, not indices
    (["Token", "a"], ["7"], False),                    # one row says nothing
]


@pytest.mark.parametrize("header,first,want", INDEX_COLUMNS)
def test_a_first_column_numbering_the_tokens(header, first, want):
    from symattn.analyses.importer_items import _index_column
    assert _index_column(header, first) is want


def test_a_query_by_key_table_numbered_by_token():
    page = ("| Token | 0 | 1 |\n|---|---|---|\n| 0 | 2.00 | 0.00 |\n| 1 | 0.00 | 2.00 |\n\n"
            "| Token | 0 | 1 |\n|---|---|---|\n| 0 | 0.731 | 0.269 |\n| 1 | 0.269 | 0.731 |\n")
    ex = imported(page)[0]
    got = claims(ex)
    assert ("weights", "#0", ("0.731", "0.269")) in got
    assert ex.convention["d_k"].value == 4
