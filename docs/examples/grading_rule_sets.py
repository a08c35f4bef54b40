"""Exact grading across rule sets: basic strategy of vegas-strip on the held-out set."""

import os

from blackjack_env import preset
from blackjack_env.agents.rule_sets import OptimalPlay, grade_rule_sets, load_rule_sets
from blackjack_env.analysis import solve

N = int(os.environ.get("BJ_RULE_SETS", 256))  # the tests grade the first 24


class VegasBasic:
    """Basic strategy of vegas-strip whatever the table's rules: a policy over the
    analysis's states (``state_policy``), as the fixed agent ``basic`` carries one."""

    name = "basic strategy of vegas-strip"

    def __init__(self):
        self.state_policy = solve(preset("vegas-strip", decks=None)).chart.action


if __name__ == "__main__":  # grade_rule_sets may start worker processes: guard
    held = load_rule_sets("held-out:v1")  # 256 rule sets the sampler never draws
    rules = held.rules[:N]
    name = held.name if len(held.rules) == N else f"{held.name}, the first {N}"
    result = grade_rule_sets(VegasBasic(), rules, axes=held.axes, name=name)
    print(result.table(axes=4))

    worst = result.worst  # each rule set: result.grades; JSON: result.to_dict()
    print(f"worst: optimal {worst.optimal_return:+.5f}, "
          f"basic strategy of vegas-strip {worst.exact_return:+.5f}")

    best = grade_rule_sets(OptimalPlay(), rules)  # each rule set's own optimum
    exact = bool(abs(best.regrets).max() < 1e-12)
    print(f"the optimum itself: every regret below 1e-12: {exact}")
