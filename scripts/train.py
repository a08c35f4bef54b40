"""Train an agent on a blackjack table and save the model, settings, learning curve and summary.

Usage::

    python scripts/train.py                                   # Q-learning on sutton-barto
    python scripts/train.py --algo mc --hands 2000000         # Monte Carlo control
    python scripts/train.py --algo maskable-ppo --rules vegas-strip --decks inf --timesteps 2000000
    python scripts/train.py --algo ppo --rules vegas-strip --seats 3 --seat 1 --others basic
    python scripts/train.py --out runs/x --resume             # continue the newest saved state
    python scripts/train.py --help

Tabular agents need the ``[main]`` extra, stable-baselines3 agents ``[train]``;
installed, the same command is ``blackjack-train``. The work is done by
``blackjack_env.commands.train``.
"""

from _launch import launch

if __name__ == "__main__":
    launch("train")
