"""Sit at a blackjack table in the terminal, alone or with friends (hot seat).

Usage::

    python scripts/play.py                                   # vegas-strip, you alone
    python scripts/play.py --seats 3 --seat 1 --others basic,counter --hint
    python scripts/play.py --rules how-to-play --names Ann,Bob,Cy   # three people take turns
    python scripts/play.py --rules terminal-21 --people 2           # bet raising, highest hand wins
    python scripts/play.py --help                            # every option

The same command is installed as ``blackjack-play``. The game itself lives in
``blackjack_env.commands.play`` (its docstring lists the answers to type).
"""

from _launch import launch

if __name__ == "__main__":
    launch("play")
