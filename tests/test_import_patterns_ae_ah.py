"""Ways of writing numbers met on held-out batches ae and ah (tests/pages/heldout/ae/, ah/), as tables of
(snippet, what it must yield). Each expected value was read off the snippet by hand."""

import pytest

from import_snippets import claims, imported, notebook

from symattn.errors import SymattnError

# X = emb + pos, each printed a row per token; Q = X·Wq, the raw scores Q·Kᵀ and the weights
# softmax(Q·Kᵀ/√2) printed (computed with NumPy)
_EMB = ("import numpy as np\ntokens = ['The', 'cat', 'sat']\n"
        "emb = np.array([[1.0, 0.5, 0.2, 0.8], [0.3, 1.0, 0.7, 0.1], [0.6, 0.2, 1.0, 0.4]])\n"
        "print('Word embeddings:')\nfor t, v in zip(tokens, emb):\n    print(f'  {t}: {v}')",
        "Word embeddings:\n  The: [1.  0.5 0.2 0.8]\n  cat: [0.3 1.  0.7 0.1]\n  sat: [0.6 0.2 1.  0.4]\n")
_POS = ("pos = np.array([[0.0, 1.0, 0.0, 1.0], [0.1, 0.9, 0.1, 0.9], [0.2, 0.8, 0.2, 0.8]])\n"
        "print('Positional embeddings:')\nfor i, (t, p) in enumerate(zip(tokens, pos)):\n"
        "    print(f'  Pos {i} ({t}): {p}')",
        "Positional embeddings:\n  Pos 0 (The): [0. 1. 0. 1.]\n  Pos 1 (cat): [0.1 0.9 0.1 0.9]\n"
        "  Pos 2 (sat): [0.2 0.8 0.2 0.8]\n")
_X = ("inputs = emb + pos\nprint('Input embeddings (word + positional):')\nfor t, v in zip(tokens, inputs):\n"
      "    print(f'  {t}: {v}')", "Input embeddings (word + positional):\n  The: [1.  1.5 0.2 1.8]\n"
      "  cat: [0.4 1.9 0.8 1. ]\n  sat: [0.8 1.  1.2 1.2]\n")
_REST = [
    ("W_q = np.array([[0.5, 0.0], [0.0, 0.5], [0.5, 0.5], [0.0, 1.0]])\n"
     "W_k = np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0], [1.0, 1.0]])\n"
     "W_v = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [0.0, 0.0]])\nQ = inputs @ W_q\nK = inputs @ W_k\nV = inputs @ W_v\n"
     "print(Q)", "[[0.6  2.65]\n [0.6  2.35]\n [1.   2.3 ]]\n"),
    ("scores = Q @ K.T\nprint(scores)", "[[10.425  8.525  7.03 ]\n [ 9.435  7.655  6.37 ]\n [10.39   8.07   7.06 ]]\n"),
    ("def softmax(x):\n    e = np.exp(x - np.max(x))\n    return e / np.sum(e, axis=1, keepdims=True)", None),
    ("weights = softmax(scores / np.sqrt(2))\nprint(weights)",
     "[[0.73986874 0.19305399 0.06707727]\n [0.71503878 0.20309761 0.0818636 ]\n [0.77590914 0.1504375  0.07365337]]\n"),
]
_X_ROWS = [["1.", "1.5", "0.2", "1.8"], ["0.4", "1.9", "0.8", "1."], ["0.8", "1.", "1.2", "1.2"]]

# a matrix the code adds to another before attention (positional encodings) is no example of its own
SUMMANDS = [
    (notebook((_EMB[0], None), _POS, _X, *_REST), _X_ROWS),  # the word embeddings only in code
    (notebook(_EMB, _POS, _X, *_REST), _X_ROWS),
]


@pytest.mark.parametrize("page,want", SUMMANDS)
def test_a_summand_of_the_embeddings_is_no_example(page, want):
    ex, = imported(page, "notebook")
    assert ex.inputs["X"].rows == want
    assert ex.inputs["Wq"].rows[0] == ["0.5", "0.0"]


# a printed f-string line giving one weight for two quoted tokens: placed at the query whose row has it
# (weights of X = [[2, 0], [0, 0]], unscaled: row 1 = softmax(4, 0) = (0.982, 0.018), row 2 = (0.5, 0.5))
_ARGMAX = [
    ("import numpy as np\nx = np.array([[2.0, 0.0], [0.0, 0.0]])\ntokens = ['The', 'the']\n"
     "w = softmax(x @ x.T)\nprint(w)", "[[0.98201379 0.01798621]\n [0.5        0.5       ]]\n"),
]
ATTENDS_LINES = [
    ("'The' attends most strongly to 'The' (weight: 0.982)\n", ("The", 0, "0.982")),
    ("'the' attends most strongly to 'The' (weight: 0.500)\n", ("the", 0, "0.500")),
    # the tokens differ only in case: 'the' to 'the' is row 2, column 2
    ("'the' attends most strongly to 'the' (weight: 0.500)\n", ("the", 1, "0.500")),
    # the number fits no entry of the two tokens': listed, not placed
    ("'The' attends most strongly to 'the' (weight: 0.700)\n", None),
]


@pytest.mark.parametrize("printed,want", ATTENDS_LINES)
def test_a_printed_line_naming_two_tokens(printed, want):
    src = "for i, word in enumerate(tokens):\n    print(f\"'{word}' attends most strongly to ...\")"
    ex, = imported(notebook(*_ARGMAX, (src, printed)), "notebook")
    got = [(c.row, c.values.index(v), v) for c in ex.claims if c.group is not None and c.step == "weights"
           for v in c.values if v != ".."]
    assert got == ([want] if want else [])


def _tf(rows, first=False):
    """A TensorFlow tensor as a notebook shows it inside a tuple (int32, 2-D)."""
    body = ",\n        ".join("[" + ", ".join(map(str, r)) + "]" for r in rows)
    return f"{'(' if first else ' '}<tf.Tensor: shape=({len(rows)}, {len(rows[0])}), dtype=int32, numpy=\n " \
           f"array([{body}], dtype=int32)>"


# a cell ending with a tuple of names shows one tensor per name, in order (X = [[1, 2], [0, 1]]; Q = X·Wq =
# [[3, 2], [1, 1]], K = X·Wk = [[2, 1], [1, 0]], V = X·Wv = [[2, 2], [0, 1]]; scores Q·Kᵀ = [[8, 3], [3, 1]],
# worked by hand); a heading over an echo of X that names the queries, keys and values together names none
_WQ, _WK, _WV = [[1, 0], [1, 1]], [[0, 1], [1, 0]], [[2, 0], [0, 1]]
_TUPLE_PAGE = [
    ("import tensorflow as tf\nX = tf.constant([[1, 2], [0, 1]])\nX",
     "<tf.Tensor: shape=(2, 2), dtype=int32, numpy=\narray([[1, 2],\n       [0, 1]], dtype=int32)>"),
    ("W_Q = tf.random.uniform((2, 2), 0, 3, dtype=tf.int32)\nW_K = tf.random.uniform((2, 2), 0, 3, dtype=tf.int32)\n"
     "W_V = tf.random.uniform((2, 2), 0, 3, dtype=tf.int32)\nW_Q, W_K, W_V",
     _tf(_WQ, True) + ",\n" + _tf(_WK) + ",\n" + _tf(_WV) + ")"),
    "Queries, keys and values for all words",
    ("stack = tf.stack([X])\nstack", "<tf.Tensor: shape=(1, 2, 2), dtype=int32, numpy=\n"
     "array([[[1, 2],\n        [0, 1]]], dtype=int32)>"),
    ("Query = X @ W_Q\nKey = X @ W_K\nValue = X @ W_V\nQuery, Key, Value",
     _tf([[3, 2], [1, 1]], True) + ",\n" + _tf([[2, 1], [1, 0]]) + ",\n" + _tf([[2, 2], [0, 1]]) + ")"),
    ("scores = tf.matmul(Query, Key, transpose_b=True)\nscores",
     "<tf.Tensor: shape=(2, 2), dtype=int32, numpy=\narray([[8, 3],\n       [3, 1]], dtype=int32)>"),
]
TUPLE_SHOWN = [
    ("Wq", _WQ), ("Wk", _WK), ("Wv", _WV),
]


@pytest.mark.parametrize("name,rows", TUPLE_SHOWN)
def test_a_tuple_of_tensors_shown_by_a_cell(name, rows):
    ex, = imported(notebook(*_TUPLE_PAGE), "notebook")
    assert [[int(x) for x in r] for r in ex.inputs[name].rows] == rows
    assert ("K", "1", ("2", "1")) in claims(ex) and ("scores", "2", ("3", "1")) in claims(ex)
    assert not [c for c in ex.claims if c.group is not None]  # the echo of X under the heading is no Q


# one projection shared by assignment (W_K = W_Q), the steps printed as "Label: tf.Tensor(…)"; x = [[1, 0, 1],
# [0, 1, 1]], W_Q = [[1, 0], [0, 1], [1, 1]]: Q = K = [[2, 1], [1, 2]], V = x·W_V = [[2, 1], [1, 1]], scores
# Q·Kᵀ = [[5, 4], [4, 5]] (worked by hand)
_SHARED = [
    ("import tensorflow as tf\nx = tf.constant([[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]])\n"
     "W_Q = tf.constant([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])\n{alias}\n"
     "W_V = tf.constant([[1.0, 1.0], [0.0, 1.0], [1.0, 0.0]])", None),
    ("queries = tf.matmul(x, W_Q)\nkeys = tf.matmul(x, W_K)\nvalues = tf.matmul(x, W_V)\n"
     "print('Queries Matrix: ', queries)\nprint('Keys Matrix:', keys)\nprint('Values Matrix:', values)\n"
     "scores = tf.matmul(queries, keys, transpose_b=True)\nprint('Attention Scores Matrix: ', scores)",
     "Queries Matrix:  tf.Tensor(\n[[2. 1.]\n [1. 2.]], shape=(2, 2), dtype=float32)\n"
     "Keys Matrix: tf.Tensor(\n[[2. 1.]\n [1. 2.]], shape=(2, 2), dtype=float32)\n"
     "Values Matrix: tf.Tensor(\n[[2. 1.]\n [1. 1.]], shape=(2, 2), dtype=float32)\n"
     "Attention Scores Matrix:  tf.Tensor(\n[[5. 4.]\n [4. 5.]], shape=(2, 2), dtype=float32)\n"),
]
SHARED_PROJECTIONS = [
    ("W_K = W_Q  # the key projection is the query projection", "Wk", [["1.0", "0.0"], ["0.0", "1.0"], ["1.0", "1.0"]]),
    ("W_K = W_Q", "Wk", [["1.0", "0.0"], ["0.0", "1.0"], ["1.0", "1.0"]]),
]


@pytest.mark.parametrize("alias,name,rows", SHARED_PROJECTIONS)
def test_a_projection_shared_by_assignment(alias, name, rows):
    src, out = _SHARED[0]
    ex, = imported(notebook((src.replace("{alias}", alias), out), _SHARED[1]), "notebook")
    assert ex.inputs[name].rows == rows
    assert {("Q", "1", ("2.", "1.")), ("K", "2", ("1.", "2.")), ("scores", "2", ("4.", "5."))} <= claims(ex)


def _pm(rows):
    return r"\begin{pmatrix} " + r" \\ ".join(" & ".join(map(str, r)) for r in rows) + r" \end{pmatrix}"


# each projection stated on the line before its display ('$Q = EW_Q$ :'), the display naming only its result
# ('$$Q = [E] [W] = [Q]$$'): the factors are E and W_Q, and W_Q is an input. E = [[1, 0, 1], [0, 1, 1]],
# W_Q = [[1, 0], [0, 1], [1, 1]] -> Q = [[2, 1], [1, 2]]; W_K = [[0, 1], [1, 0], [0, 0]] -> K = [[0, 1], [1, 0]];
# W_V = [[1, 0], [0, 0], [0, 1]] -> V = [[1, 1], [0, 1]]; QKᵀ = [[1, 2], [2, 1]] (worked by hand)
_E = [[1, 0, 1], [0, 1, 1]]
_PROJ = {"Q": ([[1, 0], [0, 1], [1, 1]], [[2, 1], [1, 2]]), "K": ([[0, 1], [1, 0], [0, 0]], [[0, 1], [1, 0]]),
         "V": ([[1, 0], [0, 0], [0, 1]], [[1, 1], [0, 1]])}
_STATED = "\n\n".join(
    [f"Embeddings: $$E = {_pm(_E)}$$"]
    + [f"${s} = EW_{s}$ :\n\n$${s} = {_pm(_E)} {_pm(w)} = {_pm(r)}$$" for s, (w, r) in _PROJ.items()]
    + [rf"$$QK^\top = {_pm([[1, 2], [2, 1]])}$$"]) + "\n"
STATED_PRODUCTS = [("Wq", _PROJ["Q"][0]), ("Wk", _PROJ["K"][0]), ("Wv", _PROJ["V"][0])]


@pytest.mark.parametrize("name,rows", STATED_PRODUCTS)
def test_a_product_stated_on_the_line_before_its_display(name, rows):
    ex, = imported(_STATED)
    assert [[int(x) for x in r] for r in ex.inputs[name].rows] == rows
    assert {("Q", "2", ("1", "2")), ("K", "1", ("0", "1")), ("scores", "1", ("1", "2"))} <= claims(ex)


# Rust integration tests: one matrix passed as the queries, keys and values of an attention call, whatever
# its name ('a' alone would name weights); a row of the batch's one matrix taken by a slice s![0, i, ..] and
# compared with the vector on the next line. X = [[1, 0], [1, 0], [0, 1]]: scaled scores XXᵀ/√2 =
# [[0.707, 0.707, 0], [0.707, 0.707, 0], [0, 0, 0.707]], weights rows 1 and 2 (0.401, 0.401, 0.198), row 3
# (0.248, 0.248, 0.503); outputs (0.802, 0.198) twice and (0.497, 0.503) (computed with NumPy)
def _rust(call, row, printed):
    return f"""#[test]
fn scaled_dot_test() {{
    let a: Array3<f32> = array![[
        [1.0, 0.0],
        [1.0, 0.0],
        [0.0, 1.0]
    ]];
    let res = {call};
    let result: Array1<f32> = res.slice(s![0, {row}, ..]).to_owned();
    let expected: Array1<f32> = array![{printed}];
    for (got, want) in result.iter().zip(expected.iter()) {{
        assert!((got - want).abs() < 0.001);
    }}
}}
"""


SELF_CALLS = [
    # rows 1 and 2 print the same weights: the slice says which
    ("softmax_3d(&scaled_dot_product(a.clone(), a.clone(), a.clone(), false))", 1, "0.401, 0.401, 0.198",
     ("weights", "2", ("0.401", "0.401", "0.198"))),
    ("softmax_3d(&scaled_dot_product(a.clone(), a.clone(), a.clone(), false))", 0, "0.401, 0.401, 0.198",
     ("weights", "1", ("0.401", "0.401", "0.198"))),
    ("scaled_dot_product_attention(&a, &a, &a, false)", 2, "0.497, 0.503", ("output", "3", ("0.497", "0.503"))),
]


@pytest.mark.parametrize("call,row,printed,want", SELF_CALLS)
def test_one_matrix_as_queries_keys_and_values(call, row, printed, want):
    ex, = imported(_rust(call, row, printed), "text")
    assert ex.inputs["Q"].rows == ex.inputs["V"].rows == [["1.0", "0.0"], ["1.0", "0.0"], ["0.0", "1.0"]]
    assert want in claims(ex)


def test_three_different_arguments_are_no_self_attention():
    page = _rust("attention(a.clone(), b.clone(), a.clone())", 0, "0.401, 0.401, 0.198")
    try:
        exs = imported(page, "text")
    except SymattnError:
        exs = []  # nothing to place: refused, which is right too
    assert not any(set(ex.inputs) == {"Q", "K", "V"} for ex in exs)
    assert not any(c.values[:2] == ["0", "0"] for ex in exs for c in ex.claims)  # the slice's indices


# Q, K, V inline, then QKᵀ written as '[Q] \cdot [K]^\top = [R]' (the transpose sign on the second factor, not
# on the result) and the output row as a sum of symbolic weights times V's rows (the last vector a term, not
# the output). Q = [[1, 0], [0, 1]], K = [[1, 0], [1, 1]]: QKᵀ = [[1, 1], [0, 1]] (worked by hand)
_BM = r"\begin{bmatrix} 1 & 0 \\ 0 & 1 \end{bmatrix}"
_KM = r"\begin{bmatrix} 1 & 0 \\ 1 & 1 \end{bmatrix}"
_TERMS = "\n".join([
    rf"- \( Q = {_BM} \)", rf"- \( K = {_KM} \)", r"- \( V = \begin{bmatrix} 1 & 2 \\ 3 & 4 \end{bmatrix} \)", "",
    r"The dot products \( QK^\top \):", r"\[", rf"QK^\top = {_BM} \cdot {_KM}^\top = " +
    r"\begin{bmatrix} 1 & 1 \\ 0 & 1 \end{bmatrix}", r"\]", "",
    r"\[", r"\text{Output}_1 = \frac{e}{2e+1} \cdot [1, 2] + \frac{1}{2e+1} \cdot [3, 4]", r"\]", ""])
SUM_TERMS = [
    (("scores", "1", ("1", "1")), True),
    (("scores", "2", ("0", "1")), True),
    (("output", "1", ("3", "4")), False),  # the last term of the sum is no output
]


@pytest.mark.parametrize("claim,placed", SUM_TERMS)
def test_a_transposed_factor_and_a_sum_of_terms(claim, placed):
    ex, = imported(_TERMS)
    assert (claim in claims(ex)) == placed
    assert not [c for c in ex.claims if c.step == "output"]


# a Rust source file with nothing printed: constants bound with 'pub const NAME: TYPE = [' are the inputs
# (named by what they bind, not by the doc comment above); the unit tests' literals passed to functions
# ('softmax(&[1.0, 1.0])') or written in strings ('"[1.0, 2.5]"') are no numbers of the example
_RUST_CONSTS = '''pub const TOKENS: &[&str] = &["The", "cat"];

/// One embedding per token (a row per token)
pub const INPUT_EMBEDDINGS: [[f32; 2]; 2] = [
    [1.0, 0.5], // "The"
    [0.2, 1.0], // "cat"
];

/// Query projection (EMBED_DIM x EMBED_DIM)
pub const W_Q: [[f32; 2]; 2] = [
    [0.5, 0.0],
    [0.0, 0.5],
];

/// Key projection
pub const W_K: [[f32; 2]; 2] = [
    [0.5, 0.0],
    [0.0, 0.5],
];

/// Value projection
pub const W_V: [[f32; 2]; 2] = [
    [1.0, 0.0],
    [0.0, 1.0],
];

pub fn attention(x: &[Vec<f32>]) -> Vec<Vec<f32>> {
    let q = matmul(x, &array_to_vec(&W_Q));
    let k = matmul(x, &array_to_vec(&W_K));
    let v = matmul(x, &array_to_vec(&W_V));
    let raw_scores = matmul(&q, &transpose(&k));
    let weights: Vec<Vec<f32>> = raw_scores.iter().map(|r| softmax(r)).collect();
    matmul(&weights, &v)
}

#[cfg(test)]
mod tests {
    // ---- softmax ----

    #[test]
    fn equal_scores_equal_probabilities() {
        let p = softmax(&[1.0, 1.0]);
        assert!((p[0] - p[1]).abs() < 1e-6);
    }

    #[test]
    fn raw_scores_have_one_row_per_token() {
        let r = attention(&array_to_vec(&INPUT_EMBEDDINGS));
        assert_eq!(r.raw_scores[0].len(), 2);
    }

    #[test]
    fn vector_with_one_decimal() {
        assert_eq!(fmt_vec(&[1.0, 2.5], 1), "[1.0, 2.5]");
    }
}
'''
RUST_CONSTANTS = [
    ("X", [["1.0", "0.5"], ["0.2", "1.0"]]),
    ("Wq", [["0.5", "0.0"], ["0.0", "0.5"]]),
    ("Wk", [["0.5", "0.0"], ["0.0", "0.5"]]),
    ("Wv", [["1.0", "0.0"], ["0.0", "1.0"]]),
]


@pytest.mark.parametrize("name,rows", RUST_CONSTANTS)
def test_rust_constants_are_the_inputs(name, rows):
    ex, = imported(_RUST_CONSTS, "text")
    assert ex.inputs[name].rows == rows
    assert not ex.claims  # the unit tests' literals are placed nowhere


# one printed row named equal to several rows ('A_{1,:} = A_{2,:} = [..]'): placed in each row named. Q = K =
# [[1, 0], [1, 0], [0, 1]] (two equal tokens), V = I, unscaled: weights rows 1 and 2 = softmax(1, 1, 0) =
# (0.4223, 0.4223, 0.1554), row 3 = softmax(0, 0, 1) = (0.2119, 0.2119, 0.5761) (computed with NumPy)
_ROWS_EQUAL = "\n".join([
    r"$$Q = \begin{pmatrix} 1 & 0 \\ 1 & 0 \\ 0 & 1 \end{pmatrix}$$", "",
    r"$$K = \begin{pmatrix} 1 & 0 \\ 1 & 0 \\ 0 & 1 \end{pmatrix}$$", "",
    r"$$V = \begin{pmatrix} 1 & 0 & 0 \\ 0 & 1 & 0 \\ 0 & 0 & 1 \end{pmatrix}$$", "",
    "Softmax of each row of $QK^\\top$ (no scaling):", "",
    "- $A_{1,:} = A_{2,:} = [0.4223, \\; 0.4223, \\; 0.1554]$",
    "- $A_{3,:} = [0.2119, \\; 0.2119, \\; 0.5761]$", ""])
ROWS_EQUAL = [
    ("1", ("0.4223", "0.4223", "0.1554")),
    ("2", ("0.4223", "0.4223", "0.1554")),
    ("3", ("0.2119", "0.2119", "0.5761")),
]


@pytest.mark.parametrize("row,values", ROWS_EQUAL)
def test_one_row_named_equal_to_several(row, values):
    ex, = imported(_ROWS_EQUAL)
    assert ("weights", row, values) in claims(ex)
