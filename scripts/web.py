"""The table in a browser: ``python scripts/web.py`` (the same as ``blackjack-web``).

See :mod:`blackjack_env.agents.commands.web` for the options (``--help``).
"""

import sys

try:
    from blackjack_env.agents.commands.web import main
except ImportError as err:
    print(f'error: blackjack_env is not installed ({err}): run pip install -e ".[web]" in '
          f"the repository", file=sys.stderr)
    sys.exit(2)
except KeyboardInterrupt:
    print("error: interrupted", file=sys.stderr)
    sys.exit(130)

if __name__ == "__main__":
    sys.exit(main())
