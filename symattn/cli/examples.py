"""`symattn examples`: the built-in examples."""

from __future__ import annotations

import argparse

from .output import write_output


def add_parser(sub: argparse._SubParsersAction) -> None:
    e = sub.add_parser("examples", help="list the built-in examples")
    e.add_argument("--json", action="store_true", help="print JSON")


def run(args: argparse.Namespace) -> int:
    from ..read.spec import EXAMPLES_DIR, list_examples
    from ..views.data import dumps

    items = list_examples()
    if args.json:
        write_output(dumps({"examples": [{"name": n, "title": t, "path": str(EXAMPLES_DIR / f"{n}.toml")}
                                         for n, t in items]}), None)
    else:
        width = max(len(n) for n, _ in items)
        lines = [f"{n.ljust(width)}  {t}" for n, t in items]
        lines.append("")
        lines.append(f"run one with: symattn derive NAME   (files in {EXAMPLES_DIR})")
        write_output("\n".join(lines) + "\n", None)
    return 0
