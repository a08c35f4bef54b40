"""The engine without Gymnasium: a table, a stacked shoe, one scripted round."""

from blackjack_env import Action, Table, preset

table = Table(preset("vegas-strip", seats=2), seed=1)
# the cards to come, in casino order: seat 0, seat 1, upcard, seat 0, seat 1, hole card,
# then every card drawn in the order of play
table.shoe.stack("8S 9H 6D 8D TH TC 3C 5H 9S")
table.bet(0, 10)
table.bet(1, 10)
table.deal()
print("upcard", table.upcard, "to act", table.to_act, table.legal_actions())
table.act(Action.SPLIT)      # seat 0 splits its eights
while table.to_act is not None and table.to_act[0] == 0:
    table.act(Action.STAND)  # (each split hand receives its second card, then stands)
table.act(Action.STAND)      # seat 1 stands on 19; the dealer plays, the round settles
for seat in table.seats:
    print("seat", seat.index, [(r.outcome.value, r.net) for r in seat.results])
print("house", table.house)
