"""Tests of the pure game engine (cards, shoe, hands, rules, table, strategies)."""
