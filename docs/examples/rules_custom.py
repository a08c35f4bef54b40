"""Presets, overrides, your own Rules, and what a bad value says."""

from blackjack_env import Rules, list_presets, preset
from blackjack_env.engine import PRESETS

for name, summary in list_presets()[:3]:
    print(f"{name:>14}: {summary}")
print(PRESETS["terminal-21"].details[:120], "...")  # how the source was read

strip_h17 = preset("vegas-strip", dealer_hits_soft_17=True, decks=2)
mine = Rules(decks=None, blackjack_payout="6:5", surrender="late", double="10-11")
print(strip_h17.decks, mine.blackjack_payout, mine.to_dict()["double"])

try:
    Rules(decks=9)
except ValueError as error:
    print("error:", error)
