"""The start of every command script in this folder, before ``blackjack_env`` is known
to be importable (so it cannot live in the package).

``python scripts/NAME.py ...`` runs ``blackjack_env.commands.NAME.main``
(:func:`launch`), or a package module's ``main`` (:func:`launch_module`: the scripts
whose work lives in the package, e.g. ``fingerprint_envs.py``). Before the install, or
with a package the command needs missing, it says in one line what to install (status
2); Ctrl-C during the imports is one line too (status 130). Once the command runs, its
own errors are its ``run_command``'s. The benchmark scripts, which import their own
work, put their imports in :func:`importing` for the same two lines.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, NoReturn

#: The extra each command's packages come from (``pip install -e ".[EXTRA]"``; "" is
#: the core install).
EXTRA = {"analyze": "", "bench": "bench", "chart": "main", "counter": "", "demo": "",
         "evaluate": "main", "main": "main", "play": "", "train": "main", "web": "web"}


def launch(name: str) -> NoReturn:
    """Import command ``name`` and exit with its status."""
    command = _import(f"blackjack_env.commands.{name}", EXTRA[name])
    sys.exit(command.main())


def launch_module(module: str, prog: str, extra: str = "") -> NoReturn:
    """Import the package module ``module`` (whose optional packages come with the extra
    ``extra``) and exit with the status of its ``main(prog=prog)``."""
    sys.exit(_import(module, extra).main(prog=prog))


@contextmanager
def importing(extra: str = "") -> Iterator[None]:
    """Around a script's imports (the benchmark scripts import their own work): a
    package missing is one line saying what to install (``pip install -e ".[extra]"``;
    status 2), Ctrl-C while they load is ``error: interrupted`` (status 130)."""
    try:
        yield
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        sys.exit(130)
    except ImportError as err:
        what = "blackjack_env is" if (err.name or "").startswith("blackjack_env") else \
            f"{err.name or 'a package it needs'} is"
        target = f'".[{extra}]"' if extra else "."
        print(f"error: {what} not installed: run pip install -e {target}", file=sys.stderr)
        sys.exit(2)


def _import(module: str, extra: str) -> Any:
    with importing(extra):
        # the import statement's own hook, as `from ... import main` would call it
        return __import__(module, fromlist=["main"])
