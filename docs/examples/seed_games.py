"""The four seed games: one round of each, every seat played by a fixed strategy."""

from blackjack_env import Table, preset
from blackjack_env.strategies import make_strategy

for name in ("browser-game", "ood-book", "how-to-play", "terminal-21"):
    rules = preset(name)
    table = Table(rules, seed=4)
    players = [make_strategy("dealer", rules, seed) for seed in range(rules.seats)]
    for seat in range(rules.seats):
        table.bet(seat, rules.min_bet)
    table.deal()
    while table.to_act is not None:  # each seat acts when the table names it
        seat, _hand = table.to_act
        table.act(players[seat](table))
    results = [[r.outcome.value for r in s.results] for s in table.seats]
    print(f"{name:>13}: {rules.seats} seat(s), dealer {table.dealer}, "
          f"results {results}")
