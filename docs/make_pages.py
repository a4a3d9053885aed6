"""Render the page images of docs/ from a built-in example's LaTeX document.

    python docs/make_pages.py            # needs pdflatex and pdftoppm

It compiles the document `symattn latex i_love_statistics` prints (with its claims table)
and renders some of its pages to docs/i_love_statistics-page-N.png.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

DOCS = Path(__file__).resolve().parent
EXAMPLE = "i_love_statistics"
PAGES = (1, 4, 5)  # the conventions and first step, the weights, the output and the checked claims
DPI = 80


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        tex = Path(tmp) / f"{EXAMPLE}.tex"
        subprocess.run([sys.executable, "-m", "symattn", "latex", EXAMPLE, "-o", str(tex), "--pdf"], check=True)
        for page in PAGES:
            stem = DOCS / f"{EXAMPLE}-page-{page}"
            subprocess.run(["pdftoppm", "-png", "-r", str(DPI), "-f", str(page), "-l", str(page), "-singlefile",
                            str(tex.with_suffix(".pdf")), str(stem)], check=True)
            print(stem.with_suffix(".png"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
