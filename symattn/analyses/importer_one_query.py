"""A page with no inputs that prints one query's steps as vectors, each under a code name that gives the
query's index (``omega_2``, ``attention_weights_2``, ``context_vec_2``: the second query's scores,
weights and output, from random embeddings it never prints): each run of such steps in the order of the
derivation is a claims-only example of that query's row.

>>> from symattn.analyses.importer_one_query import runs_in_order
>>> runs_in_order([("output", 2, ["1.0"]), ("scores", 2, ["3.0", "1.0"]), ("weights", 2, ["0.9", "0.1"]),
...                ("output", 2, ["2.0"])])
[[0], [1, 2, 3]]
"""

from __future__ import annotations

import math

from .importer_claims_only import is_distribution
from .importer_items import Item
from .importer_model import CLAIM_ORDER, Choice, ClaimRow, ImportedExample, Note, _same_values
from .importer_rows import _listed, _numeric_or_inf
from .importer_values import softmax_scale

#: the steps a one-query vector may be (its row of a square or output matrix)
_ROW_STEPS = ("scores", "scaled", "masked", "weights", "output")


def runs_in_order(found: list[tuple[str, int, list[str]]]) -> list[list[int]]:
    """Split (step, row, values) printed in page order into runs that each work forward through the
    derivation: a step that comes before one already in the run, or a row of a step printed again with
    other numbers, starts a new run (the page works another example). The same numbers printed again
    stay in their run (a restatement)."""
    runs: list[list[int]] = []
    for k, (step, row, vals) in enumerate(found):
        cur = runs[-1] if runs else None
        if cur is None or any(CLAIM_ORDER.index(found[g][0]) > CLAIM_ORDER.index(step) or
                              (found[g][0], found[g][1]) == (step, row) and found[g][2] != vals for g in cur):
            runs.append([k])
        else:
            cur.append(k)
    return runs


def _named_row(it: Item) -> bool:
    return (it.kind == "vector" and it.strength == 3 and it.batches == 1 and it.step in _ROW_STEPS
            and it.role in ("output", "code")  # a code variable's name (omega_2) printed by the code
            and it.row_index is not None and it.token is None and not it.operand and not it.products
            and not it.aside and _numeric_or_inf(it.rows))


def _continues(ex: ImportedExample, its: list[Item]) -> bool:
    """Whether one query's steps printed after an example's claims go on working it forward (the same row,
    later steps): they belong to it, not to a draft of their own."""
    own = [(c.step, c.row, list(c.values)) for c in ex.claims if c.group is None and c.step in _ROW_STEPS]
    if not own or ex.first_index > its[0].line:
        return False
    return len(runs_in_order(own + [(it.step, str(it.row_index), it.rows[0]) for it in its])) == 1 and \
        {c.row for c in ex.claims} == {str(it.row_index) for it in its}


def one_query_steps(imp, skip: frozenset[str] = frozenset(), alone: bool = True,
                    before: list[ImportedExample] | None = None) -> list[ImportedExample]:
    """The claims-only examples of a page whose only steps are one query's rows, printed as vectors under
    code names with the query's index (see the module). Each run must be consistent: the scores and weights
    as wide as each other, the weights a distribution, the outputs as wide as each other; when the run has
    both the scores and the weights, the scale is the one that makes the weights their softmax. ``skip``: where
    the blocks are that examples found on the page already hold; ``alone``: no other example on the page (the
    drafts are then numbered and titled here, and the page's other blocks listed with them); ``before``: those
    examples (a run that goes on working one of them forward is left to it)."""
    named = [it for it in imp.items if _named_row(it) and str(it.where[0]) not in skip]
    before = before or []
    if not named:
        return []
    runs = runs_in_order([(it.step, it.row_index, it.rows[0]) for it in named])
    out: list[ImportedExample] = []
    used: set[int] = set()
    lines = imp.page.lines
    for run in runs:
        its = [named[k] for k in run]
        if any(_continues(e, its) for e in before):
            continue  # the rest of an example found on the page (its output after its weights): not a draft
        firsts: dict[tuple[str, int], Item] = {}
        for it in its:
            firsts.setdefault((it.step, it.row_index), it)
        keys = {len(it.rows[0]) for it in its if it.step != "output"}
        outs = {len(it.rows[0]) for it in its if it.step == "output"}
        if len(keys) > 1 or len(outs) > 1 or any(it.step == "weights" and not is_distribution(it.rows[0])
                                                 for it in its):
            continue
        conv: dict[str, Choice] = {}
        for (step, row), w in firsts.items():
            raw = firsts.get(("scores", row))
            if step != "weights" or raw is None:
                continue
            d = softmax_scale(raw.rows, w.rows)
            if d is not None:
                why = f"the printed weights are the softmax of the printed scores divided by √{d} = {math.sqrt(d):.4g}"
                conv = {"scale": Choice("1/sqrt(d_k)", why, where=w.at()), "d_k": Choice(d, why, where=w.at())}
            elif _softmax_as_is(raw.rows[0], w.rows[0]):
                conv = {"scale": Choice("none", "the printed weights are the softmax of the printed scores as "
                                                "they are", where=w.at())}
            else:  # the page's names say what they are; check tells which numbers are wrong
                conv = {"scale": Choice("none", "the printed weights are the softmax of the printed scores at no "
                                                "scale; this draft applies softmax to them as they are", assumed=True)}
        claims = [ClaimRow(it.step, str(it.row_index), list(it.rows[0]), it.at()) for it in firsts.values()]
        claims.sort(key=lambda c: CLAIM_ORDER.index(c.step))
        first = min(it.line for it in its)
        last = max(it.end for it in its)
        steps = ", ".join(dict.fromkeys(c.step for c in claims))
        notes = [Note("assumed", f"the page prints one query's {steps} (row {claims[0].row}, by the index in "
                                 "its names) and none of the inputs that make them: drafted as claims only",
                      its[0].at())]
        notes += [Note("repeat", "prints the same numbers again", it.at()) for it in its if it not in
                  firsts.values() and _same_values(it.rows, firsts[(it.step, it.row_index)].rows)]
        used |= {id(it) for it in its}
        out.append(ImportedExample(title=imp.title(len(out) + 1, first), source=imp.page.source,
                                   format=imp.page.format, index=len(out) + 1, count=1, tokens=None,
                                   key_tokens=None, inputs={}, convention=conv, claims=claims, notes=notes,
                                   first_index=first, first_line=str(lines[first].where),
                                   last_line=str(lines[min(last, len(lines) - 1)].where)))
    if not alone:
        return out
    for ex in out:
        ex.count = len(out)
        if len(out) > 1:
            ex.title = f"{ex.title} (example {ex.index} of {len(out)})"
    if out:  # what the page prints besides: listed with the nearest example
        for it in imp.items:
            if id(it) in used:
                continue
            near = min(out, key=lambda e: abs(e.first_index - it.line))
            near.notes += _listed([it], "the page gives no inputs to place it with")
    return out


def _softmax_as_is(scores: list[str], weights: list[str]) -> bool:
    """Whether printed weights are the softmax of printed scores as they are (to two decimal places)."""
    try:
        s = [float(x) for x in scores]
        w = [float(x) for x in weights]
    except ValueError:
        return False
    m = max(s)
    if not math.isfinite(m):
        return False
    e = [math.exp(v - m) for v in s]
    return len(s) == len(w) and all(abs(a / sum(e) - b) <= 0.005 for a, b in zip(e, w))
