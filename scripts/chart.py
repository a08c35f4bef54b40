"""Draw an agent's policy as a strategy chart beside the optimal chart, differing cells marked.

Usage::

    python scripts/chart.py runs/main                    # writes runs/main/chart.png
    python scripts/chart.py runs/ppo/model.zip --rules vegas-strip --decks inf --png ppo.png
    python scripts/chart.py basic --rules vegas-strip --json
    python scripts/chart.py --help

Installed, the same command is ``blackjack-chart``. The work is done by
``blackjack_env.commands.chart``.
"""

from _launch import launch

if __name__ == "__main__":
    launch("chart")
