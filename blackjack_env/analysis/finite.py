"""Finite shoes: exact combinatorial expected return of a total-dependent strategy.

For each dealer upcard, every player hand is followed as a *composition* (how
many cards of each value class it holds) drawn without replacement from the
full shoe (``rules.shoe_decks`` decks) less the upcard; the dealer's outcome
probabilities are computed exactly for every composition (the dealer draws
from the shoe less the upcard and the player's cards). Under a peek with an
ace or ten up, the round is split exactly into "dealer blackjack" (settled at
the peek) and "no blackjack": play values are computed as expectations
*jointly* with the event "no dealer blackjack" (the hole card is just another
unseen card), so the player's draws are correctly affected by the peek.

The strategy is a :class:`.Chart` (or any
``DecisionState -> Action`` policy): it sees totals, not compositions, so this
is the return of a *total-dependent* strategy.

Splits use the usual approximation: each split hand is played off the shoe
less the upcard and the two cards of the original pair (plus its own cards);
the cards of the other split hands are not removed, and the chance that a
split hand receives another card of the pair's rank (for a resplit) is the
same for every hand (that of the shoe less the upcard and the pair, with the
upcard's rank averaged within its value class). Everything else is exact.

Insurance is never taken. Rules follow the engine exactly as described in
:mod:`blackjack_env.analysis.infinite`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from blackjack_env.analysis.chart import Chart, Play, code_from_evs, pair_label
from blackjack_env.analysis.dealer import dealer_rows, natural_completer, upcard_rank
from blackjack_env.analysis.infinite import upcard_label
from blackjack_env.analysis.model import (
    BJ,
    CardModel,
    check_supported,
    expected,
    natural_stands,
    settle_values,
    split_hand_settled,
)
from blackjack_env.analysis.solve import solve
from blackjack_env.analysis.state import DecisionState, Policy, as_policy
from blackjack_env.engine.cards import Card, Rank, parse_cards
from blackjack_env.engine.play import (
    AUTO_STAND_TOTAL,
    BUST_CATEGORY,
    NATURAL_CATEGORY,
    Action,
    NaturalEffect,
    Outcome,
    auto_stands,
    category,
    dealt_natural_effect,
    is_natural,
    natural_counts,
    payout,
    play_actions,
    pre_peek_actions,
    score,
    split_allowed,
    split_stake_share,
    surrender_outcome,
    surrender_settles_at_once,
)
from blackjack_env.engine.rules import Rules, SplitBy

__all__ = ["FiniteResult", "finite_chart", "finite_shoe_return", "hand_evs"]

_A = Action
Comp = tuple[int, ...]


class _Shoe:
    """Card classes of a finite shoe: values, ace flags, counts by class and rank."""

    def __init__(self, rules: Rules) -> None:
        decks = rules.shoe_decks
        if decks is None:
            raise ValueError("a finite-shoe analysis needs rules.decks set (got an infinite deck)")
        model = CardModel(rules)
        self.model = model
        self.classes = model.classes
        self.K = len(self.classes)
        self.values = np.array([v for v, _, _ in self.classes])
        self.aces = [a for _, a, _ in self.classes]
        self.counts = np.array([4 * decks * len(ranks) for _, _, ranks in self.classes], float)
        self.rank_count = 4 * decks
        self.class_of_rank = model.class_of_rank  # index rank - 1
        self.ace = model.ace_class

    def hand_comps(self, limit: np.ndarray) -> list[Comp]:
        """Compositions of two or more cards with a hard total <= 21 within ``limit``."""
        out: list[Comp] = []
        vals = self.values

        def gen(i: int, cur: list[int], s: int) -> None:
            if i == self.K:
                if sum(cur) >= 2:
                    out.append(tuple(cur))
                return
            c = 0
            while s + c * vals[i] <= 21 and c <= limit[i]:
                cur.append(c)
                gen(i + 1, cur, s + c * int(vals[i]))
                cur.pop()
                c += 1

        gen(0, [], 0)
        return out


@dataclass(frozen=True)
class FiniteResult:
    """A finite-shoe evaluation.

    ``expected_return``: per unit initial bet. ``upcard_returns``: given each
    upcard class (label -> return). ``cell_evs``: ``(kind, row, upcard) ->
    {Action: EV}`` for the first two cards, averaged over the compositions of
    the cell and weighted by their probability (joint with no dealer blackjack
    under a peek, so the values add up to the cell's share of the return).
    """

    rules: Rules
    expected_return: float
    upcard_returns: dict[str, float]
    cell_evs: dict[tuple[str, int | str, str], dict[Action, float]]


class _UpcardEval:
    """Evaluation of one upcard class against a policy (finite shoe)."""

    def __init__(
        self, rules: Rules, shoe: _Shoe, up: int, policy: Callable[[DecisionState], Action]
    ) -> None:
        self.rules = rules
        self.shoe = shoe
        self.up = up
        self.policy = policy
        self.up_value = int(shoe.values[up])
        self.up_ace = shoe.aces[up]
        self.peek_possible = shoe.model.peek_possible(self.up_value, self.up_ace)
        self.base = shoe.counts.copy()
        self.base[up] -= 1
        self.total0 = self.base.sum()
        self.vals = [int(v) for v in shoe.values]
        self.settle = settle_values(rules)  # (player category, dealer slot) -> net
        self.payout = float(payout(rules, Outcome.BLACKJACK))
        self.bjbj = float(self.settle[NATURAL_CATEGORY, BJ])  # natural v dealer natural
        # a bust loses whatever the dealer holds
        self.bust = expected(self.settle[BUST_CATEGORY], np.full(7, 1.0 / 7.0))
        # the pre-peek question offers an early surrender (insurance is never taken)
        self.pre_peek_surrender = self.peek_possible and Action.SURRENDER in pre_peek_actions(
            rules, up_value=self.up_value, up_ace=self.up_ace, natural=False, insurance=False
        )
        self.bet_factor = float(split_stake_share(rules))
        self.completer = natural_completer(rules, up)  # hole card class of a dealer natural
        self.rows, self.row_index = _rows_cached(rules, up)
        self.dealer = _dealer_cached(rules, up, self.rows)
        self._hard_ace: dict[Comp, tuple[int, bool]] = {}
        self._stand_cache: dict[Comp, tuple[np.ndarray, float]] = {}
        self._memo: dict[tuple, float] = {}
        self._decisions: dict[tuple, Action] = {}
        self._f_memo: dict[tuple, float] = {}

    # ---------------------------------------------------------------- basics
    def p_bj(self, removed: Comp) -> float:
        """Chance the dealer holds blackjack given the upcard and ``removed`` cards seen."""
        if self.completer is None:
            return 0.0
        left = self.total0 - sum(removed)
        return (self.base[self.completer] - removed[self.completer]) / left

    def no_bj(self, removed: Comp) -> float:
        return 1.0 - self.p_bj(removed) if self.peek_possible else 1.0

    def draw_probs(self, removed: Comp) -> np.ndarray:
        avail = self.base - np.array(removed)
        return avail / avail.sum()

    def stand_joint(self, removed: Comp, total: int, natural: bool) -> float:
        """E[result * 1{no dealer BJ if peek}] of standing with ``total``."""
        d = self.dealer[self.row_index[removed]]
        row = self.settle[category(total, natural)]
        # under a peek the dealer blackjack slot is left out: joint with "no blackjack"
        ev = float(np.dot(d[:BJ], row[:BJ]))
        if not self.peek_possible:
            ev += float(d[BJ] * row[BJ])
        return ev

    def surrender_joint(self, removed: Comp) -> float:
        rules = self.rules
        half = float(payout(rules, Outcome.SURRENDER))
        if surrender_settles_at_once(rules):
            return half * self.no_bj(removed)
        # judged with the dealer's hand (late surrender, no peek)
        p = self.p_bj(removed)
        lose = float(payout(rules, surrender_outcome(True)))
        return p * lose + (1.0 - p) * float(payout(rules, surrender_outcome(False)))

    # ---------------------------------------------------------------- states
    # hand context: (comp, split_c, h, pair, natural); removed = comp + split_c extra
    def removed_of(self, comp: Comp, split_c: int | None) -> Comp:
        if split_c is None:
            return comp
        x = list(comp)
        x[split_c] += 1
        return tuple(x)

    def hard_ace(self, comp: Comp) -> tuple[int, bool]:
        got = self._hard_ace.get(comp)
        if got is None:
            hard = sum(c * v for c, v in zip(comp, self.vals, strict=True))
            got = (hard, comp[self.shoe.ace] > 0)
            self._hard_ace[comp] = got
        return got

    def legal(self, comp: Comp, split_c: int | None, h: int, pair: bool) -> tuple[Action, ...]:
        """The engine's legal actions (``play_actions``) for this hand, bankroll unlimited."""
        rules = self.rules
        fs = split_c is not None
        sa = split_c is not None and self.shoe.aces[split_c]
        hard, ace = self.hard_ace(comp)
        total, soft = score(hard, ace)
        return play_actions(
            rules,
            two_cards=sum(comp) == 2,
            total=total,
            soft=soft,
            can_split=split_allowed(rules, pair=pair, hands=h, split_aces=sa),
            split_aces=sa,
            from_split=fs,
            hands=h,
            up_value=self.up_value,
            up_ace=self.up_ace,
        )

    def state(self, comp, split_c, h, pair, natural, legal, pre_peek=False) -> DecisionState:
        hard, ace = self.hard_ace(comp)
        total, soft = score(hard, ace)
        pair_value = None
        if pair:
            j = next(i for i, c in enumerate(comp) if c)
            pair_value = self.vals[j]
        return DecisionState(
            total=total,
            soft=soft,
            cards=sum(comp),
            pair=pair_value,
            dealer=self.up_value,
            dealer_ace=self.up_ace,
            natural=natural,
            split=split_c is not None,
            split_aces=split_c is not None and self.shoe.aces[split_c],
            hands=h,
            pre_peek=pre_peek,
            legal=legal,
        )

    def decide(self, comp, split_c, h, pair, natural) -> Action:
        hard, ace = self.hard_ace(comp)
        key = (score(hard, ace), sum(comp), split_c, h, pair, natural,
               None if not pair else next(i for i, c in enumerate(comp) if c))
        got = self._decisions.get(key)
        if got is None:
            legal = self.legal(comp, split_c, h, pair)
            got = self.policy(self.state(comp, split_c, h, pair, natural, legal))
            self._decisions[key] = got
        return got

    def value(self, comp: Comp, split_c: int | None, h: int, pair: bool, natural: bool) -> float:
        key = (comp, split_c, h, pair, natural)
        got = self._memo.get(key)
        if got is None:
            action = self.decide(comp, split_c, h, pair, natural)
            got = self.action_ev(comp, split_c, h, pair, natural, action)
            self._memo[key] = got
        return got

    def action_ev(self, comp, split_c, h, pair, natural, action) -> float:
        removed = self.removed_of(comp, split_c)
        hard, ace = self.hard_ace(comp)
        if action is _A.STAND:
            return self.stand_joint(removed, score(hard, ace)[0], natural)
        if action is _A.SURRENDER:
            return self.surrender_joint(removed)
        if action is _A.HIT or action is _A.DOUBLE:
            probs = self.draw_probs(removed)
            auto21 = auto_stands(self.rules, AUTO_STAND_TOTAL)  # (the rule, read once)
            ev = 0.0
            for j, p in enumerate(probs):
                if p <= 0:
                    continue
                nxt = list(comp)
                nxt[j] += 1
                nxt_t = tuple(nxt)
                nh = hard + self.vals[j]
                if nh > 21:
                    ev += p * self.bust * self.no_bj(self.removed_of(nxt_t, split_c))
                    continue
                total = score(nh, ace or self.shoe.aces[j])[0]
                if action is _A.DOUBLE or (auto21 and total == AUTO_STAND_TOTAL):
                    ev += p * self.stand_joint(self.removed_of(nxt_t, split_c), total, False)
                else:
                    ev += p * self.value(nxt_t, split_c, h, False, False)
            return 2.0 * ev if action is _A.DOUBLE else ev
        if action is _A.SPLIT:
            j = next(i for i, c in enumerate(comp) if c)
            return self.bet_factor * self.split_value(j, 2, 2)
        raise ValueError(f"{action!r} is not a playing action")

    # ---------------------------------------------------------------- splits
    def split_second_cards(self, c: int) -> list[tuple[float, Comp, bool]]:
        """(probability, composition, is_pair) of a split hand's first two cards."""
        shoe = self.shoe
        avail = self.base.copy()
        avail[c] -= 2
        total = avail.sum()
        out = []
        for j in range(shoe.K):
            if avail[j] <= 0:
                continue
            comp = [0] * shoe.K
            comp[c] += 1
            comp[j] += 1
            if j != c:
                out.append((avail[j] / total, tuple(comp), False))
                continue
            ranks = len(shoe.classes[c][2])
            if self.rules.split_by is SplitBy.VALUE or ranks == 1:
                out.append((avail[j] / total, tuple(comp), True))
                continue
            # same value class, pair only if the same rank (upcard rank averaged)
            same = shoe.rank_count - 2 - (1.0 / ranks if c == self.up else 0.0)
            out.append((same / total, tuple(comp), True))
            out.append(((avail[j] - same) / total, tuple(comp), False))
        return out

    def two_card_done(self, comp: Comp, split_c: int, h: int, pair: bool, natural: bool) -> bool:
        sa = self.shoe.aces[split_c]
        total = score(*self.hard_ace(comp))[0]
        return split_hand_settled(
            self.rules, split_aces=sa, pair=pair, hands=h, natural=natural, total=total
        )

    def split_value(self, c: int, h: int, k: int) -> float:
        if k == 0:
            return 0.0
        mk = (c, h, k)
        got = self._f_memo.get(mk)
        if got is not None:
            return got
        rest = self.split_value(c, h, k - 1)
        bas = natural_counts(self.rules, from_split=True)
        ev = 0.0
        for p, comp, pair in self.split_second_cards(c):
            hard, ace = self.hard_ace(comp)
            natural = is_natural(2, hard, ace, bas)
            if self.two_card_done(comp, c, h, pair, natural):
                ev += p * (self.stand_joint(self.removed_of(comp, c), score(hard, ace)[0], natural)
                           + rest)
                continue
            legal = self.legal(comp, c, h, pair)
            if _A.SPLIT in legal and self.decide(comp, c, h, pair, natural) is _A.SPLIT:
                ev += p * self.split_value(c, h + 1, k + 1)
            else:
                ev += p * (self.value(comp, c, h, pair, natural) + rest)
        self._f_memo[mk] = ev
        return ev

    # ---------------------------------------------------------------- round
    def initial_hands(self) -> list[tuple[float, Comp, bool, int, int]]:
        """(probability, composition, pair, r1, r2) of the player's first two cards,
        averaged over the upcard's rank within its class."""
        shoe = self.shoe
        up_ranks = shoe.classes[self.up][2]
        out = []
        n = self.total0
        for r1 in range(1, 14):
            for r2 in range(r1, 14):
                prob = 0.0
                for ur in up_ranks:
                    c1 = shoe.rank_count - (ur == r1)
                    c2 = shoe.rank_count - (ur == r2) - (r1 == r2)
                    prob += c1 * c2 / (n * (n - 1)) * (1 if r1 == r2 else 2)
                prob /= len(up_ranks)
                if prob <= 0:
                    continue
                j1, j2 = shoe.class_of_rank[r1 - 1], shoe.class_of_rank[r2 - 1]
                comp = [0] * shoe.K
                comp[j1] += 1
                comp[j2] += 1
                pc = shoe.model.pair_class
                out.append((prob, tuple(comp), pc(r1) == pc(r2), r1, r2))
        return out

    def hand_return(self, comp: Comp, pair: bool) -> float:
        rules = self.rules
        hard, ace = self.hard_ace(comp)
        natural = is_natural(sum(comp), hard, ace)
        pbj = self.p_bj(comp) if self.peek_possible else 0.0
        if natural:
            if dealt_natural_effect(rules) is NaturalEffect.PAY:
                return self.payout
            if natural_stands(rules):
                after = self.stand_joint(comp, 21, True)  # judged against the dealer
            else:
                after = self.value(comp, None, 1, False, True)  # may be hit
            return pbj * self.bjbj + after
        # a dealer natural found at the peek takes the original bet
        lose = float(self.settle[category(score(hard, ace)[0], False), BJ])
        cont = pbj * lose + self.value(comp, None, 1, pair, False)
        if self.pre_peek_surrender:
            state = self.state(comp, None, 1, pair, False, (_A.SURRENDER, _A.DECLINE), True)
            if self.policy(state) is _A.SURRENDER:
                return -0.5
        return cont

    def cell_evs(self, comp: Comp, pair: bool) -> dict[Action, float]:
        """Joint EV of each action on the first two cards (before the pre-peek question)."""
        legal = self.legal(comp, None, 1, pair)
        pbj = self.p_bj(comp) if self.peek_possible else 0.0
        evs = {a: -pbj + self.action_ev(comp, None, 1, pair, False, a) for a in legal}
        if self.pre_peek_surrender:
            evs[_A.SURRENDER] = -0.5
        return evs


@lru_cache(maxsize=64)
def _rows_cached(rules: Rules, up: int) -> tuple[tuple[Comp, ...], dict[Comp, int]]:
    """Every card composition whose dealer probabilities are needed: player hands of two
    or more cards, and those hands plus the other card of a split pair."""
    shoe = _Shoe(rules)
    base = shoe.counts.copy()
    base[up] -= 1
    comps = shoe.hand_comps(base)
    rows = set(comps)
    for comp in comps:
        for j in range(shoe.K):
            if comp[j] > 0 and comp[j] + 1 <= base[j]:
                x = list(comp)
                x[j] += 1
                rows.add(tuple(x))
    ordered = tuple(sorted(rows))
    return ordered, {r: i for i, r in enumerate(ordered)}


@lru_cache(maxsize=64)
def _dealer_cached(rules: Rules, up: int, rows: tuple[Comp, ...]) -> np.ndarray:
    pool = _Shoe(rules).counts.copy()
    pool[up] -= 1
    return dealer_rows(rules, pool, up, np.array(rows, float))


def _evaluate(
    rules: Rules, policy: Callable[[DecisionState], Action], want_cells: bool
) -> FiniteResult:
    shoe = _Shoe(rules)
    total = 0.0
    upcard_returns: dict[str, float] = {}
    cells: dict[tuple[str, int | str, str], dict[Action, float]] = {}
    n_all = shoe.counts.sum()
    for up in range(shoe.K):
        v, a, _ranks = shoe.classes[up]
        p_up = shoe.counts[up] / n_all
        ev = _UpcardEval(rules, shoe, up, policy)
        label = upcard_label(v, a)
        ret = 0.0
        for prob, comp, pair, r1, _r2 in ev.initial_hands():
            ret += prob * ev.hand_return(comp, pair)
            if want_cells:
                hard, ace = ev.hard_ace(comp)
                t, soft = score(hard, ace)
                if is_natural(2, hard, ace):
                    continue
                key: tuple[str, int | str, str]
                if pair and rules.max_split_hands > 1:
                    key = ("pair", pair_label(shoe.model.values[r1], r1 == 1), label)
                else:
                    key = ("soft" if soft else "hard", t, label)
                acc = cells.setdefault(key, {})
                for act, x in ev.cell_evs(comp, pair).items():
                    acc[act] = acc.get(act, 0.0) + float(prob * x)
        upcard_returns[label] = float(ret)
        total += p_up * ret
    return FiniteResult(rules, float(total), upcard_returns, cells)


def finite_shoe_return(rules: Rules, strategy: Chart | Policy | None = None) -> FiniteResult:
    """Exact expected return of a total-dependent strategy off a full finite shoe.

    Args:
        rules: rules with ``decks`` 1..8 (``shoe_decks`` decks are used).
        strategy: a :class:`.Chart`, or a ``DecisionState -> Action`` policy;
            default: :func:`.finite_chart` for these rules (the total-dependent
            basic strategy derived for this shoe).

    The player's and dealer's hands are followed card by card without
    replacement (see the module docstring for the split approximation). The
    value is the return of a round dealt off the top of a freshly shuffled shoe:
    ``rules.penetration`` plays no part (dealing deeper into a shoe changes the
    return slightly, the "cut-card effect"). Six decks take about 1 s with a
    given chart and about 2 s with the default chart derived first (cached),
    on one lightly loaded core.
    """
    check_supported(rules)
    if strategy is None:
        strategy = finite_chart(rules)
    policy = as_policy(strategy.action if isinstance(strategy, Chart) else strategy)
    return _evaluate(rules, policy, want_cells=False)


#: The stored charts (``blackjack_env/analysis/data/``): :func:`finite_chart` of the rule
#: sets the presets are played under (each preset's nearest rules the analysis serves,
#: ``analysis.strategy.nearest_supported_rules``), worked out beforehand by
#: ``python scripts/make_chart_store.py`` and read instead of worked out again at a
#: table's first decision (terminal-21's takes about 15 s on one core, the others 1-3 s).
#: ``tests/analysis/test_chart_store.py`` works them out again and compares.
CHART_STORE = "finite_charts.json"


def chart_store_key(rules: Rules) -> str:
    """The key of ``rules`` in the chart store: every rule field, as JSON."""
    return json.dumps(rules.to_dict(), sort_keys=True)


@lru_cache(maxsize=1)
def _stored_charts() -> dict[str, dict[str, Any]]:
    data = json.loads((Path(__file__).parent / "data" / CHART_STORE).read_text())
    return {chart_store_key(Rules.from_dict(e["rules"])): e["chart"] for e in data["charts"]}


@lru_cache(maxsize=16)
def finite_chart(rules: Rules, max_rounds: int = 4, *, stored: bool = True) -> Chart:
    """The total-dependent basic strategy chart for a finite shoe.

    Starts from the infinite-deck optimal chart and improves it: each cell's
    code is the action with the best expected value summed over the cell's
    two-card compositions (weighted by their probability), later decisions
    following the current chart; repeated until the chart no longer changes
    (at most ``max_rounds`` times; when a marginal cell keeps flipping, the
    best chart seen is kept).

    With ``stored`` (and the default ``max_rounds``), a rule set of the chart store
    (:data:`CHART_STORE`: the presets' rule sets) reads its chart from there, the same
    chart worked out beforehand; ``stored=False`` always works it out.
    """
    check_supported(rules)
    if stored and max_rounds == 4:
        found = _stored_charts().get(chart_store_key(rules))
        if found is not None:
            return Chart.from_dict(found)
    chart = solve(rules.replace(decks=None, seats_per_deck=None)).chart
    best: tuple[float, Chart] | None = None
    for _ in range(max_rounds):
        result = _evaluate(rules, as_policy(chart.action), want_cells=True)
        if best is None or result.expected_return > best[0]:
            best = (result.expected_return, chart)
        new = _chart_from_cells(chart, result.cell_evs, rules)
        if new.hard == chart.hard and new.soft == chart.soft and new.pairs == chart.pairs:
            break
        chart = new
    assert best is not None
    chart = best[1]
    return Chart(
        upcards=chart.upcards,
        hard=chart.hard,
        soft=chart.soft,
        pairs=chart.pairs,
        title=f"Basic strategy, {rules.summary()} (total-dependent, finite shoe)",
    )


def _chart_from_cells(
    chart: Chart, cells: dict[tuple[str, int | str, str], dict[Action, float]], rules: Rules
) -> Chart:
    tables: dict[str, dict[Any, tuple[Play, ...]]] = {
        "hard": dict(chart.hard), "soft": dict(chart.soft), "pair": dict(chart.pairs)
    }
    rows = {name: {k: list(v) for k, v in t.items()} for name, t in tables.items()}
    for (kind, row, label), evs in cells.items():
        if row not in rows[kind] or label not in chart.upcards:
            continue
        if kind != "pair" and row == 21:
            continue
        rows[kind][row][chart.upcards.index(label)] = code_from_evs(evs)
    return Chart(
        upcards=chart.upcards,
        hard={k: tuple(v) for k, v in rows["hard"].items()},
        soft={k: tuple(v) for k, v in rows["soft"].items()},
        pairs={k: tuple(v) for k, v in rows["pair"].items()},
        title=chart.title,
    )


def hand_evs(
    rules: Rules,
    cards: str | Sequence[Card],
    upcard: Rank | str | int,
    strategy: Chart | Policy | None = None,
) -> dict[Action, float]:
    """Expected value of each legal action for a two-card hand against ``upcard``,
    off a full finite shoe less these three cards, per unit bet.

    Under a peek with an ace or ten up the values are conditioned on no dealer
    blackjack (as published tables are). ``STAND``, ``DOUBLE`` and ``SURRENDER``
    need no strategy; ``HIT`` and ``SPLIT`` follow ``strategy`` for the later
    decisions (default: :func:`.finite_chart` of the rules).

    Example: ``hand_evs(Rules(decks=1), "6S 5H", "A")[Action.DOUBLE]`` is 0.240259.
    """
    check_supported(rules)
    hand = parse_cards(cards) if isinstance(cards, str) else list(cards)
    if len(hand) != 2:
        raise ValueError(f"hand_evs needs exactly two cards, got {len(hand)}")
    if strategy is None:
        strategy = finite_chart(rules)
    policy = as_policy(strategy.action if isinstance(strategy, Chart) else strategy)
    shoe = _Shoe(rules)
    up_rank = upcard_rank(rules, upcard)
    up = shoe.class_of_rank[up_rank - 1]
    ev = _UpcardEval(rules, shoe, up, policy)
    comp = [0] * shoe.K
    for card in hand:
        comp[shoe.class_of_rank[card.rank - 1]] += 1
    comp_t = tuple(comp)
    pc = shoe.model.pair_class
    pair = pc(hand[0].rank) == pc(hand[1].rank)
    hard, ace = ev.hard_ace(comp_t)
    natural = is_natural(2, hard, ace)
    scale = ev.no_bj(comp_t)
    legal = ev.legal(comp_t, None, 1, pair)
    out = {a: float(ev.action_ev(comp_t, None, 1, pair, natural, a) / scale) for a in legal}
    if ev.pre_peek_surrender and not natural:
        p = ev.p_bj(comp_t)
        out[_A.SURRENDER] = (-0.5 + p) / (1.0 - p)
    return out
