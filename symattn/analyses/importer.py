"""``symattn import``: a published worked example of attention read from its page
(Markdown, HTML, LaTeX, a Jupyter notebook or plain text) into example files: the inputs,
the conventions, and every printed intermediate as a claim keyed by its step, each number
exactly as printed and traced to its line (or notebook cell).

The page is read as text (nothing on it is executed or fetched). Its matrices are named
by what the page calls them; where the name does not decide, the example is derived with
the pipeline and a printed matrix goes to the step whose shape and values it fits.
Several worked examples on one page become several drafts; the same step printed again
differently is kept as a restatement (``[[claims.also]]``), never merged; what cannot be
placed is listed.

>>> page = '''
... Word Embedding for "a": [1, 0]
... Word Embedding for "b": [0, 1]
... Query Weight Matrix (Wq): [[1, 0], [0, 1]]
... Key Weight Matrix (Wk): [[1, 0], [0, 1]]
... Value Weight Matrix (Wv): [[1, 2], [3, 4]]
... Attention scores: [[1, 0], [0, 1]]
... '''
>>> spec, notes = import_page(page, format="text")
>>> spec.tokens, spec.convention.scale_text, spec.claims["scores"]
(['a', 'b'], '1/sqrt(d_k)', {'a': [1, 0], 'b': [0, 1]})
>>> [n.text for n in notes.assumptions]  # doctest: +ELLIPSIS
['scale = "1/sqrt(d_k)": the page does not say whether the scores are scaled; ...']
"""

from __future__ import annotations

import math
import re
from dataclasses import replace
from typing import Any

from ..errors import InputError, LimitError, SpecError, SymattnError
from ..limits import MAX_DIM, MAX_PAGE_EXAMPLES, MAX_TOKENS
from ..pipeline.forward import derive
from ..pipeline.steps import Derivation
from ..read.pages import read_page
from .importer_operand import commented_copies, drop_unprojected_x
from .importer_equal_chain import split_equal_chains
from .importer_code_names import fits_twice, nan_rows_elided, printed_reassigned, x_by_projection
from .importer_logit_head import set_logit_head_aside
from .importer_fresh_literals import fresh_after_literals
from .importer_heads_rerun import heads_rerun
from .importer_row_variants import row_variants
from .importer_operand_x import name_projected_operand
from .importer_scores_values import values_after_scores
from .importer_token_ids import set_token_ids_aside
from .importer_vocabulary import vocabulary_rows
from .importer_rowmatch import other_tokens
from .importer_second import scaled_pairs
from ..read.pages.model import Page
from ..read.pages.scan import entry_kind
from ..read.spec import Spec, from_dict
from .importer_batches import batch_items
from .importer_printed_shapes import mark_shapes_and_operands
from .importer_one_query import one_query_steps
from .importer_claims_only import draws_at_random, root_of_ratio
from .importer_head_projections import head_projections, set_projection_work_aside
from .importer_scalar_sums import scalar_sum_items
from .importer_defined_names import named_scaled_scores
from .importer_stacked_products import numbered, stacked_qk_products
from .importer_layer_inputs import layer_inputs
from .importer_assigned_output import relabel_assigned_outputs
from .importer_claims_scores import key_claims, scale_factor, unscaled_weights_aside
from .importer_restated import restated_rounded
from .importer_setup_steps import drop_setup_steps
from .importer_clause_step import clause_named_vectors
from .importer_caption_phrase import captioned_phrases
from .importer_max_entry import max_restatements
from .importer_named_row import named_row_only
from .importer_exp_check import exp_checks
from .importer_printed_query import headed_output, printed_query_apart, printed_query_claims
from .importer_constant_scale import constant_scale
from .importer_lookup import keyed_vectors, sentences_of
from .importer_two_precisions import code_row_index, coarser_than_results, inputs_claimed, print_precision_raised
from .importer_drawn_scores import scores_drawn_at_random
from .importer_elided import elided_steps
from .importer_conventions import (Evidence, heads_evidence, multihead_layer, identity_weights, inline_keep_mask, keep_mask, layout_evidence,
                                   left_out_scaling, mask_evidence, mask_lines, per_token_layout, query_evidence,
                                   scale_evidence)
from .importer_items import (COLUMN_NOTE, Collected, Item, chain_step, collect, head_symbol, indexed_name, plain_names,
                             split_glued)
from .importer_model import (number_examples, Choice, ClaimRow, Given, ImportedExample, ImportNotes, Note, _close, _eq, _index, _num,
                             _numeric, _rows_float, _same_values, _Segment, toml_value)
from .importer_names import (INPUT_NAMES, KEYS_AND_VALUES, SCORE_INPUT_NAMES, is_transposed, product_factors,
                             step_of_ident, step_of_text)
from .importer_placer import _looks_like_weights, _mask_kind, _Placer
from .importer_readings import _ClaimsOnlyReadings
from .importer_code_dims import root_divisor
from .importer_projected import printed_projection
from .importer_stacked_sums import stacked_sums
from .importer_prose_rows import join_listed_rows
from .importer_random_steps import printed_steps_of_random_weights
from .importer_fused import split_fused
from .importer_fit_scale import weights_fit_unscaled
from .importer_fresh_scores import qkv_given_afresh, scores_given_afresh
from .importer_cells_only import claims_by_cell
from .importer_code_inputs import (keys_over_subset, next_part_heading, one_query_inputs, x_with_stated_identities,
                                   x_worked_in_code)
from .importer_identity import identity_columns, stated_identities
from .importer_partial_weights import query_claims
from .importer_grids import grid_examples
from .importer_testcases import TEST_CASE_NOTE, read_test_cases
from .importer_heads_only import per_head_steps
from .importer_sections import (drop_exercises, drop_later_layers, drop_outside_attention, exercise_lines,
                                scores_defined_scaled)
from .importer_rows import WEIGHT_NAMES, _numeric_or_inf, _show, _within_rounding
from .importer_structure import window_evidence
from .importer_indexed import indexed_scalar_runs
from .importer_twins import fold_rounded_twins
from .importer_tuples import componentwise_terms
from .importer_values import softmax_scale
from .importer_variants import variant_evidence
from .importer_walked_head import walked_first_head
from .importer_hand_walk import hand_walks, renumber
from .importer_unit_root import scaled_by_one, unit_root

__all__ = ["import_page", "import_examples", "ImportedExample", "ImportNotes", "Note", "ClaimRow", "Given",
           "Choice", "LOOKED_FOR"]

#: what a page must show to hold a worked example (said when none is found)
LOOKED_FOR = ("inputs (embeddings X with weights Wq/Wk/Wv, or Q, K and V, or attention scores) as bracketed "
              "rows, tables, NumPy/PyTorch printouts or LaTeX matrices")
#: matrices a page may write in code as the given inputs of an example that starts from Q, K, V
LITERAL_NAMES = ("Q", "K", "V", KEYS_AND_VALUES)

#: a line that adds bracketed vectors: "= [0.42,0,0.42,0] + [0,0.32,0,0.32] + … (= [result])"
_VTERM = r"\[[^\[\]=]{1,2000}\]"
_VSUM_RE = re.compile(rf"\s*(?:[^\[\]=]{{0,80}}=)?\s*({_VTERM}(?:\s*\+\s*{_VTERM})+)\s*(=\s*{_VTERM})?\s*[.,;]?\s*(?:\\\\)?\s*")
# (a line of an align environment ends in LaTeX's row break: '&= [1.74, 1.31] + [0.05, 0.03] \\\\')

_PV_TERM = r"\s*(?:\d++(?:\.\d++)?|\.\d++)\s*(?:\\cdot|\\times|·|\*|×)\s*\[[^\[\]=]{1,400}\]\s*"
_PV_PREFIX_RE = re.compile(rf"([^\[\]=$]{{0,80}}?)(?:=\s*)?\$?((?:{_PV_TERM}\+)+{_PV_TERM})=")  # ('Output = 0.7*[..] + …')


def _without_pv_prefix(text: str) -> tuple[str, int]:
    r"""A line that writes one query's weights times the rows of V before the terms of the sum
    (``Output row 1: $0.4 \cdot [1,2] + 0.6 \cdot [3,4] = [0.4, 0.8] + [1.8, 2.4] = [2.2, 3.2]$``):
    the line without that part (and without its math dollars), and how many bracketed vectors the
    part held; ``(text, 0)`` when the line has no such part.

    >>> _without_pv_prefix(r"Output row 1: $0.4 \cdot [1,2] + 0.6 \cdot [3,4] = [0.4, 0.8] + [1.8, 2.4] = [2.2, 3.2]$")
    ('Output row 1: = [0.4, 0.8] + [1.8, 2.4] = [2.2, 3.2]', 2)
    >>> _without_pv_prefix("Output = [0.5, 1] + [1.5, 2]")
    ('Output = [0.5, 1] + [1.5, 2]', 0)
    """
    m = _PV_PREFIX_RE.match(text)
    if m is None:
        return text, 0
    return (m.group(1) + "=" + text[m.end():].replace("$", "")).rstrip(), m.group(2).count("[")


# ---------------------------------------------------------------------------------------
# results


def _one_query_named(given: dict[str, Item], tokens: list[str] | None, items: list[Item],
                     notes: list[Note]) -> tuple[list[str], list[str]] | None:
    """Q, K and V given for every token, but the page works one query against the other tokens only: every
    score it names by a pair of tokens ('Dot Product (sitting, The) = … = 0.13') has the same query, and the
    keys they name are all the other tokens. The example is that query's row of Q against the keys and values
    of the others (the rows it does not use are listed, not dropped); (tokens, key_tokens), or None."""
    q, k, v = given.get("Q"), given.get("K"), given.get("V")
    if q is None or k is None or v is None or not tokens or len(tokens) < 2 or any(
            g.shape[0] != len(tokens) for g in (q, k, v)):
        return None
    low = [t.lower() for t in tokens]
    pairs = [it.pair for it in items if it.kind == "pair" and it.pair and not any(p.startswith("#") for p in it.pair)]
    if len(pairs) < 2 or any(p[0].lower() not in low or p[1].lower() not in low for p in pairs):  # type: ignore[union-attr]
        return None
    queries = {p[0].lower() for p in pairs}  # type: ignore[index]
    keys = {p[1].lower() for p in pairs}  # type: ignore[index]
    if len(queries) != 1 or queries & keys or keys | queries != set(low):
        return None
    if any(it.step in ("scores", "scaled", "weights", "output") and it.kind == "matrix" and it.shape[0] > 1
           for it in items):
        return None  # the page works the whole matrix too
    qi = low.index(next(iter(queries)))
    ki = [i for i in range(len(tokens)) if i != qi]

    def rows(g: Item, idx: list[int]) -> Item:
        return replace(g, rows=[g.rows[i] for i in idx], where=[g.where[min(i, len(g.where) - 1)] for i in idx],
                       row_labels=[tokens[i] for i in idx])
    for name, g, idx, left in (("Q", q, [qi], ki), ("K", k, ki, [qi]), ("V", v, ki, [qi])):
        given[name] = rows(g, idx)
        for i in left:
            notes.append(Note("unplaced", f"[{', '.join(g.rows[i])}] (1×{len(g.rows[i])}): {name} of "
                              f"{tokens[i]!r}, which the page's worked scores do not use (they are the query "
                              f"{tokens[qi]!r} against the other tokens)", str(g.where[min(i, len(g.where) - 1)])))
    notes.append(Note("found", f"one query, {tokens[qi]!r}, against the keys "
                      f"{', '.join(repr(tokens[i]) for i in ki)}: the scores the page names by pairs of tokens"))
    return [tokens[qi]], [tokens[i] for i in ki]


def _list_unused_literals(literal: dict[str, Item], given: dict[str, Item], notes: list[Note]) -> None:
    """Q or K written on the page (a code literal) beside an example that starts from its printed scores: the
    example has no step to hold them, so they are listed with that reason, never dropped."""
    for name, it in literal.items():
        if any(g is it for g in given.values()) or not _numeric(it.rows):
            continue
        shown = ", ".join(", ".join(r) for r in it.rows[:2])
        notes.append(Note("unplaced", f"[{shown[:77] + '…' if len(shown) > 80 else shown}] ({it.shape[0]}×"
                          f"{it.shape[1]}): {name} as printed, but this example starts from the printed scores (the "
                          "page gives no V, or no Q, K and V together, to start from), so no step holds it", it.at()))


def _worked_before_mask(items: list[Item]) -> bool:
    """Whether weights or outputs were worked before a mask is introduced. Once the part prints a
    score matrix, a block of weights as wide as no score row (softmax of ``[10, 20, 30]`` in prose, under
    5×5 scores) illustrates the softmax and works nothing of this example."""
    widths = {c.shape[1] for c in items if c.step in ("scores", "scaled") and c.kind == "matrix" and c.numbers
              and c.shape[0] > 1}
    return any(c.step in ("weights", "output", "weighted") and c.strength >= 2 and c.numbers
               and (not widths or c.step != "weights" or c.shape[1] in widths)
               and (c.step != "weights" or _looks_like_weights(c.rows))  # (scores a heading calls weights)
               for c in items)


def _rows_by_name(queries: list[str], keys: list[str], items: list[Item], notes: list[Note],
                  ordered: list[ClaimRow]) -> list[ClaimRow]:
    """In a file of claims only (no inputs to derive them from), a row of Q, K, V or the output the page
    names outright, by its token (``V[1] (value for 'I'): […]``) or its index (``output[3] = […]``,
    ``context_vector_2``), is a claim on that row: the notes that listed it as not placed give way.
    Rows of one step must be as wide as each other (and V as the output)."""
    have = {(c.step, c.row) for c in ordered if c.group is None}
    widths: dict[str, int] = {}
    for c in ordered:
        widths.setdefault(c.step, len(c.values))
    out = list(ordered)
    for it in items:
        if it.step not in ("Q", "K", "V", "output") or it.strength < 2 or it.kind != "vector" or it.shape[1] < 2 \
                or it.operand or it.products or it.batches > 1 or not _numeric(it.rows):
            continue
        shown = f"[{', '.join(it.rows[0])}"
        note = next((n for n in notes if n.kind == "unplaced" and n.where == it.at() and n.text.startswith(shown[:40])
                     and f"({it.shape[0]}×{it.shape[1]})" in n.text), None)
        if note is None:
            continue
        labels = keys if it.step in ("K", "V") else queries
        low = [x.lower() for x in labels]
        row = None
        if it.token and it.token.lower() in low:
            row = labels[low.index(it.token.lower())]
        elif it.token is None and it.row_index and 1 <= it.row_index <= len(labels):
            row = labels[it.row_index - 1]
        if row is None:
            continue
        twin = {"V": "output", "output": "V"}.get(it.step)
        if widths.setdefault(it.step, it.shape[1]) != it.shape[1] or (twin in widths and widths[twin] != it.shape[1]):
            continue
        out.append(ClaimRow(it.step, row, list(it.rows[0]), it.at(), None if (it.step, row) not in have else it.at()))
        have.add((it.step, row))
        notes.remove(note)
    out += _visible_prefixes(items, notes, out)
    main = [c for c in out if c.group is None]
    return main + [c for c in out if c.group is not None]


def _output_matrices(queries: list[str], items: list[Item], notes: list[Note],
                     ordered: list[ClaimRow]) -> list[ClaimRow]:
    """In a file of claims only, an output (or Q) printed whole under its name, one row per query, that the
    draft listed for want of V (or of a step of Q's width; none is needed to claim it): its rows are claims
    of that step, the first printing the claim, a later one with other numbers a restatement."""
    out = list(ordered)
    first: dict[str, list[list[str]]] = {}
    for it in items:
        if it.step not in ("Q", "output") or it.strength < 2 or it.kind != "matrix" or it.shape[0] != len(queries) \
                or it.operand or it.products or it.batches > 1 or not _numeric(it.rows) or it.shape[1] < 2:
            continue
        note = next((n for n in notes if n.kind == "unplaced" and n.where == it.at() and (
            "prints no V" in n.text or n.text.endswith("no step of this example has its shape"))), None)
        old = first.get(it.step)
        if note is None or (old is not None and len(old[0]) != it.shape[1]):
            continue
        if old is not None and _same_values(old, it.rows):
            notes.remove(note)
            notes.append(Note("repeat", f"prints {it.step} again, with the same numbers", it.at()))
            continue
        group = None if old is None else it.at()
        first.setdefault(it.step, it.rows)
        for q, r in zip(queries, it.rows):
            out.append(ClaimRow(it.step, q, list(r), str(it.where[min(queries.index(q), len(it.where) - 1)]), group))
        notes.remove(note)
    main = [c for c in out if c.group is None]
    return main + [c for c in out if c.group is not None]


def _visible_prefixes(items: list[Item], notes: list[Note], claims: list[ClaimRow]) -> list[ClaimRow]:
    """A row printed again only as far as the positions it can see ('Masked scores: [0.0007376003232866764,
    -0.004733186959169455] (only positions 0,1 are visible)'): a vector named like a step, shorter than its rows,
    whose numbers are the first entries of exactly one printed row of that step (to the digits of both) while
    that row's other entries are hidden (-inf, or weights of 0), is a restatement of that row."""
    out: list[ClaimRow] = []
    for it in items:
        if it.step not in ("scores", "scaled", "masked", "weights") or it.strength < 2 or it.kind != "vector" \
                or it.shape[1] < 2 or it.operand or it.products or not _numeric(it.rows):
            continue
        shown = f"[{', '.join(it.rows[0])}"
        note = next((n for n in notes if n.kind == "unplaced" and n.where == it.at() and n.text.startswith(shown[:40])),
                    None)
        if note is None:
            continue
        k = it.shape[1]
        rows = [c for c in claims if c.group is None and c.step == it.step and len(c.values) > k]
        hits = [c for c in rows if all(_within_rounding(a, b) for a, b in zip(it.rows[0], c.values))
                and all(entry_kind(x) == "inf" or (it.step == "weights" and _num(x) == 0) for x in c.values[k:])]
        if len(hits) != 1:
            continue
        c = hits[0]
        out.append(ClaimRow(it.step, c.row, list(it.rows[0]) + [".."] * (len(c.values) - k), it.at(), it.at()))
        notes.remove(note)
    return out


def _scaled_by_root(scores: Item, items: list[Item]) -> tuple[int, Item] | None:
    """(d, the block) when the page prints the scaled scores as a block of the scores' shape whose
    every entry is the printed score divided by √d (see :func:`root_of_ratio`)."""
    for it in items:
        if it.step == "scaled" and it.strength >= 2 and it.shape == scores.shape and it.batches == 1:
            d = root_of_ratio(scores.rows, it.rows)
            if d is not None:
                return d, it
    return None


def _row_lines(items: list[Item]) -> list[Item]:
    """A matrix printed one bracketed row a line, only the first line under a caption naming its step
    ('Masked scores:' then '  [ -0.27,   -inf, …]' and four more rows, each alone on its line): the rows
    on the lines right after a named row, unnamed and as wide, are the rest of that matrix."""
    out: list[Item] = []
    i = 0
    while i < len(items):
        it = items[i]
        grp = [it]
        if it.kind == "vector" and it.step and it.strength >= 2 and not it.operand and not it.products \
                and not it.token and it.shape[1] > 1 and _numeric_or_inf(it.rows):
            j = i + 1
            while j < len(items):
                nx = items[j]
                if not (nx.kind == "vector" and nx.line == grp[-1].end + 1 and nx.end == nx.line
                        and nx.step is None and not nx.label.strip() and not nx.token and not nx.operand
                        and not nx.products and nx.role == it.role and nx.shape == it.shape
                        and _numeric_or_inf(nx.rows)):
                    break
                grp.append(nx)
                j += 1
        if len(grp) < 2:
            out.append(it)
            i += 1
            continue
        m = Item(rows=[g.rows[0] for g in grp], where=[g.where[0] for g in grp], line=it.line, end=grp[-1].end,
                 kind="matrix", label=it.label, step=it.step, strength=it.strength, role=it.role, form=it.form,
                 before=it.before, after=grp[-1].after)
        m.head = it.head
        tags = [re.fullmatch(r"\s*#\s*(\S+)\s*", g.after or "") for g in grp]
        if all(tags) and len({t.group(1).lower() for t in tags if t}) == len(grp):
            m.row_labels = [t.group(1) for t in tags if t]  # '[0.5, 0.5]  # I': each row's token in a comment
        m.notes.append(f"{len(grp)} rows printed one a line under {it.label.strip()!r}: one matrix")
        out.append(m)
        i += len(grp)
    return out


def _weaker_row_name(grp: list[Item], nx: Item) -> bool:
    """A table printed one token a line under a caption naming its step ('Scaled Scores (scores / 2.83)'):
    the first row takes the caption's name, the rows after it only a weaker word of it; they are
    the same table while the first row is named more strongly than they are."""
    return grp[0].strength >= 2 and nx.strength < grp[0].strength and all(
        g.step == nx.step for g in grp[1:])


def _score_divided(lines: list, items: list[Item]) -> Choice | None:
    """'softmax(0.13/3)', where 0.13 is a score the page prints: the page divides its scores by that whole
    number (scale 1/3), whatever a heading calls the attention. Every such division must use the same number."""
    scores = {it.rows[0][0] for it in items if it.step == "scores" and it.kind in ("pair", "scalar") and it.rows}
    found: set[str] = set()
    where = ""
    for ln in lines:
        for m in re.finditer(r"softmax\s*\(\s*([+-]?(?:\d++(?:\.\d*+)?|\.\d+))\s*/\s*(\d{1,4})\s*\)", ln.text, re.I):
            if any(_eq(m.group(1), x) for x in scores):
                found.add(m.group(2))
                where = where or f"{ln.where}: {m.group(0)!r}"
    if len(found) != 1:
        return None
    n = found.pop()
    if int(n) < 1:
        return None
    at, _, text = where.partition(": ")
    return Choice(f"1/{n}", f"the page divides its scores by {n}: {text}", where=at)


def _key_tokens_named(q: Item, k: Item, v: Item) -> list[str] | None:
    """The keys' tokens, where the keys (and values) name other tokens than the queries: one query vector
    'Q_{quickly}' against the key 'K_{dog}' (rows named by their tokens, the values' rows the same)."""
    if not (k.row_labels and v.row_labels):
        return None
    ql, kl, vl = ([t.lower() for t in x.row_labels or []] for x in (q, k, v))
    if not q.row_labels:  # one unnamed query against named keys ('Key (K) - latte'): the keys keep their names
        return list(k.row_labels) if kl == vl and q.shape[0] == 1 and len(k.row_labels) > 1 else None
    return list(k.row_labels) if kl == vl and ql != kl else None


def _one_query_keys(items: list[Item]) -> list[Item]:
    """One query and its keys given as per-token vectors ('Q_{quickly} = […]', 'K_{dog} = […]', 'V_{dog} = […]',
    'V_{quickly} = […]'): the key's vector is the key matrix of one row, named after its token, and the values
    are the rows of the tokens the keys name (in the keys' order); a value of a token that is no key stays a
    vector of its own (listed, never dropped). Only where the page gives no embeddings, weights or matrices
    of Q and K, and exactly one query vector and one key vector."""
    def tok_vec(it: Item, step: str) -> bool:
        return it.kind == "vector" and it.step == step and bool(it.token) and it.strength >= 2 \
            and not it.operand and not it.products and _numeric(it.rows)
    if any(it.step in ("X",) + tuple(WEIGHT_NAMES) or (it.step in ("Q", "K") and it.kind == "matrix")
           for it in items):
        return items
    qs = [i for i, it in enumerate(items) if tok_vec(it, "Q")]
    ks = [i for i, it in enumerate(items) if tok_vec(it, "K")]
    if len(qs) != 1 or len(ks) != 1:
        return items
    q, k = items[qs[0]], items[ks[0]]
    key = (k.token or "").lower()
    vs = [i for i, it in enumerate(items) if it.step == "V" and it.strength >= 2 and not it.operand
          and ((tok_vec(it, "V") and (it.token or "").lower() == key) or
               (it.kind == "matrix" and [t.lower() for t in it.row_labels or []].count(key) == 1))]
    if len(vs) != 1 or len(k.rows[0]) != len(q.rows[0]) or not 0 <= k.line - q.line <= 30 \
            or abs(items[vs[0]].line - k.line) > 30:
        return items
    v = items[vs[0]]
    out = list(items)
    out[qs[0]] = replace(q, kind="matrix", row_labels=[q.token], token=None)
    out[ks[0]] = replace(k, kind="matrix", row_labels=[k.token], token=None)
    if v.kind == "vector":
        out[vs[0]] = replace(v, kind="matrix", row_labels=[v.token], token=None)
        return out
    vlabels = [t.lower() for t in v.row_labels or []]
    r = vlabels.index(key)
    kept = replace(v, rows=[v.rows[r]], where=[v.where[r]], row_labels=[v.row_labels[r]])  # type: ignore[index]
    rest = [replace(v, rows=[v.rows[i]], where=[v.where[i]], kind="vector", row_labels=None,
                    token=v.row_labels[i], line=v.end if i > r else v.line, end=v.end if i > r else v.line)  # type: ignore[index]
            for i in range(len(vlabels)) if i != r]
    out[vs[0]:vs[0] + 1] = [kept] + rest
    return out


# ---------------------------------------------------------------------------------------
# numbers


def _same_rows(a: list[list[str]], b: list[list[str]]) -> bool:
    return len(a) == len(b) and all(len(x) == len(y) and all(_eq(u, v) for u, v in zip(x, y)) for x, y in zip(a, b))


# ---------------------------------------------------------------------------------------
# the importer


class _Importer(_ClaimsOnlyReadings):
    def __init__(self, page: Page, col: Collected) -> None:
        self.page = page
        self.col = col
        col.items = join_listed_rows(col.items, page.lines)  # '`Q` and `K` are: `[1, 0]`, `[0, 1]`'
        self.items = col.items
        self.page_notes: list[Note] = []
        self.last_tokens: tuple[list[str], str] | None = None
        self.random_x = False
        self.symbols = col.symbols

    # -- page-wide passes -------------------------------------------------------------
    def vector_sums(self) -> None:
        """One query's weighted values written as a sum on one line, ``= [0.42,0,0.42,0] +
        [0,0.32,0,0.32] + [0.42,0.42,0.42,0.42]`` (possibly ``= [result]`` after it): the terms
        become one item of kind ``vsum`` (one row per term, the placer decides which query's
        p_ij·v_j they are from the values); the result is the output row."""
        by_line: dict[int, list[Item]] = {}
        for it in self.items:
            if it.line == it.end:
                by_line.setdefault(it.line, []).append(it)
        lines = self.page.lines
        for k, group in by_line.items():
            text = lines[k].text.replace("−", "-")
            m = _VSUM_RE.fullmatch(text)
            if not m:
                # 'Output row 1: $0.401 \cdot [1,2] + 0.198 \cdot [3,4] = [0.401, 0.802] + [0.594, 0.792] = [..]$':
                # the weights times V's rows written first, then the terms; those rows are V again
                text, skip = _without_pv_prefix(text)
                m = _VSUM_RE.fullmatch(text) if skip else None
                if m:
                    group = group[skip:]
            if not m or len(group) < 2:
                continue
            n = m.group(1).count("[")
            terms, rest = group[:n], group[n:]
            if len(terms) != n or len(rest) != (1 if m.group(2) else 0) or any(
                    t.kind != "vector" or t.shape != terms[0].shape or t.exprs for t in terms + rest):
                continue
            first = terms[0]
            label = first.label if not first.label.lstrip().startswith("=") else ""
            vs = Item(rows=[t.rows[0] for t in terms], where=[t.where[0] for t in terms], line=k, end=k,
                      kind="vsum", label=label, role=first.role, form=first.form, token=first.token,
                      row_index=first.row_index, before=first.before, after=terms[-1].after)
            vs.notes.append(f"a sum of {n} vectors on one line: the weighted values p·v of one query, key by key")
            self.items = [vs if x is first else x for x in self.items if not any(x is t for t in terms[1:])]
            if rest:
                rest[0].chain_of = [vs]  # the output row, when the terms are placed as weighted values

    def stacked_vector_sums(self) -> None:
        """One query's weighted values written as a sum down the page ('=' / [..] / '+' / [..] / '+' / [..],
        see :mod:`.importer_stacked_sums`): one item of kind ``vsum``, as :meth:`vector_sums` makes of a sum
        on one line; the result after '=' is the output row."""
        for terms, result in stacked_sums(self.items, self.page.lines):
            first = terms[0]
            vs = Item(rows=[t.rows[0] for t in terms], where=[t.where[0] for t in terms], line=first.line,
                      end=terms[-1].end, kind="vsum", role=first.role, form=first.form)
            vs.notes.append(f"a sum of {len(terms)} vectors written down the page: the weighted values p·v of one "
                            "query, key by key")
            self.items = [vs if x is first else x for x in self.items if not any(x is t for t in terms[1:])]
            if result is not None:
                result.chain_of = [vs]

    def componentwise_sums(self) -> None:
        """One query's output written component by component, ``= (0.09+0+0.19, 0.05+1.54+0.19)``:
        the terms become one item of kind ``vsum``, key by key (see :mod:`.importer_tuples`)."""
        lines = self.page.lines
        taken = {it.line for it in self.items if it.kind == "vsum"}
        made = []
        for k, ln in enumerate(lines):
            if ln.role == "code" or k in taken or "+" not in ln.text:
                continue
            terms = componentwise_terms(ln.text)
            if terms is None:
                continue
            vs = Item(rows=terms, where=[ln.where] * len(terms), line=k, end=k, kind="vsum", role=ln.role, form="list")
            vs.notes.append(f"a tuple of sums of {len(terms)} terms each: the weighted values p·v of one query, "
                            "key by key")
            made.append(vs)
        if made:
            self.items = sorted(self.items + made, key=lambda it: (it.line, it.where[0].line))

    def same_line_chains(self) -> None:
        """Several blocks on one line: those before the last '=' are operands; a result keeps
        the products it came from (``[0.3012 * 0.66, …] = [0.1988, …]``)."""
        by_line: dict[int, list[Item]] = {}
        for it in self.items:
            if it.kind in ("vector", "matrix", "scalar"):
                by_line.setdefault(it.line, []).append(it)
        for group in by_line.values():
            if len(group) < 2 or _table_columns(group):
                continue
            last = group[-1]
            head = (group[0].step, group[0].strength, group[0].label)
            for op in group[:-1]:
                if op.strength == 3 and op.label and "=" not in op.label:
                    continue
                op.operand = True
                if op.exprs:
                    last.products = op.exprs
                elif op.role == "math" and op.strength < 3:
                    op.step, op.strength = None, 0  # the line's label names its result, not each factor
            last.chain_of = [g for g in group[:-1]]
            # a product is never an input; a table's columns side by side are not a product: one
            # column's header does not name the next
            if last.step is None and head[0] and head[0] not in INPUT_NAMES and last.form != "table":
                last.step, last.strength = head[0], head[1]
                if not last.label:
                    last.label = head[2]

    def math_chains(self) -> None:
        """A display that multiplies matrices: ``Q = [X] \\cdot [W_Q] = [R]``, ``S = \\frac{1}{1} [Q] [Kᵀ] = [R]``.
        The name before the display names the result, not the first matrix; the matrices
        before the last '=' are operands (an input printed again, or a step of their own)."""
        lines = self.page.lines
        mats = [it for it in self.items if it.role == "math" and it.kind in ("matrix", "vector")]
        k = 0
        while k < len(mats):
            run = [mats[k]]
            seps: list[str] = []
            j = k + 1
            while j < len(mats):
                between = " ".join(lines[x].text for x in range(run[-1].end + 1, mats[j].line))
                if mats[j].line == run[-1].end:  # on one line: the text between the two matrices
                    gap = run[-1].after.split("\\begin")[0]
                else:
                    gap = (run[-1].after + " " + between + " " + mats[j].before).strip()
                if mats[j].line - run[-1].end > 6 or any(lines[x].role != "math" for x in range(run[-1].end + 1, mats[j].line)):
                    break
                if not re.fullmatch(r"(?:\\(?:cdot|times|,|;|!|quad|qquad|left|right)|[\s=×·*@(),.]|"
                                    r"\\frac\{\d+\}\{\d+\}|\d+(?:\.\d+)?)*", gap) and not _transposed_factor_gap(gap):
                    break
                seps.append(gap)
                run.append(mats[j])
                j += 1
            eq = [i for i, g in enumerate(seps) if "=" in g]
            if len(run) >= 2 and eq and eq[-1] == len(seps) - 1 and len(run) >= 3 or (len(run) == 2 and eq == [0]
                                                                                      and run[0].strength < 3):
                result = run[-1]
                head = _display_head(lines, run[0].line)
                for op in run[:-1]:
                    op.operand = True
                    op.label, op.step, op.strength = "", None, 0
                    op.notes.append("an operand of a product written out on the page")
                name = re.search(r"(?<![\w\\])([A-Za-z](?:_\{?\w+\}?|\^\{?\w+\}?)?)\s*=", head or "")
                if name and "=" in head[: name.start()]:
                    name = None  # 'Final Output = Concat × W_O = [..] × [..] = [..]': W_O is a factor, not its name
                if name:
                    st = self.symbols.get(name.group(1)) or step_of_ident(name.group(1)) or step_of_text(name.group(1))
                    if st:
                        result.label, result.step, result.strength = name.group(1), st, 3
                elif result.strength < 3 and "=" in (head or ""):
                    # '\frac{QK^T}{\sqrt{2}} = \frac{1}{\sqrt{2}} \times [..] = [..]': no name, a formula
                    # before the chain's '=' names its result
                    st = chain_step(head[: head.rfind("=") + 1])
                    if st:
                        result.label, result.step, result.strength = head[: head.rfind("=")].strip(), st, 3
                        result.transposed = False  # 'QK^\top = [Q] · [K]^\top = [R]': the product, not a transpose
                if result.step in INPUT_NAMES and result.strength < 3:
                    # 'Output_1 = Input × W_1 + b_1 = [..] × [..] + [..] = [..]' under "Input times W_1": the
                    # words name the operands; a product written out is no input (only a name before it says X)
                    result.step, result.strength = None, 0
                result.chain_of = run[:-1]
                self.name_factors(head, run[:-1])
                if name and all(op.step is None for op in run[:-1]):
                    # '$Q = EW_Q$ :' on the line before '$$Q = [..] [..] = [..]$$': that line names the factors
                    stated = _product_stated_before(lines, run[0].line, name.group(1))
                    if stated:
                        self.name_factors(f"{name.group(1)} = {stated}", run[:-1])
                w = next((o for o in run[:-1] if o.step in WEIGHT_NAMES and o.strength >= 2), None)
                if result.step is None and w is not None and result.kind == "matrix":
                    # 'K_1 = K \times W_K^T = [..] \times [..] = [..]': the product with a projection weight is
                    # that projection (the name's subscript, when it has one, is the head)
                    result.step, result.strength = {"Wq": "Q", "Wk": "K", "Wv": "V"}[w.step], 2
                    sub = re.fullmatch(r"[QKVqkv]_\{?([1-9])\}?", name.group(1)) if name else None
                    if sub and result.head is None:
                        result.head = int(sub.group(1))
            elif len(run) >= 2 and not eq and len({(m.line, m.before) for m in run}) == len(run) and all(re.fullmatch(r"\s*(?:\\times|\\cdot|×|·|\*|@)?\s*", g) for g in seps) \
                    and not re.match(r"\s*(?:=|\\approx|≈)", run[-1].after) \
                    and not re.match(r"\s*(?:=|\\approx|≈)", lines[run[-1].end + 1].text if run[-1].end + 1 < len(lines) else ""):
                # "Q'K'^T = [Q'] \times [K'^T]" and the display ends: the product is written, not worked out;
                # each matrix is an operand (what the name before the display names is not printed)
                self.product_operands(run, lines)
            elif len(run) >= 2 and not eq and len({(m.line, m.before) for m in run}) == len(run) \
                    and all(_JUXTAPOSED.fullmatch(g) for g in seps):
                # '\mathbf{Q} \mathbf{K}^T = [..] [..]' with no '=' after them in the display: each matrix is a
                # factor of the product the left side names (its result is printed elsewhere, or not at all)
                for op in run:
                    op.operand = True
                    op.label, op.step, op.strength = "", None, 0
                    op.notes.append("a factor of a product written out on the page")
                self.name_factors(_display_head(lines, run[0].line), run)
            k = j
        self.items.sort(key=lambda it: (it.line, it.where[0].line))

    def product_operands(self, run: list[Item], lines: list) -> None:
        """Matrices a display multiplies with no result after them: each is an operand, named by
        the factors of the product written before the display (``Q'K'^T = [..] × [..]``: Q, then K
        transposed) or by nothing."""
        first = run[0].line
        head = plain_names(lines[first].text).split("\\begin{")[0]
        for op in run:
            op.operand = True
            op.label, op.step, op.strength = "", None, 0
            op.notes.append("an operand of a product written out on the page (its result is not printed)")
        self.name_factors(head.rsplit("=", 1)[0] + "=" if "=" in head else "", run)

    def name_factors(self, head: str, operands: list[Item]) -> None:
        """``S = QK^\\top = [..] [..] = [..]``: the product written just before the matrices names
        its factors in order (Q, then K transposed), when it has as many factors as there are
        matrices and each names a step; the factors are then that step printed again."""
        parts = [x for x in re.split(r"=", head) if x.strip()]
        if not parts:
            return
        factors = product_factors(parts[-1])
        if factors is None or len(factors) != len(operands):
            return
        steps = [self.symbols.get(f) or step_of_ident(f) for f in factors]
        if not all(steps):
            return
        for op, f, st in zip(operands, factors, steps):
            op.label, op.step, op.strength, op.transposed = f, st, 2, is_transposed(f)

    def cross_line_chains(self) -> None:
        """Slides: A [×] B = C with only operators, blank lines and short labels between."""
        lines = self.page.lines
        ops = self.col.operators
        mats = [it for it in self.items if it.kind in ("matrix", "vector") and it.role != "code"]

        def gap_ok(a: int, b: int) -> str | None:
            """The operator between lines a and b (exclusive), '' for none, None when prose intervenes."""
            if b - a > 14:
                return None
            op = ""
            for k in range(a + 1, b):
                t = lines[k].text.strip()
                if k in ops:
                    op = "=" if ops[k] == "=" or op == "=" else "×"
                elif t and (len(t.split()) > 4 or len(t) > 40):
                    return None
            return op

        k = 0
        while k + 1 < len(mats):
            a, b = mats[k], mats[k + 1]
            op = gap_ok(a.end, b.line)
            if op == "=" and b.label == "" or (op == "=" and b.strength < 3):
                # operands: a, and what is juxtaposed before it
                operands = [a]
                j = k - 1
                while j >= 0 and len(operands) < 3:
                    g = gap_ok(mats[j].end, operands[0].line)
                    if g is None or g == "=":
                        break
                    operands.insert(0, mats[j])
                    j -= 1
                self.chain(operands, b)
            elif op == "×":
                # a product whose result is a number on a line "= 1.0", or a matrix after "="
                res = None
                for line_k in range(b.end + 1, min(b.end + 4, len(lines))):
                    if line_k in self.col.result_lines:
                        res = line_k
                        break
                    if lines[line_k].text.strip():
                        break
                if res is not None:
                    r = Item(rows=[[self.col.result_lines[res]]], where=[lines[res].where], line=res, end=res,
                             kind="scalar", role=lines[res].role, label="= " + self.col.result_lines[res])
                    self.items.append(r)
                    self.chain([a, b], r)
                elif k + 2 < len(mats) and gap_ok(b.end, mats[k + 2].line) == "=":
                    self.chain([a, b], mats[k + 2])
                    k += 1
            k += 1
        self.items.sort(key=lambda it: (it.line, it.where[0].line))

    def chain(self, operands: list[Item], result: Item) -> None:
        result.chain_of = list(operands)
        w = next((o for o in operands if o.step in WEIGHT_NAMES and o.strength >= 2), None)
        if w is not None:
            i = operands.index(w)
            if i > 0:
                x = operands[i - 1]
                x.step, x.strength, x.operand = "X", 3, True
            result.step, result.strength = {"Wq": "Q", "Wk": "K", "Wv": "V"}[w.step], 3
            return
        if len(operands) == 2:
            p, v = operands
            pr, pc = p.shape
            vr, vc = v.shape
            if pc == vr and (_looks_like_weights(p.rows) or p.step == "weights"):
                # (rows of weights sum to 1: [1 1]·[K] = [1 1] is a query times keys, not weights times values)
                p.step, p.strength = "weights", max(p.strength, 2) if p.step == "weights" else 2
                v.step, v.strength = "V", 2
                if vc == 1:
                    v.col_index = 0
                    v.notes.append("a single column of V: taken as its first column")
                result.step, result.strength = "output", 3

    def glued_tables(self, tokens: list[str]) -> None:
        """Plain text copied from a web page runs table cells together: a header
        'Wordthequickbrown…' and rows 'jumps0.20.80.4…' (or '[0.1, 0.2, 0.3]0.060.21…')."""
        if not tokens:
            return
        lines = self.page.lines
        lower = [t.lower() for t in tokens]
        row_re = re.compile(r"^\s*([A-Za-z<>][\w<>'-]*?)(-?\d+\.\d+(?:-?\d+\.\d+)+)\s*$")
        vec_items = {it.line: it for it in self.items if it.kind == "vector" and re.fullmatch(r"\s*-?\d+\.\d+(-?\d+\.\d+)*\s*", it.after or "")}
        k = 0
        new: list[Item] = []
        drop: set[int] = set()
        while k < len(lines):
            keys = _split_header(lines[k].text.strip(), lower)
            if keys is None or lines[k].role != "prose":
                k += 1
                continue
            names = [tokens[i] for i in keys]
            rows, where, labels, vecs = [], [], [], []
            j = k + 1
            while j < len(lines):
                t = lines[j].text.strip()
                m = row_re.match(t)
                vi = vec_items.get(j)
                if m and m.group(1).lower() in lower + ["word"]:
                    nums = _split_count(m.group(2), len(names))
                    label, vec = m.group(1), None
                elif vi is not None:
                    nums = _split_count(vi.after.strip(), len(names))
                    label, vec = None, vi.rows[0]
                else:
                    break
                if nums is None:
                    break
                rows.append(nums + [".."] * (len(names) - len(nums)))
                where.append(lines[j].where)
                labels.append(label)
                vecs.append(vec)
                if vi is not None:
                    drop.add(id(vi))
                j += 1
            if rows:
                ctx = _context_text(lines, k)
                it = Item(rows=rows, where=where, line=k, end=j - 1, kind="matrix", role="prose", form="table",
                          label=ctx, col_labels=names)
                it.step = step_of_text(ctx) if ctx else None
                it.strength = 1 if it.step else 0
                if all(lb is not None for lb in labels):
                    it.row_labels = [lb for lb in labels if lb is not None]
                elif all(v is not None for v in vecs):
                    it.row_vectors = [v for v in vecs if v is not None]
                new.append(it)
                k = j
                continue
            k += 1
        if new:
            self.items = [it for it in self.items if id(it) not in drop] + new
            self.items.sort(key=lambda it: (it.line, it.where[0].line))

    def untangle_tokens(self) -> None:
        """Per-token vectors of several steps written on the same lines, one line per token
        (``Key("The") = Wk × [x] = [k]`` on each line): each step's vectors are brought together,
        in page order, so that they form one matrix per step."""
        items = self.items

        def per_token(it: Item) -> bool:
            return it.kind == "vector" and bool(it.token) and bool(it.step) and not it.products

        i = 0
        while i < len(items):
            if not per_token(items[i]):
                i += 1
                continue
            j = i + 1
            seen = {(items[i].step, items[i].token)}
            # the run ends where a step's token comes again (the same inputs, projected by another weight)
            while j < len(items) and per_token(items[j]) and items[j].line <= items[j - 1].end + 3 \
                    and (items[j].step, items[j].token) not in seen:
                seen.add((items[j].step, items[j].token))
                j += 1
            run = items[i:j]
            steps = list(dict.fromkeys(it.step for it in run))
            lines = {it.line for it in run}
            by_line = [[it.step for it in run if it.line == ln] for ln in sorted(lines)]
            if len(steps) >= 2 and len(lines) >= 2 and all(len(set(b)) == len(b) for b in by_line):
                items[i:j] = [it for st in steps for it in run if it.step == st]
            i = j

    def group_tokens(self) -> None:
        """Consecutive per-token vectors of one step ('Word Embedding for "I": […]', …) form
        one matrix with the tokens as row labels."""
        out: list[Item] = []
        i = 0
        items = self.items
        while i < len(items):
            it = items[i]
            if it.kind == "vector" and it.token and not it.operand and not it.products:
                grp = [it]
                j = i + 1
                skipped: list[Item] = []
                while j < len(items):
                    nx = items[j]
                    if nx.kind == "scalar" and re.fullmatch(r"\d{1,3}", nx.rows[0][0]):
                        skipped.append(nx)  # a position number between the rows of a flattened table
                        j += 1
                        continue
                    if not (nx.kind == "vector" and nx.token and not nx.operand and not nx.products
                            and len(nx.rows[0]) == len(it.rows[0]) and nx.line <= grp[-1].end + 3
                            and (nx.step == it.step or nx.step is None or it.step is None
                                 or _weaker_row_name(grp, nx))
                            and nx.token not in [g.token for g in grp]):
                        break
                    grp.append(nx)
                    j += 1
                if len(grp) >= 2:
                    while skipped and skipped[-1].line > grp[-1].line:
                        skipped.pop()
                        j -= 1
                    step = max(grp, key=lambda g: (bool(g.step), g.strength)).step
                    m = Item(rows=[g.rows[0] for g in grp], where=[g.where[0] for g in grp], line=grp[0].line,
                             end=grp[-1].end, kind="matrix", label=grp[0].label, step=step,
                             strength=max(g.strength for g in grp), role=it.role, form=it.form,
                             row_labels=[g.token for g in grp])  # type: ignore[misc]
                    out.append(m)
                    out += skipped  # listed as not placed, never dropped
                    i = j
                    continue
            out.append(it)
            i += 1
        self.items = out

    def group_indexed(self) -> None:
        """Vectors named by one letter and an index in a row ('K1 = [1, 0], K2 = [0, 1]') form
        one matrix of that step, the index giving the row: K1 is the first key."""
        out: list[Item] = []
        i = 0
        items = self.items
        while i < len(items):
            it = items[i]
            named = indexed_name(it.label) if it.kind == "vector" and it.strength == 3 else None
            if named and named[1] == 1 and named[0] == it.step:
                grp = [it]
                j = i + 1
                while j < len(items):
                    nx = items[j]
                    if not (nx.kind == "vector" and nx.strength == 3 and indexed_name(nx.label) == (it.step, len(grp) + 1)
                            and len(nx.rows[0]) == len(it.rows[0]) and nx.line <= grp[-1].end + 3
                            and not nx.operand and not nx.products):
                        break
                    grp.append(nx)
                    j += 1
                if len(grp) >= 2:
                    m = Item(rows=[g.rows[0] for g in grp], where=[g.where[0] for g in grp], line=grp[0].line,
                             end=grp[-1].end, kind="matrix", label=it.step or "", step=it.step, strength=3,
                             role=it.role, form=it.form, before=it.before, after=grp[-1].after)
                    m.notes.append(", ".join(g.label for g in grp) + f": the rows of {it.step} in order")
                    if len({g.head for g in grp}) == 1:
                        m.head = it.head  # K1, K2 under "Head 2": that head's keys
                    out.append(m)
                    i = j
                    continue
            out.append(it)
            i += 1
        self.items = out

    # -- tokens -------------------------------------------------------------------------
    def page_tokens(self) -> list[str] | None:
        for it in self.items:
            if it.step == "X" and it.row_labels:
                return list(it.row_labels)
        for words, _, _ in self.col.token_lists:
            return list(words)
        return None

    def tokens_for(self, n: int, seg: _Segment, x: Item | None) -> tuple[list[str] | None, str]:
        got, how = self._tokens_for(n, seg, x)
        if got is None and self.last_tokens is not None and len(self.last_tokens[0]) == n:
            return list(self.last_tokens[0]), f"the previous worked example ({self.last_tokens[1]})"
        if got is not None:
            self.last_tokens = (got, how)
        return got, how

    def _tokens_for(self, n: int, seg: _Segment, x: Item | None) -> tuple[list[str] | None, str]:
        if x is not None and x.row_labels and len(x.row_labels) == n:
            return list(x.row_labels), f"the labels of X ({x.at()})"
        for words, where, how in self.col.token_lists:
            if len(words) == n:
                return list(words), f"the token list at {where}"
        lo = (x.line if x else seg.first) - 12
        # words listed far below the example's last number (a code editor's footer) are not its tokens
        hi = max((it.end for it in seg.items), default=seg.first) + 12
        for a, b, words in self.col.vertical_lists:
            if len(words) == n and lo <= a <= hi:
                return list(words), f"the words at {self.page.lines[a].where}"
        for it in seg.items:
            if it.row_labels and len(it.row_labels) == n and it.step in ("Q", "K", "V", "scores", "weights", "output"):
                return list(it.row_labels), f"the row labels at {it.at()}"
        return None, ""

    # -- segmentation -------------------------------------------------------------------
    def segments(self) -> list[_Segment]:
        segs: list[_Segment] = []
        cur: _Segment | None = None
        hidden = sorted(self.col.hidden)
        masks = mask_lines(self.page.lines)
        above = headings_above(self.page.lines)
        root = _scores_literal_root(self.page.lines)
        for it in self.items:
            # a causal mask introduced after attention was worked without one: a new example
            while masks and masks[0] < it.line:
                k = masks.pop(0)
                if cur is not None and not cur.masked and _worked_before_mask(cur.items):
                    # weights or outputs worked without the mask: the masked work is another example
                    # (scores printed before the mask are the same in both, and stay in this one)
                    # (Q, K and V printed before the mask carry over only when the page gives no weights
                    # to make them from: then they are the masked example's inputs)
                    given = [] if all(w in cur.inputs for w in WEIGHT_NAMES) else [
                        c for c in cur.items if c.step in ("Q", "K", "V") and c.strength >= 2 and _numeric(c.rows)]
                    cur = _Segment(inputs=dict(cur.inputs), first=k, masked=True, hidden=list(cur.hidden),
                                   random=list(cur.random), items=given)
                    segs.append(cur)
                elif cur is not None:
                    cur.masked = True
            other = _other_block(self.page.lines, it.line, above) \
                if cur is not None and it.grad is None and it.kind != "vsum" else None  # (a sum has its own reasons)
            if other is not None:
                # '### 5. FeedForward Block', '### 6. Add & Layer Normalization': what that section works is
                # another part of the model, listed, never a step or an input of an attention example
                it.aside = f"under the heading {other!r}: another part of the model than attention"
                it.step, it.strength = None, 0
                cur.items.append(it)
                cur.last = max(cur.last, it.end)
                continue
            if cur is not None and _additive_mask(it):
                if cur.bias is None:
                    cur.bias = it
                    it.aside = "the additive mask (0 = kept, a large negative number = masked): read as " \
                               "convention.bias, not a step of the example"
                elif _same_values(cur.bias.rows, it.rows):
                    it.aside = f"the additive mask again ({cur.bias.at()}): read as convention.bias"
                if it.aside:
                    cur.items.append(it)
                    cur.last = max(cur.last, it.end)
                    continue
            km = self.keep_mask_item(it)
            if km is not None:
                cur = self.keep_mask_segment(cur, km, segs)
                if cur is not None:
                    cur.items.append(it)
                    cur.last = max(cur.last, it.end)
                    continue
            # weights made in code (random, nn.Linear) before this item: what follows uses numbers
            # the page does not print, unless the page prints those weights
            while hidden and hidden[0][0] < it.line:
                h = hidden.pop(0)
                if h[1] in ("X", "Q", "K", "V"):
                    self.random_x = True  # embeddings (or Q, K, V) drawn at random: printed rounded
                    continue
                if cur is not None and h[1] in cur.inputs and cur.inputs[h[1]].line > h[0]:
                    continue  # made in code, then printed: these are the printed weights
                worked = cur is not None and any(
                    _numeric(c.rows) and not any(_same_values(v.rows, c.rows) or
                                                 (c.shape[0] == 1 and any(_same_values([r], c.rows) for r in v.rows))
                                                 for v in cur.inputs.values())
                    and not (c.kind == "scalar" and re.fullmatch(r"\d{1,4}", c.rows[0][0]))
                    for c in cur.items)
                if cur is None or worked:
                    keep = {"X": cur.inputs["X"]} if cur is not None and "X" in cur.inputs else {}
                    if cur is not None and cur.hidden and not cur.items:
                        cur.hidden.append(h)
                        continue
                    cur = _Segment(inputs=keep, first=h[0])
                    segs.append(cur)
                cur.hidden.append(h)
            name = it.step if (it.step in INPUT_NAMES and it.strength >= 1 and it.kind in ("matrix", "vector")
                               and (not it.operand or it.strength == 3 or (
                                   # 'Q = X W_q = [..][..] = [..]': X (and W_q) first printed as a factor is the input
                                   it.step in ("X", "Wq", "Wk", "Wv") and it.kind == "matrix" and it.role == "math"
                                   and (cur is None or it.step not in cur.inputs)))) \
                else None
            if it.step in LITERAL_NAMES and it.role == "code" and it.strength == 3 and it.kind in ("matrix", "vector") \
                    and _numeric(it.rows):
                name = it.step  # Q, K, V written in code: given inputs of the example, not printed results
            whole = _row_assigned(cur, it, it.step) if it.step in ("X", "Q", "K", "V") else None
            if whole is not None:
                it, name = whole, it.step  # K[1] = [0., 1.]: the matrix given before with that row replaced
            if name in ("X", "K", "V", KEYS_AND_VALUES) and it.kind == "vector":
                name = None  # one embedding: an echo or a query, not the input matrix
            if name == "X" and root is not None:
                name = None  # the attention code starts from scores written in it: X is another demo's tensor
            if name in ("bq", "bk", "bv") and it.shape[0] > 1:
                name = None  # query_bias = [[…], […], …]: a bias written once per token (an example holds a vector)
                it.step, it.strength = None, 0
                it.aside = ("a projection's bias written out for every token: an example file holds a bias as one "
                            "vector, so it is listed, not placed")
            if name in INPUT_NAMES and it.kind == "matrix" and _elided_columns(it.rows):
                name = None
                it.aside = ("its rows end in '…' (the columns past the first few elided): no input can be read "
                            "from it")
            if name == "Wo" and cur is not None and _late_output_projection(cur, it, self.page.lines):
                name = None
                it.aside = ("W^O given after this example's output was printed, under a later heading: "
                            "another computation, not this example's output projection")
            if name in WEIGHT_NAMES and it.head is not None:
                name = f"{name}#{it.head}"  # W_Q1, W_Q2: one head's weights, joined into Wq later
            if name is not None and it.kind == "vector" and cur is not None and \
                    _weights_given(cur.inputs, name.split("#")[0]):
                name = None  # one row beside weights already given ("Q2 = X @ W_Q2 → [0, 1]"): a product, not them
            if name and cur is not None and _carried_only(cur, it):
                # inputs given afresh in a masked copy of the example before, nothing worked on the copy yet
                # (a causal section that gives its own Q and W_Q = W_K = W_V): the carried inputs are not its own
                cur.inputs = {}
            if name in _PROJECTED and cur is not None and "X" in cur.inputs and _PROJECTED[name] in cur.inputs \
                    and printed_projection(cur.inputs["X"].rows, cur.inputs[_PROJECTED[name]].rows, it.rows,
                                           it.transposed):
                name = None  # Q printed after X and W_Q were given, as their product: a claim, not an input
            elif name in _PROJECTED and cur is not None and "X" in cur.inputs and _PROJECTED[name] in cur.inputs \
                    and not it.transposed and it.shape[1] != cur.inputs[_PROJECTED[name]].shape[1]:
                name = None  # 'Q = [1, 2]' beside 4-wide weights: another computation's vector, not this example's
                it.aside = f"{it.step} of another width than the example's weights give: another computation"
            if name == "X" and cur is not None and _x_unfit(cur, it):
                # 'x = [2, 4]' in a later section, fitting none of the weights given before: another computation
                cur = _Segment(first=it.line)
                segs.append(cur)
            if (name or (it.step in ("Q", "K", "V") and it.strength >= 2)) and cur is not None \
                    and _given_after_hidden_work(cur, it, self.page.lines):
                cur = _Segment(first=it.line)  # an exercise that gives its own inputs after a random demo
                cur.own_inputs = True  # type: ignore[attr-defined]  (the demo's random X is not its)
                segs.append(cur)
            if name:
                if cur is None or (not cur.inputs and not cur.hidden and cur.items and not any(
                        c.step == it.step and c.strength >= 2 and _same_values(c.rows, it.rows) for c in cur.items)
                        and not _restated_transposed(cur.items, it)
                        and not _states_after_scores(cur, name, it, self.page.lines)
                        and not values_after_scores(cur.items, name, it)):
                    # what a page prints before it gives any inputs (a primer on np.dot) is not part of the example
                    # (unless it printed these very inputs: the code restates the example the prose gave)
                    cur = _Segment(first=it.line)
                    segs.append(cur)
                if "#" in name and name.split("#")[0] in cur.inputs and \
                        not _block_of(cur.inputs[name.split("#")[0]].rows, it.rows):
                    # W_Q1, Q_layers[0].weight after the whole W_Q was given, and no block of it (a head's
                    # columns split off): the page works heads with weights of their own now, a new example
                    # from the same embeddings
                    cur = _Segment(inputs={"X": cur.inputs["X"]} if "X" in cur.inputs else {}, first=it.line)
                    segs.append(cur)
                old = cur.inputs.get(name)
                if cur.hidden and name in [h[1] for h in cur.hidden]:
                    cur.hidden = [h for h in cur.hidden if h[1] != name]  # printed after all
                    cur.random.append(name)
                if old is not None:
                    if _same_values(old.rows, it.rows):
                        if it.row_labels and not old.row_labels:
                            cur.inputs[name] = it  # the printing that names the tokens
                            it, old = old, it
                        cur.items.append(it)  # printed again: an echo
                        cur.last = max(cur.last, it.end)
                        continue
                    if cur.first == it.line and all(c.line == it.line for c in cur.items) and len(segs) > 1:
                        # attention([[…]], [[…]], [[…]]): the arguments on one line start one example together
                        cur.inputs[name] = it
                        cur.last = max(cur.last, it.end)
                        continue
                    # new inputs: a new example (a new X does not keep the old weights)
                    keep = {} if name == "X" else {k: v for k, v in cur.inputs.items() if k != name}
                    moved = self.section_items(cur, it)
                    cur = _Segment(inputs=keep, first=min([it.line] + [c.line for c in moved]), items=moved,
                                   masked=cur.masked and whole is not None)  # one row changed: the same code runs
                    cur.row_changed = whole is not None  # type: ignore[attr-defined]
                    segs.append(cur)
                elif _qkv_after_worked_x(cur, name, it):
                    _weights_given_outright(cur)
                    cur = _Segment(first=it.line)  # Q, K, V given after X was worked on its own: a new example
                    segs.append(cur)
                elif (name in WEIGHT_NAMES and not any(w in cur.inputs for w in WEIGHT_NAMES)
                      and any(c.step in ("scores", "scaled", "weights", "output", "masked") and c.numbers
                              for c in cur.items)
                      and ("X" not in cur.inputs or _without_weights(cur.inputs["X"], cur.items))):
                    cur = _Segment(inputs={"X": cur.inputs["X"]} if "X" in cur.inputs else {}, first=it.line)
                    segs.append(cur)
                if name.split("#")[0] in WEIGHT_NAMES and _carried_unfit(cur, it):
                    # W_Q = W_K = W_V = [4×4] after a masked copy of a 2×2 example: the embeddings carried over
                    # from the example before do not fit these weights, so they (and that W^O) are not this one's
                    cur.inputs = {k: v for k, v in cur.inputs.items() if k not in ("X", "Wo")}
                cur.inputs[name] = it
            else:
                if cur is None:
                    cur = _Segment(first=it.line)
                    segs.append(cur)
                elif _fresh_scores(cur, it) or scores_given_afresh(cur.items, cur.last, it, self.page.lines) or \
                        qkv_given_afresh(cur.inputs, cur.items, it, self.items, self.page.lines):
                    # other raw scores, after the first were worked to weights, on a page that gives no inputs:
                    # the page works another example from them (a stability demo's large scores)
                    cur = _Segment(first=it.line)
                    segs.append(cur)
                else:
                    head = self.fresh_qkv(cur, it)
                    if head is None:  # Q, K, V printed afresh after the code's own: another example
                        head = fresh_after_literals(cur.inputs, cur.items, it,
                                                    lambda k: self.page.lines[k].role == "heading")
                    if head is not None:
                        # "Example 2": Q, K and V given afresh under a new heading after the first were worked
                        moved = [c for c in cur.items if c.line > head]
                        cur.items = [c for c in cur.items if c not in moved]
                        cur = _Segment(first=min([it.line] + [c.line for c in moved]), items=moved,
                                       masked=cur.masked)
                        segs.append(cur)
                cur.items.append(it)
            cur.last = max(cur.last, it.end)
        # an embedding matrix with nothing worked on it is not an example
        return [sg for sg in segs if sg.items or any(w in sg.inputs for w in WEIGHT_NAMES) or sg.hidden
                or (any(n in sg.inputs for n in ("Q", "K", KEYS_AND_VALUES)) and len(sg.inputs) >= 2)
                or x_worked_in_code(sg, self.page.lines) or x_with_stated_identities(sg, self.page.lines)]

    def fresh_qkv(self, cur: _Segment, it: Item) -> int | None:
        """The heading line under which ``it`` gives Q, K or V afresh: the segment starts from printed
        Q, K and V (no embeddings or weights), already printed this one with other numbers and worked
        them (scores, weights or an output printed since), and a heading stands between that work and
        ``it``. None when ``it`` is no such new start."""
        if it.step not in ("Q", "K", "V") or it.strength < 2 or it.operand or it.batches > 1 \
                or it.head is not None or not _numeric(it.rows) or it.kind != "matrix" or it.shape[0] < 2 \
                or it.token is not None or cur.inputs:
            return None  # (a one-row Q, or one token's q, k, v, starts nothing: the K or V after it does)
        first = next((c for c in cur.items if c.step == it.step and c.strength >= 2 and c.kind in ("matrix", "vector")
                      and _numeric(c.rows) and c.batches == 1 and c.head is None), None)
        if first is None or _same_values(first.rows, it.rows) or _restated_transposed([first], it):
            return None
        worked = [c.end for c in cur.items if c.line > first.line and _numeric(c.rows)
                  and c.step in ("scores", "scaled", "masked", "weights", "output")]
        if not worked:
            return None
        heads = [k for k in range(max(worked) + 1, it.line) if self.page.lines[k].role == "heading"]
        if not heads and it.line - 1 > max(worked) and any(n.startswith(TEST_CASE_NOTE) for n in it.notes):
            return it.line - 1  # the next test case's "Input:" line
        return heads[-1] if heads else None

    def matvec_roles(self) -> None:
        """Code that scores one vector against the rows of a matrix (``e = exp(matmul(h, s))``) and
        later sums the rows of that matrix weighted (``c = a[0] * h[0] + a[1] * h[1] + …``): the
        matrix given in code holds the keys (which are the values), the vector the query."""
        code = [(k, ln.text) for k, ln in enumerate(self.page.lines) if ln.role in ("code", "prose")]
        for k, t in code:
            for m in _MATVEC.finditer(t):
                mat, vec = m.group(1) or m.group(3), m.group(2) or m.group(4)
                wsum = re.compile(rf"\w+\[0\]\s*\*\s*{re.escape(mat)}\[0\]\s*\+\s*\w+\[1\]\s*\*\s*{re.escape(mat)}\[1\]")
                if mat == vec or not any(wsum.search(t2) for k2, t2 in code if k2 >= k):
                    continue
                given = {}
                for it in self.items:
                    if it.line < k and it.role in ("code", "prose") and it.label.strip() in (mat, vec) \
                            and _numeric(it.rows):
                        given[it.label.strip()] = it
                a, b = given.get(mat), given.get(vec)
                if a is None or b is None or a.kind != "matrix" or b.kind != "vector" or a.shape[1] != b.shape[1]:
                    continue
                a.step, a.strength = KEYS_AND_VALUES, 3
                b.step, b.strength = "Q", 3
                if not re.search(r"/|sqrt|scale", t):  # exp(matmul(h, s)): scored without scaling
                    self.unscaled_kv = (b, f"the code scores without scaling: {t.strip()[:80]!r}",
                                        str(self.page.lines[k].where))
                a.notes.append(f"scored against {vec} ({self.page.lines[k].where}) and summed weighted: keys and values")
                return

    def section_items(self, cur: _Segment, it: Item) -> list[Item]:
        """New inputs given in code under a heading that comes after the current example's inputs:
        the numbers printed in that section before the code (the exercise's answer, its inputs in
        prose) belong to the new example; they are taken out of ``cur`` and returned."""
        last = max(g.end for g in cur.inputs.values()) if cur.inputs else cur.first
        heads = [k for k in range(last + 1, it.line) if self.page.lines[k].role == "heading"]
        if it.role != "code" or not heads:
            return []
        moved = [c for c in cur.items if c.line > heads[-1] and c.line < it.line]
        cur.items = [c for c in cur.items if c not in moved]
        return moved

    def keep_mask_item(self, it: Item) -> list[list[bool]] | None:
        """The keep-mask a printed 0/1 array named ``…mask`` is (see :func:`keep_mask`), or None."""
        if INLINE_MASK_NOTE in it.notes:
            return [[x in ("True", "true", "1", "1.") for x in r] for r in it.rows]
        if it.kind not in ("matrix", "vector") or _mask_kind(it.rows):
            return None
        km = keep_mask(it.rows, it.label, self.page.lines, it.end)
        if km is not None:
            it.aside = ("the mask passed to the call after it (1 = attend): read as convention.mask, "
                        "not a step of the example")
        return km

    def inline_masks(self) -> None:
        """A keep-mask written as the ``mask=`` argument of an attention call (``attention(q, k, v,
        mask=np.array([[True, False]]))``, see :func:`inline_keep_mask`) becomes an item of its own, read
        as a mask passed to that call: the call is worked again with it, another example."""
        for k, ln in enumerate(self.page.lines):
            if ln.role != "code" or "mask" not in ln.text:
                continue
            rows = inline_keep_mask(ln.text)
            if rows is None:
                continue
            it = Item(rows=rows, where=[ln.where], line=k, end=k, kind="matrix" if len(rows) > 1 else "vector",
                      label="mask", role="code")
            it.notes.append(INLINE_MASK_NOTE)
            it.aside = ("the mask passed to the call it is written in (True = attend): read as convention.mask, "
                        "not a step of the example")
            self.items.append(it)
        self.items.sort(key=lambda it: (it.line, it.where[0].line))

    def keep_mask_segment(self, cur: _Segment | None, km: list[list[bool]], segs: list[_Segment]) -> _Segment | None:
        """A keep-mask passed to a call after weights or outputs were worked without one: the masked
        call is another example on the same inputs (as a causal mask introduced there is)."""
        if cur is not None and cur.keep_mask is None and not cur.masked and any(
                c.step in ("weights", "output", "weighted") and c.strength >= 2 and c.numbers for c in cur.items):
            given = [] if all(w in cur.inputs for w in WEIGHT_NAMES) else [
                c for c in cur.items if c.step in ("Q", "K", "V") and c.strength >= 2 and _numeric(c.rows)]
            cur = _Segment(inputs=dict(cur.inputs), first=cur.last + 1, hidden=list(cur.hidden),
                           random=list(cur.random), items=given)
            segs.append(cur)
        if cur is not None and cur.keep_mask is None:
            cur.keep_mask = km
        return cur

    def identity_inputs(self, x: Item, seg: _Segment, inputs: dict[str, Item], ws: dict[str, Item],
                        notes: list[Note]) -> None:
        """Embeddings given with no printed weights, on a page that sets all three projections to
        multiples of the identity (``W_Q = I``, ``Wk = 0.5 * np.eye(d)``): those weights, written out."""
        dm = x.shape[1]
        eye = stated_identities(self.page.lines[max(0, seg.first - 30): seg.last + 12], dm)  # (just after X too)
        if not all(w in eye for w in ("Wq", "Wk", "Wv")) or all(eye[w].value == "1" for w in ("Wq", "Wk", "Wv")):
            return  # (W_Q = W_K = W_V = I: Q = K = V = X, read as such)
        for w in ("Wq", "Wk", "Wv"):
            ev = eye[w]
            inputs[w] = ws[w] = Item(rows=[[ev.value if i == j else "0" for j in range(dm)] for i in range(dm)],
                                     where=[ev.where] * dm, line=x.line, end=x.line, step=w, strength=3,
                                     label=ev.text)
            notes.append(Note("found", f"{w} = {'' if ev.value == '1' else ev.value + '·'}I ({dm}×{dm}): the page "
                              f"says so: {ev.text!r}", ev.where))

    # -- one example --------------------------------------------------------------------
    def example(self, seg: _Segment, index: int) -> tuple[ImportedExample | None, str]:
        notes: list[Note] = []
        made = [h for h in seg.hidden if h[1] in WEIGHT_NAMES and h[1] not in seg.inputs]
        inputs = dict(seg.inputs)
        literal = {n: inputs.pop(n) for n in LITERAL_NAMES if n in inputs}
        kv = literal.pop(KEYS_AND_VALUES, None)
        if kv is not None:
            literal.setdefault("K", kv)
            literal.setdefault("V", kv)
        printed = self.printed_qkv(seg.items, literal)
        hidden_start = scores_start = one_head = False
        if made:
            if "Q" in printed and "K" in printed and "V" in printed:
                hidden_start = True  # the page prints what its hidden weights make: start from there
            elif any(c.step == "scores" and c.kind in ("matrix", "vector") and _numeric(c.rows) for c in seg.items):
                scores_start = True  # … or only the scores they make: start from the printed scores
                seg.random.append("scores")
                notes.append(Note("assumed", f"the page makes its weights in code ({made[0][2]!r}, "
                                  f"{self.page.lines[made[0][0]].where}) and prints neither them nor Q, K and V; "
                                  "this draft starts from the scores it prints"))
            else:
                k, _, code = made[0]
                heads_only = self.printed_heads_only(seg, index)
                if heads_only is not None:
                    return heads_only, ""
                steps_only = printed_steps_of_random_weights(self, seg, index, code, str(self.page.lines[k].where))
                if steps_only is not None:
                    return steps_only, ""
                return None, (f"the page makes its weights in code ({code!r}, {self.page.lines[k].where}) and does "
                              "not print them, so its numbers cannot be reproduced")
        x = inputs.get("X")
        if x is not None:
            for w in ("Wq", "Wk", "Wv"):
                it = inputs.get(w)
                dm = x.shape[1]
                if it is not None and 1 in it.shape and it.shape != (1, 1) and max(it.shape) % dm == 0 \
                        and max(it.shape) > dm:
                    flat = [e for r in it.rows for e in r]
                    cols = len(flat) // dm
                    inputs[w] = Item(rows=[flat[r * cols:(r + 1) * cols] for r in range(dm)],
                                     where=[it.where[min(r * cols, len(it.where) - 1)] for r in range(dm)],
                                     line=it.line, end=it.end, step=w, strength=it.strength, label=it.label, role=it.role)
                    notes.append(Note("assumed", f"{w} is printed as {len(flat)} numbers in a row; read row by row "
                                                 f"as {dm}×{cols} (X has {dm} columns)", it.at()))
        per_head = self.join_heads(inputs, notes)
        ws = {k: inputs[k] for k in ("Wq", "Wk", "Wv", "Wo", "bq", "bk", "bv") if k in inputs}
        lines = self.page.lines
        given: dict[str, Item] = {}
        dropped: tuple | None = None
        stage = ""
        conv: dict[str, Choice] = {}
        tokens: list[str] | None = None
        key_tokens: list[str] | None = None
        claims_items = [it for it in seg.items]
        for it in inputs.values():
            if it.row_labels is None and it.step != "X" and it.step not in WEIGHT_NAMES:
                pass
        named_other = other_tokens(x, seg.items) if x is not None and not any(w in ws for w in WEIGHT_NAMES) else None
        if named_other is not None and x is not None:
            # king, queen, cricket embeddings beside scores whose rows are money's, bank's, grows': an illustration
            notes.append(Note("assumed", f"the embeddings ({', '.join(x.row_labels or [])}) name other tokens than "
                              f"the steps' rows ({', '.join(named_other)}): not this example's inputs", x.at()))
            inputs.pop("X", None)
            x = None
        if x is not None and not any(w in ws for w in WEIGHT_NAMES) and not hidden_start and not scores_start \
                and not literal:
            self.identity_inputs(x, seg, inputs, ws, notes)
        if x is not None and any(w in ws for w in WEIGHT_NAMES) and not hidden_start and not scores_start:
            stage = "x"
            claims_items = sorted(claims_items + list(literal.values()), key=lambda it: it.line)
            n, dm = x.shape
            tokens, how = self.tokens_for(n, seg, x)
            if tokens:
                notes.append(Note("found", f"tokens {', '.join(tokens)} from {how}"))
                sub = self.attention_tokens(tokens, claims_items)
                if sub is not None:
                    left = tokens[len(sub):]
                    notes.append(Note("assumed", f"the attention steps name only {', '.join(sub)}, so "
                                      f"{', '.join(left)} (the last row{'s' if len(left) > 1 else ''} of X) "
                                      "is left out"))
                    dropped = (left, x)
                    x = Item(rows=x.rows[:len(sub)], where=x.where[:len(sub)], line=x.line, end=x.end,
                             step="X", strength=x.strength, label=x.label, role=x.role)
                    inputs = dict(inputs, X=x)
                    tokens = sub
                    n = len(sub)
            lay_ev = layout_evidence(lines[max(0, seg.first - 30): seg.last + 1]) or \
                layout_evidence(lines[: seg.last + 1]) or per_token_layout(lines[max(0, seg.first - 30): seg.last + 1])
            layout = None
            for w in WEIGHT_NAMES:
                if w in ws:
                    r, c = ws[w].shape
                    if r == dm and c != dm:
                        layout = layout or ("row", f"X is {n}×{dm} and {w} is {r}×{c}: Q = X·W")
                    elif c == dm and r != dm:
                        layout = layout or ("torch", f"X is {n}×{dm} and {w} is {r}×{c}: Q = X·Wᵀ")
            where = ""
            if lay_ev is not None and (layout is None or layout[0] == lay_ev.value):
                layout = (lay_ev.value, f"the page writes {lay_ev.text!r}")
                where = lay_ev.where
            shown = next((ws[w] for w in WEIGHT_NAMES if w in ws and ws[w].layout), None)
            if shown is not None and shown.layout:
                # what the page prints decides: W.weight is (out, in), its transpose multiplies X as written
                layout = (shown.layout, f"the page prints {shown.label.strip()!r}, "
                          + ("which multiplies X as written (Q = X·M)" if shown.layout == "row"
                             else "nn.Linear's (out, in) weight (Q = X·Wᵀ)"))
                where = shown.at()
            if layout is None:
                layout = ("row", "")
            conv["layout"] = Choice(layout[0], layout[1] or "the page multiplies the embeddings by the weights "
                                    "as written (Q = X·W)", assumed=not layout[1], where=where)
            eye = identity_weights(lines[max(0, seg.first - 30): seg.last + 1])
            # (a multiple of the identity, 'W_V = 0.5 I', 'Wv = 0.5 * np.eye(d)', beside printed weights)
            times = stated_identities(lines[max(0, seg.first - 30): seg.last + 12], dm)  # (just after the last too)
            for w in ("Wq", "Wk", "Wv"):
                if w not in ws and (w in eye or w in times):
                    ev = eye.get(w) or times[w]
                    c = times[w].value if w in times and w not in eye else "1"
                    cols = identity_columns(ev.text, dm)  # I_{4×2}: the 4×2 identity (importer_identity.py)
                    inputs[w] = ws[w] = Item(rows=[[c if i == j else "0" for j in range(cols)] for i in range(dm)],
                                             where=[ev.where] * dm, line=x.line, end=x.line, step=w, strength=3,
                                             label=ev.text)
                    notes.append(Note("found", f"{w} = {'' if c == '1' else c + '·'}I ({dm}×{cols}): the page says so: "
                                      f"{ev.text!r}", ev.where))
            for w in ("Wq", "Wk", "Wv"):
                if w not in ws:
                    tgt = {"Wq": "Q", "Wk": "K", "Wv": "V"}[w]
                    cand = next((c for c in claims_items if c.step == tgt and c.kind == "matrix"
                                 and c.shape[0] == n and _numeric(c.rows)), None)
                    if cand is None and tgt == "V":
                        notes.append(Note("assumed", "V = X: the page gives no value weights, so the values are "
                                                     "the embeddings themselves"))
                        given["V"] = x
                    elif cand is not None:
                        given[tgt] = cand
                        claims_items.remove(cand)
                    else:
                        return None, f"the page gives no {w} (nor {tgt})"
        elif x is not None and not hidden_start and not literal and not scores_start:
            n, dm = x.shape
            tokens, how = self.tokens_for(n, seg, x)
            scores_item = next((c for c in claims_items if c.step == "scores" and c.numbers), None)
            xs = _rows_float(x.rows)
            follows = True
            if scores_item is not None and xs is not None:
                alone = sum(1 for c in claims_items if c.step == "scores" and c.numbers
                            and c.shape[1] == scores_item.shape[1]) == 1
                follows = self.scores_follow(scores_item, xs, tokens, alone)
            factors = _dot_factors(claims_items, x)
            if factors is not None:
                # 'score(sat, cat) = [0, 1] · [0.5, 0] = 0' for every key: the page works one query's scores from
                # a query and keys it never prints as matrices (projections of X by weights it does not give)
                stage = "qkv"
                given["Q"], given["K"], given["V"] = factors[0], factors[1], x
                key_tokens, tokens = tokens, None
                notes.append(Note("assumed", "Q and K are the vectors of the dot products the page writes out "
                                             "(one query against every key; the page gives no projection weights), "
                                             "and V = X", factors[1].at()))
            elif follows:
                stage = "qkv"
                for k in ("Q", "K", "V"):
                    given[k] = x
                notes.append(Note("assumed", "Q = K = V = X: the page has no projection weights, so the "
                                             "embeddings are the queries, keys and values"))
                if tokens:
                    notes.append(Note("found", f"tokens {', '.join(tokens)} from {how}"))
            else:
                assert scores_item is not None
                stage = "scores"
                given["scores"] = scores_item
                unprinted = _projected_unprinted(lines, self.items)
                q_apart = printed_query_apart(x, claims_items)  # Q printed, made from X: X is no V
                seg.qk_printed = [q_apart] if q_apart is not None else None  # type: ignore[attr-defined]
                if "V" not in unprinted and q_apart is None:  # (V = X W_V, W_V never printed: X is no V)
                    given["V"] = x
                claims_items.remove(scores_item)
                q_labels = scores_item.row_labels
                key_tokens = tokens
                tokens = list(q_labels) if q_labels else None
                if scores_item.col_labels and key_tokens and [c.lower() for c in scores_item.col_labels] != \
                        [t.lower() for t in key_tokens]:
                    notes.append(Note("info", "the scores' column labels ("
                                      + ", ".join(scores_item.col_labels) + ") differ from the embeddings' "
                                      "tokens; the keys are named after the embeddings"))
                v0 = _dot(xs[_index(tokens[0] if tokens else None, key_tokens) or 0], xs[0]) if xs else None
                example_text = ""
                if v0 is not None and key_tokens:
                    qrow = _index(tokens[0] if tokens else None, key_tokens)
                    if qrow is not None:
                        example_text = (f" ({key_tokens[qrow]}·{key_tokens[0]} = {_fmt(v0)}, printed "
                                        f"{scores_item.rows[0][0]})")
                notes.append(Note("assumed", "the printed scores are not the dot products of the embeddings"
                                  + example_text + ", so this draft starts from the printed scores, " +
                                  ("with the embeddings as the values V" if "V" in given else
                                   f"with no values (the page writes {unprinted['V']!r} and never prints the "
                                   "weight)" if "V" in unprinted else "with no values (the page prints Q, made from "
                                   "the embeddings by weights it never prints)"), scores_item.at()))
        else:
            q, k, v = printed.get("Q"), printed.get("K"), printed.get("V")
            s = next((c for c in claims_items if c.step == "scores" and c.kind == "matrix" and _numeric(c.rows)), None) \
                or next((c for c in claims_items if c.step == "scores" and c.kind == "vector" and _numeric(c.rows)), None)
            root = _scores_literal_root(lines)
            if root is not None:  # the scores the attention code uses, not another tensor named like scores
                s = next((c for c in claims_items if c.step == "scores" and c.role == "code" and _numeric(c.rows)
                          and c.label.split("=")[0].strip() == root), s)
            proj = _printed_projections(seg.items, (q, k, v))
            if proj is not None and not scores_start:
                # Q_1 = Q × W_Q^T = [..] × [..] = [..], K_1 = …, V_1 = …: the page projects Q, K and V itself, one
                # head, with weights an example file cannot hold beside them: start from the projections printed
                q, k, v = proj
                one_head = True
                wo = inputs.get("Wo")
                for c in claims_items:
                    if wo is not None and c.step == "output" and c.line > wo.line and not c.aside:
                        c.aside = (f"an output after W^O ({wo.at()}): this example starts from one head's "
                                   "projections and has no output projection")
                    elif c.head is not None and c.head != (q.head or 1) and not c.aside:
                        c.aside = f"head {c.head}'s numbers: this example works head {q.head or 1} only"
                notes.append(Note("assumed", "the page projects its Q, K and V itself and works head "
                                  f"{q.head or 1}; this draft starts from the projections it prints "
                                  f"({q.at()}, {k.at()}, {v.at()})", q.at()))
            elif q is not None and k is not None and v is not None and not scores_start and \
                    _heads_project_qkv(per_head, ws, q) and (hp := head_projections(claims_items, per_head, (q, k, v),
                                                                                   ws)) is not None:
                set_projection_work_aside(claims_items, (q, k, v), hp[1], hp[0], per_head)
                (q, k, v), used = hp  # each head's Q_i = Q·W^Q_i printed: start from them, joined
                claims_items[:] = [c for c in claims_items if not any(c is u for u in used)]
                given["Wo"] = ws["Wo"] if "Wo" in ws and ws["Wo"].shape[0] == q.shape[1] else None  # type: ignore
                notes.append(Note("assumed", f"the page projects its Q, K and V again with each head's weights and "
                                  f"prints each head's projections: this draft starts from them, joined "
                                  f"({q.label}, {k.label}, {v.label}), one block of columns per head", q.at()))
                if given["Wo"] is None:
                    del given["Wo"]
            elif q is not None and k is not None and v is not None and not scores_start and \
                    _heads_project_qkv(per_head, ws, q):
                return None, ("the page projects its Q, K and V again with each head's weights "
                              "(head_i = Attention(Q·W^Q_i, K·W^K_i, V·W^V_i)): an example file holds no inputs "
                              "for that")
            if q is not None and k is not None and v is not None and not scores_start:
                stage = "qkv"
                for name, it in (("Q", q), ("K", k), ("V", v)):
                    given[name] = it
                    if it in claims_items:
                        claims_items.remove(it)
                tokens, how = self.tokens_for(q.shape[0], seg, x)
                if q.row_labels:
                    tokens = list(q.row_labels)
                key_tokens = _key_tokens_named(q, k, v)
                focus = _one_query_named(given, tokens, claims_items, notes)
                if focus is not None:
                    tokens, key_tokens = focus
                if tokens is None and q.shape[0] == 1 < k.shape[0]:  # query_2 = W_q @ x_2 with x_2 = X[2]
                    keys_found, _ = self.tokens_for(k.shape[0], seg, x)
                    i = code_row_index(q.label, [ln.text for ln in self.page.lines[:q.line] if ln.role == "code"])
                    if keys_found and i is not None and i < len(keys_found):
                        tokens, key_tokens = [keys_found[i]], list(keys_found)
                if hidden_start:
                    k0, _, code = made[0]
                    notes.append(Note("assumed", f"the page makes its weights in code ({code!r}, "
                                      f"{self.page.lines[k0].where}) and does not print them, so this draft starts "
                                      "from the Q, K and V it prints"))
                    seg.random += [n for n in ("Q", "K", "V") if given[n] not in literal.values()]
                elif x is not None and not any(given[n] is x for n in given):
                    notes.append(Note("info", "the page gives Q, K and V themselves; the embeddings X are not "
                                              "needed to derive them", x.at()))
            elif s is not None:
                stage = "scores"
                given["scores"] = s
                claims_items.remove(s)
                if v is not None:
                    given["V"] = v
                    if v in claims_items:  # V written in code is a literal, not among the printed items
                        claims_items.remove(v)
                tokens = list(s.row_labels) if s.row_labels else None
                key_tokens = list(s.col_labels) if s.col_labels else None
                if tokens is None and key_tokens is None:
                    nq, nk = s.shape
                    keys_found, _ = self.tokens_for(nk, seg, x)
                    if keys_found and nq == nk:
                        tokens = keys_found
                    elif keys_found and nq == 1:
                        key_tokens = keys_found
                        i = (s.row_index - 1) if s.row_index else None
                        tokens = [keys_found[i]] if i is not None and 0 <= i < nk else None
            else:
                return None, "no inputs"
        if stage == "scores":
            _list_unused_literals(literal, given, notes)
        if stage in ("x", "qkv"):
            h = per_head
            blocks = "rows" if conv.get("layout") is not None and conv["layout"].value == "torch" else "columns"
            why = ("the page gives each head its own weights; each W is their concatenation, one block of "
                   f"{blocks} per head") if per_head else ""
            # (Q_1, K_1 = […] name heads only where the page states how many: they may be layers or examples)
            worked = [c for c in claims_items if c.head is not None or c.batches > 1 or head_symbol(c)]
            if not h and worked and not one_head:
                ev = heads_evidence(lines[max(0, seg.first - 30): seg.last + 1]) or heads_evidence(lines[: seg.last + 1])
                stacks = {c.batches for c in claims_items if c.batches > 1 and _stack_of_heads(c, lines, seg)}
                heads_named = {c.head for c in claims_items if c.head is not None}
                if ev is not None and int(ev.value) > 1:
                    h, why = int(ev.value), f"the page says so: {ev.text!r}"
                elif len(stacks) == 1:
                    h = stacks.pop()
                    why = f"the page prints stacks of {h} matrices, one per head"
                elif heads_named and max(heads_named) > 1:
                    h, why = max(heads_named), f"the page works heads 1 to {max(heads_named)}"
            if not h and not one_head:
                last = max([seg.last] + [c.end for c in claims_items])
                layer = multihead_layer(lines[: last + 1], seg.first)
                if layer is not None:
                    h, why = int(layer.value), f"the page runs a multi-head layer: {layer.text!r}"
            if h and h > 1:
                conv["heads"] = Choice(h, why)
        return self.finish(seg, index, stage, inputs, given, tokens, key_tokens, conv, notes, claims_items, dropped)

    def join_heads(self, inputs: dict[str, Item], notes: list[Note]) -> int:
        """Weights given per head (W_Q1, W_Q2, …) joined into one matrix per projection, one block
        of columns per head (rows in the torch layout); the number of heads, or 0."""
        count = 0
        x = inputs.get("X")
        for w in WEIGHT_NAMES:
            parts = sorted((int(k.split("#")[1]), inputs.pop(k)) for k in list(inputs) if k.startswith(w + "#"))
            if not parts or w in inputs:
                continue
            mats = [p for _, p in parts]
            if [i for i, _ in parts] != list(range(1, len(parts) + 1)) or len({m.shape for m in mats}) != 1:
                notes.append(Note("unplaced", f"{w} per head: heads {', '.join(str(i) for i, _ in parts)} "
                                  "with different shapes or missing heads; not joined"))
                continue
            r, c = mats[0].shape
            torch = x is not None and c == x.shape[1] and r != x.shape[1]
            flipped = not torch and _wo_out_by_in(inputs.get("Wo"), x, len(parts), r, c)
            if flipped:  # each head's X @ W_h read as X·(W_hᵀ)ᵀ: its rows are W_h's columns
                said = any("layout torch: Wo is printed" in n.text for n in notes)
                mats = [Item(rows=[list(col) for col in zip(*m.rows)], where=[m.where[0]] * c, line=m.line,
                             end=m.end, step=w, strength=m.strength, label=m.label, role=m.role) for m in mats]
                torch = True
                if not said:
                    notes.append(Note("assumed", f"layout torch: Wo is printed {inputs['Wo'].shape[0]}×"
                                      f"{inputs['Wo'].shape[1]} (out × in), which multiplies the {len(parts)} heads "
                                      "joined only as X·Wᵀ; each head's W_Q, W_K, W_V (X @ W) is written transposed, "
                                      "one block of rows per head", inputs["Wo"].at()))
            rows = [sum((m.rows[i] for m in mats), []) for i in range(r)] if not torch else \
                [row for m in mats for row in m.rows]
            where = [m.where[0] for m in mats] if not torch else [wh for m in mats for wh in m.where]
            joined = Item(rows=rows, where=(where * r)[:len(rows)] if not torch else where, line=mats[0].line,
                          end=mats[-1].end, step=w, strength=3, label=" | ".join(m.label.strip() for m in mats),
                          role=mats[0].role)
            inputs[w] = joined
            count = max(count, len(parts))
            notes.append(Note("assumed", f"{w} = [{' | '.join(m.label.strip() or w for m in mats)}]: the page gives "
                                         f"{len(parts)} heads their own {w}; this draft joins them "
                                         + ("row block by row block (torch layout)" if torch else
                                            "column block by column block"), mats[0].at()))
        return count

    def loss_hint(self) -> str:
        """The loss a page differentiates, as ``symattn grad`` names it."""
        text = "\n".join(ln.text for ln in self.page.lines if ln.role in ("code", "math"))
        if re.search(r"mse_loss|MSELoss|\(\s*\w+\s*-\s*\w+\s*\)\s*\*\*\s*2", text):
            return "--loss mse with --target, as the page's squared error"
        if re.search(r"\.backward\(\s*(?:gradient\s*=\s*)?[A-Za-z_]", text):
            return "--loss upstream with --upstream, the gradient the page passes to backward()"
        if re.search(r"\.sum\(\)\s*\.backward\(\)|sum\([^)]*\)\s*\.backward\(\)", text):
            return "--loss sum, as the page's out.sum().backward()"
        return "--loss sum, mse or upstream: the page's loss decides"

    def d_k_of(self, lines: list, scores: Item, items: list[Item]) -> tuple[int, str, bool] | None:
        """d_k for an example that starts from printed scores and scales them by 1/√d_k: the
        whole number the page's code divides by (``/ math.sqrt(d_k)`` with ``B, T, d_k = 2, 4, 8``),
        else the one its printed weights follow. (value, why, assumed)"""
        ints: dict[str, int] = {}
        for ln in self.page.lines:
            if ln.role != "code":
                continue
            t = re.sub(r"\s#.*$", "", ln.text)
            m = re.match(r"\s*([A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*)\s*=\s*(\d+(?:\s*,\s*\d+)*)\s*$", t)
            if m:
                names = [x.strip() for x in m.group(1).split(",")]
                vals = [int(x) for x in m.group(2).split(",")]
                if len(names) == len(vals):
                    ints.update(zip(names, vals))
        for ln in lines:
            if ln.role != "code":
                continue
            m = re.search(r"/\s*\(?\s*(?:math\.|np\.|numpy\.|torch\.)?sqrt\(\s*([A-Za-z_]\w*)\s*\)|"
                          r"/\s*\(?\s*([A-Za-z_]\w*)\s*\*\*\s*0?\.5", ln.text)
            name = (m.group(1) or m.group(2)) if m else None
            if name in ints and 1 <= ints[name] <= MAX_DIM:
                return ints[name], f"the page's code divides by the square root of {name} = {ints[name]}", False
        # the printed weights decide
        rows = _rows_float(scores.rows)
        weights = [c for c in items if c.step == "weights" and c.shape[1] == scores.shape[1] and _numeric(c.rows)]
        if rows is None or not weights:
            return _d_k_stated(lines)
        best: tuple[int, int] | None = None
        for d in range(1, 4097):
            good = total = 0
            for w in weights:
                for i, r in enumerate(w.rows):
                    src = rows[i] if len(rows) == len(w.rows) else rows[0] if len(rows) == 1 else None
                    if src is None:
                        continue
                    m_ = max(src)
                    e = [math.exp((v - m_) / math.sqrt(d)) for v in src]
                    for t, v in zip(r, e):
                        if _num(t) is not None:
                            total += 1
                            good += _close(t, v / sum(e))
            if total and good >= 0.9 * total and (best is None or good > best[1]):
                best = (d, good)
        if best is None:
            return _d_k_stated(lines)
        return best[0], f"the page scales by 1/√d_k without printing d_k; d_k = {best[0]} makes its printed weights", True

    def printed_qkv(self, items: list[Item], literal: dict[str, Item]) -> dict[str, Item]:
        """Q, K and V as the page gives them: written in code, else the first printing of each
        (a single query may be a vector)."""
        out = dict(literal)
        for name in ("Q", "K", "V"):
            if name in out:
                continue
            kinds = ("matrix", "vector") if name == "Q" else ("matrix",)
            it = next((c for c in items if c.step == name and (c.kind in kinds or (
                c.kind == "vector" and c.shape[1] == 1 and c.shape[0] > 1)) and _numeric(c.rows)
                       and c.batches == 1 and c.strength >= 2), None)
            if it is not None:
                out[name] = it
        return out

    def attention_tokens(self, tokens: list[str], items: list[Item]) -> list[str] | None:
        """The first m < n tokens when the page's attention steps (weights, output) are
        labelled with exactly those (a slide that leaves out <EOS>)."""
        for it in items:
            for labels in (it.col_labels, it.row_labels):
                if labels and 1 < len(labels) < len(tokens) and it.step in ("weights", "scores", "output", None) \
                        and [t.lower() for t in labels] == [t.lower() for t in tokens[:len(labels)]]:
                    return list(tokens[:len(labels)])
        return None

    def scores_follow(self, s: Item, xs: list[list[float]], tokens: list[str] | None, alone: bool = False) -> bool:
        """Whether printed scores are (about) the embeddings' dot products, scaled or not."""
        n, d = len(xs), len(xs[0])
        rows = s.rows
        if s.shape == (n, n):
            pairs = [(i, j, rows[i][j]) for i in range(n) for j in range(n)]
        elif s.shape[0] == 1 and s.shape[1] == n:
            i = _index(s.row_labels[0] if s.row_labels else None, tokens)
            if i is None and not alone:
                return True
            if i is None:  # the one row of scores printed, its query not named: the dot products of some embedding?
                return any(self.scores_follow(Item(s.rows, s.where, s.line, s.end, s.kind, row_labels=[str(q + 1)]),
                                              xs, [str(t + 1) for t in range(n)]) for q in range(n))
            pairs = [(i, j, rows[0][j]) for j in range(n)]
        else:
            return True
        good = 0
        total = 0
        for scale in (1.0, 1 / math.sqrt(d)):
            g = sum(1 for i, j, t in pairs if _num(t) is not None and _close(t, _dot(xs[i], xs[j]) * scale))
            good = max(good, g)
        total = sum(1 for _, _, t in pairs if _num(t) is not None)
        return total == 0 or good >= 0.5 * total

    def finish(self, seg: _Segment, index: int, stage: str, inputs: dict[str, Item], given: dict[str, Item],
               tokens: list[str] | None, key_tokens: list[str] | None, conv: dict[str, Choice], notes: list[Note],
               claims_items: list[Item], dropped: tuple | None = None) -> tuple[ImportedExample | None, str]:
        lines = self.page.lines
        ex_inputs: dict[str, Given] = {}
        source_items: dict[str, Item] = {}
        if stage == "x":
            for k in ("X", "Wq", "Wk", "Wv", "Wo", "bq", "bk", "bv"):
                if k in inputs:
                    source_items[k] = inputs[k]
        for k, it in given.items():
            source_items[k] = it
        for k in SCORE_INPUT_NAMES:  # W_a, U_a, v_a: inputs of the score whatever the stage
            if k in inputs and stage != "scores":
                source_items[k] = inputs[k]
        for k, it in source_items.items():
            rows = it.rows
            q = source_items.get("Q")
            if k == "K" and it.transposed and is_transposed(it.label) and q is not None and len(rows) == len(q.rows[0]):
                rows = [list(c) for c in zip(*rows)]  # Kᵀ = [[…]]: the keys are its columns
                it = Item(rows=rows, where=[it.where[0]] * len(rows), line=it.line, end=it.end, kind=it.kind,
                          label=it.label, step="K", strength=it.strength, role=it.role, form=it.form)
            if any(entry_kind(x) not in ("number",) and not re.fullmatch(r"[+-]?\d+/\d+", x) for r in rows for x in r):
                bad = next(x for r in rows for x in r if entry_kind(x) != "number")
                return None, f"input {k} ({it.at()}) has an entry {bad!r} that is not a number"
            if len(rows) > MAX_TOKENS or len(rows[0]) > max(MAX_DIM, MAX_TOKENS):
                return None, f"input {k} ({it.at()}) is {len(rows)}×{len(rows[0])}, past the size limit"
            ex_inputs[k] = Given([list(r) for r in rows], [str(w) for w in it.where], it.label)
            if not (k in ("Q", "K", "V") and it is inputs.get("X")):
                notes.append(Note("found", f"{k}: {it.shape[0]}×{it.shape[1]}"
                                  + (f", from {it.label.strip()!r}" if it.label.strip() else ""), it.at()))
        # duplicate tokens cannot name rows: number them
        tokens = _unique(tokens, notes)
        key_tokens = _unique(key_tokens, notes)
        # conventions the page states
        region = lines[max(0, seg.first - 30): seg.last + 1]
        # what the page says before or within this example (a formula at the top counts;
        # what a later part says does not)
        cut = next_part_heading(lines, seg, claims_items)
        sc = scale_evidence(region[: cut - max(0, seg.first - 30)] if cut else region) or \
            scale_evidence(lines[: cut or seg.last + 1])
        own = left_out_scaling(lines[min((it.line for it in source_items.values()), default=seg.first): seg.last + 1])
        if own is not None and not any(c.step == "scaled" and c.strength >= 2 for c in claims_items):
            sc = own  # the worked example says it leaves the scaling out, whatever code shown before it computes
        sc = unit_root(lines[seg.first: seg.last + 1]) or sc  # '\sqrt{d_k} = \sqrt{2} = 1': nothing divides
        if stage == "scores":
            dk = self.d_k_of(region, given["scores"], claims_items) if sc is not None and sc.value == "1/sqrt(d_k)" \
                else None
            if sc is not None and sc.value == "none":
                conv["scale"] = Choice("none", f"the page says so: {sc.text!r}", where=sc.where)
            elif dk is not None:
                conv["scale"] = Choice("1/sqrt(d_k)", f"the page says so: {sc.text!r}", where=sc.where)  # type: ignore[union-attr]
                conv["d_k"] = Choice(dk[0], dk[1], assumed=dk[2])
            elif (ratio := _scaled_by_root(given["scores"], claims_items)) is not None:
                why = (f"the printed scaled scores ({ratio[1].at()}) are the printed scores divided by "
                       f"√{ratio[0]} = {math.sqrt(ratio[0]):.4g}")
                conv["scale"] = Choice("1/sqrt(d_k)", why, where=ratio[1].at())
                conv["d_k"] = Choice(ratio[0], why, where=ratio[1].at())
            elif (told := next(((d, w) for w in claims_items if w.step == "weights" and w.kind == "matrix"
                                and w.shape == given["scores"].shape
                                and (d := softmax_scale(given["scores"].rows, w.rows)) is not None), None)) is not None:
                why = (f"the printed weights ({told[1].at()}) are the softmax of the printed scores divided by "
                       f"√{told[0]} = {math.sqrt(told[0]):.4g}")
                conv["scale"] = Choice("1/sqrt(d_k)", why, assumed=True)
                conv["d_k"] = Choice(told[0], why, assumed=True)
            else:
                conv["scale"] = Choice("none", "the page does not say whether its scores are scaled; this draft "
                                       "applies softmax to the printed scores as they are", assumed=True)
        elif sc is not None:
            conv["scale"] = Choice(sc.value, f"the page says so: {sc.text!r}", where=sc.where)
        if stage == "scores" and conv.get("scale") is not None and conv["scale"].value == "1/sqrt(d_k)" and (
                unscaled_w := weights_fit_unscaled(given["scores"].rows, claims_items, getattr(conv.get("d_k"), "value", None))):
            conv["scale"] = Choice("none", f"the printed weights ({unscaled_w.at()}) are the softmax of the printed scores "
                                   "as they are", where=unscaled_w.at())  # (importer_fit_scale.py)
            conv.pop("d_k", None)
        divided = _score_divided(lines[seg.first: seg.last + 1], claims_items)
        if divided is not None and stage in ("x", "qkv"):
            conv["scale"] = divided  # softmax(0.13/3): how the page divides its own score decides over a heading
        other_root = _root_of_other_width(lines[: seg.last + 1], lines[max(0, seg.first - 30): seg.last + 1], stage,
                                          inputs, given, conv)
        if other_root is not None:
            conv["scale"] = other_root  # / math.sqrt(head_dim), head_dim = C // n_heads: not Q's width
        mk = mask_evidence(lines[seg.first: seg.last + 1]) if seg.masked else None
        if mk is None and seg.masked and getattr(seg, "row_changed", False):
            mk = mask_evidence(lines[: seg.first])  # the example before, one row changed: its mask still applies
        drawn = [it for it in seg.items if _mask_kind(it.rows) and not (  # Q = [[1, 0], [1, 1]] given is no mask
            it.step in INPUT_NAMES + LITERAL_NAMES and it.strength >= 2 and any(it is g for g in source_items.values()))]
        if mk is None and drawn:
            mk = next(Evidence("causal", it.at(), f"the mask it prints ({it.label.strip() or 'a triangular matrix'})")
                      for it in drawn)
        if mk is not None and (stage != "scores" or not any(
                entry_kind(x) == "inf" for r in given["scores"].rows for x in r)):
            conv["mask"] = Choice("causal", f"the page says so: {mk.text!r}", where=mk.where)
        if seg.keep_mask is not None:
            self.keep_mask_convention(seg, ex_inputs, conv)
        if seg.bias is not None:
            self.bias_convention(seg.bias, ex_inputs, conv)
        unscaled = getattr(self, "unscaled_kv", None)
        if unscaled is not None and seg.inputs.get("Q") is unscaled[0] and not {"K", "V"} & set(seg.inputs):
            conv["scale"] = Choice("none", unscaled[1], where=unscaled[2])
        win = window_evidence(lines[max(0, seg.first - 30): seg.last + 1]) if stage != "scores" else None
        if win is not None:  # a sliding window: both sides given, or W tokens = the query and W − 1 before it
            conv["window"] = Choice(win[0], f"the page says so: {win[2]!r}" if win[3] else (
                f"read as the query and the {win[0][0]} tokens before it (check names a window one wider or "
                f"narrower if the numbers say so): {win[2]!r}"), assumed=not win[3], where=win[1])
            if not win[3] and "mask" not in conv:
                conv["mask"] = Choice("causal", "a sliding window of tokens is causal", assumed=True)
        if stage == "x" and tokens and not key_tokens and "X_kv" not in ex_inputs:
            split = keys_over_subset(lines[max(0, seg.first - 30): seg.last + 1], tokens)
            if split is not None and len(ex_inputs["X"].rows) == len(tokens):
                q, sub, ev = split
                xg = ex_inputs["X"]
                pick = [tokens.index(t) for t in sub]
                ex_inputs["X_kv"] = Given([list(xg.rows[i]) for i in pick], [xg.where[i] for i in pick], xg.label)
                ex_inputs["X"] = Given([list(xg.rows[tokens.index(q)])], [xg.where[tokens.index(q)]], xg.label)
                notes.append(Note("found", f"one query, {q!r}, against the keys {', '.join(map(repr, sub))} only: the "
                                  f"code makes the keys from those tokens ({ev.text!r}), so X is the query's row and "
                                  "X_kv the keys' rows", ev.where))
                tokens, key_tokens = [q], list(sub)
        self.variants(seg, stage, ex_inputs, tokens, key_tokens, conv, notes)
        data = self.spec_data(ex_inputs, tokens, key_tokens, conv)
        try:
            spec = from_dict(data, self.page.source)
            d = derive(spec.unfocused())
        except SymattnError as e:
            if stage == "x" and conv.get("layout") and conv["layout"].assumed:
                conv["layout"] = Choice("torch", "X·W does not fit; X·Wᵀ does", assumed=True)
                try:
                    spec = from_dict(self.spec_data(ex_inputs, tokens, key_tokens, conv), self.page.source)
                    d = derive(spec.unfocused())
                except SymattnError:
                    return None, f"the inputs do not fit together ({_short(e)})"
            else:
                return None, f"the inputs do not fit together ({_short(e)})"
        def place_all(spec: Spec, d: Derivation, items: list[Item] | None = None) -> _Placer:
            placer = _Placer(self, spec, d, tokens, key_tokens, stage, given, inputs, notes)
            placer.printed_items = list(claims_items if items is None else items)
            if dropped:
                placer.dropped, placer.full_x = dropped[0], dropped[1]
            placer.ahead = list(claims_items if items is None else items)
            for it in placer.ahead:
                placer.place(it)
            return placer

        placer = place_all(spec, d)
        # conventions decided by values when the page is silent
        if "scale" not in conv and not (conv.get("score") and conv["score"].value == "linear"):
            choice = placer.choose_scale(self.spec_data(ex_inputs, tokens, key_tokens, conv))
            conv["scale"] = choice
            if choice.value != spec.convention.scale_text:
                # place again with the scale the numbers follow (values decide some placements)
                try:
                    spec = from_dict(self.spec_data(ex_inputs, tokens, key_tokens, conv), self.page.source)
                    placer = place_all(spec, derive(spec.unfocused()))
                except SymattnError:  # pragma: no cover - the same inputs derived a moment ago
                    pass
        twin = self.mask_twin(seg, stage, ex_inputs, tokens, key_tokens, conv, given, inputs, spec, claims_items) or \
            self.scale_twin(stage, ex_inputs, tokens, key_tokens, conv, given, inputs, spec, claims_items)
        if twin is not None:  # the page works these inputs with and without the mask: two examples
            claims_items = [it for it in claims_items if it not in twin[2]]
            placer = place_all(spec, derive(spec.unfocused()))
            twin_placer = place_all(twin[1], derive(twin[1].unfocused()), twin[3])
        query = query_evidence(lines[max(0, seg.first - 5): seg.last + 1], spec.query_labels())
        if query is not None:
            conv["query"] = Choice(query.value, f"the page says so: {query.text!r}", where=query.where)
        else:
            rows_used = {c.row for c in placer.claims if c.step in ("scores", "scaled", "masked", "weights",
                                                                     "weighted", "weights_sum")}
            if len(rows_used) == 1 and spec.n_queries > 1:
                q = next(iter(rows_used))
                conv["query"] = Choice(q, "the page works the attention of this query only")
        if stage == "scores" and tokens and len(tokens) == 1 and "query" not in conv:
            conv["query"] = Choice(tokens[0], "the page's scores are for this query only")
        made = list(seg.random) + (["X"] if self.random_x and not getattr(seg, "own_inputs", False) else [])
        if made:
            notes.append(Note("assumed", f"inputs_rounded = true: the page makes {', '.join(made)} with random "
                                         "numbers in code and prints them rounded, so each input is known only to "
                                         "its printed digits"))
            conv_rounded = True
        else:
            conv_rounded = False
        if not placer.claims and not (stage == "x" and not given) and not (
                stage == "qkv" and given and all(g.role in ("code", "comment") for g in given.values()) and any(ln.role == "code" and "softmax" in ln.text.lower()
                                                   for ln in self.page.lines)):
            # (Q, K and V written in code that computes attention are an example even when the page
            # prints none of its results: the draft has the inputs to derive from)
            return None, "nothing printed on the page could be placed in it"
        if not placer.claims and stage in ("qkv", "x") and (conv.get("scale") is None or conv["scale"].assumed):
            # nothing printed to tell the scale by: the code that works the inputs after them says it
            after = scale_evidence([ln for ln in lines[seg.last + 1: seg.last + 40] if ln.role == "code"])
            if after is not None:
                conv["scale"] = Choice(after.value, f"the page's code says so: {after.text!r}", where=after.where)
        fixed = constant_scale([ln for ln in lines[seg.last + 1: seg.last + 80] if ln.role == "code"]) \
            if not placer.claims and stage in ("qkv", "x") else None
        if fixed is not None:  # the code working the inputs divides its scores by a constant: over the prose
            conv["scale"] = Choice(fixed[0], f"the page's code says so: {fixed[2]!r}", where=fixed[1])
        if not placer.claims and stage == "qkv" and "query" not in conv:
            # nothing printed: the code after the inputs may take one query's row (q = vectors["jumped"])
            query = query_evidence([ln for ln in lines[seg.last + 1: seg.last + 40] if ln.role == "code"], tokens)
            one = one_query_inputs(ex_inputs, tokens, query.value) if query is not None else None
            if query is not None and one is not None:
                ex_inputs, tokens, key_tokens = one
                notes.append(Note("found", f"one query, {tokens[0]!r}: the page works its row only and prints "
                                  f"nothing, so Q is that row and the keys and values are every token's: "
                                  f"{query.text!r}", query.where))
        if not placer.claims and given and all(g.role == "comment" for g in given.values()):
            notes.append(Note("assumed", "the inputs are written in code that is commented out (never run, nothing "
                                         "printed from it): a draft of inputs only", next(iter(given.values())).at()))
        data = self.spec_data(ex_inputs, tokens, key_tokens, conv)
        title = self.title(index, seg.first)
        ordered = placer.ordered()
        if stage == "scores" and self.printed_from_random(given, seg):
            ordered = printed_query_claims(getattr(seg, "qk_printed", None), spec, notes, placer.notes) + \
                self.inputs_as_claims(spec, given, ex_inputs, ordered, notes)
            ex_inputs, conv_rounded = {}, False
            if tokens and key_tokens and len(tokens) == 1 and tokens[0] in key_tokens:
                # one query of the sentence: a file of claims names its row among the sentence's tokens
                tokens, key_tokens = list(key_tokens), None
            ordered = _rows_by_name(list(tokens) if tokens else spec.query_labels(),
                                    list(key_tokens or tokens or spec.key_labels()), claims_items, placer.notes, ordered)
            ordered = _output_matrices(list(tokens) if tokens else spec.query_labels(), claims_items, placer.notes,
                                       ordered)
            ordered += headed_output(getattr(seg, "qk_printed", None), list(tokens) if tokens else spec.query_labels(),
                                     claims_items, placer.notes)
            ordered = key_claims(list(key_tokens or tokens or spec.key_labels()), claims_items, placer.notes, ordered)
            ordered = unscaled_weights_aside(ordered, scale_factor(conv), placer.notes)
            if not tokens:
                ordered = _named_query_row(ordered, given["scores"])
            notes = [n for n in notes if not n.text.startswith("inputs_rounded")]
        elif stage == "qkv" and seg.random and coarser_than_results(ex_inputs, ordered, print_precision_raised(
                [ln.text for ln in lines[max(g.end for g in given.values()): seg.last + 1] if ln.role == "code"])):
            # the same run printed at two precisions: Q, K, V cut to a digit, the results to nine (claims only)
            ordered = inputs_claimed(ex_inputs, spec.query_labels(), spec.key_labels()) + ordered
            ex_inputs, conv_rounded = {}, False
            if tokens and key_tokens and len(tokens) == 1 and tokens[0] in key_tokens:
                tokens, key_tokens = list(key_tokens), None
            notes = [n for n in notes if not n.text.startswith("inputs_rounded")] + [Note(
                "assumed", "the page prints Q, K and V at a coarser print precision than the results it computes "
                           "from them (set_printoptions raised in between): they are claims, not inputs")]
        ordered = scaled_by_one(ordered, conv)  # √d_k = 1: the page's "scaled" scores are its scores
        ex = ImportedExample(title=title, source=self.page.source, format=self.page.format, index=index, count=0,
                             inputs_rounded=conv_rounded,
                             tokens=tokens, key_tokens=key_tokens, inputs=ex_inputs, convention=conv,
                             claims=ordered, notes=notes + placer.notes,
                             first_index=seg.first,
                             first_line=str(lines[seg.first].where) if seg.first < len(lines) else "",
                             last_line=str(lines[min(seg.last, len(lines) - 1)].where) if lines else "")
        for key, ch in conv.items():
            if ch.assumed:
                ex.notes.insert(0, Note("assumed", f"{key} = {_show(ch.value)}: {ch.reason}"))
            elif ch.where:
                ex.notes.append(Note("stated", f"{key} = {_show(ch.value)}: {ch.reason}", ch.where))
            else:
                ex.notes.append(Note("found", f"{key} = {_show(ch.value)}: {ch.reason}"))
        if twin is not None:
            tconv = twin[0]
            other = ImportedExample(title=title, source=self.page.source, format=self.page.format, index=index,
                                    count=0, inputs_rounded=conv_rounded, tokens=tokens, key_tokens=key_tokens,
                                    inputs=ex_inputs, convention=tconv,
                                    claims=([c for c in ordered if c.step == "scores" and c.group is None]
                                            if stage == "scores" and not ex_inputs else []) + twin_placer.ordered(),
                                    notes=[n for n in notes if n.kind in ("found", "assumed")] + twin_placer.notes,
                                    first_index=seg.first, first_line=ex.first_line, last_line=ex.last_line)
            for key, ch in tconv.items():
                kind = "assumed" if ch.assumed else "stated" if ch.where else "found"
                other.notes.append(Note(kind, f"{key} = {_show(ch.value)}: {ch.reason}", ch.where))
            masked, plain = (ex, other) if "mask" in conv else (other, ex)
            self.twins.append((plain, masked))
        return ex, ""

    def printed_from_random(self, given: dict[str, Item], seg: "_Segment | None" = None) -> bool:
        """Whether the scores an example starts from are printed by code that computes them from numbers the page
        never prints (drawn at random, loaded, or made in code or a notebook not shown), rather than written on
        the page (prose, a table) or as a literal in its code: they are then one more printed result."""
        s = given.get("scores")
        if s is not None and s.role == "output" and scores_drawn_at_random(self.page.lines, s.line):
            return False  # scores = torch.randn(…): the printed scores are where the page starts
        if s is not None and s.role in ("table", "prose") and set(given) == {"scores"} and draws_at_random(
                [ln.text for ln in self.page.lines if ln.role == "code"]):
            # an illustrative table of scores on a page whose code makes its Q, K, V at random: what the
            # page's attention printed, not inputs it gives (it gives none)
            return True
        if s is not None and set(given) == {"scores"} and _shapes_only(self.page.lines, self.items):
            # 'Q shape: (1, 3, 4), K shape: (1, 3, 4)': the program had Q and K and printed only their shapes
            return True
        if s is not None and set(given) == {"scores"} and getattr(seg, "qk_printed", None):
            return True  # Q printed (from X by weights never printed), no K, no V: its QKᵀ is a result
        if s is not None and s.role not in ("output", "code") and \
                {"Q", "K"} <= set(_projected_unprinted(self.page.lines, self.items)):
            return True  # Q = X W_Q and K = X W_K with weights the page never prints: its QKᵀ is a result
        if s is None or s.role != "output":
            return False
        return not any(it is not s and it.role == "code" and _same_values(it.rows, s.rows) for it in self.items)

    def inputs_as_claims(self, spec: Spec, given: dict[str, Item], ex_inputs: dict[str, Given],
                         ordered: list[ClaimRow], notes: list[Note]) -> list[ClaimRow]:
        """The printed blocks an example was placed from, as its first claims (a file of claims only)."""
        out: list[ClaimRow] = []
        for k, g in ex_inputs.items():
            if k in given and given[k].step != k:
                continue  # the embeddings taken as the values (V = X): no printing of V
            labels = spec.key_labels() if k in ("K", "V") else spec.query_labels()
            for i, r in enumerate(g.rows):
                out.append(ClaimRow(k, labels[i] if i < len(labels) else str(i + 1), list(r),
                                    g.where[i] if i < len(g.where) else g.where[0]))
        it = given["scores"]
        how = "numbers its code draws at random or loads" if draws_at_random(
            [ln.text for ln in self.page.lines if ln.role == "code"]) else "numbers"
        made = "the page's code computes these scores"
        if it.role != "output":  # Q = XW_Q, K = XW_K written, the weights never printed
            proj = ", ".join(_projected_unprinted(self.page.lines, self.items).values())
            made = f"the page makes these scores as QKᵀ with {proj}" if proj else "the page makes these scores as QKᵀ"
            how = "weights"
        notes.append(Note("assumed", f"{made} from {how} it never prints: they are "
                                     "claims, not inputs (check starts from them, each known only to its printed "
                                     "digits)", it.at()))
        return out + ordered

    def mask_twin(self, seg: _Segment, stage: str, ex_inputs: dict[str, Given], tokens: list[str] | None,
                  key_tokens: list[str] | None, conv: dict[str, Choice], given: dict[str, Item],
                  inputs: dict[str, Item], spec: Spec, items: list[Item]) -> tuple | None:
        """The same inputs worked with and without a causal mask on one page (the weights of each printed
        side by side, or one after the other): ``(the other convention, its spec, the blocks only it
        explains, its blocks)`` when some printed blocks follow only the other choice, else None. A block
        both explain (the scores, a row the mask leaves alone) belongs to both."""
        if stage not in ("x", "qkv") or not mask_lines(self.page.lines[max(0, seg.first - 30): seg.last + 1]) \
                and "mask" not in conv:
            return None
        alt = dict(conv)
        if "mask" in conv:
            if conv["mask"].value != "causal":
                return None
            del alt["mask"]
            alt["mask_note"] = Choice("none", "the page also works these inputs without the mask: the blocks "
                                              "only that explains are this example's")
        else:
            alt["mask"] = Choice("causal", "the page also works these inputs with a causal mask: the blocks only "
                                           "that explains are this example's")
        try:
            other = from_dict(self.spec_data(ex_inputs, tokens, key_tokens,
                                             {k: v for k, v in alt.items() if k != "mask_note"}), self.page.source)
            d_other = derive(other.unfocused())
        except SymattnError:
            return None

        split = self.split_by_fit(spec, other, d_other, stage, tokens, key_tokens, given, inputs, items)
        if split is None:
            return None
        alt.pop("mask_note", None)
        return alt, other, split[0], split[1]

    def split_by_fit(self, spec: Spec, other: Spec, d_other: Derivation, stage: str, tokens: list[str] | None,
                     key_tokens: list[str] | None, given: dict[str, Item], inputs: dict[str, Item],
                     items: list[Item]) -> tuple[list[Item], list[Item]] | None:
        """(the blocks only ``other`` explains, those and the blocks both explain), or None when the blocks
        only it explains hold fewer than four numbers."""
        def scorer(sp: Spec, d: Derivation):
            pl = _Placer(self, sp, d, tokens, key_tokens, stage, given, inputs, [])

            def score(it: Item) -> float:
                if it.kind not in ("matrix", "vector") or it.keyed or it.exprs or it.pair or it.batches > 1 \
                        or not _numeric(it.rows) or it.numbers < 2:
                    return -1.0
                step, cells, _ = pl.choose(it)
                return pl.match(step, cells) if step is not None and cells is not None else \
                    1.0 if fits_twice(pl, it) else 0.0  # (an undecided echo: this example explains it too)
            return score

        here, there = scorer(spec, derive(spec.unfocused())), scorer(other, d_other)
        scores = [(it, here(it), there(it)) for it in items]
        only = [it for it, a, b in scores if b >= 0.9 and 0 <= a < 0.5]
        if sum(it.numbers for it in only) < 4:
            return None
        both = [it for it, a, b in scores if a >= 0.9 and b >= 0.9]
        mine = sorted(only + both, key=lambda it: (it.line, it.where[0].line if hasattr(it.where[0], "line") else 0))
        return only, mine

    def scale_twin(self, stage: str, ex_inputs: dict[str, Given], tokens: list[str] | None,
                   key_tokens: list[str] | None, conv: dict[str, Choice], given: dict[str, Item],
                   inputs: dict[str, Item], spec: Spec, items: list[Item]) -> tuple | None:
        """The same scores worked with and without the 1/√d_k scaling on one page (the softmax of the raw
        scores printed beside the scaled weights, to show what the scaling changes): like :meth:`mask_twin`,
        ``(the unscaled convention, its spec, the blocks only it explains, its blocks)`` when some printed
        weights follow only the unscaled scores, else None."""
        if "mask" in conv or "scale" not in conv or conv["scale"].value != "1/sqrt(d_k)":
            return None
        alt = {k: v for k, v in conv.items() if k != "d_k"}
        alt["scale"] = Choice("none", "the page also takes the softmax of these scores unscaled: the blocks only "
                                      "that explains are this example's")
        try:
            other = from_dict(self.spec_data(ex_inputs, tokens, key_tokens, alt), self.page.source)
            d_other = derive(other.unfocused())
        except SymattnError:
            return None
        split = self.split_by_fit(spec, other, d_other, stage, tokens, key_tokens, given, inputs, items)
        if split is None or any(it.step != "weights" or it.kind != "matrix" for it in split[0]) or not any(
                it.step == "weights" and it.kind == "matrix" and it not in split[1] for it in items):
            return None  # (printed weights the scaling makes stay with this example)
        if not any(_SOFTMAX_OF_RAW_RE.search(it.label or "") for it in split[0]):
            return None  # the page must say the softmax was taken of the raw scores, not only print it
        return alt, other, split[0], split[1]

    def variants(self, seg: _Segment, stage: str, ex_inputs: dict[str, Given], tokens: list[str] | None,
                 key_tokens: list[str] | None, conv: dict[str, Choice], notes: list[Note]) -> None:
        """The variants the page states (positions, score, ALiBi, key/value heads), each kept only
        when the draft still derives with it (a page that names Bahdanau but prints no v_a)."""
        lines = self.page.lines
        found = variant_evidence(lines[max(0, seg.first - 30): seg.last + 1]) or \
            variant_evidence(lines[: seg.last + 1])
        # a positions scheme explained in prose in another section (a section on positional encodings) is not
        # this example's input: it counts when said in the example's own section or added by the page's code
        before = lines[: seg.last + 1]
        heads = [k for k in range(min(seg.first, len(lines) - 1), -1, -1) if lines[k].role == "heading"][:1]
        own = {e.family for e in variant_evidence(lines[heads[0] if heads else 0: seg.last + 1])} | {
            e.family for e in variant_evidence([ln for ln in before if ln.role == "code"])}
        found = [e for e in found if e.family not in ("rope", "sinusoidal") or e.family in own]
        if stage == "scores":  # the page starts from its scores: positions and score forms are behind it
            found = [e for e in found if e.key in ("alibi",)]
        by_family: dict[str, list] = {}
        for e in found:
            by_family.setdefault(e.family, []).append(e)
        for family, evs in by_family.items():
            if family == "gqa" and not (conv.get("heads") and conv["heads"].value > 1):
                continue  # key/value heads say nothing about one head
            trial = dict(conv)
            if family == "linear":  # linear attention has no scale: what the page says of one is not it
                trial.pop("scale", None)
            for e in evs:
                trial[e.key] = Choice(e.value, f"the page says so: {e.text!r}", where=e.where)
            try:
                derive(from_dict(self.spec_data(ex_inputs, tokens, key_tokens, trial), self.page.source).unfocused())
            except SymattnError as err:
                notes.append(Note("info", f"the page names {family} ({evs[0].text!r}) but its inputs do not "
                                          f"fit it ({_short(err)}); this draft leaves it out", evs[0].where))
                continue
            if family == "linear":
                conv.pop("scale", None)
            conv.update({k: v for k, v in trial.items() if k not in conv})
        named = any(e.key == "score" for e in found)
        self.score_inputs(ex_inputs, tokens, key_tokens, conv, notes, guess_score=not named)

    def score_inputs(self, ex_inputs: dict[str, Given], tokens: list[str] | None, key_tokens: list[str] | None,
                     conv: dict[str, Choice], notes: list[Note], guess_score: bool = True) -> None:
        """W_a, U_a, v_a printed on a page that does not name its score: the score they are the
        inputs of (all three: additive; W_a alone: Luong's general), else left out of the draft."""
        have = [k for k in SCORE_INPUT_NAMES if k in ex_inputs]
        if not have:
            return
        if "score" not in conv and guess_score:
            guess = "additive" if len(have) == 3 else "general" if have == ["Wa"] else None
            if guess is not None:
                trial = dict(conv, score=Choice(guess, f"the page prints {', '.join(have)}, the "
                                                f"input{'s' if len(have) > 1 else ''} of the {guess} score",
                                                assumed=True))
                try:
                    derive(from_dict(self.spec_data(ex_inputs, tokens, key_tokens, trial),
                                     self.page.source).unfocused())
                    conv["score"] = trial["score"]
                    return
                except SymattnError:
                    pass
        used = {"additive": SCORE_INPUT_NAMES, "general": ("Wa",)}.get(conv["score"].value if "score" in conv else "", ())
        for k in have:
            if k not in used:
                g = ex_inputs.pop(k)
                notes.append(Note("info", f"{k} is printed ({g.label.strip() or k}), but the score of this example "
                                          "does not use it; it is left out of the draft", g.where[0] if g.where else ""))

    def keep_mask_convention(self, seg: _Segment, ex_inputs: dict[str, Given], conv: dict[str, Choice]) -> None:
        """convention.mask from the segment's keep-mask: one row for every query, or the same row
        for each (a padding mask printed once, broadcast over the queries)."""
        km = seg.keep_mask or []
        q = ex_inputs.get("Q") or ex_inputs.get("X")
        n = len(q.rows) if q is not None else len(km)
        if len(km) == 1 and n > 1:
            km = [list(km[0]) for _ in range(n)]
        if len(km) == n:
            conv["mask"] = Choice([list(r) for r in km], "the 0/1 mask the page passes to its call (1 = attend)")

    def bias_convention(self, bias: Item, ex_inputs: dict[str, Given], conv: dict[str, Choice]) -> None:
        """convention.bias from an additive mask the page gives, when it is n_queries × n_keys."""
        q, k = ex_inputs.get("Q") or ex_inputs.get("X"), ex_inputs.get("K") or ex_inputs.get("X")
        if q is None or k is None or bias.shape != (len(q.rows), len(k.rows)):
            return
        conv["bias"] = Choice([[toml_value(x) for x in r] for r in bias.rows],
                              f"the additive mask the page gives ({bias.label.strip() or 'a matrix'}, {bias.at()})",
                              where=bias.at())

    def spec_data(self, ex_inputs: dict[str, Given], tokens: list[str] | None, key_tokens: list[str] | None,
                  conv: dict[str, Choice]) -> dict:
        d: dict[str, Any] = {"title": "import"}
        if tokens:
            d["tokens"] = tokens
        if key_tokens:
            d["key_tokens"] = key_tokens
        d["inputs"] = {k: [[toml_value(x) for x in r] for r in g.rows] for k, g in ex_inputs.items()}
        d["convention"] = {k: c.value for k, c in conv.items()}
        return d

    def title(self, index: int, first: int = 0) -> str:
        if index > 1:
            for k in range(min(first, len(self.page.lines) - 1), -1, -1):
                ln = self.page.lines[k]
                if ln.role == "heading" and ln.text.strip():
                    return _clean_title(ln.text)
        for ln in self.page.lines:
            if ln.role == "heading" and ln.text.strip() and not re.match(r"(step|part)\s*\d", ln.text.strip(), re.I) \
                    and not re.match(r"\S+://\S+$", ln.text.strip()):  # a link is no title
                return _clean_title(ln.text)
        if self.page.format == "text":
            first = next((ln.text.strip() for ln in self.page.lines if ln.text.strip()), "")
            if 3 <= len(first) <= 80 and re.search(r"[A-Za-z]{3}", first) and not re.search(r"[\[\]=|]", first) \
                    and not re.match(r"(step|part)\s*\d", first, re.I):
                return first
        name = re.sub(r"\.[A-Za-z]+$", "", self.page.source.split("/")[-1])
        return name if name and name not in ("<page>", "-", "<stdin>") else "Imported worked example"

    def claims_before_inputs(self, out: list[ImportedExample], skipped: list) -> list[ImportedExample]:
        """Claims-only examples for the part of the page before its first example with inputs, when that
        part works a demo from weights made in code and never printed (``rng.normal``) and prints its
        results: a course page with a random demo, then a solved exercise with vectors of its own. The
        part before is read alone, as a page that prints no inputs; what it places leaves the first
        example's list of what was not placed."""
        given = [e for e in out if e.inputs]
        if not given or not any(seg.hidden and seg.first < given[0].first_index and any(
                _numeric(c.rows) for c in seg.items) for seg, _ in skipped):
            return []
        cut = given[0].first_index
        lines = [ln if k < cut else replace(ln, text="") for k, ln in enumerate(self.page.lines)]
        part = replace(self.page, lines=lines, blocks=[b for b in self.page.blocks if b.end < cut])
        try:
            before = _Importer(part, collect(part)).run()
        except SymattnError:
            return []
        before = [e for e in before if not e.inputs and e.claims]
        placed = {c.where for e in before for c in e.claims}
        listed = {n.where for e in before for n in e.notes if n.kind == "unplaced"}
        for e in out:
            e.notes = [n for n in e.notes if not (n.kind == "unplaced" and (n.where in listed or any(
                n.where == w or n.where.startswith(w + "–") or n.where.startswith(w + "-") for w in placed)))]
        for e in before:
            e.title = re.sub(r"\s*\(example \d+ of \d+\)$", "", e.title)
        if before:
            given[0].title = self.title(2, given[0].first_index)  # no longer the page's first example
        return before

    def one_query_beside(self, out: list[ImportedExample]) -> list[ImportedExample]:
        """One query's steps named by its index (see :mod:`.importer_one_query`) that no example found on the
        page holds: drafts of their own, no longer listed as not placed in the others."""
        held = frozenset(part.split("–")[0].strip() for e in out for c in e.claims for part in str(c.where).split(";")) | \
            frozenset(str(w) for e in out for g in e.inputs.values() for w in g.where)
        more = one_query_steps(self, held, alone=False, before=out)
        now = {c.where for e in more for c in e.claims}
        for e in out if more else []:
            e.notes = [n for n in e.notes if not (n.kind == "unplaced" and n.where.split("–")[0] in now)]
        return more

    def run(self) -> list[ImportedExample]:
        self.twins: list[tuple[ImportedExample, ImportedExample]] = []
        inside = exercise_lines(self.page.lines)
        if inside:
            # an exercise's numbers are listed, not placed, and its words say nothing of the example
            drop_exercises(self.items, inside)
            self.page = replace(self.page, lines=[replace(ln, text="") if k in inside else ln
                                                  for k, ln in enumerate(self.page.lines)])
        self.vector_sums()
        self.stacked_vector_sums()
        self.componentwise_sums()
        sums = scalar_sum_items(self.page.lines, {it.line for it in self.items if it.kind == "vsum"})
        self.items = sorted(self.items + sums, key=lambda it: it.line) if sums else self.items  # '= 0.25 × 2 + …'
        self.same_line_chains()
        self.math_chains()
        self.cross_line_chains()
        toks = self.page_tokens() or _vector_tokens(self.items)
        if self.page.format == "text" and toks:
            self.glued_tables(toks)
        self.untangle_tokens()
        vocabulary_rows(self.items, self.page.lines)  # '- A = [1, 0]' … then X picks rows: a vocabulary
        self.group_tokens()
        layer_inputs(self.items, self.page.lines)  # 'MHA2 takes … as its inputs: "Jane" -> [..]': a new X
        self.group_indexed()
        self.items = _row_lines(self.items)
        self.items = _one_query_keys(self.items)
        self.attach_labels()
        x_by_projection(self.items, self.page.lines)  # Z = [..], then V1 = Z @ W_V1: Z is the embeddings
        printed_reassigned(self.items, self.page.lines)  # scores = scores.masked_fill(..); print(scores)
        self.items = split_equal_chains(self.items, self.page.lines)  # '= [0.04 + 0.08, …]' then '= [0.12, …]'
        self.items = split_fused(self.items, [ln.text for ln in self.page.lines if ln.role == "code"])
        sc = scale_evidence(self.page.lines)
        self.items = grid_examples(self.items, self.page.lines, scaled=sc is None or sc.value != "none")
        drop_outside_attention(self.items, self.page.lines)
        drop_later_layers(self.items, self.page.lines)
        name_projected_operand(self.items, self.page.lines)  # 'Q = tokens @ W_q': tokens is X
        set_logit_head_aside(self.items, self.page.lines)  # 'Logits = Context × WO': no W^O of attention
        set_token_ids_aside(self.items)  # '`input_ids` can be written as [[101, 52], …]': no X
        drop_unprojected_x(self.items, self.page.lines)
        commented_copies(self.items)
        scores_defined_scaled(self.items, self.page.lines)
        relabel_assigned_outputs(self.items, self.page.lines)  # attn = attn_weights @ V, then attn printed
        captioned_phrases(self.items)  # print("Scaled scores =") over the matrix: the scaled scores
        clause_named_vectors(self.items)  # '…, take the weights … to be `[0.42 0.42 0.16]`': the clause names it
        named_scaled_scores(self.items, self.page.lines)  # 'scores = Q × Kᵀ / √d_k', then 'scores =' [[…]]
        read_test_cases(self.items, self.page.lines)
        self.matvec_roles()
        _mask_rows(self.items)
        runs = indexed_scalar_runs(self.page.lines, self.items)  # 's_1 = … = 0.707 \qquad s_2 = 0 …': one row
        if runs:
            self.items = sorted(self.items + runs, key=lambda it: it.line)
        self.inline_masks()
        other_heads = self.other_head_blocks()
        segs = self.segments()
        out: list[ImportedExample] = []
        reasons: list[str] = []
        skipped: list[tuple[_Segment, str]] = []
        for seg in segs:
            if len(out) >= MAX_PAGE_EXAMPLES:
                raise LimitError(f"{self.page.source}: more than {MAX_PAGE_EXAMPLES} worked examples on one page "
                                 "(see the README's limits)")
            ex, why = self.example(seg, len(out) + 1)
            if ex is not None and not ex.claims and any(
                    set(e.inputs) == set(ex.inputs) and all(_same_values(e.inputs[k].rows, g.rows)
                                                            for k, g in ex.inputs.items()) for e in out):
                ex, why = None, "restates the inputs of an example above, with nothing new printed"
            if ex is None:
                if why and why != "no inputs":
                    reasons.append(why)
                skipped.append((seg, why if why != "no inputs" else
                                "part of a weighted average with weights the page writes outright (no query or "
                                "key makes them): a spec holds no inputs for it" if getattr(seg, "outright", False) else
                                "printed before the page gives the inputs of a worked example"))
                continue
            out.append(ex)
            for plain, masked in self.twins:  # worked with and without the mask: without first
                if ex is plain or ex is masked:
                    pair = (plain, masked)
                    out[-1:] = [t for k, t in enumerate(pair) if not _restates_only(t, pair[1 - k])]
            self.twins = [t for t in self.twins if ex not in t]
        for seg in self.fraction_segments(out):  # weights worked as softmaxes of scores no example has
            ex, _ = self.example(seg, len(out) + 1)
            if ex is not None and any(c.step == "weights" for c in ex.claims):
                out.append(ex)
        if not out:
            by_column = self.step_columns_table()
            if by_column is not None:
                return [by_column]
            only = self.printed_step_only()
            if only is not None:
                return [only]  # every number on the page is in it: nothing skipped to list
            by_token_columns = self.token_column_tables()
            if by_token_columns is not None:
                return [by_token_columns]
            grids = self.labelled_grids()
            if grids:
                return grids
            by_head = per_head_steps(self)
            if by_head is not None:
                return [by_head]  # each printed head's steps under its own number: claims only
            steps_only = self.named_steps_only() or elided_steps(self)
            if steps_only is not None:
                return [steps_only]
            by_values = self.steps_told_by_values()
            if by_values:
                return by_values
            self.second_by_columns = None
            by_index = self.rows_by_index_only()
            if by_index is not None:
                more = self.second_by_columns
                if more is None:
                    return [by_index]
                pair = [by_index, self.columns_example(by_index, *more)]
                for k, ex in enumerate(pair, 1):
                    ex.index, ex.count, ex.title = k, 2, f"{ex.title} (example {k} of 2)"
                return pair
            one = one_query_steps(self)
            if one:
                return one  # one query's steps under names with its index (omega_2, context_vec_2): claims only
            runs = claims_by_cell(self)
            if runs:
                return runs  # a notebook's runs, each cell's printed steps from inputs it never prints: claims only
        if not out and (alone := numbered(stacked_qk_products(self, []))):
            return alone  # only a batch of q, k and their products q·kᵀ: claims only
        if not out and (row := named_row_only(self)) is not None:
            return [row]  # 'Row 1 weights: … [..]' the only step printed: claims only
        if not out:
            lines_alone = [e for e in (self.softmax_line_example(seg) for seg, _ in skipped) if e is not None]
            for n, ex in enumerate(lines_alone, 1):  # 'softmax([1, 2, -inf]) = [..]' is all the page works
                ex.index, ex.count = n, len(lines_alone)
            if lines_alone:
                return lines_alone
            reasons.sort(key=lambda r: "makes its weights" not in r)
            extra = f" ({'; '.join(dict.fromkeys(reasons))})" if reasons else ""
            raise SymattnError(f"{self.page.source}: no worked example of attention found{extra}; looked for "
                               f"{LOOKED_FOR}")
        outright = [e for e in (self.outright_example(seg) or self.softmax_line_example(seg) for seg, _ in skipped)
                    if e is not None]
        # a part that prints X and W_q but never its key and value weights: what it prints of one query
        partial = {id(seg): e for seg, why in skipped if why.startswith("the page gives no W")
                   and (e := query_claims(self, seg, why)) is not None}
        outright += list(partial.values())
        for seg, why in skipped:
            if id(seg) in partial:
                continue  # its numbers are placed or listed in its own draft
            # what a part of the page that is not a worked example prints is listed, not dropped
            near = min(out + outright, key=lambda e: abs(e.first_index - seg.first))
            used = {(k, str(g.where[0])) for e in out for k, g in e.inputs.items()}
            extra = [i for k, i in seg.inputs.items() if (k, str(i.where[0])) not in used
                     and not any(str(i.where[0]) == w for _, w in used)]
            for it in seg.items + extra:
                if any(str(g.where[0]) == str(it.where[0]) and _same_values(g.rows, it.rows)
                       for e in out for g in e.inputs.values()):
                    continue  # an example's input, carried into this part of the page (a masked copy)
                same = _printed_before(near, it)
                if not same and restated_rounded(near, it):
                    continue  # the same step printed rounded by code with weights of its own
                if same:
                    near.notes.append(Note("repeat", f"prints {same} again, with the same numbers (from code whose "
                                                     "weights the page makes in code)", it.at()))
                    continue
                if _numeric(it.rows):
                    shown = ", ".join(", ".join(r) for r in it.rows[:2])
                    near.notes.append(Note("unplaced", f"[{shown[:77] + '…' if len(shown) > 80 else shown}] "
                                           f"({it.shape[0]}×{it.shape[1]}): {it.aside or why}", it.at()))
        out = _drop_bare_embeddings(out, [ln.text for ln in self.page.lines if ln.role == "code"])
        out = sorted(self.claims_before_inputs(out, skipped) + out, key=lambda e: e.first_index)
        for ex in self.attends_lists(out):
            out.append(ex)  # weights written one line a key, under each query: claims only
        out += [e for e in (self.other_head_example(it, h, out) for it, h in other_heads) if e is not None]
        out += self.indexed_entries(out)
        out += scaled_pairs(self, out)  # another example's raw and scaled scores, printed without inputs
        out += stacked_qk_products(self, out)  # a batch of q, k and their products q·kᵀ, no values: claims only
        outright += self.softmax_lines_unplaced(out)
        more = self.one_query_beside(out)
        if more:
            out = sorted(out + more, key=lambda e: e.first_index)
        if outright:
            out = sorted(out + outright, key=lambda e: e.first_index)
        out = drop_setup_steps(out)  # keys =, values =, then query =: the parts between print nothing
        max_restatements(out, self.page.lines)  # 'Unscaled max score: 1.8294003009796143': one entry again
        for n, ex in enumerate(out, 1):
            ex.index = n
            walked_first_head(self, ex)  # 'Scaled Scores (Batch 0, Head 0):' on a many-head page: head1's
        for ex in out:
            ex.count = len(out)
            if len(out) > 1:
                ex.title = f"{ex.title} (example {ex.index} of {len(out)})"
        return out


#: an item made of a keep-mask written inside an attention call's arguments
INLINE_MASK_NOTE = "a keep-mask written as the mask= argument of the call"


def _transposed_factor_gap(gap: str) -> bool:
    r"""Whether the text between two matrices of a product is a transpose sign on the first and an
    operator or '=' (``[K]^\\top = [R]``, ``[K]^T \\cdot [V]``).

    >>> _transposed_factor_gap("^\\top = "), _transposed_factor_gap("^T \\cdot"), _transposed_factor_gap("+")
    (True, True, False)
    """
    return bool(re.fullmatch(r"\s*\^\s*\{?\s*(?:\\top|T|⊤|\\intercal|\\mathsf\{T\})\s*\}?\s*(?:=|\\cdot|\\times|[×·*@])?\s*", gap))


def _product_stated_before(lines: list, first: int, name: str) -> str | None:
    """The product a line just before a display states for ``name`` (``$Q = EW_Q$ :``), or None.

    >>> from symattn.read.pages.model import Line, Where
    >>> ls = [Line("$Q = EW_Q$ :", Where(1)), Line("", Where(2)), Line("$$Q = ...$$", Where(3))]
    >>> _product_stated_before(ls, 2, "Q"), _product_stated_before(ls, 2, "K")
    ('EW_Q', None)
    """
    k = first - 1
    while k >= 0 and first - k <= 3 and not lines[k].text.strip():
        k -= 1
    if k < 0 or first - k > 3:
        return None
    m = re.fullmatch(rf"[\s*_]*\$\s*{re.escape(name)}\s*=\s*([^=$]{{1,40}}?)\s*\$\s*[:.]?[\s*_]*", lines[k].text)
    return m.group(1) if m else None


def _summand(ex: ImportedExample, code: list[str]) -> bool:
    """An example that is only an embedding matrix taken as Q = K = V, with nothing printed from it,
    whose name the page's code adds to another matrix to make a third (``x = emb + pos_enc``)."""
    q = ex.inputs.get("Q")
    if ex.claims or set(ex.inputs) != {"Q", "K", "V"} or q is None \
            or any(ex.inputs[k].rows != q.rows for k in ("K", "V")) or not re.fullmatch(r"[A-Za-z_]\w*", q.label):
        return False
    name = re.escape(q.label)
    rx = re.compile(rf"^\s*(\w+)\s*=\s*(?:\w+\s*\+\s*{name}|{name}\s*\+\s*\w+)\s*(?:#.*)?$")
    return any(m and m.group(1) != q.label for m in map(rx.match, code))


def _drop_bare_embeddings(out: list[ImportedExample], code: list[str]) -> list[ImportedExample]:
    """Where another example on the page places printed numbers, a matrix of embeddings that the
    code adds to another before attention (positional encodings added to the word embeddings), and
    that nothing printed follows from, is no example of its own: it is listed in the nearest example.

    >>> g = Given(rows=[["1", "0"]], where=["line 3"], label="pos")
    >>> bare = ImportedExample("t", "p", "markdown", 1, 2, None, None, {"Q": g, "K": g, "V": g}, {}, [], [])
    >>> full = ImportedExample("t", "p", "markdown", 2, 2, None, None, {"Q": g, "K": g, "V": g}, {},
    ...                        [ClaimRow("weights", "a", ["1"], "line 9")], [], first_index=9)
    >>> [e.index for e in _drop_bare_embeddings([bare, full], ["x = emb + pos"])], full.notes[0].text[:8]
    ([2], '[1, 0] (')
    >>> [e.index for e in _drop_bare_embeddings([bare, full], ["x = emb * pos"])]
    [1, 2]
    """
    if not any(e.claims for e in out):
        return out
    kept = [e for e in out if not _summand(e, code)]
    for e in out:
        if e in kept:
            continue
        near = min(kept, key=lambda k: abs(k.first_index - e.first_index))
        g = e.inputs["Q"]
        shown = ", ".join(", ".join(r) for r in g.rows[:2])
        near.notes.append(Note("unplaced", f"[{shown[:77] + '…' if len(shown) > 80 else shown}] "
                               f"({len(g.rows)}×{len(g.rows[0]) if g.rows else 0}): {g.label}, added to other "
                               "embeddings before attention; no printed step follows from it alone",
                               g.where[0] if g.where else ""))
    return kept


#: what stands between two matrices written side by side as a product (no '=', no comma)
_JUXTAPOSED = re.compile(r"(?:\\(?:cdot|times|left|right)|[\s×·*@()])*")


def _display_head(lines: list, first: int) -> str:
    """The text of a display before its first matrix (on the matrix's line and up to three math lines
    above), with its names plain: 'Q &= X W_q = ' of an aligned display."""
    top = first
    while top > 0 and first - top < 3 and lines[top - 1].role == "math" and "\\end" not in lines[top - 1].text:
        top -= 1
    head = plain_names(" ".join(lines[x].text for x in range(top, first + 1))).split("\\begin{")[0]
    head = re.sub(r"\\(?:left|right)\s*[(\[]?|\\begin\{(?:align|equation|gather)\*?\}", " ", head)
    return head.replace("&", " ")  # an aligned display: 'Q &= X W_q = …'


_SOFTMAX_ARG_RE = re.compile(r"softmax\(\s*([A-Za-z_]\w*)\b(?!\s*[(\[.@*/+-])")
_MASKED_FROM_RE = re.compile(r"^\s*([A-Za-z_]\w*)\s*=\s*([A-Za-z_]\w*)\.masked_fill\(")
_PRODUCT_RE = re.compile(r"@|\b(?:matmul|bmm|einsum|mm|dot)\(")


def _root_of_other_width(lines: list, region: list, stage: str, inputs: dict[str, Item], given: dict[str, Item],
                         conv: dict[str, Choice]) -> Choice | None:
    """The scale when the code divides the scores by the square root of a whole number it sets
    (``head_dim = C // n_heads``, set anywhere above; the division within the example's part of the
    page) that is not the key width the example's own shapes give (Q's width over the heads):
    1/sqrt(that number), as the code computes. None when they agree."""
    sc = conv.get("scale")
    if stage not in ("x", "qkv") or sc is None or sc.value != "1/sqrt(d_k)":
        return None
    found = root_divisor(lines, region)
    if found is None:
        return None
    name, value, where = found
    if stage == "qkv" and "Q" in given:
        width = given["Q"].shape[1]
    elif "Wq" in inputs:
        lay = conv.get("layout")
        width = inputs["Wq"].shape[0 if lay is not None and lay.value == "torch" else 1]
    else:
        return None
    h = conv["heads"].value if "heads" in conv else 1
    if not isinstance(h, int) or h < 1 or width % h or width // h == value:
        return None
    return Choice(f"1/sqrt({value})", f"the page's code divides the scores by the square root of {name} = {value} "
                  f"(not the key width {width // h})", where=where)


def _heads_project_qkv(per_head: int, ws: dict[str, Item], q: Item) -> bool:
    """Each head's weights given (joined into Wq) with no embeddings, beside a printed Q as wide as
    those weights are tall: the page multiplies its Q, K and V by each head's weights (the paper's
    MultiHead(Q, K, V)), so the printed Q is what the weights take, not the queries they make."""
    wq = ws.get("Wq")
    return bool(per_head) and wq is not None and wq.shape[0] == q.shape[1]


_QK_SHAPE_RE = re.compile(r"(?<![\w.])(?:Q|K|q|k|queries|keys|query|key)(?:\.shape|\s+shape|\.size\(\))\s*[:=]?\s*"
                          r"(?:\(|torch\.Size\(|\[)\s*\d")


def _shapes_only(lines: list, items: list[Item]) -> bool:
    """Whether a page prints the shapes of Q and K ('Q shape: (1, 3, 4), K shape: (1, 3, 4)') and none
    of their values: its scores come from inputs it never prints.

    >>> from symattn.read.pages.model import Line, Where
    >>> _shapes_only([Line("Q shape: (1, 3, 4), K shape: (1, 3, 4)", Where(2))], [])
    True
    >>> _shapes_only([Line("Q shape: (1, 3, 4)", Where(2))], []), _shapes_only([Line("Q = [[1, 2]]", Where(2))], [])
    (False, False)
    """
    text = "\n".join(ln.text for ln in lines)
    said = {m.group(0).lstrip()[0].lower() for m in _QK_SHAPE_RE.finditer(text)}
    if said != {"q", "k"}:
        return False
    return not any(it.step in ("X", "Q", "K") and it.strength >= 2 and it.kind == "matrix" and _numeric(it.rows)
                   for it in items)


#: a label saying a softmax was taken of the scores as they are: 'softmax over raw scores', 'unscaled weights'
_SOFTMAX_OF_RAW_RE = re.compile(r"\b(?:raw|unscaled|un-scaled|naive|without\s+(?:the\s+)?scal\w*|before\s+scal\w*|"
                          r"no\s+scal\w*)\b", re.I)


_STATES_RE = re.compile(r"^\s*(?:h(?:_?\{?\w{1,3}\}?)?|hs|hidden|states?|annotations?|encoder)\b|hidden\s+states?|"
                        r"encoder\s+(?:hidden\s+)?(?:states?|outputs?)", re.I)


def _states_after_scores(cur: "_Segment", name: str, it: Item, lines: list | None = None) -> bool:
    """Whether ``it``, hidden states (``h_1 = [1, 0, 1]`` …, "the encoder's hidden states") given after a
    segment that starts from printed scores with no inputs, is one state per key of those scores: the
    values the weights average into a context vector (an encoder-decoder step), part of that example.

    >>> seg = _Segment(items=[Item([["2.0", "0.5", "-1.0"]], [], 1, 1, "vector", step="scores", strength=2)])
    >>> h = Item([["1", "0"], ["0", "1"], ["1", "1"]], [], 3, 5, "matrix", step="X", strength=3, label="h_1")
    >>> _states_after_scores(seg, "X", h), _states_after_scores(seg, "X", Item(h.rows[:2], [], 3, 4, label="h_1"))
    (True, False)
    """
    said = [it.label or ""] + ([lines[it.line].text.split("=")[0]] if lines and it.line < len(lines) else [])
    if name != "X" or it.kind != "matrix" or not any(_STATES_RE.search(t) for t in said):
        return False
    s = next((c for c in cur.items if c.step == "scores" and c.strength >= 2 and c.kind in ("vector", "matrix")
              and _numeric(c.rows)), None)
    return s is not None and s.shape[1] == it.shape[0] and not any(
        c.step in ("Q", "K", "V", "X") and c.strength >= 2 for c in cur.items)


def _dot_factors(items: list[Item], x: Item) -> tuple[Item, Item] | None:
    """The query and the keys of one query's scores written out as dot products, one line per key in key
    order (``score(sat, cat) = [0, 1] · [0.5, 0] = 0``), when they are not rows of the embeddings X (the page
    works projections it never prints as matrices): (Q, K) as items, else None. One query vector for every
    line, as many distinct keys as X has rows, each as wide as X's rows.

    >>> from symattn.read.pages.model import Where
    >>> def dot(a, b, line): it = Item([["0"]], [Where(line)], line, line, "scalar", step="scores"); it.dot = (a, b); return it
    >>> x = Item([["1", "0"], ["0", "1"], ["1", "1"]], [], 0, 2, "matrix", step="X")
    >>> q, k = _dot_factors([dot(["0", "1"], ["0.5", "0"], 5), dot(["0", "1"], ["0", "0.5"], 6),
    ...                      dot(["0", "1"], ["0.5", "0.5"], 7)], x)
    >>> q.rows, k.rows
    ([['0', '1']], [['0.5', '0'], ['0', '0.5'], ['0.5', '0.5']])
    >>> _dot_factors([dot(["0", "1"], ["1", "0"], 5), dot(["0", "1"], ["0", "1"], 6), dot(["0", "1"], ["1", "1"], 7)], x)
    """
    dots = sorted((it for it in items if it.dot is not None), key=lambda it: it.line)
    n, d = x.shape
    if len(dots) != n or len({tuple(it.dot[0]) for it in dots}) != 1:  # type: ignore[index]
        return None
    a = dots[0].dot[0]  # type: ignore[index]
    keys = [it.dot[1] for it in dots]  # type: ignore[index]
    if len(a) != d or any(len(b) != d for b in keys) or len({tuple(b) for b in keys}) != n:
        return None
    if all(any(_same_values([b], [r]) for r in x.rows) for b in keys + [a]):
        return None  # the rows of X themselves: Q = K = X reads them
    q = Item(rows=[list(a)], where=[dots[0].where[0]], line=dots[0].line, end=dots[0].line, kind="matrix", step="Q",
             strength=2, label="the query of the dot products written out", role=dots[0].role)
    k = Item(rows=[list(b) for b in keys], where=[it.where[0] for it in dots], line=dots[0].line, end=dots[-1].line,
             kind="matrix", step="K", strength=2, label="the keys of the dot products written out", role=dots[0].role)
    return q, k


def _fresh_scores(cur: "_Segment", it: Item) -> bool:
    """Whether ``it`` is a second matrix of raw scores, named as such, other numbers than the scores the
    segment began with and worked to weights, in a segment with no inputs (it starts from its scores)."""
    if cur.inputs or cur.hidden or it.step != "scores" or it.strength < 2 or it.kind != "matrix" or \
            not _numeric(it.rows):
        return False
    first = next((c for c in cur.items if c.step == "scores" and c.strength >= 2 and c.kind == "matrix"), None)
    if first is None or first.shape != it.shape or _same_values(first.rows, it.rows):
        return False
    return any(c.step in ("weights", "output") and c.line > first.line and c.kind == "matrix" for c in cur.items)


_PROJECTED_RE = re.compile(r"(?<![\w\\])([QKV])\s*=\s*X\s*(?:\\cdot|\\times|[·×*@])?\s*W_?\^?\{?([QKVqkv])\}?(?![\w{])")


def _projected_unprinted(lines: list, items: list[Item]) -> dict[str, str]:
    """The projections the page writes as X times a weight (``Q = XW_Q``, ``V = X \\cdot W^V``) whose weight it
    never prints (no block names it): {'Q': the text, …}. Those of Q, K, V are then made from numbers the page
    does not give: X is not V, and QKᵀ printed is a result, not an input."""
    printed = {it.step for it in items if it.step in ("Wq", "Wk", "Wv") and it.kind == "matrix"}
    out: dict[str, str] = {}
    for ln in lines:
        for m in _PROJECTED_RE.finditer(plain_names(ln.text)):
            if m.group(1) == m.group(2).upper() and f"W{m.group(1).lower()}" not in printed:
                out.setdefault(m.group(1), m.group(0))
    return out


_D_K_STATED = re.compile(r"(?<![\w\\])d_\{?k\}?\s*=\s*(\d{1,5})(?![\d.,]\d)")


def _d_k_stated(lines: list) -> tuple[int, str, bool] | None:
    r"""d_k as the page's text states it ('if \\( d_k = 64 \\), √64 = 8'), when it states one value only (its
    code is read elsewhere): (value, why, False), or None.

    >>> from symattn.read.pages.model import Line, Where
    >>> _d_k_stated([Line("Örneğin \\( d_k = 64 \\) ise, √64 = 8 olur.", Where(3), "prose")])[0]
    64
    >>> _d_k_stated([Line("d_k = 4 here, d_k = 8 there", Where(3), "prose")]) is None
    True
    """
    found = {(int(m.group(1)), ln.text.strip()) for ln in lines if ln.role != "code"
             for m in _D_K_STATED.finditer(ln.text)}
    values = {v for v, _ in found}
    if len(values) != 1 or not 1 <= min(values) <= MAX_DIM:
        return None
    v, text = min(found)
    return v, f"the page says so: {text[:80]!r}", False


def _named_query_row(claims: list[ClaimRow], scores: Item) -> list[ClaimRow]:
    """One query's scores from random inputs, named with the query's index (``omega_2``, ``attn_scores_2``)
    and no tokens: every claim of the file is that query's row, not the first one's (when every claim is
    row 1 and no block is named with another index)."""
    r = scores.row_index
    if r is None or r < 2 or scores.shape[0] != 1 or any(c.row != "1" for c in claims):
        return claims
    return [replace(c, row=str(r)) for c in claims]


def _qkv_after_worked_x(cur: "_Segment", name: str, it: Item) -> bool:
    """Q, K or V written in code after an example that gave only embeddings X (no weights, none made
    in code) and already printed weights or outputs worked on them (a weighted average of the word
    vectors): the page starts a second example, which does not inherit X's work."""
    return (name in ("Q", "K", "V") and it.strength == 3 and set(cur.inputs) == {"X"} and not cur.hidden
            and any(c.step in ("weights", "output") and c.strength >= 2 and c.numbers and c.line > cur.inputs["X"].end
                    for c in cur.items))


_OTHER_BLOCK_RE = re.compile(r"feed[\s-]*forward|\bFFN\b|\bMLP\b|layer[\s-]*norm|add\s*(?:&|and|\\&)\s*norm|"
                             r"greedy\s+decoding|beam\s+search|"
                             r"\bloss\b", re.I)
_ATTENTION_WORD_RE = re.compile(r"attention|attn|soft-?max|quer|\bkeys?\b|\bvalues?\b|\bQ\b|\bK\b|\bV\b", re.I)


def _other_block(lines: list, k: int, above: list[int] | None = None) -> str | None:
    """The heading a line is under when that heading names another part of a transformer than
    attention (feed-forward, layer norm, add & norm, decoding, the loss) and no part of attention;
    None otherwise (no heading above, or one about attention). Positional encodings are not among
    them: the embeddings with positions added are often the example's X. (Gradients under a loss
    heading are read as before: the caller skips items that name a gradient.)

    >>> from types import SimpleNamespace as L
    >>> page = [L(role="heading", text="5. **FeedForward Block**"), L(role="prose", text="x")]
    >>> _other_block(page, 1), _other_block([L(role="heading", text="Attention and FFN")] + page[1:], 1)
    ('5. **FeedForward Block**', None)
    """
    j = (above if above is not None else headings_above(lines))[k]
    if j < 0:
        return None
    t = lines[j].text.strip()
    return t if _OTHER_BLOCK_RE.search(t) and not _ATTENTION_WORD_RE.search(t) else None


def headings_above(lines: list) -> list[int]:
    """For each line, the index of the nearest non-empty heading above it (-1: none), in one pass.

    >>> from types import SimpleNamespace as L
    >>> headings_above([L(role="prose", text="a"), L(role="heading", text="B"), L(role="prose", text="c"),
    ...                 L(role="heading", text=" "), L(role="prose", text="d")])
    [-1, -1, 1, 1, 1]
    """
    out, last = [], -1
    for j, ln in enumerate(lines):
        out.append(last)
        if ln.role == "heading" and ln.text.strip():
            last = j
    return out


def _printed_projections(items: list[Item], printed: tuple) -> tuple[Item, Item, Item] | None:
    """Q, K and V each printed as the result of a product with a projection weight written out
    (``Q_1 = Q × W_Q^T = [..] × [..] = [..]``), all of one head, whose first factor is the Q, K or V the
    page printed before (``printed``): those results, in the order Q, K, V; None otherwise."""
    out = []
    for name, first in zip(("Q", "K", "V"), printed):
        res = next((c for c in items if c.step == name and c.kind == "matrix" and c.chain_of and _numeric(c.rows)
                    and any(o.step in WEIGHT_NAMES for o in c.chain_of)), None)
        if res is None or first is None or res is first:
            return None
        if not any(_same_values(o.rows, first.rows) for o in res.chain_of):
            return None
        out.append(res)
    if len({c.head for c in out}) != 1 or out[0].head not in (None, 1):
        return None
    return out[0], out[1], out[2]


def _carried_only(cur: "_Segment", it: Item) -> bool:
    """Whether every input of ``cur`` was carried over from the example before it (printed before
    the segment starts: a masked copy), nothing is worked in it yet, and ``it`` gives an input with
    numbers none of them has: the page gives this example inputs of its own."""
    worked = ("scores", "scaled", "masked", "weights", "weighted", "output")
    return cur.masked and bool(cur.inputs) and all(v.line < cur.first for v in cur.inputs.values()) \
        and not any(c.step in worked and c.numbers for c in cur.items) \
        and not any(_same_values(v.rows, it.rows) for v in cur.inputs.values())


def _given_after_hidden_work(cur: "_Segment", it: Item, lines: list) -> bool:
    """Whether ``it`` gives Q, K, V (or X) afresh for another example: the segment so far works from
    weights made in code and never printed (a random demo), printed its results (scores, weights or an
    output), and a heading stands between that work and ``it`` (a solved exercise with its own
    vectors). Such inputs cannot be the demo's: the demo's inputs are the unprinted random ones.

    >>> from types import SimpleNamespace as L
    >>> w = L(step="weights", rows=[["0.4", "0.6"]], end=1, line=1)
    >>> cur = L(hidden=[(0, "Wq", "Wq = rng.normal(0, 1, (4, 4))")], inputs={}, items=[w])
    >>> k = L(step="K", rows=[["1", "0"]], line=3, role="prose")
    >>> page = [L(role="code", text=""), L(role="output", text=""), L(role="heading", text="Exercise 2"),
    ...         L(role="prose", text="")]
    >>> _given_after_hidden_work(cur, k, page), _given_after_hidden_work(cur, k, page[:2] + page[3:] + page[3:])
    (True, False)
    """
    if not cur.hidden or cur.inputs or it.step not in ("X", "Q", "K", "V") or it.role not in ("prose", "math") \
            or not _numeric(it.rows):  # (Q printed by the demo's code, a printout, is the demo's)
        return False
    worked = [c.end for c in cur.items if c.line < it.line and _numeric(c.rows)
              and c.step in ("scores", "scaled", "masked", "weights", "output")]
    return bool(worked) and any(lines[k].role == "heading" for k in range(max(worked) + 1, it.line))


def _row_assigned(cur: "_Segment", it: Item, name: str) -> Item | None:
    """The input ``name`` with one row replaced, when ``it`` is code that assigns that row of the matrix
    given before (``Q[3] = [0., 1.]``: Python's index, from 0, -1 the last): the page changes one row and
    works the example again. None for anything else (a row of another width, an index out of range).

    >>> from symattn.read.pages.model import Where
    >>> q = Item([["1", "0"], ["0", "1"]], [Where(1), Where(1)], 0, 0, role="code", step="Q", strength=3)
    >>> row = Item([["0.", "2."]], [Where(5)], 4, 4, kind="vector", label="Q[-1]", role="code", step="Q", strength=3)
    >>> from types import SimpleNamespace as S
    >>> _row_assigned(S(inputs={"Q": q}), row, "Q").rows, _row_assigned(S(inputs={"Q": q}), replace(row, label="Q[2]"), "Q")
    ([['1', '0'], ['0.', '2.']], None)
    """
    m = re.fullmatch(r"\s*([A-Za-z_]\w*)\[\s*(-?\d{1,3})\s*\]\s*", it.label or "")
    old = cur.inputs.get(name) if cur is not None else None
    if m is None or old is None or it.role != "code" or it.kind != "vector" or old.kind != "matrix" \
            or len(it.rows) != 1 or len(it.rows[0]) != old.shape[1] or step_of_ident(m.group(1)) != name:
        return None
    n, k = old.shape[0], int(m.group(2))
    if not -n <= k < n:
        return None
    k %= n
    rows = [list(r) for r in old.rows]
    rows[k] = list(it.rows[0])
    where = list(old.where) if len(old.where) == n else [old.where[0]] * n
    where[k] = it.where[0]
    return replace(old, rows=rows, where=where, line=it.line, end=it.end, label=it.label, before=it.before,
                   after=it.after)


def _x_unfit(cur: "_Segment", x: Item) -> bool:
    """Whether embeddings ``x`` arrive after projection weights that none of them can multiply
    (X·W needs W's rows, X·Wᵀ its columns, to be X's width) and after this example's steps were
    worked: they belong to another computation."""
    ws = [cur.inputs[w] for w in WEIGHT_NAMES if w in cur.inputs and cur.inputs[w].line < x.line]
    worked = ("scores", "scaled", "masked", "weights", "output")
    return bool(ws) and "X" not in cur.inputs and x.kind == "matrix" \
        and all(x.shape[1] not in w.shape for w in ws) \
        and any(c.step in worked and c.numbers for c in cur.items)


def _carried_unfit(cur: "_Segment", w: Item) -> bool:
    """Whether ``cur`` carries embeddings X from an example before it (printed before the segment
    starts) that a projection weight ``w`` given now cannot multiply in either layout (X·W needs W's
    rows, X·Wᵀ its columns, to be X's width)."""
    x = cur.inputs.get("X")
    if x is None or x.line >= cur.first or w.kind != "matrix":
        return False
    return x.shape[1] not in w.shape


def _elided_columns(rows: list[list[str]]) -> bool:
    """Whether every row of a printed matrix ends in a placeholder after numbers (``[0.21, -0.34,
    0.56, ...]`` for a 512-wide embedding): its columns past the first few are not printed."""
    return bool(rows) and all(len(r) >= 2 and entry_kind(r[-1]) == "placeholder" and entry_kind(r[0]) == "number"
                              for r in rows)


def _late_output_projection(cur: "_Segment", it: Item, lines: list) -> bool:
    """Whether a W^O printed at ``it`` comes after ``cur`` printed its attention output, with a
    heading between that output and it: a later section (Add & Norm, "Suppose W^O = …") works
    something else with it, so it is no input of the example whose output came first. A W^O
    printed in the same section as the output (heads, then their projection) is not."""
    outs = [c.end for c in cur.items if c.step == "output" and c.strength >= 2 and c.line < it.line
            and c.head is None and _numeric(c.rows)]
    return bool(outs) and any(lines[k].role == "heading" for k in range(max(outs) + 1, it.line))


def _weights_given_outright(seg: "_Segment") -> None:
    """A part that gives word vectors and then writes its attention weights as a literal in code
    (``attention_weights = torch.tensor([0.1, 0.3, 0.6])``) averages the vectors with weights it
    chose: no query or key makes them, so its X is not Q = K = V. Its weights and output are drafted as
    claims only (:meth:`_Importer.outright_example`); its other numbers are listed with that reason."""
    if any(c.step == "weights" and c.role == "code" and c.strength == 3 and c.numbers for c in seg.items):
        seg.items = [seg.inputs.pop("X")] + seg.items
        seg.outright = True  # type: ignore[attr-defined]


def _scores_literal_root(lines: list) -> str | None:
    """The name of the scores a page's attention code starts from, when they are written in the code
    as numbers (``scores = torch.tensor([[…]])``, then ``masked = scores.masked_fill(…)`` and
    ``softmax(masked)``) and the code multiplies nothing (no Q·Kᵀ): None otherwise."""
    code = [ln.text for ln in lines if ln.role == "code"]
    if any(_PRODUCT_RE.search(t) for t in code):
        return None
    source = {m.group(1): m.group(2) for m in (_MASKED_FROM_RE.search(t) for t in code) if m}
    for t in code:
        for m in _SOFTMAX_ARG_RE.finditer(t):
            name, seen = m.group(1), set()
            while name in source and name not in seen:
                seen.add(name)
                name = source[name]
            lit = re.compile(rf"^\s*{re.escape(name)}\s*=\s*(?:torch\.tensor|torch\.Tensor|np\.array|numpy\.array|"
                             r"jnp\.array|tf\.constant)\(\s*\[\s*\[")
            if any(lit.search(c) for c in code):
                return name
    return None


def _weights_given(inputs: dict, name: str) -> bool:
    """Whether a segment already has weights ``name`` (Wq, or one head's Wq#2) as a matrix of several rows."""
    return name in WEIGHT_NAMES and any(k.split("#")[0] == name and v.shape[0] > 1 for k, v in inputs.items())


def _wo_out_by_in(wo: Item | None, x: Item | None, heads: int, r: int, c: int) -> bool:
    """Whether square per-head weights (d_model × d_model, written X @ W_h) come with an output projection
    printed out × in: d_model × (heads · d_model), which multiplies the joined heads only in the torch
    layout (the row layout needs it (heads · d_model) × d_model)."""
    if wo is None or x is None or heads < 2 or r != c or r != x.shape[1]:
        return False
    return wo.shape == (x.shape[1], heads * c)


def _clean_title(text: str) -> str:
    t = text.replace("``", "“").replace("''", "”")
    return re.sub(r"[*_`#]+", "", t).strip()[:200]


def _printed_before(ex: ImportedExample, it: Item) -> str | None:
    """The step of ``ex`` whose main claims print exactly these rows (a later part of the page
    that reproduces them with weights it does not print)."""
    if it.shape[0] < 1 or not _numeric(it.rows):
        return None
    by_step: dict[str, list[list[str]]] = {}
    for c in ex.claims:
        if c.group is None and c.key is None and not c.step.endswith("_sum"):
            by_step.setdefault(c.step, []).append(c.values)
    for step, rows in by_step.items():
        if len(rows) == len(it.rows) and all(len(a) == len(b) and all(_eq(x, y) for x, y in zip(a, b))
                                             for a, b in zip(rows, it.rows)):
            return step
    return None


def _short(e: SymattnError) -> str:
    """An error's message without the file name in front (the notes already say where)."""
    if isinstance(e, SpecError):
        return f"{e.field}: {e.message}" if e.field else e.message
    return str(e)


def _fmt(x: float) -> str:
    return f"{x:.6g}"


def _dot(a: list[float], b: list[float]) -> float:
    return sum(u * v for u, v in zip(a, b))


def _unique(tokens: list[str] | None, notes: list[Note]) -> list[str] | None:
    if not tokens:
        return tokens
    seen: dict[str, int] = {}
    out = []
    for t in tokens:
        seen[t] = seen.get(t, 0) + 1
        out.append(t if seen[t] == 1 else f"{t} ({seen[t]})")
    if out != tokens:
        notes.append(Note("info", "tokens that repeat are numbered so that each names one row: "
                                  + ", ".join(t for t in out if t not in tokens)))
    return out


def _vector_tokens(items: list[Item]) -> list[str] | None:
    toks = [it.token for it in items if it.kind == "vector" and it.token]
    return toks if len(toks) >= 2 else None


def _split_header(text: str, lower: list[str]) -> list[int] | None:
    """A header of words run together ('Wordthequickbrownfox…') as indices into the tokens."""
    s = text.lower().replace(" ", "")
    if len(s) > 400 or len(s) < 4:
        return None
    for prefix in ("word", "words", "token", "tokens", "query", "key", ""):
        if not s.startswith(prefix):
            continue
        rest = s[len(prefix):]
        found = _split_words(rest, lower)
        if found and len(found) >= 2:
            return found
    return None


def _split_words(s: str, lower: list[str]) -> list[int] | None:
    """Split ``s`` into a sequence of tokens, preferring the tokens' own order."""
    memo: dict[tuple[int, int], list[int] | None] = {}

    def go(pos: int, nxt: int) -> list[int] | None:
        if pos == len(s):
            return []
        key = (pos, nxt)
        if key in memo:
            return memo[key]
        order = list(range(nxt, len(lower))) + list(range(0, nxt))
        res = None
        for i in order:
            t = lower[i]
            if t and s.startswith(t, pos):
                rest = go(pos + len(t), (i + 1) % len(lower))
                if rest is not None:
                    res = [i] + rest
                    break
        memo[key] = res
        return res

    return go(0, 0)


def _split_count(text: str, n: int) -> list[str] | None:
    for k in range(n, 0, -1):
        parts = split_glued(text, k)
        if parts is not None:
            return parts
    return None


def _context_text(lines: list, k: int) -> str:
    for j in range(k - 1, max(-1, k - 8), -1):
        t = lines[j].text.strip()
        if t and step_of_text(t[-160:]):
            return t
    return ""


# ---------------------------------------------------------------------------------------
# placing printed numbers into steps


_HEADS_WORDS = re.compile(r"multi-?\s*head|\b(?:num|n)_?heads?\b|\bhead_?\s*\d|\bheads\b|\bper[- ]head\b", re.I)


def _stack_of_heads(it: Item, lines: list, seg: _Segment) -> bool:
    """Whether a printed stack of matrices is one per attention head: its name says so, or the
    page speaks of heads. A stack named as the weighted values (``weighted_values``: keys ×
    queries × d) is the weighted step, one block per key or query, not heads."""
    if re.search(r"head", it.label or "", re.I):
        return True
    if it.step == "weighted":
        return False
    return any(_HEADS_WORDS.search(ln.text) for ln in lines[: seg.last + 1])


def _without_weights(x: Item, items: list[Item]) -> bool:
    """Whether some printed step follows from the embeddings alone (Q = K = V = X, scaled or
    not): work done without projection weights. A module's output printed before the page
    prints the module's weights does not."""
    xs = _rows_float(x.rows)
    if xs is None:
        return True
    n, d = len(xs), len(xs[0])
    for scale in (1.0, 1 / math.sqrt(d)):
        s = [[_dot(a, b) * scale for b in xs] for a in xs]
        w = []
        for row in s:
            m = max(row)
            e = [math.exp(v - m) for v in row]
            w.append([v / sum(e) for v in e])
        o = [[sum(w[i][j] * xs[j][k] for j in range(n)) for k in range(d)] for i in range(n)]
        for it in items:
            ref = {"scores": [[v / scale for v in r] for r in s], "scaled": s, "weights": w, "output": o}.get(it.step or "")
            if ref is None or it.shape != (len(ref), len(ref[0])):
                continue
            pairs = [(t, ref[i][j]) for i, r in enumerate(it.rows) for j, t in enumerate(r) if _num(t) is not None]
            if pairs and sum(_close(t, v) for t, v in pairs) >= 0.75 * len(pairs):
                return True
    return False


_MATVEC = re.compile(r"\b(?:matmul|dot|mv|mm)\(\s*([A-Za-z_]\w*)\s*,\s*([A-Za-z_]\w*)\s*\)|"
                     r"\b([A-Za-z_]\w*)\s*@\s*([A-Za-z_]\w*)\b(?!\s*[.(\[])")


_PROJECTED = {"Q": "Wq", "K": "Wk", "V": "Wv"}


def _restated_transposed(items: list[Item], it: Item) -> bool:
    """Whether a matrix printed before (at least 3×3) holds the given input's numbers transposed, as a
    solution that works with the keys as columns (a matrix with a transpose sign) does before its code."""
    if it.kind != "matrix" or min(it.shape) < 3 or not _numeric(it.rows):
        return False
    cols = [list(c) for c in zip(*it.rows)]
    return any(c.kind == "matrix" and c.shape == (it.shape[1], it.shape[0]) and _same_values(c.rows, cols)
               for c in items)


def _additive_mask(it: Item) -> bool:
    """A square-or-not matrix of zeros and large negative numbers (≤ -10⁴, or -inf), both present: an
    additive mask (``[[0, 0], [-1e9, 0]]``), unless it is the causal one (read as mask = causal).

    >>> _additive_mask(Item(rows=[["0", "0"], ["-1e9", "0"]], where=[], line=0, end=0))
    True
    >>> _additive_mask(Item(rows=[["0", "-0.5"], ["-1e9", "0"]], where=[], line=0, end=0))
    False
    """
    if it.kind != "matrix" or _mask_kind(it.rows):
        return False
    zero = neg = False
    for r in it.rows:
        for x in r:
            kind = entry_kind(x)
            if kind == "inf" and x.strip().startswith("-"):
                neg = True
                continue
            v = _num(x) if kind == "number" else None
            if v is None:
                return False
            if v == 0:
                zero = True
            elif v <= -1e4:
                neg = True
            else:
                return False
    return zero and neg


def _block_of(whole: list[list[str]], piece: list[list[str]]) -> bool:
    """Whether ``piece`` is a block of ``whole``'s columns (all its rows) or of its rows (all its
    columns), strictly smaller: one head's part split off a concatenated weight matrix.

    >>> _block_of([["1", "0", "0", "1"], ["0", "1", "1", "0"]], [["0", "1"], ["1", "0"]])
    True
    >>> _block_of([["1", "0"], ["0", "1"]], [["1", "0"], ["0", "1"]])  # the same shape: no block
    False
    """
    if not whole or not piece or not whole[0] or not piece[0]:
        return False
    r, c = len(whole), len(whole[0])
    pr, pc = len(piece), len(piece[0])
    if pr == r and pc < c:
        return any(_same_values([row[j:j + pc] for row in whole], piece) for j in range(0, c - pc + 1))
    if pc == c and pr < r:
        return any(_same_values(whole[i:i + pr], piece) for i in range(0, r - pr + 1))
    return False


def _mask_rows(items: list[Item]) -> None:
    """A causal mask drawn one row a line ("Position 0 sees: [0, -∞, -∞]", "[0, 0, -∞]", "[0, 0, 0]"):
    n vectors of n entries on n consecutive lines that together are a mask (:func:`_mask_kind`) are
    the mask, not n rows of a step; each is marked aside (listed with that reason). Rows of ones and
    zeros count only unnamed (a token's one-hot embedding is named).

    >>> rows = [Item(rows=[r], where=[], line=k, end=k, kind="vector") for k, r in
    ...         enumerate([["0", "-∞", "-∞"], ["0", "0", "-∞"], ["0", "0", "0"]])]
    >>> _mask_rows(rows); [bool(it.aside) for it in rows]
    [True, True, True]
    """
    k = 0
    while k < len(items):
        it = items[k]
        n = len(it.rows[0]) if it.kind == "vector" and it.rows else 0
        run = items[k: k + n]
        if n >= 2 and len(run) == n and all(
                r.kind == "vector" and len(r.rows[0]) == n and r.line == it.line + i and r.end == r.line
                and r.strength < 3 and not r.aside for i, r in enumerate(run)) and not any(
                    o.kind == "vector" and len(o.rows[0]) == n and o.line in (it.line - 1, it.line + n)
                    for o in items[max(0, k - 1): k] + items[k + n: k + n + 1]):  # n rows of n, no more
            kind = _mask_kind([r.rows[0] for r in run])
            if kind and kind != "zero and -∞" and any(r.step or r.strength or r.token for r in run):
                kind = ""  # rows of ones and zeros a page names (one-hot embeddings of tokens) are what it names
            if kind:
                for r in run:
                    r.aside = f"a row of the causal mask drawn one row a line ({kind}), not a step of the example"
                k += n
                continue
        k += 1


# ---------------------------------------------------------------------------------------
# the API


def import_examples(text: str, format: str | None = None, source: str = "<page>") -> list[ImportedExample]:
    """Every worked example on a page, each with its inputs, conventions, claims and notes.

    ``format`` is ``markdown``, ``html``, ``latex``, ``notebook`` or ``text`` (None: guessed
    from the text). A page with no recognisable worked example raises
    :class:`~symattn.errors.SymattnError` saying what was looked for.
    """
    page = read_page(text, format, source)
    try:
        out = _page_examples(page)
    except LimitError:
        raise
    except SymattnError as e:
        out = renumber(hand_walks(page, []), [])  # one query walked by hand with named vectors
        if not out:
            scripted = read_page(text, format, source, scripts=True)  # an HTML page computing in its scripts
            if scripted.format != "html" or not any(ln.role == "code" for ln in scripted.lines):
                raise e from None
            out = _page_examples(scripted)
    else:
        out = renumber(hand_walks(page, out), out)  # one query walked by hand with named vectors
    for ex in out:
        nan_rows_elided(ex)  # a query masked whole prints NaN weights: not printed numbers
        try:
            ex.spec = from_dict(ex.data(), source)
        except (SpecError, InputError) as e:  # pragma: no cover - the data was validated while placing
            raise SymattnError(f"{source}: the imported example {ex.index} does not validate: {e}") from None
    return out


def _page_examples(page: Page) -> list[ImportedExample]:
    col = collect(page)
    col = replace(col, items=keyed_vectors(mark_shapes_and_operands(col.items, page.lines), page.lines))
    # a 4-D printout (batch, heads, …) is read only on a page whose inputs are a batch; elsewhere it is skipped
    out = _batch_examples(page, col) or fold_rounded_twins(_Importer(page, replace(col, items=[
        it for it in col.items if it.outer == 1])).run())
    exp_checks(out, page.lines)  # 'np.exp(0.5596) / (np.exp(0.5596) + np.exp(0.0404))' then its value: one weight
    split = [sentences_of(ex, [w for w, _, _ in col.token_lists]) or [ex] for ex in out]
    if any(len(x) > 1 for x in split):  # a word-keyed table of embeddings and sentences indexing it
        out = [e for x in split for e in x]
        for n, ex in enumerate(out, 1):
            ex.index, ex.count = n, len(out)
    out = row_variants(out, page.lines)  # '::: worked title="Unmasked …"' with '- **Row 1.** …' bullets
    return heads_rerun(out, page.lines)  # 'Q_multi = split_heads(Q, 2)' after one head: worked again


def _batch_examples(page: Page, col: Collected) -> list[ImportedExample]:
    """A page printing a batch of inputs (see importer_batches): each batch item's examples, read one item at
    a time, numbered among themselves; [] when the page prints no batch or an item gives no example."""
    per = batch_items(col)
    if per is None:
        return []
    out: list[ImportedExample] = []
    for items in per:
        try:
            exs = fold_rounded_twins(_Importer(page, replace(col, items=items)).run())
        except LimitError:
            raise
        except SymattnError:
            return []
        if not any(e.inputs for e in exs):
            return []
        out += exs
        if len(out) > MAX_PAGE_EXAMPLES:  # checked as the items are read: a batch of thousands is refused early
            raise LimitError(f"{page.source}: more than {MAX_PAGE_EXAMPLES} worked examples on one page (a batch "
                             f"of {len(per)} items; see the README's limits)")
    return number_examples(out)


def import_page(text: str, format: str | None = None, example: int | None = None,
                source: str = "<page>") -> tuple[Spec, ImportNotes]:
    """A worked example read from a page's text: ``(spec, notes)``.

    ``notes`` says what was found where, what was assumed where the page is silent, and
    what could not be placed. With several examples on the page, ``example`` (1-based)
    picks one; without it the first is returned and ``notes.examples`` says how many there are.
    """
    exs = import_examples(text, format, source)
    if example is None:
        k = 1
    else:
        if isinstance(example, bool) or not isinstance(example, int) or not 1 <= example <= len(exs):
            raise SymattnError(f"{source}: example {example!r} is out of range: the page has {len(exs)} worked "
                               f"example{'s' if len(exs) != 1 else ''} (1..{len(exs)})")
        k = example
    ex = exs[k - 1]
    assert ex.spec is not None
    return ex.spec, ImportNotes(ex, len(exs))


def _restates_only(twin: ImportedExample, ex: ImportedExample) -> bool:
    """Whether a twin of an example (the same inputs worked with and without a mask) places nothing while the
    example places something: no claim, and inputs that are the example's numbers (it would only restate them)."""
    return not twin.claims and bool(ex.claims) and set(twin.inputs) == set(ex.inputs) and all(
        _same_values(ex.inputs[k].rows, g.rows) for k, g in twin.inputs.items())


def _table_columns(group: list) -> bool:
    """Blocks on one line that are the named columns of one table (Token | Q | K | V, each
    column of bracketed vectors its own matrix): side by side, not a product and its operands."""
    # (with an embedding column, Word | Embedding | Q | K | V, the columns are read as before: the
    # products are the inputs where the page prints no weights)
    return all(it.form == "table" and it.step and it.step not in INPUT_NAMES
               and (it.row_labels or COLUMN_NOTE in it.notes) for it in group) and \
        len({(it.line, it.end) for it in group}) == 1 and len({it.step for it in group}) == len(group)
