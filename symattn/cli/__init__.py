"""The ``symattn`` command: one module per subcommand, each with ``add_parser`` and ``run``.

Exit status: 0 success; 2 bad input (one line on stderr naming the file, the
field and the problem; no traceback). ``symattn check`` exits 1 when a printed
number is wrong; ``symattn compare`` exits 1 when a kernel's output is outside the given bounds.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from typing import Any, Sequence

from .. import __version__
from ..errors import OptionError, SpecError, SymattnError
from . import check, compare, derive, examples, formula, grad, import_, latex, plot, prove, reference, softmax
from .args import Parser
from .messages import one_line

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
    digits_limit = _allow_printed_digits()
    previous = _sigterm_raises()
    try:
        return COMMANDS[args.command].run(args)
    except SymattnError as e:
        sys.stderr.write(f"symattn: {message(e, args)}\n")
        return 2
    except KeyboardInterrupt:
        sys.stderr.write("symattn: interrupted\n")
        return 130
    except _Terminated:
        sys.stderr.write("symattn: terminated\n")
        return 143
    except BrokenPipeError:  # pragma: no cover - e.g. `symattn derive | head`
        return 0
    except ModuleNotFoundError as e:  # an installation without a dependency: say which, not "report a bug"
        if os.environ.get("SYMATTN_DEBUG"):
            raise
        missing = _missing_dependency(e)
        if missing is None:
            return _internal_error(e)
        sys.stderr.write(f"symattn: this Python ({one_line(sys.executable)}) does not have {missing}, which symattn "
                         f"needs; install symattn with its dependencies: pip install -e . (in a clone) or "
                         f"pip install '{missing}'\n")
        return 2
    except Exception as e:  # a bug: still one line, unless SYMATTN_DEBUG asks for the traceback
        if os.environ.get("SYMATTN_DEBUG"):
            raise
        return _internal_error(e)
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
        if digits_limit is not None:
            sys.set_int_max_str_digits(digits_limit)


#: import name -> the package that provides it, for the dependencies pyproject.toml lists
DEPENDENCIES = {"sympy": "sympy", "flint": "python-flint", "mpmath": "mpmath",
                "latex2sympy2_extended": "latex2sympy2_extended"}


def _missing_dependency(e: ModuleNotFoundError) -> str | None:
    """The package to install when ``e`` is a missing dependency (None for anything else).

    >>> _missing_dependency(ModuleNotFoundError("No module named 'flint'", name="flint"))
    'python-flint'
    >>> _missing_dependency(ModuleNotFoundError("No module named 'symattn.nope'", name="symattn.nope")) is None
    True
    """
    return DEPENDENCIES.get((e.name or "").split(".")[0])


def _internal_error(e: BaseException) -> int:
    sys.stderr.write(f"symattn: internal error ({type(e).__name__}: {one_line(str(e))[:300]}); "
                     "please report it with the input (SYMATTN_DEBUG=1 shows the traceback)\n")
    return 70


def _allow_printed_digits() -> int | None:
    """Python refuses int-to-str conversions past 4300 digits; certified decimals go up to
    MAX_DIGITS. Raised while the command runs, to just above that limit (the inputs themselves are
    bounded far below it by the readers); returns the limit to restore."""
    from ..limits import MAX_DIGITS

    get = getattr(sys, "get_int_max_str_digits", None)
    if get is not None and 0 < get() < MAX_DIGITS + 100:
        old = get()
        sys.set_int_max_str_digits(MAX_DIGITS + 100)
        return old
    return None


class _Terminated(BaseException):
    """SIGTERM while a command runs: unwinds like Ctrl-C, so temp files are removed."""


def _sigterm_raises() -> Any:
    def handler(signum: int, frame: Any) -> None:
        raise _Terminated()

    try:
        return signal.signal(signal.SIGTERM, handler)
    except ValueError:  # not the main thread: leave signals alone
        return None


def message(e: SymattnError, args: argparse.Namespace) -> str:
    """The one line printed for an error: options shown as their flags, and the file the
    command was working on named when the error does not name one; control characters escaped."""
    text = f"--{e.option}: {e.message}" if isinstance(e, OptionError) else str(e)
    named = isinstance(e, SpecError) or e.file is not None
    label = getattr(args, "file", None) or getattr(args, "page", None)
    if label == "-":
        label = "<stdin>"
    if not named and label:
        from ..read.spec import example_path

        prefixes = [str(label), f"{label} (built-in example)"]
        stem = str(label)[:-5] if str(label).endswith(".toml") else str(label)
        if example_path(stem) is not None:
            prefixes.append(f"{stem} (built-in example)")
        prefixes += [p for p in (getattr(args, "target", None), getattr(args, "upstream", None)) if p]
        if not text.startswith(tuple(prefixes)):
            text = f"{label}: {text}"
    return one_line(text)


def entry() -> None:  # console script
    raise SystemExit(main())


if __name__ == "__main__":  # pragma: no cover
    entry()
