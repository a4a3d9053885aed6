"""Layer 5, *views*: every way a result is shown; nothing below imports a view.

``render`` (every view by type; the hooks behind ``print`` and Jupyter), ``text``,
``data`` (JSON), ``latex`` (documents and Markdown), ``report`` (check reports),
``proof`` (proofs, closed forms, formulas), ``printers`` (the LaTeX notation).
"""
