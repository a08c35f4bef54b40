"""The table in a browser: ``python scripts/web.py`` (the same as ``blackjack-web``).

See :mod:`blackjack_env.agents.commands.web` for the options (``--help``).
"""

from __future__ import annotations

import sys

from blackjack_env.agents.commands.web import main

if __name__ == "__main__":
    sys.exit(main())
