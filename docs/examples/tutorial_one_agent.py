"""One agent for every table: a JAX PPO policy trained over the default rule space,
graded exactly on the 256 held-out rule sets it never saw and on five named casino
games."""

import os

from blackjack_env.agents.grading import exact_grade
from blackjack_env.agents.jax_ppo import JaxPPOConfig, train_seeds
from blackjack_env.engine import preset

steps = int(os.environ.get("BJ_TUTORIAL_STEPS", 8_000_000))  # per seed
config = JaxPPOConfig(rule_space="v1", seeds=4, total_timesteps=steps)
run = train_seeds(config)  # builds the space's rule bank, trains, grades each seed

summary = run.summary()
print(f"trained 4 seeds x {summary['timesteps_per_seed']:,} steps")
for k, grades in enumerate(run.held_out):
    print(f"seed {k}: held-out mean regret {grades.mean:.4f}, "
          f"median {grades.median:.4f}")

model = run.agents[summary["median_seed"]][-1]  # the seed that stands for the run
print(run.held_out[summary["median_seed"]].table(axes=3))

# the same network on five named games (an infinite deck; the rule features tell
# them apart)
for name in ("vegas-strip", "downtown-h17", "atlantic-city", "european-no-hole-card",
             "single-deck-6to5"):
    rules = preset(name, decks=None, insurance=False)
    grade = exact_grade(model, rules, "vector")
    print(f"{name:22s} regret {grade['regret']:.4f}")
