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
``blackjack_env.agents.commands.train``.
"""

import sys

if __name__ == "__main__":
    try:
        from blackjack_env.agents.commands.train import main
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        sys.exit(130)
    except ImportError as err:
        what = "blackjack_env is" if (err.name or "").startswith("blackjack_env") else \
            f"{err.name or 'a package it needs'} is"
        print(f'error: {what} not installed: run pip install -e ".[main]"', file=sys.stderr)
        sys.exit(2)
    sys.exit(main())
