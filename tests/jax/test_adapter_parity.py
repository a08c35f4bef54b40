"""The JAX Gymnasium adapters against the numpy envs, bit for bit: random rule sets and
env settings (not only the presets) through the vector adapter and the numpy vector env
with the same stacked cards and actions (illegal ones included), rewards, chips and
every ``info`` key compared exactly (float64 values and dtypes), the rule sets of one
shape in one adapter (a list of rule sets, one compiled program); and the scripted rounds
of issue 33's items 10 (a penalty is never charged to the chips), 11 (stacked cards left
at an episode's end are dropped) and 12 (a 6:5 natural pays 1.2 exactly)."""

from __future__ import annotations

import dataclasses
import os
import time
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402

from blackjack_env.engine import Rules, preset  # noqa: E402
from blackjack_env.engine.rules import (  # noqa: E402
    STANDARD_VALUES,
    DoubleRule,
    HoleCard,
    Settlement,
    SplitBet,
    SplitBy,
    Surrender,
    TieRule,
)
from blackjack_env.envs import view  # noqa: E402
from blackjack_env.envs.vector import BlackjackVectorEnv  # noqa: E402
from blackjack_env.jax.chips import bankroll  # noqa: E402
from blackjack_env.jax.gym import BlackjackJaxEnv, BlackjackJaxVectorEnv  # noqa: E402
from blackjack_env.jax.tables import Config, config_of  # noqa: E402
from tests.jax.jax_helpers import (  # noqa: E402
    BETS,
    FEATURES,
    PENALIZE,
    SHOE_DECKS,
    TUPLE,
    run_parity,
    table,
)


def random_rules(
    rng: np.random.Generator,
    infinite: bool | None = None,
    stand_hit: bool = False,
    min_bet_at_most: int = 3,
    max_decks: int = 8,
) -> Rules:
    """Any valid one-seat rule set (every field drawn; payouts with denominators up to 6,
    so non-dyadic chips such as 6:5 and 4:3 are common). ``infinite``: an infinite deck
    (True), a finite shoe of 1 to ``max_decks`` decks (False), either (None);
    ``stand_hit``: no double, split or surrender (stand and hit only: two actions);
    ``min_bet_at_most``: the table minimum's largest draw (a group's fixed ``bet`` must
    be allowed)."""
    while True:
        split_bet = SplitBet(rng.choice(list(SplitBet)))
        hole = HoleCard(rng.choice(list(HoleCard)))
        ends = bool(rng.random() < 0.8)
        decks = None if rng.random() < 0.3 else int(rng.integers(1, max_decks + 1))
        if infinite is not None:
            decks = None if infinite else int(rng.integers(1, max_decks + 1))
        values = STANDARD_VALUES
        if rng.random() < 0.15:
            values = (1, *(int(v) for v in rng.integers(1, 11, 12)))
        min_bet = int(rng.integers(1, min_bet_at_most + 1))
        try:
            rules = Rules(
                decks=decks,
                penetration=None if rng.random() < 0.1 else float(rng.uniform(0.3, 0.95)),
                dealer_hits_soft_17=bool(rng.random() < 0.5),
                hole_card=hole,
                blackjack_payout=Fraction(int(rng.integers(1, 13)), int(rng.integers(1, 7))),
                natural_beats_21=bool(rng.random() < 0.7),
                dealer_natural_beats_21=bool(rng.random() < 0.7),
                natural_ends_hand=ends,
                natural_paid_at_deal=ends and bool(rng.random() < 0.3),
                blackjack_after_split=bool(rng.random() < 0.4),
                ties=TieRule(rng.choice(list(TieRule))),
                settlement=Settlement(rng.choice(list(Settlement)))
                if rng.random() < 0.3 else Settlement.DEALER,
                double=DoubleRule(rng.choice(list(DoubleRule))),
                double_after_split=bool(rng.random() < 0.6),
                max_split_hands=int(rng.integers(1, 3 if split_bet is SplitBet.HALVE else 5)),
                resplit_aces=bool(rng.random() < 0.4),
                hit_split_aces=bool(rng.random() < 0.3),
                split_by=SplitBy(rng.choice(list(SplitBy))),
                split_bet=split_bet,
                surrender=Surrender(rng.choice(list(Surrender))),
                insurance=hole is HoleCard.PEEK and bool(rng.random() < 0.7),
                auto_stand_21=bool(rng.random() < 0.7),
                min_bet=min_bet,
                max_bet=int(rng.integers(min_bet + 3, 40)),
                card_values=values,
            )  # fmt: skip
            if stand_hit:
                rules = rules.replace(
                    double=DoubleRule.NEVER, max_split_hands=1, surrender=Surrender.NONE
                )
            return rules
        except ValueError:
            continue


def random_table(rng: np.random.Generator) -> tuple[dict[str, Any], dict[str, Any]]:
    """Random env settings the numpy vector env takes, without the rules: observation
    mode (with the rule features or not), bet, insurance decisions, illegal-action policy
    and penalty, several rounds per episode, a finite bankroll, bet steps, or several
    learner seats (fixed bet, unlimited credit, ``"map"``, as the numpy env requires);
    and what its rule sets must share for one shape (:func:`random_rules`' arguments:
    an infinite deck or not, stand and hit only, the largest table minimum)."""
    modes = ["vector", "multidiscrete", "dict", "tuple", "features"]
    kw: dict[str, Any] = {
        "obs_mode": str(rng.choice(modes, p=[0.25, 0.25, 0.25, 0.15, 0.1])),
        "insurance_decisions": bool(rng.random() < 0.4),
    }
    if kw["obs_mode"] in ("vector", "features", "dict") and rng.random() < 0.3:
        kw["observe_rules"] = True
    seats = int(rng.integers(2, 4)) if rng.random() < 0.2 else 1
    if seats > 1:
        kw["seats_per_table"] = seats
    else:
        if rng.random() < 0.5:
            kw["illegal_action"] = "penalize"
            kw["illegal_penalty"] = float(rng.choice([0.25, 0.5, 1.0, 0.3]))
        if rng.random() < 0.5:
            kw["rounds_per_episode"] = int(rng.integers(2, 5))
        if rng.random() < 0.3:
            kw["bankroll"] = int(rng.integers(4, 30))
        if rng.random() < 0.3:
            kw["bet_sizes"] = tuple(int(b) for b in sorted(set(rng.integers(1, 6, 3))))
    shape: dict[str, Any] = {
        "infinite": bool(rng.random() < 0.3),
        "stand_hit": bool(rng.random() < 0.05) and not kw["insurance_decisions"],
        "min_bet_at_most": 3,
    }
    if "bet_sizes" not in kw and rng.random() < 0.4:
        kw["bet"] = int(rng.integers(1, 7))
        shape["min_bet_at_most"] = min(3, kw["bet"])
    return kw, shape


def _numpy_config(kw: dict[str, Any]) -> Config | None:
    """The JAX config of ``kw``'s rule set and settings (read off the numpy vector env's
    settings and rule tables), or None when the numpy env refuses them."""
    try:
        env = BlackjackVectorEnv(kw.get("seats_per_table", 1), **kw)
    except ValueError:
        return None
    env.close()
    return config_of(env.settings, env.tables)


def random_group(
    rng: np.random.Generator, size: int, shared: dict[str, Any] | None = None
) -> list[dict[str, Any]]:
    """``size`` random rule sets under one random :func:`random_table`, as the numpy
    env's settings (one dict each, equal but for ``rules``), every one of the same JAX
    shape (``Config``) but the hand slots and the shoe's size, which a table takes the
    largest of: one vector adapter plays them all (one compiled program). Rules the
    numpy env refuses under the settings are drawn again (a table the first 20 draws do
    not fit is drawn again). ``shared``: the settings of a shared table
    (tests/jax/jax_helpers.py) in place of random ones: its own rule set first, then
    ``size`` random finite ones that fit its shape (at most its decks and hands)."""
    if shared is not None:
        kw = {k: v for k, v in shared.items() if k != "rules"}
        own = _numpy_config(shared)
        assert own is not None, shared
        group = [dict(shared)]
        while len(group) <= size:
            cand = {**kw, "rules": random_rules(rng, infinite=False, max_decks=SHOE_DECKS)}
            cfg = _numpy_config(cand)
            if cfg is not None and dataclasses.replace(
                cfg, hands=own.hands, shoe_size=own.shoe_size
            ) == own and cfg.hands <= own.hands and cfg.shoe_size <= own.shoe_size:
                group.append(cand)
        return group
    while True:
        kw, shape = random_table(rng)
        first: Config | None = None
        for _ in range(20):
            rules = random_rules(rng, **shape)
            first = _numpy_config({**kw, "rules": rules})
            if first is not None:
                break
        if first is None:
            continue
        group = [{**kw, "rules": rules}]
        for _ in range(100 * size):
            if len(group) == size:
                return group
            cand = {**kw, "rules": random_rules(rng, **shape)}
            own = _numpy_config(cand)
            if own is not None and dataclasses.replace(
                own, hands=first.hands, shoe_size=first.shoe_size
            ) == first:
                group.append(cand)
        raise AssertionError(f"no {size} rule sets of one shape under {kw}")


def check_random_settings(
    count: int,
    seed: int,
    n: int,
    per_group: int,
    long_run: bool = False,
    shared: Sequence[dict[str, Any]] = (),
) -> dict[str, int]:
    """``count`` random rule sets, each with random env settings, grouped by shape
    (:func:`random_group`, ``per_group`` a group): each group one vector adapter built
    with the list of its rule sets (each ``n`` tables), against one numpy vector env of
    ``n`` tables per rule set (:func:`~tests.jax.jax_helpers.run_parity`, exact): a
    shape compiles its programs once, whatever its rule sets. ``shared``: the settings of
    the groups, one shared table's each (their random rule sets beside its own), in place
    of random ones. Returns what was compared, summed (and the random rule sets, the
    groups, the distinct shapes, those of a non-dyadic chip unit). ``long_run``: a line
    per group."""
    rng = np.random.default_rng(seed)
    total: dict[str, int] = {}
    shapes: set[Any] = set()
    t0 = time.perf_counter()
    done = 0
    g = 0
    while done < count:
        size = min(per_group, count - done)
        group = random_group(rng, size, shared[g % len(shared)] if shared else None)
        s = group[0].get("seats_per_table", 1)
        kw = {k: v for k, v in group[0].items() if k != "rules"}
        listed = [r for one in group for r in [one["rules"]] * n]
        env = BlackjackJaxVectorEnv(len(listed) * s, **kw, rules=listed)
        shapes.add(env.table.program)
        try:
            seen = run_parity(env, group, n=n, seed=seed * 1000 + g, max_steps=200)
        except AssertionError as err:
            raise AssertionError(f"group {g}: {kw}, rules {[r['rules'] for r in group]}") from err
        assert seen["ended"] == len(group) * n * s
        for k, v in seen.items():
            total[k] = total.get(k, 0) + v
        for one in group:
            chip_den = int(BlackjackVectorEnv(s, **one).tables.chip_den)
            total["non_dyadic"] = total.get("non_dyadic", 0) + (chip_den & (chip_den - 1) != 0)
        env.close()
        done += size
        g += 1
        if long_run:
            print(f"{done}/{count} rule sets ({g} groups) at {time.perf_counter() - t0:.0f} s: "
                  f"{kw}", flush=True)  # fmt: skip
    total.update(settings=done, groups=g, shapes=len(shapes))
    return total


def test_random_rules_parity_fast() -> None:
    """A few random rule sets in two shapes, those of two shared tables (the
    ``"tuple"`` observation; ``"penalize"`` with bet steps, a bankroll and several rounds
    in ``"vector"``), each group beside the shared table's own rule set: the adapter's
    rewards, chips and every ``info`` key equal the numpy env's bit for bit, each shape's
    rule sets in one adapter (the shared table's program). Random env settings are the
    slow run's (:func:`test_random_rules_parity_300`)."""
    seen = check_random_settings(8, seed=3, n=16, per_group=4, shared=(TUPLE, PENALIZE))
    assert seen["settings"] == 8 and seen["groups"] == 2 and seen["shapes"] == 2
    assert seen["nonzero"] > 0 and seen["illegal"] > 0 and seen["illegal_bet"] > 0


#: rule sets of the slow run (BLACKJACK_PARITY_SETTINGS overrides, for a partial run)
N_RANDOM = int(os.environ.get("BLACKJACK_PARITY_SETTINGS", "300"))
#: rule sets per shape (one vector adapter, one compiled program each)
PER_SHAPE = 15


@pytest.mark.slow
def test_random_rules_parity_300() -> None:
    """300 random rule sets with random settings, the adapter against the numpy vector
    env bit for bit, in one process: 20 shapes of 15 rule sets, each shape one adapter
    built with its list of rule sets (one compiled program per shape). Measured (one
    process, 2 CPU cores shared, load about 8): before, every setting compiled its own
    programs (its rule flags were static), 85 settings in 631 CPU-s, the 300 about 37
    CPU-minutes split between three processes (one process ran out of LLVM's memory
    maps after about 65 settings unless it called ``jax.clear_caches()``); now (one
    process, the machine otherwise quiet, 2026-12-02) 302 s wall, 323 CPU-s, for 20
    adapters of 19 distinct shapes (two groups drew the same one)."""
    t0 = time.perf_counter()
    c0 = time.process_time()
    seen = check_random_settings(N_RANDOM, seed=33, n=32, per_group=PER_SHAPE, long_run=True)
    print(f"random-rules parity: {seen} in {time.perf_counter() - t0:.0f} s, "
          f"{time.process_time() - c0:.0f} CPU-s")  # fmt: skip
    assert seen["settings"] == N_RANDOM
    assert seen["groups"] == -(-N_RANDOM // PER_SHAPE)
    assert 1 <= seen["shapes"] <= seen["groups"]  # groups may draw the same shape
    if N_RANDOM < 300:
        return  # a part of the run: its settings passed; the counts below hold the whole
    assert seen["non_dyadic"] > N_RANDOM // 6
    assert seen["split"] > 0 and seen["illegal_bet"] > 0 and seen["truncated"] > 0


# ----------------------------------------------------------------- scripted rounds
def _pair(kw: dict[str, Any], cards: str, n: int = 1) -> tuple[Any, Any, Any, Any]:
    env = BlackjackJaxVectorEnv(n, **kw)
    ref = BlackjackVectorEnv(n, autoreset_mode="SameStep", **kw)
    opts = {"cards": [cards] * n}
    return env, ref, env.reset(seed=0, options=opts), ref.reset(seed=0, options=opts)


def test_penalty_is_not_charged_to_the_chips() -> None:
    """Issue 33 item 10: under ``"penalize"`` the penalty is a reward, never chips: an
    illegal SPLIT of a 15 against a 9 (the round played out standing: the dealer 9 7 8
    busts, +1) leaves the learner 1 chip up, as the numpy env (it was 0 before the
    fix), in ``info["bankroll"]`` and in the pure table's chips. (The shared penalize
    table: a bankroll of 8 chips, the round opened by a bet of one base bet.)"""
    kw = PENALIZE
    cards = "TS 9H 5C 7D 8S"  # player T 5, dealer 9 (hole 7), then 8 to the dealer
    env, ref, _, _ = _pair(kw, cards)
    bet = np.array([env.table.config.n_play])  # (one base bet: the first size)
    for e in (env, ref):
        _, r, _, _, info = e.step(bet)
        assert r[0] == 0.0 and not info["illegal_action"][0] and info["bankroll"][0] == 7.0
    a = np.array([3])
    _, r, _, _, info = env.step(a)
    _, r_np, _, _, info_np = ref.step(a)
    assert info["illegal_action"][0] and info_np["illegal_action"][0]
    assert r[0] == r_np[0] == 0.5  # +1 minus the penalty of 0.5
    assert info["round_net"][0] == info_np["round_net"][0] == 1.0
    assert info["bankroll"][0] == info_np["bankroll"][0] == 9.0  # 8 + 1, no penalty
    # the pure table: its chips are the same, without the penalty
    pure = table(**kw)
    p = pure.default_params
    st = pure.stack(pure.new_state(), cards)
    _, st = pure.start_round(jax.random.PRNGKey(0), st, p)
    _, st, *_ = pure.step_full(jax.random.PRNGKey(1), st, np.int32(bet[0]), p)
    _, st, reward, _, _ = pure.step_full(jax.random.PRNGKey(2), st, jnp.int32(3), p)
    assert float(reward) == 0.5
    # (jitted: one program, where op by op each operation compiles one of its own)
    chips = jax.jit(lambda s, q: bankroll(s, q, pure.config))(st, p)
    assert float(chips) == info_np["bankroll"][0]


def test_stacked_cards_left_at_an_episode_end_are_dropped() -> None:
    """Issue 33 item 11: cards stacked at a reset and not dealt when the episode ends are
    forgotten (numpy ``clear_stacks``): the next episode is dealt random cards, not the
    rest of the script (which would deal every sub-env 8 against a 4). (The default
    table, 16 sub-envs: make_vec's test's compiled functions.)"""
    kw = FEATURES
    env, _, _, _ = _pair(kw, "TS 9H 5C 7D 2C 3C 4C 5D 6D", n=16)
    obs, _, te, _, _ = env.step(np.zeros(16, np.int64))  # STAND on 19: the round ends
    assert te.all()
    assert int(np.asarray(env.state.stacked).max()) == 0
    total = obs[:, view.FEAT_TOTAL : view.FEAT_TOTAL + view.MAX_TOTAL + 1].argmax(axis=1)
    upcard = obs[:, view.FEAT_UPCARD : view.FEAT_UPCARD + view.UPCARD_HIGH + 1].argmax(axis=1)
    dealt = set(zip(total.tolist(), upcard.tolist(), strict=True))
    assert len(dealt) > 4  # 16 random deals (8 v 4 for all of them: the script kept)
    # the pure table drops them too
    pure = table(**kw)
    st = pure.stack(pure.new_state(), "TS 9H 5C 7D 2C 3C 4C 5D 6D")
    _, st = pure.start_round(jax.random.PRNGKey(0), st)
    _, st, _, done, _ = pure.step(jax.random.PRNGKey(1), st, jnp.int32(0))
    assert bool(done) and int(st.stacked) == 0


@pytest.mark.parametrize("bet", [1, 3])
def test_six_to_five_natural_pays_exactly(bet: int) -> None:
    """Issue 33 item 12: a 6:5 natural pays 1.2 as float64 (float32's
    1.2000000476837158 before), in the vector and single adapters, as the numpy envs;
    the chips after several rounds too. (The shared bets table with 6:5 rules: the round
    is dealt, and the natural paid, on its BET step.)"""
    kw = {**BETS, "rules": preset("single-deck-6to5", decks=SHOE_DECKS), "bet": bet}
    env, ref, _, _ = _pair(kw, "AS 9H KD 7C")  # a natural against a 9: paid at once
    one = env.table.config.n_play  # (a bet of one base bet)
    _, r, _, _, info = env.step(np.array([one]))
    _, r_np, _, _, info_np = ref.step(np.array([one]))
    assert r.dtype == np.float64 and r[0] == r_np[0] == 1.2
    assert info["round_net"][0] == 1.2 and info["bankroll"][0] == info_np["bankroll"][0]
    assert info["bankroll"][0] == float(Fraction(6, 5) * bet)  # (3 * 1.2 is not 3.6)
    single = gym.make("blackjack_env.jax:blackjack_env/BlackjackJax-v0", **kw)
    assert isinstance(single.unwrapped, BlackjackJaxEnv)
    single.reset(seed=0)
    for _ in range(400):  # until a natural is paid (one base bet, then a new episode)
        single.reset()
        _, reward, _, _, info = single.step(one)
        if abs(reward - 1.2) < 1e-3:
            assert reward == info["round_net"] == 1.2
            return
    pytest.fail("no natural in 400 rounds")
