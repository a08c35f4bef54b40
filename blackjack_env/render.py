"""Pictures of a table: ANSI text and RGB frames (pygame, drawn off screen).

:func:`render_ansi` and :func:`render_rgb` read a
:class:`~blackjack_env.engine.table.Table` and never change it; the dealer's hole
card is shown face down until the table turns it. Nothing here draws from the
game's random stream. The RGB frame has a fixed size for a given number of
seats (so a video of an episode has one frame size); hands are fanned and
shrink when a seat holds many split hands. :class:`Window` shows frames on
screen for ``render_mode="human"``.

pygame is an optional dependency (``pip install blackjack_env[render]``); the
ANSI renderer needs nothing.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import numpy as np

from blackjack_env.engine.cards import Card, Suit
from blackjack_env.engine.hand import Hand
from blackjack_env.engine.table import Outcome, Phase, Seat, Table

__all__ = ["OUTCOME_TEXT", "Window", "frame_size", "hand_text", "render_ansi", "render_rgb"]

#: The short word shown for each hand result (``WIN``, ``PUSH``, ...).
OUTCOME_TEXT = {
    Outcome.WIN: "WIN",
    Outcome.BLACKJACK: "BLACKJACK",
    Outcome.PUSH: "PUSH",
    Outcome.LOSS: "LOSE",
    Outcome.BUST: "BUST",
    Outcome.SURRENDER: "SURRENDER",
    Outcome.EVEN_MONEY: "EVEN MONEY",
}


def _fmt_chips(value: Any) -> str:
    number = float(value)
    return f"{number:g}"


def _hand_total(hand: Hand) -> str:
    if hand.bust:
        return f"{hand.total} bust"
    if hand.is_blackjack:
        return "blackjack"
    return f"{'soft ' if hand.soft else ''}{hand.total}"


def hand_text(hand: Hand) -> str:
    """A hand in one line: its cards and its total, e.g. ``"10♠ 7♣ = 17"``,
    ``"A♥ 6♦ = soft 17"``, ``"10♠ 6♣ 9♦ = 25 bust"``, ``"A♠ K♥ = blackjack"``."""
    return " ".join(c.pretty for c in hand.cards) + f" = {_hand_total(hand)}"


def _visible_dealer(table: Table) -> tuple[list[Card], bool]:
    """The dealer's cards and whether a face-down hole card follows them."""
    cards = table.dealer.cards
    if table.hole_revealed or len(cards) < 2:
        return list(cards), False
    return [cards[0]], True


def _result_text(seat: Seat, hand_i: int, unit: int) -> str:
    for result in seat.results:
        if result.hand == hand_i:
            return f"{OUTCOME_TEXT[result.outcome]} {float(result.net) / unit:+g}"
    return ""


def _to_act(table: Table) -> tuple[int, int] | None:
    who = table.to_act
    if who is None:
        return None
    return who


# ======================================================================= ANSI
def render_ansi(
    table: Table,
    learner: int | None = None,
    unit: int = 1,
    caption: str = "",
    names: Mapping[int, str] | None = None,
) -> str:
    """A text picture of the table: the round and the shoe, the dealer, every seat's
    hands with totals, bets and outcomes, then ``caption``.

    This is the project's one text renderer of a table (the env's ``"ansi"`` mode, the
    terminal game and the multi-agent env draw with it). ``learner`` marks the
    learner's seat ``(you)``; ``names`` labels seats (e.g. ``{0: "Ann", 2: "basic"}``);
    amounts in results are in units of ``unit`` chips. The hand to act is marked
    ``<- to act``; the hole card stays face down until the table turns it.
    """
    shoe = table.shoe
    head = f"Blackjack - round {table.round} - " if table.round else "Blackjack - "
    lines = [head + table.rules.summary()]
    if shoe.decks is not None:
        reshuffled = ", reshuffled before this round" if table.reshuffled else ""
        lines.append(f"Shoe:    {shoe.remaining} of {shoe.total_cards} cards left{reshuffled}")
    cards, hidden = _visible_dealer(table)
    dealer_text = " ".join(c.pretty for c in cards) + (" [??]" if hidden else "")
    if not cards:
        dealer_text = "(no cards)"
    elif hidden:
        up = table.rules.card_values[cards[0].rank - 1]
        dealer_text += f"   showing {'A' if up == 1 else up}"
    else:
        dealer_text += f"   = {_hand_total(table.dealer)}"
    lines.append(f"Dealer:  {dealer_text}")
    who = _to_act(table)
    if table.phase is Phase.INSURANCE:
        lines.append("         (insurance / early surrender before the dealer peeks)")
    for seat in table.seats:
        name = f"Seat {seat.index}"
        if names and seat.index in names:
            name += f" {names[seat.index]}"
        if seat.index == learner:
            name += " (you)"
        bankroll = "unlimited" if seat.bankroll is None else _fmt_chips(seat.bankroll)
        head = f"{name}: bankroll {bankroll}"
        if seat.insurance:
            head += f", insurance {_fmt_chips(seat.insurance)}"
        if not seat.hands:
            waiting = "betting..." if table.phase is Phase.BETTING else "sitting out"
            head += f", bet {seat.bet}" if seat.bet else f", {waiting}"
            lines.append(head)
            continue
        lines.append(head)
        for i, hand in enumerate(seat.hands):
            marker = " <- to act" if who == (seat.index, i) else ""
            flags = " doubled" if hand.doubled else ""
            flags += " surrendered" if hand.surrendered else ""
            result = _result_text(seat, i, unit)
            text = " ".join(c.pretty for c in hand.cards)
            lines.append(
                f"   hand {i + 1}: {text:<24} = {_hand_total(hand):<10} bet {_fmt_chips(hand.bet)}"
                f"{flags}{'  ' + result if result else ''}{marker}"
            )
    if caption:
        lines.append(caption)
    return "\n".join(lines) + "\n"


# ======================================================================== RGB
_FELT = (16, 102, 56)
_FELT_DARK = (10, 74, 40)
_GOLD = (236, 200, 90)
_WHITE = (250, 250, 245)
_BLACK = (20, 20, 20)
_RED = (200, 20, 30)
_BACK = (30, 60, 150)
_HEIGHT = 480
_SEAT_W = 180
_CARD_W, _CARD_H = 54, 78


def frame_size(seats: int) -> tuple[int, int]:
    """``(width, height)`` of the frames for a table with ``seats`` seats."""
    return max(820, _SEAT_W * seats + 40), _HEIGHT


def _pygame() -> Any:
    try:
        os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
        # deferred: loads pygame (the optional [render] extra)
        import pygame
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise ImportError(
            "rgb_array / human rendering needs pygame: pip install 'blackjack_env[render]'"
        ) from exc
    if not pygame.font.get_init():
        pygame.font.init()
    return pygame


_FONTS: dict[int, Any] = {}


def _font(size: int) -> Any:
    font = _FONTS.get(size)
    if font is None:
        pygame = _pygame()
        font = pygame.font.Font(None, size)  # pygame's bundled font: no system font needed
        _FONTS[size] = font
    return font


def _text(
    surface: Any, text: str, pos: tuple[int, int], size: int, color: Any, anchor: str = "topleft"
) -> None:
    image = _font(size).render(text, True, color)
    rect = image.get_rect(**{anchor: pos})
    surface.blit(image, rect)


def _suit(surface: Any, suit: Suit, cx: float, cy: float, r: float) -> None:
    """Draw a suit symbol centred at (cx, cy) with radius about ``r`` (shapes, no font)."""
    pygame = _pygame()
    color = _RED if suit.red else _BLACK
    draw = pygame.draw
    if suit is Suit.DIAMONDS:
        draw.polygon(
            surface, color, [(cx, cy - r), (cx + 0.75 * r, cy), (cx, cy + r), (cx - 0.75 * r, cy)]
        )
    elif suit is Suit.HEARTS:
        k = r * 0.5
        draw.circle(surface, color, (cx - k, cy - 0.35 * r), k)
        draw.circle(surface, color, (cx + k, cy - 0.35 * r), k)
        draw.polygon(
            surface, color, [(cx - 2 * k, cy - 0.25 * r), (cx + 2 * k, cy - 0.25 * r), (cx, cy + r)]
        )
    elif suit is Suit.SPADES:
        k = r * 0.5
        draw.circle(surface, color, (cx - k, cy + 0.2 * r), k)
        draw.circle(surface, color, (cx + k, cy + 0.2 * r), k)
        draw.polygon(
            surface, color, [(cx - 2 * k, cy + 0.1 * r), (cx + 2 * k, cy + 0.1 * r), (cx, cy - r)]
        )
        draw.polygon(
            surface, color, [(cx, cy + 0.3 * r), (cx - 0.4 * r, cy + r), (cx + 0.4 * r, cy + r)]
        )
    else:  # clubs
        k = r * 0.42
        draw.circle(surface, color, (cx, cy - 0.45 * r), k)
        draw.circle(surface, color, (cx - 0.5 * r, cy + 0.15 * r), k)
        draw.circle(surface, color, (cx + 0.5 * r, cy + 0.15 * r), k)
        draw.polygon(surface, color, [(cx, cy), (cx - 0.35 * r, cy + r), (cx + 0.35 * r, cy + r)])


def _card(surface: Any, card: Card | None, x: float, y: float, scale: float) -> None:
    """A card face (or back, for None) with its top-left corner at (x, y)."""
    pygame = _pygame()
    w, h = round(_CARD_W * scale), round(_CARD_H * scale)
    rect = pygame.Rect(round(x), round(y), w, h)
    radius = max(3, round(6 * scale))
    if card is None:
        pygame.draw.rect(surface, _WHITE, rect, border_radius=radius)
        inner = rect.inflate(-round(8 * scale), -round(8 * scale))
        pygame.draw.rect(surface, _BACK, inner, border_radius=radius)
        step = max(5, round(9 * scale))
        for offset in range(-inner.h, inner.w, step):
            start = (inner.x + max(offset, 0), inner.y + max(-offset, 0))
            length = min(inner.w - max(offset, 0), inner.h - max(-offset, 0))
            if length > 0:
                end = (start[0] + length - 1, start[1] + length - 1)
                pygame.draw.line(surface, (70, 100, 190), start, end, 1)
        return
    pygame.draw.rect(surface, _WHITE, rect, border_radius=radius)
    pygame.draw.rect(surface, (120, 120, 120), rect, width=1, border_radius=radius)
    color = _RED if card.suit.red else _BLACK
    rank = "10" if card.rank == 10 else card.rank.letter
    size = max(12, round(24 * scale))
    _text(surface, rank, (rect.x + round(4 * scale), rect.y + round(3 * scale)), size, color)
    _suit(surface, card.suit, rect.x + 11 * scale, rect.y + 29 * scale, 6 * scale)
    _suit(surface, card.suit, rect.centerx + 4 * scale, rect.centery + 10 * scale, 15 * scale)


def _fan(
    surface: Any, cards: list[Card | None], x: float, y: float, scale: float, offset: float
) -> None:
    for i, card in enumerate(cards):
        _card(surface, card, x + i * offset, y + i * 2 * scale, scale)


def render_rgb(
    table: Table, learner: int | None = None, unit: int = 1, caption: str = ""
) -> np.ndarray:
    """An RGB picture of the table, ``uint8`` of shape ``(height, width, 3)``
    (see :func:`frame_size`)."""
    pygame = _pygame()
    width, height = frame_size(len(table.seats))
    surface = pygame.Surface((width, height))
    surface.fill(_FELT)
    pygame.draw.ellipse(
        surface, _FELT_DARK, pygame.Rect(-width // 4, height // 5, width * 3 // 2, height * 2), 3
    )
    _text(surface, "BLACKJACK", (12, 10), 22, _WHITE)
    _text(surface, table.rules.summary(), (width - 12, 10), 18, (210, 230, 210), "topright")

    # dealer
    cards, hidden = _visible_dealer(table)
    shown: list[Card | None] = list(cards) + ([None] if hidden else [])
    dx = width / 2 - (_CARD_W + 30 * max(0, len(shown) - 1)) / 2
    _text(surface, "DEALER", (width // 2, 36), 24, _GOLD, "midtop")
    _fan(surface, shown, dx, 60, 1.0, 30)
    if cards:
        if hidden:
            up = table.rules.card_values[cards[0].rank - 1]
            label = f"showing {'A' if up == 1 else up}"
        else:
            label = _hand_total(table.dealer)
        _text(surface, label, (width // 2, 146), 22, _WHITE, "midtop")
    if table.phase is Phase.INSURANCE:
        _text(surface, "Insurance?", (width // 2, 168), 22, _GOLD, "midtop")

    # seats
    n = len(table.seats)
    seat_w = (width - 40) / n
    who = _to_act(table)
    top = 205
    for seat in table.seats:
        sx = 20 + seat.index * seat_w
        is_learner = seat.index == learner
        box = pygame.Rect(round(sx + 4), top, round(seat_w - 8), height - top - 40)
        pygame.draw.rect(
            surface, _GOLD if is_learner else _FELT_DARK, box, width=2, border_radius=10
        )
        name = ("YOU - " if is_learner else "") + f"seat {seat.index}"  # as in the API and ansi
        _text(surface, name, (box.centerx, top + 6), 22, _GOLD if is_learner else _WHITE, "midtop")
        bankroll = "credit" if seat.bankroll is None else _fmt_chips(seat.bankroll)
        _text(
            surface, f"bankroll {bankroll}", (box.centerx, top + 26), 18, (220, 235, 220), "midtop"
        )
        hands = seat.hands
        if not hands:
            label = f"bet {seat.bet}" if seat.bet else "betting..."
            _chip(surface, box.centerx, top + 110, label)
            continue
        k = len(hands)
        slot = (box.w - 8) / k
        base_need = _CARD_W + 22 * 2  # room for three fanned cards at full size
        scale = min(1.0, slot / base_need)
        for i, hand in enumerate(hands):
            hx = box.x + 4 + i * slot
            offset = min(
                22 * scale, max(6.0, (slot - _CARD_W * scale - 4) / max(1, len(hand.cards) - 1))
            )
            fan_w = _CARD_W * scale + offset * (len(hand.cards) - 1)
            cx = hx + slot / 2
            if who == (seat.index, i):
                pygame.draw.rect(
                    surface,
                    _GOLD,
                    pygame.Rect(
                        round(cx - fan_w / 2 - 4),
                        top + 50,
                        round(fan_w + 8),
                        round(_CARD_H * scale + 8 + 2 * len(hand.cards) * scale),
                    ),
                    width=3,
                    border_radius=6,
                )
            _fan(surface, list(hand.cards), cx - fan_w / 2, top + 54, scale, offset)
            ty = top + 62 + _CARD_H * scale + 2 * len(hand.cards) * scale
            _text(
                surface,
                _hand_total(hand),
                (round(cx), round(ty)),
                max(14, round(22 * scale)),
                _WHITE,
                "midtop",
            )
            bet = f"{_fmt_chips(hand.bet)}" + (" x2" if hand.doubled else "")
            _chip(surface, round(cx), round(ty + 36), bet, scale)
            result = _result_text(seat, i, unit)
            if result:
                good = result.startswith(("WIN", "BLACKJACK", "EVEN"))
                color = (
                    (120, 255, 140)
                    if good
                    else (255, 210, 120)
                    if result.startswith("PUSH")
                    else (255, 130, 120)
                )
                _text(
                    surface,
                    result,
                    (round(cx), round(ty + 56)),
                    max(13, round(20 * scale)),
                    color,
                    "midtop",
                )
        if seat.insurance:
            _text(
                surface,
                f"insured {_fmt_chips(seat.insurance)}",
                (box.centerx, box.bottom - 20),
                17,
                _GOLD,
                "midtop",
            )
    if caption:
        _text(surface, caption, (12, height - 28), 20, _WHITE)
    frame = pygame.surfarray.array3d(surface)  # (width, height, 3)
    return np.ascontiguousarray(frame.transpose(1, 0, 2))


def _chip(surface: Any, cx: int, cy: int, label: str, scale: float = 1.0) -> None:
    pygame = _pygame()
    r = max(9, round(14 * scale))
    pygame.draw.circle(surface, (180, 30, 40), (cx - r - 4, cy), r)
    pygame.draw.circle(surface, _WHITE, (cx - r - 4, cy), r, 2)
    pygame.draw.circle(surface, _WHITE, (cx - r - 4, cy), max(3, r // 3))
    _text(surface, label, (cx + 2, cy), max(14, round(20 * scale)), _WHITE, "midleft")


class Window:
    """An on-screen window showing frames (``render_mode="human"``)."""

    def __init__(self, width: int, height: int, fps: int) -> None:
        pygame = _pygame()
        try:
            pygame.display.init()
            self._screen = pygame.display.set_mode((width, height))
        except pygame.error as exc:
            raise RuntimeError(
                f"render_mode='human' needs a display ({exc}); use render_mode='rgb_array' "
                f"or 'ansi' on a machine without one"
            ) from exc
        pygame.display.set_caption("blackjack_env")
        self._clock = pygame.time.Clock()
        self._fps = fps

    def show(self, frame: np.ndarray) -> None:
        pygame = _pygame()
        pygame.event.pump()
        surface = pygame.surfarray.make_surface(frame.transpose(1, 0, 2))
        self._screen.blit(surface, (0, 0))
        pygame.display.flip()
        self._clock.tick(self._fps)

    def close(self) -> None:
        pygame = _pygame()
        pygame.display.quit()
