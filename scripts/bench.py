"""The benchmark: its tasks, runs, grades, leaderboard and the whole baseline table.

Usage::

    python scripts/bench.py list
    python scripts/bench.py run vegas-play --algo jax-ppo --seeds 5
    python scripts/bench.py grade v1-play my_policy.py:policy
    python scripts/bench.py report docs/data/bench
    python scripts/bench.py table --out results
    python scripts/bench.py --help                 # every subcommand

The same command is installed as ``blackjack-bench``. The work is done by
``blackjack_env.commands.bench``.
"""

from _launch import launch

if __name__ == "__main__":
    launch("bench")
