"""Tests of the exact analysis (dealer probabilities, solver, policy evaluation, finite shoes)."""
