"""The illegal-action policies of the JAX table (the env's ``illegal_action`` setting), as
:mod:`blackjack_env.envs.step` defines them for the numpy envs.

* ``"map"``: :func:`blackjack_env.jax.step` (``envs.step.array_map_illegal``,
  tabulated in ``Params.mapped_action``).
* ``"penalize"``: :func:`penalized_step`: an illegal action plays
  ``envs.step.PENALTY_ACTION`` (at a BET step the bet ``"map"`` chooses), the round is
  then played out with ``engine.play.play_out_action`` at every remaining decision
  (:func:`finish_round`, the numpy ``TableBatch.finish_rounds``) and
  ``illegal_penalty`` is taken from its reward.
* ``"raise"``: an exception cannot be raised from inside ``jax.jit`` for a traced value,
  so the pure object refuses it at construction (:func:`refuse_raise`); the Gymnasium
  adapters (``blackjack_env.jax.gym``), whose actions are numpy arrays, check the mask
  on the host before stepping and raise ``envs.step.illegal_message``'s ``ValueError``,
  the state unchanged.

An integer action outside ``0..n_actions - 1`` (which ``jit`` cannot refuse; the pure
object refuses non-integers and wrong shapes where the call is traced,
``BlackjackJax.check_step_args``) is illegal under every policy: ``"map"`` plays what
the nearest action in range maps to when illegal (below 0: STAND; above: the last
action's mapping, HIT where legal for SURRENDER), ``"penalize"`` penalises it as any
illegal action; the Gymnasium adapters refuse it on the host (the numpy envs' words).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jaxtyping import Array, ArrayLike, Bool, Int32, PRNGKeyArray

from blackjack_env.envs.codes import PHASE_OVER
from blackjack_env.envs.step import PENALTY_ACTION, IllegalAction
from blackjack_env.jax.dealer import dealer_turn
from blackjack_env.jax.hands import legal_mask
from blackjack_env.jax.round import decide, play_out
from blackjack_env.jax.settlement import round_net
from blackjack_env.jax.shoe import Rng
from blackjack_env.jax.state import I32, State, Stepped
from blackjack_env.jax.tables import Config, Params

__all__ = ["finish_round", "penalized_step", "refuse_raise"]


def refuse_raise(illegal_action: IllegalAction) -> None:
    """The pure (gymnax-style) object's answer to ``illegal_action="raise"``: one clear
    ``ValueError`` saying what is allowed and where raising is served."""
    if illegal_action is IllegalAction.RAISE:
        raise ValueError(
            "illegal_action='raise' cannot be carried out inside jax.jit (a traced action "
            "cannot raise); BlackjackJax allows 'map' or 'penalize', and the Gymnasium "
            "adapters (gymnasium.make / make_vec of 'blackjack_env/BlackjackJax-v0') "
            "allow 'raise': they check each action on the host"
        )


def finish_round(
    key: PRNGKeyArray, st: State, p: Params, cfg: Config, on: Bool[Array, ""]
) -> State:
    """Play out the round where ``on`` (numpy ``TableBatch.finish_rounds``): the table's
    one round play-out, :func:`blackjack_env.jax.round.play_out`."""
    return play_out(key, st, p, cfg, on)


def penalized_step(
    key: PRNGKeyArray, st: State, action: Int32[ArrayLike, ""], p: Params, cfg: Config,
    penalty: float,
) -> Stepped:
    """:func:`blackjack_env.jax.step` under ``illegal_action="penalize"`` (same
    returns): an illegal action plays ``PENALTY_ACTION`` (at a BET step: the bet that
    ``"map"`` chooses for it, the round then dealt) and ends the round
    (:func:`finish_round`); its reward is the round's net minus ``penalty``."""
    st, rk, dealer, played, bad, k_out = penalized_decision(key, st, action, p, cfg)
    st, _ = dealer_turn(st, p, cfg, rk, dealer)
    return penalized_end(k_out, st, played, bad, p, cfg, penalty)


def penalized_decision(
    key: PRNGKeyArray, st: State, action: Int32[ArrayLike, ""], p: Params, cfg: Config
) -> tuple[State, Rng, Bool[Array, ""], Int32[Array, ""], Bool[Array, ""], PRNGKeyArray]:
    """:func:`penalized_step` up to its decision's dealer's turn, which is left to the
    caller (:func:`blackjack_env.jax.round.decide`): ``(state, rng, dealer, played,
    illegal, key)``; :func:`penalized_end` with ``key`` then ends the step."""
    action = jnp.asarray(action, I32)
    mask = legal_mask(st, p, cfg)
    inside = (action >= 0) & (action < cfg.n_actions)
    legal = mask[jnp.clip(action, 0, cfg.n_actions - 1)] & inside
    bet_step = st.opened if cfg.bets else jnp.zeros((), bool)
    played = jnp.where(legal | bet_step, action, jnp.int32(PENALTY_ACTION))
    k_step, k_out = jax.random.split(key)
    st, rk, dealer, mapped, _ = decide(k_step, st, played, p, cfg)
    played = jnp.where(bet_step, mapped, played)  # (step maps an illegal bet)
    return st, rk, dealer, played, ~legal, k_out


def penalized_end(
    key: PRNGKeyArray, st: State, played: Int32[Array, ""], bad: Bool[Array, ""], p: Params,
    cfg: Config, penalty: float,
) -> Stepped:  # fmt: skip
    """:func:`penalized_step` after its decision's dealer's turn: the round played out
    after an illegal action (``bad``; :func:`finish_round` with ``key``), the reward less
    the penalty; :func:`penalized_step`'s returns."""
    st = finish_round(key, st, p, cfg, bad)
    over = st.phase == PHASE_OVER
    reward = jnp.where(over, round_net(st, p, cfg), 0.0) - jnp.where(bad, penalty, 0.0)
    return st, reward, over, played, bad
