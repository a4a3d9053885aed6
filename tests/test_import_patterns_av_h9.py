"""Ways of writing numbers met on held-out batch av (tests/pages/heldout/av/), as small snippets written
for these tests (not copied from the pages), each with what it must yield. The expected values were
worked out by hand from the snippets (Q = X·WQ, K = X·WK, scores = Q·Kᵀ)."""

from fractions import Fraction

import symattn as sa

from import_snippets import claims, imported

from symattn.analyses.importer_logit_head import logits_of
from symattn.analyses.importer_operand_x import projected_operand
from symattn.read.pages.hanging_rows import join_hanging_rows
from symattn.read.pages.hanging_weights import bare_weights
from symattn.read.pages.model import Line, Where


def rows(ex, name):
    return [[str(Fraction(str(x))) for x in r] for r in ex.inputs[name].rows]


# --- a worksheet: a vocabulary listed one token a line, bare hanging rows, X picking rows, W_O into logits ------

_SHEET = """# Worksheet

**Embeddings:**
- P = [2, 0]
- R = [0, 1]
- S = [1, 1]

**Weights:**
```
WQ = [1, 0]
     [0, 1]

WK = [1, 0]
     [0, 2]

WV = [1, 1]
     [0, 1]
```

```
WO = [1, 0]
     [0, 1]
```

## Step 1

The sequence is [S, P]:

```
X = [1, 1]   ← Token S
    [2, 0]   ← Token P
```

## Step 2

```
scores = [[3, 2], [2, 4]]
```

## Step 3

**Logits = Context × WO:**
"""


def test_worksheet_vocabulary_and_hanging_weights():
    ex, = imported(_SHEET)
    assert ex.tokens == ["S", "P"]  # X's rows are the vocabulary's S and P; R is not in the sequence
    assert rows(ex, "X") == [["1", "1"], ["2", "0"]]
    assert rows(ex, "Wk") == [["1", "0"], ["0", "2"]]
    assert rows(ex, "Wv") == [["1", "1"], ["0", "1"]]
    # Q = X = [[1, 1], [2, 0]], K = X·WK = [[1, 2], [2, 0]]: S·K = [3, 2], P·K = [2, 4]
    assert ("scores", "S", ("3", "2")) in claims(ex)
    assert ("scores", "P", ("2", "4")) in claims(ex)
    assert any("vocabulary" in str(n) for n in ex.notes)  # P, R, S listed, set aside


def test_worksheet_logit_head_is_no_output_projection():
    ex, = imported(_SHEET)
    assert "Wo" not in ex.inputs
    # near miss: a W_O that only makes the output stays the attention's output projection
    assert logits_of("WO", [Line("output = concat × WO", Where(1))]) is None
    assert logits_of("WO", [Line("**Logits = Context × WO:**", Where(1))]) == "**Logits = Context × WO:**"
    assert logits_of("W_O", [Line("logits = W_Ox", Where(1))]) is None  # another name


def test_vocabulary_not_picked_is_kept():
    # near miss: X has a row ([3, 3]) that is no listed vector: the list is no vocabulary of it
    page = _SHEET.replace("X = [1, 1]   ← Token S", "X = [3, 3]   ← Token S")
    assert not any("vocabulary" in str(n) for ex in imported(page) for n in ex.notes)


def _rewrite(*texts):
    return [ln.text for ln in join_hanging_rows([Line(t, Where(k + 1), "code") for k, t in enumerate(texts)])]


def test_bare_hanging_weights():
    assert _rewrite("WQ = [0.5, 0]", "     [0, 0.5]") == ["WQ = [[0.5, 0],", "      [0, 0.5]]"]
    assert _rewrite("W_k = [1, 2]", "      [3, 4]") == ["W_k = [[1, 2],", "       [3, 4]]"]
    # near misses: a name that is no symbol of attention, a row out of line, a comment on one line only
    for lone in (("M = [1, 0, 0]", "    [1, 1, 0]"), ("WQ = [1, 0]", "   [0, 1]"),
                 ("WQ = [1, 0]  # a", "     [0, 1]")):
        assert _rewrite(*lone) == list(lone)
    assert not bare_weights("Mask", [Line("Mask = [1, 0]", Where(1)), Line("       [0, 1]", Where(2))])


def test_arrow_comments_name_rows():
    got = _rewrite("X = [1, 0]   ← Token A", "    [0, 1]   ← Token B")
    assert got == ["X = [[1, 0],    # Token A", "     [0, 1]]    # Token B"]


# --- a script whose embeddings have a name of no step, known by the projections that multiply them ------------

_SCRIPT = """import numpy as np

data = np.array([[1.0, 2.0],
                 [0.0, 1.0]])
W_q = np.array([[1.0, 0.0], [0.0, 2.0]])
W_k = np.array([[0.5, 0.0], [0.0, 1.0]])
W_v = np.array([[1.0, 1.0], [0.0, 1.0]])

Q = data @ W_q
K = data @ W_k
V = data @ W_v
scores = Q @ K.T / np.sqrt(2)
"""


def test_projected_operand_is_x():
    ex, = sa.import_examples(_SCRIPT, source="snippet.py")
    assert rows(ex, "X") == [["1", "2"], ["0", "1"]]
    assert rows(ex, "Wk") == [["1/2", "0"], ["0", "1"]]


def test_projected_operand_near_misses():
    code = [Line("Q = a @ W_q", Where(1), "code"), Line("K = b @ W_k", Where(2), "code")]
    assert projected_operand(code) is None  # two operands: neither is known to be X
    assert projected_operand(code[:1]) is None  # one projection only
    assert projected_operand([Line("Q = a @ W_q", Where(1), "code"), Line("K = a @ W_k", Where(2), "code")]) == "a"
    page = _SCRIPT.replace("K = data @ W_k", "K = other @ W_k")
    try:
        got = sa.import_examples(page, source="snippet.py")
    except sa.SymattnError:
        got = []
    assert not any("X" in ex.inputs for ex in got)


# --- scores given already scaled, their softmax, then the values one a line and the output --------------------

_SCORES_VALUES = """# One position

The scores of one query, already scaled:

```text
score = [1.0, 0.0]
```

After the softmax:

```text
weight = [0.731, 0.269]
```

The values of the two positions:

```text
v0 = [2, 0]
v1 = [0, 4]
```

So the output is

```text
0.731 * v0 + 0.269 * v1
= [1.462, 1.076]
```
"""


def test_values_after_printed_scores():
    ex, = imported(_SCORES_VALUES)
    assert rows(ex, "V") == [["2", "0"], ["0", "4"]]
    assert rows(ex, "scores") == [["1", "0"]]
    got = claims(ex)
    assert any(c[0] == "weights" and c[2] == ("0.731", "0.269") for c in got)
    assert any(c[0] == "output" and c[2] == ("1.462", "1.076") for c in got)  # 0.731·2 and 0.269·4


def test_values_after_scores_near_miss():
    from symattn.analyses.importer_items import Item
    from symattn.analyses.importer_scores_values import values_after_scores

    s = Item([["1.0", "0.0"]], [], 1, 1, "vector", step="scores", strength=3)
    v = Item([["2", "0"], ["0", "4"]], [], 5, 6, "matrix", step="V", strength=3)
    assert values_after_scores([s], "V", v)
    # three values for two keys, or Q printed beside the scores: not the values of these scores
    assert not values_after_scores([s], "V", Item(v.rows + [["1", "1"]], [], 5, 7, step="V"))
    q = Item([["1", "0"]], [], 0, 0, "vector", step="Q", strength=3)
    assert not values_after_scores([q, s], "V", v)


# --- token IDs explained before the example: no embeddings -----------------------------------------------------

def test_token_ids_are_no_embeddings():
    page = _SCORES_VALUES.replace("# One position\n", "# One position\n\nTwo messages of 3 tokens, their `input_ids`:"
                                  "\n\n```text\n[\n  [101, 52, 87],\n  [101, 314, 66],\n]\n```\n")
    ex, = imported(page)
    assert "X" not in ex.inputs
    assert rows(ex, "V") == [["2", "0"], ["0", "4"]]
    assert any("token IDs" in str(n) for n in ex.notes)


def test_token_ids_near_misses():
    from symattn.analyses.importer_items import Item
    from symattn.analyses.importer_token_ids import names_ids, set_token_ids_aside

    assert not names_ids("token embeddings") and not names_ids("the idea of tokens")
    emb = Item([["1", "0"], ["0", "1"]], [], 0, 1, "matrix", step="X", strength=2, label="the input_ids embedded")
    frac = Item([["0.5", "1"]], [], 2, 2, "vector", step="X", strength=2, label="input_ids")
    named = Item([["1", "2"]], [], 3, 3, "vector", step="X", strength=3, label="input_ids")
    set_token_ids_aside([emb, frac, named])
    assert emb.step is None  # whole numbers under a label naming the IDs
    assert frac.step == "X" and named.step == "X"  # a fraction among them; an X the code names itself


# --- Q, K, V printed afresh under a new heading after a first example written in code ---------------------------

_CODE_THEN_MATH = """# Lookup

```python
import numpy as np
q = np.array([1.0, 0.0])
K = np.array([[1.0, 0.0], [0.0, 1.0]])
V = np.array([[2.0, 0.0], [0.0, 2.0]])
w = np.exp(K @ q)
w = w / w.sum()
print(np.round(w, 3), np.round(w @ V, 3))
```

```output
[0.731 0.269] [1.462 0.538]
```

## By hand, two queries

$$
\\mathbf{Q} = \\begin{pmatrix}1&0\\\\0&1\\end{pmatrix},\\qquad
\\mathbf{K} = \\begin{pmatrix}1&0\\\\0&1\\end{pmatrix},\\qquad
\\mathbf{V} = \\begin{pmatrix}2&0\\\\0&2\\end{pmatrix}
$$

$$
\\mathbf{P} = \\begin{pmatrix}0.731&0.269\\\\0.269&0.731\\end{pmatrix}
$$
"""


def test_fresh_qkv_after_code_literals():
    first, second = imported(_CODE_THEN_MATH)
    assert rows(first, "Q") == [["1", "0"]]
    assert rows(second, "Q") == [["1", "0"], ["0", "1"]]  # the heading's own queries, with the same K and V
    assert rows(second, "V") == [["2", "0"], ["0", "2"]]
    # e/(e+1) = 0.731 for the matching key; the second query's row mirrors the first
    assert ("weights", "2", ("0.269", "0.731")) in claims(second)
    assert ("output", "1", ("1.462", "0.538")) in claims(first)


def test_fresh_qkv_near_misses():
    # no heading between the code's work and the printed matrices: they restate, nothing new starts
    page = _CODE_THEN_MATH.replace("## By hand, two queries\n", "")
    assert len(imported(page)) == 1
    # the printed Q is the code's own (one row, the same numbers): no new example
    same = _CODE_THEN_MATH.replace(r"\mathbf{Q} = \begin{pmatrix}1&0\\0&1\end{pmatrix}",
                                   r"\mathbf{Q} = \begin{pmatrix}1&0\end{pmatrix}")
    assert same != _CODE_THEN_MATH
    assert all(rows(ex, "Q") == [["1", "0"]] for ex in imported(same))


# --- a script that works one head, then splits Q, K and V into heads and works them again -----------------------

_RERUN = """import torch
import torch.nn.functional as F

x = torch.tensor([[1.0, 0.0, 2.0, 0.0],
                  [0.0, 1.0, 0.0, 2.0]])
W_q = torch.tensor([[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0]])
W_k = torch.tensor([[2.0, 0.0, 0.0, 0.0], [0.0, 2.0, 0.0, 0.0], [0.0, 0.0, 2.0, 0.0], [0.0, 0.0, 0.0, 2.0]])
W_v = torch.tensor([[1.0, 1.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 1.0], [0.0, 0.0, 0.0, 1.0]])

Q = x @ W_q
K = x @ W_k
V = x @ W_v
w = F.softmax(Q @ K.T / 2, dim=-1)
out = w @ V

Qh = split_heads(Q, 2)
Kh = split_heads(K, 2)
Vh = split_heads(V, 2)
wh = F.softmax(Qh @ Kh.transpose(-2, -1) / 2 ** 0.5, dim=-1)
"""


def test_heads_rerun():
    one, two = sa.import_examples(_RERUN, source="snippet.py")
    assert one.convention.get("heads") is None or one.convention["heads"].value == 1
    assert two.convention["heads"].value == 2
    assert rows(two, "Wk") == rows(one, "Wk") == [["2", "0", "0", "0"], ["0", "2", "0", "0"], ["0", "0", "2", "0"],
                                                  ["0", "0", "0", "2"]]
    assert two.spec.convention.heads == 2


def test_heads_rerun_near_misses():
    from symattn.analyses.importer_heads_rerun import split_count

    # 3 heads do not divide the width 4: no second example
    assert len(sa.import_examples(_RERUN.replace("(Q, 2)", "(Q, 3)"), source="snippet.py")) == 1
    # no softmax after the split: the heads are made, never worked
    assert split_count(["w = F.softmax(s)", "Qh = split_heads(Q, 2)"]) is None
    assert split_count(["w = F.softmax(s)", "Qh = split_heads(Q, 1)", "F.softmax(t)"]) is None  # one head


# --- 'scaled_score[i][j] = … = 0.5': one entry of the scaled scores, by its indexes ----------------------------

def test_scaled_score_entries():
    from symattn.analyses.importer_names import step_of_ident

    assert step_of_ident("scaled_score") == "scaled"
    assert step_of_ident("scaled_scores") == "scaled"
    assert step_of_ident("score") == "scores"  # near miss: the raw score stays raw
    page = _SHEET.replace("## Step 3\n", "```\nscaled_score[1][0] = 2 × 0.707 = 1.414\n"
                          "scaled_score[1][1] = 4 × 0.707 = 2.828\n```\n\n## Step 3\n")
    ex, = imported(page)
    assert ("scaled", "P", ("1.414", "2.828")) in claims(ex)  # [1] is the second token (from 0): P's row, /√2


def test_logit_head_work_set_aside():
    # what the page works from the logits (under a heading that names them) is no step of the attention
    page = _SHEET + "\n## Step 4: Probabilities\n\n```\nweights = [0.6, 0.4]\n```\n"
    ex, = imported(page)
    assert any("worked from the logits" in str(n) for n in ex.notes)
    # near miss: without the logits line nothing is set aside for it
    plain = page.replace("**Logits = Context × WO:**", "")
    assert not any("worked from the logits" in str(n) for ex in imported(plain) for n in ex.notes)


# --- the same Q, K, V worked again in titled blocks, one bullet a row, without the mask or the scale -----------

_VARIANTS = r"""# Two keys

$$
\mathbf{Q} = \begin{pmatrix}2&0\\0&2\end{pmatrix},\qquad
\mathbf{K} = \begin{pmatrix}1&0\\0&1\end{pmatrix},\qquad
\mathbf{V} = \begin{pmatrix}1&0\\0&3\end{pmatrix}
$$

Causal and scaled by $\sqrt 2$:

$$
\mathbf{P} = \begin{pmatrix}1&0\\0.197&0.803\end{pmatrix}
$$

::: worked title="Unmasked: both rows see both keys"
- **Row 1.** Scores $(1.414, 0)$, weights $(0.804, 0.196)$. Output
  $0.804\,(1, 0) + 0.196\,(0, 3) = (0.804, 0.588)$.
- **Row 2.** Scores $(0, 1.414)$, weights $(0.196, 0.804)$, output $(0.196, 2.412)$.
:::

::: worked title="Causal, without the scale"
- **Row 2.** Scores $(0, 2)$, exponentials $(1, 7.389)$. Weights $(0.119, 0.881)$; output $(0.119, 2.643)$.
:::
"""


def test_row_variant_blocks():
    exs = imported(_VARIANTS)
    assert len(exs) == 3
    base, unmasked, unscaled = exs
    assert rows(unmasked, "Q") == rows(base, "Q") == [["2", "0"], ["0", "2"]]
    assert unmasked.spec.convention.mask == "none"
    # Q·Kᵀ = 2·I, /√2: 1.414 on the diagonal; softmax(1.414, 0) = (0.804, 0.196); output = 0.804·v1 + 0.196·v2
    assert ("scaled", "1", ("1.414", "0")) in claims(unmasked)
    assert ("output", "1", ("0.804", "0.588")) in claims(unmasked)
    assert unscaled.spec.convention.mask == "causal" and unscaled.convention["scale"].value == "none"
    assert ("scores", "2", ("0", "2")) in claims(unscaled)  # unscaled: the raw scores
    assert ("weights", "2", ("0.119", "0.881")) in claims(unscaled)  # 1/(1+e²), e²/(1+e²)


def test_row_variant_near_misses():
    from symattn.analyses.importer_row_variants import row_vectors, variant_of

    assert variant_of("A soft lookup") == {}  # a title that changes nothing: no variant
    assert row_vectors("Scores, then (1, 2)") == {"scores": ["1", "2"]}
    assert row_vectors("exponentials $(1, 2.718)$") == {}  # not a step
    # a block repeating the example's own convention (causal, scaled) is part of it: no new example
    same = _VARIANTS.replace('title="Unmasked: both rows see both keys"', 'title="Causal, row by row"')
    assert len(imported(same)) == 2
    # a row number past the example's queries: the block is not read
    far = _VARIANTS.replace("**Row 2.** Scores $(0, 2)$", "**Row 5.** Scores $(0, 2)$")
    assert len(imported(far)) == 2
