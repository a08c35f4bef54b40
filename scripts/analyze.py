"""Print the house edge and the basic-strategy chart of a rule set (exact analysis).

Usage::

    python scripts/analyze.py --rules vegas-strip
    python scripts/analyze.py --rules vegas-strip --decks 2 --h17 --surrender none
    python scripts/analyze.py --rules gymnasium --decks inf --json out.json --chart chart.png
    python scripts/analyze.py --rules atlantic-city --set max_split_hands=3 --set resplit_aces=true
    python scripts/analyze.py --help                 # every option

The same command is installed as ``blackjack-analyze`` (``--chart`` needs matplotlib:
``pip install -e ".[charts]"``). The work is done by ``blackjack_env.commands.analyze``.
"""

from _launch import launch

if __name__ == "__main__":
    launch("analyze")
