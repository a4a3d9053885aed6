"""Helpers shared by the importer's snippet tables (tests/test_import_patterns_*.py)."""

import json

import symattn as sa


def imported(page, fmt="markdown"):
    """The examples `symattn import` finds in a snippet."""
    return sa.import_examples(page, format=fmt, source="snippet")


def claims(ex):
    """An imported example's main claims as a set of (step, row, values)."""
    return {(c.step, c.row, tuple(c.values)) for c in ex.claims if c.group is None}


def notebook(*cells):
    """A notebook of (source, printed output or None) code cells and plain strings (Markdown cells)."""
    out = []
    for c in cells:
        if isinstance(c, str):
            out.append({"cell_type": "markdown", "metadata": {}, "source": c})
        else:
            src, printed = c
            outputs = [{"output_type": "stream", "name": "stdout", "text": printed}] if printed else []
            out.append({"cell_type": "code", "metadata": {}, "execution_count": None, "source": src,
                        "outputs": outputs})
    return json.dumps({"cells": out, "metadata": {}, "nbformat": 4, "nbformat_minor": 5})
