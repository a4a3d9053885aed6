"""Helpers for the import tests: an example file's inputs, conventions and claims as plain
sets, so that an imported draft can be compared with a hand-made file."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import symattn as sa


def _text(x) -> str:
    return x.strip() if isinstance(x, str) else str(x)


def claim_set(spec) -> set[tuple]:
    """{(step, row, key, column, printed text)} over the main claims and every restatement;
    placeholders ("..") left out. The same number printed twice counts once."""
    out = set()
    groups = [{k: v for k, v in spec.claims.items() if k != "also"}] + list(spec.claims.get("also", []))
    for g in groups:
        for step, table in g.items():
            if step == "where":
                continue
            if isinstance(table, list):  # a whole matrix
                for i, row in enumerate(table):
                    for j, x in enumerate(row):
                        out.add((step, str(i + 1), None, j, _text(x)))
                continue
            for row, vec in table.items():
                if step == "weighted":
                    for key, v in vec.items():
                        for j, x in enumerate(v):
                            if _text(x) not in ("..", "?"):
                                out.add((step, row, key, j, _text(x)))
                elif isinstance(vec, list):
                    for j, x in enumerate(vec):
                        if _text(x) not in ("..", "?"):
                            out.add((step, row, None, j, _text(x)))
                else:
                    out.add((step, row, None, 0, _text(vec)))
    return out


def inputs_of(spec) -> dict[str, list[list[Fraction]]]:
    return {k: [[Fraction(x) for x in r] for r in m] for k, m in spec.inputs.items()}


def convention_of(spec) -> dict:
    c = spec.convention
    return {"layout": c.layout, "scale": c.scale_text.replace(" ", ""), "query": c.query, "mask": c.mask,
            "softmax_axis": c.softmax_axis, "heads": c.heads, "kv_heads": c.kv_heads, "window": c.window,
            "score": c.score, "feature_map": c.feature_map if c.score == "linear" else None, **c.position_echo()}


def verdicts(report) -> set[tuple]:
    """{(step, row, col, printed, verdict)}: the global verdict of every printed number."""
    return {(c.step, c.row, c.col, c.claimed, c.verdict) for c in report.claims}


def same_example(imported, handmade) -> None:
    """Assert that an imported spec has the hand-made file's inputs, tokens, conventions and claims."""
    assert inputs_of(imported) == inputs_of(handmade)
    assert imported.tokens == handmade.tokens
    assert (imported.key_tokens or None) == (handmade.key_tokens or None)
    assert convention_of(imported) == convention_of(handmade)
    assert claim_set(imported) == claim_set(handmade)


__all__ = ["claim_set", "inputs_of", "convention_of", "verdicts", "same_example", "Decimal", "sa"]
