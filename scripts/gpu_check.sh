#!/usr/bin/env bash
# The JAX table's checks on a GPU (issue 22): one prepared run, under 6 minutes, that writes
# its figures under $OUT (or ./gpu_out when OUT is unset).
#
#   1. the device, jax's backend;
#   2. parity smoke test on the GPU: the JAX table against the numpy batched env on stacked
#      cards (tests/jax/test_jax_parity.py, the fast configurations), determinism and the
#      card / chip invariants (tests/jax/test_jax_table.py -k "conserved or same_key");
#   3. scripts/bench_jax.py at 4,096 ... 4M tables, sutton-barto and vegas-strip (6 decks).
#   4. the JAX PPO training check of issue 23, if scripts/jax_ppo_check.sh exists.
#
# It runs from source (BLACKJACK_ENV_PURE=1 PYTHONPATH=.) on a machine with jax, numpy and
# pytest but without gymnasium (which blackjack_env imports): gymnasium and
# farama_notifications travel as plain source in .gpu_site/. Before the run, here:
#
#   bash scripts/gpu_check.sh --pack        # copies them into .gpu_site/ (git-ignored)
#
# then the device tool: run(command="bash scripts/gpu_check.sh", carry=[".gpu_site"],
# timeout_s=420). Figures: $OUT/bench_gpu.json, $OUT/gpu_check.log.
set -u
cd "$(dirname "$0")/.."

if [ "${1:-}" = "--pack" ]; then
    py=${PYTHON:-.venv/bin/python}
    rm -rf .gpu_site && mkdir -p .gpu_site
    for mod in gymnasium farama_notifications; do
        src=$("$py" -c "import $mod, os; print(os.path.dirname($mod.__file__))") || exit 1
        cp -r "$src" .gpu_site/
    done
    find .gpu_site -name __pycache__ -prune -exec rm -rf {} +
    exclude=$(git rev-parse --git-path info/exclude)
    grep -qx '/.gpu_site/' "$exclude" 2>/dev/null || echo '/.gpu_site/' >> "$exclude"
    du -sh .gpu_site
    exit 0
fi

OUT=${OUT:-gpu_out}
mkdir -p "$OUT"
export BLACKJACK_ENV_PURE=1 PYTHONUNBUFFERED=1 XLA_PYTHON_CLIENT_PREALLOCATE=false
export PYTHONPATH=".:.gpu_site${PYTHONPATH:+:$PYTHONPATH}"
PY=${PYTHON:-python3}
log="$OUT/gpu_check.log"
{
    echo "== device"; date -u; nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv 2>&1
    "$PY" -c "import jax, sys; print(sys.version.split()[0], 'jax', jax.__version__, jax.default_backend(), jax.devices())"
    "$PY" -c "import gymnasium; print('gymnasium', gymnasium.__version__)" || echo "gymnasium missing: run --pack here and carry .gpu_site"

    echo "== parity and invariants on the GPU"
    timeout 120 "$PY" -m pytest -p no:cacheprovider -q -x -n 0 tests/jax/test_jax_parity.py \
        tests/jax/test_jax_table.py -k "parity_fast or conserved or same_key or gymnax" 2>&1 | tail -15

    echo "== benchmark"
    timeout 180 "$PY" scripts/bench_jax.py --tables ${GPU_CHECK_TABLES:-4096 65536 1048576 4194304} --no-numpy \
        --repeats 2 --json "$OUT/bench_gpu.json" 2>&1

    if [ -f scripts/jax_ppo_check.sh ]; then
        echo "== JAX PPO (issue 23)"
        timeout 50 bash scripts/jax_ppo_check.sh 2>&1 | tail -20
    fi
    date -u
} 2>&1 | tee "$log"
