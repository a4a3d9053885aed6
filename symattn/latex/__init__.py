"""LaTeX out (printer, documents) and in (numbers, matrices, formulas)."""
