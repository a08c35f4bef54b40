"""Shared helpers of the batched-env tests (vector, seats, bets, batch): stacked shoes,
observation comparison, random-legal rollouts and the 99% agreement check of two means."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from blackjack_env.engine import ALL_CARDS, Rules
from blackjack_env.envs.single.env import BlackjackEnv
from blackjack_env.envs.vector import BlackjackVectorEnv

__all__ = [
    "Z99",
    "CardIds",
    "assert_means_agree",
    "assert_step_matches",
    "obs_row",
    "random_legal_returns_single",
    "random_legal_returns_vector",
    "record_random_legal",
    "same_obs",
    "stacked_cards",
]

Z99 = 2.5758293035489004  # two-sided 99% normal quantile


# ------------------------------------------------------------------ stacked shoes
class CardIds:
    """Card ids (``suit * 13 + rank index``, rank index 0 = ace) valid for the rules' shoe:
    the first ``length`` cards of a shuffled finite shoe, or ``length`` independent draws
    from an infinite one. :meth:`put` steers a rank to a position; :meth:`text` is the
    card text a ``cards`` reset option takes."""

    def __init__(self, rules: Rules, rng: np.random.Generator, length: int) -> None:
        self.decks = rules.shoe_decks
        self.rng = rng
        self.ids: list[int] = (
            rng.integers(0, 52, size=length)
            if self.decks is None
            else rng.permutation(np.tile(np.arange(52), self.decks))[:length]
        ).tolist()

    def put(self, pos: int, rank: int) -> None:
        """Make card ``pos`` of rank index ``rank``: an infinite shoe draws a suit for it; a
        finite one swaps in the first card of that rank after ``pos`` (none left: unchanged)."""
        ids = self.ids
        if self.decks is None:
            ids[pos] = int(self.rng.integers(4)) * 13 + rank
            return
        for j in range(pos + 1, len(ids)):
            if ids[j] % 13 == rank:
                ids[pos], ids[j] = ids[j], ids[pos]
                return

    def text(self) -> str:
        return " ".join(str(ALL_CARDS[c]) for c in self.ids)


def stacked_cards(
    rules: Rules, rng: np.random.Generator, length: int, seats: int | None = None
) -> str:
    """Card text with pairs, aces and tens up front (valid for the shoe), so that splits,
    naturals and the insurance / pre-peek question come often. Two layouts, which draw
    differently from ``rng`` (so ``seats=1`` is not the same stack as ``seats=None``):

    - ``seats=None``, one seat (deal order: seat, upcard, seat, hole): a pair for the seat
      with probability 0.4, an ace up 0.3, a pair of aces 0.15 (the stacks of
      ``test_vector_parity`` and ``test_vector_bets``);
    - ``seats=S``, one table of S seats (card ``s`` and ``S + 1 + s`` to seat ``s``, card
      ``S`` up): for every seat a pair with probability 0.35 and an ace first 0.1, then an
      ace up 0.35 (the stacks of ``test_vector_seats``).
    """
    cards = CardIds(rules, rng, length)
    put, ids = cards.put, cards.ids
    if seats is None:
        if rng.random() < 0.4:
            put(2, ids[0] % 13)
        if rng.random() < 0.3:
            put(1, 0)
        if rng.random() < 0.15:
            put(0, 0)
            put(2, 0)
        return cards.text()
    for s in range(seats):
        if rng.random() < 0.35:
            put(seats + 1 + s, ids[s] % 13)
        if rng.random() < 0.1:
            put(s, 0)
    if rng.random() < 0.35:
        put(seats, 0)
    return cards.text()


# ------------------------------------------------------------------ observations
def same_obs(a: Any, b: Any) -> bool:
    """Equal observations in any obs mode (dict, tuple of ints, array)."""
    if isinstance(b, dict):
        return a.keys() == b.keys() and all(same_obs(a[k], b[k]) for k in b)
    if isinstance(b, tuple):
        return tuple(int(x) for x in a) == tuple(int(x) for x in b)
    return np.array_equal(np.asarray(a), np.asarray(b))


def obs_row(obs: Any, t: int) -> Any:
    """Sub-env ``t``'s observation out of a batched one (dict, tuple or array)."""
    if isinstance(obs, dict):
        return {k: v[t] for k, v in obs.items()}
    if isinstance(obs, tuple):
        return tuple(part[t] for part in obs)
    return obs[t]


def assert_step_matches(
    where: tuple[Any, ...],
    batched: tuple[Any, ...],
    t: int,
    single: tuple[Any, ...],
    extra_info: Sequence[str] = (),
) -> None:
    """Sub-env ``t`` of a batched ``step`` result equals a ``BlackjackEnv.step`` result:
    observation, reward, terminated and truncated, the mask, the illegal-action flag and the
    action played, the phase, round, bankroll, cards left in the shoe (-1: infinite), the
    settled net at a round's end, and ``info[k]`` for each of ``extra_info``. ``where`` heads
    every failure message."""
    obs, reward, term, trunc, info = batched
    o, r, te, tr, i = single
    assert same_obs(obs_row(obs, t), o), (*where, obs_row(obs, t), o)
    assert reward[t] == r, (*where, reward[t], r)
    assert (term[t], trunc[t]) == (te, tr), where
    assert np.array_equal(info["action_mask"][t], i["action_mask"]), where
    assert info["illegal_action"][t] == i["illegal_action"], where
    assert info["action_played"][t] == i["action_played"], where
    assert info["phase"][t] == int(i["phase"]), where
    assert info["round"][t] == i["round"], where
    assert info["bankroll"][t] == i["bankroll"], (*where, info["bankroll"][t], i)
    for key in extra_info:
        assert info[key][t] == i[key], (*where, key)
    remaining = i["shoe_remaining"]
    assert info["shoe_remaining"][t] == (-1 if remaining is None else remaining), where
    if "settlement" in i:
        assert info["round_over"][t], where
        assert info["round_net"][t] == i["settlement"]["net"], where


# ------------------------------------------------------------------ random legal play
def record_random_legal(
    env: BlackjackVectorEnv,
    *,
    seed: int,
    action_seed: int,
    steps: int,
    info_keys: Sequence[str] = (),
    check: Callable[[np.ndarray, np.ndarray], None] | None = None,
) -> tuple[list[Any], dict[str, Any]]:
    """Reset ``env`` with ``seed``, then take ``steps`` steps, each sub-env choosing
    uniformly among its legal actions (``rng.choice`` per row of the mask, ``rng`` seeded
    with ``action_seed``). Returns the trajectory as one flat list (the reset observation,
    then per step: observation, reward, terminated, truncated and ``info[k]`` for each of
    ``info_keys``) and the last info. ``check(terminated, truncated)`` runs after each step."""
    obs, info = env.reset(seed=seed)
    rng = np.random.default_rng(action_seed)
    out = [obs]
    for _ in range(steps):
        a = np.array([rng.choice(np.flatnonzero(m)) for m in info["action_mask"]])
        obs, reward, term, trunc, info = env.step(a)
        if check is not None:
            check(term, trunc)
        out += [obs, reward, term, trunc, *(info[k] for k in info_keys)]
    return out, info


def random_legal_returns_single(kwargs: dict[str, Any], episodes: int, seed: int) -> np.ndarray:
    """Returns of ``episodes`` episodes of a ``BlackjackEnv(**kwargs)`` playing a uniformly
    random legal action (``rng.choice`` over the mask; env and ``rng`` seeded with ``seed``)."""
    env = BlackjackEnv(**kwargs)
    rng = np.random.default_rng(seed)
    out = np.empty(episodes)
    _, info = env.reset(seed=seed)
    for e in range(episodes):
        total = 0.0
        while True:
            a = int(rng.choice(np.flatnonzero(info["action_mask"])))
            _, r, te, tr, info = env.step(a)
            total += r
            if te or tr:
                break
        out[e] = total
        _, info = env.reset()
    return out


def random_legal_returns_vector(kwargs: dict[str, Any], episodes: int, seed: int) -> np.ndarray:
    """Returns of the first ``episodes`` episodes to end in a 512-wide ``BlackjackVectorEnv``
    (SameStep autoreset) playing a uniformly random legal action (argmax of uniform noise
    times the mask; env and ``rng`` seeded with ``seed``)."""
    env = BlackjackVectorEnv(512, autoreset_mode="SameStep", **kwargs)
    rng = np.random.default_rng(seed)
    _, info = env.reset(seed=seed)
    returns: list[np.ndarray] = []
    running = np.zeros(env.num_envs)
    count = 0
    while count < episodes:
        mask = info["action_mask"].astype(bool)
        a = (rng.random(mask.shape) * mask).argmax(axis=1)
        _, r, te, tr, info = env.step(a)
        running += r
        done = te | tr
        if done.any():
            returns.append(running[done].copy())
            running[done] = 0.0
            count += int(done.sum())
    return np.concatenate(returns)[:episodes]


def assert_means_agree(
    single: np.ndarray, batched: np.ndarray, z: float = Z99, what: Any = None
) -> None:
    """The two samples' means differ by at most ``z`` standard errors of the difference
    (unequal variances); ``z = Z99`` is the two-sided 99% interval."""
    diff = single.mean() - batched.mean()
    se = math.sqrt(single.var(ddof=1) / single.size + batched.var(ddof=1) / batched.size)
    assert abs(diff) <= z * se, (what, diff, se)
