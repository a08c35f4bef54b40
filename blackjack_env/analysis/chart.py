"""Basic-strategy charts: hard totals, soft totals and pairs by dealer upcard.

A :class:`Chart` is always *derived* from an analysis (see
:func:`blackjack_env.analysis.basic_strategy_chart`), never typed in. Cells hold
a :class:`Play` code, read as players read printed charts:

``H`` hit, ``S`` stand, ``D`` double (else hit), ``Ds`` double (else stand),
``P`` split, ``Rh`` / ``Rs`` / ``Rp`` surrender (else hit / stand / split).

"Else" applies when the option is not legal (a third card, a split hand
without DAS, surrender after a split, ...). A pair row is used while the pair
may still be split; otherwise the hand's hard or soft total row is used. Rows
for totals are used for hands of any number of cards (the chart is total
dependent).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from blackjack_env.analysis.state import DecisionState
from blackjack_env.engine.table import Action

__all__ = ["Chart", "Play"]


class Play(Enum):
    """A chart cell."""

    HIT = "H"
    STAND = "S"
    DOUBLE_HIT = "D"
    DOUBLE_STAND = "Ds"
    SPLIT = "P"
    SURRENDER_HIT = "Rh"
    SURRENDER_STAND = "Rs"
    SURRENDER_SPLIT = "Rp"

    @property
    def surrenders(self) -> bool:
        return self.value.startswith("R")


_FALLBACK = {
    Play.SURRENDER_HIT: Play.HIT,
    Play.SURRENDER_STAND: Play.STAND,
    Play.SURRENDER_SPLIT: Play.SPLIT,
}

#: Colours for drawn charts (the usual printed-chart palette).
COLOURS = {
    Play.HIT: "#f4f4f4",
    Play.STAND: "#f6d54a",
    Play.DOUBLE_HIT: "#5fb760",
    Play.DOUBLE_STAND: "#9fd68f",
    Play.SPLIT: "#5b8fd6",
    Play.SURRENDER_HIT: "#e0605c",
    Play.SURRENDER_STAND: "#eb9a94",
    Play.SURRENDER_SPLIT: "#b07ad6",
}


def code_from_evs(evs: dict[Action, float]) -> Play:
    """The chart code for one cell from the expected value of each legal action."""
    best = max(evs, key=lambda a: evs[a])
    if best is Action.SURRENDER:
        rest = {a: v for a, v in evs.items() if a in (Action.HIT, Action.STAND, Action.SPLIT)}
        second = max(rest, key=lambda a: rest[a])
        return {
            Action.HIT: Play.SURRENDER_HIT,
            Action.STAND: Play.SURRENDER_STAND,
            Action.SPLIT: Play.SURRENDER_SPLIT,
        }[second]
    if best is Action.DOUBLE:
        return Play.DOUBLE_HIT if evs[Action.HIT] >= evs[Action.STAND] else Play.DOUBLE_STAND
    return {Action.HIT: Play.HIT, Action.STAND: Play.STAND, Action.SPLIT: Play.SPLIT}[best]


def pair_label(value: int, ace: bool) -> str:
    if ace:
        return "A"
    return "T" if value == 10 else str(value)


@dataclass(frozen=True)
class Chart:
    """A derived basic-strategy chart.

    ``upcards``: column labels (``"2"``..``"9"``, ``"T"``, ``"A"``). ``hard`` /
    ``soft``: row total -> one :class:`Play` per upcard. ``pairs``: pair label
    (``"A"``, ``"2"``.. ``"T"``) -> plays. ``title``: what the chart was derived from.
    """

    upcards: tuple[str, ...]
    hard: dict[int, tuple[Play, ...]]
    soft: dict[int, tuple[Play, ...]]
    pairs: dict[str, tuple[Play, ...]]
    title: str = ""
    meta: dict[str, Any] = field(default_factory=dict)

    # ---------------------------------------------------------------- lookup
    def cell(self, kind: str, row: int | str, upcard: str | int) -> Play:
        """The code at ``kind`` ("hard", "soft", "pair"), ``row`` and ``upcard``
        (a label such as "T", "A", or a value, 1 = ace)."""
        label = _upcard_label(upcard)
        table = {"hard": self.hard, "soft": self.soft, "pair": self.pairs}.get(kind)
        if table is None:
            raise ValueError(f"kind={kind!r}; use 'hard', 'soft' or 'pair'")
        key: Any = row
        if kind == "pair":
            key = _pair_row(row)
        if key not in table:
            raise ValueError(f"chart has no {kind} row {row!r}; rows are {list(table)}")
        if label not in self.upcards:
            raise ValueError(f"chart has no upcard {upcard!r}; upcards are {self.upcards}")
        return table[key][self.upcards.index(label)]

    def _total_code(self, state: DecisionState, col: int) -> Play:
        table = self.soft if state.soft else self.hard
        row = table.get(state.total)
        if row is None:  # totals a two-card hand cannot reach: hit low, stand high
            return Play.HIT if state.total < 12 else Play.STAND
        return row[col]

    def action(self, state: DecisionState) -> Action:
        """The chart's legal action in ``state`` (a policy for evaluate_policy)."""
        label = "A" if state.dealer_ace else ("T" if state.dealer == 10 else str(state.dealer))
        col = self.upcards.index(label)
        legal = state.legal
        pair_row = None
        if state.pair is not None:
            pair_row = self.pairs.get(pair_label(state.pair, state.soft and state.pair == 1))
        if state.pre_peek:
            code = pair_row[col] if pair_row is not None else self._total_code(state, col)
            if code.surrenders and Action.SURRENDER in legal:
                return Action.SURRENDER
            return Action.DECLINE
        if pair_row is not None and Action.SPLIT in legal:
            code = pair_row[col]
        else:
            code = self._total_code(state, col)
        return self._resolve(code, legal, state, col)

    def _resolve(
        self, code: Play, legal: tuple[Action, ...], state: DecisionState, col: int
    ) -> Action:
        if code.surrenders:
            if Action.SURRENDER in legal:
                return Action.SURRENDER
            code = _FALLBACK[code]
        if code is Play.SPLIT:
            if Action.SPLIT in legal:
                return Action.SPLIT
            code = self._total_code(state, col)
            if code is Play.SPLIT or code.surrenders:
                code = _FALLBACK.get(code, Play.HIT)
                if code is Play.SPLIT:
                    code = Play.HIT
        if code in (Play.DOUBLE_HIT, Play.DOUBLE_STAND) and Action.DOUBLE in legal:
            return Action.DOUBLE
        if code in (Play.HIT, Play.DOUBLE_HIT) and Action.HIT in legal:
            return Action.HIT
        return Action.STAND

    __call__ = action

    # ---------------------------------------------------------------- output
    def to_text(self) -> str:
        """The chart as aligned text (three blocks: hard, soft, pairs)."""
        lines = [self.title] if self.title else []
        head = "        " + " ".join(f"{u:>3}" for u in self.upcards)
        for name, table, fmt in (
            ("Hard", self.hard, lambda r: f"{r}"),
            ("Soft", self.soft, lambda r: f"A,{r - 11}" if r > 12 else "A,A"),
            ("Pairs", self.pairs, lambda r: f"{r},{r}"),
        ):
            if not table:
                continue
            lines.append(f"{name}:")
            lines.append(head)
            for row, plays in table.items():
                label = fmt(row) if name != "Soft" else f"{row} {fmt(row)}"
                lines.append(f"{label:>7} " + " ".join(f"{p.value:>3}" for p in plays))
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "title": self.title,
            "upcards": list(self.upcards),
            "hard": {str(k): [p.value for p in v] for k, v in self.hard.items()},
            "soft": {str(k): [p.value for p in v] for k, v in self.soft.items()},
            "pairs": {str(k): [p.value for p in v] for k, v in self.pairs.items()},
            **({"meta": self.meta} if self.meta else {}),
        }

    def plot(self, path: str | None = None) -> Any:
        """Draw the chart colour-coded with matplotlib (imported here); save to ``path``
        if given. Returns the figure."""
        import matplotlib

        if path is not None:
            matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.patches import Patch

        blocks = [("Hard", self.hard), ("Soft", self.soft), ("Pairs", self.pairs)]
        blocks = [(n, t) for n, t in blocks if t]
        heights = [len(t) for _, t in blocks]
        fig, axes = plt.subplots(
            1, len(blocks), figsize=(4.2 * len(blocks), 0.32 * max(heights) + 1.6), squeeze=False
        )
        for ax, (name, table) in zip(axes[0], blocks, strict=True):
            rows = list(table)
            for i, row in enumerate(rows):
                for j, play in enumerate(table[row]):
                    ax.add_patch(
                        plt.Rectangle((j, -i - 1), 1, 1, facecolor=COLOURS[play], edgecolor="#555")
                    )
                    ax.text(j + 0.5, -i - 0.5, play.value, ha="center", va="center", fontsize=8)
            ax.set_xlim(0, len(self.upcards))
            ax.set_ylim(-len(rows), 0)
            ax.set_xticks([j + 0.5 for j in range(len(self.upcards))], list(self.upcards))
            ax.xaxis.tick_top()
            labels = [
                (f"A,{r - 11}" if r > 12 else "A,A") if name == "Soft" else
                (f"{r},{r}" if name == "Pairs" else str(r))
                for r in rows
            ]
            ax.set_yticks([-i - 0.5 for i in range(len(rows))], labels)
            ax.set_title(name, pad=22)
            ax.tick_params(length=0)
            for spine in ax.spines.values():
                spine.set_visible(False)
        handles = [Patch(facecolor=c, edgecolor="#555", label=p.value) for p, c in COLOURS.items()]
        fig.legend(
            handles=handles, loc="lower center", ncol=len(handles), fontsize=8, frameon=False
        )
        if self.title:
            fig.suptitle(self.title, fontsize=9)
        fig.tight_layout(rect=(0, 0.06, 1, 0.95))
        if path is not None:
            fig.savefig(path, dpi=120)
            plt.close(fig)
        return fig


def _upcard_label(upcard: str | int) -> str:
    if isinstance(upcard, int) and not isinstance(upcard, bool):
        return "A" if upcard in (1, 11) else ("T" if upcard == 10 else str(upcard))
    text = str(upcard).strip().upper()
    return {"10": "T", "J": "T", "Q": "T", "K": "T", "1": "A", "11": "A"}.get(text, text)


def _pair_row(row: int | str) -> str:
    if isinstance(row, int) and not isinstance(row, bool):
        return "A" if row in (1, 11) else ("T" if row == 10 else str(row))
    text = str(row).strip().upper()
    return {"10": "T", "1": "A", "11": "A"}.get(text, text)
