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

**Determinism.** Every random draw comes from the key given to ``train``; the same key
(and settings, and JAX build/device) gives the same parameters bit for bit.

The env is the JAX table's gymnax-style object (``blackjack_env.jax.BlackjackJax``):
``reset(key, params) -> (obs, state)``, ``step(key, state, action, params) ->
(obs, state, reward, done, info)`` with auto-reset and ``info["action_mask"]``,
``action_mask(state, params)``, ``num_actions``, ``default_params``. Any env with that
surface can be given to :func:`make_train`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, fields
from typing import Any, NamedTuple, cast

import jax
import jax.numpy as jnp
import numpy as np
import optax
from flax import linen as nn
from flax.linen.initializers import constant, variance_scaling

from blackjack_env.agents.mlp import (
    MASKED_LOGIT,
    VECTOR_FEATURES,
    VECTOR_IGNORED,
    MLPAgent,
    exact_grades,
    expand_features,
)

__all__ = [
    "ActorCritic",
    "JaxPPOConfig",
    "SeedsResult",
    "actor_agent",
    "make_env",
    "make_train",
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

    def __post_init__(self) -> None:
        positive = ("seeds", "total_timesteps", "num_envs", "num_steps", "update_epochs",
                    "num_minibatches", "curve_points")
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

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        rules = self.rules
        out["rules"] = rules if isinstance(rules, str) else rules.to_dict()
        out["hidden"] = list(self.hidden)
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


def make_env(config: JaxPPOConfig, seat: int = 0, others: str = "dealer") -> tuple[Any, Any]:
    """The JAX table for the config's rules: ``(env, env_params)``.

    ``seat`` and ``others``: the learner's seat and the other seats' strategy, as the
    numpy env takes them (the JAX table must support them; it raises when not)."""
    from blackjack_env.jax import BlackjackJax

    kwargs: dict[str, Any] = {"obs_mode": config.obs_mode}
    if seat != 0:
        kwargs["seat"] = seat
    if others != "dealer":
        kwargs["others"] = others
    if isinstance(config.rules, str):
        env = BlackjackJax(rules=config.rules, decks=config.decks, **kwargs)
    else:
        env = BlackjackJax(rules=config.rules, **kwargs)
    return env, env.default_params


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
               progress: Callable[..., Any] | None = None
               ) -> Callable[[jax.Array], dict[str, Any]]:
    """``train(key) -> {"actor": params [curve_points + 1, ...], "metrics": {...},
    "env_state": the tables' state at the end}``.

    ``actor``: the actor's parameters before training and after each curve stretch,
    stacked. ``metrics``: per update, ``episode_return`` (mean return per finished round
    in the rollout), ``episodes``, ``illegal_actions``, ``entropy``, ``value_loss``,
    ``policy_loss``; arrays of shape ``[num_updates]``. Pure: ``jit`` and ``vmap`` apply.

    ``progress``: called on the host (``jax.debug.callback``) after each curve stretch
    with the number of stretches done and the rounds the stretch finished (under ``vmap``,
    once with every seed's values); nothing the training computes depends on it.
    """
    if env is None:
        env, env_params = make_env(config)
    elif env_params is None:
        env_params = env.default_params
    n_actions = int(env.num_actions)
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
    reset = jax.vmap(env.reset, in_axes=(0, None))
    step = jax.vmap(env.step, in_axes=(0, 0, 0, None))
    action_mask = jax.vmap(env.action_mask, in_axes=(0, None))

    def loss_fn(params: Any, batch: Transition, advantages: jax.Array, targets: jax.Array
                ) -> tuple[jax.Array, tuple[jax.Array, ...]]:
        logits, value = _apply(network, params, batch.obs)
        log_probs = masked_log_probs(logits, batch.mask)
        log_prob = jnp.take_along_axis(log_probs, batch.action[:, None], axis=-1)[:, 0]
        value_clipped = batch.value + jnp.clip(value - batch.value, -config.clip_eps,
                                               config.clip_eps)
        value_loss = 0.5 * jnp.maximum(jnp.square(value - targets),
                                       jnp.square(value_clipped - targets)).mean()
        ratio = jnp.exp(log_prob - batch.log_prob)
        adv = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
        policy_loss = -jnp.minimum(
            ratio * adv, jnp.clip(ratio, 1.0 - config.clip_eps, 1.0 + config.clip_eps) * adv
        ).mean()
        probs = jnp.exp(log_probs)
        entropy = -jnp.where(batch.mask, probs * log_probs, 0.0).sum(axis=-1).mean()
        total = policy_loss + config.vf_coef * value_loss - config.ent_coef * entropy
        return total, (value_loss, policy_loss, entropy)

    def train(key: jax.Array) -> dict[str, Any]:
        key, k_init, k_reset = jax.random.split(key, 3)
        obs, env_state = reset(jax.random.split(k_reset, n_envs), env_params)
        params = network.init(k_init, jnp.zeros(obs.shape[1:], dtype=jnp.float32))
        opt_state = tx.init(params)
        mask = action_mask(env_state, env_params).astype(bool)

        def env_step(carry: tuple[Any, ...], _: None) -> tuple[tuple[Any, ...], Transition]:
            params, env_state, obs, mask, key = carry
            key, k_act, k_env = jax.random.split(key, 3)
            logits, value = _apply(network, params, obs)
            masked = jnp.where(mask, logits, MASKED_LOGIT)
            action = jax.random.categorical(k_act, masked, axis=-1)
            log_prob = jnp.take_along_axis(jax.nn.log_softmax(masked, axis=-1),
                                           action[:, None], axis=-1)[:, 0]
            next_obs, env_state, reward, done, info = _step_out(
                step(jax.random.split(k_env, n_envs), env_state, action, env_params))
            t = Transition(obs, mask, action, log_prob, value,
                           reward.astype(jnp.float32), done.astype(jnp.float32))
            next_mask = info["action_mask"].astype(bool)
            return (params, env_state, next_obs, next_mask, key), t

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

        def update(carry: tuple[Any, ...], _: None) -> tuple[tuple[Any, ...], dict[str, Any]]:
            params, opt_state, env_state, obs, mask, key = carry
            (params, env_state, obs, mask, key), traj = jax.lax.scan(
                env_step, (params, env_state, obs, mask, key), None, n_steps)
            _logits, last_value = _apply(network, params, obs)
            advantages, targets = gae(traj, last_value)

            def epoch(carry: tuple[Any, ...], _: None) -> tuple[tuple[Any, ...], Any]:
                params, opt_state, key = carry
                key, k_perm = jax.random.split(key)
                order = jax.random.permutation(k_perm, config.batch_size)

                def shuffle(x: jax.Array) -> jax.Array:
                    x = x.reshape((config.batch_size, *x.shape[2:]))[order]
                    return x.reshape((config.num_minibatches, minibatch, *x.shape[1:]))

                batches = jax.tree_util.tree_map(shuffle, (traj, advantages, targets))

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
            episodes = traj.done.sum()
            legal_taken = jnp.take_along_axis(traj.mask, traj.action[..., None], axis=-1)
            metrics = {
                "episode_return": (traj.reward.sum() / jnp.maximum(episodes, 1.0)),
                "episodes": episodes,
                "illegal_actions": jnp.logical_not(legal_taken).sum(),
                "entropy": entropy, "value_loss": value_loss, "policy_loss": policy_loss,
            }
            return (params, opt_state, env_state, obs, mask, key), metrics

        def stretch(carry: tuple[Any, ...], index: jax.Array) -> tuple[tuple[Any, ...], Any]:
            carry, metrics = jax.lax.scan(update, carry, None, config.updates_per_point)
            if progress is not None:  # handed the stretch's results, so it runs after them
                jax.debug.callback(progress, index + 1, metrics["episodes"].sum())
            return carry, (carry[0]["params"], metrics)

        first = params["params"]
        final, (actors, metrics) = jax.lax.scan(
            stretch, (params, opt_state, env_state, obs, mask, key),
            jnp.arange(config.curve_points))
        actors = jax.tree_util.tree_map(lambda a, b: jnp.concatenate([a[None], b]),
                                        first, actors)
        actors = {k: v for k, v in actors.items() if k.startswith("actor_")}
        metrics = jax.tree_util.tree_map(lambda x: x.reshape(-1), metrics)
        return {"actor": actors, "metrics": metrics, "env_state": final[2]}

    return train


def _inputs(config: JaxPPOConfig) -> tuple[Any, Any]:
    """``(features, ignored)`` of the network's input for the config."""
    return (VECTOR_FEATURES if config.one_hot else (),
            VECTOR_IGNORED if config.ignore_hand_index else ())


def actor_agent(actor: dict[str, Any], hidden_layers: int, info: dict[str, Any] | None = None,
                features: Any = (), ignored: Any = ()) -> MLPAgent:
    """The numpy :class:`MLPAgent` of one actor's parameters (a dict ``actor_0 ..
    actor_out`` of ``{"kernel", "bias"}``, as :func:`make_train` returns them per seed and
    point)."""
    names = [f"actor_{i}" for i in range(hidden_layers)] + ["actor_out"]
    layers = [(np.asarray(actor[n]["kernel"]), np.asarray(actor[n]["bias"])) for n in names]
    return MLPAgent(layers, obs_mode="vector", algo="jax-ppo", features=features,
                    ignored=ignored, info=info)


@dataclass
class SeedsResult:
    """What :func:`train_seeds` gives back.

    ``agents[k][p]``: seed k's greedy policy at curve point p (p = 0 untrained, the last
    one after the whole run). ``grades[k][p]``: its exact grade (None when the rules
    have a finite shoe). ``timesteps[p]``: env steps per seed at point p.
    ``metrics``: numpy arrays ``[seeds, num_updates]``. ``train_seconds``: wall time of
    the jitted program, compilation included; ``compile_seconds``: of that, the compile.
    """

    config: JaxPPOConfig
    agents: list[list[MLPAgent]]
    grades: list[list[dict[str, Any]]] | None
    timesteps: list[int]
    metrics: dict[str, np.ndarray]
    train_seconds: float
    compile_seconds: float
    grade_seconds: float

    def final_regrets(self) -> np.ndarray | None:
        if self.grades is None:
            return None
        return np.array([g[-1]["regret"] for g in self.grades])

    def summary(self) -> dict[str, Any]:
        """Distribution over seeds of the final exact regret, and the timings."""
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
            out.update({
                "optimal_return": self.grades[0][-1]["optimal_return"],
                "regret_median": float(np.median(regrets)),
                "regret_worst": float(regrets.max()),
                "regret_best": float(regrets.min()),
                "regret_mean": float(regrets.mean()),
                "regrets": [float(r) for r in regrets],
                "median_seed": int(np.argsort(regrets)[(len(regrets) - 1) // 2]),
                "split_states_depending_on_hand_index": [
                    g[-1]["split_states_depending_on_hand_index"] for g in self.grades],
            })
        return out


def rules_of(config: JaxPPOConfig) -> Any:
    """The :class:`~blackjack_env.engine.Rules` the config trains on."""
    from blackjack_env.engine import preset

    if isinstance(config.rules, str):
        return preset(config.rules, decks=config.decks)
    return config.rules


def train_seeds(config: JaxPPOConfig, env: Any = None, env_params: Any = None,
                rules: Any = None, grade: bool = True, say: Callable[[str], Any] | None = None
                ) -> SeedsResult:
    """Train ``config.seeds`` agents in one ``jit(vmap(train))`` program and grade each
    seed's greedy policy exactly at every curve point (infinite deck; ``grade=False`` or
    a finite shoe: no grades). ``rules``: the rules the env plays (for the grade), by
    default those of the config."""
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
    agents = [[actor_agent(jax.tree_util.tree_map(lambda x, k=k, p=p: x[k, p], actor), layers,
                           {"seed_index": k, "timesteps": timesteps[p]},
                           *_inputs(config))
               for p in range(points)] for k in range(config.seeds)]
    grades = None
    t1 = time.perf_counter()
    from blackjack_env.agents.grading import analysis_reason

    if grade and analysis_reason(rules) is None:
        flat = exact_grades([a for row in agents for a in row], rules, config.obs_mode)
        grades = [flat[k * points:(k + 1) * points] for k in range(config.seeds)]
    grade_seconds = time.perf_counter() - t1
    return SeedsResult(config, agents, grades, timesteps, metrics, train_seconds,
                       compile_seconds, grade_seconds)


def config_fields() -> list[str]:
    """The names of :class:`JaxPPOConfig`'s settings."""
    return [f.name for f in fields(JaxPPOConfig)]
