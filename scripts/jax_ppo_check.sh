#!/usr/bin/env bash
# The JAX PPO's GPU target (issue 23) alone: the "device" and "ppo" parts of
# scripts/gpu_check.sh (16 seeds of masked PPO on vegas-strip, infinite deck, in one
# jit(vmap(train)) program, every seed's greedy policy graded exactly; figures in
# $OUT/gpu_train_check.json). Target: median exact regret <= 0.002 in <= 60 s wall,
# compilation included. Settings: GPU_CHECK_PPO_ARGS (see scripts/gpu_train_check.py --help).
set -u
GPU_CHECK_PARTS="device ppo" exec bash "$(dirname "$0")/gpu_check.sh"
