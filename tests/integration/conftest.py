"""Integration tests with heavy optional dependencies (Ray RLlib).

The ``ray`` marker is registered here so the group can be selected
(``python -m pytest -m ray tests/integration``) or deselected (``-m "not ray"``)
without a warning; the tests skip themselves when Ray is not installed.
"""

from __future__ import annotations

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "ray: needs ray[rllib] (optional, heavy); skipped when Ray is not installed"
    )
