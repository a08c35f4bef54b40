"""Public infinite-deck API: :func:`solve`, :func:`evaluate_policy`, :class:`Solution`.

See :mod:`blackjack_env.analysis.infinite` for the exact semantics followed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache

from blackjack_env.analysis.chart import (
    Chart,
    Play,
    cell_state,
    code_from_evs,
    pair_label,
    state_labels,
)
from blackjack_env.analysis.infinite import Key, RoundModel, optimal_round, upcard_label
from blackjack_env.analysis.model import CardModel, check_supported
from blackjack_env.analysis.state import DecisionState, Policy, as_policy
from blackjack_env.engine.hand import score
from blackjack_env.engine.rules import Rules, SplitBy
from blackjack_env.engine.table import Action

__all__ = ["Solution", "decision_states", "evaluate_policy", "solve"]


def _require_infinite(rules: Rules, what: str) -> None:
    check_supported(rules)
    if rules.decks is not None:
        raise ValueError(
            f"{what} is exact for an infinite deck, but rules.decks={rules.decks}; pass "
            f"rules.replace(decks=None, seats_per_deck=None) (or use finite_shoe_return "
            f"for a finite shoe)"
        )


def _upcard_classes(rules: Rules) -> list[tuple[str, int, float]]:
    """``(label, representative rank, probability)`` per upcard class, chart order."""
    out = []
    for value, ace, ranks in CardModel(rules).classes:
        out.append((upcard_label(value, ace), ranks[0], len(ranks) / 13.0, value, ace))
    out.sort(key=lambda t: (t[4], t[3]))  # aces last, as on printed charts
    return [(label, rank, p) for label, rank, p, _, _ in out]


@dataclass(frozen=True)
class Solution:
    """The infinite-deck optimum for a rule set.

    Attributes:
        rules: the rules solved.
        expected_return: optimal expected return of a round per unit initial
            bet (negative = house edge), before any insurance (never taken).
        upcard_returns: the same, given each upcard (label -> return).
        action_evs: ``(kind, row, upcard) -> {Action: EV}`` for the first two
            cards, ``kind`` in ``"hard"``, ``"soft"``, ``"pair"``; ``row`` is the
            total or the pair label. EVs are per unit bet after the dealer's peek
            (i.e. conditioned on no dealer blackjack when the rules peek and an ace
            or ten is up); an early surrender decided before the peek is shown as
            its equivalent in those units, ``(-1/2 + p_bj) / (1 - p_bj)``.
        chart: the basic-strategy chart derived from ``action_evs``.
    """

    rules: Rules
    expected_return: float
    upcard_returns: dict[str, float]
    action_evs: dict[tuple[str, int | str, str], dict[Action, float]]
    chart: Chart
    _models: dict[str, RoundModel] = field(repr=False, compare=False, default_factory=dict)

    def action_values(self, state: DecisionState) -> dict[Action, float]:
        """EV (per unit of the hand's bet) of each legal action in any decision state:
        multi-card hands, split hands, naturals that may be played.

        Values are after the peek (conditioned on no dealer blackjack when the rules
        peek), as in :attr:`action_evs`. For a split hand, ``SPLIT`` is valued as if
        no other hand were still waiting for its second card. In the pre-peek state
        the two answers are valued in the same units (``SURRENDER`` as in
        :attr:`action_evs`).
        """
        model = self._models[state_labels(state)[0]]
        key = _key_from_state(model, state)
        if state.pre_peek:
            p = model.p_bj
            return {
                Action.SURRENDER: (-0.5 + p) / (1.0 - p),
                Action.DECLINE: model.value(key),
            }
        out: dict[Action, float] = {}
        for action in state.legal:
            if action is Action.SPLIT and state.hands > 1:
                c = key[3]
                assert c is not None
                out[action] = model.split_value(c, state.hands + 1, 2)
            else:
                out[action] = model.action_ev(key, action)
        return out

    def policy(self, state: DecisionState) -> Action:
        """The optimal action in ``state`` (a policy for :func:`evaluate_policy`)."""
        model = self._models[state_labels(state)[0]]
        key = _key_from_state(model, state)
        if state.pre_peek:
            cont = -model.p_bj + (1 - model.p_bj) * model.value(key)
            return Action.SURRENDER if cont < -0.5 else Action.DECLINE
        legal = state.legal
        if Action.SPLIT in legal and state.hands > 1:
            c = key[3]
            assert c is not None
            choices = [
                v for (cc, h, _k), v in model.split_choices.items() if (cc, h) == (c, state.hands)
            ]
            if model.split_plan is not None and (c, state.hands) in model.split_plan:
                choices = [model.split_plan[(c, state.hands)]]
            if choices:
                split = choices[0]
            else:
                best_other = max(model.action_ev(key, a) for a in legal if a is not Action.SPLIT)
                split = model.split_value(c, state.hands + 1, 2) > best_other
            if split:
                return Action.SPLIT
            legal = tuple(a for a in legal if a is not Action.SPLIT)
        return max(legal, key=lambda a: model.action_ev(key, a))


def _key_from_state(model: RoundModel, state: DecisionState) -> Key:
    soft = state.soft
    hard = state.total - 10 if soft else state.total
    pair = None
    if state.pair is not None:
        if model.rules.split_by is SplitBy.VALUE:
            pair = state.pair
        elif soft and state.pair == 1:
            pair = 1
        else:
            pair = next(r for r in range(2, 14) if model.values[r] == state.pair)
    return (
        hard, soft, state.cards, pair, state.natural, state.split, state.split_aces, state.hands
    )


def _row_keys(rules: Rules) -> tuple[list[int], list[int], list[str]]:
    """Chart rows: hard totals, soft totals, and pair labels (one per pair class)."""
    model = CardModel(rules)
    values = model.values
    hards: set[int] = set()
    softs: set[int] = set()
    pairs: set[str] = set()
    for r1 in range(1, 14):
        for r2 in range(r1, 14):
            hard, ace = values[r1] + values[r2], r1 == 1 or r2 == 1
            total, soft = score(hard, ace)
            if model.pair_class(r1) == model.pair_class(r2) and rules.max_split_hands > 1:
                pairs.add(pair_label(values[r1], r1 == 1))
            (softs if soft else hards).add(total)
    hard_rows = list(range(min(hards), 22))
    soft_rows = list(range(12, 22))
    pair_rows = sorted(pairs, key=lambda lab: (lab == "A", lab == "T", lab))
    return hard_rows, soft_rows, pair_rows


def _cell_evs(model: RoundModel, key: Key) -> dict[Action, float]:
    evs = {a: model.action_ev(key, a) for a in model.legal(key)}
    if model.pre_peek_surrender(key):
        p = model.p_bj
        evs[Action.SURRENDER] = (-0.5 + p) / (1.0 - p)
    return evs


@lru_cache(maxsize=64)
def _solve_cached(rules: Rules) -> Solution:
    classes = _upcard_classes(rules)
    models: dict[str, RoundModel] = {}
    upcard_returns: dict[str, float] = {}
    total = 0.0
    for label, rank, p in classes:
        model = optimal_round(rules, rank)
        models[label] = model
        ret = model.round_return()
        upcard_returns[label] = ret
        total += p * ret
    hard_rows, soft_rows, pair_rows = _row_keys(rules)
    action_evs: dict[tuple[str, int | str, str], dict[Action, float]] = {}
    hard: dict[int, list[Play]] = {t: [] for t in hard_rows}
    soft: dict[int, list[Play]] = {t: [] for t in soft_rows}
    pairs: dict[str, list[Play]] = {lab: [] for lab in pair_rows}
    cells: list[tuple[str, int | str, list[Play]]] = []
    cells += [("hard", t, hard[t]) for t in hard_rows]
    cells += [("soft", t, soft[t]) for t in soft_rows]
    cells += [("pair", lab, pairs[lab]) for lab in pair_rows]
    for label, _rank, _p in classes:
        model = models[label]
        for kind, row, plays in cells:
            # the cell model shared with every chart read off an agent (chart.cell_state)
            key = _key_from_state(model, cell_state(rules, kind, row, label))
            evs = _cell_evs(model, key)
            action_evs[(kind, row, label)] = evs
            plays.append(Play.STAND if row == 21 else code_from_evs(evs))
    chart = Chart(
        upcards=tuple(label for label, _, _ in classes),
        hard={k: tuple(v) for k, v in hard.items()},
        soft={k: tuple(v) for k, v in soft.items()},
        pairs={k: tuple(v) for k, v in pairs.items()},
        title=f"Basic strategy, {rules.summary()} (infinite-deck optimum)",
    )
    return Solution(rules, total, upcard_returns, action_evs, chart, models)


def solve(rules: Rules) -> Solution:
    """Solve ``rules`` (infinite deck) exactly: optimal return, per-state EVs, chart.

    ``rules.decks`` must be ``None``; ``settlement='highest-hand'`` and
    ``bet_raising`` are not supported (``ValueError``). Results are cached per
    rule set (``Rules`` is frozen and hashable); a solve takes a few hundredths
    of a second.
    """
    _require_infinite(rules, "solve()")
    return _solve_cached(rules)


def evaluate_policy(rules: Rules, policy: Policy | Callable[[DecisionState], Action]) -> float:
    """Exact expected return per unit initial bet of ``policy`` (infinite deck).

    ``policy`` is a callable ``DecisionState -> Action`` or a table keyed by the
    Gymnasium observation ``(total, dealer, usable_ace)`` (see
    :mod:`blackjack_env.analysis.state`). It is asked once per distinct state and
    must be deterministic. An illegal answer raises ``ValueError`` naming the
    state and the legal actions. Insurance and even money are never taken.
    Regret of a policy = ``solve(rules).expected_return - evaluate_policy(rules, policy)``.
    """
    _require_infinite(rules, "evaluate_policy()")
    checked = as_policy(policy)
    total = 0.0
    for _label, rank, p in _upcard_classes(rules):
        total += p * RoundModel(rules, rank, policy=checked).round_return()
    return total



def decision_states(rules: Rules) -> tuple[DecisionState, ...]:
    """Every state :func:`evaluate_policy` may ask a policy about under ``rules``
    (infinite deck), whatever the policy: the union over upcards of
    ``RoundModel.decision_states`` (``analysis.infinite``),
    in a fixed order (upcards as :func:`evaluate_policy` takes them, then the order each
    state is first met), without repeats.

    A policy's answers on these states are all :func:`evaluate_policy` reads, so a policy
    that is costly per call (a network) can be asked about them in one batch and
    evaluated from the table of answers. A given policy is asked about a subset (one
    that never splits meets no split hand): about 3,800 states on vegas-strip for its
    optimum, of the enumeration's few thousand more.
    """
    _require_infinite(rules, "decision_states()")
    # (no state is met against two upcards: each shows its own upcard class)
    return tuple(state for _label, rank, _p in _upcard_classes(rules)
                 for state in RoundModel(rules, rank).decision_states())
