"""JAX PPO on a 6-deck shoe with the count in its observation and a bet to choose: what it learns.

Trains ``--seeds`` agents with a bet step (1-8 spread by default) on the JAX table, then
prints and writes (``--out``) their bets by true count, their simulated return beside
basic strategy flat and with the textbook Hi-Lo ramp, and their play at the classic
Hi-Lo index decisions. Usage::

    python scripts/jax_ppo_counting.py --seeds 4 --timesteps 8000000 --out runs/count.json
    python scripts/jax_ppo_counting.py --help        # every option

Needs the ``[jax]`` extra. The work is done by
:mod:`blackjack_env.agents.jax_ppo_counting` (also ``python -m
blackjack_env.agents.jax_ppo_counting``), whose docstring says what each figure is.
"""

from _launch import launch_module

if __name__ == "__main__":
    launch_module("blackjack_env.agents.jax_ppo_counting", "jax_ppo_counting.py", extra="jax")
