"""What the PyTorch cross-checks share: torch itself (required where .ci/run installs it), exact
matrices for symattn and float64 tensors for PyTorch, and the 1e-12 comparison."""

import os
from fractions import Fraction

import numpy as np
import pytest

# .ci/run installs the torch extra on Python 3.11 and says so (SYMATTN_TORCH=required): there a missing
# torch is a failure; elsewhere (Python 3.12 and 3.13 in CI, the plain test extras) these tests skip.
torch = __import__("torch") if os.environ.get("SYMATTN_TORCH") == "required" else pytest.importorskip("torch")
F = torch.nn.functional
REL = 1e-12


def rmat(rng, r, c):
    return [[Fraction(rng.randint(-15, 15), 10) for _ in range(c)] for _ in range(r)]


def text(m):
    return [[str(x) for x in r] for r in m]


def t64(m, grad=False):
    return torch.tensor([[float(x) for x in r] for r in m], dtype=torch.float64, requires_grad=grad)


def dec(step, digits=25):
    return np.array(step.decimals(digits), dtype=object).astype(float)


def close(ours, theirs):
    theirs = theirs.detach().numpy() if hasattr(theirs, "detach") else np.asarray(theirs)
    err = np.max(np.abs(ours - theirs) / np.maximum(1.0, np.abs(theirs)))
    assert err <= REL, err
