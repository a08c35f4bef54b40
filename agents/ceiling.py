"""Bettors graded against the perfect counter: an agent's bets on the rounds of
:mod:`blackjack_env.analysis.counter`, beside the ceiling of their spread.

:func:`round_bettor` turns an agent that decides its bets into a bettor of those rounds
(a function of a :class:`~blackjack_env.analysis.counter.CounterRound`): the bet it
places at the BET step before the round, from what the table shows there, which the
round's pool of unseen cards determines. Two kinds of agent decide bets:

* the Hi-Lo ``counter`` (:func:`~blackjack_env.agents.fixed.counting_agent`): its
  :class:`~blackjack_env.agents.counting.BetSpread` at the round's true count, fitted
  to the sizes offered (:meth:`~blackjack_env.agents.counting.BetSpread.size_for`);
* a saved policy that decides its bets (a ``jax-ppo`` run's ``model-bets.npz``, trained
  with ``--bet-sizes``; it reads the ``"vector"`` observation): its greedy bet at the
  BET observation of the round (``agents.mlp.bet_observations``: the true count and
  the fraction of the shoe left), every size allowed.

:func:`ceiling_report` prices the rounds
(:func:`~blackjack_env.analysis.counter.price_rounds`, with a store) and reports the
agent's bets and the Hi-Lo ramp beside the ceiling, flat CD play and flat basic
strategy (:func:`~blackjack_env.analysis.counter.counter_report`).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from blackjack_env.agents.counting import BetSpread
from blackjack_env.agents.mlp import MLPAgent, bet_observations, greedy_bets
from blackjack_env.analysis.counter import CounterReport, CounterRound, counter_report, price_rounds
from blackjack_env.engine.rules import Rules

__all__ = ["HI_LO", "ceiling_report", "decides_bets", "pricing_bar", "round_bettor"]

#: The name of the textbook Hi-Lo ramp's rows (1-2-4-8 units from true counts +2, +3, +4).
HI_LO = "Hi-Lo ramp 1-2-4-8"


def decides_bets(agent: Any) -> bool:
    """Whether ``agent`` chooses its own bets (and so can be graded against the ceiling)."""
    if isinstance(agent, MLPAgent):
        return bool(agent.info.get("bet_sizes"))
    return getattr(agent, "counter", None) is not None


def round_bettor(
    agent: Any, bet_sizes: Sequence[int], rules: Rules
) -> Callable[[CounterRound], float]:
    """The bet (base bets) ``agent`` places before each round, offered ``bet_sizes``
    (increasing) on a shoe of ``rules`` (see the module docstring). ValueError when the
    agent decides no bet, or its bets are not those sizes."""
    sizes = tuple(int(s) for s in bet_sizes)
    if not sizes:
        raise ValueError("no bet sizes: an agent graded against the ceiling chooses a bet")
    if isinstance(agent, MLPAgent):
        own = tuple(int(s) for s in agent.info.get("bet_sizes") or ())
        if not own:
            raise ValueError(f"{agent.name}: a policy that plays at a fixed bet decides no bet")
        if own != sizes:
            raise ValueError(
                f"{agent.name} bets {','.join(map(str, own))}, not {','.join(map(str, sizes))}"
            )
        if agent.obs_mode != "vector":
            raise ValueError(f"{agent.name} reads the {agent.obs_mode} observation; "
                             f"its bets are asked with the vector one")
        if rules.shoe_decks is None:
            raise ValueError("the perfect counter needs a finite shoe")
        shoe_cards = 52 * rules.shoe_decks

        def mlp_bet(r: CounterRound) -> float:
            obs = bet_observations([r.true_count], r.cards_left / shoe_cards)
            return float(greedy_bets(agent, sizes, obs)[0])

        return mlp_bet
    if getattr(agent, "counter", None) is not None:
        spread: BetSpread = agent.spread

        def counter_bet(r: CounterRound) -> float:
            return float(spread.size_for(r.true_count, sizes))

        return counter_bet
    raise ValueError(f"{getattr(agent, 'name', agent)!r} decides no bet: only the counter and "
                     f"a policy trained with --bet-sizes (model-bets.npz) do")


def ceiling_report(
    agent: Any,
    name: str,
    rules: Rules,
    bet_sizes: Sequence[int],
    rounds: int,
    *,
    penetration: float,
    seed: int = 0,
    store: str | Path | None = None,
    progress: Callable[[int, int], None] | None = None,
    workers: int = 1,
) -> CounterReport:
    """``agent`` (labelled ``name``) and the Hi-Lo ramp on ``rounds`` priced rounds of
    shoes of ``rules`` cut at ``penetration``, beside the ceiling of the spread
    ``min(bet_sizes)..max(bet_sizes)`` (:func:`~blackjack_env.analysis.counter.counter_report`).
    When the agent is the Hi-Lo counter with the ramp's own sizes, it has one pair of rows."""
    sizes = tuple(int(s) for s in bet_sizes)
    bettor = round_bettor(agent, sizes, rules)
    ramp = BetSpread()
    bettors: dict[str, Callable[[CounterRound], float]] = {name: bettor}
    if not (getattr(agent, "counter", None) is not None and agent.spread == ramp
            and sizes == ramp.units):
        bettors[HI_LO] = lambda r: float(ramp.size_for(r.true_count, sizes))
    priced = price_rounds(rules, rounds, penetration=penetration, seed=seed, store=store,
                          progress=progress, workers=workers)
    return counter_report(priced, spread=(min(sizes), max(sizes)), bettors=bettors)


@contextmanager
def pricing_bar(total: int, enabled: bool = True) -> Iterator[Callable[[int, int], None]]:
    """A ``progress(done, total)`` for :func:`~blackjack_env.analysis.counter.price_rounds`
    that draws a tqdm bar of ``total`` rounds on stderr: "dealing" until its first call
    (every round is dealt before the first is priced: about 15 s for 100,000), then
    "pricing"; redrawn at most once a second; closed when the block ends. Without
    ``enabled`` or without tqdm (the ``main`` extra) it draws nothing."""
    bar = None
    if enabled:
        try:
            from tqdm.auto import tqdm  # deferred: loads tqdm (the optional [main] extra)
        except ImportError:
            pass
        else:
            bar = tqdm(total=total, unit="round", desc="dealing", mininterval=1.0,
                       file=sys.stderr)

    def progress(done: int, _total: int) -> None:
        if bar is None:
            return
        if bar.desc != "pricing":
            bar.set_description("pricing", refresh=False)
        bar.n = done
        bar.refresh() if done == total else bar.update(0)  # (update: at most once a second)

    try:
        yield progress
    finally:
        if bar is not None:
            bar.close()
