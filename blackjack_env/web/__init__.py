"""The table in a browser: a local web server that holds engine tables and a page that
draws them (``pip install -e ".[web]"``, then ``blackjack-web`` or ``python scripts/web.py``).

* :func:`create_app` - the Starlette app (one :class:`Game` per browser session).
* :class:`Game` - one session's table, its players, values and frames; no rule of its own.
* :func:`action_values` - the one place the page's values come from.
"""

from __future__ import annotations

from blackjack_env.web.game import BOT_NAMES, Game, WebError
from blackjack_env.web.values import Values, action_values

__all__ = ["BOT_NAMES", "Game", "Values", "WebError", "action_values", "create_app"]


def __getattr__(name: str):  # the server needs starlette (the [web] extra); the rest does not
    if name == "create_app":
        # deferred: loads starlette (the optional [web] extra)
        from blackjack_env.web.server import create_app

        return create_app
    raise AttributeError(name)
