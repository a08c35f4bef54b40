"""The value of every choice, for the web table: ONE lookup, :func:`action_values`.

The page shows, for the hand to act, the expected value of each legal action and the
best one. Everything comes from :mod:`blackjack_env.analysis`; this module only picks
which analysis answers and says which one did (``source``, and ``note`` for a caveat):

* infinite deck (``decks=None``): the exact optimum, :func:`~blackjack_env.analysis.solve`;
* finite shoe: the values *given the cards the players have not seen* (the shoe's
  undealt cards and the face-down hole card), with composition-dependent play
  afterwards: :func:`~blackjack_env.analysis.composition.table_action_values`, for a
  hand of any number of cards, split hands included. Stand, hit, double and surrender
  are exact; a split is valued by the analysis' documented approximation (the note says
  so when ``split`` is among the values). Before the peek, where early surrender is
  offered, the values are those of surrendering against playing on, unconditioned on
  the peek (:func:`~blackjack_env.analysis.composition.pre_peek_values`).

Values are per unit of the hand's bet, after the dealer's peek (as in
:meth:`~blackjack_env.analysis.Solution.action_values`). Rules the analysis cannot
serve (highest-hand settlement, bet raising, ...) give ``available=False`` and the
analysis' own reason; the game goes on.

Cost per request: the analysis keeps the values of the last few shoe compositions, so
the later decisions of a round are answered from its cache (well under 1 ms); the first
decision of a hand off a new composition costs about 10-70 ms of CPU (measured in
``tests/web/test_api_rounds.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from blackjack_env.engine import Action, Phase, Rules, Table

__all__ = ["Values", "action_values", "analysis_rules"]

#: what the page says beside a split valued off a finite shoe
SPLIT_NOTE = (
    "split: the analysis' approximation (each split hand is played off the cards that "
    "remain less the pair; the other split hands' cards are not taken out), off by less "
    "than about 0.02 per split in the simulations it was checked against"
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
    try:
        if rules.decks is None:
            evs = _infinite_values(rules, table_state(table))
            source, note = "exact, infinite deck", ""
        else:
            evs, source, note = _finite_values(table)
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


def _finite_values(table: Table) -> tuple[dict[Action, float], str, str]:
    """A finite shoe: the values given the cards the players have not seen, with
    composition-dependent play afterwards (the analysis reads them off ``table``)."""
    from blackjack_env.analysis.composition import table_action_values, table_pool

    evs = table_action_values(table)
    unseen = sum(table_pool(table))
    when = "before the peek, " if table.phase is Phase.INSURANCE else ""
    source = (f"exact, {when}given the {unseen} cards not yet seen "
              f"(composition-dependent, analysis.composition)")
    return evs, source, SPLIT_NOTE if Action.SPLIT in evs else ""
