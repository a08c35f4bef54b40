"""Command-line helpers shared by the scripts."""

from __future__ import annotations

import argparse
from collections.abc import Iterable, Mapping
from dataclasses import fields
from typing import Any

__all__ = ["add_settings_arguments"]


def add_settings_arguments(
    parser: argparse.ArgumentParser,
    settings_cls: Any,
    help: Mapping[str, str],
    skip: Iterable[str] = (),
) -> None:
    """One ``--option`` per field of the settings dataclass ``settings_cls``.

    The flag is the field name with ``_`` written ``-``; the default and the type
    come from the field; booleans get ``--name`` / ``--no-name``; the help line is
    ``help[name]``. Fields named in ``skip`` (e.g. a positional argument) are left
    to the caller.
    """
    skipped = set(skip)
    for f in fields(settings_cls):
        if f.name in skipped:
            continue
        flag = f"--{f.name.replace('_', '-')}"
        if isinstance(f.default, bool):
            parser.add_argument(flag, dest=f.name, default=f.default,
                                action=argparse.BooleanOptionalAction, help=help.get(f.name, ""))
        else:
            parser.add_argument(flag, dest=f.name, default=f.default, type=type(f.default),
                                help=help.get(f.name, ""))
