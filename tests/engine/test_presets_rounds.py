"""Each seed preset's and each Gymnasium preset's distinguishing rule, as scripted rounds,
plus a card-for-card comparison of the Gymnasium presets with Gymnasium's Blackjack-v1.

Deal order: first card to each betting seat, dealer upcard, second card to each seat,
dealer hole card, then every further card in draw order.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from blackjack_env.engine import Action, EventKind, Outcome, Phase, Table, preset

from .helpers import outcomes, play, scripted

S, H, D, P, R = Action.STAND, Action.HIT, Action.DOUBLE, Action.SPLIT, Action.SURRENDER


# ------------------------------------------------------------- how-to-play (002)
def test_how_to_play_ties_lose() -> None:
    # TS 8C (18) vs dealer 9D + 9H (18): "if it does not beat, the player loses": -10
    table = scripted("how-to-play", "TS 9D 8C 9H", 10)
    table.act(S)
    assert outcomes(table) == [(Outcome.LOSS, -10)]


@pytest.mark.parametrize(("bet", "net"), [(10, 15), (5, Fraction(15, 2))])
def test_how_to_play_blackjack_paid_at_once_even_against_dealer_blackjack(
    bet: int, net: Fraction | int
) -> None:
    # AS KC vs dealer TD + AH: the natural "instantly exits the round and wins 1.5x":
    # 3:2 on the bet, paid at the deal, before the dealer's blackjack is seen
    table = scripted("how-to-play", "AS TD KC AH", bet, bankroll=100)
    assert table.phase is Phase.SETTLED
    assert outcomes(table) == [(Outcome.BLACKJACK, net)]
    assert table.seats[0].bankroll == 100 + net
    kinds = [e.kind for e in table.events]
    assert kinds.index(EventKind.SETTLE) < kinds.index(EventKind.REVEAL)


def test_how_to_play_two_seats_natural_paid_other_seat_loses_to_dealer_blackjack() -> None:
    # seat 0 AS KC (natural, +15 at the deal); seat 1 TS 9S (19) plays on (no peek) and
    # loses to the dealer's TD + AH (-10)
    table = scripted("how-to-play", "AS TS TD KC 9S AH", {0: 10, 1: 10}, seats=2)
    assert outcomes(table, 0) == [(Outcome.BLACKJACK, 15)]
    assert table.to_act == (1, 0)
    assert table.legal_actions() == (S, H)  # hit or stand only
    table.act(S)
    assert outcomes(table, 1) == [(Outcome.LOSS, -10)]


def test_how_to_play_bust_loses_even_if_dealer_busts() -> None:
    # seat 0 TS 6C hits TH -> 26 (bust); seat 1 TD 7D = 17 stands; dealer 7C + 5H = 12
    # draws TC -> 22. Seat 0 -10, seat 1 +10.
    table = scripted("how-to-play", "TS TD 7C 6C 7D 5H TH TC", {0: 10, 1: 10}, seats=2)
    play(table, H, S)
    assert outcomes(table, 0) == [(Outcome.BUST, -10)]
    assert outcomes(table, 1) == [(Outcome.WIN, 10)]


def test_how_to_play_one_to_five_players_and_hit_stand_only() -> None:
    assert preset("how-to-play", seats=5).seats == 5
    with pytest.raises(ValueError, match="1 to 5"):
        preset("how-to-play", seats=6)
    table = scripted("how-to-play", "5S 6D 5C TD", 10)  # 10 vs 16: no double, split
    assert table.legal_actions() == (S, H)


# ------------------------------------------------------------- terminal-21 (004)
@pytest.mark.parametrize(("seats", "cards"), [(1, 52), (3, 52), (4, 104), (6, 104), (7, 156)])
def test_terminal_21_shoe_scales_with_players(seats: int, cards: int) -> None:
    # "Each deck of cards is for max 3 players": ceil(seats / 3) decks
    table = Table(preset("terminal-21", seats=seats), seed=0)
    assert table.shoe.total_cards == cards == table.shoe.remaining


def test_terminal_21_face_values() -> None:
    # KS QD = 3 + 2 = 5; hits JC (6), TC (16), 3C (19); stands. Dealer 7D + TD = 17.
    table = scripted("terminal-21", "KS 7D QD TD JC TC 3C", 10)
    hand = table.seats[0].hands[0]
    totals = [hand.total]
    for _ in range(3):
        table.act(H)
        totals.append(hand.total)
    assert totals == [5, 6, 16, 19]
    table.act(S)
    assert outcomes(table) == [(Outcome.WIN, 10)]  # 19 > 17, 1:1


def test_terminal_21_ace_king_is_not_a_natural() -> None:
    # AS KC = 1 + 3 -> soft 14: play goes on
    table = scripted("terminal-21", "AS 7D KC TD", 10)
    assert not table.seats[0].hands[0].is_blackjack
    assert table.seats[0].hands[0].total == 14
    assert table.to_act == (0, 0)


def test_terminal_21_natural_is_an_ordinary_21() -> None:
    # AS TC (21) vs dealer 7D + TD (17): a natural, but paid 1:1 (+10, not 3:2)
    table = scripted("terminal-21", "AS 7D TC TD", 10)
    assert table.phase is Phase.SETTLED
    assert outcomes(table) == [(Outcome.BLACKJACK, 10)]
    # vs dealer 6D + 5H + TH = 21 (three cards): the dealer wins the tie (-10)
    table = scripted("terminal-21", "AS 6D TC 5H TH", 10)
    assert outcomes(table) == [(Outcome.LOSS, -10)]


def test_terminal_21_dealer_wins_ties() -> None:
    # TS 8C (18) vs dealer 9D + 9H (18): -10
    table = scripted("terminal-21", "TS 9D 8C 9H", 10)
    table.act(S)
    assert outcomes(table) == [(Outcome.LOSS, -10)]


def test_terminal_21_fresh_deck_each_round() -> None:
    table = Table(preset("terminal-21"), seed=0)
    for _ in range(3):
        table.bet(0, 1)
        table.deal()
        while table.to_act is not None:
            table.act(S)
        assert table.new_round() is True
        assert table.shoe.remaining == 52


# ---------------------------------------------------------------- ood-book (001)
def test_ood_book_natural_is_ordinary_and_may_be_hit() -> None:
    # AS KC vs dealer 9D + 8H (17): the natural may be hit; standing wins 1:1 (+10)
    table = scripted("ood-book", "AS 9D KC 8H", 10)
    assert table.legal_actions() == (S, H)
    table.act(S)
    assert outcomes(table)[0][1] == 10


def test_ood_book_natural_ties_a_dealer_21() -> None:
    # AS KC vs dealer 6D + 5H drawing TC = 21: push
    table = scripted("ood-book", "AS 6D KC 5H TC", 10)
    table.act(S)
    assert outcomes(table) == [(Outcome.PUSH, 0)]


def test_ood_book_dealer_natural_ties_a_player_21() -> None:
    # 5S 6C hits TC -> 21 (a three-card 21 may still be hit, so stand) vs TD + AH: push
    table = scripted("ood-book", "5S TD 6C AH TC", 10)
    play(table, H, S)
    assert outcomes(table) == [(Outcome.PUSH, 0)]


def test_ood_book_ties_push_and_hit_stand_only() -> None:
    table = scripted("ood-book", "TS 9D 8C 9H", 10)
    assert table.legal_actions() == (S, H)
    table.act(S)
    assert outcomes(table) == [(Outcome.PUSH, 0)]


def test_ood_book_fresh_deck_each_round_and_three_seats() -> None:
    rules = preset("ood-book")
    assert rules.seats == 3 and rules.shoe_decks == 1
    table = Table(rules, seed=1)
    for _ in range(4):
        for seat in range(3):
            table.bet(seat, 5)
        table.deal()
        while table.to_act is not None:
            table.act(S)
        assert table.new_round() is True
        assert table.shoe.remaining == 52 and table.shoe.discards == []


# ------------------------------------------------------------ browser-game (000)
def test_browser_game_late_surrender_no_insurance() -> None:
    # TS 6C vs dealer AD + 7H: no insurance phase; after the peek, surrender: -5
    table = scripted("browser-game", "TS AD 6C 7H", 10)
    assert table.phase is Phase.PLAYER_TURNS
    assert table.legal_actions() == (S, H, D, R)
    table.act(R)
    assert outcomes(table) == [(Outcome.SURRENDER, -5)]


def test_browser_game_peeked_blackjack_asks_nothing() -> None:
    table = scripted("browser-game", "TS AD 6C KH", 10)
    assert table.phase is Phase.SETTLED
    assert outcomes(table) == [(Outcome.LOSS, -10)]
    assert Table(preset("browser-game"), seed=0).shoe.total_cards == 4 * 52


def test_browser_game_split_and_double() -> None:
    table = scripted("browser-game", "8S 6D 8C TD 3H", 10)
    assert table.legal_actions() == (S, H, D, P, R)
    table.act(P)
    assert D in table.legal_actions()  # DAS: 8 + 3 = 11


# ----------------------------------------------------------- Gymnasium presets
GYM = ["sutton-barto", "gymnasium", "gymnasium-natural"]


@pytest.mark.parametrize("name", GYM)
def test_gym_player_may_hit_a_natural(name: str) -> None:
    # AS KC, hits 5D -> 1 + 10 + 5 = 16 hard: no longer a natural; dealer 9D + TH = 19
    table = scripted(name, "AS 9D KC TH 5D", 10)
    assert table.legal_actions() == (S, H)
    table.act(H)
    hand = table.seats[0].hands[0]
    assert hand.total == 16 and not hand.is_blackjack
    table.act(S)
    assert outcomes(table) == [(Outcome.LOSS, -10)]


@pytest.mark.parametrize(
    ("name", "cards", "net"),
    [
        # natural vs dealer 9D + TH = 19: +1 per chip except natural=True which pays 1.5
        ("sutton-barto", "9D KC TH", 10),
        ("gymnasium", "9D KC TH", 10),
        ("gymnasium-natural", "9D KC TH", 15),
        # natural vs dealer 6D + 5H + TC = 21: sab's natural wins outright (+1); otherwise
        # cmp(21, 21) = 0
        ("sutton-barto", "6D KC 5H TC", 10),
        ("gymnasium", "6D KC 5H TC", 0),
        ("gymnasium-natural", "6D KC 5H TC", 0),
        # natural vs natural: a draw in every mode
        ("sutton-barto", "AD KC TH", 0),
        ("gymnasium", "AD KC TH", 0),
        ("gymnasium-natural", "AD KC TH", 0),
    ],
)
def test_gym_naturals(name: str, cards: str, net: int) -> None:
    # the player holds AS + KC; ``cards`` are upcard, KC, hole card, dealer draws
    table = scripted(name, "AS " + cards, 10)
    assert table.phase is Phase.PLAYER_TURNS  # no peek, the natural is not settled yet
    table.act(S)
    assert outcomes(table)[0][1] == net


@pytest.mark.parametrize("name", GYM)
def test_gym_dealer_natural_only_ties_a_player_21(name: str) -> None:
    # 5S 6C hits TC -> 21 (may hit on, so stand) vs dealer TD + AH: cmp(21, 21) = 0
    table = scripted(name, "5S TD 6C AH TC", 10)
    play(table, H, S)
    assert outcomes(table) == [(Outcome.PUSH, 0)]


@pytest.mark.parametrize("name", GYM)
def test_gym_no_double_split_or_surrender(name: str) -> None:
    table = scripted(name, "8S 6D 8C TD", 10)
    assert table.legal_actions() == (S, H)


# ---------------------------------------- card-for-card comparison with Gymnasium
def _gym_card(value: int, rng: np.random.Generator) -> str:
    if value == 1:
        return "AS"
    if value == 10:
        return ["TH", "JH", "QH", "KH"][int(rng.integers(4))]
    return f"{value}C"


@pytest.mark.parametrize(
    ("name", "natural", "sab"),
    [
        ("sutton-barto", False, True),
        ("gymnasium", False, False),
        ("gymnasium-natural", True, False),
    ],
)
def test_gym_presets_match_blackjack_v1_card_for_card(
    name: str, natural: bool, sab: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Feed the same card values to Gymnasium's BlackjackEnv and to the preset, play the
    same threshold policy, and require reward x bet == the engine's net for every hand.
    The expected values come from Gymnasium itself, not from the engine."""
    from gymnasium.envs.toy_text import blackjack as gym_bj

    rng = np.random.default_rng(2024)
    deck = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10]
    queue: list[int] = []
    monkeypatch.setattr(gym_bj, "draw_card", lambda np_random: queue.pop(0))
    env = gym_bj.BlackjackEnv(natural=natural, sab=sab)
    rules = preset(name)
    bet = 2  # 1.5 x 2 is whole
    naturals = 0
    for _ in range(1500):
        values = [int(v) for v in rng.choice(deck, size=30)]
        threshold = int(rng.integers(11, 23))  # hit while the total is below it
        # Gymnasium: dealer card, dealer card, player card, player card, then draws
        queue[:] = values
        obs, _ = env.reset(seed=0)
        reward, done = 0.0, False
        while not done:
            action = int(obs[0] < threshold)
            obs, reward, done, _, _ = env.step(action)
        # the engine deals player, upcard, player, hole, then draws
        d0, d1, p0, p1, *rest = values
        naturals += sorted([p0, p1]) == [1, 10]
        order = [p0, d0, p1, d1, *rest]
        table = Table(rules, seed=0)
        table.shoe.stack(" ".join(_gym_card(v, rng) for v in order))
        table.bet(0, bet)
        table.deal()
        while table.to_act is not None:
            hand = table.current_hand
            table.act(H if hand.total < threshold else S)
        assert table.phase is Phase.SETTLED
        [result] = table.seats[0].results
        assert result.net == Fraction(reward) * bet, (values, threshold, reward, result)
    # P(natural) = 2 x 1/13 x 4/13 = 4.7%: ~71 of 1500; the comparison covers them
    assert naturals > 30
