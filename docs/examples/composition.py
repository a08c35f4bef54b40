"""Values off the cards that remain: one hand, a full shoe, effects of removal."""

from blackjack_env import preset
from blackjack_env.analysis import action_values, composition_return

rules = preset("vegas-strip", decks=1)
# 16 (ten, six) against a ten, with the 13 rank counts still unseen (ace .. king):
rich_in_small = [4, 4, 4, 4, 4, 4, 4, 4, 4, 1, 1, 1, 1]
full = [4] * 13
for name, unseen in (("full deck", full), ("tens gone", rich_in_small)):
    values = action_values(rules, unseen, "TS 6H", "T")
    best = max(values, key=values.get)
    print(name, {a.name: round(v, 4) for a, v in values.items()}, "->", best.name)

result = composition_return(rules)  # the whole round off a full single deck (~1 s)
print(f"composition-dependent return, 1 deck: {100 * result.expected_return:+.3f}%")
