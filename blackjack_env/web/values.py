"""The value of every choice, for the web table: ONE lookup, :func:`action_values`.

The page shows, for the hand to act, the expected value of each legal action and the
best one. Everything comes from :mod:`blackjack_env.analysis`; this module only picks
which analysis answers and says which one did:

* infinite deck (``decks=None``): the exact optimum, :func:`~blackjack_env.analysis.solve`;
* finite shoe: the values *given the cards that remain in the shoe* are the job of
  another part of the analysis that is not on main yet. Until it lands, a two-card
  hand's first decision is valued off the full shoe less its three known cards
  (:func:`~blackjack_env.analysis.hand_evs`) and every other decision from the
  infinite-deck solution of the same rules; the answer says so (``source`` and
  ``note``). Switching is one edit, in :func:`_finite_values`.

Values are per unit of the hand's bet, after the dealer's peek (as in
:meth:`~blackjack_env.analysis.Solution.action_values`). Rules the analysis cannot
serve (highest-hand settlement, bet raising, ...) give ``available=False`` and the
analysis' own reason; the game goes on.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

from blackjack_env.engine import ALL_CARDS, Action, Phase, Rules, Table

__all__ = ["Values", "action_values", "analysis_rules"]

#: what the page says when a finite shoe is valued without the cards that have gone
FINITE_NOTE = (
    "the exact values given the cards that remain in the shoe are not available yet: "
    "these do not see which cards have been dealt"
)


@dataclass(frozen=True)
class Values:
    """The values of the decision awaited, or why there are none.

    ``evs``: action -> expected value per unit of the hand's bet; ``best``: the action
    with the highest value; ``source``: which analysis answered; ``note``: a caveat to
    show beside the values; ``reason``: why no values are available.
    """

    available: bool
    evs: dict[Action, float] = field(default_factory=dict)
    best: Action | None = None
    source: str = ""
    note: str = ""
    reason: str = ""

    def to_json(self) -> dict[str, object]:
        return {
            "available": self.available,
            "evs": {a.name.lower(): v for a, v in self.evs.items()},
            "best": None if self.best is None else self.best.name.lower(),
            "source": self.source,
            "note": self.note,
            "reason": self.reason,
        }


def action_values(table: Table) -> Values | None:
    """Values of the legal actions of the hand the table waits on (None: no decision).

    This is the one place the web table asks the analysis for values.
    """
    if table.phase is not Phase.PLAYER_TURNS and table.phase is not Phase.INSURANCE:
        return None
    from blackjack_env.analysis import table_state
    from blackjack_env.analysis._model import check_supported

    rules = table.rules
    try:
        check_supported(rules)
    except ValueError as err:
        return Values(False, reason=f"no values for these rules: {err}")
    legal = table.legal_actions()
    if table.phase is Phase.INSURANCE and Action.SURRENDER not in legal:
        return Values(
            False,
            reason="insurance and even money are not valued by the analysis (it never "
            "takes them); the playing decisions after the peek are",
        )
    state = table_state(table)
    try:
        if rules.decks is None:
            evs, source, note = _infinite_values(rules, state), "exact, infinite deck", ""
        else:
            evs, source, note = _finite_values(table, state)
    except ValueError as err:
        return Values(False, reason=f"the analysis cannot value this decision: {err}")
    evs = {a: float(v) for a, v in evs.items() if a in legal}
    if not evs:
        return Values(False, reason="the analysis gave no value for the legal actions")
    best = max(evs, key=lambda a: evs[a])
    return Values(True, evs, best, source, note)


def analysis_rules(rules: Rules) -> Rules:
    """The rules as the analysis reads them: one seat (the other seats do not change a
    hand's value) and the shoe's deck count made explicit, so that one cached chart per
    rule set serves the values and the ``basic`` and ``counter`` seats, whatever the
    number of seats."""
    return rules.replace(decks=rules.shoe_decks, seats_per_deck=None, seats=1)


def _infinite_values(rules: Rules, state: object) -> dict[Action, float]:
    from blackjack_env.analysis import solve

    solution = solve(analysis_rules(rules).replace(decks=None))
    return solution.action_values(state)  # type: ignore[arg-type]


def _finite_values(table: Table, state: object) -> tuple[dict[Action, float], str, str]:
    """A finite shoe, valued with what the analysis has today: the first decision of a
    two-card hand off the full shoe less its three known cards (``hand_evs``; the later
    decisions follow the finite-shoe chart), every other decision from the infinite-deck
    solution. When the analysis of the cards that remain lands, call it here (with
    ``table.shoe.remaining_by_rank()``) and drop the note."""
    rules = analysis_rules(table.rules)
    hand = table.current_hand
    if (
        table.phase is Phase.PLAYER_TURNS
        and hand is not None
        and len(hand.cards) == 2
        and not hand.from_split
        and table.upcard is not None
    ):
        decks = rules.decks
        source = (f"full {decks}-deck shoe less these three cards "
                  f"(analysis.hand_evs)")
        ranks = sorted(int(card.rank) for card in hand.cards)
        evs = _two_card_evs(rules, ranks[0], ranks[1], int(table.upcard.rank))
        return dict(evs), source, FINITE_NOTE
    return (
        _infinite_values(rules, state),
        "infinite-deck solution of these rules (stand-in for the finite shoe)",
        FINITE_NOTE,
    )


@lru_cache(maxsize=4096)
def _two_card_evs(rules: Rules, rank1: int, rank2: int, up: int) -> dict[Action, float]:
    """``hand_evs`` for a two-card hand by ranks (suits do not change a value)."""
    from blackjack_env.analysis import hand_evs

    return hand_evs(rules, [ALL_CARDS[rank1 - 1], ALL_CARDS[rank2 - 1]], up)
