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

The cell model (one definition, used by the optimal chart of
:func:`.solve` and by every chart read off an agent): a
column is an upcard class and a pair row a pair class, each named by
:func:`card_label` (``"A"`` the ace, ``"T"`` a ten-value card, ``"2"``..``"9"``;
under custom card values that make a non-ace card worth 1, ``"1"`` is that card,
a column and a pair row of its own beside the ace's ``"A"``). :func:`label_card`
reads a label back, and :func:`cell_state` gives the one :class:`DecisionState`
a cell stands for: its first two cards at the first decision.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from blackjack_env.analysis.chart_draw import chart_figure
from blackjack_env.analysis.state import DecisionState
from blackjack_env.engine.play import (
    dealer_peeks,
    is_natural,
    natural_counts,
    play_actions,
    pre_peek_actions,
    score,
    split_allowed,
)
from blackjack_env.engine.rules import Rules
from blackjack_env.engine.table import Action

__all__ = ["Chart", "Play", "card_label", "cell_state", "label_card"]


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


def card_label(value: int, ace: bool) -> str:
    """The chart label of a card class (an upcard column, a pair row): ``"A"`` for the
    ace, ``"T"`` for a ten-value card, else the value (``"1"`` for a non-ace card
    worth 1 under custom values: a class of its own, never the ace's ``"A"``)."""
    if ace:
        return "A"
    return "T" if value == 10 else str(value)


#: The label of a pair row (the same naming as the columns).
pair_label = card_label


def label_card(label: str) -> tuple[int, bool]:
    """``(value, is_ace)`` of a chart label: the inverse of :func:`card_label`
    (``"A"`` -> ``(1, True)``, ``"T"`` -> ``(10, False)``, ``"1"`` -> ``(1, False)``)."""
    text = str(label).strip().upper()
    if text == "A":
        return 1, True
    if text == "T":
        return 10, False
    if text.isdigit() and 1 <= int(text) <= 10:
        return int(text), False
    raise ValueError(f"chart label {label!r} is not a card class; use 'A', 'T' or '1'..'9'")


def state_labels(state: DecisionState) -> tuple[str, str | None]:
    """``(upcard column, pair row or None)`` of a decision state, by the cell model."""
    pair = None
    if state.pair is not None:
        # a pair of aces is the one soft pair (a pair of value-1 non-aces totals a hard 2)
        pair = card_label(state.pair, state.soft and state.pair == 1)
    return card_label(state.dealer, state.dealer_ace), pair


def cell_state(
    rules: Rules,
    kind: str,
    row: int | str,
    upcard: str,
    *,
    double: bool = True,
    surrender: bool = True,
    split: bool = True,
) -> DecisionState:
    """The :class:`DecisionState` a chart cell stands for: a dealt (not split) hand at its
    first decision, with every option the rules allow against the upcard.

    ``kind``: ``"hard"`` / ``"soft"`` (``row`` the total) or ``"pair"`` (``row`` a pair
    label, :func:`card_label`); ``upcard``: a column label. ``double`` / ``surrender`` /
    ``split`` False leave that option out (how a chart asks what a "D" or an "R" falls
    back to). A surrender cell also covers an early surrender asked before the peek, so
    SURRENDER is listed where the rules ask it there. Legal actions are the engine's
    (:func:`.play_actions`)."""
    up_value, up_ace = label_card(upcard)
    if kind == "pair":
        value, ace = label_card(str(row))
        total, soft = score(2 * value, ace)
        pair: int | None = value
    elif kind in ("hard", "soft"):
        total, soft, pair = int(row), kind == "soft", None
    else:
        raise ValueError(f"kind={kind!r}; use 'hard', 'soft' or 'pair'")
    natural = soft and total == 21 and is_natural(2, 11, True, natural_counts(rules, False))
    legal = play_actions(
        rules, two_cards=True, total=total, soft=soft,
        can_split=split and split_allowed(rules, pair=pair is not None, hands=1,
                                          split_aces=False),
        split_aces=False, from_split=False, hands=1, up_value=up_value, up_ace=up_ace,
        afford_double=double)
    if surrender and dealer_peeks(rules, up_value, up_ace) and Action.SURRENDER in (
            pre_peek_actions(rules, up_value=up_value, up_ace=up_ace, natural=natural,
                             insurance=False)):
        legal = tuple(sorted({*legal, Action.SURRENDER}))
    if not surrender:
        legal = tuple(a for a in legal if a is not Action.SURRENDER)
    return DecisionState(total=total, soft=soft, cards=2, pair=pair, dealer=up_value,
                         dealer_ace=up_ace, natural=natural, split=False, split_aces=False,
                         hands=1, pre_peek=False, legal=legal)


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
        """The code at ``kind`` ("hard", "soft", "pair"), ``row`` and ``upcard``.

        ``upcard`` and a pair ``row`` are labels of the chart (:func:`card_label`: "A",
        "T", "2".."9", and "1" where custom values make a non-ace card worth 1), or the
        usual aliases: a value (1 or 11 = ace, 10 = ten), "10", and "J" / "Q" / "K" for
        the ten-value column. A label the chart has is always read as that label."""
        tables: dict[str, dict[Any, tuple[Play, ...]]] = {
            "hard": self.hard, "soft": self.soft, "pair": self.pairs
        }
        table = tables.get(kind)
        if table is None:
            raise ValueError(f"kind={kind!r}; use 'hard', 'soft' or 'pair'")
        label = _chart_label(upcard, self.upcards, faces=True)
        key: Any = row
        if kind == "pair":
            key = _chart_label(row, tuple(self.pairs), faces=False)
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
        label, pair = state_labels(state)
        col = self.upcards.index(label)
        legal = state.legal
        pair_row = None if pair is None else self.pairs.get(pair)
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

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Chart:
        """Inverse of :meth:`to_dict`."""

        def plays(table: dict[str, list[str]], key: Any) -> dict[Any, tuple[Play, ...]]:
            return {key(k): tuple(Play(v) for v in row) for k, row in table.items()}

        return cls(upcards=tuple(data["upcards"]), hard=plays(data["hard"], int),
                   soft=plays(data["soft"], int), pairs=plays(data["pairs"], str),
                   title=data.get("title", ""), meta=dict(data.get("meta", {})))

    def plot(self, path: str | None = None) -> Any:
        """Draw the chart colour-coded with matplotlib; save to ``path`` (PNG) if given.
        Returns the figure. The drawing is the one of every chart picture (``chart.png``,
        ``blackjack-analyze --chart``): :func:`blackjack_env.analysis.chart_draw.chart_figure`."""
        fig = chart_figure([self], title=self.title)
        if path is not None:
            fig.savefig(path, dpi=110, format="png")
        return fig


def _chart_label(label: str | int, labels: tuple[str, ...], faces: bool) -> str:
    """A card given to :meth:`Chart.cell` as the chart's own label (see there)."""
    if isinstance(label, int) and not isinstance(label, bool):
        return "A" if label in (1, 11) else ("T" if label == 10 else str(label))
    text = str(label).strip().upper()
    if text in labels:
        return text
    aliases = {"10": "T", "1": "A", "11": "A"}
    if faces:
        aliases.update({"J": "T", "Q": "T", "K": "T"})
    return aliases.get(text, text)
