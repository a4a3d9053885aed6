"""Placement accuracy of `symattn import` on held-out pages (issue 11's target).

Each page here (NAME.md/.txt/.html/.tex/.ipynb) carries published numbers; beside it,
NAME.toml (or NAME-1.toml, NAME-2.toml, …) is where a careful reader puts each of them,
written before the importer was run on the page. A printed number is placed right when the
import puts the same value at the same step, row and column (inputs: the same matrix and
entry). Rows are compared by position (the n-th query), not by token name.

    .venv/bin/python tests/pages/heldout/measure.py [BATCH_DIR ...]

prints one line per page and the total: numbers expected, placed right, misplaced extras.
"""

from __future__ import annotations

import itertools
import sys
from fractions import Fraction
from pathlib import Path

import symattn as sa
from symattn.errors import SymattnError
from symattn.read.pages.formats import SOURCE_SUFFIXES

SUFFIXES = {".md", ".html", ".tex", ".ipynb", ".txt", *SOURCE_SUFFIXES}  # pages as met; source files are read as text


def _val(x):
    t = x.strip() if isinstance(x, str) else str(x)
    try:
        return Fraction(t)
    except (ValueError, ZeroDivisionError):
        return t


def _row_index(spec, key: str, keys: bool = False) -> str:
    toks = (spec.key_tokens or spec.tokens) if keys else spec.tokens
    if toks and key in toks:
        return str(list(toks).index(key) + 1)
    return key


def numbers(spec) -> tuple[set, set]:
    """(inputs, claims): {(matrix, i, j, value)} and {(group, step, row, key, j, value)}."""
    ins = {(name, i, j, _val(x)) for name, m in spec.inputs.items() for i, r in enumerate(m) for j, x in enumerate(r)}
    # K = V given once (annotations): one matrix on the page, counted once
    cl = set()
    groups = [{k: v for k, v in spec.claims.items() if k != "also"}] + list(spec.claims.get("also", []))
    for g in groups:
        for step, table in g.items():
            if step == "where":
                continue
            if isinstance(table, list):
                for i, row in enumerate(table):
                    for j, x in enumerate(row):
                        if _val(x) not in ("..", "?"):
                            cl.add((step, str(i + 1), None, j, _val(x)))
                continue
            for row, vec in table.items():
                r = _row_index(spec, row)
                if step == "weighted":
                    for key, v in vec.items():
                        for j, x in enumerate(v):
                            if _val(x) not in ("..", "?"):
                                cl.add((step, r, _row_index(spec, key, True), j, _val(x)))
                elif isinstance(vec, list):
                    for j, x in enumerate(vec):
                        if _val(x) not in ("..", "?"):
                            cl.add((step, r, None, j, _val(x)))
                else:
                    cl.add((step, r, None, 0, _val(vec)))
    return ins, cl


def _score(imported, expected) -> tuple[int, int, int, list]:
    ei, ec = numbers(expected)
    ii, ic = numbers(imported) if imported is not None else (set(), set())
    right = len(ei & ii) + len(ec & ic)
    wrong = sorted(map(str, (ei - ii) | (ec - ic)))
    return len(ei) + len(ec), right, len(ic - ec), wrong


def _pair(specs: list, exs: list) -> dict[int, int]:
    """Pair expected examples with imported ones so that the most numbers are placed right (fewest
    extras on a tie): every pairing is tried when there are few, else the best pairs are taken first."""
    scores = {(w, k): _score(got, want) for w, want in enumerate(specs) for k, got in enumerate(exs)}

    def value(pairs):
        return (sum(scores[p][1] for p in pairs), -sum(scores[p][2] for p in pairs))

    n = min(len(specs), len(exs))
    if max(len(specs), len(exs)) <= 7:
        ws = list(range(len(specs)))
        best: tuple = ()
        for ks in itertools.permutations(range(len(exs)), n):
            for wsel in itertools.combinations(ws, n):
                cand = tuple(zip(wsel, ks))
                if not best or value(cand) > value(best):
                    best = cand
        return dict(best)
    out: dict[int, int] = {}
    for (w, k) in sorted(scores, key=lambda p: (-scores[p][1], scores[p][2])):
        if w not in out and k not in out.values():
            out[w] = k
    return out


def measure(page: Path) -> tuple[int, int, int, list[str]]:
    expected = sorted(page.parent.glob(f"{page.stem}-[0-9]*.toml")) or [page.with_suffix(".toml")]
    specs = [sa.load(p) for p in expected]
    try:
        exs = [e.spec for e in sa.import_examples(page.read_text(encoding="utf-8"), source=page.name)]
    except SymattnError as e:
        exs = []
        err = str(e)
    else:
        err = ""
    total = right = extra = 0
    missing: list[str] = [err] if err else []
    pairs = _pair(specs, exs)
    for w, want in enumerate(specs):
        k = pairs.get(w)
        t, r, x, miss = _score(exs[k] if k is not None else None, want)
        total, right, extra = total + t, right + r, extra + x
        missing += miss
    used = set(pairs.values())
    for k, got in enumerate(exs):  # whole examples the reader does not see: all extras
        if k not in used:
            extra += sum(map(len, numbers(got)))
    return total, right, extra, missing


def main(dirs: list[str]) -> None:
    T = R = X = 0
    for d in dirs or [str(Path(__file__).parent)]:
        for page in sorted(Path(d).iterdir()):
            if page.suffix not in SUFFIXES or not page.is_file():
                continue
            t, r, x, miss = measure(page)
            T, R, X = T + t, R + r, X + x
            print(f"{page.name:28s} {r:4d}/{t:<4d} {100 * r / max(t, 1):5.1f}%  extras {x}")
            for m in miss[:12]:
                print("      missed:", m)
            if len(miss) > 12:
                print(f"      … {len(miss) - 12} more")
    print(f"{'TOTAL':28s} {R:4d}/{T:<4d} {100 * R / max(T, 1):5.1f}%  extras {X}")


if __name__ == "__main__":
    main(sys.argv[1:])
