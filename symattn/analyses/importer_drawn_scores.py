"""Scores drawn at random themselves: a page that shows masking or softmax on made-up scores
(``scores = torch.randn(1, 5, 5) * 2`` then ``print(scores[0])``) prints the scores its code starts
from. Nothing is computed before them, so the printed scores are the example's inputs (known to their
printed digits), not a result of unprinted Q and K."""

from __future__ import annotations

import re

__all__ = ["scores_drawn_at_random"]

#: a scores-named variable assigned straight from a random draw (a factor after it allowed)
_DRAWN = re.compile(r"^\s{0,40}(?:\w{0,30}_)?(?:scores?|logits)\s{0,4}=\s{0,4}(?:torch|np|numpy|tf|jnp|rng|np\.random|"
                    r"torch\.random|tf\.random|jax\.random|random)\.(?:random\.)?(?:randn|rand|normal|standard_normal|"
                    r"uniform)\s{0,4}\(")
#: a scores-named variable made as a product (Q @ K.T, torch.matmul(q, k…), einsum)
_MADE = re.compile(r"^\s{0,40}(?:\w{0,30}_)?(?:scores?|logits)\s{0,4}=\s{0,4}.{0,200}?(?:@|matmul|\bdot\b|bmm|einsum)")

#: how far above the printout its code may end (lines: an 'Output:' heading, a fence), and the longest listing read
_GAP, _MOST = 12, 200


def scores_drawn_at_random(lines: list, at: int) -> bool:
    """Whether the code listing just above line ``at`` (the printed scores) draws a scores-named variable
    at random and makes none as a product of queries and keys.

    >>> from symattn.read.pages.model import Line, Where
    >>> code = ["scores = torch.randn(1, 3, 3)", "print(scores[0])"]
    >>> ls = [Line(t, Where(i), "code") for i, t in enumerate(code)] + [Line("tensor([[1.]])", Where(3), "output")]
    >>> scores_drawn_at_random(ls, 2)
    True
    >>> ls[0].text = "scores = q @ torch.randn(3, 3)"
    >>> scores_drawn_at_random(ls, 2)
    False
    """
    k = at - 1
    while k >= 0 and at - k <= _GAP and (lines[k].role != "code" or not lines[k].text.strip()):
        k -= 1
    drawn = False
    n = 0
    while k >= 0 and n < _MOST and lines[k].role == "code":
        t = lines[k].text
        if _MADE.match(t):
            return False
        drawn = drawn or bool(_DRAWN.match(t))
        k -= 1
        n += 1
    return drawn
