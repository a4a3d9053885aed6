"""The ``symattn`` command.

Exit status: 0 success; 2 bad input (one line on stderr naming the file, the
field and the problem; no traceback). ``symattn check`` exits 1 when a printed
number is wrong.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path
from typing import NoReturn, Sequence

from . import __version__
from .errors import SymattnError

DEFAULT_EXAMPLE = "i_love_statistics"


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors and exit status 2."""

    def error(self, message: str) -> NoReturn:
        sys.stderr.write(f"{self.prog}: error: {message} (see {self.prog} --help)\n")
        raise SystemExit(2)


def write_output(text: str, path: str | None) -> None:
    """Write to stdout, or to ``path`` atomically (a temp file renamed into place)."""
    if path is None or path == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.is_dir():
        raise SymattnError(f"{path}: the folder {folder} does not exist")
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _digits(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number of digits, got {text!r}") from None
    return n


def _steps(text: str) -> list[str]:
    return [s.strip() for s in text.split(",") if s.strip()]


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="symattn", description="Attention, softmax(QKᵀ/√d_k)·V, worked in exact arithmetic.")
    p.add_argument("--version", action="version", version=f"symattn {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    d = sub.add_parser("derive", help="derive attention step by step for a worked example",
                       description="Derive attention step by step: formula, one entry written out, exact "
                                   "value, certified decimals.")
    d.add_argument("file", nargs="?", default=DEFAULT_EXAMPLE,
                   help=f"example file (TOML) or built-in example name (default: {DEFAULT_EXAMPLE})")
    d.add_argument("--digits", type=_digits, default=6, help="significant digits, each certified (default 6)")
    d.add_argument("--query", help="derive one query row only: a token name or a 1-based index")
    d.add_argument("--steps", type=_steps, help="comma-separated steps to show, e.g. output,weights")
    d.add_argument("--json", action="store_true", help="print JSON instead of text")
    d.add_argument("--exact", action="store_true", help="always include exact closed forms")
    d.add_argument("-o", "--output", help="write to this file (atomically) instead of stdout")

    c = sub.add_parser("check", help="check a worked example's printed numbers (its [claims])",
                       description="Check every printed number: a verdict for each, the first step that went "
                                   "wrong, whether later steps follow from the page's own numbers, and the "
                                   "convention the author used. Exit status 0: all right; 1: something wrong; "
                                   "2: bad input.")
    c.add_argument("file", nargs="?", default=DEFAULT_EXAMPLE,
                   help=f"example file (TOML) with [claims], or a built-in example name (default: {DEFAULT_EXAMPLE})")
    c.add_argument("--json", action="store_true", help="print JSON (same as --format json)")
    c.add_argument("--format", choices=("text", "markdown", "json"), default="text", help="output format")
    c.add_argument("--inputs-rounded", action="store_true",
                   help="the page printed its inputs rounded: judge claims against every input within its rounding")
    c.add_argument("--no-diagnosis", action="store_true", help="skip trying alternative conventions")
    c.add_argument("-o", "--output", help="write to this file (atomically) instead of stdout")

    e = sub.add_parser("examples", help="list the built-in examples")
    e.add_argument("--json", action="store_true", help="print JSON")
    return p


def _cmd_derive(args: argparse.Namespace) -> int:
    from .certify import check_digits
    from .derive import derive
    from .spec import load
    from .views.data import dumps

    check_digits(args.digits)
    spec = load(args.file)
    d = derive(spec, query=args.query)
    exact = True if args.exact else None
    if args.json:
        text = dumps(d.to_json(digits=args.digits, steps=args.steps, exact=exact))
    else:
        text = d.text(digits=args.digits, steps=args.steps, exact=exact)
    write_output(text, args.output)
    return 0


def _cmd_check(args: argparse.Namespace) -> int:
    from .check import check
    from .spec import load
    from .views.data import dumps

    spec = load(args.file)
    report = check(spec, inputs_rounded=True if args.inputs_rounded else None, diagnose=not args.no_diagnosis)
    fmt = "json" if args.json else args.format
    if fmt == "json":
        text = dumps(report.to_data())
    elif fmt == "markdown":
        text = report.markdown()
    else:
        text = report.text()
    write_output(text, args.output)
    return 0 if report.all_right else 1


def _cmd_examples(args: argparse.Namespace) -> int:
    from .spec import EXAMPLES_DIR, list_examples
    from .views.data import dumps

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
        if args.command == "derive":
            return _cmd_derive(args)
        if args.command == "check":
            return _cmd_check(args)
        if args.command == "examples":
            return _cmd_examples(args)
    except SymattnError as e:
        sys.stderr.write(f"symattn: {e}\n")
        return 2
    except KeyboardInterrupt:
        sys.stderr.write("symattn: interrupted\n")
        return 130
    except BrokenPipeError:  # pragma: no cover - e.g. `symattn derive | head`
        return 0
    parser.error(f"unknown command {args.command!r}")


def entry() -> None:  # console script
    raise SystemExit(main())


if __name__ == "__main__":  # pragma: no cover
    entry()
