#!/usr/bin/env bash
# The JAX PPO's GPU target (issue 23), called by scripts/gpu_check.sh (issue 22) when present:
# 16 seeds of masked PPO on vegas-strip (infinite deck) in one jit(vmap(train)) program,
# every seed's greedy policy graded exactly; figures to $OUT/gpu_train_check.json (or
# ./gpu_out). Target: median exact regret <= 0.002 in <= 60 s wall, compilation included.
#
# Needs jax, flax and optax importable on the device machine (gpu_check.sh packs only
# gymnasium into .gpu_site/; flax and optax, with their pure-Python dependencies, must be
# there too). Extra arguments go to scripts/gpu_train_check.py (see its --help).
set -u
cd "$(dirname "$0")/.."
out=${OUT:-gpu_out}
mkdir -p "$out"
export BLACKJACK_ENV_PURE=1
export PYTHONPATH=".:.gpu_site${PYTHONPATH:+:$PYTHONPATH}"
py=${PYTHON:-python}
if ! "$py" -c "import flax.linen, optax" 2>/dev/null; then
    echo "jax_ppo_check: flax and optax are not importable here; the JAX PPO cannot run"
    exit 3
fi
"$py" scripts/gpu_train_check.py --out "$out/gpu_train_check.json" "$@"
