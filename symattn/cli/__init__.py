"""The ``symattn`` command: one module per subcommand, each with ``add_parser`` and ``run``.

Exit status: 0 success; 2 bad input (one line on stderr naming the file, the
field and the problem; no traceback). ``symattn check`` exits 1 when a printed
number is wrong; ``symattn compare`` exits 1 when a kernel's output is outside the given bounds.
"""

from __future__ import annotations

import sys
from typing import Sequence

from .. import __version__
from ..errors import SymattnError
from . import check, compare, derive, examples, formula, grad, import_, latex, plot, prove, reference, softmax
from .args import Parser

__all__ = ["main", "entry", "build_parser", "COMMANDS"]

#: subcommand name -> its module (``add_parser(sub)``, ``run(args)``), in the order of ``--help``
COMMANDS = {"derive": derive, "check": check, "import": import_, "latex": latex, "plot": plot, "grad": grad,
            "softmax": softmax, "prove": prove, "parse-formula": formula, "examples": examples,
            "reference": reference, "compare": compare}


def build_parser() -> Parser:
    p = Parser(prog="symattn", description="Attention, softmax(QKᵀ/√d_k)·V, worked in exact arithmetic.")
    p.add_argument("--version", action="version", version=f"symattn {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    for module in COMMANDS.values():
        module.add_parser(sub)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.reconfigure(encoding="utf-8")  # type: ignore[union-attr]
        except (AttributeError, ValueError):  # pragma: no cover - unusual streams
            pass
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    try:
        return COMMANDS[args.command].run(args)
    except SymattnError as e:
        sys.stderr.write(f"symattn: {e}\n")
        return 2
    except KeyboardInterrupt:
        sys.stderr.write("symattn: interrupted\n")
        return 130
    except BrokenPipeError:  # pragma: no cover - e.g. `symattn derive | head`
        return 0


def entry() -> None:  # console script
    raise SystemExit(main())


if __name__ == "__main__":  # pragma: no cover
    entry()
