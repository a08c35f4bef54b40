"""The main job: train the default tabular agent, grade it exactly against the optimum, chart it.

Usage::

    python scripts/main.py                    # Q-learning, sutton-barto, 1,000,000 hands (~1-2 min)
    python scripts/main.py --hands 200000 --out runs/quick
    python scripts/main.py --help

Needs only the ``[main]`` extra (``pip install -e ".[main]"``); installed, the same
command is ``blackjack-main``. The work is done by ``blackjack_env.agents.commands.main``.
"""

import sys

if __name__ == "__main__":
    try:
        from blackjack_env.agents.commands.main import main
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        sys.exit(130)
    except ImportError as err:
        what = "blackjack_env is" if (err.name or "").startswith("blackjack_env") else \
            f"{err.name or 'a package it needs'} is"
        print(f'error: {what} not installed: run pip install -e ".[main]"', file=sys.stderr)
        sys.exit(2)
    sys.exit(main())
