#!/usr/bin/env bash
# The JAX table's checks on a GPU (issues 22 and 23): one prepared run, under 6 minutes, that
# writes every figure under $OUT (./gpu_out when OUT is unset) as it comes, whatever fails.
#
# Parts, each with its own time limit (a part that fails or times out is recorded in
# $OUT/summary.tsv with its exit status and wall seconds, and the run goes on):
#   device       nvidia-smi, python, jax's backend and devices, gymnasium importable
#   ppo          issue 23's GPU target: 16 seeds of masked PPO, vegas-strip infinite deck, one
#                jit(vmap(train)); median exact regret <= 0.002 with train wall (compilation
#                included) <= 60 s, measured by the script itself and written to
#                $OUT/gpu_train_check.json (the limit here only guards the run); the PPO
#                spreads each seed's tables over every device JAX sees (issue 38), so on a
#                machine of several GPUs the same command uses them all (the device part
#                prints how many)
#   bench        scripts/bench_jax.py, random legal actions, 4,096 ... 4M tables, sutton-barto
#                and vegas-strip 6 decks -> $OUT/bench_random.json
#   bench_chart  the same with basic strategy's chart looked up in the loop, 65,536 ... 4M
#                tables -> $OUT/bench_chart.json
#   mixed        issue 38: every table under its own rule set (rules as data, one compiled
#                program) beside the same tables under vegas-strip alone, 65,536 tables
#                -> $OUT/bench_mixed.json
#   determinism  same key, same trajectory: two GPU runs hashed, and the CPU backend's
#                (scripts/jax_determinism.py) -> $OUT/determinism.json
#   parity       the parity smoke test on the GPU (the JAX table against the numpy env on
#                stacked cards, the fast configurations, penalize included) and the
#                same-key test (pytest)
# Everything printed goes to $OUT/gpu_check.log too (appended as it comes).
#
# It runs from source on a machine with jax, flax, optax, numpy and pytest but without
# gymnasium, tyro or jaxtyping: gymnasium, farama_notifications, tyro (the scripts'
# options) and tyro's own dependencies (docstring_parser, typeguard, typing_extensions),
# jaxtyping (the JAX table's annotations, imported with it) and its wadler_lindig travel as
# plain source in .gpu_site/, and
# the package is assembled in a temporary folder (the wheel's layout: agents/ becomes
# blackjack_env/agents). Before the run, here:
#
#   bash scripts/gpu_check.sh --pack        # copies them into .gpu_site/ (git-ignored)
#
# then the device tool: run(command="bash scripts/gpu_check.sh", carry=[".gpu_site"],
# timeout_s=420). The parts' limits add up to 360 s (plus a few seconds of set-up), so the
# whole run ends inside 6 minutes even when every part runs to its limit. A CPU rehearsal with small sizes (same parts, same files):
#
#   GPU_CHECK_SMALL=1 OUT=/tmp/gpu_sim bash scripts/gpu_check.sh
#
# Limits per part (seconds) can be changed: GPU_CHECK_T_PPO=..., _BENCH, _CHART, _DET,
# _MIXED, _PARITY; sizes: GPU_CHECK_TABLES, GPU_CHECK_CHART_TABLES, GPU_CHECK_MIXED_TABLES;
# PPO settings: GPU_CHECK_PPO_ARGS;
# which parts: GPU_CHECK_PARTS="device ppo" (default: all, in the order above).
set -u
cd "$(dirname "$0")/.."

if [ "${1:-}" = "--pack" ]; then
    py=${PYTHON:-.venv/bin/python}
    rm -rf .gpu_site && mkdir -p .gpu_site
    for mod in gymnasium farama_notifications tyro docstring_parser typeguard typing_extensions \
               jaxtyping wadler_lindig; do
        # a package is copied as its folder, a one-file module (typing_extensions) as the file
        src=$("$py" -c "import $mod, os; f = $mod.__file__; print(os.path.dirname(f) if os.path.basename(f) == '__init__.py' else f)") || exit 1
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
OUT=$(cd "$OUT" && pwd)
LOG="$OUT/gpu_check.log"
SUMMARY="$OUT/summary.tsv"
START=$(date +%s)
printf 'part\tstatus\trc\twall_s\tlimit_s\n' > "$SUMMARY"
: > "$LOG"

# the package in the wheel's layout, from this tree
SRC=$(mktemp -d /tmp/bj_src.XXXXXX)
mkdir -p "$SRC/blackjack_env"
cp -r blackjack_env/. "$SRC/blackjack_env/"
rm -rf "$SRC/blackjack_env/agents"
cp -r agents "$SRC/blackjack_env/agents"
export BLACKJACK_ENV_PURE=1 PYTHONUNBUFFERED=1 XLA_PYTHON_CLIENT_PREALLOCATE=false
export PYTHONPATH="$SRC:$PWD:$PWD/.gpu_site${PYTHONPATH:+:$PYTHONPATH}"
PY=${PYTHON:-python3}

if [ -n "${GPU_CHECK_SMALL:-}" ]; then  # a CPU rehearsal: the same parts, small sizes
    TABLES=${GPU_CHECK_TABLES:-1024 4096}
    CHART_TABLES=${GPU_CHECK_CHART_TABLES:-4096}
    MIXED_TABLES=${GPU_CHECK_MIXED_TABLES:-4096}
    PPO_ARGS=${GPU_CHECK_PPO_ARGS:---seeds 2 --timesteps 65536 --num-envs 256 --num-steps 16 --curve-points 1}
    DET_ARGS="--tables 256 --steps 16"
else
    TABLES=${GPU_CHECK_TABLES:-4096 65536 1048576 4194304}
    CHART_TABLES=${GPU_CHECK_CHART_TABLES:-65536 1048576 4194304}
    MIXED_TABLES=${GPU_CHECK_MIXED_TABLES:-65536}
    PPO_ARGS=${GPU_CHECK_PPO_ARGS:-}
    DET_ARGS="--tables 16384 --steps 64"
fi

PARTS=${GPU_CHECK_PARTS:-device ppo bench bench_chart mixed determinism parity}
say() { echo "$*" | tee -a "$LOG"; }

# part NAME LIMIT COMMAND...: runs COMMAND under its own limit, output appended to the log
part() {
    local name=$1 limit=$2; shift 2
    case " $PARTS " in *" $name "*) ;; *) return 0 ;; esac
    say ""
    say "== $name (limit ${limit}s, $(date -u +%H:%M:%S), $(( $(date +%s) - START ))s into the run)"
    local t0 rc status
    t0=$(date +%s)
    timeout -k 10 "$limit" "$@" 2>&1 | tee -a "$LOG"
    rc=${PIPESTATUS[0]}
    local wall=$(( $(date +%s) - t0 ))
    case $rc in
        0) status=ok ;;
        124|137) status=timeout ;;
        *) status=failed ;;
    esac
    printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$status" "$rc" "$wall" "$limit" >> "$SUMMARY"
    say "-- $name: $status (rc $rc) in ${wall}s"
    return 0
}

device_info() {
    date -u
    nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv 2>&1 || echo "no nvidia-smi"
    "$PY" -c "import jax, sys; print(sys.version.split()[0], 'jax', jax.__version__, jax.default_backend(), jax.devices())"
    "$PY" -c "import jax; print(len(jax.devices()), 'device(s): the JAX PPO spreads its tables over all of them')"
    "$PY" -c "import gymnasium; print('gymnasium', gymnasium.__version__)" \
        || echo "gymnasium missing: run --pack here and carry .gpu_site"
    "$PY" -c "import tyro; print('tyro', tyro.__version__)" \
        || echo "tyro missing (the scripts' options): run --pack here and carry .gpu_site"
    "$PY" -c "import jaxtyping; print('jaxtyping', jaxtyping.__version__)" \
        || echo "jaxtyping missing (imported by blackjack_env.jax): run --pack here and carry .gpu_site"
    "$PY" -c "import flax, optax; print('flax', flax.__version__, 'optax', optax.__version__)" \
        || echo "flax/optax missing: the ppo part cannot run"
    "$PY" -c "import blackjack_env.agents.jax_ppo, blackjack_env.jax; print('blackjack_env from', blackjack_env.__path__)"
}

part device "${GPU_CHECK_T_DEVICE:-20}" bash -c "$(declare -f device_info); PY='$PY' device_info"
# shellcheck disable=SC2086
part ppo "${GPU_CHECK_T_PPO:-100}" "$PY" scripts/gpu_train_check.py --out "$OUT/gpu_train_check.json" $PPO_ARGS
# shellcheck disable=SC2086
part bench "${GPU_CHECK_T_BENCH:-60}" "$PY" scripts/bench_jax.py --tables $TABLES --policy random \
    --no-numpy --repeats 2 --json "$OUT/bench_random.json"
# shellcheck disable=SC2086
part bench_chart "${GPU_CHECK_T_CHART:-40}" "$PY" scripts/bench_jax.py --tables $CHART_TABLES \
    --policy chart --no-numpy --repeats 2 --json "$OUT/bench_chart.json"
# shellcheck disable=SC2086
part mixed "${GPU_CHECK_T_MIXED:-40}" "$PY" scripts/bench_jax.py --tables $MIXED_TABLES \
    --rules vegas-strip --policy random --mixed --no-numpy --repeats 2 --json "$OUT/bench_mixed.json"
# shellcheck disable=SC2086
part determinism "${GPU_CHECK_T_DET:-35}" "$PY" scripts/jax_determinism.py $DET_ARGS \
    --out "$OUT/determinism.json"
part parity "${GPU_CHECK_T_PARITY:-65}" "$PY" -m pytest -p no:cacheprovider -q \
    -o addopts="-m 'not slow'" tests/jax/test_jax_parity.py tests/jax/test_illegal.py tests/jax/test_jax_table.py \
    -k "parity_fast or penalize_parity or same_key"

say ""
say "== summary ($(( $(date +%s) - START ))s in all)"
tee -a "$LOG" < "$SUMMARY"
rm -rf "$SRC"
exit 0
