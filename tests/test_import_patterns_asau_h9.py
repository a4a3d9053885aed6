"""Ways of writing numbers met on held-out batches as and au (tests/pages/heldout/as/, au/), each with a
near miss that must not be misread. Every expected value was read off the snippet by hand."""

from fractions import Fraction

import pytest

import symattn as sa
from import_snippets import claims, imported

from symattn.read.pages import read_page
from symattn.read.pages.model import Numbers


def _blocks(text, fmt="markdown", source="<page>"):
    page = read_page(text, fmt, source)
    return [(type(b).__name__, b.rows if isinstance(b, Numbers) else b.words) for b in page.blocks]


# -- numbers formatted as strings, then printed: ['0.266', '0.240'] ------------------------------------

def test_quoted_decimals_are_numbers():
    got = _blocks("```\nWeights:\n['0.250', '0.750']\n```\n")
    assert got == [("Numbers", [["0.250", "0.750"]])]


def test_quoted_words_and_whole_numbers_stay_words():
    assert _blocks("```\nTokens:\n['the', 'cat']\n```\n") == [("Words", ["the", "cat"])]
    assert _blocks("```\nIds:\n['1', '2']\n```\n") == [("Words", ["1", "2"])]
    # one quoted word among numerals: not numbers
    assert _blocks("```\nRow:\n['0.5', 'cat']\n```\n")[0][0] == "Words"


# -- a printout cut short: rows printed one a line, then '...' -----------------------------------------

def test_output_rows_then_elision_are_one_matrix():
    got = _blocks("```\nQueries (Q):\n[0.5, 1.5]\n[2.0, 0.25]\n...\n```\n")
    assert got == [("Numbers", [["0.5", "1.5"], ["2.0", "0.25"]])]


def test_output_rows_without_elision_stay_apart():
    got = _blocks("```\nQueries (Q):\n[0.5, 1.5]\n[2.0, 0.25]\n```\n")
    assert got == [("Numbers", [["0.5", "1.5"]]), ("Numbers", [["2.0", "0.25"]])]


def test_readme_printout_of_first_rows_is_claims_of_those_rows():
    page = ("Example Output\n```\nQueries (Q):\n[0.5, 1.5]\n[2.0, 0.25]\n...\n\nAttention Weights:\n"
            "['0.125', '0.375', '0.500']\n...\n\nAttention Output:\n['1.000', '2.000']\n```\n")
    (ex,) = imported(page)
    assert claims(ex) == {("Q", "1", ("0.5", "1.5")), ("Q", "2", ("2.0", "0.25")),
                          ("weights", "1", ("0.125", "0.375", "0.500")), ("output", "1", ("1.000", "2.000"))}
    assert not ex.inputs


def test_readme_printout_of_one_step_only_is_not_an_example():
    page = "Example Output\n```\nAttention Output:\n['1.000', '2.000']\n...\n```\n"
    try:
        exs = imported(page)
    except sa.SymattnError:
        return
    assert not any(c.step == "weights" for e in exs for c in e.claims)


# -- a tensor printout whose last rows are left out: tensor([[…], […], ...]) ----------------------------

def test_trailing_elision_in_tensor_printout():
    got = _blocks("```\nScores:\ntensor([[ 1.5, -0.5,  2.0],\n        [ 0.25,  1.0, -1.0],\n        ...])\n```\n")
    assert got == [("Numbers", [["1.5", "-0.5", "2.0"], ["0.25", "1.0", "-1.0"]])]


def test_elision_between_rows_is_not_read_as_consecutive_rows():
    got = _blocks("```\nScores:\ntensor([[ 1.5, -0.5],\n        ...,\n        [ 0.25,  1.0]])\n```\n")
    assert ("Numbers", [["1.5", "-0.5"], ["0.25", "1.0"]]) not in got


# -- labels in Chinese in a fence of printed output; 掩码后分数 (the scores after the mask) -----------------

DRAWN = """```python
mask = torch.tensor([[1, 1, 0], [1, 1, 0], [1, 1, 0]])
scores = torch.randn(1, 3, 3) * 2
print("原始分数:\\n", scores[0])
masked = scores.masked_fill(mask == 0, -1e9)
print("掩码后分数:\\n", masked[0])
weights = F.softmax(masked, dim=-1)
print("Softmax后注意力权重:\\n", weights[0])
```

**输出**：
```
原始分数:
tensor([[ 0.0,  0.0,  5.0],
        [ 1.0,  1.0,  2.0],
        ...])

掩码后分数:
tensor([[ 0.0000e+00,  0.0000e+00, -1.0000e+09],
        [ 1.0000e+00,  1.0000e+00, -1.0000e+09],
        ...])

Softmax后注意力权重:
tensor([[0.5000, 0.5000, 0.0000],
        [0.5000, 0.5000, 0.0000],
        ...])
```
"""


def test_cjk_labels_make_a_fence_output():
    page = read_page(DRAWN, "markdown")
    labels = [ln.role for ln in page.lines if ln.text in ("原始分数:", "掩码后分数:")]
    assert labels == ["output", "output"]


def test_scores_drawn_at_random_are_the_inputs():
    (ex,) = imported(DRAWN)
    assert ex.spec.inputs["scores"] == [[0, 0, 5], [1, 1, 2]] or \
        [[Fraction(str(x)) for x in r] for r in ex.spec.inputs["scores"]] == [[0, 0, 5], [1, 1, 2]]
    got = claims(ex)
    assert ("weights", "1", ("0.5000", "0.5000", "0.0000")) in got
    assert ("masked", "2", ("1.0000e+00", "1.0000e+00", "-1.0000e+09")) in got


def test_scores_made_from_random_queries_stay_claims():
    page = DRAWN.replace("scores = torch.randn(1, 3, 3) * 2", "q = torch.randn(1, 3, 4)\nscores = q @ q.transpose(-2, -1)")
    exs = imported(page)
    assert all("scores" not in e.spec.inputs for e in exs)


# -- a random module's weights printed with their row sums ---------------------------------------------

MODULE = """```python
class SelfAttention(nn.Module):
    def __init__(self, d_model, d_k):
        super().__init__()
        self.W_q = nn.Linear(d_model, d_k, bias=False)
        self.W_k = nn.Linear(d_model, d_k, bias=False)
        self.W_v = nn.Linear(d_model, d_k, bias=False)

x = torch.randn(1, 2, 8)
out, weights = SelfAttention(8, 4)(x)
print("Attention weights:")
print(weights[0])
print("Row sums:")
print(weights[0].sum(dim=-1))
```

Output:
```
Attention weights:
tensor([[0.2500, 0.7500],
        [0.6000, 0.4000]], grad_fn=<SelectBackward0>)
Row sums:
tensor([1.0000, 1.0000], grad_fn=<SumBackward1>)
```
"""


def test_random_weights_with_row_sums_are_claims():
    (ex,) = imported(MODULE)
    assert claims(ex) == {("weights", "1", ("0.2500", "0.7500")), ("weights", "2", ("0.6000", "0.4000")),
                          ("weights_sum", "1", ("1.0000",)), ("weights_sum", "2", ("1.0000",))}
    assert not ex.inputs


def test_random_weights_with_other_vector_are_not_row_sums():
    page = MODULE.replace("Row sums:", "Bias:")
    try:
        exs = imported(page)
    except sa.SymattnError:
        return
    assert not any(c.step == "weights_sum" for e in exs for c in e.claims)


# -- a JavaScript lesson module: printed output kept in an `output:` template string -------------------

LESSON = """export default {
  blocks: [
    { type: 'code', lang: 'python', code: `import numpy as np
w = softmax(s)
print("head 1 attention weights:\\\\n", w)`,
      output: `head 1 attention weights:
 [[0.25 0.75]
 [0.5  0.5 ]]
head 2 attention weights:
 [[0.1 0.9]
 [0.3 0.7]]`,
    },
  ],
};
"""


def test_js_output_template_is_output():
    page = read_page(LESSON, None, "lesson.js")
    roles = {ln.text.strip(): ln.role for ln in page.lines}
    assert roles["head 1 attention weights:"] == "output"
    assert roles["[[0.25 0.75]"] == "output"
    assert roles["w = softmax(s)"] == "code"


@pytest.mark.parametrize("name", ["lesson.ts", "lesson.jsx", "lesson.tsx"])
def test_js_output_template_in_typescript_and_jsx(name):
    # the same lesson module saved as TypeScript or JSX (a React scene) reads as the .js one
    page = read_page(LESSON, None, name)
    roles = {ln.text.strip(): ln.role for ln in page.lines}
    assert roles["[[0.25 0.75]"] == "output" and roles["w = softmax(s)"] == "code"


def test_js_output_template_heads_are_claims():
    (ex,) = sa.import_examples(LESSON, source="lesson.js")
    assert claims(ex) == {("head1.weights", "1", ("0.25", "0.75")), ("head1.weights", "2", ("0.5", "0.5")),
                          ("head2.weights", "1", ("0.1", "0.9")), ("head2.weights", "2", ("0.3", "0.7"))}


def test_js_template_with_substitution_stays_code():
    page = read_page(LESSON.replace("head 2 attention weights:", "head ${i} attention weights:"), None, "lesson.js")
    roles = {ln.text.strip(): ln.role for ln in page.lines}
    assert roles.get("[[0.25 0.75]") == "code"


def test_js_code_template_is_not_output():
    page = read_page("const x = {\n  code: `print(1)\n[[0.5 0.5]]`,\n};\n", None, "lesson.js")
    assert all(ln.role == "code" for ln in page.lines)
