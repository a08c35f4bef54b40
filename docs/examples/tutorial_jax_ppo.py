"""JAX: masked PPO trained inside one ``jit``, several seeds at once, each graded
exactly."""

import os

from blackjack_env.agents.jax_ppo import JaxPPOConfig, train_seeds

STEPS = int(os.environ.get("BJ_TUTORIAL_STEPS", 3_000_000))  # the tests run 16_384

config = JaxPPOConfig(
    rules="vegas-strip", decks=None,  # infinite deck: every seed is graded exactly
    seeds=4,  # four agents, one program: jax.jit(jax.vmap(train))(keys)
    total_timesteps=STEPS, num_envs=256, num_steps=32, curve_points=2,
)
result = train_seeds(config)  # compiles, trains every seed, grades every curve point
for seed, grades in enumerate(result.grades):
    regrets = ", ".join(f"{g['regret']:.4f}" for g in grades)
    print(f"seed {seed}: exact regret along the run {regrets}")
summary = result.summary()
print(f"{summary['timesteps_per_seed']:,} steps per seed; median regret "
      f"{summary['regret_median']:.4f}, worst {summary['regret_worst']:.4f}; "
      f"illegal actions sampled: {summary['illegal_actions']}")
