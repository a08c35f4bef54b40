"""The gymnax-style environment object over the JAX table (:mod:`blackjack_env.jax.core`)."""

from __future__ import annotations

from functools import partial
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from blackjack_env.engine.cards import ALL_CARDS, Card, parse_cards
from blackjack_env.engine.rules import Rules
from blackjack_env.envs import view
from blackjack_env.envs.settings import read_rules
from blackjack_env.envs.step import IllegalAction
from blackjack_env.jax import core, illegal
from blackjack_env.jax.spaces import box, dict_space, discrete, tuple_space
from blackjack_env.jax.tables import Config, Params, build

__all__ = ["BlackjackJax", "GymnaxV1"]

_KEEP: Any = object()  # decks: keep the rules' own


class BlackjackJax:
    """One learner seat at a casino blackjack table, as pure JAX functions (gymnax style).

    ## Description

    The game of :class:`~blackjack_env.envs.vector.BlackjackVectorEnv` (one table, one
    learner seat, a dealer, a shoe that persists across rounds and episodes, reshuffled
    between rounds once the cut card is out, or an infinite deck), written as a pure
    function of a fixed-shape state (:class:`~blackjack_env.jax.core.State`) so that it
    runs inside ``jax.jit``; ``jax.vmap`` over keys and states makes many tables::

        env = BlackjackJax(rules="vegas-strip", decks=None, obs_mode="vector")
        params = env.default_params
        obs, state = env.reset(key, params)
        obs, state, reward, done, info = env.step(key, state, action, params)

    Rules come from ``engine/play.py``'s lookup tables (built on the host into
    ``params``); the round's flow is the numpy batched tables', and parity tests replay
    stacked cards through both.

    ## Several learner seats

    ``seats_per_table=S`` (2..7) seats S learners at each table, as the numpy vector env's
    ``seats_per_table`` (its docstring is the specification): the seats share the shoe and
    the dealer, the cards are dealt in casino order, the pre-peek questions go seat by
    seat before the peek, seat 0 plays all its hands, then seat 1, ..., and the dealer
    plays once after the last seat. Everything per seat gains a leading seat axis: the
    action is ``(S,)`` (only the seat the table waits for is played; ``info["active"]``
    marks it for the next step), the observation ``(S, ...)`` (a seat that is not to act
    shows phase ``SETTLED`` and an all-ones mask), the reward, ``done`` and the
    ``info`` entries ``(S,)``. Row ``s`` of table ``t`` is the numpy env's sub-env
    ``t * S + s``: ``x.reshape(-1, ...)`` of a batch of tables gives its layout.

    ## Action Space

    ``Discrete(n)``: the numpy env's playing actions (0 STAND, 1 HIT, 2 DOUBLE, 3 SPLIT,
    4 SURRENDER; 5 INSURE with ``insurance_decisions``; 2 actions under stand/hit-only
    rules such as ``sutton-barto``). ``info["action_mask"]`` (bool) is the mask of the
    returned state, also ``env.action_mask(state, params)``. An illegal action is
    mapped to a legal one (``illegal_action="map"``, the default) or ends the round, minus
    ``illegal_penalty`` (``"penalize"``), as in the numpy env (``info["illegal_action"]``
    says so; :mod:`blackjack_env.jax.illegal`). ``"raise"`` is refused here (``jit``
    cannot raise); the Gymnasium adapters serve it.

    ## Observation Space

    The numpy env's modes, fields, positions and scales (those of
    :mod:`blackjack_env.envs.view`), read from the state: ``"features"`` (the default),
    float32 ``(73,)``: the vector's 17 entries then one-hot columns of the hand total,
    the upcard and the cards in the hand; ``"vector"``, float32 ``(17,)``;
    ``"multidiscrete"``, its 9 fields as int32 (a ``Box`` of integers ``0..nvec - 1``;
    the Gymnasium adapter gives the numpy env's int64 ``MultiDiscrete``); ``"dict"``, a
    dict of arrays (a pytree: the keys of
    ``view.DICT_KEYS``, with each hand's, the dealer's and every seat's cards by rank, the
    unseen cards, the true count, the bet and the learner's chips; the last observation of
    an episode shows, as the numpy env's, phase ``SETTLED`` and every action legal);
    ``"tuple"``, a tuple of three int32 scalars (total, upcard, usable ace).
    ``BlackjackCounting-v0``'s counting fields are the vector's true count and shoe
    fraction, the dict's unseen cards and true count.

    ## Bets

    With ``bet_sizes`` every round opens with a BET step (as the numpy env's): the
    actions ``n_play + k`` bet ``bet_sizes[k]`` base bets (only those are legal; an
    illegal action bets what the numpy env's mapping chooses), the observation shows
    phase ``BET``, no cards, and the count of the cards not dealt; the round is dealt on
    that step, and one settled at the deal ends there with its reward. With a finite
    ``bankroll`` the learner holds chips (exact, in units of ``1 / chip_den``): bets,
    doubles, matched splits and insurance are legal only when the chips off the table
    cover them, and the episode terminates when they cannot cover the smallest bet.

    ## Rewards, Episode End

    The reward is a round's net chips in base bets on the step that settles it (0 on
    other steps). An episode is ``rounds_per_episode`` rounds (default 1; ``None``: no
    end), truncated after the last (``info["truncated"]``, as the numpy env), one round
    terminating it when that is 1; ``done`` is their or, ``info["round_over"]`` says a
    round ended. A round with no decision (a natural, a dealer blackjack found by the peek)
    shows ``phase = SETTLED`` and the next step, whatever its action, returns its reward.
    ``step`` resets by itself (gymnax convention): the step that ends an episode returns
    the first observation of the next round, dealt from the same shoe;
    ``info["final_observation"]`` is the ended round's last observation (SETTLED).

    Why ``"features"`` is this table's default (the numpy envs keep ``"multidiscrete"``):
    a JAX learner's network reads the observation's raw numbers. The vector shows the
    total and the upcard as single scaled numbers, from which a plain tanh MLP does not
    carve the chart's thresholds: PureJaxRL's ``ppo.py`` at its default settings learns
    to always stand on it (exact regret 0.156 on vegas-strip, infinite deck), and learns
    the chart from the one-hot columns (docs/jax.md gives the figures). Tools that
    one-hot-encode a ``MultiDiscrete`` themselves (stable-baselines3, through the
    Gymnasium adapters) are served by ``"multidiscrete"``.

    ## Arguments

    ``rules`` (a :class:`~blackjack_env.engine.rules.Rules`, a preset name or a
    ``Rules.to_dict`` dict), ``decks`` (override the rules' decks; ``None`` is the
    infinite deck), ``obs_mode`` (``"features"``, the default, ``"vector"``,
    ``"multidiscrete"``, ``"dict"``, ``"tuple"``), ``bet`` (chips per base bet),
    ``insurance_decisions``, ``seats_per_table``, ``bet_sizes``, ``rounds_per_episode``,
    ``bankroll``, ``illegal_action`` (``"map"`` or ``"penalize"``), ``illegal_penalty``:
    as the numpy env's, validated by its settings.

    Not covered (``ValueError``): ``illegal_action="raise"`` (see above; the Gymnasium
    adapters check it on the host).
    """

    def __init__(
        self,
        rules: Rules | str | dict[str, Any] = "vegas-strip",
        decks: int | None = _KEEP,
        obs_mode: str = "features",  # default for a plain MLP (docstring, "Observation Space")
        bet: int | None = None,
        insurance_decisions: bool = False,
        illegal_action: str = "map",
        illegal_penalty: float = 1.0,
        seats_per_table: int = 1,
        bet_sizes: Any = None,
        rounds_per_episode: int | None = 1,
        bankroll: int | None = None,
        **unknown: Any,
    ) -> None:
        if unknown:
            raise ValueError(
                f"unknown or unsupported argument(s) {', '.join(sorted(unknown))} for "
                f"BlackjackJax: allowed are rules, decks, obs_mode, bet, insurance_decisions, "
                f"illegal_action, illegal_penalty, seats_per_table, bet_sizes, "
                f"rounds_per_episode, bankroll"
            )
        resolved = read_rules(rules)
        if decks is not _KEEP:
            resolved = resolved.replace(decks=decks)
        kwargs: dict[str, Any] = {
            "rules": resolved, "obs_mode": obs_mode, "insurance_decisions": insurance_decisions,
            "illegal_action": illegal_action, "illegal_penalty": illegal_penalty,
        }  # fmt: skip
        if bet is not None:
            kwargs["bet"] = bet
        if seats_per_table != 1:
            kwargs["seats_per_table"] = seats_per_table
        if bet_sizes is not None:
            kwargs["bet_sizes"] = bet_sizes
        if rounds_per_episode != 1:
            kwargs["rounds_per_episode"] = rounds_per_episode
        if bankroll is not None:
            kwargs["bankroll"] = bankroll
        cfg, params, ref = build(kwargs)
        illegal.refuse_raise(ref.illegal_action)
        #: ``envs.step.IllegalAction`` and its penalty, validated by the numpy env's settings
        self.illegal_action = ref.illegal_action
        self.illegal_penalty = float(ref.illegal_penalty)
        #: learner seats at each table (``seats_per_table``)
        self.seats = cfg.seats
        self.rules: Rules = ref.rules
        self.obs_mode = obs_mode
        self.config: Config = cfg
        self._params = params
        self.action_names: list[str] = list(ref.action_names)
        #: the numpy env's single-table spaces (Gymnasium), for adapters
        self.gymnasium_observation_space = ref.single_observation_space
        self.gymnasium_action_space = ref.single_action_space

    # ------------------------------------------------------------------ gymnax API
    @property
    def default_params(self) -> Params:
        return self._params

    @property
    def num_actions(self) -> int:
        return self.config.n_actions

    @property
    def name(self) -> str:
        return "BlackjackJax"

    def observation_space(self, params: Params | None = None) -> Any:
        """One table's observation: one seat's, or ``(seats, ...)`` with several."""
        lead = (self.seats,) if self.seats > 1 else ()
        if self.obs_mode in ("dict", "tuple"):  # the numpy env's space, field by field
            return _from_gymnasium(self.gymnasium_observation_space, lead)
        if self.obs_mode == "multidiscrete":
            nvec = view.multidiscrete_nvec(self.config.hands)
            high = np.broadcast_to((nvec - 1).astype(np.int32), (*lead, view.MD_SIZE))
            return box(np.zeros_like(high), high, high.shape, jnp.int32)
        flat = view.features_space() if self.obs_mode == "features" else view.vector_space()
        low = np.broadcast_to(flat.low, (*lead, *flat.shape))
        return box(low, np.broadcast_to(flat.high, low.shape), low.shape, jnp.float32)

    def action_space(self, params: Params | None = None) -> Any:
        return discrete(self.config.n_actions)

    @partial(jax.jit, static_argnums=0)
    def reset(self, key: Any, params: Params | None = None) -> tuple[Any, core.State]:
        """A fresh table (a new shoe) with its first round dealt (or opened for its bet)."""
        p = self._params if params is None else params
        st = core.first_round(key, core.new_state(self.config), p, self.config)
        return self._obs(st, p), st

    @partial(jax.jit, static_argnums=0)
    def step(
        self, key: Any, state: core.State, action: Any, params: Params | None = None
    ) -> tuple[Any, core.State, Any, Any, dict[str, Any]]:
        """One decision; the step that ends the round deals the next one (same shoe), or
        opens it for its bet; the step that ends the episode starts the next one."""
        p = self._params if params is None else params
        k_play, k_next = jax.random.split(key)
        cfg = self.config
        if self.illegal_action is IllegalAction.PENALIZE:
            st, reward, over, played, bad = illegal.penalized_step(
                k_play, state, action, p, cfg, self.illegal_penalty
            )
        else:
            st, reward, over, played, bad = core.step(k_play, state, action, p, cfg)
        st, term, trunc = core.end_round(st, reward, over, cfg)
        ended = term | trunc
        # (the round is over: its mask allows every action, as the numpy env's SETTLED)
        final = core.observe(st, p, cfg, self.obs_mode, settled=True)
        st = core.next_round(k_next, st, p, cfg, over, ended)
        obs = self._obs(st, p)
        shape = jnp.shape(reward)
        done = jnp.broadcast_to(ended, shape)
        info = {
            "action_mask": core.masks(st, p, cfg),
            "final_observation": final,
            "round_net": reward + jnp.where(bad, self.illegal_penalty, 0.0)
            if self.illegal_action is IllegalAction.PENALIZE
            else reward,
            "round_over": jnp.broadcast_to(over, shape),
            "illegal_action": bad,
            "action_played": played,
            "terminated": jnp.broadcast_to(term, shape),
            "truncated": jnp.broadcast_to(trunc, shape),
            "discount": jnp.where(term, 0.0, 1.0) * jnp.ones(shape),
        }
        if self.seats > 1:
            info["active"] = core.active(st, cfg)
        return obs, st, reward.astype(jnp.float32), done, info

    def action_mask(self, state: core.State, params: Params | None = None) -> Any:
        """bool ``(num_actions,)`` (``(seats, num_actions)`` with several seats; or
        batched over tables): the legal actions of ``state``."""
        p = self._params if params is None else params
        fn = partial(core.masks, p=p, cfg=self.config)
        return jax.vmap(fn)(state) if jnp.ndim(state.pos) else fn(state)

    def active(self, state: core.State, params: Params | None = None) -> Any:
        """bool ``(seats,)`` (or batched over tables): the seat whose action the next step
        plays (the numpy vector env's ``info["active"]``)."""
        fn = partial(core.active, cfg=self.config)
        return jax.vmap(fn)(state) if jnp.ndim(state.pos) else fn(state)

    def get_obs(self, state: core.State, params: Params | None = None) -> Any:
        p = self._params if params is None else params
        return self._obs(state, p)

    def _obs(self, st: core.State, p: Params) -> Any:
        return core.observe(st, p, self.config, self.obs_mode)

    # ------------------------------------------------------------------ scripted cards
    def stack(
        self, state: core.State, cards: str | list[Card] | list[Any], table: int | None = None
    ) -> core.State:
        """A copy of ``state`` whose next cards are ``cards`` (text like ``"AS KH 9D"``),
        dealt in order (host-side, outside ``jit``).

        ``state`` is one table's, or a batch of them (leading axis): then ``cards`` is one
        entry (text, a list of cards, or None) per table, or ``table`` names the one row
        to stack. A finite shoe moves each card from the undealt cards (or the discards)
        to the front, so it still holds every card once (as the numpy shoe's ``stack``);
        an infinite deck queues them in its stacked-card buffer."""
        arrays = {k: np.array(v) for k, v in state._asdict().items()}
        if arrays["pos"].ndim == 0:
            rows: dict[int | None, Any] = {None: cards}
        elif table is not None:
            rows = {int(table): cards}
        else:
            if len(cards) != arrays["pos"].shape[0]:
                raise ValueError(
                    f"cards: one entry per table ({arrays['pos'].shape[0]}), got {len(cards)}"
                )
            rows = {t: c for t, c in enumerate(cards) if c}
        for t, c in rows.items():
            self._stack_row(arrays, t, c)
        return core.State(**{k: jnp.asarray(v) for k, v in arrays.items()})

    def _stack_row(self, arrays: dict[str, np.ndarray], t: int | None, cards: Any) -> None:
        ids = [c.index for c in (parse_cards(cards) if isinstance(cards, str) else cards)]
        get = (lambda name: arrays[name]) if t is None else (lambda name: arrays[name][t])
        cfg = self.config
        shoe = get("shoe").astype(np.int64)
        pos, stacked = int(get("pos")), int(get("stacked"))
        n = cfg.shoe_size
        pending = [int(shoe[(pos + k) % n]) for k in range(stacked)]
        ids = ids + pending
        new: dict[str, Any]
        if cfg.infinite:
            if len(ids) > n:
                raise ValueError(f"cannot stack {len(ids)} cards: at most {n} at a time")
            shoe[: len(ids)] = ids
            new = {"shoe": shoe, "pos": 0, "stacked": len(ids)}
        else:
            left = int(get("left"))
            start = int(get("round_start"))
            if len(ids) > left:
                raise ValueError(f"cannot stack {len(ids)} cards: the shoe has {left} left")
            undealt = [(pos + k) % n for k in range(left)]
            discards = [(pos + left + k) % n for k in range((start - pos - left) % n)]
            for k, cid in enumerate(ids):
                j = undealt[k]
                src = next((q for q in undealt[k:] if shoe[q] == cid), None)
                if src is None:
                    src = next((q for q in discards if shoe[q] == cid), None)
                if src is None:
                    raise ValueError(
                        f"cannot stack {ALL_CARDS[cid]}: every copy of it is on the table "
                        f"or already stacked"
                    )
                shoe[j], shoe[src] = shoe[src], shoe[j]
            hilo = np.asarray(self._params.hilo_of_id)
            new = {
                "shoe": shoe,
                "stacked": len(ids),
                "undealt_hilo": int(hilo[shoe[undealt]].sum()) if undealt else 0,
            }
        for name, value in new.items():
            if t is None:
                arrays[name] = np.asarray(value, dtype=arrays[name].dtype)
            else:
                arrays[name][t] = value

    def start_round(
        self, key: Any, state: core.State, params: Params | None = None
    ) -> tuple[Any, core.State]:
        """Start an episode at ``state``'s table (its last round must be over): its first
        round dealt, or opened for its bet (bet steps); for scripted rounds :meth:`stack`
        first."""
        p = self._params if params is None else params
        if jnp.ndim(state.pos):
            st = _start_rounds_jit(self, key, state, p)
            return jax.vmap(lambda s: self._obs(s, p))(st), st
        st = _start_round_jit(self, key, state, p)
        return self._obs(st, p), st

    def new_state(self, num_tables: int | None = None) -> core.State:
        """A table before its first round (a full shoe), or ``num_tables`` of them."""
        one = core.new_state(self.config)
        if num_tables is None:
            return one
        return jax.tree.map(lambda a: jnp.broadcast_to(a, (num_tables, *a.shape)), one)

    # ------------------------------------------------------------------ adapters
    def gymnax_v1(self) -> GymnaxV1:
        """This env with gymnax 1.0's step signature (``obs, state, reward, terminated,
        truncated, info``), for gymnax's own wrappers."""
        return GymnaxV1(self)


def _from_gymnasium(space: Any, lead: tuple[int, ...]) -> Any:
    """A Gymnasium space (Dict, Tuple, Discrete, MultiBinary, Box) as the JAX table's,
    with the leading axes ``lead`` (the seats) on every field."""
    import gymnasium.spaces as gs

    if isinstance(space, gs.Dict):
        return dict_space({k: _from_gymnasium(v, lead) for k, v in space.spaces.items()})
    if isinstance(space, gs.Tuple):
        return tuple_space([_from_gymnasium(v, lead) for v in space.spaces])
    if isinstance(space, gs.Discrete) and not lead:
        return discrete(int(space.n))
    if isinstance(space, gs.Discrete):
        high = np.full(lead, int(space.n) - 1, np.int32)
        return box(np.zeros_like(high), high, high.shape, jnp.int32)
    if isinstance(space, gs.MultiBinary):
        high = np.ones((*lead, *space.shape), np.int8)
        return box(np.zeros_like(high), high, high.shape, jnp.int8)
    low = np.broadcast_to(space.low, (*lead, *space.shape))
    high = np.broadcast_to(space.high, (*lead, *space.shape))
    dtype = jnp.int32 if np.issubdtype(space.dtype, np.integer) else jnp.float32
    return box(low, high, low.shape, dtype)


@partial(jax.jit, static_argnums=0)
def _start_round_jit(env: BlackjackJax, key: Any, state: core.State, p: Params) -> core.State:
    return core.first_round(key, state, p, env.config)


@partial(jax.jit, static_argnums=0)
def _start_rounds_jit(env: BlackjackJax, key: Any, state: core.State, p: Params) -> core.State:
    keys = jax.random.split(key, state.pos.shape[0])
    return jax.vmap(lambda k, s: core.first_round(k, s, p, env.config))(keys, state)


class GymnaxV1:
    """:class:`BlackjackJax` with gymnax 1.0's ``step`` (six values): what
    ``gymnax.wrappers`` (``LogWrapper``, ``FlattenObservationWrapper``) call."""

    def __init__(self, env: BlackjackJax) -> None:
        self._env = env

    def __getattr__(self, name: str) -> Any:
        return getattr(self._env, name)

    def reset(self, key: Any, params: Params | None = None) -> tuple[Any, core.State]:
        return self._env.reset(key, params)

    def step(
        self, key: Any, state: core.State, action: Any, params: Params | None = None
    ) -> tuple[Any, core.State, Any, Any, Any, dict[str, Any]]:
        obs, st, reward, done, info = self._env.step(key, state, action, params)
        return obs, st, reward, done, info["truncated"], info
