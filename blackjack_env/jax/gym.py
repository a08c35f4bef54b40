"""Gymnasium adapters of the JAX table: numpy arrays out, for Gymnasium users.

``gymnasium.make_vec("blackjack_env.jax:blackjack_env/BlackjackJax-v0", num_envs=N,
rules="vegas-strip")`` builds :class:`BlackjackJaxVectorEnv` (the prefix imports this
package, which registers the id); ``gymnasium.make`` of the same id builds the single-table
:class:`BlackjackJaxEnv` (which ``gymnasium.utils.env_checker.check_env`` passes). Both take
:class:`~blackjack_env.jax.BlackjackJax`'s arguments and step the jitted JAX table; the
game, the spaces and the rewards are the numpy envs' (``BlackjackEnv`` /
``BlackjackVectorEnv`` with the same arguments); the vector adapter takes
``seats_per_table`` (one sub-env per seat, as ``BlackjackVectorEnv``), the single-table
one seats one learner. Besides the table's ``illegal_action`` policies (``"map"``,
``"penalize"``), the adapters take ``"raise"``: numpy actions are checked against the mask
on the host before the step, and an illegal one raises the numpy envs' ``ValueError``
with the state unchanged.

Gymnasium's own ``FunctionalJaxVectorEnv`` (``gymnasium.envs.functional_jax_env``) is not
used: it resets sub-envs with ``state.at[...]``, which needs the state to be one array,
not a pytree, and it returns ``jax`` arrays.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any, ClassVar, TypeAlias

import gymnasium as gym
import jax
import jax.numpy as jnp
import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space
from jaxtyping import Array, ArrayLike, Bool, Float64, Int32, Integer, PRNGKeyArray, PyTree, Shaped

from blackjack_env.envs.settings import check_action, check_reset_options
from blackjack_env.envs.step import Decision, IllegalAction, illegal_message
from blackjack_env.envs.vector.checks import (
    check_actions,
    check_num_envs,
    check_reset_mask,
    read_stacks,
)
from blackjack_env.jax import program
from blackjack_env.jax.arrays import Observation
from blackjack_env.jax.chips import chip_units
from blackjack_env.jax.env import BlackjackJax
from blackjack_env.jax.hands import decision_of
from blackjack_env.jax.program import Program, per_table
from blackjack_env.jax.round import next_round, play_out
from blackjack_env.jax.seats import active, masks
from blackjack_env.jax.shoe import open_shoe
from blackjack_env.jax.state import State, new_state
from blackjack_env.jax.tables import Banked, Config, Params

__all__ = ["ENV_ID", "BlackjackJaxEnv", "BlackjackJaxVectorEnv", "register"]

#: The Gymnasium id of the JAX table (registered when this package is imported).
ENV_ID = "blackjack_env/BlackjackJax-v0"

_KNOWN_OPTIONS = ("cards", "reset_mask")  # the numpy vector env's reset options
#: An observation on the host, as the numpy envs give it (an array, a dict or a tuple of
#: them; a ``Discrete`` field as a numpy scalar)
NumpyObservation: TypeAlias = PyTree[np.ndarray | np.generic]


def _seed_key(seed: int | None, rng: np.random.Generator) -> PRNGKeyArray:
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer))):
        raise ValueError(f"seed={seed!r} must be an int or None")
    if seed is not None and seed < 0:  # (Gymnasium's words, as the numpy envs raise)
        raise gym.error.Error(f"Seed must be greater or equal to zero, actual value: {seed}")
    value = int(seed) if seed is not None else int(rng.integers(0, 2**31 - 1))
    return jax.random.PRNGKey(value)


def _table(kwargs: dict[str, Any]) -> tuple[BlackjackJax, bool]:
    """The JAX table of the adapters' arguments, and whether illegal actions raise:
    ``illegal_action="raise"`` is checked on the host (:func:`_check_legal`), the table
    underneath then mapping (it never sees an illegal action)."""
    strict = kwargs.get("illegal_action") in ("raise", IllegalAction.RAISE)
    if strict:
        kwargs = {**kwargs, "illegal_action": "map"}
    return BlackjackJax(**kwargs), strict


def _check_legal(
    table: BlackjackJax, actions: np.ndarray, batched: bool, mask: np.ndarray,
    phases: Callable[[], np.ndarray],
) -> None:
    """``illegal_action="raise"``: ``ValueError`` (``envs.step.illegal_message``, the
    numpy envs' words) for the first action not legal now (``mask``: the legal actions
    now, one row per action, as the last ``info`` gave them; ``phases``: the decision
    asked of each row, the ``phase`` of :func:`_table_info`, read only for the message);
    nothing has changed."""
    mask = mask.reshape(actions.size, -1)
    a = actions.reshape(-1)
    bad = mask[np.arange(a.size), a] == 0
    if bad.any():
        t = int(bad.nonzero()[0][0])
        phase = int(np.asarray(phases()).reshape(-1)[t])
        raise ValueError(illegal_message(
            int(a[t]), table.action_names, Decision(phase).name,
            mask[t].nonzero()[0].tolist(), f"sub-env {t}: " if batched else "",
        ))  # fmt: skip


def _to_numpy(obs: Observation, space: gym.Space[object]) -> NumpyObservation:
    """A JAX observation as numpy arrays of the numpy env's dtypes (dict and tuple modes:
    field by field)."""
    if isinstance(space, gym.spaces.Dict):
        return {k: _to_numpy(obs[k], sub) for k, sub in space.spaces.items()}
    if isinstance(space, gym.spaces.Tuple):
        return tuple(_to_numpy(v, sub) for v, sub in zip(obs, space.spaces, strict=True))
    out = np.asarray(obs, dtype=space.dtype)
    return out[()] if isinstance(space, gym.spaces.Discrete) and out.ndim == 0 else out


def _finish_round(
    key: PRNGKeyArray, st: State, on: Bool[Array, ""], p: Params, cfg: Config
) -> State:
    """One table (of one or several seats) where ``on``, before a reset that keeps its
    shoe (numpy ``TableBatch.finish_rounds`` then ``clear_stacks``): the round in play is
    played out (:func:`blackjack_env.jax.round.play_out`), and stacked cards not dealt
    are forgotten."""
    st = play_out(key, st, p, cfg, on)
    return st._replace(stacked=jnp.where(on, 0, st.stacked))


@partial(jax.jit, static_argnums=0)
def _finish(
    prog: Program, key: PRNGKeyArray, st: State, on: Bool[Array, " tables"],
    p: Params | Banked,
) -> State:  # fmt: skip
    """:func:`_finish_round` at each table of a batch where ``on``."""
    keys = jax.random.split(key, st.pos.shape[0])
    cfg = prog.config
    return per_table(lambda k, s, o, q: _finish_round(k, s, o, q, cfg), p, keys, st, on)


@partial(jax.jit, static_argnums=0)
def _open(prog: Program, st: State, on: Bool[Array, " tables"], p: Params | Banked) -> State:
    """The last round's cards to the discards (a reshuffle if the cut card is out) at each
    table where ``on`` (a table awaiting its bet has opened its shoe), before stacking, as
    the numpy tables do; the deal then finds nothing more to do."""
    cfg = prog.config
    return per_table(
        lambda s, o, q: open_shoe(s, q, cfg, o & ~s.opened if cfg.bets else o), p, st, on
    )


@partial(jax.jit, static_argnums=0)
def _begin(
    prog: Program, key: PRNGKeyArray, st: State, on: Bool[Array, " tables"],
    p: Params | Banked,
) -> tuple[Observation, State]:  # fmt: skip
    """A new episode at each table of a batch where ``on`` (a fresh table: the first round
    of a new shoe), and the tables' observations."""
    cfg = prog.config
    keys = jax.random.split(key, st.pos.shape[0])
    st = per_table(lambda k, x, o, q: next_round(k, x, q, cfg, o, o), p, keys, st, on)
    return per_table(prog.observe, p, st), st


@partial(jax.jit, static_argnums=0)
def _redraw(
    prog: Program, key: PRNGKeyArray, st: State, on: Bool[Array, " tables"], p: Banked
) -> tuple[Observation, State, Int32[Array, " tables"]]:
    """Each table where ``on`` draws its rule set from the bank and starts a new episode
    at a fresh table under it (a full shoe of its decks: :func:`new_state`); the
    others keep theirs. ``(observations, state, each table's rule set index)``."""
    cfg = prog.config
    k_draw, k_deal = jax.random.split(key)
    n = st.pos.shape[0]
    drawn = jax.vmap(p.bank.sample_index)(jax.random.split(k_draw, n))
    p = p._replace(index=jnp.where(on, drawn, p.index))

    def pick(
        new: Shaped[Array, "tables ..."], old: Shaped[Array, "tables ..."]
    ) -> Shaped[Array, "tables ..."]:
        return jnp.where(on.reshape((n,) + (1,) * (jnp.ndim(old) - 1)), new, old)

    fresh = per_table(lambda q: new_state(cfg, q), p)
    st = jax.tree.map(pick, fresh, st)
    keys = jax.random.split(k_deal, n)
    st = per_table(lambda k, x, o, q: next_round(k, x, q, cfg, o, o), p, keys, st, on)
    return per_table(prog.observe, p, st), st, p.index


_BET, _SETTLED = int(Decision.BET), int(Decision.SETTLED)


@partial(jax.jit, static_argnums=0)
def _state_info(
    prog: Program, st: State, p: Params | Banked
) -> dict[str, Shaped[Array, "*tables *seats"]]:
    """:func:`_table_info` of one table, or of each table of a batch."""
    cfg = prog.config
    if not jnp.ndim(st.pos):
        assert not isinstance(p, Banked)
        return _table_info(st, p, cfg)
    return per_table(lambda s, q: _table_info(s, q, cfg), p, st)


def _table_info(st: State, p: Params, cfg: Config) -> dict[str, Shaped[Array, "*seats"]]:
    """One table's ``info`` entries read from its state, per seat (the numpy vector env's
    ``_info``): each seat's legal actions (``action_mask``), the decision each seat is
    asked (``phase``: a seat the table does not wait for ``SETTLED``, a table awaiting its
    bet ``BET``), the episode's ``round``, the learner's chips (``bankroll``), the undealt
    cards (``shoe_remaining``, -1 for an infinite deck), whether the shoe was reshuffled
    before this round and, with several seats, the seat the next step plays (``active``):
    one program for the whole info, where the mask, these entries and the seat were three
    (three calls a step). ``bankroll`` is exact integer chips in units of ``1 /
    chip_den``: :func:`chips_to_float` makes the numpy env's float64 of them on the host."""
    phase = decision_of(st.phase)
    if cfg.bets:
        phase = jnp.where(st.opened, _BET, phase)
    acting = active(st, cfg) if cfg.seats > 1 else None
    if acting is not None:
        phase = jnp.where(acting, phase, _SETTLED)
    shape = jnp.shape(phase)
    left = jnp.asarray(-1 if cfg.infinite else st.left)
    info = {
        "action_mask": masks(st, p, cfg),
        "phase": phase,
        "round": jnp.broadcast_to(st.episode_rounds, shape),
        "bankroll": chip_units(st, p, cfg) if cfg.bankroll else st.session,
        "shoe_remaining": jnp.broadcast_to(left, shape),
        "reshuffled": jnp.broadcast_to(st.reshuffled, shape),
    }
    if acting is not None:
        info["active"] = acting
    return info


def chips_to_float(
    units: Integer[ArrayLike, "*n"], chip_den: Integer[np.ndarray, "*n"] | int,
    per: Integer[np.ndarray, "*n"] | int = 1,
) -> Float64[np.ndarray, "*n"]:  # fmt: skip
    """Exact chips in units of ``1 / chip_den`` (integers from the JAX table) as the
    numpy envs' float64, on the host: ``units / chip_den`` (``per``: then in units of
    ``per`` chips, a base bet; both scalars or one per entry), the numpy vector env's
    arithmetic for exact chips, so the two agree bit for bit (a 6:5 natural pays 1.2, not
    float32's 1.2000000476837158; dividing by a ``per`` of 1 changes no bit)."""
    out = np.asarray(units, dtype=np.int64) / chip_den
    return out / per if np.any(np.asarray(per) != 1) else out


#: the info entries of _state_info, as the numpy env's dtypes (bankroll: chip units,
#: made float64 by chips_to_float)
_STATE_INFO = {"action_mask": np.int8, "phase": np.int64, "round": np.int64,
               "bankroll": np.int64, "shoe_remaining": np.int64, "reshuffled": bool,
               "active": bool}  # fmt: skip


def _one_seat(kwargs: dict[str, object]) -> None:
    if kwargs.get("seats_per_table", 1) != 1:
        raise ValueError(
            f"seats_per_table={kwargs['seats_per_table']!r}: the single-table Gymnasium "
            f"adapter of the JAX table seats one learner; use gymnasium.make_vec (one "
            f"sub-env per seat) or BlackjackJax (seat axis) for several"
        )


class BlackjackJaxVectorEnv(VectorEnv):
    """``num_envs`` learner seats at JAX tables as a Gymnasium ``VectorEnv`` (numpy arrays
    in and out).

    ## Description

    The game, spaces, rewards, errors and the batched layout are
    :class:`~blackjack_env.envs.vector.BlackjackVectorEnv`'s with
    ``autoreset_mode="SameStep"`` (the JAX table resets inside its step), whose docstring
    is the specification; the parity tests replay stacked cards through both, step by
    step. The same seed gives the same games (other cards than the numpy env's: equal in
    distribution, not in stream).

    ## Autoreset

    ``"SameStep"`` only: the step that ends a sub-env's episode returns the next
    episode's first observation, and the ended one's last observation in
    ``info["final_obs"]`` (valid where ``info["_final_obs"]``). Resetting without a seed
    keeps each table's shoe (a round still in play is first played out with the learner
    standing, ``engine.play.play_out_action``); a seed starts fresh shoes.

    ## Several learner seats per table

    ``seats_per_table=S`` (default 1) seats S learners at each JAX table (its seat axis):
    ``num_envs`` must be a multiple of S, and sub-env ``r`` is seat ``r % S`` of table
    ``r // S`` (``info["table"]``, ``info["seat"]``). Each step only the seat each table
    waits for acts: ``info["active"]`` marks the sub-envs whose action the *next* step
    plays; the other seats' actions are ignored and their observations show phase
    ``SETTLED`` with an all-ones mask. A settled round rewards every seat of the table on
    that step, and an episode ends for every seat of the table at once. Multi-seat tables
    take a fixed bet, unlimited credit, and illegal actions ``"map"`` or ``"raise"``, as
    the numpy env's.

    ## Info

    The numpy env's keys, batched, each with its ``_key`` mask (all True):
    ``action_mask`` ``(num_envs, n)`` int8, ``phase``, ``round``, ``bankroll``,
    ``shoe_remaining``, ``reshuffled``; with several seats ``table``, ``seat`` and
    ``active``; after ``step``: ``illegal_action``, ``action_played``, ``round_over``,
    ``round_net``, and on a step that ends an episode ``final_obs`` and ``final_info``
    (``round_net``, ``round``). The tables' state is ``env.state`` (a
    :class:`~blackjack_env.jax.state.State` of ``num_envs // S`` tables).

    ## Rules per table

    ``rules`` may also be a list of rule sets, one per table (``num_envs //
    seats_per_table`` of them), each table playing its own in the one compiled program;
    or a :class:`~blackjack_env.engine.rulespace.RuleSpace`: each table draws its rule set
    from the space's training rule sets (its held-out ones never) at every reset and every
    automatic reset, and starts a fresh table (a full shoe) under it. ``info["rules_index"]``
    (int64 per sub-env) is then the index of its table's rule set in the list or in the
    space (``space.rules_at(i)``), and on a step that ends an episode
    ``info["final_info"]["rules_index"]`` is the ended episode's (under a space).

    ## Reset options

    As the numpy env's: ``cards`` (text dealt first at every table, or one entry per
    sub-env; with several seats a table's cards at its seat-0 sub-env, the others None)
    and ``reset_mask`` (bool ``(num_envs,)``: reset only these sub-envs, whole tables;
    the others keep their state). Options are checked before anything changes.

    ## Arguments

    ``num_envs`` and :class:`~blackjack_env.jax.BlackjackJax`'s arguments (validated by
    the numpy env's settings), ``seats_per_table`` included; ``illegal_action`` also takes
    ``"raise"``: the actions are checked against the mask on the host before the step,
    and an illegal one raises the numpy env's ``ValueError`` (``"sub-env r: action ..."``)
    with the state unchanged.
    """

    metadata: ClassVar[dict[str, Any]] = {
        "autoreset_mode": AutoresetMode.SAME_STEP,
        "render_modes": [],
    }

    def __init__(self, num_envs: int = 1, **kwargs: Any) -> None:
        n = check_num_envs(num_envs)
        self.table, self._strict = _table(kwargs)
        table = self.table
        s = self.seats = table.seats
        if n % s:
            raise ValueError(
                f"num_envs={n} must be a multiple of seats_per_table={s} (one sub-env per seat)"
            )
        self.num_envs = n
        #: JAX tables (``num_envs // seats_per_table``)
        self.num_tables = n // s
        self.single_observation_space = table.gymnasium_observation_space
        self.single_action_space = table.gymnasium_action_space
        self.observation_space = batch_space(self.single_observation_space, n)
        self.action_space = batch_space(self.single_action_space, n)
        self.render_mode = None
        self._np_rng = np.random.default_rng()
        self._key: PRNGKeyArray = None  # type: ignore[assignment]  # (None until the first reset)
        #: the tables' state (None before the first reset)
        self.state: State | None = None
        #: the legal actions of ``state``, int8 ``(num_envs, n)``: the last ``info``'s
        #: ``action_mask`` (read by action_masks() and the "raise" check, compiling and
        #: running no program of their own)
        self._mask: np.ndarray | None = None
        #: the decision asked of each sub-env of ``state`` (``illegal_action="raise"``
        #: only): the last ``info``'s ``phase``
        self._phase: np.ndarray | None = None
        self._all = np.ones(n, bool)
        self._all.flags.writeable = False
        self._seat_info: dict[str, np.ndarray] = {}
        if s > 1:
            for name, value in (("table", np.arange(n) // s), ("seat", np.arange(n) % s)):
                value.flags.writeable = False
                self._seat_info[name] = value
        given = kwargs.get("rules")
        #: one row per table: the index of its rule set in the ``rules`` list, or in the
        #: rule space (``space.rules_at(i)``); None for one rule set
        self.rules_index: np.ndarray | None = None
        #: the bank's rule sets by their index in the ``rules`` list or the space (a
        #: space's training ones: those its sampler draws); None for one rule set
        self.bank_rules: np.ndarray | None = None
        self._draws = False
        if isinstance(given, (list, tuple)):
            if len(given) != self.num_tables:
                raise ValueError(
                    f"rules: a list of {len(given)} rule sets for {self.num_tables} tables "
                    f"(one per table: num_envs // seats_per_table); give one per table, one "
                    f"rule set, or a RuleSpace"
                )
            self.bank_rules = np.arange(self.num_tables)
            bank = table.rule_bank(list(given))
            # (made on the host and put on the device: jnp.arange alone compiles a program)
            self._set_params(Banked(bank, jnp.asarray(np.arange(self.num_tables, dtype=np.int32))))
        elif table.rule_space is not None:
            space = table.rule_space
            training = [i for i in range(len(space)) if not space.is_held_out(space.rules_at(i))]
            self.bank_rules = np.asarray(training, dtype=np.int64)
            bank = table.rule_bank([space.rules_at(i) for i in training])
            self._draws = True  # (each table draws its rule set at every reset)
            self._set_params(Banked(bank, jnp.asarray(np.zeros(self.num_tables, np.int32))))
        else:
            self._set_params(table.default_params)

    def _set_params(self, p: Params | Banked) -> None:
        """The tables' rules (one rule set, or each table's of a bank), and the host copies
        of what the adapter reads per sub-env (the chip unit, the bet, the rules' index)."""
        #: the tables' rules, passed to the compiled functions (keyed on the table's
        #: program: adapters of equal programs share their compilations)
        self._params = p

        def rows(x: Integer[ArrayLike, "*tables"]) -> np.ndarray:
            per_table = np.broadcast_to(np.asarray(x, np.int64), (self.num_tables,))
            return np.repeat(per_table, self.seats)

        if isinstance(p, Banked):
            at = np.asarray(p.index)
            assert self.bank_rules is not None
            self.rules_index = self.bank_rules[at]
            self._chip_den = rows(np.asarray(p.bank.scalars["chip_den"])[at])
            self._bet = rows(np.asarray(p.bank.scalars["bet"])[at])
        else:
            self._chip_den, self._bet = rows(p.chip_den), rows(p.bet)

    def _flat(self, x: PyTree[Array]) -> PyTree[np.ndarray]:
        """A JAX output of the tables (leading axes tables[, seats]) as numpy rows, one per
        sub-env (per field of a dict or tuple)."""
        if isinstance(x, dict):
            return {k: self._flat(v) for k, v in x.items()}
        if isinstance(x, tuple):
            return tuple(self._flat(v) for v in x)
        a = np.asarray(x)
        return a if self.seats == 1 else a.reshape(self.num_envs, *a.shape[2:])

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[NumpyObservation, dict[str, Any]]:
        n, s = self.num_envs, self.seats
        mask = self._all
        cards: Any = None
        if options is not None:  # checked before anything changes (the numpy env's checks)
            check_reset_options(options, _KNOWN_OPTIONS)
            cards = options.get("cards")
            if "reset_mask" in options:
                mask = check_reset_mask(options["reset_mask"], n, s)
        # (checked against the largest shoe of the tables' rule sets; a table's own shoe
        # refuses, in table.stack below, a card it does not hold)
        cfg = self.table.config
        stacks = read_stacks(cards, n, s, None if cfg.infinite else cfg.shoe_size // 52)
        key = self._key
        if seed is not None or key is None:
            key = _seed_key(seed, self._np_rng)
        key, k_finish, k_begin = jax.random.split(key, 3)
        on = mask.reshape(self.num_tables, s)[:, 0]
        fresh = seed is not None or self.state is None
        if fresh:
            st = self.table.new_state(self.num_tables, self._params)
            on = np.ones(self.num_tables, bool)
        else:
            st = _finish(self.table.program, k_finish, self.state, on, self._params)
        shuffled = np.zeros(self.num_tables, bool)
        if stacks:
            st = _open(self.table.program, st, on, self._params)
            shuffled = np.asarray(st.reshuffled) & on
            per_table = [stacks.get(r * s) if on[r] else None for r in range(self.num_tables)]
            st = self.table.stack(st, per_table, params=self._params)  # (refused: unchanged)
        if self._draws and not stacks:  # (stacked cards: the rules kept)
            obs, new = self._draw(k_begin, st, on)
        else:
            obs, new = _begin(self.table.program, k_begin, st, on, self._params)
        if shuffled.any():  # (on the host: an operation run alone compiles a program)
            new = new._replace(reshuffled=jnp.asarray(np.asarray(new.reshuffled) | shuffled))
        self.state = new
        self._key = key
        return self._np_obs(obs), self._info({})

    def _draw(self, key: PRNGKeyArray, st: State, on: np.ndarray) -> tuple[Observation, State]:
        """Under a rule space: the tables where ``on`` draw their rule sets from the bank
        and start an episode at a fresh table under them."""
        p = self._params
        assert isinstance(p, Banked)
        obs, st, index = _redraw(self.table.program, key, st, on, p)
        self._set_params(p._replace(index=index))
        return obs, st

    def _np_obs(self, obs: Observation) -> NumpyObservation:
        return _to_numpy(self._flat(obs), self.single_observation_space)

    def _info(self, extra: dict[str, np.ndarray]) -> dict[str, Any]:
        """The numpy vector env's ``info`` of the tables now, with ``extra`` (the step's
        entries), each key with its ``_key`` mask (all True)."""
        info: dict[str, Any] = {}
        for k, v in _state_info(self.table.program, self.state, self._params).items():
            info[k] = self._flat(v).astype(_STATE_INFO[k])
        # (copies: the caller may write into its info; the phase only for "raise")
        self._mask = info["action_mask"].copy()
        if self._strict:
            self._phase = info["phase"].copy()
        info["bankroll"] = chips_to_float(info["bankroll"], self._chip_den)
        if self.seats > 1:  # (the numpy env's order: the seats' entries, then active)
            info.update(self._seat_info)
            info["active"] = info.pop("active")
        if self.rules_index is not None:  # (the rules of each sub-env's table)
            info["rules_index"] = np.repeat(self.rules_index, self.seats)
        info.update(extra)
        for k in list(info):
            info["_" + k] = self._all
        return info

    def step(
        self, actions: Any
    ) -> tuple[NumpyObservation, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        if self.state is None:
            raise gym.error.ResetNeeded("call reset() before step()")
        a = check_actions(actions, self.num_envs, self.table.num_actions, self.table.action_names)
        if self._strict:
            mask, phase = self._mask, self._phase
            assert mask is not None and phase is not None
            _check_legal(self.table, a, True, mask, lambda: phase)
        self._key, sub = jax.random.split(self._key)
        shaped = a.reshape(self.num_tables, self.seats) if self.seats > 1 else a
        # (each table's round, one row per sub-env)
        rounds = np.repeat(np.asarray(self.state.episode_rounds, np.int64), self.seats)
        obs, self.state, _reward, done, info = program.batch_step(
            self.table.program, jax.random.split(sub, self.num_tables), self.state,
            np.asarray(shaped, np.int32), self._params, True,
        )  # fmt: skip
        f = self._flat
        round_net = chips_to_float(f(info["round_chips"]), self._chip_den, self._bet)
        illegal = f(info["illegal_action"])
        reward = round_net
        if self.table.illegal_action is IllegalAction.PENALIZE:
            reward = round_net - np.where(illegal, self.table.illegal_penalty, 0.0)
        ended = f(done)
        final = {"round_net": round_net, "_round_net": ended, "round": rounds, "_round": ended}
        if self._draws and ended.any():  # (under a rule space: new rules)
            assert self.rules_index is not None
            final["rules_index"] = np.repeat(self.rules_index, self.seats)
            final["_rules_index"] = ended
            self._key, k_draw = jax.random.split(self._key)
            table_ended = ended.reshape(self.num_tables, self.seats)[:, 0]
            obs, self.state = self._draw(k_draw, self.state, table_ended)
        out = self._info({
            "illegal_action": illegal,
            "action_played": f(info["action_played"]).astype(np.int64),
            "round_over": f(info["round_over"]),
            "round_net": round_net,
        })  # fmt: skip
        if ended.any():  # (as the numpy env: only on a step that ends an episode)
            out["final_obs"] = self._np_obs(info["final_observation"])
            out["_final_obs"] = ended
            out["final_info"] = final
            out["_final_info"] = ended
        return (
            self._np_obs(obs), reward, f(info["terminated"]), f(info["truncated"]), out,
        )  # fmt: skip

    def action_masks(self) -> np.ndarray:
        """bool ``(num_envs, n)``: the legal actions now (sb3-contrib's convention), as the
        last ``info["action_mask"]`` gave them."""
        if self._mask is None:
            raise gym.error.ResetNeeded("call reset() before action_masks()")
        return self._mask.astype(bool)


class BlackjackJaxEnv(gym.Env[np.ndarray, np.int64]):
    """One JAX table as a Gymnasium ``Env`` (numpy out): an episode is one round, and
    ``reset()`` without a seed deals the next round from the same shoe (as
    ``BlackjackEnv``); ``reset(seed=...)`` starts a fresh shoe. Arguments:
    :class:`~blackjack_env.jax.BlackjackJax`'s."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": []}

    def __init__(self, **kwargs: Any) -> None:
        _one_seat(kwargs)
        self.table, self._strict = _table(kwargs)
        self.observation_space = self.table.gymnasium_observation_space
        self.action_space = self.table.gymnasium_action_space
        self._key: PRNGKeyArray = None  # type: ignore[assignment]  # (None until the first reset)
        self._state: State | None = None
        #: the legal actions of ``_state`` (int8): the last step's ``info["action_mask"]``
        #: (a step's mask is its next state's), or the reset table's
        self._mask = np.zeros(0, np.int8)
        self._done = False

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        if options:
            raise ValueError(f"options {sorted(options)} are not supported by the JAX table")
        if seed is not None or self._key is None:
            self._key = _seed_key(seed, self.np_random)
            self._key, sub = jax.random.split(self._key)
            obs, self._state = self.table.reset(sub, self.table.default_params)
            self._obs = obs
            info = _state_info(self.table.program, self._state, self.table.default_params)
            self._mask = np.asarray(info["action_mask"]).astype(np.int8)
        elif not self._done:  # a round in play is played out standing first
            while not self._done:
                self.step(0)
        self._done = False
        return self._np_obs(self._obs), {"action_mask": self._mask.copy()}

    def _np_obs(self, obs: Observation) -> NumpyObservation:
        return _to_numpy(obs, self.observation_space)

    def _phases(self) -> np.ndarray:
        """The decision asked now (``_table_info``'s ``phase``), for the "raise" check's
        message: read only when an action is refused, by the program the seeded reset
        reads its mask with."""
        assert self._state is not None
        info = _state_info(self.table.program, self._state, self.table.default_params)
        return np.asarray(info["phase"])

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if self._state is None:
            raise gym.error.ResetNeeded("call reset() before step()")
        # (the numpy envs' check and words: ints, numpy ints and 0-d int arrays)
        action = check_action(action, self.table.num_actions, self.table.action_names)
        if self._strict:
            _check_legal(self.table, np.array([action]), False, self._mask, self._phases)
        self._key, sub = jax.random.split(self._key)
        t = self.table
        obs, self._state, _reward, done, info = program.step(
            t.program, sub, self._state, jnp.int32(action), t.default_params
        )
        self._obs = obs  # (the next round's first observation: returned by reset())
        self._mask = np.asarray(info["action_mask"]).astype(np.int8)  # (the next state's)
        self._done = bool(done)
        shown = info["final_observation"] if self._done else obs
        p = t.default_params
        net = float(chips_to_float(info["round_chips"], int(p.chip_den), int(p.bet)))
        illegal = bool(info["illegal_action"])
        penalty = self.table.illegal_penalty if illegal else 0.0
        reward = net - penalty if self.table.illegal_action is IllegalAction.PENALIZE else net
        return (
            self._np_obs(shown), reward, bool(info["terminated"]), bool(info["truncated"]),
            {"action_mask": self._mask.copy(), "round_net": net, "illegal_action": illegal},
        )  # fmt: skip


def register() -> None:
    """Register :data:`ENV_ID` with Gymnasium (idempotent)."""
    if ENV_ID in gym.registry:
        return
    gym.register(
        id=ENV_ID,
        entry_point="blackjack_env.jax.gym:BlackjackJaxEnv",
        vector_entry_point="blackjack_env.jax.gym:BlackjackJaxVectorEnv",
    )
