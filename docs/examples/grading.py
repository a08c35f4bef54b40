"""Exact grading: the optimal return, a policy's exact return, and its regret."""

from blackjack_env import Action, preset
from blackjack_env.analysis import evaluate_policy, solve

rules = preset("vegas-strip", decks=None)  # the exact analysis works on an infinite deck
best = solve(rules)
print(f"optimal return {best.expected_return:+.5f} per unit bet")


def dealer_like(state):
    """Hit below 17, as the dealer does."""
    return Action.HIT if state.total < 17 else Action.STAND


mimic = evaluate_policy(rules, dealer_like)
print(f"dealer-like play {mimic:+.5f}, regret {best.expected_return - mimic:.5f}")

# a policy can also be a table keyed by Gymnasium's (total, upcard, usable ace)
print(best.chart.to_text().splitlines()[0])
