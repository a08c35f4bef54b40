"""Play a few rounds at an engine table with fixed strategies and print what happens.

Usage::

    python scripts/demo.py                       # 3 seats, vegas-strip, 5 rounds
    python scripts/demo.py --rules terminal-21 --seats 4 --rounds 3
    python scripts/demo.py --cards "8S 5H TD 8C 6D 9S"   # stack the first cards
    python scripts/demo.py --help                # every option

The same command is installed as ``blackjack-demo``. The work is done by
``blackjack_env.commands.demo``.
"""

from _launch import launch

if __name__ == "__main__":
    launch("demo")
