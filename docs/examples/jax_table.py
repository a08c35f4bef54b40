"""The JAX table: pure reset / step, jit, and many tables with vmap."""

import jax
import jax.numpy as jnp

from blackjack_env.jax import BlackjackJax

env = BlackjackJax(rules="vegas-strip", decks=None, obs_mode="vector")
params = env.default_params
key = jax.random.PRNGKey(0)
key, reset_key = jax.random.split(key)
obs, state = env.reset(reset_key, params)
step = jax.jit(env.step)

rounds, total = 0, 0.0
for _ in range(30):  # a random legal action each step; step resets by itself
    key, act_key, step_key = jax.random.split(key, 3)
    mask = env.action_mask(state, params).astype(jnp.float32)
    action = jax.random.choice(act_key, mask.shape[-1], p=mask / mask.sum())
    obs, state, reward, done, info = step(step_key, state, action, params)
    rounds += int(done)
    total += float(reward)
print(f"{rounds} rounds, {total:+.1f} base bets; obs {obs.shape} {obs.dtype}")

# many tables: vmap over keys (and states)
keys = jax.random.split(key, 1024)
obs, states = jax.vmap(env.reset, in_axes=(0, None))(keys, params)
print("1024 tables:", obs.shape)
