"""The table's parts live in their own modules and stay importable from where they were."""

from __future__ import annotations

import blackjack_env.engine as engine
from blackjack_env.engine import errors, events, play, seat, table


def test_every_name_of_table_is_the_one_defined_in_its_module() -> None:
    homes = {
        "Action": play, "Outcome": play, "double_allowed": play, "play_actions": play,
        "split_allowed": play, "Chips": events, "Event": events, "EventKind": events,
        "HandResult": events, "Phase": events, "IllegalActionError": errors,
        "PhaseError": errors, "TableError": errors, "Seat": seat, "Table": table,
    }
    assert set(table.__all__) == set(homes)
    for name, module in homes.items():
        assert getattr(table, name) is getattr(module, name), name
        if name in engine.__all__:
            assert getattr(engine, name) is getattr(module, name), name


def test_the_errors_are_value_errors() -> None:
    assert issubclass(errors.PhaseError, errors.TableError)
    assert issubclass(errors.IllegalActionError, errors.TableError)
    assert issubclass(errors.TableError, ValueError)
