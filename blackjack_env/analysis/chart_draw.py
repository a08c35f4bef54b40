"""The one drawing of strategy charts (matplotlib, imported when drawing): the optimal
chart's :meth:`~blackjack_env.analysis.chart.Chart.plot`, ``chart.png`` of a training run
and ``blackjack-analyze --chart`` all call :func:`chart_figure`, and the agents' pictures
(:mod:`blackjack_env.agents.plots`) re-export it. It sits here, below the agents, so the
analysis draws its own charts without importing the layer above it; it reads a chart by
its attributes and imports nothing of :mod:`~blackjack_env.analysis.chart`, which imports
it (matplotlib itself loads only when a picture is drawn)."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from typing import Any

__all__ = ["COLOURS", "MEANING", "card_label", "chart_figure", "pyplot", "row_label"]


def pyplot() -> Any:
    """``matplotlib.pyplot`` on the file backend (Agg): every picture is drawn to a file."""
    # deferred: loads matplotlib (the optional [charts] extra)
    import matplotlib

    matplotlib.use("Agg")
    # deferred: loads matplotlib (the optional [charts] extra)
    import matplotlib.pyplot as plt

    return plt


def card_label(label: Any) -> str:
    """How the pictures and messages name a card: ``10`` for the ten, ``A`` for the ace."""
    text = str(label)
    return "10" if text in ("T", "10") else text


def row_label(kind: str, row: Any) -> str:
    """A chart row as a hand: ``16`` (hard), ``A,5`` (soft), ``10,10`` (pair)."""
    if kind == "soft":
        return f"A,{int(row) - 11}" if int(row) > 12 else "A,A"
    if kind == "pair":
        card = card_label(row)
        return f"{card},{card}"
    return str(row)


#: Colours of the chart codes (:class:`~blackjack_env.analysis.chart.Play` values) in drawn
#: charts (the usual printed-chart palette), in the legend's order.
COLOURS = {
    "H": "#f4f4f4", "S": "#f6d54a", "D": "#5fb760", "Ds": "#9fd68f", "P": "#5b8fd6",
    "Rh": "#e0605c", "Rs": "#eb9a94", "Rp": "#b07ad6",
}

#: What each chart code means, as the legend says it.
MEANING = {
    "H": "hit", "S": "stand", "D": "double, else hit", "Ds": "double, else stand",
    "P": "split", "Rh": "surrender, else hit", "Rs": "surrender, else stand",
    "Rp": "surrender, else split",
}


def chart_figure(charts: Sequence[Any], differing: Any = frozenset(), title: str = "") -> Any:
    """The one drawing of strategy charts: one column per chart (each titled by the chart's
    ``title`` when there are several), one row per block (hard totals, soft totals, pairs;
    those the first chart has). Columns are the dealer's upcard, rows the player's hand,
    both axes titled; each cell shows its code on the code's colour. Cells listed in
    ``differing`` (``(kind, row, upcard)``, see
    :func:`blackjack_env.agents.plots.chart_differences`) are outlined in
    red. The legend names, with its meaning, every code that appears in the charts, and
    the red outline when one is drawn."""
    # deferred: loads matplotlib (the optional [charts] extra)
    from matplotlib.patches import Patch, Rectangle

    plt = pyplot()
    first = charts[0]
    blocks = [(n, k) for n, k in (("hard totals", "hard"), ("soft totals", "soft"),
                                  ("pairs", "pair"))
              if getattr(first, "pairs" if k == "pair" else k)]
    counts = [len(getattr(first, "pairs" if k == "pair" else k)) for _, k in blocks]
    width = 5.2 * len(charts) if len(charts) > 1 else 5.6
    fig, axes = plt.subplots(len(blocks), len(charts), squeeze=False,
                             figsize=(width, 0.24 * sum(counts) + 1.1 * len(blocks) + 1.2),
                             gridspec_kw={"height_ratios": counts})  # cells of one size
    seen: set[str] = set()  # the codes drawn
    for col, chart in enumerate(charts):
        label = chart.title if len(charts) > 1 else ""
        for r, (name, kind) in enumerate(blocks):
            ax = axes[r][col]
            table = getattr(chart, "pairs" if kind == "pair" else kind)
            rows = list(table)
            for i, row in enumerate(rows):
                for j, play in enumerate(table[row]):
                    seen.add(play.value)
                    differs = (kind, row, chart.upcards[j]) in differing
                    ax.add_patch(Rectangle((j, -i - 1), 1, 1, facecolor=COLOURS[play.value],
                                           edgecolor="#d00000" if differs else "#666",
                                           lw=2.2 if differs else 0.5, zorder=3 if differs else 2))
                    ax.text(j + 0.5, -i - 0.5, play.value, ha="center", va="center", fontsize=7,
                            fontweight="bold" if differs else "normal", zorder=4)
            ax.set_xlim(0, len(chart.upcards))
            ax.set_ylim(-len(rows), 0)
            ax.set_xticks([j + 0.5 for j in range(len(chart.upcards))],
                          [card_label(u) for u in chart.upcards], fontsize=7)
            ax.xaxis.tick_top()
            ax.xaxis.set_label_position("top")
            ax.set_xlabel("dealer upcard", fontsize=7)
            ax.set_ylabel(f"player hand ({name})", fontsize=7)
            ax.set_yticks([-i - 0.5 for i in range(len(rows))],
                          [row_label(kind, x) for x in rows], fontsize=7)
            ax.tick_params(length=0)
            for spine in ax.spines.values():
                spine.set_visible(False)
            ax.set_title(f"{label}: {name}" if label else name, fontsize=8, pad=4)
    handles = [Patch(facecolor=c, edgecolor="#555",
                     label=f"{code} {MEANING.get(code, '')}".rstrip())
               for code, c in COLOURS.items() if code in seen]
    if differing:
        handles.append(Patch(facecolor="white", edgecolor="#d00000", lw=2,
                             label="differs from optimal"))
    legend = fig.legend(handles=handles, loc="lower center", fontsize=7, frameon=False,
                        ncol=min(len(handles), 5 if len(charts) > 1 else 3))
    heading = fig.suptitle("\n".join(textwrap.wrap(title, int(width * 14))), fontsize=9) \
        if title else None
    fig.canvas.draw()  # the sizes of the legend and title are known once drawn
    to_fig = fig.transFigure.inverted()
    low = legend.get_window_extent().transformed(to_fig).height + 0.01
    high = 1.0 - (heading.get_window_extent().transformed(to_fig).height + 0.015
                  if heading is not None else 0.0)
    fig.tight_layout(rect=(0, low, 1, high))
    return fig
