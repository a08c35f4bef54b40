"""The compiled programs of a JAX table, keyed by what their trace reads.

A :class:`~blackjack_env.jax.BlackjackJax` hands its jitted functions a
:class:`Program` as their static argument and its :class:`~blackjack_env.jax.tables.Params`
as an ordinary argument. A ``Program`` holds only what chooses the traced code: the
:class:`~blackjack_env.jax.tables.Config` (the arrays' shapes), the observation mode, the
illegal-action policy and whether the observation carries the rule features. Equal
programs share one compilation in a process: every env of the same shapes, whatever its
rules (the payout of a natural, whether the dealer hits soft 17, the peek, surrender,
the settlement...: every rule is a ``Params`` entry).

The functions here work on one table (:func:`step`, :func:`reset`, ...) or on a batch
of tables along a leading axis (the ``batch_*`` functions, the Gymnasium vector
adapter's); ``jax.jit`` compiles each once per program and per shape of its arrays.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import NamedTuple, TypeAlias, TypeVar

import jax
import jax.numpy as jnp
from jaxtyping import Array, ArrayLike, Bool, Float32, Int32, PRNGKeyArray, PyTree

from blackjack_env.envs.step import IllegalAction
from blackjack_env.jax import illegal, tables
from blackjack_env.jax import observe as observation
from blackjack_env.jax import round as table_round
from blackjack_env.jax import seats as seat_turns
from blackjack_env.jax.arrays import Info, Keys, Observation
from blackjack_env.jax.dealer import dealer_turn
from blackjack_env.jax.round import end_round, first_round, next_deal, next_round
from blackjack_env.jax.settlement import round_net
from blackjack_env.jax.shoe import Rng, rngs
from blackjack_env.jax.state import State, new_state
from blackjack_env.jax.tables import Config, Params

__all__ = ["Program"]

#: A step's returns, gymnax's ``(obs, state, reward, done, info)``, the reward and
#: ``done`` per seat (a batch of tables: each with the leading ``tables`` axis)
GymnaxStep: TypeAlias = tuple[
    Observation, State, Float32[Array, "*seats"], Bool[Array, "*seats"], Info
]  # fmt: skip
#: A reset's returns, gymnax's ``(obs, state)``
GymnaxReset: TypeAlias = tuple[Observation, State]
#: :meth:`Program.play_step`'s loop of two dealer's turns: the state, the stream, the
#: dealer's turn due, and the ended round's ``(reward, over, books)``
Turns: TypeAlias = tuple[
    State, Rng, Bool[Array, ""], tuple[Float32[Array, "*seats"], Bool[Array, ""], "Books"]
]  # fmt: skip
#: what a function returns at each table of a batch (:func:`per_table`)
T = TypeVar("T")


@dataclass(frozen=True)
class Program:
    """What a table's traced code reads besides its arrays (hashable: a static argument).

    ``config``: the table's shapes; ``obs_mode``: the observation mode's value
    (``"features"``, ``"vector"``, ...); ``illegal_action`` and ``illegal_penalty``: the
    policy for an illegal action and the reward it costs under ``PENALIZE``;
    ``observe_rules``: the observation carries the rule features."""

    config: Config
    obs_mode: str
    illegal_action: IllegalAction
    illegal_penalty: float
    observe_rules: bool = False

    def observe(
        self, st: State, p: Params, settled: Bool[ArrayLike, ""] = False
    ) -> Observation:
        """One table's observation (one seat's, or ``(seats, ...)``; with the rule
        features under ``observe_rules``)."""
        return observation.observe(
            st, p, self.config, self.obs_mode, settled=settled, rules=self.observe_rules
        )

    def play_step(
        self, key: PRNGKeyArray, state: State, action: Int32[ArrayLike, "*seats"], p: Params,
        full: bool,
    ) -> GymnaxStep:  # fmt: skip
        """One decision at one table, unjitted (:func:`step` compiles it): the step that
        ends the round deals the next one or opens it for its bet, the step that ends the
        episode starts the next one. ``full``: the rich ``info`` (``FULL_INFO``).

        A step holds up to two dealer's turns: the one that ends the decision's round,
        then the one of the next round when it is dealt with no decision left (a
        natural). They are the one dealer's turn compiled once, the body of a
        ``fori_loop`` of two turns; the first turn then closes the round and deals the
        next (a ``lax.cond`` on the turn, which stays a branch under ``jax.vmap``). With
        bet steps the next round is only opened: one dealer's turn. Measured
        (2026-12-02, vegas-strip, XLA ``-O0``): the compiled step lost a tenth of its
        kernels."""
        cfg = self.config
        keys = jax.random.split(key)
        if self.illegal_action is IllegalAction.PENALIZE or cfg.bets:
            k_play, k_next = keys  # (split again for the play-out or the bet's deal)
        else:  # (the two streams drawn together)
            k_play, k_next = rngs(keys)
        if self.illegal_action is IllegalAction.PENALIZE:
            st, rk, dealer, played, bad, k_out = illegal.penalized_decision(
                k_play, state, action, p, cfg
            )

            def end(st: State) -> tuple[State, Float32[Array, "*seats"], Bool[Array, ""]]:
                st, reward, over, _, _ = illegal.penalized_end(
                    k_out, st, played, bad, p, cfg, self.illegal_penalty
                )
                return st, reward, over
        else:
            st, rk, dealer, played, bad = table_round.decide(k_play, state, action, p, cfg)

            def end(st: State) -> tuple[State, Float32[Array, "*seats"], Bool[Array, ""]]:
                over = table_round.round_over(st, cfg)
                return st, jnp.where(over, round_net(st, p, cfg), 0.0), over

        if cfg.bets:
            st, _ = dealer_turn(st, p, cfg, rk, dealer)
            st, reward, over = end(st)
            st, books = self._books(st, reward, over, p, full)
            st = next_round(k_next, st, p, cfg, over, books.ended)
            return self._returns(st, reward, over, played, bad, books, p)

        def close(carry: tuple[State, Rng, Bool[Array, ""], object]) -> Turns:
            st, reward, over = end(carry[0])
            st, books = self._books(st, reward, over, p, full)
            st, rk, dealer = next_deal(k_next, st, p, cfg, over, books.ended)
            return st, rk, dealer, (reward, over, books)

        def body(i: Int32[Array, ""], carry: Turns) -> Turns:
            st, rk, dealer, out = carry
            st, _ = dealer_turn(st, p, cfg, rk, dealer)
            return jax.lax.cond(i == 0, close, lambda c: c, (st, rk, dealer, out))

        shapes = jax.eval_shape(close, (st, rk, dealer, None))[3]
        out = jax.tree.map(lambda x: jnp.zeros(x.shape, x.dtype), shapes)
        st, _, _, (reward, over, books) = jax.lax.fori_loop(
            0, 2, body, (st, rk, dealer, out)
        )
        return self._returns(st, reward, over, played, bad, books, p)

    def _books(
        self, st: State, reward: Float32[Array, "*seats"], over: Bool[Array, ""], p: Params,
        full: bool,
    ) -> tuple[State, Books]:  # fmt: skip
        """The books of a step's ended round (where ``over``): its chips join the session,
        the episode ends or not (:func:`~blackjack_env.jax.round.end_round`), its last
        observation (``full``), the stacked cards an ended episode did not deal dropped."""
        cfg = self.config
        # the round's net, the penalty not taken: the chips won or lost (the penalty is a
        # reward, never chips: the numpy envs' bankroll and session ignore it)
        net = jnp.where(over, round_net(st, p, cfg), 0.0)
        chips = jnp.where(over, jnp.round(net * (p.bet * p.chip_den)).astype(jnp.int32), 0)
        st, term, trunc = end_round(st, net, over, p, cfg)
        ended = term | trunc
        # (the round is over: its mask allows every action, as the numpy env's SETTLED)
        final = self.observe(st, p, settled=True) if full else None
        # stacked cards not dealt by an ended episode are dropped (numpy
        # TableBatch.clear_stacks): the next episode's cards are random
        st = st._replace(stacked=jnp.where(jnp.any(ended), 0, st.stacked))
        return st, Books(net, chips, term, trunc, final)

    def _returns(
        self, st: State, reward: Float32[Array, "*seats"], over: Bool[Array, ""],
        played: Int32[Array, "*seats"], bad: Bool[Array, "*seats"], books: Books, p: Params,
    ) -> GymnaxStep:
        """:meth:`play_step`'s returns, the next round begun at ``st``."""
        cfg = self.config
        obs = self.observe(st, p)
        shape = jnp.shape(reward)
        done = jnp.broadcast_to(books.ended, shape)
        info: Info = {
            "action_mask": seat_turns.masks(st, p, cfg),
            "round_over": jnp.broadcast_to(over, shape),
            "illegal_action": bad,
            "terminated": jnp.broadcast_to(books.term, shape),
            "truncated": jnp.broadcast_to(books.trunc, shape),
            "discount": jnp.where(books.term, 0.0, 1.0) * jnp.ones(shape),
        }
        if cfg.seats > 1:
            info["active"] = seat_turns.active(st, cfg)
        if books.final is not None:
            info["final_observation"] = books.final
            info["round_net"] = jnp.broadcast_to(books.net, shape).astype(jnp.float32)
            info["round_chips"] = jnp.broadcast_to(books.chips, shape)
            info["action_played"] = played
        return obs, st, reward.astype(jnp.float32), done, info


class Books(NamedTuple):
    """A step's ended round, as :meth:`Program.play_step` reports it: its net in base
    bets and in exact chips (0 where no round ended), ``terminated`` / ``truncated``, and
    its last observation (``full`` steps; else None)."""

    net: Float32[Array, "*seats"]
    chips: Int32[Array, "*seats"]
    term: Bool[Array, ""]
    trunc: Bool[Array, ""]
    final: Observation | None

    @property
    def ended(self) -> Bool[Array, ""]:
        """The episode ended: terminated or truncated."""
        return self.term | self.trunc


def _batched(st: State) -> bool:
    """Whether ``st`` holds a batch of tables (a leading axis)."""
    return bool(jnp.ndim(st.pos))


def per_table(fn: Callable[..., T], p: Params | tables.Banked, *rows: PyTree[Array]) -> T:
    """``fn(*row, p)`` at each table of a batch: ``rows`` with a leading axis (one entry
    per table); ``p`` one rule set for every table, one per table (a leading axis,
    :func:`~blackjack_env.jax.tables.stack`), or a :class:`~blackjack_env.jax.tables.Banked`
    batch (a bank shared by the tables, an index per table: each table reads its rule
    set's rows of the bank)."""
    if isinstance(p, tables.Banked):
        bank = p.bank
        return jax.vmap(lambda *a: fn(*a[:-1], bank.at(a[-1])))(*rows, p.index)
    axes = (*(0,) * len(rows), 0 if tables.batched(p) else None)
    return jax.vmap(fn, in_axes=axes)(*rows, p)


@partial(jax.jit, static_argnums=0)
def reset(prog: Program, key: PRNGKeyArray, p: Params) -> GymnaxReset:
    """A fresh table (a new shoe) with its first round dealt, and its observation."""
    st = first_round(key, new_state(prog.config, p), p, prog.config)
    return prog.observe(st, p), st


@partial(jax.jit, static_argnums=(0, 2))
def fresh_tables(prog: Program, p: Params | tables.Banked, num_tables: int | None) -> State:
    """Tables before their first round (a full shoe each): one table (``num_tables``
    None), or ``num_tables`` of them under ``p`` (one rule set for all, one row per
    table, or a :class:`~blackjack_env.jax.tables.Banked` batch), compiled as one program
    (built op by op, each of its thirty-odd array operations compiled a program of its
    own for each new shape)."""
    cfg = prog.config
    if isinstance(p, tables.Banked) or tables.batched(p):  # (a table per rule set row)
        return per_table(lambda q: new_state(cfg, q), p)
    one = new_state(cfg, p)
    if num_tables is None:
        return one
    return jax.tree.map(lambda a: jnp.broadcast_to(a, (num_tables, *a.shape)), one)


@partial(jax.jit, static_argnums=0)
def step(
    prog: Program, key: PRNGKeyArray, state: State, action: Int32[ArrayLike, "*seats"],
    p: Params,
) -> GymnaxStep:  # fmt: skip
    """:meth:`Program.play_step` with the rich ``info``, compiled: one program for both
    of a table's steps (``BlackjackJax.step`` keeps the lean entries of this one, and
    under an enclosing ``jit`` XLA drops what nobody reads)."""
    return prog.play_step(key, state, action, p, True)


@partial(jax.jit, static_argnums=0)
def start_round(prog: Program, key: PRNGKeyArray, state: State, p: Params) -> GymnaxReset:
    """An episode started at each table of ``state`` (one, or a batch: one key each)."""
    cfg = prog.config
    if _batched(state):
        keys = jax.random.split(key, state.pos.shape[0])
        st = per_table(lambda k, s, q: first_round(k, s, q, cfg), p, keys, state)
        return per_table(prog.observe, p, st), st
    st = first_round(key, state, p, cfg)
    return prog.observe(st, p), st


@partial(jax.jit, static_argnums=0)
def masks(
    prog: Program, state: State, p: Params | tables.Banked
) -> Bool[Array, "*batch actions"]:
    """The legal actions of each seat of one table, or of a batch of tables (``p`` as
    :func:`per_table` takes it)."""
    cfg = prog.config
    if _batched(state):
        return per_table(lambda s, q: seat_turns.masks(s, q, cfg), p, state)
    if isinstance(p, tables.Banked):
        raise ValueError("masks: a Banked batch of rules needs a batch of tables")
    return seat_turns.masks(state, p, cfg)


@partial(jax.jit, static_argnums=0)
def active(prog: Program, state: State) -> Bool[Array, "*batch"]:
    """The seat the next step plays at one table, or at a batch of tables."""
    fn = partial(seat_turns.active, cfg=prog.config)
    return jax.vmap(fn)(state) if _batched(state) else fn(state)


@partial(jax.jit, static_argnums=0)
def observe(prog: Program, state: State, p: Params) -> Observation:
    """The observation of one table, or of a batch of tables."""
    if _batched(state):
        return per_table(prog.observe, p, state)
    return prog.observe(state, p)


@partial(jax.jit, static_argnums=(0, 5))
def batch_step(
    prog: Program, keys: Keys, state: State, actions: Int32[Array, " tables *seats"],
    p: Params | tables.Banked, full: bool,
) -> GymnaxStep:
    """:meth:`Program.play_step` at a batch of tables (one key and action row each; ``p``
    as :func:`per_table` takes it)."""
    return per_table(lambda k, s, a, q: prog.play_step(k, s, a, q, full), p, keys, state, actions)
