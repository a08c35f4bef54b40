"""Masked PPO trained entirely inside ``jax.jit`` on the JAX table, many seeds at once.

In the manner of PureJaxRL's ``ppo.py``: :func:`make_train` returns a pure function
``train(key)`` that holds the whole run (vectorised env resets, the rollout as a
``lax.scan`` over ``num_steps`` steps of ``num_envs`` tables, generalised advantage
estimation, ``update_epochs`` epochs of ``num_minibatches`` shuffled minibatches with the
clipped objective, and the optax optimiser state in the scan's carry), so
``jax.jit(jax.vmap(train))(keys)`` trains one independent agent per key in one program.
:func:`train_seeds` does exactly that and grades every seed's greedy policy exactly.

**The policy.** Separate actor and critic MLPs (tanh, as PureJaxRL; a He-style
initialisation instead of its orthogonal one, see :class:`ActorCritic`) over the env's
``"vector"`` observation (with one-hot columns added, and the split hand's index left out:
:data:`~blackjack_env.agents.mlp.VECTOR_FEATURES`, ``VECTOR_IGNORED``). Illegal actions are
masked in the policy: their logits are set to :data:`~blackjack_env.agents.mlp.MASKED_LOGIT` (-1e9)
before sampling, the log-probabilities and the entropy (so an illegal action has
probability 0, to float32 precision exactly, and never enters the loss); the env's
``info["action_mask"]`` of the state each action is taken in is stored with the
transition. Every update counts the sampled actions that the mask forbade
(``metrics["illegal_actions"]``, always 0: a test holds it there).

**Learning curve.** The run is ``curve_points`` stretches of equal numbers of updates;
the actor's parameters after each stretch (and before the first) come out of the jitted
function stacked along a leading axis, and :func:`train_seeds` grades each of them on the
host through the exact analysis (:func:`~blackjack_env.agents.mlp.exact_grades`: every
decision state of the analysis encoded as the env shows it, the whole batch through the
network, the greedy action per state, :func:`~blackjack_env.analysis.evaluate_policy`),
for infinite-deck rules. A trained actor becomes an
:class:`~blackjack_env.agents.mlp.MLPAgent` (numpy only), which is what is saved and what
plays in the numpy env, ``blackjack-evaluate`` and the web table.

**Bets.** With ``JaxPPOConfig.bet_sizes`` (e.g. ``(1, 2, 4, 8)``) the table opens every
round with a BET step (:class:`~blackjack_env.jax.BlackjackJax`'s ``bet_sizes``): the
policy's actions are the playing actions then one per size, and the table's mask allows
only the bets at a BET step and only playing actions after it, so the same masking keeps
the two apart (``metrics["bet_out_of_phase"]`` counts a breach; a test holds it at 0). The
rewards stay in base bets: a round bet at 8 and won pays +8, so the return the PPO
maximises is the expected net per round in base bets, the bet's scale included (it is no
longer a return per unit bet), and its variance grows with the spread. On an infinite deck
the BET observation is always the same, so a policy bets one size there: the exact grade is
then the play's (its regret per unit bet, as without bets, from :func:`play_agent`: the
network's play alone) plus the per-round figures of :func:`grade_bets` (the greedy bet times
the play's exact return, against the best size times the optimum). On a finite shoe there is
no exact grade (neither of the play nor of the bets): :func:`bets_by_count` tells the
greedy and sampled bet by true count, and ``scripts/jax_ppo_counting.py`` simulates the
policy, bets included, in the numpy env. The numpy env made with the same ``bet_sizes``
plays the whole policy (an :class:`~blackjack_env.agents.mlp.MLPAgent` of
``n_play + len(bet_sizes)`` actions);
``blackjack-evaluate`` and the web table play saved models at a fixed bet only, so a
training run saves :func:`play_agent`'s model for them beside the whole one.

**Determinism.** Every random draw comes from the key given to ``train``; the same key
(and settings, and JAX build/device) gives the same parameters bit for bit.

The env is the JAX table's gymnax-style object (``blackjack_env.jax.BlackjackJax``):
``reset(key, params) -> (obs, state)``, ``step(key, state, action, params) ->
(obs, state, reward, done, info)`` with auto-reset and ``info["action_mask"]``,
``action_mask(state, params)``, ``num_actions``, ``default_params``. Any env with that
surface can be given to :func:`make_train`.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from functools import partial
from pathlib import Path
from typing import Any, NamedTuple, cast

import jax
import jax.numpy as jnp
import numpy as np
import optax
from flax import linen as nn
from flax.linen.initializers import constant, variance_scaling

from blackjack_env.agents.grading import analysis_reason
from blackjack_env.agents.mlp import (
    MASKED_LOGIT,
    VECTOR_FEATURES,
    VECTOR_IGNORED,
    MLPAgent,
    bet_observations,
    exact_grades,
    expand_features,
    greedy_bets,
)
from blackjack_env.agents.rule_sets import (
    RuleSetGrade,
    RuleSetGrades,
    axis_costs,
    bootstrap_interval,
    grade_one,
    rule_axes,
)
from blackjack_env.engine import preset
from blackjack_env.engine.rulespace import (
    DEFAULT_VERSIONS,
    HELD_OUT_SIZE,
    RuleSpace,
    default_space,
    held_out,
)
from blackjack_env.envs.settings import check_bet_sizes
from blackjack_env.envs.vector import BlackjackVectorEnv
from blackjack_env.jax import BlackjackJax
from blackjack_env.jax.tables import RuleBank

__all__ = [
    "ActorCritic",
    "JaxPPOConfig",
    "SeedsResult",
    "actor_agent",
    "bet_observations",
    "bets_by_count",
    "grade_bets",
    "grade_held_out",
    "greedy_bets",
    "held_out_rule_sets",
    "make_env",
    "make_train",
    "play_agent",
    "seat_gae",
    "space_of",
    "train_seeds",
]


@dataclass(frozen=True)
class JaxPPOConfig:
    """Settings of a JAX PPO run (per seed; ``seeds`` agents train side by side).

    The defaults are sized for a CPU (4 seeds, 3M steps each: vegas-strip, infinite deck,
    median exact regret about 0.003); ``scripts/gpu_train_check.py`` has the GPU run's.
    """

    rules: Any = "vegas-strip"
    """the table rules: a preset name or a :class:`~blackjack_env.engine.Rules`"""
    decks: int | None = None
    """decks in the shoe (None: an infinite deck, the only case graded exactly); with a
    ``Rules`` object the rules' own decks are used"""
    obs_mode: str = "vector"
    """the observation the network reads (the env's ``"vector"``)"""
    seeds: int = 4
    """independent agents trained at once (``jax.vmap`` over their keys)"""
    seed: int = 1
    """seed of the run; agent k trains with the k-th key split from it"""
    total_timesteps: int = 3_000_000
    """env steps per seed (rounded down to whole updates, and to a whole number per curve
    point)"""
    num_envs: int = 256
    """tables stepped in parallel per seed"""
    num_steps: int = 32
    """rollout steps per table per update"""
    update_epochs: int = 4
    """passes over each rollout"""
    num_minibatches: int = 8
    """minibatches per pass (num_envs * num_steps must divide into them)"""
    lr: float = 1e-3
    """Adam step size (optax.adam)"""
    anneal_lr: bool = True
    """decay the step size linearly to 0 over the run"""
    gamma: float = 1.0
    """discount (a round is short and undiscounted)"""
    gae_lambda: float = 0.95
    """GAE lambda"""
    clip_eps: float = 0.2
    """PPO clip range (policy ratio and value change)"""
    ent_coef: float = 0.03
    """entropy bonus weight"""
    vf_coef: float = 0.5
    """value loss weight"""
    max_grad_norm: float = 0.5
    """gradient clipping by global norm"""
    hidden: tuple[int, ...] = (64, 64)
    """hidden layer widths of actor and critic"""
    one_hot: bool = True
    """append one-hot columns of the total, upcard and cards to the input
    (:data:`~blackjack_env.agents.mlp.VECTOR_FEATURES`)"""
    ignore_hand_index: bool = True
    """the network does not read the split hand's index, which the exact analysis does not
    carry (:data:`~blackjack_env.agents.mlp.VECTOR_IGNORED`): the grade is then exact"""
    curve_points: int = 10
    """exact grades along the run (after each of this many equal stretches)"""
    bet_sizes: tuple[int, ...] | None = None
    """None: a fixed bet of one base bet. Increasing whole numbers such as ``(1, 2, 4, 8)``:
    every round opens with a BET step at which the agent bets ``bet_sizes[k]`` base bets
    (action ``n_play + k``; the table's ``bet_sizes``); the rewards stay in base bets, so a
    seed's return is its net per round in base bets, the bet's scale included"""
    rule_space: str | None = None
    """None: train on ``rules``. A rule space (``"v1"``: the default space,
    :func:`~blackjack_env.engine.rulespace.default_space`; or a RuleSpace JSON file): one
    policy for every rule set of the space. Each table plays a rule set drawn from the
    space's training rule sets (its held-out ones never: the test set stays unseen), the
    tables draw again every ``redraw_every`` updates (each a fresh round), and the
    observation carries the rule features (``observe_rules``); the grade is exact on the
    space's held-out rule sets"""
    redraw_every: int = 1
    """under a rule space: updates between the tables' draws of their rule sets"""
    curve_rule_sets: int = 16
    """under a rule space: held-out rule sets graded at each curve point (the last point
    is graded on every held-out rule set)"""

    def __post_init__(self) -> None:
        positive = ("seeds", "total_timesteps", "num_envs", "num_steps", "update_epochs",
                    "num_minibatches", "curve_points", "redraw_every", "curve_rule_sets")
        for name in positive:
            value = getattr(self, name)
            if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value < 1:
                raise ValueError(f"JaxPPOConfig.{name}={value!r}: must be an int of at least 1")
        if self.seed < 0:
            raise ValueError(f"JaxPPOConfig.seed={self.seed!r}: must be 0 or more")
        if (self.num_envs * self.num_steps) % self.num_minibatches:
            raise ValueError(f"JaxPPOConfig.num_minibatches={self.num_minibatches}: the rollout "
                             f"of num_envs * num_steps = {self.num_envs * self.num_steps} steps "
                             f"must split into equal minibatches")
        if self.obs_mode != "vector":
            raise ValueError(f"JaxPPOConfig.obs_mode={self.obs_mode!r}: the MLP reads the "
                             f"'vector' observation")
        for name, low, high in (("lr", 0.0, 1.0), ("gamma", 0.0, 1.0), ("gae_lambda", 0.0, 1.0),
                                ("clip_eps", 0.0, 1.0)):
            value = getattr(self, name)
            if not low < value <= high:
                raise ValueError(f"JaxPPOConfig.{name}={value!r}: must be in ({low}, {high}]")
        for name in ("ent_coef", "vf_coef", "max_grad_norm"):
            if getattr(self, name) < 0:
                raise ValueError(f"JaxPPOConfig.{name}={getattr(self, name)!r}: must be >= 0")
        if not self.hidden or any(int(h) < 1 for h in self.hidden):
            raise ValueError(f"JaxPPOConfig.hidden={self.hidden!r}: give one or more widths "
                             f">= 1")
        if self.bet_sizes is not None:  # the envs' one check of their shape
            object.__setattr__(self, "bet_sizes",
                               check_bet_sizes(self.bet_sizes, "JaxPPOConfig.bet_sizes"))
        if self.total_timesteps < self.batch_size * self.curve_points:
            raise ValueError(
                f"JaxPPOConfig.total_timesteps={self.total_timesteps:,}: less than one update "
                f"({self.batch_size:,} steps = num_envs * num_steps) per curve point "
                f"({self.curve_points}); give at least {self.batch_size * self.curve_points:,}")

    @property
    def batch_size(self) -> int:
        """Env steps per update (one rollout of every table)."""
        return self.num_envs * self.num_steps

    @property
    def updates_per_point(self) -> int:
        return max(1, self.total_timesteps // self.batch_size // self.curve_points)

    @property
    def num_updates(self) -> int:
        return self.updates_per_point * self.curve_points

    @property
    def timesteps(self) -> int:
        """Env steps per seed actually trained (whole updates)."""
        return self.num_updates * self.batch_size

    @property
    def observe_rules(self) -> bool:
        """The observation carries the rule features (under a rule space)."""
        return self.rule_space is not None

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        rules = self.rules
        out["rules"] = rules if isinstance(rules, str) else rules.to_dict()
        out["hidden"] = list(self.hidden)
        out["bet_sizes"] = None if self.bet_sizes is None else list(self.bet_sizes)
        return out


def _init(scale: float) -> Any:
    """He-style initialisation scaled by ``scale`` (variance ``scale / fan_in``).

    Not PureJaxRL's orthogonal one: under ``vmap`` over seeds that is a batched QR
    decomposition, and jaxlib's CPU kernel for it (``lapack_sorgqr_ffi``'s
    ``ParallelBatchMap``) deadlocked here every time with 4 seeds on 2 cores (every
    thread of the pool waiting on the others; gdb stacks in the issue note)."""
    return variance_scaling(scale, "fan_in", "truncated_normal")


class ActorCritic(nn.Module):
    """Separate actor and critic MLPs: ``(logits [.., A], value [..])``, logits unmasked.

    Initialisation (:func:`_init`): hidden layers variance 2 / fan_in, the actor's output
    1e-4 / fan_in (near-uniform first policy), the critic's output 1 / fan_in."""

    num_actions: int
    hidden: tuple[int, ...] = (64, 64)
    features: tuple[tuple[int, float, int], ...] = ()
    ignored: tuple[int, ...] = ()

    @nn.compact
    def __call__(self, x: jax.Array) -> tuple[jax.Array, jax.Array]:
        x = expand_features(x, self.features, jnp, self.ignored)
        a = x
        for i, width in enumerate(self.hidden):
            a = nn.tanh(nn.Dense(width, kernel_init=_init(2.0),
                                 bias_init=constant(0.0), name=f"actor_{i}")(a))
        logits = nn.Dense(self.num_actions, kernel_init=_init(1e-4),
                          bias_init=constant(0.0), name="actor_out")(a)
        c = x
        for i, width in enumerate(self.hidden):
            c = nn.tanh(nn.Dense(width, kernel_init=_init(2.0),
                                 bias_init=constant(0.0), name=f"critic_{i}")(c))
        value = nn.Dense(1, kernel_init=_init(1.0), bias_init=constant(0.0),
                         name="critic_out")(c)
        return logits, jnp.squeeze(value, axis=-1)


def masked_log_probs(logits: jax.Array, mask: jax.Array) -> jax.Array:
    """Log-probabilities of the policy restricted to the legal actions."""
    return jax.nn.log_softmax(jnp.where(mask, logits, MASKED_LOGIT), axis=-1)


class Transition(NamedTuple):
    obs: jax.Array
    mask: jax.Array
    action: jax.Array
    log_prob: jax.Array
    value: jax.Array
    reward: jax.Array
    done: jax.Array
    valid: jax.Array  # 1.0: the decision was played (seat streams: the acting seat's)


def seat_gae(traj: Transition, last_value: jax.Array, last_valid: jax.Array, gamma: float,
             lam: float) -> tuple[jax.Array, jax.Array, jax.Array]:
    """GAE over per-seat decision streams: ``(advantages, targets, usable)``, each shaped
    as ``traj.reward`` (``[steps, ..., seats]``).

    A seat's stream is its own decisions (``traj.valid``); the steps between two of them
    (other seats acting) are skipped: the rewards they bring (a round is settled, and every
    seat paid, on some seat's step) are added to the seat's decision before them, and an
    episode end among them ends that decision's return. Rewards that come after an episode
    end and before the seat's next decision belong to a round it had no decision in (a
    natural, a dealer blackjack) and are credited to no decision. ``last_value``,
    ``last_valid``: each seat's value at the observation after the rollout and whether it
    is that seat's decision there; a seat's last decisions whose round is still open at the
    end of the rollout, with another seat to act, have no value to bootstrap from
    (``usable`` 0.0: left out of the loss, and so are the seat's decisions before them in
    the same episode, whose advantages would carry theirs); every other played decision is
    usable. With every step valid and ``last_valid`` true it is plain GAE."""

    Carry = tuple[jax.Array, jax.Array, jax.Array, jax.Array, jax.Array]

    def back(carry: Carry, t: Transition) -> tuple[Carry, Any]:
        adv_next, value_next, r_acc, done_acc, known = carry
        r_acc = jnp.where(t.done > 0, 0.0, r_acc) + t.reward
        done_acc = jnp.maximum(done_acc, t.done)
        live = 1.0 - done_acc
        delta = r_acc + gamma * value_next * live - t.value
        adv = delta + gamma * lam * live * adv_next
        usable = jnp.maximum(known, done_acc)
        played = t.valid > 0
        out = (jnp.where(played, adv, adv_next), jnp.where(played, t.value, value_next),
               jnp.where(played, 0.0, r_acc), jnp.where(played, 0.0, done_acc),
               jnp.where(played, usable, known))
        return out, (jnp.where(played, adv, 0.0), usable * t.valid)

    zeros = jnp.zeros_like(last_value)
    _, (advantages, usable) = jax.lax.scan(
        back, (zeros, last_value, zeros, zeros, last_valid.astype(last_value.dtype)), traj,
        reverse=True)
    return advantages, advantages + traj.value, usable


def make_env(config: JaxPPOConfig, seat: int = 0, others: str = "dealer") -> tuple[Any, Any]:
    """The JAX table for the config's rules: ``(env, env_params)``.

    ``seat`` and ``others``: the learner's seat and the other seats' strategy, as the
    numpy env takes them (the JAX table must support them; it raises when not)."""
    kwargs: dict[str, Any] = {"obs_mode": config.obs_mode}
    if config.bet_sizes is not None:
        kwargs["bet_sizes"] = config.bet_sizes
    if seat != 0:
        kwargs["seat"] = seat
    if others != "dealer":
        kwargs["others"] = others
    if config.rule_space is not None:  # one policy for every rule set of a space
        env = BlackjackJax(rules=space_of(config), observe_rules=True, **kwargs)
        return env, env.rule_bank()  # (the space's training rule sets)
    if isinstance(config.rules, str):
        env = BlackjackJax(rules=config.rules, decks=config.decks, **kwargs)
    else:
        env = BlackjackJax(rules=config.rules, **kwargs)
    return env, env.default_params


def space_of(config: JaxPPOConfig) -> RuleSpace:
    """The rule space of ``config.rule_space``: a version of the default space (``"v1"``)
    or a RuleSpace JSON file (one line ``ValueError`` otherwise)."""
    name = config.rule_space
    if name is None:
        raise ValueError("JaxPPOConfig.rule_space is None: the run trains on one rule set")
    if name in DEFAULT_VERSIONS:
        return default_space(name)
    path = Path(name)
    if not path.is_file():
        raise ValueError(f"rule_space={name!r}: neither a version of the default space "
                         f"({', '.join(DEFAULT_VERSIONS)}) nor a RuleSpace JSON file")
    try:
        return RuleSpace.from_dict(json.loads(path.read_text()))
    except (ValueError, TypeError, KeyError, json.JSONDecodeError) as err:
        raise ValueError(f"rule_space={name!r}: not a RuleSpace file ({err})") from None


def _step_out(out: tuple[Any, ...]) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
    """``(obs, state, reward, done, info)`` from a gymnax-style step (5 values) or a
    functional one with ``terminated, truncated`` apart (6 values)."""
    if len(out) == 6:
        obs, state, reward, terminated, truncated, info = out
        return obs, state, reward, jnp.logical_or(terminated, truncated), info
    return out  # type: ignore[return-value]


def _apply(network: Any, params: Any, obs: jax.Array) -> tuple[jax.Array, jax.Array]:
    """The actor-critic's ``(logits, value)`` (flax types ``apply``'s result as a union of
    its possible outputs; this network returns the pair)."""
    return cast("tuple[jax.Array, jax.Array]", network.apply(params, obs))


def make_train(config: JaxPPOConfig, env: Any = None, env_params: Any = None,
               progress: Callable[..., Any] | None = None, seat_streams: bool | None = None
               ) -> Callable[[jax.Array], dict[str, Any]]:
    """``train(key) -> {"actor": params [curve_points + 1, ...], "metrics": {...},
    "env_state": the tables' state at the end}``.

    ``actor``: the actor's parameters before training and after each curve stretch,
    stacked. ``metrics``: per update, ``episode_return`` (mean return per finished round
    in the rollout, in base bets), ``episodes``, ``illegal_actions``, ``entropy``,
    ``value_loss``, ``policy_loss``; with ``bet_sizes`` also ``bets`` (bet steps in the
    rollout), ``bet_mean`` (their mean bet, base bets) and ``bet_out_of_phase`` (bets
    sampled where the mask allowed none, or play actions where it allowed only bets:
    always 0); arrays of shape ``[num_updates]``. Pure: ``jit`` and ``vmap`` apply.

    ``progress``: called on the host (``jax.debug.callback``) after each curve stretch
    with the number of stretches done and the rounds the stretch finished (under ``vmap``,
    once with every seed's values); nothing the training computes depends on it.

    ``seat_streams`` (default: the env has several seats and an ``active(state, params)``
    method, as a :class:`~blackjack_env.jax.BlackjackJax` of ``seats_per_table > 1``): the
    env's observations, masks, rewards and ends carry a seat axis, the shared policy is
    asked for every seat each step (the table plays the acting seat's action), and each
    seat learns from its own stream: its own decisions (``env.active``) credited with its
    own round net (:func:`seat_gae`); after the advantages, only the acting seat's row of
    each table step goes to the update (the others are never in the loss), and decisions
    :func:`seat_gae` finds unusable are weighted 0.
    ``episode_return`` is then per seat and round, ``episodes`` counts seat-rounds.
    """
    if env is None:
        env, env_params = make_env(config)
    elif env_params is None:
        env_params = env.default_params
    n_actions = int(env.num_actions)
    seats = int(getattr(env, "seats", 1))
    if seat_streams is None:
        seat_streams = seats > 1 and callable(getattr(env, "active", None))
    if seat_streams and seats < 2:
        raise ValueError("seat_streams: the env has one seat; give a table of several "
                         "(seats_per_table)")
    sizes = config.bet_sizes or ()
    n_play = n_actions - len(sizes)
    if sizes and n_play < 1:
        raise ValueError(f"JaxPPOConfig.bet_sizes={config.bet_sizes}: the env has "
                         f"{n_actions} actions, too few for {len(sizes)} bet sizes after the "
                         f"playing actions")
    network = ActorCritic(n_actions, tuple(int(h) for h in config.hidden),
                          *_inputs(config))
    n_envs, n_steps = config.num_envs, config.num_steps
    minibatch = config.batch_size // config.num_minibatches
    total_updates = config.num_updates

    def schedule(count: jax.Array) -> jax.Array:
        steps_per_update = config.update_epochs * config.num_minibatches
        frac = 1.0 - (count // steps_per_update) / total_updates
        return config.lr * frac

    tx = optax.chain(
        optax.clip_by_global_norm(config.max_grad_norm),
        optax.adam(learning_rate=schedule if config.anneal_lr else config.lr, eps=1e-5),
    )
    bank = env_params if isinstance(env_params, RuleBank) else None
    if bank is not None and seat_streams:
        raise ValueError("a rule bank trains one learner seat per table (seats_per_table=1)")

    def rules_at(rule: jax.Array) -> Any:
        """The params of a table: its rule set of the bank, or the one rule set."""
        return env_params if bank is None else bank.at(rule)

    # (each table's rule set is an index into the bank: the bank is shared, not copied)
    reset = jax.vmap(lambda k, r: env.reset(k, rules_at(r)))
    step = jax.vmap(lambda k, s, a, r: env.step(k, s, a, rules_at(r)))
    action_mask = jax.vmap(lambda s, r: env.action_mask(s, rules_at(r)))

    spread = tables_sharding(n_envs)

    def on_devices(tree: Any) -> Any:
        """``tree`` (a leading axis of tables) laid out over every device: each holds
        ``num_envs / devices`` tables, and XLA partitions the rollout and the update by
        it (the loss's means become sums across devices). One device: ``tree`` as it is."""
        if spread is None:
            return tree
        return jax.tree_util.tree_map(lambda x: jax.lax.with_sharding_constraint(x, spread),
                                      tree)

    def draw_rules(key: jax.Array) -> jax.Array:
        """Each table's rule set (a bank's index; 0 for one rule set)."""
        if bank is None:
            return jnp.zeros(n_envs, jnp.int32)
        return jax.vmap(bank.sample_index)(jax.random.split(key, n_envs))

    def loss_fn(params: Any, batch: Transition, advantages: jax.Array, targets: jax.Array,
                weight: jax.Array) -> tuple[jax.Array, tuple[jax.Array, ...]]:
        logits, value = _apply(network, params, batch.obs)
        log_probs = masked_log_probs(logits, batch.mask)
        log_prob = jnp.take_along_axis(log_probs, batch.action[:, None], axis=-1)[:, 0]
        value_clipped = batch.value + jnp.clip(value - batch.value, -config.clip_eps,
                                               config.clip_eps)
        value_err = jnp.maximum(jnp.square(value - targets), jnp.square(value_clipped - targets))
        ratio = jnp.exp(log_prob - batch.log_prob)
        probs = jnp.exp(log_probs)
        entropies = -jnp.where(batch.mask, probs * log_probs, 0.0).sum(axis=-1)
        if not seat_streams:
            value_loss = 0.5 * value_err.mean()
            adv = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
            policy_loss = -jnp.minimum(
                ratio * adv,
                jnp.clip(ratio, 1.0 - config.clip_eps, 1.0 + config.clip_eps) * adv).mean()
            entropy = entropies.mean()
        else:  # only the seats' played, usable decisions count (weight 1, others 0)
            n = jnp.maximum(weight.sum(), 1.0)

            def mean(x: jax.Array) -> jax.Array:
                return (weight * x).sum() / n

            value_loss = 0.5 * mean(value_err)
            centred = advantages - mean(advantages)
            adv = centred / (jnp.sqrt(mean(jnp.square(centred))) + 1e-8)
            policy_loss = -mean(jnp.minimum(
                ratio * adv,
                jnp.clip(ratio, 1.0 - config.clip_eps, 1.0 + config.clip_eps) * adv))
            entropy = mean(entropies)
        total = policy_loss + config.vf_coef * value_loss - config.ent_coef * entropy
        return total, (value_loss, policy_loss, entropy)

    def train(key: jax.Array) -> dict[str, Any]:
        key, k_init, k_reset, k_rules = jax.random.split(key, 4)
        rule = draw_rules(k_rules)
        obs, env_state = on_devices(reset(jax.random.split(k_reset, n_envs), rule))
        params = network.init(k_init, jnp.zeros(obs.shape[1:], dtype=jnp.float32))
        opt_state = tx.init(params)
        mask = action_mask(env_state, rule).astype(bool)
        if seat_streams:  # (the network's parameters do not depend on the seat axis)
            valid = jax.vmap(env.active, in_axes=(0, None))(env_state, env_params)
        else:
            valid = jnp.ones(n_envs, bool)
        look = (mask, valid.astype(jnp.float32))

        def env_step(carry: tuple[Any, ...], _: None) -> tuple[tuple[Any, ...], Transition]:
            params, env_state, obs, (mask, valid), key, rule = carry
            key, k_act, k_env = jax.random.split(key, 3)
            logits, value = _apply(network, params, obs)
            masked = jnp.where(mask, logits, MASKED_LOGIT)
            action = jax.random.categorical(k_act, masked, axis=-1)
            log_prob = jnp.take_along_axis(jax.nn.log_softmax(masked, axis=-1),
                                           action[..., None], axis=-1)[..., 0]
            next_obs, env_state, reward, done, info = on_devices(_step_out(
                step(jax.random.split(k_env, n_envs), env_state, action, rule)))
            t = Transition(obs, mask, action, log_prob, value,
                           reward.astype(jnp.float32), done.astype(jnp.float32), valid)
            next_valid = info["active"].astype(jnp.float32) if seat_streams else valid
            next_look = (info["action_mask"].astype(bool), next_valid)
            return (params, env_state, next_obs, next_look, key, rule), t

        def redraw(carry: tuple[Any, ...], count: jax.Array) -> tuple[Any, ...]:
            """Under a bank, every ``redraw_every`` updates: each table draws its rule set
            again and starts a fresh round under it (the rollout before it was cut at its
            last observation, whose value the advantages bootstrap from, as at any cut)."""
            params, opt_state, env_state, obs, look, key, rule = carry
            if bank is None:
                return carry
            key, k_rules, k_reset = jax.random.split(key, 3)
            new_rule = draw_rules(k_rules)
            new_obs, new_state = on_devices(reset(jax.random.split(k_reset, n_envs), new_rule))
            new_look = (action_mask(new_state, new_rule).astype(bool), look[1])
            now = (count % config.redraw_every) == 0
            pick = partial(jax.tree_util.tree_map, lambda a, b: jnp.where(now, a, b))
            return (params, opt_state, pick(new_state, env_state), pick(new_obs, obs),
                    pick(new_look, look), key, jnp.where(now, new_rule, rule))

        def gae(traj: Transition, last_value: jax.Array) -> tuple[jax.Array, jax.Array]:
            def back(carry: tuple[jax.Array, jax.Array], t: Transition
                     ) -> tuple[tuple[jax.Array, jax.Array], jax.Array]:
                advantage, next_value = carry
                live = 1.0 - t.done
                delta = t.reward + config.gamma * next_value * live - t.value
                advantage = delta + config.gamma * config.gae_lambda * live * advantage
                return (advantage, t.value), advantage

            _, advantages = jax.lax.scan(back, (jnp.zeros_like(last_value), last_value), traj,
                                         reverse=True)
            return advantages, advantages + traj.value

        def update(carry: tuple[Any, ...], count: jax.Array
                   ) -> tuple[tuple[Any, ...], dict[str, Any]]:
            params, opt_state, env_state, obs, look, key, rule = redraw(carry, count)
            (params, env_state, obs, look, key, rule), traj = jax.lax.scan(
                env_step, (params, env_state, obs, look, key, rule), None, n_steps)
            _logits, last_value = _apply(network, params, obs)
            full = traj  # (the metrics count every seat's rounds)
            if seat_streams:
                advantages, targets, weight = seat_gae(traj, last_value, look[1], config.gamma,
                                                       config.gae_lambda)
                # one seat acts per table step: keep its row (the others are never in the
                # loss), so an update costs what a one-stream update of these steps costs
                pick = jnp.argmax(traj.valid, axis=-1)

                def acting_row(x: jax.Array) -> jax.Array:
                    index = pick.reshape(pick.shape + (1,) * (x.ndim - 2))
                    return jnp.take_along_axis(x, index, axis=2)[:, :, 0]

                traj, advantages, targets, weight = jax.tree_util.tree_map(
                    acting_row, (traj, advantages, targets, weight))
            else:
                advantages, targets = gae(traj, last_value)
                weight = traj.valid
            rows = config.batch_size

            def epoch(carry: tuple[Any, ...], _: None) -> tuple[tuple[Any, ...], Any]:
                params, opt_state, key = carry
                key, k_perm = jax.random.split(key)
                order = jax.random.permutation(k_perm, rows)

                def shuffle(x: jax.Array) -> jax.Array:
                    x = x.reshape((rows, *x.shape[2:]))[order]
                    return x.reshape((config.num_minibatches, minibatch, *x.shape[1:]))

                batches = jax.tree_util.tree_map(shuffle, (traj, advantages, targets, weight))

                def minibatch_step(carry: tuple[Any, Any], batch: Any
                                   ) -> tuple[tuple[Any, Any], Any]:
                    params, opt_state = carry
                    grads, aux = jax.grad(loss_fn, has_aux=True)(params, *batch)
                    updates, opt_state = tx.update(grads, opt_state, params)
                    return (optax.apply_updates(params, updates), opt_state), aux

                (params, opt_state), aux = jax.lax.scan(minibatch_step, (params, opt_state),
                                                        batches)
                return (params, opt_state, key), aux

            (params, opt_state, key), aux = jax.lax.scan(
                epoch, (params, opt_state, key), None, config.update_epochs)
            value_loss, policy_loss, entropy = (x.mean() for x in aux)
            traj = full
            episodes = traj.done.sum()
            legal_taken = jnp.take_along_axis(traj.mask, traj.action[..., None], axis=-1)[..., 0]
            metrics = {
                "episode_return": (traj.reward.sum() / jnp.maximum(episodes, 1.0)),
                "episodes": episodes,
                "illegal_actions": (jnp.logical_not(legal_taken) & (traj.valid > 0)).sum(),
                "entropy": entropy, "value_loss": value_loss, "policy_loss": policy_loss,
            }
            if sizes:  # the bets sampled in the rollout (base bets)
                is_bet = (traj.action >= n_play) & (traj.valid > 0)
                size = jnp.asarray(sizes, jnp.float32)[
                    jnp.clip(traj.action - n_play, 0, len(sizes) - 1)]
                bets = is_bet.sum()
                metrics["bets"] = bets
                metrics["bet_mean"] = jnp.where(is_bet, size, 0.0).sum() / jnp.maximum(bets, 1)
                # a bet taken where the mask allowed no bet, or a play where it allowed one
                bet_phase = traj.mask[..., n_play:].any(axis=-1) & (traj.valid > 0)
                metrics["bet_out_of_phase"] = (is_bet != bet_phase).sum()
            return (params, opt_state, env_state, obs, look, key, rule), metrics

        def stretch(carry: tuple[Any, ...], index: jax.Array) -> tuple[tuple[Any, ...], Any]:
            counts = index * config.updates_per_point + jnp.arange(config.updates_per_point)
            carry, metrics = jax.lax.scan(update, carry, counts)
            if progress is not None:  # handed the stretch's results, so it runs after them
                jax.debug.callback(progress, index + 1, metrics["episodes"].sum())
            return carry, (carry[0]["params"], metrics)

        first = params["params"]
        final, (actors, metrics) = jax.lax.scan(
            stretch, (params, opt_state, env_state, obs, look, key, rule),
            jnp.arange(config.curve_points))
        actors = jax.tree_util.tree_map(lambda a, b: jnp.concatenate([a[None], b]),
                                        first, actors)
        actors = {k: v for k, v in actors.items() if k.startswith("actor_")}
        metrics = jax.tree_util.tree_map(lambda x: x.reshape(-1), metrics)
        return {"actor": actors, "metrics": metrics, "env_state": final[2]}

    return train


def tables_sharding(num_envs: int) -> Any:
    """How :func:`make_train` lays its tables out: over every device JAX sees
    (``jax.sharding``, a mesh of one axis, the tables' leading axis split along it), so a
    machine of 8 GPUs steps 8 times the tables with no change to the code; None on one
    device, or when ``num_envs`` does not split evenly (a ``ValueError`` says so)."""
    devices = jax.devices()
    if len(devices) < 2:
        return None
    if num_envs % len(devices):
        raise ValueError(f"JaxPPOConfig.num_envs={num_envs}: the tables are spread over "
                         f"{len(devices)} devices, so give a multiple of {len(devices)}")
    mesh = jax.sharding.Mesh(np.array(devices), ("tables",))
    return jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec("tables"))


def _inputs(config: JaxPPOConfig) -> tuple[Any, Any]:
    """``(features, ignored)`` of the network's input for the config."""
    return (VECTOR_FEATURES if config.one_hot else (),
            VECTOR_IGNORED if config.ignore_hand_index else ())


def actor_agent(actor: dict[str, Any], hidden_layers: int, info: dict[str, Any] | None = None,
                features: Any = (), ignored: Any = (), observe_rules: bool = False) -> MLPAgent:
    """The numpy :class:`MLPAgent` of one actor's parameters (a dict ``actor_0 ..
    actor_out`` of ``{"kernel", "bias"}``, as :func:`make_train` returns them per seed and
    point); ``observe_rules``: its observation ends with the rule features."""
    names = [f"actor_{i}" for i in range(hidden_layers)] + ["actor_out"]
    layers = [(np.asarray(actor[n]["kernel"]), np.asarray(actor[n]["bias"])) for n in names]
    return MLPAgent(layers, obs_mode="vector", algo="jax-ppo", features=features,
                    ignored=ignored, info=info, observe_rules=observe_rules)


def play_agent(agent: MLPAgent, n_play: int) -> MLPAgent:
    """The playing decisions of a bet-deciding policy alone: the same network with its
    output layer cut to the first ``n_play`` actions.

    The ``"vector"`` observation of a playing decision does not show the bet, and the bet
    actions are masked out at every playing decision, so this agent plays every hand
    exactly as the whole policy does; at a fixed bet (``blackjack-evaluate``, the web
    table, the exact grade) it is the policy's play."""
    *hidden, (w, b) = agent.layers
    info = {**agent.info, "play_of_bet_policy": True}
    info.pop("bet_sizes", None)
    return MLPAgent([*hidden, (w[:, :n_play], b[:n_play])], obs_mode=agent.obs_mode,
                    algo=agent.algo, features=agent.features, ignored=agent.ignored,
                    info=info, observe_rules=agent.observe_rules)


#: True counts at which :func:`bets_by_count` asks a policy for its bet.
BET_COUNTS: tuple[int, ...] = tuple(range(-6, 9))


def bets_by_count(agent: MLPAgent, bet_sizes: Any, true_counts: Any = BET_COUNTS,
                  shoe_left: float = 0.5) -> dict[str, Any]:
    """The greedy bet and the sampling policy's mean bet (both in base bets) at each true
    count, with ``shoe_left`` of the shoe undealt (:func:`bet_observations`)."""
    sizes = np.asarray(bet_sizes, dtype=np.float64)
    obs = bet_observations(true_counts, shoe_left)
    logits = agent.logits_batch(obs)[:, agent.n_actions - sizes.size:]
    p = np.exp(logits - logits.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    return {"true_counts": [float(c) for c in np.asarray(true_counts)],
            "greedy_bet": [int(b) for b in greedy_bets(agent, bet_sizes, obs)],
            "mean_bet": [round(float(m), 3) for m in p @ sizes]}


def infinite_deck_bet_step(rules: Any, bet_sizes: Any) -> np.ndarray:
    """The observation of the BET step on an infinite deck, taken from the numpy env: it
    is always the same (no count, a shoe that never runs down), so a policy bets one size
    there whatever happened before."""
    env = BlackjackVectorEnv(1, rules=rules, obs_mode="vector", bet_sizes=tuple(bet_sizes))
    obs, _ = env.reset(seed=0)
    return np.asarray(obs, np.float32)


def grade_bets(grades: list[dict[str, Any]], agents: list[MLPAgent], bet_sizes: Any,
               bet_obs: np.ndarray) -> None:
    """Add the exact per-round figures of bet-deciding ``agents`` to their exact play
    grades (infinite deck, in place): the greedy bet ``bet`` at the one BET observation
    ``bet_obs``; ``exact_return_per_round = bet * exact_return`` (the return is linear in
    the stake, and the play does not see it); ``optimal_return_per_round``: the best size
    times the optimal return (the smallest size when the optimum loses, the largest when it
    wins); ``regret_per_round`` their difference."""
    sizes = np.asarray(bet_sizes)
    for grade, agent in zip(grades, agents, strict=True):
        bet = int(greedy_bets(agent, sizes, bet_obs.reshape(1, -1))[0])
        best = grade["optimal_return"]
        best_round = float(max(sizes.min() * best, sizes.max() * best))
        grade.update(bet=bet, exact_return_per_round=bet * grade["exact_return"],
                     optimal_return_per_round=best_round,
                     regret_per_round=best_round - bet * grade["exact_return"])


@dataclass
class SeedsResult:
    """What :func:`train_seeds` gives back.

    ``agents[k][p]``: seed k's greedy policy at curve point p (p = 0 untrained, the last
    one after the whole run); with ``bet_sizes`` it decides the bets too
    (:func:`play_agent` gives its play alone). ``grades[k][p]``: its exact grade (None when
    the rules have a finite shoe): the play's, per unit bet (``regret`` is the play's
    regret), and with ``bet_sizes`` the per-round figures of :func:`grade_bets` beside it.
    ``timesteps[p]``: env steps per seed at point p.
    ``metrics``: numpy arrays ``[seeds, num_updates]``. ``train_seconds``: wall time of
    the jitted program, compilation included; ``compile_seconds``: of that, the compile.
    Under a rule space a grade is over held-out rule sets (:func:`grade_held_out`: its
    ``regret`` the mean over them), and ``held_out[k]`` is seed k's last policy graded on
    every held-out rule set.
    """

    config: JaxPPOConfig
    agents: list[list[MLPAgent]]
    grades: list[list[dict[str, Any]]] | None
    timesteps: list[int]
    metrics: dict[str, np.ndarray]
    train_seconds: float
    compile_seconds: float
    grade_seconds: float
    held_out: list[RuleSetGrades] | None = None

    @property
    def n_play(self) -> int:
        """The playing actions (the agents' actions before the bet actions)."""
        return self.agents[0][0].n_actions - len(self.config.bet_sizes or ())

    def play_agents(self, point: int = -1) -> list[MLPAgent]:
        """Each seed's play at curve point ``point`` (the whole policy without bets)."""
        row = [agents[point] for agents in self.agents]
        return [play_agent(a, self.n_play) for a in row] if self.config.bet_sizes else row

    def final_regrets(self) -> np.ndarray | None:
        if self.grades is None:
            return None
        return np.array([g[-1]["regret"] for g in self.grades])

    def summary(self) -> dict[str, Any]:
        """Distribution over seeds of the final exact regret, and the timings.

        ``regret_median`` is the median of the seeds' final regrets as statistics defines
        it (with an even number of seeds, the mean of the two middle ones: no seed's own
        figure). ``median_seed`` is the seed whose policy stands for the run (the one a
        command saves): the middle seed, or with an even number of seeds the better (lower
        regret) of the two middle ones; ``median_seed_regret`` is that seed's regret, equal
        to ``regret_median`` for an odd number of seeds."""
        out: dict[str, Any] = {
            "seeds": self.config.seeds, "timesteps_per_seed": self.timesteps[-1],
            "train_seconds": round(self.train_seconds, 2),
            "compile_seconds": round(self.compile_seconds, 2),
            "grade_seconds": round(self.grade_seconds, 2),
            "illegal_actions": int(self.metrics["illegal_actions"].sum()),
            "steps_per_second": round(self.config.seeds * self.timesteps[-1]
                                      / max(self.train_seconds, 1e-9)),
        }
        regrets = self.final_regrets()
        if regrets is not None and self.grades is not None:
            median_seed = int(np.argsort(regrets)[(len(regrets) - 1) // 2])
            out.update({
                "optimal_return": self.grades[0][-1]["optimal_return"],
                "regret_median": float(np.median(regrets)),
                "regret_worst": float(regrets.max()),
                "regret_best": float(regrets.min()),
                "regret_mean": float(regrets.mean()),
                "regrets": [float(r) for r in regrets],
                "median_seed": median_seed,
                "median_seed_regret": float(regrets[median_seed]),
                "split_states_depending_on_hand_index": [
                    g[-1]["split_states_depending_on_hand_index"] for g in self.grades],
            })
        if self.held_out is not None:
            out["held_out"] = {
                "rule_sets": len(self.held_out[0].grades), "name": self.held_out[0].name,
                "mean_regret_by_seed": [g.mean for g in self.held_out],
                "median_regret_by_seed": [g.median for g in self.held_out],
                "worst_regret_by_seed": [g.worst.regret for g in self.held_out],
            }
        sizes = self.config.bet_sizes
        if sizes:
            bets: dict[str, Any] = {
                "bet_sizes": list(sizes),
                "grade": "regret is the play's per unit bet; the per-round figures grade the "
                         "bet too" if self.grades is not None else
                         "a finite shoe: no exact grade; simulate the policy with the bets "
                         "(scripts/jax_ppo_counting.py)",
                "sampled_bet_mean_last_update": [
                    round(float(x), 3) for x in self.metrics["bet_mean"][:, -1]],
                "bet_out_of_phase": int(self.metrics["bet_out_of_phase"].sum()),
            }
            if self.grades is not None:
                per_round = np.array([g[-1]["regret_per_round"] for g in self.grades])
                bets.update(greedy_bet=[g[-1]["bet"] for g in self.grades],
                            optimal_return_per_round=self.grades[0][-1][
                                "optimal_return_per_round"],
                            regret_per_round=[float(r) for r in per_round],
                            regret_per_round_median=float(np.median(per_round)))
            else:
                bets["by_count_half_shoe"] = [
                    bets_by_count(row[-1], sizes) for row in self.agents]
            out["bets"] = bets
        return out


def rules_of(config: JaxPPOConfig) -> Any:
    """The :class:`~blackjack_env.engine.Rules` the config trains on."""
    if isinstance(config.rules, str):
        return preset(config.rules, decks=config.decks)
    return config.rules


def train_seeds(config: JaxPPOConfig, env: Any = None, env_params: Any = None,
                rules: Any = None, grade: bool = True, say: Callable[[str], Any] | None = None
                ) -> SeedsResult:
    """Train ``config.seeds`` agents in one ``jit(vmap(train))`` program and grade each
    seed's greedy policy exactly at every curve point (infinite deck; ``grade=False`` or
    a finite shoe: no grades; with ``bet_sizes``, the play's grade and the bet's per-round
    figures, see the module docstring). ``rules``: the rules the env plays (for the grade),
    by default those of the config."""
    rules = rules if rules is not None else rules_of(config)
    shown = [0]
    started = [0.0]

    def progress(done: Any, _episodes: Any) -> None:
        # under vmap the callback may come once with every seed's value or once per seed
        point = int(np.max(np.asarray(done)))
        if say is not None and point > shown[0]:
            shown[0] = point
            say(f"  curve point {point}/{config.curve_points}: "
                f"{point * config.updates_per_point * config.batch_size:,} steps per seed, "
                f"{time.perf_counter() - started[0]:.1f} s")

    train = make_train(config, env, env_params, progress if say is not None else None)
    keys = jax.random.split(jax.random.PRNGKey(config.seed), config.seeds)
    t0 = time.perf_counter()
    compiled = jax.jit(jax.vmap(train)).lower(keys).compile()
    compile_seconds = time.perf_counter() - t0
    if say:
        say(f"compiled in {compile_seconds:.1f} s; training {config.seeds} seeds x "
            f"{config.timesteps:,} steps")
    started[0] = time.perf_counter()
    out = jax.block_until_ready(compiled(keys))
    train_seconds = time.perf_counter() - t0
    actor = jax.tree_util.tree_map(np.asarray, out["actor"])
    metrics = {k: np.asarray(v) for k, v in out["metrics"].items()}
    points = config.curve_points + 1
    timesteps = [p * config.updates_per_point * config.batch_size for p in range(points)]
    layers = len(config.hidden)
    about: dict[str, Any] = {}
    if config.bet_sizes:
        about = {"bet_sizes": list(config.bet_sizes)}
    if config.rule_space is not None:
        about["rule_space"] = config.rule_space
    agents = [[actor_agent(jax.tree_util.tree_map(lambda x, k=k, p=p: x[k, p], actor), layers,
                           {"seed_index": k, "timesteps": timesteps[p], **about},
                           *_inputs(config), observe_rules=config.observe_rules)
               for p in range(points)] for k in range(config.seeds)]
    grades = None
    t1 = time.perf_counter()

    held: list[RuleSetGrades] | None = None
    if grade and config.rule_space is not None:
        space = space_of(config)
        grades, held = grade_held_out(agents, held_out_rule_sets(config),
                                      config.curve_rule_sets, space.axis_names,
                                      f"held-out of {space.name}")
    elif grade and analysis_reason(rules) is None:
        every = [a for row in agents for a in row]
        n_play = every[0].n_actions - len(config.bet_sizes or ())
        plays = [play_agent(a, n_play) for a in every] if config.bet_sizes else every
        flat = exact_grades(plays, rules, config.obs_mode)
        if config.bet_sizes:
            grade_bets(flat, every, config.bet_sizes,
                       infinite_deck_bet_step(rules, config.bet_sizes))
        grades = [flat[k * points:(k + 1) * points] for k in range(config.seeds)]
    grade_seconds = time.perf_counter() - t1
    return SeedsResult(config, agents, grades, timesteps, metrics, train_seconds,
                       compile_seconds, grade_seconds, held)


def held_out_rule_sets(config: JaxPPOConfig) -> list[Any]:
    """The rule sets a rule-space run is graded on: the default space's fixed held-out set
    (``held_out(version)``, 256 rule sets), or a space file's first 256 held-out rule
    sets (in the order of their keys)."""
    name = config.rule_space
    if name in DEFAULT_VERSIONS:
        return list(held_out(str(name)))
    held = space_of(config).held_out_rules()
    if not held:
        raise ValueError(f"rule_space={name!r}: the space holds no rule set out (hold_out=0), "
                         f"so there is nothing to test the policy on")
    return list(held[:HELD_OUT_SIZE])


def grade_held_out(agents: list[list[MLPAgent]], test: list[Any], curve_sets: int,
                   axes: Any = None, name: str = ""
                   ) -> tuple[list[list[dict[str, Any]]], list[RuleSetGrades]]:
    """Exact grades of a rule-space run: per seed and curve point, the last point on every
    rule set of ``test``, the others on its first ``curve_sets``
    (:func:`~blackjack_env.agents.rule_sets.grade_one`: each rule set's decision states
    and optimum computed once for every agent graded on it). A point's grade holds the
    mean over its rule sets of the exact regret (``regret``), of the optimal and of the
    agent's return, the median and worst regret and the rule sets' count; each seed's last
    point is also a :class:`~blackjack_env.agents.rule_sets.RuleSetGrades` (every rule set,
    the interval of the mean, the costliest ``axes``), as ``blackjack-evaluate
    --rule-sets`` gives it."""
    t0 = time.perf_counter()
    flat = [a for row in agents for a in row]
    last = [row[-1] for row in agents]
    per_agent: dict[int, list[RuleSetGrade]] = {id(a): [] for a in flat}
    for i, rules in enumerate(test):
        for agent in flat if i < curve_sets else last:
            per_agent[id(agent)].append(grade_one(agent, rules, i, "batch"))
    grades = []
    for row in agents:
        seed = []
        for agent in row:
            found = per_agent[id(agent)]
            regrets = np.array([g.regret for g in found])
            seed.append({
                "regret": float(regrets.mean()), "regret_median": float(np.median(regrets)),
                "regret_worst": float(regrets.max()), "rule_sets": len(found),
                "optimal_return": float(np.mean([g.optimal_return for g in found])),
                "exact_return": float(np.mean([g.exact_return for g in found])),
                "split_states_depending_on_hand_index": int(sum(
                    g.split_states_depending_on_hand_index or 0 for g in found)),
            })
        grades.append(seed)
    seconds = time.perf_counter() - t0
    axis_names = tuple(rule_axes(test) if axes is None else axes)
    finals = []
    for agent in last:
        rows = tuple(per_agent[id(agent)])
        regrets = np.array([r.regret for r in rows])
        finals.append(RuleSetGrades(agent.name, rows, axis_costs(rows, axis_names),
                                    bootstrap_interval(regrets), seconds, 1, name))
    return grades, finals

