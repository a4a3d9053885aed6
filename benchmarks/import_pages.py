"""Import benchmark: `symattn import` on hostile pages of two sizes, against a real page in the same run.

Each row is a page made of one unit repeated (on one line, or one per line) to N characters and
to 4N: a linear reader takes about 4 times as long on the second, a quadratic one 16 times. The
baseline is the import of ``tests/pages/journey.md`` (a real worked example, 43 lines). Times are
best of ``--runs`` (interleaved, so a burst of load on a shared machine hits every row alike).

The units are the ways a page once took time quadratic in its size: a line of blanks (cut to
``MAX_BLANK_RUN``), a run of digits, a pipe-table row of empty cells, unclosed ``[`` and
``\\begin{bmatrix}``, labelled vectors (one heading search per block), entries with indices, and in
HTML a run of unclosed comments (Python's HTMLParser is quadratic in them: comments are removed first),
a paragraph of thousands of entities, and a page of ``<pre>`` printouts up to the block limit.

Run: ``python benchmarks/import_pages.py`` (``--size N``, ``--runs N``).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Callable

from symattn.analyses.importer import import_examples
from symattn.errors import SymattnError

UNITS = [
    ("blanks", " ", ""),
    ("ideographic spaces", "\u3000", ""),
    ("digits", "1", ""),
    ("empty table cells", "|", ""),
    ("unclosed [", "[1 ", ""),
    ("unclosed \\begin{bmatrix}", "\\begin{bmatrix} ", ""),
    ("labelled vectors, one a line", "word: [0.1, 0.2]", "\n"),
    ("entries with indices, one line", "α_{12} = 0.5 ", ""),
    ("entries with indices, one a line", "α_{12} = 0.5", "\n"),
    ("pairs a(b, c) = x, one a line", "a(b, c) = 0.5", "\n"),
    ("matrices reassigned, one a line", "K = [[1, 0], [0, 1]]", "\n"),
    ("hanging indented rows", "    [0.1, 0.2]", "\n"),
    ("named dots q_1^T k_1 = x, one a line", "q_1^T k_1 = 0.5", "\n"),
    ("HTML: inline <script> tags", "<script>var x=1;</script>", "html"),
    ("HTML: unclosed <!--", "<!--", "html"),
    ("HTML: a paragraph of entities", "&amp;", "html"),
    ("HTML: 475 and 1 900 <pre> printouts", "<pre>[0.1, 0.2]</pre>", "html"),
]


def _import(text: str, format: str = "markdown") -> Callable[[], object]:
    def run() -> object:
        try:
            return import_examples(text, format=format, source="bench")
        except SymattnError as e:  # refused (no worked example, or past a limit): answered, not hung
            return e
    return run


def cases(size: int) -> dict[str, tuple[Callable[[], object], Callable[[], object]]]:
    page = (Path(__file__).resolve().parent.parent / "tests" / "pages" / "journey.md").read_text(encoding="utf-8")
    out = {"baseline: tests/pages/journey.md": (_import(page), _import(page))}
    for name, unit, sep in UNITS:
        if sep == "html":  # an HTML page of the unit repeated (the <pre> row: below the block limit at both sizes)
            n = 1_900 * len(unit) // 4 if "<pre>" in unit else size
            out[name] = (_import(unit * (n // len(unit)), "html"), _import(unit * (4 * n // len(unit)), "html"))
            continue

        def text(n: int, unit: str = unit, sep: str = sep) -> str:
            body = (unit + sep) * (n // (len(unit) + len(sep)))
            return body if sep else "Q and K:\n" + body + "\n"
        out[name] = (_import(text(size)), _import(text(4 * size)))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size", type=int, default=50_000, help="characters of the smaller page (default 50 000)")
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    rows = cases(args.size)
    best = {k: [float("inf"), float("inf")] for k in rows}
    for _ in range(args.runs):
        for k, fs in rows.items():
            for i, f in enumerate(fs):
                t = time.perf_counter()
                f()
                best[k][i] = min(best[k][i], time.perf_counter() - t)
    base = best["baseline: tests/pages/journey.md"][0]
    print(f"pages of {args.size} and {4 * args.size} characters; best of {args.runs}; baseline {base * 1e3:.1f} ms")
    print(f"{'page':40} {'N (s)':>8} {'4N (s)':>8} {'4N / N':>7} {'N / baseline':>13}")
    for k, (a, b) in best.items():
        if k.startswith("baseline"):
            continue
        print(f"{k:40} {a:8.3f} {b:8.3f} {b / a:7.1f} {a / base:13.1f}")
    print("4N / N: about 4 for linear work, 16 for quadratic")


if __name__ == "__main__":
    main()
