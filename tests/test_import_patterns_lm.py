"""Ways of writing numbers met on held-out batches l and m (tests/pages/heldout/l, m/), as tables of
(snippet, what it must yield). Each expected value was read off the snippet by hand."""

import pytest

import symattn as sa
from import_snippets import claims, imported, notebook
from symattn.analyses.importer_placer import _scalar_hits_named
from symattn.analyses.importer_items import _subscript_token




# (hits of one number in the example's steps, its label, the hits kept): a label naming exactly one of the
# steps as a word picks it; naming none or both keeps every hit (the number stays unplaced)
SCALAR_NAMED = [
    ([("Q", 0, 0), ("K", 0, 0)], "first entry of Q by hand", [("Q", 0, 0)]),
    ([("Q", 0, 0), ("K", 0, 0)], "the first key entry, K[0][0]", [("K", 0, 0)]),
    ([("Q", 0, 0), ("K", 0, 0)], "Step 3: Define Weight Matrices W_q, W_k", [("Q", 0, 0), ("K", 0, 0)]),
    ([("Q", 0, 0), ("K", 0, 0)], "Q and K agree here", [("Q", 0, 0), ("K", 0, 0)]),
    ([("Q", 0, 0), ("Q", 1, 1)], "an entry of Q", [("Q", 0, 0), ("Q", 1, 1)]),
]


@pytest.mark.parametrize("hits,label,want", SCALAR_NAMED)
def test_a_single_number_in_several_steps_is_the_one_its_label_names(hits, label, want):
    assert sorted(_scalar_hits_named(hits, label)) == sorted(want)


# X = [[1, 2], [3, 4]], W_q = W_k = I, so Q = K = X; the number 1 printed under a comment naming Q is Q[0][0]
def test_a_number_printed_by_hand_under_a_comment_naming_q():
    page = notebook(
        ("import numpy as np\nX = np.array([[1.5, 2.0], [3.0, 4.0]])\nW_q = np.eye(2)\nW_k = np.eye(2)\n"
         "W_v = np.eye(2)\nQ = X @ W_q\nK = X @ W_k\nV = X @ W_v\nS = Q @ K.T\nprint(S)\n",
         "[[ 6.25 12.5 ]\n [12.5  25.  ]]\n"),
        ("# first entry of Q by hand\nprint(X[0] @ W_q[:, 0])\n", "1.5\n"),
    )
    ex = imported(page, "ipynb")[0]
    assert ("Q", "1", ("1.5", "..")) in claims(ex) or any(
        c.step == "Q" and c.values[0] == "1.5" for c in ex.claims), [(c.step, c.row, c.values) for c in ex.claims]


# (left side of '= […]', the token it names): a word subscript of Q, K, V or X names a token; an index
# (K_1, Q_i) or a part of the matrix (Q_{proj}) does not
SUBSCRIPT_TOKENS = [
    ("  Q_{quickly} = ", "quickly"),
    ("K_dog = ", "dog"),
    ("V_{\\text{dog}} = ", "dog"),
    ("Q_{1} = ", None),
    ("Q_i = ", None),
    ("Q_{proj} = ", None),
    ("W_{q} = ", None),
    ("x = ", None),
]


@pytest.mark.parametrize("before,token", SUBSCRIPT_TOKENS)
def test_a_word_subscript_names_the_token(before, token):
    assert _subscript_token(before) == token


# one query and one key given by token, the values of two tokens: Q_{fox}·K_{dog} = 1·0.5 + 2·0.25 = 1.0;
# the value of "dog" is the one value of the example, the value of "fox" (no key given) is listed
ONE_QUERY = ("# Example\n\n$$\nQ_{fox} = [1, 2]\n$$\n\n$$\nK_{dog} = [0.5, 0.25]\n$$\n\n$$\nV_{dog} = [3, 4]\n$$\n\n"
             "$$\nV_{fox} = [5, 6]\n$$\n\nThe score:\n\n$$\nscore = Q_{fox} \\cdot K_{dog}\n$$\n\n"
             "$$\n= (1)(0.5) + (2)(0.25)\n$$\n\n$$\n= 0.5 + 0.5 = 1.0\n$$\n")


def test_one_query_against_the_key_of_another_token():
    ex = imported(ONE_QUERY)[0]
    assert {k: g.rows for k, g in ex.inputs.items()} == {"Q": [["1", "2"]], "K": [["0.5", "0.25"]], "V": [["3", "4"]]}
    assert ex.spec.tokens == ("fox",) or list(ex.spec.tokens) == ["fox"]
    assert list(ex.spec.key_tokens) == ["dog"]
    assert claims(ex) == {("scores", "fox", ("1.0",))}
    assert any("5, 6" in n.text for n in ex.unplaced)


# (lines after 'Q_{a} \cdot K_{b}', the score read): the number the last continuation ends with; a chain that
# divides (the scaled score) gives none
DOT_CHAINS = [
    ("$$\n= (1)(0.5) + (2)(0.25)\n$$\n\n$$\n= 0.5 + 0.5 \\approx 1.0\n$$\n", "1.0"),
    ("$$\n= 1 \\cdot 0.5 + 2 \\cdot 0.25 = 1.0\n$$\n", "1.0"),
    ("$$\n= (1)(0.5) + (2)(0.25)\n$$\n\n$$\n= 1.0 / \\sqrt{2} \\approx 0.71\n$$\n", None),
]


@pytest.mark.parametrize("after,want", DOT_CHAINS)
def test_a_dot_product_of_named_query_and_key_worked_on_the_lines_below(after, want):
    page = ONE_QUERY.split("The score:")[0] + "The score:\n\n$$\nscore = Q_{fox} \\cdot K_{dog}\n$$\n\n" + after
    if want is None:  # nothing else printed: no claim, so no example either
        with pytest.raises(sa.SymattnError, match="nothing printed on the page could be placed"):
            imported(page)
        return
    ex = imported(page)[0]
    assert {c.values[0] for c in ex.claims if c.step == "scores"} == {want}


# Q, K, V given for three tokens; the page works only the query "c" against the other two tokens, naming each
# score by its pair: Q_c·K_a = 1·1 + 0·0 = 1, Q_c·K_b = 1·0 + 0·1 = 0; then weights written only as the factors
# of the weighted values, 0.7·V_a = 0.7·[2, 4] = [1.4, 2.8] and 0.3·V_b = 0.3·[6, 8] = [1.8, 2.4]
ONE_OF_THREE = (
    "# Example\n\n"
    '"a": Query = [0, 1], Key = [1, 0], Value = [2, 4]\n\n'
    '"b": Query = [1, 1], Key = [0, 1], Value = [6, 8]\n\n'
    '"c": Query = [1, 0], Key = [1, 1], Value = [5, 5]\n\n'
    "## Scores\n\n"
    "Dot Product (c, a)=1×1+0×0=1\n\n"
    "Dot Product (c, b)=1×0+0×1=0\n\n"
    "## Weighted sum\n\n"
    "Weighted Sum (c, a)≈0.7×[2,4] = [1.4, 2.8]\n\n"
    "Weighted Sum (c, b)≈0.3×[6,8] = [1.8, 2.4]\n"
)


def test_one_query_against_the_other_tokens_named_by_pairs():
    ex = imported(ONE_OF_THREE)[0]
    assert {k: g.rows for k, g in ex.inputs.items()} == {
        "Q": [["1", "0"]], "K": [["1", "0"], ["0", "1"]], "V": [["2", "4"], ["6", "8"]]}
    assert list(ex.spec.tokens) == ["c"] and list(ex.spec.key_tokens) == ["a", "b"]
    got = {(c.step, c.row, c.key, tuple(c.values)) for c in ex.claims if c.group is None}
    assert got == {("scores", "c", None, ("1", "0")), ("weights", "c", None, ("0.7", "0.3")),
                   ("weighted", "c", "a", ("1.4", "2.8")), ("weighted", "c", "b", ("1.8", "2.4"))}
    unplaced = " ".join(n.text for n in ex.unplaced)
    for row in ("[0, 1]", "[1, 1]", "[5, 5]"):  # Q of a, Q of b (and K of c), V of c: listed
        assert row in unplaced


# (score lines, one query read?): pairs naming one query and all the other tokens make one query's example;
# pairs with two queries, or one naming the query itself as a key, keep the whole matrices
PAIR_SETS = [
    ("Dot Product (c, a)=1×1+0×0=1\n\nDot Product (c, b)=1×0+0×1=0\n", True),
    ("Dot Product (c, a)=1×1+0×0=1\n\nDot Product (a, b)=0×0+1×1=1\n", False),
    ("Dot Product (c, a)=1×1+0×0=1\n\nDot Product (c, c)=1×1+0×1=1\n", False),
]


@pytest.mark.parametrize("scores,one", PAIR_SETS)
def test_which_pairs_make_one_query(scores, one):
    page = ONE_OF_THREE.split("## Scores")[0] + "## Scores\n\n" + scores
    ex = imported(page)[0]
    assert (len(ex.inputs["Q"].rows) == 1) is one
    assert any(c.step == "scores" for c in ex.claims)


# (a line of products, is the score read?): a line that divides (the scaled score) is not the raw score
PAIR_DOTS = [
    ("Dot Product (c, a)=1×1+0×0=1", True),
    ("Similarity (c, a) = 1 * 1 + 0 * 0 = 1", True),
    ("Dot Product (c, a)=(1×1+0×0)/2=0.5", False),
    ("Weighted Sum (c, a)=1×1+0×0=1", False),
]


@pytest.mark.parametrize("line,read", PAIR_DOTS)
def test_a_dot_product_named_by_a_pair_of_tokens(line, read):
    page = ONE_OF_THREE.split("## Scores")[0] + "## Scores\n\n" + line + "\n"
    try:
        ex = imported(page)[0]
    except sa.SymattnError:
        assert not read
        return
    assert any(c.step == "scores" and c.values[0] == "1" for c in ex.claims) is read


# (softmax lines under the scores, the scale read): the page's scores (1 and 0) divided by a whole number inside
# softmax(…) give the scale 1/n; divisions by two numbers, or of a number that is no score, say nothing
SOFTMAX_DIVIDED = [
    ("Softmax (c, a)=softmax(1/2)\n\nSoftmax (c, b)=softmax(0/2)\n", "1/2"),
    ("Softmax (c, a)=softmax(1/3)\n", "1/3"),
    ("Softmax (c, a)=softmax(1/2)\n\nSoftmax (c, b)=softmax(0/3)\n", None),
    ("Softmax (c, a)=softmax(5/2)\n", None),
]


@pytest.mark.parametrize("softmax,scale", SOFTMAX_DIVIDED)
def test_a_score_divided_inside_softmax_gives_the_scale(softmax, scale):
    page = ONE_OF_THREE.replace("## Weighted sum", softmax + "\n## Weighted sum")
    ex = imported(page)[0]
    got = ex.spec.convention.scale_text
    assert got == scale if scale else not got.startswith("1/") or got == "1/sqrt(d_k)"


# scores [[1, 0], [0, 1]] given with V: e^1 / (e^1 + e^0) = 0.731 is query 1's weight on key 1 (its scores are the
# denominator's exponents, in order); e^0 / (e^0 + e^1) = 0.269 is query 2's weight on key 1; a fraction of
# exponents that are no query's scores is listed
SCORES_V = "# Example\n\n```python\nV = [[1, 2], [3, 4]]\nscores = [[1, 0], [0, 1]]\n```\n\nThe weights:\n\n"
SOFTMAX_FRACTIONS = [
    ("$$\n\\alpha_{11} = \\frac{e^{1}}{e^{1} + e^{0}} \\approx 0.731\n$$\n", ("1", ("0.731", ".."))),
    ("$$\n\\alpha = \\frac{e^0}{e^0 + e^1} = 0.269\n$$\n", ("2", ("0.269", ".."))),
    ("$$\n\\alpha_{11} = \\frac{e^{1}}{e^{1} + e^{0}} \\approx 0.731\n$$\n\n$$\n\\alpha = \\frac{e^{2}}{e^{2} + e^{0}} "
     "\\approx 0.881\n$$\n", ("1", ("0.731", ".."))),
]


@pytest.mark.parametrize("line,want", SOFTMAX_FRACTIONS)
def test_a_weight_worked_as_a_softmax_fraction(line, want):
    ex = imported(SCORES_V + line)[0]
    got = {(c.row, tuple(c.values)) for c in ex.claims if c.step == "weights" and c.group is None}
    assert got == {want}
    assert any("softmax of 2, 0" in n.text for n in ex.unplaced) is ("0.881" in line)


# Q and K written as Python lists in a plain code block, then printed scores and weights, no V: the example starts
# from the scores, and Q and K (no step of it) are listed with that reason
NO_V = ("# Example\n\n```\nQ = [[1.0, 0.0],\n     [0.0, 1.0]]\n\nK = [[1.0, 0.0],\n     [0.0, 1.0]]\n```\n\n"
        "Scores:\n\n```\nscores =\n[[1.0, 0.0],\n [0.0, 1.0]]\n```\n\nWeights:\n\n```\nweights =\n"
        "[[0.731, 0.269],\n [0.269, 0.731]]\n```\n")
LITERALS_LISTED = [("Q", "[1.0, 0.0, 0.0, 1.0] (2×2): Q as printed"), ("K", "[1.0, 0.0, 0.0, 1.0] (2×2): K as printed")]


@pytest.mark.parametrize("name,note", LITERALS_LISTED)
def test_q_and_k_beside_printed_scores_without_v_are_listed(name, note):
    ex = imported(NO_V)[0]
    assert "scores" in ex.inputs and name not in ex.inputs
    assert any(note in n.text for n in ex.unplaced), [n.text for n in ex.unplaced]


# after ONE_QUERY's score (1.0 for fox on dog), weights worked as softmaxes of an assumed pair of scores, 1.0 and
# 2.0: e^1 / (e^1 + e^2) = 0.269 ≈ 0.27 (dog), e^2 / (e^1 + e^2) = 0.731 ≈ 0.73 (fox); the output
# 0.27·[3, 4] + 0.73·[5, 6] = [4.46, 5.46]. The exponents are scores no example has: an example of their own,
# starting from those scores over the keys the weights' subscripts name, with the values given for those tokens
FRACTIONS = ("\n$$\n\\alpha_{dog} = \\frac{e^{1.0}}{e^{1.0} + e^{2.0}} \\approx 0.27\n$$\n\n"
             "$$\n\\alpha_{fox} = \\frac{e^{2.0}}{e^{1.0} + e^{2.0}} \\approx 0.73\n$$\n\n"
             "$$\noutput = 0.27 \\cdot [3, 4] + 0.73 \\cdot [5, 6]\n$$\n\n$$\n= [4.46, 5.46]\n$$\n")
# (change to the fractions, a second example read?): without the subscripts naming the keys, or with a key whose
# values the page does not give, there is none
FRACTION_CASES = [
    (lambda t: t, True),
    (lambda t: t.replace("\\alpha_{dog}", "\\alpha_1").replace("\\alpha_{fox}", "\\alpha_2"), False),
    (lambda t: t.replace("\\alpha_{fox}", "\\alpha_{owl}"), False),
]


@pytest.mark.parametrize("change,second", FRACTION_CASES)
def test_weights_worked_as_softmaxes_of_assumed_scores(change, second):
    exs = imported(ONE_QUERY + change(FRACTIONS))
    assert len(exs) == (2 if second else 1)
    if second:
        ex = exs[1]
        assert {k: g.rows for k, g in ex.inputs.items()} == {"scores": [["1.0", "2.0"]], "V": [["3", "4"], ["5", "6"]]}
        assert list(ex.spec.key_tokens) == ["dog", "fox"]
        assert {(c.step, tuple(c.values)) for c in ex.claims if c.group is None} == {
            ("weights", ("0.27", "0.73")), ("output", ("4.46", "5.46"))}


def test_an_output_printed_without_v_is_listed_as_such():
    ex = imported(NO_V + "\nOutput:\n\n```\noutput =\n[[0.01, 0.08, -0.03],\n [0.02, 0.07, -0.04]]\n```\n")[0]
    assert not any(c.step == "output" for c in ex.claims)
    assert any("the output, but the page prints no V" in n.text for n in ex.unplaced), [n.text for n in ex.unplaced]
