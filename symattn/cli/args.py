"""Argument types shared by the commands, and argparse with one-line errors."""

from __future__ import annotations

import argparse
import sys
from typing import NoReturn

__all__ = ["DEFAULT_EXAMPLE", "Parser", "digits_arg", "steps_arg"]

DEFAULT_EXAMPLE = "i_love_statistics"


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors and exit status 2."""

    def error(self, message: str) -> NoReturn:
        sys.stderr.write(f"{self.prog}: error: {message} (see {self.prog} --help)\n")
        raise SystemExit(2)


def digits_arg(text: str) -> int:
    """A whole number given on the command line (digits, rows, ...)."""
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number of digits, got {text!r}") from None
    return n


def steps_arg(text: str) -> list[str]:
    """A comma-separated list of names."""
    return [s.strip() for s in text.split(",") if s.strip()]
