"""The main job: train the default tabular agent, grade it exactly against the optimum, chart it.

Usage::

    python scripts/main.py                    # Q-learning, sutton-barto, 1,000,000 hands (~1-2 min)
    python scripts/main.py --hands 200000 --out runs/quick
    python scripts/main.py --help

Needs only the ``[main]`` extra (``pip install -e ".[main]"``); installed, the same
command is ``blackjack-main``. The work is done by ``blackjack_env.commands.main``.
"""

from _launch import launch

if __name__ == "__main__":
    launch("main")
