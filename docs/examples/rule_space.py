"""Rule spaces: draw rule sets, hold some out, let the observation carry them."""

import gymnasium as gym
import numpy as np

import blackjack_env
from blackjack_env.analysis import solve
from blackjack_env.engine import Grid, Rules, RuleSpace, default_space, held_out
from blackjack_env.envs.view.fields import RULE_FEATURES, RULES_SIZE

gym.register_envs(blackjack_env)

# the project's space: 9 rule axes, infinite deck, about one rule set in 8 held out
space = default_space("v1")
print(space.name, space.size, "rule sets; axes:", ", ".join(space.axis_names))
print("training:", space.training_size, "held out:", space.size - space.training_size)
test_set = held_out("v1")  # the fixed test set: 256 held-out rule sets (a JSON file)
print("test set:", len(test_set), "first:", test_set[0].summary())
rng = np.random.default_rng(0)
for rules in space.sample_many(rng, 3):  # never a held-out rule set
    best = solve(rules).expected_return  # the exact optimum of each rule set
    print(f"  {best:+.4f}  {rules.summary()}")

# a space of your own: axes of values, or a Grid for a number
shoe = RuleSpace(
    Rules(decks=6),
    {"penetration": Grid(0.5, 0.9, 0.1), "dealer_hits_soft_17": (False, True)},
    name="six-deck",
)
print(shoe.name, shoe.size, shoe.to_dict()["axes"]["penetration"])
try:
    space.check(space.base.replace(surrender="late", blackjack_payout="7:5"))
except ValueError as err:
    print("refused:", err)

# domain randomization: each reset draws a rule set; the observation shows it
env = gym.make(
    "blackjack_env/Blackjack-v0", rules=space, obs_mode="vector", observe_rules=True
)
obs, info = env.reset(seed=1)
print(env.observation_space.shape, RULES_SIZE, "rule features:", RULE_FEATURES[:3])
print("episode rules:", Rules.from_dict(info["rules"]).summary())

# the batched env: every sub-env draws its own rule set at each of its resets
envs = gym.make_vec(
    "blackjack_env/Blackjack-v0", num_envs=4, rules=space, obs_mode="dict",
    observe_rules=True,
)
obs, info = envs.reset(seed=2)
print("rules of the 4 tables:", info["rules_index"], obs["rules"].shape)
