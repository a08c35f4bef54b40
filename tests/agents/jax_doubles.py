"""Test doubles with the JAX table's surface (``blackjack_env.jax.BlackjackJax``), for the
JAX PPO's unit tests: small, fast to compile, and independent of the table itself.

* :class:`HitStandJax`: a one-seat hit/stand round on an infinite deck that shows the
  env's ``"vector"`` observation (the fields ``encode_state`` writes for the same
  situation), two actions. Its round follows the sutton-barto preset closely enough for
  a policy learned on it to be graded by the exact analysis under that preset (the grade
  is exact whatever the env: it evaluates the network's own greedy policy).
* :class:`MaskedBanditJax`: one decision per episode among five arms under a random
  mask; an illegal arm would pay the most, and the state counts every illegal action
  taken, so a leak in the policy's masking shows in the env's own books.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp

from blackjack_env.envs import view as V


class _Space(NamedTuple):
    shape: tuple[int, ...]


def _draw(key: jax.Array) -> jax.Array:
    rank = jax.random.randint(key, (), 1, 14)
    return jnp.minimum(rank, 10)  # the value of a card, ace = 1


def _total(hard: jax.Array, ace: jax.Array) -> tuple[jax.Array, jax.Array]:
    soft = ace & (hard + 10 <= 21)
    return jnp.where(soft, hard + 10, hard), soft


class HitState(NamedTuple):
    hard: jax.Array
    ace: jax.Array
    cards: jax.Array
    pair: jax.Array
    up: jax.Array
    hole: jax.Array


class HitStandJax:
    """Hit (1) or stand (0); +1 win, 0 push, -1 loss; infinite deck; auto-reset."""

    num_actions = 2
    default_params = None

    def observation_space(self, params: Any) -> _Space:
        return _Space((V.VECTOR_SIZE,))

    def _obs(self, s: HitState) -> jax.Array:
        total, soft = _total(s.hard, s.ace)
        o = jnp.zeros(V.VECTOR_SIZE, dtype=jnp.float32)
        o = o.at[V.VEC_PHASE].set(1.0)
        o = o.at[V.VEC_TOTAL].set(total / V.MAX_TOTAL)
        o = o.at[V.VEC_SOFT].set(soft.astype(jnp.float32))
        o = o.at[V.VEC_UPCARD].set(s.up / V.UPCARD_HIGH)
        o = o.at[V.VEC_NUM_HANDS].set(1.0)
        o = o.at[V.VEC_CARDS].set(jnp.minimum(s.cards / V.VEC_CARDS_SCALE, 1.0))
        o = o.at[V.VEC_PAIR].set((s.pair & (s.cards == 2)).astype(jnp.float32))
        return o.at[V.VEC_SHOE].set(1.0)

    def action_mask(self, state: HitState, params: Any) -> jax.Array:
        return jnp.ones(2, dtype=bool)

    def reset(self, key: jax.Array, params: Any) -> tuple[jax.Array, HitState]:
        k = jax.random.split(key, 4)
        c1, c2 = _draw(k[0]), _draw(k[1])
        ranks = jax.random.randint(k[0], (), 1, 14), jax.random.randint(k[1], (), 1, 14)
        s = HitState(c1 + c2, (c1 == 1) | (c2 == 1), jnp.int32(2), ranks[0] == ranks[1],
                     _draw(k[2]), _draw(k[3]))
        return self._obs(s), s

    def step(self, key: jax.Array, s: HitState, action: jax.Array, params: Any
             ) -> tuple[jax.Array, HitState, jax.Array, jax.Array, dict[str, Any]]:
        k_card, k_dealer, k_reset = jax.random.split(key, 3)
        hit = action == 1
        hard = jnp.where(hit, s.hard + _draw(k_card), s.hard)
        ace = s.ace | (hit & (hard - s.hard == 1))
        cards = s.cards + hit
        player, _ = _total(hard, ace)
        bust = player > 21
        natural = (s.cards == 2) & (player == 21) & ~hit

        def dealer_draw(i: jax.Array, d: tuple[jax.Array, jax.Array]) -> tuple[Any, Any]:
            d_hard, d_ace = d
            total, _ = _total(d_hard, d_ace)
            card = _draw(jax.random.fold_in(k_dealer, i))
            more = total < 17
            return (jnp.where(more, d_hard + card, d_hard),
                    d_ace | (more & (card == 1)))

        d_hard, d_ace = jax.lax.fori_loop(0, 10, dealer_draw,
                                          (s.up + s.hole, (s.up == 1) | (s.hole == 1)))
        dealer, _ = _total(d_hard, d_ace)
        d_natural = (s.up + s.hole == 11) & ((s.up == 1) | (s.hole == 1))
        compare = jnp.sign(player - jnp.where(dealer > 21, 0, dealer)).astype(jnp.float32)
        compare = jnp.where(natural & ~d_natural, 1.0, compare)
        compare = jnp.where(d_natural & ~natural, -1.0, compare)
        done = bust | ~hit
        reward = jnp.where(bust, -1.0, jnp.where(hit, 0.0, compare))
        new = HitState(hard, ace, cards, s.pair, s.up, s.hole)
        obs_r, s_r = self.reset(k_reset, params)
        state = jax.tree_util.tree_map(lambda a, b: jnp.where(done, a, b), s_r, new)
        obs = jnp.where(done, obs_r, self._obs(new))
        return obs, state, reward, done, {"action_mask": self.action_mask(state, params)}


class BanditState(NamedTuple):
    mask: jax.Array
    illegal: jax.Array  # illegal actions taken so far


class MaskedBanditJax:
    """Five arms, a random nonempty mask each episode; legal arm a pays a/4 - 1, an
    illegal arm would pay +2 (and is counted)."""

    num_actions = 5
    default_params = None

    def observation_space(self, params: Any) -> _Space:
        return _Space((5,))

    def action_mask(self, state: BanditState, params: Any) -> jax.Array:
        return state.mask

    def _new_mask(self, key: jax.Array) -> jax.Array:
        mask = jax.random.bernoulli(key, 0.4, (5,))
        return mask.at[0].set(~mask[1:].any() | mask[0])

    def reset(self, key: jax.Array, params: Any) -> tuple[jax.Array, BanditState]:
        mask = self._new_mask(key)
        return mask.astype(jnp.float32), BanditState(mask, jnp.int32(0))

    def step(self, key: jax.Array, s: BanditState, action: jax.Array, params: Any
             ) -> tuple[jax.Array, BanditState, jax.Array, jax.Array, dict[str, Any]]:
        legal = s.mask[action]
        reward = jnp.where(legal, action / 4.0 - 1.0, 2.0)
        mask = self._new_mask(key)
        state = BanditState(mask, s.illegal + (~legal).astype(jnp.int32))
        return mask.astype(jnp.float32), state, reward, jnp.bool_(True), {"action_mask": mask}
