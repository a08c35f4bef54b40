"""Draw an agent's policy as a strategy chart beside the optimal chart, differing cells marked.

Usage::

    python scripts/chart.py runs/main                    # writes runs/main/chart.png
    python scripts/chart.py runs/ppo/model.zip --rules vegas-strip --decks inf --png ppo.png
    python scripts/chart.py basic --rules vegas-strip --json
    python scripts/chart.py --help

Installed, the same command is ``blackjack-chart``. The work is done by
``blackjack_env.agents.commands.chart``.
"""

import sys

if __name__ == "__main__":
    try:
        from blackjack_env.agents.commands.chart import main
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        sys.exit(130)
    except ImportError as err:
        what = "blackjack_env is" if (err.name or "").startswith("blackjack_env") else \
            f"{err.name or 'a package it needs'} is"
        print(f'error: {what} not installed: run pip install -e ".[main]"', file=sys.stderr)
        sys.exit(2)
    sys.exit(main())
