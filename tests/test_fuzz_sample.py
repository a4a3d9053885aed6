"""A small sample of the fuzz campaign (fuzz/campaign.py), run by CI: generated command lines,
each in its own forked subprocess with a timeout and a memory measurement. Every one must end
ok or with one clean error line: no traceback, no hang, no memory blow-up, no multi-line error.
(The full campaign of 5000 inputs is run by hand: see the README's "Fuzzing the command line".)"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _campaign():
    spec = importlib.util.spec_from_file_location("campaign", ROOT / "fuzz" / "campaign.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["campaign"] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the campaign forks")
def test_a_sample_of_the_fuzz_campaign():
    campaign = _campaign()
    results = campaign.run_campaign(n=80, seed=2026, jobs=2, timeout=60.0, slow=60.0, memory=1024.0)
    bad = [(r.outcome, r.case.argv, r.stderr[-300:]) for r in results
           if r.outcome not in ("ok", "clean error")]
    assert not bad, bad[:3]
    assert {r.case.command for r in results} == set(campaign.COMMANDS)
    assert any(r.outcome == "ok" for r in results) and any(r.outcome == "clean error" for r in results)


def test_the_classifier():
    campaign = _campaign()
    assert campaign.classify(0, 0.1, 50, "", 5, 1024) == "ok"
    assert campaign.classify(2, 0.1, 50, "symattn: f.toml: x: bad\n", 5, 1024) == "clean error"
    assert campaign.classify(2, 0.1, 50, "symattn: a\nb\n", 5, 1024) == "not-one-line"
    assert campaign.classify(2, 0.1, 50, "symattn: a\x1b[2J\n", 5, 1024) == "not-one-line"
    assert campaign.classify(1, 0.1, 50, "Traceback (most recent call last):\n", 5, 1024) == "traceback"
    assert campaign.classify(70, 0.1, 50, "symattn: internal error (X)\n", 5, 1024) == "traceback"
    assert campaign.classify(None, 10, 50, "", 5, 1024) == "hang"
    assert campaign.classify(0, 6, 50, "", 5, 1024) == "hang"
    assert campaign.classify(0, 0.1, 2000, "", 5, 1024) == "memory"
