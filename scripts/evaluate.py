"""Evaluate an agent: simulated return with a 95% CI, outcome rates, and the exact grade.

Usage::

    python scripts/evaluate.py runs/main                       # a training run (its rules)
    python scripts/evaluate.py basic --rules vegas-strip --hands 200000
    python scripts/evaluate.py runs/ppo/model.zip --rules vegas-strip --decks inf --json
    python scripts/evaluate.py counter --rules vegas-strip --bet-sizes 1,2,4,8 --session 100
    python scripts/evaluate.py --help

Installed, the same command is ``blackjack-evaluate``. The work is done by
``blackjack_env.agents.commands.evaluate``.
"""

import sys

if __name__ == "__main__":
    try:
        from blackjack_env.agents.commands.evaluate import main
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        sys.exit(130)
    except ImportError as err:
        what = "blackjack_env is" if (err.name or "").startswith("blackjack_env") else \
            f"{err.name or 'a package it needs'} is"
        print(f'error: {what} not installed: run pip install -e ".[main]"', file=sys.stderr)
        sys.exit(2)
    sys.exit(main())
