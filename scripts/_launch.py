"""The start of every command script in this folder, before ``blackjack_env`` is known
to be importable (so it cannot live in the package).

``python scripts/NAME.py ...`` runs ``blackjack_env.agents.commands.NAME.main``. Before
the install, or with a package the command needs missing, it says in one line what to
install (status 2); Ctrl-C during the imports is one line too (status 130). Once the
command runs, its own errors are its ``run_command``'s.
"""

from __future__ import annotations

import sys
from typing import NoReturn

#: The extra each command's packages come from (``pip install -e ".[EXTRA]"``; "" is
#: the core install).
EXTRA = {"analyze": "", "chart": "main", "counter": "", "demo": "", "evaluate": "main",
         "main": "main", "play": "", "train": "main", "web": "web"}


def launch(name: str) -> NoReturn:
    """Import command ``name`` and exit with its status."""
    try:
        # the import statement's own hook, as `from ... import main` would call it
        command = __import__(f"blackjack_env.agents.commands.{name}", fromlist=["main"])
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        sys.exit(130)
    except ImportError as err:
        what = "blackjack_env is" if (err.name or "").startswith("blackjack_env") else \
            f"{err.name or 'a package it needs'} is"
        target = f'".[{EXTRA[name]}]"' if EXTRA[name] else "."
        print(f"error: {what} not installed: run pip install -e {target}", file=sys.stderr)
        sys.exit(2)
    sys.exit(command.main())
