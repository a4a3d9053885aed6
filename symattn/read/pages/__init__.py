"""Pages in: Markdown, HTML, LaTeX, Jupyter notebooks and plain text read into a neutral
structure of lines and blocks (matrices, printouts, tables, word lists), each with the
line (or notebook cell) it came from. Nothing on a page is executed or fetched.
"""

from .formats import FORMATS, detect_format, normalise_format, read_page
from .model import Line, Numbers, Page, Table, Where, Words

__all__ = ["FORMATS", "detect_format", "normalise_format", "read_page", "Line", "Numbers", "Page", "Table",
           "Where", "Words"]
