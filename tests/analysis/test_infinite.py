"""Infinite-deck solver and exact policy evaluation: self-consistency, effects of rules,
policies, errors."""

from __future__ import annotations

from fractions import Fraction

import pytest

from blackjack_env.analysis import DecisionState, evaluate_policy, solve
from blackjack_env.analysis.dealer import dealer_vector
from blackjack_env.engine import Action, Rules, preset
from tests.analysis.helpers import scrambled_policy

BASE = Rules(decks=None)  # S17, 3:2, peek, DAS, split to 4, no RSA, no surrender

RULE_SETS = {
    "base": BASE,
    "vegas-strip-inf": preset("vegas-strip", decks=None, seats_per_deck=None),
    "h17-early": Rules(decks=None, dealer_hits_soft_17=True, surrender="early"),
    "enhc": preset("european-no-hole-card", decks=None),
    "no-peek-late": Rules(decks=None, hole_card="no-peek", insurance=False, surrender="late"),
    "rsa-hsa-8": Rules(decks=None, resplit_aces=True, hit_split_aces=True, max_split_hands=8),
    "halve-value": Rules(decks=None, split_by="value", split_bet="halve", max_split_hands=2),
    "sutton-barto": preset("sutton-barto"),
    "gymnasium": preset("gymnasium"),
    "gymnasium-natural": preset("gymnasium-natural"),
    "custom-values": Rules(decks=None, card_values={"J": 1, "Q": 2, "K": 3}),
    "naturals-playable": Rules(decks=None, natural_ends_hand=False, auto_stand_21=False),
}


def ret(rules: Rules) -> float:
    return solve(rules).expected_return


@pytest.mark.parametrize("name", list(RULE_SETS))
def test_optimal_policy_evaluates_to_the_optimum(name: str) -> None:
    rules = RULE_SETS[name]
    sol = solve(rules)
    assert evaluate_policy(rules, sol.policy) == pytest.approx(sol.expected_return, abs=1e-12)
    # the chart (a total-dependent reading of the same optimum) cannot do better
    assert evaluate_policy(rules, sol.chart) <= sol.expected_return + 1e-12


@pytest.mark.parametrize("name", list(RULE_SETS))
def test_other_policies_score_lower(name: str) -> None:
    rules = RULE_SETS[name]
    best = ret(rules)
    assert evaluate_policy(rules, scrambled_policy) < best - 0.05

    def never_bust(state: DecisionState) -> Action:
        if state.pre_peek:
            return Action.DECLINE
        return Action.HIT if state.total <= 11 and Action.HIT in state.legal else Action.STAND

    assert evaluate_policy(rules, never_bust) < best - 0.01


def test_upcard_returns_average_to_the_total() -> None:
    sol = solve(BASE)
    weights = {u: (4 if u == "T" else 1) / 13 for u in sol.upcard_returns}
    assert sum(weights[u] * r for u, r in sol.upcard_returns.items()) == pytest.approx(
        sol.expected_return, abs=1e-14
    )


def test_dealer_up_hard_17_row_against_hand_computation() -> None:
    """Standing on hard 20 v 9 by hand: win if the dealer busts or makes 17..19, push on
    20, lose on 21 (no blackjack is possible with a 9 up)."""
    d = dealer_vector(BASE, 9)
    want = d[5] + d[0] + d[1] + d[2] - d[4]
    assert solve(BASE).action_evs[("hard", 20, "9")][Action.STAND] == pytest.approx(want)


def test_blackjack_payout_effect_is_exactly_the_natural_term() -> None:
    """Naturals end the hand, so the payout never changes play: the return moves by
    (payout change) x P(player natural) x P(no dealer natural)."""
    p_nat = 2 * (1 / 13) * (4 / 13)
    p_dealer_nat = p_nat  # ace+ten for the dealer, same chance
    diff = ret(BASE) - ret(BASE.replace(blackjack_payout="6:5"))
    assert diff == pytest.approx(0.3 * p_nat * (1 - p_dealer_nat), abs=1e-12)
    assert 0.013 < diff < 0.015  # "6:5 costs about 1.4 points"


def test_direction_of_rule_effects() -> None:
    base = ret(BASE)
    assert ret(BASE.replace(dealer_hits_soft_17=True)) < base - 0.001  # H17 costs ~0.2
    assert ret(BASE.replace(surrender="late")) > base  # surrender helps
    assert ret(BASE.replace(surrender="early")) > ret(BASE.replace(surrender="late"))
    assert ret(BASE.replace(double_after_split=False)) < base
    assert ret(BASE.replace(resplit_aces=True)) > base
    assert ret(BASE.replace(hit_split_aces=True)) > base
    assert ret(BASE.replace(max_split_hands=2)) < base < ret(BASE.replace(max_split_hands=8))
    assert ret(BASE.replace(double="10-11")) < ret(BASE.replace(double="9-11")) < base
    assert ret(BASE.replace(double="never")) < ret(BASE.replace(double="10-11"))
    assert ret(BASE.replace(hole_card="none", insurance=False)) < base  # ENHC costs
    assert ret(BASE.replace(ties="dealer-wins")) < ret(BASE.replace(ties="player-loses")) < base
    assert ret(BASE.replace(blackjack_after_split=True)) > base
    assert ret(BASE.replace(natural_paid_at_deal=True)) > base


def test_peek_and_no_peek_differ_only_through_doubles_and_splits() -> None:
    """With no doubling and no splitting, a dealer blackjack costs one bet either way, so
    peek and no-peek give the same return."""
    flat = BASE.replace(double="never", max_split_hands=1)
    assert ret(flat) == pytest.approx(ret(flat.replace(hole_card="no-peek", insurance=False)),
                                      abs=1e-12)


def test_late_surrender_without_peek_loses_to_blackjack() -> None:
    """Surrender EV on 16 v T: -1/2 after a peek; without a peek the whole bet is lost to a
    dealer blackjack (probability 1/13)."""
    peek = solve(BASE.replace(surrender="late")).action_evs[("hard", 16, "T")]
    nopeek = solve(BASE.replace(surrender="late", hole_card="no-peek", insurance=False))
    assert peek[Action.SURRENDER] == -0.5
    evs = nopeek.action_evs[("hard", 16, "T")]
    assert evs[Action.SURRENDER] == pytest.approx(-(1 / 13) - 0.5 * (12 / 13))


def test_gymnasium_table_policy_and_errors() -> None:
    rules = preset("sutton-barto")
    sol = solve(rules)
    table = {}
    for total in range(4, 22):
        for dealer in range(1, 11):
            for soft in (0, 1):
                if soft and total < 12:
                    continue
                label = "A" if dealer == 1 else ("T" if dealer == 10 else str(dealer))
                evs = sol.action_evs[("soft" if soft else "hard", total, label)]
                table[(total, dealer, soft)] = max(evs, key=evs.get)
    assert evaluate_policy(rules, table) == pytest.approx(sol.expected_return, abs=1e-12)
    del table[(16, 10, 0)]
    with pytest.raises(ValueError, match=r"no entry for observation \(16, 10, 0\)"):
        evaluate_policy(rules, table)


def test_illegal_action_names_state_and_legal_actions() -> None:
    def doubler(state: DecisionState) -> Action:
        return Action.DOUBLE

    with pytest.raises(ValueError, match=r"DOUBLE.*not legal.*legal actions: STAND, HIT"):
        evaluate_policy(preset("gymnasium"), doubler)

    with pytest.raises(ValueError, match="not legal"):
        evaluate_policy(BASE, lambda s: 42)


def test_unsupported_rules_raise() -> None:
    with pytest.raises(ValueError, match="settlement"):
        solve(preset("terminal-21").replace(decks=None, seats_per_deck=None))
    with pytest.raises(ValueError, match="infinite deck"):
        solve(Rules(decks=6))
    with pytest.raises(ValueError, match="infinite deck"):
        evaluate_policy(Rules(decks=2), scrambled_policy)


def test_decision_state_observation() -> None:
    seen: list[DecisionState] = []

    def record(state: DecisionState) -> Action:
        seen.append(state)
        return Action.STAND if not state.pre_peek else Action.DECLINE

    evaluate_policy(preset("gymnasium"), record)
    obs = {s.observation for s in seen}
    assert (20, 10, 0) in obs and (13, 1, 1) in obs
    assert all(1 <= s.dealer <= 10 and s.legal == (Action.STAND, Action.HIT) for s in seen)


def test_even_split_bet_halves_split_value() -> None:
    rules = Rules(decks=None, split_bet="halve", max_split_hands=2)
    full = Rules(decks=None, max_split_hands=2)
    half = solve(rules).action_evs[("pair", "8", "6")][Action.SPLIT]
    whole = solve(full).action_evs[("pair", "8", "6")][Action.SPLIT]
    assert half == pytest.approx(whole / 2)


def test_payout_fraction_and_ratio_text_agree() -> None:
    assert ret(BASE.replace(blackjack_payout=Fraction(6, 5))) == ret(
        BASE.replace(blackjack_payout="6:5")
    )


def test_forced_resplit_plans_never_beat_the_optimum() -> None:
    """The per-(pair, hands) resplit plan used when the best choice would depend on hands
    still waiting: the natural choices reproduce the optimum, other plans do worse."""
    from blackjack_env.analysis.infinite import RoundModel, optimal_round

    rules = Rules(decks=None, max_split_hands=4)
    for up in (2, 6, 10):
        best = optimal_round(rules, up)
        value = best.round_return()
        plan = {(c, h): v for (c, h, _k), v in best.split_choices.items()}
        assert RoundModel(rules, up, split_plan=plan).round_return() == pytest.approx(value)
        never = {key: False for key in plan}
        assert RoundModel(rules, up, split_plan=never).round_return() < value


def test_natural_that_only_ties_21_waits_for_the_dealer_under_a_peek() -> None:
    """natural_beats_21=False: a natural is not paid at the peek; a dealer's 21 of three or
    more cards pushes it. Play is unchanged, so the return drops by exactly
    P(player natural) x sum over upcards of P(upcard) P(dealer 3+-card 21) x payout."""
    from blackjack_env.analysis import dealer_probabilities

    p_nat = 2 * (1 / 13) * (4 / 13)
    loss = 0.0
    for up in "A23456789TJQK":
        loss += dealer_probabilities(BASE, up, condition_on_no_blackjack=False)["21"] / 13
    diff = ret(BASE) - ret(BASE.replace(natural_beats_21=False))
    assert diff == pytest.approx(p_nat * loss * 1.5, abs=1e-12)


def test_custom_ten_less_upcard_worth_one_does_not_peek() -> None:
    """With J worth 1, a jack up is no ace: no peek, so early surrender is a play action."""
    rules = Rules(decks=None, card_values={"J": 1, "Q": 2, "K": 3}, surrender="early")
    seen: list[DecisionState] = []

    def record(state: DecisionState) -> Action:
        seen.append(state)
        return Action.DECLINE if state.pre_peek else Action.STAND

    evaluate_policy(rules, record)
    jack_up = [s for s in seen if s.dealer == 1 and not s.dealer_ace]
    assert jack_up and not any(s.pre_peek for s in jack_up)
    assert any(Action.SURRENDER in s.legal for s in jack_up if s.cards == 2)
    assert all(not s.pre_peek or s.dealer_ace or s.dealer == 10 for s in seen)


def test_action_values_cover_every_state_and_agree_with_the_policy() -> None:
    rules = Rules(decks=None, surrender="early", max_split_hands=3)
    sol = solve(rules)
    seen: list[DecisionState] = []

    def record(state: DecisionState) -> Action:
        seen.append(state)
        return sol.policy(state)

    evaluate_policy(rules, record)
    assert any(s.split for s in seen) and any(s.cards >= 3 for s in seen)
    assert any(s.pre_peek for s in seen)
    for state in seen:
        values = sol.action_values(state)
        assert set(values) == set(state.legal) | ({Action.SURRENDER, Action.DECLINE}
                                                  if state.pre_peek else set())
        if not (state.split and Action.SPLIT in state.legal):
            assert values[sol.policy(state)] == pytest.approx(max(values.values()))
        if state.cards >= 3 and not state.soft:
            row = sol.action_evs[("hard", state.total, "A" if state.dealer_ace else
                                  ("T" if state.dealer == 10 else str(state.dealer)))]
            assert values[Action.HIT] == pytest.approx(row[Action.HIT])
