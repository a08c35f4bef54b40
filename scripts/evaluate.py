"""Evaluate an agent: simulated return with a 95% CI, outcome rates, and the exact grade.

Usage::

    python scripts/evaluate.py runs/main                       # a training run (its rules)
    python scripts/evaluate.py basic --rules vegas-strip --hands 200000
    python scripts/evaluate.py runs/ppo/model.zip --rules vegas-strip --decks inf --json
    python scripts/evaluate.py counter --rules vegas-strip --bet-sizes 1,2,4,8 --session 100
    python scripts/evaluate.py --help

Installed, the same command is ``blackjack-evaluate``. The work is done by
``blackjack_env.commands.evaluate``.
"""

from _launch import launch

if __name__ == "__main__":
    launch("evaluate")
