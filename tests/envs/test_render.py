"""Rendering: ANSI text and RGB frames of scripted tables."""

from __future__ import annotations

import numpy as np
import pytest

from blackjack_env.envs import BlackjackEnv
from blackjack_env.render import frame_size

pytest.importorskip("pygame")

# seat 0 (other): 9C 7D; learner (seat 1): 8S 8H; seat 2: TC 9S; dealer 6H up, TD hole;
# then seat 0 ("dealer" strategy) hits 16: 3C; learner splits: 2D, ...
CARDS = "9C 8S TC 6H 7D 8H 9S TD 3C 2D"


def _env(mode: str) -> BlackjackEnv:
    env = BlackjackEnv(num_seats=3, seat=1, others="dealer", render_mode=mode)
    env.reset(seed=3, options={"cards": CARDS})
    return env


def test_ansi_shows_cards_totals_bets_and_hidden_hole_card() -> None:
    env = _env("ansi")
    text = env.render()
    assert "Dealer:  6♥ [??]" in text and "10♦" not in text  # hole card face down
    assert "Seat 1 (you)" in text
    assert "8♠ 8♥" in text and "= 16" in text
    assert "9♣ 7♦ 3♣" in text and "= 19" in text  # seat 0 hit before the learner
    assert "<- to act" in text and "legal: STAND HIT DOUBLE SPLIT SURRENDER" in text
    env.step(3)  # split
    env.step(0)
    env.step(0)
    text = env.render()
    assert "6♥ 10♦" in text  # revealed at the end
    assert "hand 2:" in text
    assert any(word in text for word in ("WIN", "LOSE", "PUSH", "BUST"))


def test_rgb_frames_have_fixed_shape_and_content() -> None:
    env = _env("rgb_array")
    first = env.render()
    width, height = frame_size(3)
    assert first.shape == (height, width, 3) and first.dtype == np.uint8
    # not blank: felt, white card faces, red suits, blue card back all present
    colours = {tuple(int(v) for v in px) for px in first.reshape(-1, 3)[::7]}
    assert len(colours) > 50
    face = np.array([250, 250, 245], dtype=np.uint8)  # the card-face white
    assert (first == face).all(axis=2).sum() > 3000
    assert ((first[..., 2] > 140) & (first[..., 0] < 80)).sum() > 1000  # blue card back
    assert ((first[..., 0] > 180) & (first[..., 1] < 60)).sum() > 200  # red suits
    env.step(3)
    second = env.render()
    assert second.shape == first.shape
    assert (second != first).any(axis=2).sum() > 1000  # the split hand was drawn


def test_render_without_mode_warns_and_returns_none() -> None:
    env = BlackjackEnv()
    env.reset(seed=0)
    with pytest.warns(UserWarning, match="render_mode"):
        assert env.render() is None


def test_rgb_frames_are_deterministic_and_do_not_touch_the_game_stream() -> None:
    a, b = _env("rgb_array"), BlackjackEnv(num_seats=3, seat=1, others="dealer")
    b.reset(seed=3, options={"cards": CARDS})
    a.render()
    a.render()
    for _ in range(5):
        out_a, out_b = a.step(1), b.step(1)
        assert str(out_a) == str(out_b)
        if out_a[2]:
            break
