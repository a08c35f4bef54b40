"""The gymnax-style environment object over the JAX table (:mod:`blackjack_env.jax.round`)."""

from __future__ import annotations

import copy
import dataclasses
import inspect
from collections.abc import Mapping, Sequence
from typing import Any, TypeAlias

import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike, Bool, Int32, PRNGKeyArray

from blackjack_env.engine.cards import ALL_CARDS, Card, parse_cards
from blackjack_env.engine.rules import Rules
from blackjack_env.engine.rulespace import RuleSpace
from blackjack_env.envs import view
from blackjack_env.envs.settings import EnvArgs, EnvSettings
from blackjack_env.envs.tables import RuleTables
from blackjack_env.envs.view.layout import Layout
from blackjack_env.jax import checks, illegal, program
from blackjack_env.jax import tables as tables_mod
from blackjack_env.jax.arrays import Observation
from blackjack_env.jax.checks import unwrap_state
from blackjack_env.jax.gymnax import FULL_INFO, LEAN_INFO, GymnaxV1
from blackjack_env.jax.program import GymnaxReset, GymnaxStep, Program
from blackjack_env.jax.spaces import Discrete, Space, box, discrete, from_gymnasium
from blackjack_env.jax.state import State
from blackjack_env.jax.tables import Banked, Config, Params, RuleBank, config_of, params_of

__all__ = [
    "DEFAULT_OBS_MODE", "FULL_INFO", "LEAN_INFO", "BlackjackJax", "GymnaxV1", "unwrap_state",
]

#: the default observation mode of the JAX table (the numpy envs' is "multidiscrete"): a
#: JAX network reads the raw array, and a plain MLP learns the chart from the one-hot
#: columns of "features", not from the scaled numbers of "vector" (BlackjackJax's
#: docstring gives the measurement); Gymnasium's SB3 path one-hot encodes a MultiDiscrete
DEFAULT_OBS_MODE = "features"
#: One rule set as the envs take it: a ``Rules``, a preset name or a ``Rules.to_dict()``
#: dict
RuleSet: TypeAlias = Rules | str | Mapping[str, object]


class BlackjackJax:
    """One learner seat at a casino blackjack table, as pure JAX functions (gymnax style).

    ## Description

    The game of :class:`~blackjack_env.envs.vector.BlackjackVectorEnv` (one table, one
    learner seat, a dealer, a shoe that persists across rounds and episodes, reshuffled
    between rounds once the cut card is out, or an infinite deck), written as a pure
    function of a fixed-shape state (:class:`~blackjack_env.jax.state.State`) so that it
    runs inside ``jax.jit``; ``jax.vmap`` over keys and states makes many tables::

        env = BlackjackJax(rules="vegas-strip", decks=None, obs_mode="vector")
        params = env.default_params
        obs, state = env.reset(key, params)
        obs, state, reward, done, info = env.step(key, state, action, params)

    Rules come from ``engine/play.py``'s lookup tables (built on the host into
    ``params``); the round's flow is the numpy batched tables', and parity tests replay
    stacked cards through both.

    ## Rules as data

    Every rule is a value of ``params`` (:class:`~blackjack_env.jax.tables.Params`), not a
    choice of compiled code: the program is keyed by the table's shapes alone
    (:class:`~blackjack_env.jax.tables.Config`: seats, hand slots, shoe places, an
    infinite deck or not, the action and bet counts, rounds per episode, tracked cards, a
    finite bankroll), the observation mode and the illegal-action policy. ``rules`` may be
    a list of rule sets or a :class:`~blackjack_env.engine.rulespace.RuleSpace`: the table
    is then built to fit every one of them (the most hands per seat, the largest shoe),
    and ``params_of(rules)`` gives any of them as ``params`` for the same program,
    ``stack_params([...])`` one row per table (``jax.vmap(env.step, in_axes=(0, 0, 0,
    0))``), ``rule_bank([...])`` a :class:`~blackjack_env.jax.tables.RuleBank` (each
    distinct table kept once; ``bank.at(i)`` and ``bank.sample(key)`` inside ``jit``; a
    space's training rule sets by default). ``observe_rules=True`` ends the ``"vector"``
    and ``"features"`` observations with the rule features of the table's rules (the
    ``"dict"`` gains ``"rules"``), the numpy envs' encoding. ``default_params`` are the
    first rule set's (a space's first).

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
    cannot raise); the Gymnasium adapters serve it. An action that is not an integer of
    one table's shape raises ``ValueError`` where the call is traced; an integer outside
    the space is an illegal action (:meth:`check_step_args` says how each policy plays it).

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
    the first observation of the next round, dealt from the same shoe. Its ``info`` is
    lean (no ``final_observation``), and so is :meth:`gymnax_v1`'s by default (its
    ``final_observation`` empty); :meth:`step_full` (and
    ``gymnax_v1(final_observation=True)`` or ``full_info=True``) gives
    ``info["final_observation"]``, the ended round's last observation (SETTLED).

    Why ``"features"`` is this table's default (the numpy envs keep ``"multidiscrete"``):
    a JAX learner's network reads the observation's raw numbers. The vector shows the
    total and the upcard as single scaled numbers, from which a plain tanh MLP does not
    carve the chart's thresholds: PureJaxRL's ``ppo.py`` at its default settings learns
    to always stand on it (exact regret 0.156 on vegas-strip, infinite deck), and learns
    the chart from the one-hot columns (docs/jax.md gives the figures). Tools that
    one-hot-encode a ``MultiDiscrete`` themselves (stable-baselines3, through the
    Gymnasium adapters) are served by ``"multidiscrete"``.

    ## Arguments

    The numpy envs' arguments, under their names (:class:`~blackjack_env.envs.settings.EnvArgs`,
    validated once by :meth:`~blackjack_env.envs.EnvSettings.batched`, as the
    numpy vector env's; a wrong value's ``ValueError`` names its argument): ``rules`` (a
    :class:`~blackjack_env.engine.rules.Rules`, a preset name or a ``Rules.to_dict``
    dict; a list of them, or a :class:`~blackjack_env.engine.rulespace.RuleSpace`: see
    "Rules as data"), ``observe_rules``, ``decks`` (replaces the rules' decks, ``None``
    the infinite deck: the one rule override every env takes), ``obs_mode``
    (``"features"``, the default, ``"vector"``, ``"multidiscrete"``, ``"dict"``,
    ``"tuple"``), ``bet`` (chips per base bet),
    ``insurance_decisions``, ``seats_per_table``, ``bet_sizes``, ``rounds_per_episode``,
    ``bankroll``, ``illegal_action`` (``"map"`` or ``"penalize"``), ``illegal_penalty``;
    the single env's ``num_seats`` (other seats played by strategies), ``seat``,
    ``others`` and ``render_mode`` are refused by name (learner seats only: use
    ``seats_per_table``). :meth:`from_args` takes an ``EnvArgs`` whole.
    ``env.settings`` and ``env.tables`` (:class:`~blackjack_env.envs.tables.RuleTables`,
    the tables ``params`` are read from) are those of the numpy vector env with the same
    arguments.

    ``obs_mode`` defaults to ``"features"`` here (``DEFAULT_OBS_MODE``; why: above),
    while the numpy envs default to ``"multidiscrete"``. The Gymnasium adapters
    (``blackjack_env.jax.gym``) take this table's default. Pass ``obs_mode`` to have
    the same observation in both.

    Not covered (``ValueError``): ``illegal_action="raise"`` (see above; the Gymnasium
    adapters check it on the host).
    """

    def __init__(self, *args: Any, seats_per_table: int = 1, **kwargs: Any) -> None:
        # the arguments are the numpy envs' (EnvArgs, listed once there; the signature is
        # set below the class, obs_mode defaulting to DEFAULT_OBS_MODE), checked once by
        # their settings: one that does not apply here, such as num_seats or render_mode,
        # is refused there by name, an unknown one here
        kwargs.setdefault("obs_mode", DEFAULT_OBS_MODE)
        args_whole = EnvArgs.bind(args, kwargs, "BlackjackJax", ("seats_per_table",))
        self._setup(args_whole, seats_per_table)

    @classmethod
    def from_args(cls, args: EnvArgs, seats_per_table: int = 1) -> BlackjackJax:
        """The table of an :class:`~blackjack_env.envs.settings.EnvArgs` given whole (the
        numpy envs' argument dataclass; note its ``obs_mode`` default is theirs,
        ``"multidiscrete"``), with ``seats_per_table`` learner seats at each table."""
        fields = {f.name: getattr(args, f.name) for f in dataclasses.fields(EnvArgs)}
        return cls(**fields, seats_per_table=seats_per_table)

    def _setup(self, args: EnvArgs, seats_per_table: int) -> None:
        """Build the table from its arguments: the settings (checked there), the rule
        tables, the JAX config and params, the spaces. ``args.rules`` may be a list of
        rule sets (the table then fits every one of them, :attr:`rule_sets`) or a
        :class:`~blackjack_env.engine.rulespace.RuleSpace` (every rule set of the space,
        :attr:`rule_space`)."""
        given: Any = args.rules
        many = isinstance(given, (list, tuple))
        if many and not given:
            raise ValueError("rules: an empty list; give one rule set or a list of them")
        rule_list: list[RuleSet] = list(given) if many else [given]
        self._args, self._seats_per_table = args, seats_per_table
        every = [self._settings_of(r) for r in rule_list]
        settings, tables = every[0]
        if many and any(s.rule_space is not None for s, _ in every):
            raise ValueError("rules: a list of rule sets, or one RuleSpace, not a list of spaces")
        illegal.refuse_raise(settings.illegal_action)
        names = [_rules_name(r) for r in rule_list]
        cfg = tables_mod.join([config_of(s, t) for s, t in every], names)
        rules = settings.rules
        layout = Layout(
            rules, settings.obs_mode, settings.bet, settings.bet_sizes,
            settings.insurance_decisions, cfg.hands, settings.observe_rules,
        )  # fmt: skip
        #: the rule space the table plays (``rules=<a RuleSpace>``), or None
        self.rule_space: RuleSpace | None = settings.rule_space
        #: the rule sets this table was built for (``rules`` given as a list; one rule
        #: set; a space's first): :meth:`params_of` and :meth:`stack_params` take any rule
        #: set of its shapes (of its space, under a space)
        self.rule_sets: tuple[Rules, ...] = tuple(s.rules for s, _ in every)
        #: the validated settings (as the numpy envs' ``env.settings``; of the first rule
        #: set)
        self.settings = settings
        #: the rule tables ``params`` are read from (as the numpy vector env's
        #: ``env.tables``; of the first rule set)
        self.tables = tables
        #: ``envs.step.IllegalAction`` and its penalty, validated by the settings
        self.illegal_action = settings.illegal_action
        self.illegal_penalty = float(settings.illegal_penalty)
        #: learner seats at each table (``seats_per_table``)
        self.seats = cfg.seats
        self.rules: Rules = rules
        self.obs_mode = settings.obs_mode.value
        #: the observation carries the rule features (``observe_rules``)
        self.observe_rules = settings.observe_rules
        self.config: Config = cfg
        #: what the compiled functions are keyed on (:mod:`blackjack_env.jax.program`):
        #: envs of equal programs share their compilations
        self.program = Program(
            cfg, self.obs_mode, self.illegal_action, self.illegal_penalty, self.observe_rules
        )
        self._params = params_of(tables)
        self.action_names: list[str] = layout.action_names()
        #: the numpy envs' single-seat spaces (Gymnasium), for adapters
        self.gymnasium_observation_space = layout.observation_space()
        self.gymnasium_action_space = layout.action_space()

    def _settings_of(self, rules: RuleSet) -> tuple[EnvSettings, RuleTables]:
        """The settings and rule tables of this table's arguments under ``rules``."""
        settings = EnvSettings.batched(
            self._seats_per_table, dataclasses.replace(self._args, rules=rules)
        )
        return settings, RuleTables.from_settings(settings)

    # ------------------------------------------------------------------ rules as data
    def params_of(self, rules: RuleSet) -> Params:
        """The :class:`~blackjack_env.jax.tables.Params` of ``rules`` (a ``Rules``, a
        preset name or a ``Rules.to_dict()`` dict; the table's other arguments kept):
        play it by passing it as ``params`` (the same compiled program). Refused
        (``ValueError``, one line) when it does not fit this table's shapes
        (:func:`~blackjack_env.jax.tables.fit`: more hands per seat or a larger shoe than
        the table holds, another action count, a finite shoe at an infinite table...)."""
        return params_of(self._fitting_tables(rules))

    def _fitting_tables(self, rules: RuleSet | RuleSpace) -> RuleTables:
        """The rule tables of ``rules`` under this table's other arguments, refused
        (``ValueError``, one line) unless they fit its shapes (and its space)."""
        if isinstance(rules, RuleSpace):
            raise ValueError("give one rule set here; for a RuleSpace use env.rule_bank()")
        settings, tables = self._settings_of(rules)
        if self.rule_space is not None:
            self.rule_space.check(settings.rules)  # (one line: the field outside the space)
        tables_mod.fit(self.config, config_of(settings, tables), f"rules {_rules_name(rules)}")
        return tables

    def stack_params(self, rules: Sequence[RuleSet]) -> Params:
        """:meth:`params_of` of each rule set, stacked along a leading axis: row ``t`` the
        rules of table ``t`` of a batch (``jax.vmap(env.step, in_axes=(0, 0, 0, 0))``)."""
        if isinstance(rules, (str, Rules, RuleSpace, dict)):
            raise ValueError("stack_params takes a list of rule sets")
        return tables_mod.stack_tables([self._fitting_tables(r) for r in rules])

    def rule_bank(
        self, rules: Sequence[RuleSet] | None = None, *, sample: int | None = None,
        seed: int = 0,
    ) -> RuleBank:  # fmt: skip
        """A :class:`~blackjack_env.jax.tables.RuleBank` of rule sets this table plays, from
        which ``bank.sample(key)`` draws a table's params inside ``jit``: ``rules`` (a list
        of rule sets), or, under a rule space, the space's training rule sets (every one
        the space's sampler can draw, its held-out ones left out; ``sample=n``: ``n`` of
        them drawn with ``seed``), or else the rule sets the table was built for."""
        if rules is None:
            space = self.rule_space
            if space is None:
                rules = list(self.rule_sets)
            elif sample is not None:
                rules = space.sample_many(np.random.default_rng(seed), int(sample))
            else:
                rules = [r for r in space if not space.is_held_out(r)]
        elif sample is not None:
            raise ValueError("rule_bank: give rules or sample=n (drawn from the space), not both")
        if not rules:
            raise ValueError("rule_bank: no rule sets")
        if isinstance(rules, (str, Rules, RuleSpace, dict)):
            raise ValueError("rule_bank takes a list of rule sets")
        return RuleBank.of([self._fitting_tables(r) for r in rules])

    # ------------------------------------------------------------------ gymnax API
    @property
    def default_params(self) -> Params:
        """The params of the env's own rules (its ``rules``, or the first rule set of a
        list or a space): what every function uses when given no ``params``."""
        return self._params

    @property
    def num_actions(self) -> int:
        return self.config.n_actions

    @property
    def name(self) -> str:
        return "BlackjackJax"

    def observation_space(self, params: Params | None = None) -> Space:
        """One table's observation: one seat's, or ``(seats, ...)`` with several."""
        lead = (self.seats,) if self.seats > 1 else ()
        if self.obs_mode in ("dict", "tuple"):  # the numpy env's space, field by field
            return from_gymnasium(self.gymnasium_observation_space, lead)
        if self.obs_mode == "multidiscrete":
            nvec = view.multidiscrete_nvec(self.config.hands)
            high = np.broadcast_to((nvec - 1).astype(np.int32), (*lead, view.MD_SIZE))
            return box(np.zeros_like(high), high, high.shape, jnp.int32)
        flat = self.gymnasium_observation_space  # (a Box: with the rule features if asked)
        low = np.broadcast_to(flat.low, (*lead, *flat.shape))
        return box(low, np.broadcast_to(flat.high, low.shape), low.shape, jnp.float32)

    def action_space(self, params: Params | None = None) -> Discrete:
        return discrete(self.config.n_actions)

    def reset(self, key: PRNGKeyArray, params: Params | None = None) -> GymnaxReset:
        """A fresh table (a new shoe) with its first round dealt (or opened for its bet).
        ``params`` are checked against this env's (:meth:`check_params`)."""
        return program.reset(self.program, key, self.check_params(params))

    def step(
        self, key: PRNGKeyArray, state: State, action: Int32[ArrayLike, "*seats"],
        params: Params | None = None,
    ) -> GymnaxStep:  # fmt: skip
        """One decision; the step that ends the round deals the next one (same shoe), or
        opens it for its bet; the step that ends the episode starts the next one.

        Returns ``(obs, state, reward, done, info)`` with the lean ``info`` of
        ``LEAN_INFO`` (a few scalars and the mask, as gymnax's envs return;
        :meth:`step_full` adds ``FULL_INFO``). ``action``, ``state`` and ``params``
        are checked once, where the call is traced (:meth:`check_step_args`)."""
        return self._checked_step(key, state, action, params, False)

    def step_full(
        self, key: PRNGKeyArray, state: State, action: Int32[ArrayLike, "*seats"],
        params: Params | None = None,
    ) -> GymnaxStep:  # fmt: skip
        """:meth:`step` with the rich ``info``: ``LEAN_INFO`` and ``FULL_INFO``
        (the ended round's last observation, the round's net in base bets and in exact
        chips, the action played), what the Gymnasium adapters read."""
        return self._checked_step(key, state, action, params, True)

    def _checked_step(
        self, key: PRNGKeyArray, state: State, action: Int32[ArrayLike, "*seats"],
        params: Params | None, full: bool,
    ) -> GymnaxStep:  # fmt: skip
        p = self.check_params(params)
        self.check_step_args(state, action)
        obs, st, reward, done, info = program.step(self.program, key, state, action, p)
        if not full:  # (the lean entries of the one compiled step)
            info = {k: v for k, v in info.items() if k not in FULL_INFO}
        return obs, st, reward, done, info

    # ------------------------------------------------------------------ input checks
    def check_params(self, params: Params | None) -> Params:
        """``params`` (None: ``default_params``), refused (``ValueError``) unless it
        has this env's fields, shapes and dtypes
        (``blackjack_env.jax.checks.check_params``)."""
        return checks.check_params(params, self._params)

    def check_step_args(self, state: State, action: Int32[ArrayLike, "*seats"]) -> None:
        """Refuse (``ValueError``, one line) an ``action`` that is not an integer array of
        one table's shape and a ``state`` that is not one of this env's tables
        (``blackjack_env.jax.checks.check_step_args``, which says what an integer out
        of range does under each illegal-action policy)."""
        checks.check_step_args(state, action, self.config, self.num_actions)

    def action_mask(
        self, state: object, params: Params | Banked | None = None
    ) -> Bool[Array, "*batch actions"]:
        """bool ``(num_actions,)`` (``(seats, num_actions)`` with several seats; or
        batched over tables, ``params`` then one rule set, one row per table or a
        :class:`~blackjack_env.jax.tables.Banked` batch): the legal actions of ``state``.
        ``state`` may be a wrapper's state that holds this env's as ``env_state``
        (gymnax's ``LogWrapper``, at any depth): the mask of the state that
        :meth:`reset` returns is read here."""
        p = self._params if params is None else params
        return program.masks(self.program, unwrap_state(state), p)

    def active(self, state: object, params: Params | None = None) -> Bool[Array, "*batch"]:
        """bool ``(seats,)`` (or batched over tables): the seat whose action the next step
        plays (the numpy vector env's ``info["active"]``); a wrapper's state as in
        :meth:`action_mask`."""
        return program.active(self.program, unwrap_state(state))

    def get_obs(self, state: State, params: Params | None = None) -> Observation:
        p = self._params if params is None else params
        return self.program.observe(state, p)

    # ------------------------------------------------------------------ scripted cards
    def stack(
        self,
        state: State,
        cards: str | list[Card] | list[Any],
        table: int | None = None,
        params: Params | Banked | None = None,
    ) -> State:
        """A copy of ``state`` whose next cards are ``cards`` (text like ``"AS KH 9D"``),
        dealt in order (host-side, outside ``jit``). ``params``: the tables' rules (one
        table's, or one row per table; default ``default_params``).

        ``state`` is one table's, or a batch of them (leading axis): then ``cards`` is one
        entry (text, a list of cards, or None) per table, or ``table`` names the one row
        to stack. A finite shoe moves each card from the undealt cards (or the discards)
        to the front, so it still holds every card once (as the numpy shoe's ``stack``);
        an infinite deck queues them in its stacked-card buffer."""
        arrays = {k: np.array(v) for k, v in state._asdict().items()}
        shoe_cards = np.broadcast_to(_shoe_cards(self._params if params is None else params),
                                     arrays["pos"].shape)  # fmt: skip
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
            n = int(shoe_cards[()] if t is None else shoe_cards[t])
            self._stack_row(arrays, t, c, n)
        return State(**{k: jax.device_put(v) for k, v in arrays.items()})

    def _stack_row(
        self, arrays: dict[str, np.ndarray], t: int | None, cards: Any, shoe_cards: int
    ) -> None:
        ids = [c.index for c in (parse_cards(cards) if isinstance(cards, str) else cards)]
        get = (lambda name: arrays[name]) if t is None else (lambda name: arrays[name][t])
        cfg = self.config
        shoe = get("shoe").astype(np.int64)
        pos, stacked = int(get("pos")), int(get("stacked"))
        n = cfg.shoe_size if cfg.infinite else shoe_cards
        pending = [int(shoe[(pos + k) % n]) for k in range(stacked)]
        ids = ids + pending
        new: dict[str, np.ndarray | int]
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
            hilo = np.asarray(self._params.hilo_of_card)
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
        self, key: PRNGKeyArray, state: State, params: Params | None = None
    ) -> GymnaxReset:
        """Start an episode at ``state``'s table (its last round must be over): its first
        round dealt, or opened for its bet (bet steps); for scripted rounds :meth:`stack`
        first."""
        p = self._params if params is None else params
        return program.start_round(self.program, key, state, p)

    def new_state(
        self, num_tables: int | None = None, params: Params | Banked | None = None
    ) -> State:
        """A table before its first round (a full shoe), or ``num_tables`` of them
        (``params``: their rules, one table's, one row per table, or a
        :class:`~blackjack_env.jax.tables.Banked` batch; default ``default_params``)."""
        p = self._params if params is None else params
        return program.fresh_tables(self.program, p, num_tables)

    # ------------------------------------------------------------------ adapters
    def gymnax_v1(self, full_info: bool = False, final_observation: bool = False) -> GymnaxV1:
        """This env with gymnax 1.0's step signature (``obs, state, reward, terminated,
        truncated, info``), for gymnax's own wrappers (``GymnaxV1``): the lean ``info`` of
        :meth:`step` and an empty ``final_observation`` (gymnax's
        ``FlattenObservationWrapper`` reads the key); ``final_observation``: the ended
        round's last observation there; ``full_info``: the rich ``info`` of
        :meth:`step_full`."""
        return GymnaxV1(self, full_info, final_observation)

    def __deepcopy__(self, memo: dict[int, Any]) -> BlackjackJax:
        """A deep copy that shares the JAX arrays (``default_params``: immutable, so
        sharing them is a copy). Copying a ``jax.Array`` runs a ``copy`` program compiled
        for its shape and dtype: gymnax's ``GymnaxToGymWrapper`` and
        ``GymnaxToVectorGymWrapper`` deep-copy the env they wrap, which compiled about 20
        of them, one per distinct leaf of ``Params``."""
        for leaf in jax.tree.leaves(self.__dict__):
            if isinstance(leaf, jax.Array):
                memo[id(leaf)] = leaf
        new = object.__new__(type(self))
        memo[id(self)] = new
        new.__dict__.update(copy.deepcopy(self.__dict__, memo))
        return new



# BlackjackJax's arguments are EnvArgs' fields (their defaults, obs_mode's here, and help
# lines are there), plus seats_per_table; the docs show them as its signature
BlackjackJax.__init__.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
    [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD),
     *EnvArgs.signature(obs_mode=DEFAULT_OBS_MODE).parameters.values(),
     inspect.Parameter("seats_per_table", inspect.Parameter.KEYWORD_ONLY, default=1,
                       annotation="int")],
    return_annotation=None,
)

def _rules_name(rules: RuleSet) -> str:
    """A rule set as the errors name it: a preset's name, else its short summary."""
    if isinstance(rules, str):
        return repr(rules)
    if isinstance(rules, Rules):
        return f"({rules.summary()})"
    return "(a dict)"


def _shoe_cards(p: Params | Banked) -> np.ndarray:
    """The cards in each table's full shoe (host): one table's, one per row of stacked
    params, or each table's rule set's in a bank."""
    if isinstance(p, Banked):
        return np.asarray(p.bank.scalars["shoe_cards"])[np.asarray(p.index)]
    return np.asarray(p.shoe_cards)
