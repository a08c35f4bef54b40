"""Exact grading: the optimal return, a policy's exact return, and its regret."""

from blackjack_env import Action, preset
from blackjack_env.analysis import evaluate_policy, solve

# the exact analysis works on an infinite deck
rules = preset("vegas-strip", decks=None)
best = solve(rules)
print(f"optimal return {best.expected_return:+.5f} per unit bet")


def dealer_like(state):
    """Hit below 17, as the dealer does."""
    return Action.HIT if state.total < 17 else Action.STAND


mimic = evaluate_policy(rules, dealer_like)
print(f"dealer-like play {mimic:+.5f}, regret {best.expected_return - mimic:.5f}")

# the optimal play as a chart (rows: your hand; columns: the dealer's upcard)
print(best.chart.to_text().splitlines()[0])
print(best.chart.cell("hard", 16, "T").name, best.chart.cell("pair", "8", "6").name)
