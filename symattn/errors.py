"""Errors that symattn reports to users.

Every error a user can cause is a :class:`SymattnError`. The command line prints
its one-line message and exits with status 2; no traceback.

>>> e = SpecError("page.toml", "inputs.X[1][2]", "expected a number, got 'abc'", line=4)
>>> str(e)
"page.toml:4: inputs.X[1][2]: expected a number, got 'abc'"
"""

from __future__ import annotations


class SymattnError(Exception):
    """Base class of every error caused by user input (exit status 2)."""


class SpecError(SymattnError):
    """A problem in a worked-example file, located by file, field and line."""

    def __init__(
        self,
        file: str | None,
        field: str | None,
        message: str,
        line: int | None = None,
        column: int | None = None,
    ) -> None:
        self.file = file
        self.field = field
        self.message = message
        self.line = line
        self.column = column
        super().__init__(self.__str__())

    def __str__(self) -> str:
        where = self.file or "<spec>"
        if self.line is not None:
            where += f":{self.line}"
            if self.column is not None:
                where += f":{self.column}"
        if self.field:
            return f"{where}: {self.field}: {self.message}"
        return f"{where}: {self.message}"


class LimitError(SymattnError):
    """A documented size limit was exceeded (see :mod:`symattn.limits`)."""


class CertificationError(SymattnError):
    """The decimals of a value could not be certified within the precision limit."""


class InputError(SymattnError):
    """A number or expression could not be read; ``column`` is 1-based within the text.

    The caller knows the file and the field, and wraps this in a :class:`SpecError`.
    """

    def __init__(self, message: str, column: int | None = None) -> None:
        self.message = message
        self.column = column
        super().__init__(message if column is None else f"{message} (at character {column})")


class FullyMaskedRow(SymattnError):
    """Every key of a query row is masked, so its softmax is 0/0."""

    def __init__(self, row: int) -> None:
        self.row = row
        super().__init__(f"row {row + 1} is fully masked (softmax of a row of -inf is 0/0)")


class UndefinedValueError(SymattnError):
    """A value is undefined (0/0, ∞ − ∞, NaN, a division by zero) or infinite where a finite
    number is needed. It gets no digits: this error names the step and the entry.

    >>> str(UndefinedValueError("weights[2, 1]", "row 2 sums to exactly 0", needed_for="output"))
    'weights[2, 1] is undefined: row 2 sums to exactly 0 (needed for output)'
    """

    def __init__(self, where: str, reason: str, needed_for: str | None = None) -> None:
        self.where = where
        self.reason = reason
        self.needed_for = needed_for
        super().__init__(self.__str__())

    def __str__(self) -> str:
        text = f"{self.where} is undefined: {self.reason}"
        return text + (f" (needed for {self.needed_for})" if self.needed_for else "")
