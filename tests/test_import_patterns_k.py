"""Ways of writing numbers met on held-out batch k (tests/pages/heldout/k/), as tables of
(snippet, what it must yield). Each expected value was read off the snippet by hand
(softmax([1/√2, 0]) = [0.66976, 0.33024])."""

import pytest

import symattn as sa
from symattn.analyses.importer_conventions import keep_mask
from symattn.read.pages.model import Line, Where

T, F = True, False

# one example worked twice in a test file: without a mask, then with a 0/1 keep-mask passed to the
# same call (1 = attend): the masked call is a second example on the same inputs, the mask its
# convention (broadcast over the queries when printed once), never a step
UNMASKED = ("q = np.array([[1, 0], [0, 1]])\nk = np.array([[1, 0], [0, 1]])\nv = np.array([[1, 0], [0, 1]])\n"
            "attention, weights = scaled_attention(q, k, v, None)\n"
            "assert np.allclose(weights, [[0.66976155, 0.33023845], [0.33023845, 0.66976155]])\n")
MASKED = [
    ("mask = np.array([[1, 0]])\nattention, weights = scaled_attention(q, k, v, mask)\n"
     "assert np.allclose(weights, [[1.0, 0.0], [1.0, 0.0]])\n",
     [[T, F], [T, F]], ("1.0", "0.0")),
    ("padding_mask = np.array([[[1, 1], [0, 1]]])\nout, w = scaled_attention(q, k, v, padding_mask)\n"
     "assert np.allclose(w, [[0.66976155, 0.33023845], [0.0, 1.0]])\n",
     [[T, T], [F, T]], ("0.66976155", "0.33023845")),
]


@pytest.mark.parametrize("masked,mask,row1", MASKED)
def test_keep_mask_call_is_a_second_example(masked, mask, row1):
    exs = sa.import_examples(UNMASKED + "\n" + masked, format="text", source="snippet")
    assert len(exs) == 2
    first, second = exs
    assert "mask" not in first.convention
    assert second.convention["mask"].value == mask
    assert second.spec.inputs == first.spec.inputs
    got = {(c.step, c.row, tuple(c.values)) for c in second.claims if c.group is None}
    assert ("weights", "1", row1) in got
    assert not any(c.step != "weights" for c in second.claims)  # the mask is no step


# (label, rows, the line after, keep-mask or None)
KEEP = [
    ("mask", [["1", "0", "1"]], "f(q, k, v, mask)", [[T, F, T]]),
    ("attn_mask", [["1.", "1."], ["0.", "1."]], "out = layer(x, attn_mask=attn_mask)", [[T, T], [F, T]]),
    ("mask", [["1", "0", "1"]], "print(mask)", None),  # not passed to a call with other arguments
    ("mask", [["1", "1", "1"]], "f(q, k, v, mask)", None),  # all ones: no mask
    ("weights", [["1", "0", "1"]], "f(q, k, v, weights)", None),  # not named as a mask
    ("mask", [["0", "-1e9"]], "f(q, k, v, mask)", None),  # additive, not 0/1
]


@pytest.mark.parametrize("label,rows,after,want", KEEP)
def test_keep_mask(label, rows, after, want):
    lines = [Line(f"{label} = …", Where(1)), Line(after, Where(2))]
    assert keep_mask(rows, label, lines, 0) == want
