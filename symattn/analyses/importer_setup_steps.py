"""Code that gives an example's inputs one at a time (``keys = …``, ``values = …``, then ``query = …``) after
another example: each new input starts a part of the page, and the parts before the last one pair the new
inputs with ones carried over from the example before (its queries, its values). Such a part prints
nothing, and each of its inputs is either carried over from an example before or given again to the one
after: it is a step of setting up that next example, not an example of its own (its numbers are all
in the examples around it), so it is dropped, with a note on the next example.
"""

from __future__ import annotations

from .importer_model import ImportedExample, Note


def _key(g) -> tuple[str, tuple]:
    return (str(g.where[0]) if g.where else "", tuple(tuple(r) for r in g.rows))


def drop_setup_steps(out: list[ImportedExample]) -> list[ImportedExample]:
    """``out`` (in page order) without the parts that are set-up steps of the example after them."""
    keep: list[ImportedExample] = []
    for i, ex in enumerate(out):
        if ex.claims or not ex.inputs or i + 1 >= len(out):
            keep.append(ex)
            continue
        before = {_key(g) for e in out[:i] for g in e.inputs.values()}
        after = {_key(g) for e in out[i + 1:] for g in e.inputs.values()}
        own = [k for k in (_key(g) for g in ex.inputs.values()) if k not in before]
        nxt = next((e for e in out[i + 1:] if e.claims), None)
        if own and nxt is not None and all(k in after for k in own):
            nxt.notes.append(Note("info", f"inputs given one at a time after the example before: the part at "
                                          f"{ex.first_line or '?'} pairs them with inputs carried over and prints "
                                          "nothing; its numbers are in this example"))
            continue
        keep.append(ex)
    return keep
