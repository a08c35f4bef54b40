"""Pictures: learning curves and policy charts beside the optimal chart (matplotlib, Agg).

:func:`agent_chart` reads an agent's greedy policy into the analysis's
:class:`~blackjack_env.analysis.Chart` form: for each cell (a two-card hand at
its first decision, with every option the rules allow) it asks the agent, and
writes the code a player would read (``D`` if it doubles and would hit when
doubling is not allowed, ``Ds`` if it would then stand; ``Rh``/``Rs``/``Rp``
likewise for surrender). Cells the table never asks about (a natural that
ends the hand, a 21 that stands by itself) are copied from the optimal chart.
A cell is asked as the one state the analysis's cell model gives for its labels
(:func:`blackjack_env.analysis.chart.cell_state`, which the optimal chart is built
from too): under custom card values a non-ace card worth 1 (terminal-21's jack) is a
column and a pair row ``"1"`` of its own, never the ace.
:func:`draw_comparison` draws it beside the optimal chart and outlines in red
every cell where they differ.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, cast

from blackjack_env.analysis import Chart, Play
from blackjack_env.analysis.chart import card_label as column_label
from blackjack_env.analysis.chart import cell_state as model_cell
from blackjack_env.analysis.chart_draw import card_label, chart_figure, pyplot, row_label
from blackjack_env.cli import atomic_path
from blackjack_env.engine import Action, Rules
from blackjack_env.engine.play import auto_stands, natural_stands

__all__ = [
    "agent_chart",
    "card_label",
    "cell_state",
    "chart_differences",
    "chart_figure",
    "draw_chart",
    "draw_comparison",
    "learning_curve",
    "learning_curve_figure",
    "row_label",
    "save_figure",
]


def _plain_steps(ax: Any) -> None:
    """Whole numbers with thousands separators on the x-axis (no "1e6" offset)."""
    # deferred: loads matplotlib (the optional [charts] extra)
    from matplotlib.ticker import FuncFormatter

    ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: f"{x:,.0f}"))


def save_figure(fig: Any, path: Path, dpi: int = 110) -> Path:
    """Save a figure as PNG, whole or not at all (a failed write keeps the old picture)."""
    plt = pyplot()
    path = Path(path)
    try:
        with atomic_path(path) as tmp:
            fig.savefig(tmp, dpi=dpi, format="png")
    finally:
        plt.close(fig)
    return path


def learning_curve(
    path: Path,
    title: str,
    blocks: Sequence[tuple[int, float]],
    grades: Sequence[tuple[int, float]] = (),
    optimal: float | None = None,
    xlabel: str = "rounds played",
    block_label: str = "mean reward per round (training, exploring)",
) -> Path:
    """The learning curve as a PNG (:func:`learning_curve_figure`), written whole."""
    fig = learning_curve_figure(title, blocks, grades, optimal, xlabel, block_label)
    return save_figure(fig, path)


def learning_curve_figure(
    title: str,
    blocks: Sequence[tuple[int, float]],
    grades: Sequence[tuple[int, float]] = (),
    optimal: float | None = None,
    xlabel: str = "rounds played",
    block_label: str = "mean reward per round (training, exploring)",
) -> Any:
    """The learning curve's figure: the training reward per block (top panel) and, when
    given, the exact return of the greedy policy with the optimum (bottom panel, on its
    own scale: the exploring reward does not set its range). Both share the x-axis.

    Each panel's legend sits above the panel, outside the plotting area, so it hides no
    point whatever the data (a short run's single graded point included); the title is
    the figure's."""
    plt = pyplot()
    graded = bool(grades) or optimal is not None
    if graded:
        fig, (top, bottom) = plt.subplots(2, 1, sharex=True, figsize=(7.5, 6.4),
                                          gridspec_kw={"height_ratios": (1, 1.3)})
    else:
        fig, top = plt.subplots(figsize=(7.5, 4.4))
        bottom = None
    if blocks:
        xs, ys = zip(*blocks, strict=True)
        top.plot(xs, ys, color="#7d8a9c", lw=0.9, label=block_label)
        _legend_above(top)
    else:
        top.text(0.5, 0.5, "no training episodes recorded", ha="center", va="center",
                 transform=top.transAxes, fontsize=8, color="#777")
    top.set_ylabel("reward per round")
    top.grid(alpha=0.3)
    fig.suptitle("\n".join(textwrap.wrap(title, 90)), fontsize=9)
    last = top
    if bottom is not None:
        if grades:
            gx, gy = zip(*grades, strict=True)
            bottom.plot(gx, gy, "o-", color="#1f5fbf", ms=3.5,
                        label="exact return of the greedy policy")
        if optimal is not None:
            bottom.axhline(optimal, color="#2a9d3f", ls="--", lw=1.2,
                           label=f"optimal {optimal:+.4f}")
        bottom.set_ylabel("expected return per unit bet")
        bottom.grid(alpha=0.3)
        _legend_above(bottom)
        last = bottom
    last.set_xlabel(xlabel)
    _plain_steps(last)
    fig.tight_layout()
    return fig


def _legend_above(ax: Any) -> None:
    """The axes' legend in one row just above its plotting area (outside it)."""
    ax.legend(fontsize=8, loc="lower left", bbox_to_anchor=(0.0, 1.0), ncol=2, frameon=False,
              borderaxespad=0.2, handlelength=2.0)


def cell_state(rules: Rules, kind: str, row: int | str, dealer: int | str, *,
               double: bool = True, surrender: bool = True, split: bool = True) -> Any:
    """The ``DecisionState`` of a chart cell: a two-card hand at its first decision
    (:func:`blackjack_env.analysis.chart.cell_state`, the one cell model). ``dealer``:
    a column label (``"A"``, ``"T"``, ``"2"``..``"9"``, ``"1"`` for a non-ace card worth
    1 under custom values) or a value 1..10 (1 = the ace)."""
    if isinstance(dealer, int) and not isinstance(dealer, bool):
        if not 1 <= dealer <= 10:
            raise ValueError(f"dealer={dealer}; use a value 1..10 (1 = ace) or a column label")
        dealer = column_label(dealer, dealer == 1)
    # (a bool dealer is refused there, by its label)
    return model_cell(
        rules, kind, row, cast(Any, dealer), double=double, surrender=surrender, split=split
    )


def agent_chart(policy: Callable[[Any], Action], rules: Rules, like: Any, title: str = "") -> Any:
    """The agent's chart over the same rows and upcards as the chart ``like``: each cell
    asked as the state :func:`cell_state` gives for its labels."""
    upcards = tuple(like.upcards)

    def asked(kind: str, row: Any) -> bool:
        """False for cells the table never asks about: a natural that ends the hand,
        a 21 that stands by itself."""
        if kind == "pair" or row != 21:
            return True
        if kind == "soft":  # a two-card soft 21: a natural (engine.play.natural_stands)
            return not natural_stands(rules)
        return not auto_stands(rules, row)

    def code(kind: str, row: Any, up: str) -> Any:
        if not asked(kind, row):
            table = like.pairs if kind == "pair" else getattr(like, kind)
            return table[row][upcards.index(up)]
        act = policy(cell_state(rules, kind, row, up))
        if act in (Action.DOUBLE, Action.SURRENDER):
            again = policy(cell_state(rules, kind, row, up, double=False, surrender=False))
            if act is Action.DOUBLE:
                return Play.DOUBLE_STAND if again is Action.STAND else Play.DOUBLE_HIT
            return {Action.STAND: Play.SURRENDER_STAND, Action.SPLIT: Play.SURRENDER_SPLIT}.get(
                again, Play.SURRENDER_HIT)
        return {Action.STAND: Play.STAND, Action.SPLIT: Play.SPLIT}.get(act, Play.HIT)

    hard = {r: tuple(code("hard", r, u) for u in upcards) for r in like.hard}
    soft = {r: tuple(code("soft", r, u) for u in upcards) for r in like.soft}
    pairs = {r: tuple(code("pair", r, u) for u in upcards) for r in like.pairs}
    return Chart(upcards, hard, soft, pairs, title=title)


def chart_differences(a: Any, b: Any) -> list[tuple[str, Any, str]]:
    """Cells (kind, row, upcard) where two charts with the same layout differ."""
    out = []
    for kind, ta, tb in (("hard", a.hard, b.hard), ("soft", a.soft, b.soft),
                         ("pair", a.pairs, b.pairs)):
        for row, plays in ta.items():
            for j, play in enumerate(plays):
                if tb[row][j] is not play:
                    out.append((kind, row, a.upcards[j]))
    return out


def draw_comparison(agent: Any, optimal: Any, path: Path, title: str = "") -> Path:
    """Agent chart (left) beside the optimal chart (right); differing cells outlined in red
    (:func:`chart_figure`), written whole to ``path``."""
    diffs = set(chart_differences(agent, optimal))
    fig = chart_figure([agent, optimal], diffs, title=f"{title}  ({len(diffs)} cell(s) differ)")
    return save_figure(fig, path)


def draw_chart(chart: Any, path: Path, title: str | None = None) -> Path:
    """One chart (``blackjack-analyze --chart``), drawn as :func:`draw_comparison` draws
    each of its two (:func:`chart_figure`), written whole to ``path``. ``title``: the
    figure's title (default: the chart's own)."""
    return save_figure(chart_figure([chart], title=chart.title if title is None else title),
                       path)
