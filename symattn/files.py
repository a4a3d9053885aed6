"""Writing an output file: the one writer, shared by the command line and :mod:`symattn.testing`.

- A regular file (or a new one) is written atomically: a temp file in the same folder,
  then a rename over the target. The file gets the permissions a plain ``open()`` would
  give: those of the file it replaces, or 0666 less the user's umask for a new one.
- A target that exists and is not a regular file (a device such as ``/dev/null`` or
  ``/dev/full``, a FIFO, ``/dev/stdout``) is written to directly, never replaced.
- A symbolic link is followed: the file it points to is replaced, the link stays.
- The temp file is removed on any error and on SIGINT/SIGTERM (the command line turns
  SIGTERM into an exception while it writes).
- Every ``OSError`` becomes one line naming the path (:class:`symattn.errors.OutputError`).

>>> import os, tempfile
>>> d = tempfile.mkdtemp(); p = os.path.join(d, "out.txt")
>>> write_file(p, b"hello"); open(p, "rb").read(), os.listdir(d)
(b'hello', ['out.txt'])
>>> write_file(d, b"x")
Traceback (most recent call last):
...
symattn.errors.OutputError: ... is a folder; give a file name, e.g. .../out.txt
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile

from .display import escape
from .errors import OutputError

__all__ = ["write_file", "shown"]


def _fail(path: str, e: OSError) -> OutputError:
    reason = e.strerror or str(e)
    if e.errno == errno.ENAMETOOLONG:
        reason = "the file name is too long"
    return OutputError(path, f"{shown(path)}: cannot write: {reason}")


def shown(path: str) -> str:
    """A path for a one-line message: escaped, and cut to 200 characters."""
    return escape(path if len(path) <= 200 else path[:197] + "...")


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_file(path: str, data: bytes) -> None:
    """Write ``data`` to ``path``: atomically for a regular file, directly for anything else."""
    if "\x00" in path:
        raise OutputError(path, f"{shown(path)}: cannot write: the path holds a NUL character")
    try:
        try:
            st = os.stat(path)  # follows links: what the path names
        except FileNotFoundError:
            st = None
        if st is not None and stat.S_ISDIR(st.st_mode):
            raise OutputError(path, f"{shown(path)}: is a folder; give a file name, e.g. "
                               f"{shown(path.rstrip('/') or '/')}/out.txt")
        if st is not None and not stat.S_ISREG(st.st_mode):
            with open(path, "wb") as f:  # a device, FIFO or socket: written to, never replaced
                f.write(data)
            return
        real = os.path.realpath(path)  # a link to a regular file: replace the file, keep the link
        folder = os.path.dirname(real) or "."
        if not os.path.isdir(folder):
            raise OutputError(path, f"{shown(path)}: cannot write: the folder {shown(os.path.dirname(path) or '.')} "
                               "does not exist")
        mode = stat.S_IMODE(st.st_mode) if st is not None else 0o666 & ~_umask()
        _atomic(real, folder, data, mode)
    except OSError as e:
        raise _fail(path, e) from None


def _atomic(real: str, folder: str, data: bytes, mode: int) -> None:
    name = os.path.basename(real)
    fd, tmp = tempfile.mkstemp(prefix=f".{name[:64]}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            os.fchmod(f.fileno(), mode)
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, real)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


