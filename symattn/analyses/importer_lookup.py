"""Embeddings written as a lookup table keyed by word, and sentences that index it: a code object
``vocab = { "cat": [0.9, 0.1], "sat": [0.2, 0.7], … }`` (JavaScript, JSON or a Python dict, one word a
line) is one matrix of embeddings X whose rows the words name; lists of words elsewhere in the code
(``["cat", "sat"]``) each pick their rows of it (``X = words.map(w => vocab[w])``): one worked example per
list, with the same weights.

>>> object_name(['const vocab = {'])
'vocab'
"""

from __future__ import annotations

import re
from dataclasses import replace

from .importer_items import Item
from .importer_model import Given, ImportedExample
from .importer_names import step_of_ident

#: the line that opens an object literal: ``const vocab = {``, ``vocab = {``, ``"vocab": {``
_OPEN = re.compile(r"^\s*(?:(?:const|let|var)\s+)?[\"']?([A-Za-z_]\w{0,60})[\"']?\s*[=:]\s*\{\s*$")
_KEY = re.compile(r"^[\"']([^\"']{1,40})[\"']$")
_MAX_ROWS = 512


def object_name(above: list[str]) -> str | None:
    """The name of the object literal the last of these lines opens, or None."""
    m = _OPEN.match(above[-1]) if above else None
    return m.group(1) if m else None


def keyed_vectors(items: list[Item], lines: list) -> list[Item]:
    """Runs of code vectors, one a line, each labelled by a quoted word and all of one width, that are the
    entries of one object literal opened on the line above the first: joined into one matrix X with the
    words as its row labels (unless the object's name says another step)."""
    out: list[Item] = []
    i = 0
    while i < len(items):
        it = items[i]
        name = object_name([lines[it.line - 1].text]) if it.line > 0 and it.role == "code" else None
        run = [it]
        if name is not None and it.kind == "vector" and _KEY.match(it.label.strip()):
            while i + len(run) < len(items) and len(run) < _MAX_ROWS:
                nx = items[i + len(run)]
                if nx.role != "code" or nx.kind != "vector" or nx.line != run[-1].end + 1 or \
                        not _KEY.match(nx.label.strip()) or nx.shape[1] != it.shape[1]:
                    break
                run.append(nx)
        step = step_of_ident(name) if name else None
        if len(run) < 2 or step not in (None, "X"):
            out.append(it)
            i += 1
            continue
        words = [_KEY.match(x.label.strip()).group(1) for x in run]  # type: ignore[union-attr]
        if len(set(words)) != len(words):
            out += run
            i += len(run)
            continue
        out.append(Item(rows=[list(x.rows[0]) for x in run], where=[x.where[0] for x in run], line=run[0].line,
                        end=run[-1].end, kind="matrix", label=name or "", step="X", strength=2,
                        row_labels=words, role="code", form=run[0].form))
        i += len(run)
    return out


def sentences_of(ex: ImportedExample, lists: list[list[str]]) -> list[ImportedExample] | None:
    """An example of inputs only whose X is a word-keyed table, split into one example per list of its words
    (each list shorter than the table, words all in it): X the rows the list picks, in its order."""
    x = ex.inputs.get("X")
    if x is None or ex.claims or not ex.tokens or len(ex.tokens) != len(x.rows):
        return None
    picks = [w for w in lists if 1 < len(w) < len(ex.tokens) and all(t in ex.tokens for t in w)]
    if not picks:
        return None
    out = []
    for words in picks:
        idx = [ex.tokens.index(t) for t in words]
        inputs = dict(ex.inputs)
        inputs["X"] = Given([list(x.rows[i]) for i in idx], [x.where[i] if i < len(x.where) else x.where[0]
                                                             for i in idx], x.label)
        out.append(replace(ex, inputs=inputs, tokens=list(words), notes=list(ex.notes)))
    return out
