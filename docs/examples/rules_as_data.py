"""Rules as data: 4,096 JAX tables, each under its own rule set, in one compiled
program."""

import jax
import jax.numpy as jnp
import numpy as np

from blackjack_env.engine import RuleSpace, preset
from blackjack_env.jax import BlackjackJax

# every rule that changes no array's shape may differ from table to table
space = RuleSpace(
    preset("vegas-strip", insurance=False),
    {
        "decks": (1, 2, 6, 8),
        "dealer_hits_soft_17": (False, True),
        "blackjack_payout": ("3:2", "6:5", "1:1"),
        "hole_card": ("peek", "none"),
        "double": ("any", "10-11"),
        "surrender": ("none", "late", "early"),
    },
)
env = BlackjackJax(rules=space, obs_mode="features", observe_rules=True)
print(env.config)  # the static part: shapes only (the shoe holds the space's 8 decks)

rules = space.sample_many(np.random.default_rng(0), 4096)
bank = env.rule_bank(rules)  # one pytree; each distinct table kept once
distinct = bank.rows["mask_index"].shape[0]
print(f"{bank.size} rule sets, {distinct} distinct legal-action tables")


def one_table(key, index):
    """A table under rule set `index` of the bank, 50 random legal actions."""
    p = bank.at(index)
    k0, k1 = jax.random.split(key)
    obs, state = env.reset(k0, p)

    def play(carry, k):
        state, mask, net = carry
        ka, ks = jax.random.split(k)
        action = jnp.argmax(jnp.where(mask, jax.random.uniform(ka, mask.shape), -1.0))
        _, state, reward, done, info = env.step(ks, state, action, p)
        return (state, info["action_mask"], net + reward), done

    mask = env.action_mask(state, p)
    keys = jax.random.split(k1, 50)
    (state, _, net), done = jax.lax.scan(play, (state, mask, 0.0), keys)
    return obs, net, done.sum()


keys = jax.random.split(jax.random.PRNGKey(0), 4096)
obs, net, rounds = jax.jit(jax.vmap(one_table))(keys, jnp.arange(4096))
print(f"observation {obs.shape[1:]}: the features' 73 entries, then 50 rule features")
mean = float(net.sum() / rounds.sum())
print(f"{int(rounds.sum()):,} rounds, mean net per round {mean:+.3f}")

# a key draws a table's rules inside jit (XLand-MiniGrid's sample_ruleset): bank.sample
i = int(jax.jit(bank.sample_index)(jax.random.PRNGKey(7)))
print(f"a key draws rule set {i}: {rules[i].summary()}")
