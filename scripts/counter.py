"""The perfect counter's table: the exact edge of every round of dealt shoes, and the
Hi-Lo ramp, flat basic strategy and flat CD play graded against the ceiling of a spread.

Usage::

    python scripts/counter.py --rules vegas-strip --rounds 100000 --penetration 0.75
    python scripts/counter.py --rounds 200 --store /tmp/c.jsonl --json out.json
    python scripts/counter.py --help                 # every option

The same command is installed as ``blackjack-counter``; it resumes from its ``--store``
after Ctrl-C. The work is done by ``blackjack_env.commands.counter``.
"""

from _launch import launch

if __name__ == "__main__":
    launch("counter")
