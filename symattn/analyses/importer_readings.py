"""Claims-only readings of a page: when no worked example with inputs is found, the printed steps are still
drafted (steps named on the page, steps told by their values, columns of a step table, indexed entries,
another head's blocks, fraction chains, labelled grids), each a claims-only example that `check` judges from
its first printed step."""

from __future__ import annotations

import math
import re
from dataclasses import replace
from typing import Any

from ..errors import SymattnError
from ..read.pages.scan import entry_kind
from .importer_conventions import Evidence, scale_evidence
from .importer_claims_only import is_distribution, root_of_ratio
from .importer_values import chains_by_values, softmax_scale
from .importer_items import ROW_SUMS_RE, Item
from .importer_names import INPUT_NAMES, step_of_text
from .importer_model import (Choice, CLAIM_ORDER, ClaimRow, _eq, ImportedExample, Note, _num, _numeric,
                             _same_values, _Segment, _ulp)
from .importer_rows import (_ATTENDS_HEAD, _ATTENDS_ROW, _ENTRY_LINE, _GRID_LABEL, _grid_step, _indexed_row_name,
                            _listed, _numeric_or_inf, _one_line_scalar_lists, _prime_outputs, _printed_head,
                            _PRINTED_ONLY_STEPS, _rows_sum_to_one, _show, WEIGHT_NAMES, _within_rounding)


class _ClaimsOnlyReadings:
    """The importer's readings of a page that has printed steps but no inputs (a mixin of the importer: it uses
    its page, items and example builder)."""

    def named_steps_only(self) -> ImportedExample | None:
        """A page with no inputs that prints whole matrices of two or more steps, each named (the weights and the
        output a random model gives, 'Attention weights:' then 'Output:'): each step's first printing is its claim,
        a later one with other digits a restatement; the steps must agree in their number of rows (and the scores,
        masked scores and weights in their shape). The page's other numbers are listed."""
        named = [it for it in self.items if it.kind == "matrix" and it.strength >= 2 and it.batches == 1
                 and it.step in ("scores", "scaled", "masked", "weights", "output") and _numeric_or_inf(it.rows)
                 and not it.operand and not it.products]
        steps = list(dict.fromkeys(it.step for it in named))
        if len(steps) < 2:
            return None
        square = {it.shape for it in named if it.step != "output"}
        if len({it.shape[0] for it in named}) != 1 or len(square) > 1 or \
                len({it.shape for it in named if it.step == "output"}) > 1:
            return None
        # Q and K printed whole under their names, as tall as the steps (one row per query): claims too
        named += [it for it in self.items if it.kind == "matrix" and it.strength >= 2 and it.batches == 1
                  and it.step in ("Q", "K") and it.shape[0] == named[0].shape[0] and _numeric(it.rows)
                  and not it.operand and not it.products]
        labels = next((list(it.row_labels) for it in named if it.row_labels and len(it.row_labels) == named[0].shape[0]
                       and len({x.lower() for x in it.row_labels}) == len(it.row_labels)), None)
        rows = labels or [str(i + 1) for i in range(named[0].shape[0])]
        claims: list[ClaimRow] = []
        firsts: dict[str, Item] = {}
        for it in named:
            first = firsts.setdefault(it.step, it)
            if first is not it and _same_values(first.rows, it.rows):
                continue
            group = None if first is it else it.at()
            for i, r in enumerate(it.rows):
                claims.append(ClaimRow(it.step, rows[i], list(r), str(it.where[i] if i < len(it.where) else it.where[0]),
                                       group))
        used_sums = set()
        for it in self.items:  # '各行の合計:' / 'Row sums:' then [1. 1. 1. 1.]: one sum per row of the weights
            above = self.page.lines[it.line - 1].text if it.line > 0 else ""
            if "weights" in firsts and it.kind == "vector" and it.shape[1] == len(rows) and ROW_SUMS_RE.search(above) \
                    and all(_num(v) is not None and abs(_num(v) - 1) <= 0.1 for v in it.rows[0]):  # type: ignore[operator]
                claims += [ClaimRow("weights_sum", r, [v], it.at(), None) for r, v in zip(rows, it.rows[0])]
                used_sums.add(id(it))
                break
        claims.sort(key=lambda c: (c.group is not None, CLAIM_ORDER.index(c.step)))
        conv: dict[str, Choice] = {}
        if "scores" in firsts and "scaled" in firsts:
            d = root_of_ratio(firsts["scores"].rows, firsts["scaled"].rows)
            if d is not None:
                why = f"the printed scaled scores are the printed scores divided by √{d} = {math.sqrt(d):.4g}"
                conv = {"scale": Choice("1/sqrt(d_k)", why, where=firsts["scaled"].at()),
                        "d_k": Choice(d, why, where=firsts["scaled"].at())}
        lines = self.page.lines
        first_line = min(it.line for it in named)
        last = max(it.end for it in named)
        notes = [Note("assumed", f"the page prints the {', '.join(steps)} whole and none of the inputs that make them: "
                                 "drafted as claims only", named[0].at())]
        used = {id(it) for it in named} | used_sums
        notes += _listed([it for it in self.items if id(it) not in used], "the page gives no inputs to place it with")
        return ImportedExample(title=self.title(1, first_line), source=self.page.source, format=self.page.format, index=1,
                               count=1, tokens=labels, key_tokens=None, inputs={}, convention=conv, claims=claims,
                               notes=notes, first_index=first_line, first_line=str(lines[first_line].where),
                               last_line=str(lines[min(last, len(lines) - 1)].where))

    def printed_heads_only(self, seg: _Segment, index: int) -> ImportedExample | None:
        """A part of the page whose projection weights are drawn in code and never printed, that prints the
        weights of two or more heads (each a square matrix under its head's number, 'Head 1', 'Head 2') and
        perhaps the layer's output (as many rows): claims only, one ``headH.weights`` step a head."""
        mats = [it for it in seg.items if it.kind == "matrix" and it.batches == 1 and _numeric(it.rows)
                and not it.aside and not it.operand and not it.products]
        heads = [it for it in mats if it.step == "weights" and it.head is not None]
        if len({it.head for it in heads}) < 2 or len({it.shape for it in heads}) != 1 \
                or heads[0].shape[0] != heads[0].shape[1]:
            return None
        n = heads[0].shape[0]
        firsts: dict[int, Item] = {}
        for it in heads:
            firsts.setdefault(it.head, it)  # type: ignore[arg-type]
        if sorted(firsts) != list(range(1, len(firsts) + 1)):
            return None
        outs = [it for it in mats if it.step == "output" and it.shape[0] == n and it.strength >= 1][:1]
        if any(it.head is not None for it in outs):
            outs = []  # one head's output (before the heads are joined): not the layer's; listed
        labels = next((list(it.row_labels) for it in heads if it.row_labels and len(it.row_labels) == n
                       and len(set(it.row_labels)) == n), None)
        rows = labels or [str(i + 1) for i in range(n)]
        claims: list[ClaimRow] = []
        for it in outs + [firsts[h] for h in sorted(firsts)]:
            step = "output" if it.step == "output" else f"head{it.head}.weights"
            claims += [ClaimRow(step, rows[i], list(r), str(it.where[i] if i < len(it.where) else it.where[0]))
                       for i, r in enumerate(it.rows)]
        used = outs + list(firsts.values())
        why = f"the page prints the weights of {len(firsts)} heads, each under its number"
        conv = {"heads": Choice(len(firsts), why, where=firsts[1].at())}
        notes = [Note("assumed", "the page draws its projection weights in code and prints none of them: "
                                 f"the {'output and ' if outs else ''}heads' weights drafted as claims only", used[0].at())]
        notes += _listed([it for it in seg.items if all(it is not u for u in used)],
                         "the page gives no inputs to place it with")
        lines = self.page.lines
        first, last = min(it.line for it in used), max(it.end for it in used)
        return ImportedExample(title=self.title(index, first), source=self.page.source,  # type: ignore[attr-defined]
                               format=self.page.format, index=index, count=index, tokens=labels, key_tokens=None,
                               inputs={}, convention=conv, claims=claims, notes=notes, first_index=first,
                               first_line=str(lines[first].where), last_line=str(lines[min(last, len(lines) - 1)].where))

    def steps_told_by_values(self) -> list[ImportedExample]:
        """A page with no inputs whose printed steps are named in words the importer does not read: each
        set of blocks the numbers tie together is an example (see :meth:`chain_example`)."""
        blocks = [it for it in self.items if it.kind == "matrix" and it.batches == 1 and not it.operand
                  and _numeric_or_inf(it.rows) and it.shape[0] >= 2]
        out: list[ImportedExample] = []
        for chain in chains_by_values({k: it.rows for k, it in enumerate(blocks)}):
            ex = self.chain_example(blocks, chain, first=not out)
            if ex is not None:
                out.append(ex)
        if len(out) > 1:
            used = {w for ex in out for c in ex.claims for w in [c.where]}
            for n, ex in enumerate(out, 1):
                ex.index, ex.count, ex.title = n, len(out), f"{ex.title} (example {n} of {len(out)})"
                ex.notes = [nt for nt in ex.notes if not (nt.kind == "unplaced" and nt.where in used)]
        return out

    def chain_example(self, blocks: list[Item], found: dict[int, str], first: bool) -> ImportedExample | None:
        """A page with no inputs whose printed steps are named in words the importer does not read: the
        blocks the numbers tie together (weights that are the softmax of an earlier block, that block
        the scores or scaled scores, a block they are divided from, the masked scores, an output that is
        the weights times printed values; see :mod:`.importer_values`) are a claims-only example. Q and K
        printed under their names, as tall as the weights, are claims too."""
        found = dict(found)
        chosen = {k: blocks[k] for k in found}
        if any(found[k] == "weights" and it.strength >= 2 and (it.step in INPUT_NAMES or it.step in ("Q", "K", "V"))
               for k, it in chosen.items()):
            return None  # a block the page names as an input (Q = I) is not the weights its rows could be
        n = next(it.shape[0] for k, it in chosen.items() if found[k] == "weights")
        for it in self.items if first else []:
            if it.step in ("Q", "K") and it.strength >= 2 and it.kind == "matrix" and it.shape[0] == n \
                    and _numeric(it.rows) and not it.operand and it.step not in [found[k] for k in found]:
                k = len(blocks)
                blocks.append(it)
                found[k], chosen[k] = it.step, it
        by_step = {found[k]: it for k, it in chosen.items()}
        if {"Q", "K", "V"} <= set(by_step):
            # Q, K and V all printed (V told by the output it makes): an example that derives from them
            qkv = {name: replace(by_step[name], step=name, strength=3, operand=False) for name in ("Q", "K", "V")}
            used = {id(by_step[name]) for name in ("Q", "K", "V")}
            seg = _Segment(inputs=qkv, items=[it for it in self.items if id(it) not in used],
                           first=min(it.line for it in qkv.values()), last=max(it.end for it in self.items))
            try:
                ex, _ = self.example(seg, 1)
            except SymattnError:
                ex = None
            if ex is not None and ex.placed >= sum(it.numbers for k, it in chosen.items()
                                                   if found[k] not in ("Q", "K", "V")):
                ex.notes.insert(0, Note("assumed", "the page's names did not give its inputs; Q, K and V are the "
                                                   "printed blocks whose numbers make its printed steps"))
                return ex
        labels = next((list(it.row_labels) for it in chosen.values() if it.row_labels and len(it.row_labels) == n
                       and len({x.lower() for x in it.row_labels}) == n), None)
        rows = labels or [str(i + 1) for i in range(n)]
        claims: list[ClaimRow] = []
        for k, it in sorted(chosen.items(), key=lambda kv: kv[1].line):
            names = rows if it.shape[0] == n else [str(i + 1) for i in range(it.shape[0])]
            for i, r in enumerate(it.rows):
                claims.append(ClaimRow(found[k], names[i], list(r),
                                       str(it.where[i] if i < len(it.where) else it.where[0]), None))
        claims.sort(key=lambda c: CLAIM_ORDER.index(c.step))
        conv: dict[str, Choice] = {}
        raw, scaled = by_step.get("scores"), by_step.get("scaled")
        d = root_of_ratio(raw.rows, scaled.rows) if raw is not None and scaled is not None else None
        if d is not None:
            why = f"the printed scaled scores are the printed scores divided by √{d} = {math.sqrt(d):.4g}"
            conv = {"scale": Choice("1/sqrt(d_k)", why, where=scaled.at()),  # type: ignore[union-attr]
                    "d_k": Choice(d, why, where=scaled.at())}  # type: ignore[union-attr]
        elif raw is not None and scaled is None:
            d = softmax_scale(raw.rows, by_step["weights"].rows)
            if d is not None:
                why = f"the printed weights are the softmax of the printed scores divided by √{d} = {math.sqrt(d):.4g}"
                conv = {"scale": Choice("1/sqrt(d_k)", why, where=by_step["weights"].at()),
                        "d_k": Choice(d, why, where=by_step["weights"].at())}
            else:
                conv = {"scale": Choice("none", "the weights are the softmax of the printed scores as they are",
                                        assumed=True)}
        masked = by_step.get("masked")
        if masked is not None and all(entry_kind(x) == "inf" or _num(x) is not None and _num(x) <= -1e8  # type: ignore[operator]
                                      for i, r in enumerate(masked.rows) for j, x in enumerate(r) if j > i) \
                and any(entry_kind(x) == "inf" or (_num(x) or 0) <= -1e8 for r in masked.rows for x in r):
            conv["mask"] = Choice("causal", "the masked scores hide every key after the query", where=masked.at())
        w = by_step["weights"]
        if "mask" not in conv and w.shape[0] == w.shape[1] and w.shape[0] > 1 and all(
                _num(x) == 0 for i, r in enumerate(w.rows) for j, x in enumerate(r) if j > i):
            conv["mask"] = Choice("causal", "the weights are 0 for every key after the query", where=w.at())
        told = ", ".join(f"{found[k]} ({it.at()})" for k, it in sorted(chosen.items(), key=lambda kv: kv[1].line))
        notes = [Note("assumed", "the page prints steps of attention and none of the inputs that make them, under "
                                 f"names this draft does not read; their numbers tell which is which: {told}. "
                                 "Drafted as claims only", next(iter(chosen.values())).at())]
        used = {id(it) for it in chosen.values()}
        notes += _listed([it for it in self.items if id(it) not in used], "the page gives no inputs to place it with")
        lines = self.page.lines
        first = min(it.line for it in chosen.values())
        last = max(it.end for it in chosen.values())
        return ImportedExample(title=self.title(1, first), source=self.page.source, format=self.page.format, index=1,
                               count=1, tokens=labels, key_tokens=None, inputs={}, convention=conv, claims=claims,
                               notes=notes, first_index=first, first_line=str(lines[first].where),
                               last_line=str(lines[min(last, len(lines) - 1)].where))

    def rows_by_index_only(self) -> ImportedExample | None:
        """A page with no inputs and no step printed whole, whose rows are printed one a block under names with a
        query index from 0 ('Attentions for output  0' over '[array([[1.2e-13]]), array([[0.998]]), …]',
        'x_prime_0_calculated: [[…]]' where the prose calls x′ the outputs): each step's rows 0 … N − 1 (all of
        them, as wide as each other) are its claims, a later printing of a row with other digits a restatement."""
        lines = self.page.lines
        primes = _prime_outputs(lines)
        found: dict[str, dict[int, list[tuple[Item, list[str]]]]] = {}
        for it in _one_line_scalar_lists(self.items, lines):
            if not _numeric(it.rows) or it.shape[0] != 1 or it.shape[1] < 2:
                continue
            named = _indexed_row_name(it.label, primes)
            if named is None:
                continue
            found.setdefault(named[0], {}).setdefault(named[1], []).append((it, it.rows[0]))
        if not found:
            return None
        claims: list[ClaimRow] = []
        n = None
        for st, rows in found.items():
            idx = sorted(rows)
            widths = {len(r) for prints in rows.values() for _, r in prints}
            if idx != list(range(len(idx))) or len(idx) < 2 or len(widths) != 1 or (n is not None and len(idx) != n):
                return None
            n = len(idx)
            if st == "weights" and widths != {n}:
                return None
            for i in idx:
                first_it, first = rows[i][0]
                claims.append(ClaimRow(st, str(i + 1), list(first), first_it.at()))
                for it, r in rows[i][1:]:
                    if r != first:
                        claims.append(ClaimRow(st, str(i + 1), list(r), it.at(), it.at()))
        claims.sort(key=lambda c: (c.group is not None, CLAIM_ORDER.index(c.step)))
        its = [it for rows in found.values() for prints in rows.values() for it, _ in prints]
        first_line = min(it.line for it in its)
        last = max(it.end for it in its)
        notes = [Note("assumed", f"the page prints {', '.join(found)} one row a block, each named with its query's index "
                                 "from 0, and none of the inputs that make them: drafted as claims only",
                      str(lines[first_line].where))]
        used = {it.line for it in its}
        widths = {c.step: len(c.values) for c in claims}
        if "weights" in found and "output" in found:
            second = self.columns_run(last, n or 0, widths["output"])
            if second is not None:
                self.second_by_columns = second
                used |= {it.line for it in second[2]}
        notes += _listed([it for it in self.items if it.line not in used],
                         "not a row named by a query's index, and the page gives no inputs to place it with")
        return ImportedExample(title=self.title(1, first_line), source=self.page.source, format=self.page.format, index=1,
                               count=1, tokens=None, key_tokens=None, inputs={}, convention={}, claims=claims,
                               notes=notes, first_index=first_line, first_line=str(lines[first_line].where),
                               last_line=str(lines[min(last, len(lines) - 1)].where))

    def columns_run(self, after: int, n: int, d: int) -> tuple[Item, Item, list[Item]] | None:
        """After rows named by index (N queries, outputs of width D ≠ N), the same computation printed again in the
        column layout (inputs as columns): an N × N block each of whose columns sums to 1 and not each row (the
        weights, keys down and queries across), then a D × N block (the outputs, one column a query)."""
        later = [it for it in self.items if it.line > after and _numeric(it.rows) and it.kind == "matrix"
                 and (it.strength < 3 or it.step in ("weights", "output"))]  # the values decide, not a name nearby
        for k, w in enumerate(later[:-1]):
            o = later[k + 1]
            if w.shape != (n, n) or o.shape != (d, n) or d == n or o.line - w.end > 3:
                continue
            if not all(is_distribution(list(c)) for c in zip(*w.rows)) or all(is_distribution(r) for r in w.rows):
                continue
            return w, o, [w, o]
        return None

    def columns_example(self, base: ImportedExample, w: Item, o: Item, _: list[Item]) -> ImportedExample:
        """The run found by :meth:`columns_run`, read by columns: query j's weights and output are column j."""
        wt = [list(c) for c in zip(*w.rows)]
        ot = [list(c) for c in zip(*o.rows)]
        claims = [ClaimRow("weights", str(j + 1), r, w.at()) for j, r in enumerate(wt)] + \
                 [ClaimRow("output", str(j + 1), r, o.at()) for j, r in enumerate(ot)]
        notes = [Note("assumed", f"a {w.shape[0]}×{w.shape[1]} block whose columns each sum to 1 (keys down, queries "
                                 f"across) and the {o.shape[0]}×{o.shape[1]} block after it (one column a query): the "
                                 "weights and outputs printed in the column layout, read by columns; claims only",
                      w.at())]
        for n in base.notes:
            if n.kind == "unplaced" and n.where in (w.at(), o.at()):
                base.notes.remove(n)
        lines = self.page.lines
        return ImportedExample(title=self.title(2, w.line), source=self.page.source, format=self.page.format,
                               index=2, count=2, tokens=None, key_tokens=None, inputs={}, convention={}, claims=claims,
                               notes=notes, first_index=w.line, first_line=str(lines[w.line].where),
                               last_line=str(lines[min(o.end, len(lines) - 1)].where))

    def step_columns_table(self) -> ImportedExample | None:
        """A page whose only numbers are one table with the keys down the side and a column per step ('Word |
        Dot Product Score | After Scaling | Attention Weight'): one query's scores, scaled scores and weights,
        claims only, the keys named by the rows; the scale (1/√d_k, d_k) when the scaled column is the scores
        column divided by √d_k."""
        blocks = [it for it in self.items if _numeric(it.rows)]
        if len(blocks) != 1 or blocks[0].form != "table" or not blocks[0].row_labels or not blocks[0].col_labels:
            return None
        t = blocks[0]
        steps = [step_of_text(c) for c in t.col_labels or []]
        if len(steps) != t.shape[1] or t.shape[1] < 2 or not all(s in ("scores", "scaled", "weights") for s in steps) \
                or len(set(steps)) != len(steps) or len(t.rows) < 2:
            return None
        keys = [k.strip().strip("\"'“”‘’*`") for k in t.row_labels]  # type: ignore[union-attr]
        if len({k.lower() for k in keys}) != len(keys) or not all(keys):
            return None
        cols = {st: [r[j] for r in t.rows] for j, st in enumerate(steps)}
        at = t.at()
        claims = [ClaimRow(st, "1", vals, at) for st, vals in cols.items()]
        claims.sort(key=lambda c: CLAIM_ORDER.index(c.step))
        conv: dict[str, Choice] = {}
        if "scores" in cols and "scaled" in cols:
            d = root_of_ratio([cols["scores"]], [cols["scaled"]])
            if d is not None:
                why = f"the scaled column is the scores column divided by √{d} = {math.sqrt(d):.4g}"
                conv = {"scale": Choice("1/sqrt(d_k)", why, where=at), "d_k": Choice(d, why, where=at)}
        notes = [Note("assumed", "a table of one query's steps, a column per step and a row per key ("
                                 + ", ".join(keys) + "); the page prints no inputs: drafted as claims only", at)]
        lines = self.page.lines
        ex = ImportedExample(title=self.title(1, t.line), source=self.page.source, format=self.page.format, index=1,
                             count=1, tokens=None, key_tokens=keys, inputs={}, convention=conv, claims=claims,
                             notes=notes, first_index=t.line, first_line=str(lines[t.line].where),
                             last_line=str(lines[min(t.end, len(lines) - 1)].where))
        for key, ch in conv.items():
            ex.notes.append(Note("found", f"{key} = {_show(ch.value)}: {ch.reason}", ch.where))
        return ex

    def indexed_entries(self, done: list[ImportedExample]) -> list[ImportedExample]:
        """One query's scores and weights written one entry a line by their indexes from 0 ('score[3,0] =
        Q[3] · K[0]  →  0.52', 'weight[3,2] = 0.42  ← …'), in a block no example placed: a claims-only
        example of that query's row (row i + 1 of i + 1: the keys are positions 0 … i or more). Every line of a
        step must give the same query and its keys must run 0, 1, 2, … with no gap; the number is the last
        one after the line's final '=' or arrow."""
        lines = self.page.lines
        placed = {n.where for e in done for n in e.notes if n.kind != "unplaced"} | {c.where for e in done for c in e.claims}
        out: list[ImportedExample] = []
        k = 0
        while k < len(lines):
            block: list[tuple[int, str, int, int, str]] = []
            gap = 0
            j = k
            while j < len(lines) and gap <= 4:
                m = _ENTRY_LINE.match(lines[j].text.replace("−", "-"))
                st = step_of_text(m.group(1)) if m else None
                if m and st in ("scores", "scaled", "weights") and str(lines[j].where) not in placed:
                    block.append((j, st, int(m.group(2)), int(m.group(3)), m.group(4)))
                    gap = 0
                elif block:
                    gap += 1
                elif j > k:
                    break
                j += 1
            if not block:
                k += 1
                continue
            k = block[-1][0] + 1
            rows: dict[str, list[str]] = {}
            ok = len({b[2] for b in block}) == 1 and len(block) >= 2
            for st in dict.fromkeys(b[1] for b in block):
                ent = [b for b in block if b[1] == st]
                if [b[3] for b in ent] != list(range(len(ent))) or len(ent) < 2:
                    ok = False
                rows[st] = [b[4] for b in ent]
            if not ok or all(any(c.step == b[1] and any(_eq(v, b[4]) for v in c.values) for e in done for c in e.claims)
                             for b in block):
                continue  # (every entry already a claim of an example: printed there)
            i = block[0][2]
            n = max(i + 1, max(len(r) for r in rows.values()))
            if any(len(r) > n for r in rows.values()):
                continue
            row = str(i + 1)
            first, last = block[0][0], block[-1][0]
            claims = [ClaimRow(st, row, r + [".."] * (n - len(r)), str(lines[next(b[0] for b in block if b[1] == st)].where))
                      for st, r in rows.items()]
            conv: dict[str, Choice] = {}
            region = lines[first: last + 1]
            sc = scale_evidence(region)
            if sc is None and any(re.search(r"\bscal\w*\b.*(?:sqrt|√)\s*\(?\s*d_?k", ln.text, re.I) for ln in region):
                hit = next(ln for ln in region if re.search(r"(?:sqrt|√)", ln.text))
                sc = Evidence("1/sqrt(d_k)", str(hit.where), hit.text.strip())
            if sc is not None:
                conv["scale"] = Choice(sc.value, f"the page says so: {sc.text!r}", where=sc.where)
            notes = [Note("assumed", f"query {i} (from 0)'s {', '.join(rows)} written one entry a line by index: "
                                     f"drafted as claims only, row {row} of {n}", str(lines[first].where))]
            out.append(ImportedExample(title=self.title(2, first), source=self.page.source, format=self.page.format,
                                       index=0, count=0, tokens=None, key_tokens=None, inputs={}, convention=conv,
                                       claims=claims, notes=notes, first_index=first,
                                       first_line=str(lines[first].where), last_line=str(lines[last].where)))
        return out

    def other_head_blocks(self) -> list[tuple[Item, int]]:
        """Weights printed for several heads by number ('HEAD 0: Attention Weights', 'HEAD 1: …') on a page that
        walks through one head and gives no per-head inputs: the blocks of the heads other than the one
        its first head-numbered block names are set aside (each becomes an example of its own; they are
        not printings of the walked head's weights)."""
        numbered = [(it, _printed_head(it.label)) for it in self.items]
        numbered = [(it, h) for it, h in numbered if h is not None]
        if len({h for _, h in numbered}) < 2 or any(
                it.step in WEIGHT_NAMES + ("Q", "K", "V", "X") and (it.head is not None or (
                    it.kind == "matrix" and it.strength >= 2 and _numeric(it.rows))) for it in self.items):
            return []  # heads given inputs (per head, or whole matrices to split): the example places them
        walked = numbered[0][1]
        shapes = {it.shape for it, h in numbered if h == walked and it.step == "weights" and it.kind == "matrix"}
        aside = [(it, h) for it, h in numbered if h != walked and it.step == "weights" and it.kind == "matrix"
                 and it.shape in shapes and _numeric(it.rows) and it.batches == 1]
        ids = {id(it) for it, _ in aside}
        self.items = [it for it in self.items if id(it) not in ids]
        return aside

    def other_head_example(self, it: Item, head: int, out: list[ImportedExample]) -> ImportedExample | None:
        """Another head's weights (see :meth:`other_head_blocks`): claims only, its rows named and its
        conventions taken from the example of the walked head printed before it."""
        before = [e for e in out if e.first_index <= it.line and any(
            c.step == "weights" and len(c.values) == it.shape[1] for c in e.claims)]
        if not before:
            return None
        base = before[-1]
        labels = base.spec.query_labels() if base.spec is not None else (
            list(base.tokens) if base.tokens else [str(i + 1) for i in range(it.shape[0])])
        if len(labels) != it.shape[0]:
            return None
        claims = [ClaimRow("weights", lab, list(r), str(it.where[i] if i < len(it.where) else it.where[0]))
                  for i, (lab, r) in enumerate(zip(labels, it.rows))]
        conv = {k: Choice(c.value, f"as for the head walked through before it ({c.reason})", assumed=True)
                for k, c in base.convention.items() if k in ("scale", "d_k", "mask")}
        notes = [Note("assumed", f"the weights of head {head}, printed beside those of the head the page walks "
                                 "through; the page prints none of its inputs: drafted as claims only", it.at())]
        lines = self.page.lines
        return ImportedExample(title=self.title(2, it.line), source=self.page.source, format=self.page.format,
                               index=0, count=0, tokens=base.tokens, key_tokens=base.key_tokens, inputs={},
                               convention=conv, claims=claims, notes=notes, first_index=it.line,
                               first_line=str(lines[it.line].where), last_line=str(lines[it.end].where))

    def fraction_segments(self, out: list[ImportedExample]) -> list[_Segment]:
        """Weights worked as softmaxes written out (``\\alpha_{dog} = \\frac{e^{0.889}}{e^{0.889} + e^{1.2}} \\approx
        0.42``, one line per key, the same denominator) whose exponents are the scores of no example found: one
        query's scores, given by the page in the exponents (the keys named by the weights' subscripts, in the
        denominator's order), with the values of those keys the page gives per token: an example of its own.
        Its output is the vector printed after the fractions that the weights make of those values."""
        fr = [it for it in self.items if it.softmax_of is not None]
        if len(fr) < 2 or len({tuple(it.softmax_of[1]) for it in fr}) != 1:  # type: ignore[index]
            return []
        den = fr[0].softmax_of[1]  # type: ignore[index]
        if len(fr) != len(den):
            return []
        keys: list[str | None] = [None] * len(den)
        for it in fr:
            top = it.softmax_of[0]  # type: ignore[index]
            ks = [j for j, t in enumerate(den) if _eq(t, top)]
            m = re.search(r"\\alpha_\{?\s*([A-Za-z][\w'-]*)\s*\}?", it.label)
            if len(ks) != 1 or m is None or keys[ks[0]] is not None:
                return []
            keys[ks[0]] = m.group(1)
        at = {it.at() for it in fr}
        for ex in out:  # the exponents are an example's scores already: the fractions are placed there
            if any(n.kind != "unplaced" and n.where in at for n in ex.notes):
                return []
            if any(c.step in ("scores", "scaled") and len(c.values) == len(den) and all(
                    _within_rounding(a, b) for a, b in zip(c.values, den)) for c in ex.claims):
                return []
            g = ex.inputs.get("scores")
            if g is not None and any(len(r) == len(den) and all(_within_rounding(a, b) for a, b in zip(r, den))
                                     for r in g.rows):
                return []
        vrows: dict[str, tuple[list[str], Any]] = {}
        for it in self.items:
            if it.step != "V" or it.strength < 2 or not _numeric(it.rows):
                continue
            labels = [it.token] if it.kind == "vector" and it.token else it.row_labels or []
            for lab, r, w in zip(labels, it.rows, it.where):
                vrows.setdefault(lab.lower(), (r, w))
        if not all(k is not None and k.lower() in vrows for k in keys):
            return []
        vs = [vrows[k.lower()] for k in keys]  # type: ignore[union-attr]
        if len({len(r) for r, _ in vs}) != 1:
            return []
        first, last = fr[0], fr[-1]
        scores = Item(rows=[list(den)], where=[first.where[0]], line=first.line, end=first.line, kind="matrix",
                      label="the exponents of the softmax written out", step="scores", strength=2, role=first.role,
                      col_labels=[k for k in keys if k])
        scores.notes.append("the scores are the exponents of the weights' softmax written out")
        v = Item(rows=[r for r, _ in vs], where=[w for _, w in vs], line=first.line, end=first.line, kind="matrix",
                 label="V", step="V", strength=2, role=first.role, row_labels=[k for k in keys if k])
        # (a heading or sentence above it names it only weakly: "Paso 3: Combinación de Values" is not V)
        after = [replace(it, step=None, strength=0) if it.strength < 2 else it
                 for it in self.items if last.line < it.line <= last.line + 25 and it.kind == "vector"
                 and not it.operand and len(it.rows[0]) == len(vs[0][0]) and _numeric(it.rows)][:1]
        return [_Segment(items=[v, scores] + fr + after, first=first.line, last=(after or fr)[-1].end)]

    def outright_example(self, seg: _Segment) -> ImportedExample | None:
        """A weighted average with its weights written outright (see :func:`_weights_given_outright`):
        a claims-only example of the weights it gives and the output it prints (one row each); what
        it places is taken out of the part's listed numbers."""
        if not getattr(seg, "outright", False):
            return None
        lines = self.page.lines
        picked: dict[str, Item] = {}
        for c in seg.items:
            if c.step in ("weights", "output") and c.strength >= 2 and c.kind == "vector" and len(c.rows) == 1 \
                    and _numeric(c.rows) and c.step not in picked:
                picked[c.step] = c
        if "weights" not in picked or "output" not in picked:
            return None
        w, o = picked["weights"], picked["output"]
        x = next((c for c in seg.items if c.step == "X" and c.kind == "matrix"), None)
        if x is not None and (len(x.rows) != len(w.rows[0]) or len(x.rows[0]) != len(o.rows[0])):
            return None  # the weights are not one per word vector, or the output not a word vector's size
        seg.items = [c for c in seg.items if c is not w and c is not o]
        claims = [ClaimRow("weights", "1", list(w.rows[0]), w.at(), None),
                  ClaimRow("output", "1", list(o.rows[0]), o.at(), None)]
        first = min(w.line, o.line)
        return ImportedExample(title=self.title(2, first), source=self.page.source, format=self.page.format,
                               index=0, count=0, tokens=None, key_tokens=None, inputs={}, convention={},
                               claims=claims,
                               notes=[Note("assumed", "a weighted average with weights the page writes outright (no "
                                                      "query or key makes them): drafted as claims only, its word "
                                                      "vectors listed", w.at())],
                               first_index=first, first_line=str(lines[first].where),
                               last_line=str(lines[max(w.end, o.end)].where))

    def softmax_line_example(self, seg: _Segment) -> ImportedExample | None:
        """A row of scores and its softmax written on one line, in a part of the page no worked example
        holds (``softmax([1, 2, -∞, 3]) = [0.0116, 0.0315, 0.0, 0.8569]``, in prose or math): a one-query
        claims-only example, the argument its scores (its masked scores when some entry is -∞) and the
        result its weights, softmax taken of the row as written; the result is taken out of the part's
        listed numbers."""
        for w in seg.items:
            arg = _softmax_line_argument(w.before) if w.kind == "vector" and _numeric(w.rows) else None
            if arg is None or len(arg) != len(w.rows[0]) or len(arg) < 2:
                continue
            if not all(entry_kind(x) == "number" and 0 <= (_num(x) or 0) <= 1 for x in w.rows[0]):
                continue
            if any(c is not w and c.line != w.line and _numeric(c.rows) and c.shape[1] == len(arg) for c in seg.items):
                return None  # other rows as wide in this part: one row of a worked matrix, not a line alone
            masked = any(x == "-inf" for x in arg)
            step = "masked" if masked else "scores"
            # (the argument, when read as a list of its own on the line, is placed with it)
            seg.items = [c for c in seg.items if c is not w and not (c.line == w.line and len(c.rows) == 1
                                                                       and len(c.rows[0]) == len(arg))]
            lines = self.page.lines
            claims = [ClaimRow(step, "1", arg, w.at(), None), ClaimRow("weights", "1", list(w.rows[0]), w.at(), None)]
            why = "the page writes the softmax of this row of scores as it is"
            return ImportedExample(title=self.title(2, w.line), source=self.page.source, format=self.page.format,
                                   index=0, count=0, tokens=None, key_tokens=None, inputs={},
                                   convention={"scale": Choice("none", why, where=w.at())}, claims=claims,
                                   notes=[Note("assumed", f"a row of {'masked ' if masked else ''}scores and its "
                                                          "softmax written on one line, outside any worked example: "
                                                          "drafted as claims only, one query", w.at())],
                                   first_index=w.line, first_line=str(lines[w.line].where),
                                   last_line=str(lines[w.end].where))
        return None

    def softmax_lines_unplaced(self, done: list[ImportedExample]) -> list[ImportedExample]:
        """The softmax lines (see :meth:`softmax_line_example`) that a worked example listed as not placed
        (no step of it has their width): each an example of its own, no longer listed."""
        out = []
        by_at: dict[str, list[Item]] | None = None  # the page's vectors by where they are: one pass, not one per note
        for ex in done:
            for n in [n for n in ex.notes if n.kind == "unplaced" and n.text.endswith("no step of this example has its shape")]:
                if by_at is None:
                    by_at = {}
                    for c in self.items:
                        if c.kind == "vector" and c.rows:
                            by_at.setdefault(c.at(), []).append(c)
                it = next((it for it in by_at.get(n.where, []) if n.text.startswith(f"[{it.rows[0][0]}")), None)
                made = self.softmax_line_example(_Segment(first=it.line, items=[it])) if it is not None else None
                if made is not None:
                    ex.notes.remove(n)
                    out.append(made)
        return out

    def attends_lists(self, done: list[ImportedExample]) -> list[ImportedExample]:
        """Weights written as lines, each query's under a line naming it ('Position 0 ("The"):') and one
        line a key ('  Attends to "cat": 0.2 (low - …)'), for every token of the sentence as query and
        key, each query's weights summing to 1: an illustrative attention matrix, claims only."""
        lines = self.page.lines
        out: list[ImportedExample] = []
        k = 0
        while k < len(lines):
            block: list[tuple[str, list[tuple[str, str]], int]] = []  # (query, [(key, weight)], line)
            while k < len(lines):
                h = _ATTENDS_HEAD.match(lines[k].text)
                if not h:
                    if block and not lines[k].text.strip() or (block and lines[k].text.strip().startswith(("→", "->"))):
                        k += 1
                        continue
                    break
                row: list[tuple[str, str]] = []
                j = k + 1
                while j < len(lines):
                    m = _ATTENDS_ROW.match(lines[j].text)
                    if not m:
                        break
                    row.append((m.group(1), m.group(2)))
                    j += 1
                if not row:
                    break
                block.append((h.group(1), row, k))
                k = j
            if block:
                toks = [q for q, _, _ in block]
                keys = [key for key, _ in block[0][1]]
                rows = [[w for _, w in r] for _, r, _ in block]
                if len(toks) >= 2 and len(set(toks)) == len(toks) and keys == toks \
                        and all([key for key, _ in r] == keys for _, r, _ in block) and _rows_sum_to_one(rows):
                    claims = [ClaimRow("weights", q, [w for _, w in r], str(lines[at].where), None)
                              for q, r, at in block]
                    first, last = block[0][2], block[-1][2] + len(block[-1][1])
                    out.append(ImportedExample(
                        title=self.title(len(done) + len(out) + 1, first), source=self.page.source,
                        format=self.page.format, index=0, count=0, tokens=toks, key_tokens=None, inputs={},
                        convention={}, claims=claims,
                        notes=[Note("assumed", "the page writes each token's weights one line a key, with no "
                                               "inputs that make them: drafted as claims only", claims[0].where)],
                        first_index=first, first_line=str(lines[first].where),
                        last_line=str(lines[min(last, len(lines) - 1)].where)))
                continue
            k += 1
        return out

    def labelled_grids(self) -> list[ImportedExample]:
        """A page with no complete inputs (Q and K but no V, or none) that prints square tables one
        labelled row a line ("Query0 [2.0, 0.0, 1.0]", "Pos1  [0.100, 0.700, 0.200],") under a line
        naming the step ("**Full scores matrix:**", "**Scaled:**", "After softmax", "Attention
        Matrix:"): each table is a claim of that step; tables of one shape in a row, each of a new
        step, are one example's claims (a step seen again starts another). A table under no step
        word is listed, not placed."""
        lines = self.page.lines
        rows: list[tuple[int, list[str], str, Item]] = []  # (line, the row, where, the item)
        for it in self.items:
            if it.kind in ("vector", "matrix") and _numeric(it.rows) and it.end - it.line + 1 == len(it.rows) \
                    and len(it.where) == len(it.rows) \
                    and all(_GRID_LABEL.match(lines[it.line + i].text) for i in range(len(it.rows))):
                rows += [(it.line + i, list(r), str(it.where[i]), it) for i, r in enumerate(it.rows)]
        rows.sort(key=lambda r: r[0])
        grids: list[list[tuple[int, list[str], str, Item]]] = []
        for r in rows:
            g = grids[-1] if grids else None
            if g and r[0] == g[-1][0] + 1 and len(r[1]) == len(g[-1][1]):
                g.append(r)
            else:
                grids.append([r])
        groups: list[list[tuple[str, list]]] = []
        for g in grids:
            if len(g) < 2 or len(g) != len(g[0][1]):
                continue
            step = _grid_step(lines, g[0][0]) or _rows_sum_to_one([r[1] for r in g])
            if step is None:
                continue
            cur = groups[-1] if groups else None
            if cur is None or any(s == step for s, _ in cur) or len(cur[-1][1]) != len(g):
                groups.append([(step, g)])
            else:
                cur.append((step, g))
        out: list[ImportedExample] = []
        for n, grp in enumerate(groups, 1):
            labels = [_GRID_LABEL.match(lines[r[0]].text).group(1).strip('"“”') for r in grp[0][1]]  # type: ignore[union-attr]
            tokens = labels if len(set(labels)) == len(labels) else None
            names = tokens or [str(i + 1) for i in range(len(labels))]
            claims = [ClaimRow(step, names[i], r[1], r[2], None) for step, g in grp for i, r in enumerate(g)]
            notes = [Note("assumed", f"the page gives no complete inputs (Q, K and V, or X with weights): the "
                                     f"{', '.join(s for s, _ in grp)} it prints as labelled tables are drafted as "
                                     "claims only", grp[0][1][0][2])]
            first, last = grp[0][1][0][0], grp[-1][1][-1][0]
            out.append(ImportedExample(title=self.title(n, first), source=self.page.source, format=self.page.format,
                                       index=n, count=len(groups), tokens=tokens, key_tokens=None, inputs={},
                                       convention={}, claims=claims, notes=notes, first_index=first,
                                       first_line=str(lines[first].where), last_line=str(lines[last].where)))
        if out:
            used = {id(r[3]) for grp in groups for _, g in grp for r in g}
            for it in self.items:
                if id(it) not in used and _numeric(it.rows):
                    near = min(out, key=lambda e: abs(e.first_index - it.line))
                    shown = ", ".join(", ".join(r) for r in it.rows[:2])
                    near.notes.append(Note("unplaced", f"[{shown[:77] + '…' if len(shown) > 80 else shown}] "
                                           f"({it.shape[0]}×{it.shape[1]}): the page gives no complete inputs to "
                                           "place it with", it.at()))
            if len(out) > 1:
                for ex in out:
                    ex.title = f"{ex.title} (example {ex.index} of {len(out)})"
        return out

    def token_column_tables(self) -> ImportedExample | None:
        """A page with no inputs that prints its steps as tables with a column per key token (``| le | chien |
        …``, one row a dimension) and one query's scores and weights as a table with a row per key token and
        the query as its one column header (``| | dog |``): claims only, read by column. The scores and the
        weights must both be printed so (which query, which keys); the values (a column per key token, as many
        columns as keys) and a one-column output as long as a value are read with them; a table named like
        another step (the keys, the embeddings, the weighted values) is listed."""
        tables = [it for it in self.items if it.form == "table" and it.kind == "matrix" and _numeric(it.rows)
                  and it.batches == 1 and not it.aside]
        per_query = [it for it in tables if it.step in ("scores", "weights") and it.transposed and it.row_labels
                     and it.col_labels and len(it.row_labels) == 1 and it.shape[0] == 1]
        keys = next((list(it.col_labels) for it in per_query), None)  # type: ignore[arg-type]
        if keys is None or len(keys) < 2 or len(set(keys)) != len(keys):
            return None
        firsts: dict[str, Item] = {}
        for it in per_query:
            if list(it.col_labels) == keys and it.row_labels == per_query[0].row_labels:  # type: ignore[arg-type]
                firsts.setdefault(it.step, it)  # type: ignore[arg-type]
        if set(firsts) != {"scores", "weights"}:
            return None
        query = per_query[0].row_labels[0]  # type: ignore[index]
        claims: list[ClaimRow] = []
        used: list[Item] = list(firsts.values())
        by_column: dict[str, Item] = {}
        for it in tables:  # the last sentence of its label names it ('…, so the keys form a 2x6 matrix, like:')
            if it.col_labels and list(it.col_labels) == keys and it.row_labels is None and it.shape[1] == len(keys):
                last = re.split(r"(?<=[.!?])\s+", it.label.strip())[-1] if it.label.strip() else ""
                step = step_of_text(last) if last else None
                if step in ("K", "V") or (step is None and it.step in ("K", "V")):
                    by_column.setdefault(step or it.step, it)  # type: ignore[arg-type]
        for step in ("K", "V"):
            if step in by_column:
                it = by_column[step]
                claims += [ClaimRow(step, k, [r[j] for r in it.rows], it.at()) for j, k in enumerate(keys)]
                used.append(it)
        values = by_column.get("V")
        for step in ("scores", "weights"):
            it = firsts[step]
            claims.append(ClaimRow(step, query, list(it.rows[0]), it.at()))
        if values is not None:
            # a table of the values' shape printed after the weights and named like them ('each attention weight
            # is applied to its value:'): the weighted values, one column a key
            wv = next((it for it in tables if it.line > firsts["weights"].line and it.step in ("weights", "weighted")
                       and it.shape == values.shape and it.col_labels and list(it.col_labels) == keys
                       and it.row_labels is None), None)
            if wv is not None:
                claims += [ClaimRow("weighted", query, [r[j] for r in wv.rows], wv.at(), key=k)
                           for j, k in enumerate(keys)]
                used.append(wv)
            out = next((it for it in tables if it.step == "output" and it.line > firsts["weights"].line
                        and it.shape == (values.shape[0], 1)), None)
            if out is not None:
                claims.append(ClaimRow("output", query, [r[0] for r in out.rows], out.at()))
                used.append(out)
        claims.sort(key=lambda c: CLAIM_ORDER.index(c.step))
        notes = [Note("assumed", f"the page prints its steps as tables with a column per key token and none of the "
                                 f"inputs that make them: query {query!r}'s steps drafted as claims only",
                      firsts["scores"].at())]
        notes += _listed([it for it in self.items if all(it is not u for u in used)],
                         "the page gives no inputs to place it with")
        lines = self.page.lines
        first, last = min(it.line for it in used), max(it.end for it in used)
        return ImportedExample(title=self.title(1, first), source=self.page.source, format=self.page.format,
                               index=1, count=1, tokens=[query], key_tokens=keys, inputs={}, convention={},
                               claims=claims, notes=notes, first_index=first, first_line=str(lines[first].where),
                               last_line=str(lines[min(last, len(lines) - 1)].where))

    def printed_step_only(self) -> ImportedExample | None:
        """A page whose only numbers are one step's matrix (the scaled scores printed as a grid and
        again as a table): no inputs to derive it from, so the draft lists the printings as claims,
        the most precise first and the others as restatements. Every numeric block on the page must
        be a printing of that one matrix (the same numbers to their rounding), else nothing is made."""
        blocks = [it for it in self.items if _numeric(it.rows)]
        if not blocks or any(it.kind != "matrix" or it.step not in _PRINTED_ONLY_STEPS or it.batches > 1
                             for it in blocks):
            return None
        square = next((it.shape for it in blocks if it.shape[0] > 1 and it.shape[1] > 1), None)
        if square is None or len({it.head for it in blocks if it.head is not None}) > 1:
            return None  # blocks captioned by different heads are not printings of one matrix
        mats: list[tuple[Item, list[list[str]]]] = []
        for it in blocks:
            rows = it.rows
            if it.shape != square:
                flat = [x for r in rows for x in r]
                if 1 not in it.shape or len(flat) != square[0] * square[1]:
                    return None  # a column of n·m numbers is the grid printed one cell per line
                rows = [flat[r * square[1]:(r + 1) * square[1]] for r in range(square[0])]
            mats.append((it, rows))
        for _, rows in mats[1:]:
            # a printing again, with most of its numbers the same to their rounding (a slip in the rest is
            # for check to judge against the other printing)
            same = [_within_rounding(a, b) for ra, rb in zip(mats[0][1], rows) for a, b in zip(ra, rb)]
            if sum(same) < 0.5 * len(same):
                return None
        named = max(mats, key=lambda m: m[0].strength)[0]
        step = named.step
        main = max(mats, key=lambda m: min(_ulp(x) for r in m[1] for x in r) * -1)
        labels = next((list(it.row_labels) for it, _ in mats if it.row_labels and len(it.row_labels) == square[0]),
                      None)
        if labels is not None and len({x.lower() for x in labels}) != len(labels):
            labels = None
        rows_named = labels or [str(i + 1) for i in range(square[0])]
        claims: list[ClaimRow] = []
        notes = [Note("assumed", f"the page prints only the {step} ({square[0]}×{square[1]}), from "
                                 f"{named.label.strip()!r}, and none of the inputs that make them: the draft "
                                 "lists them as claims, to be checked against each other", named.at())]
        for it, rows in [main] + [m for m in mats if m is not main]:
            group = None if it is main[0] else it.at()
            for i, (lab, r) in enumerate(zip(rows_named, rows)):
                at = (str(it.where[i]) if len(it.where) == len(rows) else
                      str(it.where[i * len(r)]) if len(it.where) == len(rows) * len(r) else it.at())
                claims.append(ClaimRow(step, lab, list(r), at, group))
            if group is not None:
                notes.append(Note("found", f"prints the {step} again, rounded differently", it.at()))
        lines = self.page.lines
        first = min(it.line for it, _ in mats)
        last = max(it.end for it, _ in mats)
        return ImportedExample(title=self.title(1, first), source=self.page.source, format=self.page.format,
                               index=1, count=1, tokens=labels, key_tokens=None, inputs={}, convention={},
                               claims=claims, notes=notes, first_index=first, first_line=str(lines[first].where),
                               last_line=str(lines[min(last, len(lines) - 1)].where))

    def attach_labels(self) -> None:
        """Words written beside a matrix on slides: a vertical list of tokens (one per line)
        as row labels, a line of tokens above as column labels."""
        lines = self.page.lines
        for it in self.items:
            if it.kind != "matrix" or it.row_labels or it.row_vectors:
                continue
            r, c = it.shape
            for a, b, words in self.col.vertical_lists:
                if len(words) == r and (0 <= a - it.end <= 3 or 0 <= it.line - b <= 3):
                    it.row_labels = list(words)
                    break
            if it.col_labels is None:
                for k, words in self.col.horizontal_lists:
                    if len(words) == c and 0 < it.line - k <= 8 and c > 1:
                        it.col_labels = list(words)
                        break
        del lines


_SOFTMAX_LINE_RE = re.compile(r"(?:\\(?:text|mathrm|operatorname|textrm|mathsf)\s*\{\s*)?soft-?max\s*\}?\s*"
                              r"(?:\\left\s*)?\(\s*\[([^\[\]]{1,400})\]\s*(?:\\right\s*)?\)\s*(?:=|≈|\\approx)\s*$", re.I)


def _softmax_line_argument(before: str) -> list[str] | None:
    """The entries of the row written as softmax's argument just before a vector, ``-∞`` (``-\\infty``,
    ``-inf``) as ``-inf``; None when the text before is no such call or an entry is no number.

    >>> _softmax_line_argument(r"\\text{softmax}([1, 2, -\\infty, 3]) = ")
    ['1', '2', '-inf', '3']
    >>> _softmax_line_argument("softmax([0.5, 1.5]) ≈ "), _softmax_line_argument("softmax(x) = ")
    (['0.5', '1.5'], None)
    """
    m = _SOFTMAX_LINE_RE.search(before)
    if not m:
        return None
    out = []
    for x in m.group(1).split(","):
        t = x.strip().replace("−", "-")
        if re.fullmatch(r"-\s*(?:\\infty|∞|inf|Infinity)", t, re.I):
            out.append("-inf")
        elif entry_kind(t) == "number":
            out.append(t)
        else:
            return None
    return out
