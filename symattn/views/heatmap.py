"""What a heatmap of a step shows, written once for every picture of it.

A heatmap draws one queries × keys step (the weights by default; the scores, the masked
scores, or the gradients dP, dS of the backward pass): query tokens down, key tokens
across, each cell filled by the colour rule below and annotated with its certified
decimal; masked cells are grey and hatched, outside the colour scale. A multi-head
example gives one panel per head. The matplotlib figure (:mod:`symattn.views.plot`), the
LaTeX picture (:mod:`symattn.views.heatmap_tex`) and Jupyter's display draw this data and
nothing else; nothing here computes a value: the numbers are the steps' certified decimals.

The colour rule: values that are all ≥ 0 go from white (the smallest; 0 for the weights,
which are probabilities) to dark blue (the largest), so the largest weight is the darkest
cell; values of both signs (gradients) go from dark blue (the most negative) through white
(0) to dark red (the most positive), symmetric about 0.

>>> import symattn as sa
>>> h = heatmap(sa.derive(sa.load("i_love_statistics")))
>>> h.panels[0].rows, h.panels[0].cols
(['love'], ['I', 'love', 'statistics'])
>>> [c.text for c in h.panels[0].cells[0]]
['0.305', '0.339', '0.357']
>>> h.scale.kind, h.scale.lo, h.scale.colour(h.scale.level(h.scale.hi))
('sequential', 0.0, (8, 81, 156))
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from ..display import render
from ..errors import SymattnError
from ..limits import HEATMAP_ANNOTATE_MAX, HEATMAP_MAX_SIDE
from ..pipeline.steps import Derivation, Step

__all__ = ["STEPS", "Cell", "Panel", "Scale", "Heatmap", "heatmap", "MASKED_FILL", "MASKED_HATCH"]

#: steps a heatmap can show (queries × keys), and what each is called in a title
STEPS = {
    "weights": "attention weights P",
    "scores": "scores S = QKᵀ",
    "scaled": "scaled scores S̃",
    "masked": "masked scores Ŝ",
    "dP": "gradient dP = ∂L/∂P",
    "dS": "gradient dS = ∂L/∂S̃",
    "dB": "gradient dB = ∂L/∂B",
    "dscores": "gradient ∂L/∂S",
    # the score variants (issue 13)
    "energies": "energies (additive score)",
    "dE": "gradient dE (energies)",
    "dA": "gradient dA (linear scores)",
    "window": "sliding-window mask (1 = visible)",
    # positions (issue 13): tokens × dimensions, and the ALiBi bias
    "pe": "sinusoidal positional encoding PE",
    "embedded": "inputs plus positions X + PE",
    "Q_rot": "rotated queries RoPE(Q)",
    "K_rot": "rotated keys RoPE(K)",
    "alibi": "ALiBi bias −m·|i − j|",
    "biased": "scores with the ALiBi bias",
}
#: steps whose rows are tokens and columns dimensions (not queries × keys)
TOKEN_STEPS = ("pe", "embedded", "Q_rot", "K_rot")
#: steps shared by every head
SHARED_STEPS = ("pe", "embedded")
#: steps whose masked cells are drawn masked (from the mask on; scores before it are real numbers)
MASKED_STEPS = ("masked", "weights", "dP", "dS", "dB", "dscores", "dA", "window")
#: gradient steps: the backward pass draws them
GRADIENT_STEPS = ("dP", "dS", "dB", "dscores", "dE", "dA")

WHITE = (255, 255, 255)
HIGH = (8, 81, 156)  # the largest value (sequential), the most negative (diverging): dark blue
POSITIVE = (178, 24, 43)  # the most positive value (diverging): dark red
MASKED_FILL = (217, 217, 217)  # light grey: not on either scale (neither passes through grey)
MASKED_HATCH = (115, 115, 115)  # the hatching over it


@dataclass(frozen=True)
class Cell:
    """One cell: its certified decimal, its value for the colour (None when masked to −∞),
    whether it is masked, and its level on the scale (0..1; −1..1 on a diverging scale)."""

    text: str
    value: float | None
    masked: bool
    level: float


@dataclass(frozen=True)
class Panel:
    """One heatmap: a step of one head, its row (query) and column (key) labels and cells."""

    title: str
    step: str
    rows: list[str]
    cols: list[str]
    cells: list[list[Cell]]


@dataclass(frozen=True)
class Scale:
    """The colour rule, shared by every panel of a picture."""

    kind: str  # "sequential" or "diverging"
    lo: float
    hi: float

    def level(self, x: float) -> float:
        """Where ``x`` sits: 0..1 (sequential, lo..hi), −1..1 (diverging, −hi..hi)."""
        if self.kind == "diverging":
            return 0.0 if self.hi == 0 else max(-1.0, min(1.0, x / self.hi))
        if self.hi == self.lo:
            return 0.5
        return max(0.0, min(1.0, (x - self.lo) / (self.hi - self.lo)))

    def colour(self, level: float) -> tuple[int, int, int]:
        """The fill of a level: white mixed linearly with the end colour of its side."""
        end = POSITIVE if self.kind == "diverging" and level > 0 else HIGH
        t = abs(level)
        return tuple(round(w + (e - w) * t) for w, e in zip(WHITE, end))  # type: ignore[return-value]

    def stops(self) -> list[tuple[float, tuple[int, int, int]]]:
        """The scale as (position 0..1, colour) stops, for a colour bar."""
        if self.kind == "diverging":
            return [(0.0, HIGH), (0.5, WHITE), (1.0, POSITIVE)]
        return [(0.0, WHITE), (1.0, HIGH)]

    @property
    def vmin(self) -> float:
        return -self.hi if self.kind == "diverging" else self.lo


@dataclass(frozen=True)
class Heatmap:
    """A picture of one step: panels (one per head), the shared scale, a title and a caption."""

    title: str
    caption: str
    step: str
    example: str  # the example's title
    label: str  # the colour bar's label
    panels: list[Panel]
    scale: Scale
    annotated: bool  # cells carry their decimals (small enough to read)
    digits: int

    def _repr_svg_(self) -> str | None:
        """Jupyter shows the picture (drawn by :mod:`symattn.views.plot`; needs matplotlib).
        For a matplotlib ``Figure`` to adjust or save: ``symattn.views.plot.figure(h)``."""
        return render(self, "svg")


def _step_names(d: Derivation, step: str, head: int | None) -> list[tuple[str, str]]:
    heads = int(d.convention.get("heads", 1) or 1)
    if head is not None and not 1 <= head <= heads:
        raise SymattnError(f"--head: this example has {heads} head{'s' if heads != 1 else ''}, "
                           f"so the head is 1{'' if heads == 1 else f' to {heads}'}, got {head}")
    if heads == 1 or step in SHARED_STEPS or step == "window":  # one step for every head
        return [(step, "")]
    chosen = [head] if head is not None else list(range(1, heads + 1))
    return [(f"head{h}.{step}", f"head {h}") for h in chosen]


def _query_rows(d: Derivation, st: Step) -> list[int]:
    """Rows of the full queries × keys matrix that the step shows (all, or the focus query)."""
    n = d.spec.n_queries
    if st.name.split(".")[-1] in TOKEN_STEPS:
        return list(range(st.shape[0]))
    if st.shape[0] == n:
        return list(range(n))
    if d.query is not None and st.shape[0] == 1:
        return [d.query]
    return list(range(st.shape[0]))  # pragma: no cover - every attention step is one of the above


def heatmap(d: Derivation, step: str = "weights", head: int | None = None, digits: int = 3) -> Heatmap:
    """The heatmap of ``step`` (see :data:`STEPS`) of a derivation or, for dP, dS and dB, of
    its backward pass (a :class:`~symattn.pipeline.backward.Gradient`).

    ``head`` picks one head of a multi-head example (1-based); by default every head gets
    a panel. ``digits`` are the significant digits of the decimals in the cells.
    """
    if step not in STEPS:
        raise SymattnError(f"--step: a heatmap shows one of {', '.join(STEPS)}; got {step!r}")
    if step in GRADIENT_STEPS and not hasattr(d, "forward"):
        raise SymattnError(f"--step {step} is a gradient: draw it from the backward pass (symattn plot "
                           f"FILE --step {step}, or sa.grad(d))")
    if d.spec.symbolic:
        raise SymattnError("a heatmap needs numbers, and this example has symbols")
    names = _step_names(d, step, head)
    missing = [n for n, _ in names if n not in d]
    if missing:
        why = " (the example has no mask or bias)" if step == "masked" or step == "dB" else (
            " (the example has no sliding window)" if step == "window" else "")
        raise SymattnError(f"--step {step}: this example has no step {missing[0]!r}{why}")
    steps = [d[n] for n, _ in names]
    n_rows, n_cols = steps[0].shape[0], steps[0].shape[1]
    if max(n_rows, n_cols) > HEATMAP_MAX_SIDE:
        raise SymattnError(f"a heatmap shows at most {HEATMAP_MAX_SIDE} queries and keys, and this step is "
                           f"{n_rows}×{n_cols}; pick a query with --query")
    neg_inf, replaced = d.spec.masked_pairs() if step in MASKED_STEPS else (set(), set())
    blocked = neg_inf | replaced
    raw: list[tuple[Step, list[list[tuple[str, float | None, bool]]]]] = []
    finite: list[float] = []
    for st in steps:
        dec = st.decimals(digits)
        assert dec is not None  # numeric examples have decimals
        qrows = _query_rows(d, st)
        grid = []
        for i, row in enumerate(dec):
            out = []
            for j, text in enumerate(row):
                value = None if text in ("-inf", "inf") else float(text)
                masked = (qrows[i], j) in blocked or value is None
                if value is not None and not masked:
                    finite.append(value)
                out.append((text, value, masked))
            grid.append(out)
        raw.append((st, grid))
    scale = _scale(step, finite)
    panels = [Panel(title, st.name, list(st.row_labels), list(st.col_labels),
                    [[Cell(t, v, m, 0.0 if m or v is None else scale.level(v)) for t, v, m in row] for row in grid])
              for (st, grid), (_, title) in zip(raw, names)]
    annotated = max(n_rows, n_cols) <= HEATMAP_ANNOTATE_MAX
    example = getattr(d, "forward", d).title
    caption = _caption(d, scale, annotated, digits, bool(blocked))
    if step in TOKEN_STEPS:
        caption = caption.replace("rows: queries; columns: keys", "rows: tokens (by position); columns: dimensions")
    return Heatmap(f"{example}: {STEPS[step]}", caption, step,
                   example, _bar_label(step), panels, scale, annotated, digits)


def _scale(step: str, values: Sequence[float]) -> Scale:
    if not values:
        return Scale("sequential", 0.0, 1.0)
    lo, hi = min(values), max(values)
    if step == "window":  # 0/1: outside/inside
        return Scale("sequential", 0.0, 1.0)
    if lo >= 0:
        return Scale("sequential", 0.0 if step == "weights" else lo, hi)
    return Scale("diverging", 0.0, max(abs(lo), abs(hi)))


def _bar_label(step: str) -> str:
    return {"weights": "weight", "scores": "score", "scaled": "scaled score", "masked": "masked score",
            "window": "visible"}.get(
        step, step)


def _caption(d: Derivation, scale: Scale, annotated: bool, digits: int, masked: bool) -> str:
    c = d.convention
    parts = ["rows: queries; columns: keys"]
    if annotated:
        parts.append(f"each cell its certified decimal ({digits} significant digits)")
    else:
        parts.append("too many cells to print their decimals: the colour bar gives the scale")
    if masked:
        parts.append("grey hatched: masked")
    if scale.kind == "diverging":
        parts.append("blue < 0 < red")
    norm = (f" · softmax over {c['softmax_axis']}" if c.get("score") != "linear"
            else f" · score linear (φ = {c['feature_map']}): no softmax, weights φ(q)·φ(k) over their row sum")
    conv = (f"layout {c['layout']}" + (f" · score {c['score']}" if c.get("score") not in (None, "dot", "linear") else "")
            + (f" · scale {c['scale']}" if c.get("score") != "linear" else "") + f" · mask {c['mask']}"
            + (" + bias" if c.get("bias") else "")
            + (f" · window [{c['window'][0]}, {c['window'][1]}]" if c.get("window") else "")
            + (f" · {c['kv_heads']} key/value heads" if c.get("kv_heads") else "") + norm
            + (f" · loss {c['loss']}" if c.get("loss") else ""))
    return "; ".join(parts) + ". Conventions: " + conv + "."
