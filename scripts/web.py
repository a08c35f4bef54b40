"""The table in a browser: ``python scripts/web.py`` (the same as ``blackjack-web``).

See :mod:`blackjack_env.commands.web` for the options (``--help``).
"""

from _launch import launch

if __name__ == "__main__":
    launch("web")
