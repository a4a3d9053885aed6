"""Ways of writing numbers met on held-out batch af (tests/pages/heldout/af/), as tables of (snippet, what it
must yield). Each expected value was read off the snippet by hand."""

import pytest

from import_snippets import claims, imported

from symattn.analyses.importer_heads_only import heads_in_order

_H1 = "tensor([[0.6000, 0.4000],\n        [0.2500, 0.7500]])"
_H2 = "tensor([[0.1000, 0.9000],\n        [0.5000, 0.5000]])"
_CODE = ('print("Head 1 注意力权重：\\n", attn_weights[0,0])\nprint("Head 2 注意力权重：\\n", attn_weights[0,1])\n'
         "mha = Model()\n\n")

# a page with no inputs printing each head's weights under a caption numbering the head (a random model
# it never prints): each head's matrix is a claim of that head, never one head's numbers under another's
HEAD_PAGES = [
    (f"Head 1 attention weights:\n {_H1}\nHead 2 attention weights:\n {_H2}\n",
     {("head1.weights", "1", ("0.6000", "0.4000")), ("head1.weights", "2", ("0.2500", "0.7500")),
      ("head2.weights", "1", ("0.1000", "0.9000")), ("head2.weights", "2", ("0.5000", "0.5000"))}),
    # the caption in Chinese, full-width colon, as a rendered notebook page copies
    # the print calls' indices (attn_weights[0,0]) in the copied code are not a matrix
    (_CODE + f"Head 1 注意力权重：\n {_H1}\nHead 2 注意力权重：\n {_H2}\n",
     {("head1.weights", "1", ("0.6000", "0.4000")), ("head1.weights", "2", ("0.2500", "0.7500")),
      ("head2.weights", "1", ("0.1000", "0.9000")), ("head2.weights", "2", ("0.5000", "0.5000"))}),
]


@pytest.mark.parametrize("page,want", HEAD_PAGES)
def test_each_printed_head_keeps_its_own_weights(page, want):
    (ex,) = imported(page, "text")
    assert claims(ex) == want
    assert ex.inputs == {}
    assert ex.spec.convention.heads == 2


# what is not read as heads' weights: a nothing is placed under a head it may not be
NOT_HEADS = [
    # one head only: not a multi-head page (another reading may take it, never as head1)
    f"Head 1 weights:\n {_H1}\n",
    # rows that are not distributions under a weights caption: not weights
    "Head 1 weights:\n tensor([[0.6000, 0.6000],\n        [0.2500, 0.7500]])\n"
    f"Head 2 weights:\n {_H2}\n",
    # a weights block under no head beside the headed ones: which head it is, the page does not say
    f"Head 1 weights:\n {_H1}\nHead 2 weights:\n {_H2}\nweights:\n {_H2}\n",
]


@pytest.mark.parametrize("page", NOT_HEADS)
def test_no_head_claims_without_every_block_headed(page):
    try:
        exs = imported(page, "text")
    except Exception:  # refused: nothing placed
        return
    for ex in exs:
        assert not any(c.step.startswith("head") for c in ex.claims)


ORDERS = [
    ([(1, "weights"), (2, "weights")], True),
    ([(1, "weights"), (2, "weights"), (1, "output"), (2, "output")], True),
    ([(1, "weights")], False),  # one head
    ([(1, "weights"), (1, "weights"), (2, "weights")], False),  # a head's step printed twice
]


@pytest.mark.parametrize("found,want", ORDERS)
def test_heads_in_order(found, want):
    assert heads_in_order(found) is want
