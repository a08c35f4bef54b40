"""The JAX PPO spreads its tables over every device (issue 38 item 7), tested on the CPU
with two forced host devices (``--xla_force_host_platform_device_count=2``, which must be
set before JAX starts: each run is its own process). The run on two devices holds half
of each seed's tables on each, and learns what the run on one device learns (the same
rounds; the parameters to float rounding, the gradient's sums taken in another order)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("jax")
pytest.importorskip("flax")

RUN = """
import json, sys
import jax, numpy as np
from blackjack_env.agents.jax_ppo import JaxPPOConfig, make_train
config = JaxPPOConfig(rules="sutton-barto", seeds=2, total_timesteps=64 * 16 * 2,
                      num_envs=int(sys.argv[1]), num_steps=16, curve_points=2, hidden=(16,))
try:
    train = make_train(config)
except ValueError as err:
    print(json.dumps({"error": str(err)}))
    raise SystemExit(0)
out = jax.jit(jax.vmap(train))(jax.random.split(jax.random.PRNGKey(0), 2))
state = out["env_state"]
print(json.dumps({
    "devices": len(jax.devices()),
    "state_devices": len(state.pos.sharding.device_set),
    "spec": str(getattr(state.pos.sharding, "spec", "")),
    "actor": [np.asarray(x).ravel().tolist() for x in jax.tree_util.tree_leaves(out["actor"])],
    "returns": np.asarray(out["metrics"]["episode_return"]).ravel().tolist(),
}))
"""


def _run(devices: int, num_envs: int = 64) -> dict[str, object]:
    env = dict(os.environ)
    flags = env.get("XLA_FLAGS", "")
    if devices > 1:
        flags += f" --xla_force_host_platform_device_count={devices}"
    env["XLA_FLAGS"] = flags
    r = subprocess.run([sys.executable, "-c", RUN, str(num_envs)], capture_output=True,
                       text=True, timeout=600, env=env, cwd=Path(__file__).parent)
    assert r.returncode == 0, r.stderr
    result: dict[str, object] = json.loads(r.stdout.strip().splitlines()[-1])
    return result


def test_the_tables_are_spread_over_every_device() -> None:
    one, two = _run(1), _run(2)
    assert one["devices"] == one["state_devices"] == 1
    assert two["devices"] == two["state_devices"] == 2 and "tables" in str(two["spec"])
    np.testing.assert_allclose(two["returns"], one["returns"], rtol=1e-6, atol=1e-6)
    for a, b in zip(two["actor"], one["actor"], strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_tables_that_do_not_split_over_the_devices_are_refused() -> None:
    result = _run(2, num_envs=63)
    assert "num_envs=63" in str(result["error"]) and "multiple of 2" in str(result["error"])
