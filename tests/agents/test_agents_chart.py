"""Charts of an agent beside the optimal chart: one cell model for both.

Under terminal-21's card values (J = 1, Q = 2, K = 3) a jack and an ace are both worth 1,
but only the ace counts 11: a jack up is its own column ``"1"``, a pair of jacks its own
row ``"1"`` (a hard 2), never read as the ace's ``"A"``. Each cell is checked against the
state the engine's table shows for a dealt hand of real cards.
"""

from __future__ import annotations

import gymnasium as gym
import pytest

import blackjack_env  # noqa: F401  (registers the env ids)
from blackjack_env.agents.fixed import fixed_agent
from blackjack_env.agents.plots import agent_chart, chart_differences
from blackjack_env.analysis import solve, table_state
from blackjack_env.analysis.chart import card_label, cell_state, label_card
from blackjack_env.analysis.strategy import nearest_supported_rules
from blackjack_env.commands.chart import Settings, differences_text, run
from blackjack_env.engine import PRESETS, Action, Phase, Rules, Table


def charted_rules(name: str) -> Rules:
    """The rules the chart command charts a preset with (infinite deck, servable)."""
    return nearest_supported_rules(PRESETS[name].rules.replace(decks=None))[0]


T21 = charted_rules("terminal-21")
RANK_TEXT = {1: "A", 10: "T", 11: "J", 12: "Q", 13: "K"}


def rank_of(label: str, rules: Rules) -> int:
    """A rank of the card class a column or pair row names (by the rules' values)."""
    value, ace = label_card(label)
    return next(r for r in range(1, 14) if (r == 1) == ace and rules.value(r) == value)


def text(rank: int, suit: str) -> str:
    return RANK_TEXT.get(rank, str(rank)) + suit


def two_cards(rules: Rules, kind: str, row: int | str) -> tuple[int, int] | None:
    """Two ranks dealt as the cell's hand, or None where no two cards make it."""
    if kind == "pair":
        r = rank_of(str(row), rules)
        return r, r
    for r1 in range(1, 14):
        for r2 in range(r1 + 1, 14):  # different ranks: never a pair by rank
            if (r1 == 1) != (kind == "soft") or r2 == 1:
                continue
            hand = rules.value(r1) + rules.value(r2) + (10 if r1 == 1 else 0)
            if hand == row:
                return r1, r2
    return None


def dealt_state(rules: Rules, kind: str, row: int | str, up: str):
    """The table's DecisionState for the cell's hand dealt from a stacked shoe."""
    cards = two_cards(rules, kind, row)
    if cards is None:
        return None
    table = Table(rules, seed=0)
    # deal order: player, upcard, player, hole card
    table.shoe.stack(f"{text(cards[0], 'S')} {text(rank_of(up, rules), 'H')} "
                     f"{text(cards[1], 'D')} 2C")
    table.bet(0, 2)
    table.deal()
    if table.phase is not Phase.PLAYER_TURNS:  # a natural that ends the hand
        return None
    return table_state(table)


def basic_policy(rules: Rules):
    env = gym.make("blackjack_env/Blackjack-v0", rules=rules)
    return fixed_agent("basic", env).state_policy


def cells(chart) -> list[tuple[str, int | str, str]]:
    return [(kind, row, up) for kind, table in (("hard", chart.hard), ("soft", chart.soft),
                                                ("pair", chart.pairs))
            for row in table for up in chart.upcards]


def test_terminal_21_has_a_jack_column_and_a_jack_pair_row_apart_from_the_ace():
    chart = solve(T21).chart
    assert chart.upcards == ("1", "2", "3", "4", "5", "6", "7", "8", "9", "T", "A")
    assert "1" in chart.pairs and "A" in chart.pairs
    assert label_card("1") == (1, False) and label_card("A") == (1, True)
    assert card_label(1, False) == "1" and card_label(1, True) == "A"
    jacks = cell_state(T21, "pair", "1", "1")
    assert (jacks.total, jacks.soft, jacks.pair, jacks.dealer, jacks.dealer_ace) == (
        2, False, 1, 1, False)
    aces = cell_state(T21, "pair", "A", "A")
    assert (aces.total, aces.soft, aces.pair, aces.dealer, aces.dealer_ace) == (
        12, True, 1, 1, True)
    # Chart.cell reads the chart's own labels: "1" is the jack's row and column here
    assert chart.cell("pair", "1", "1") is chart.pairs["1"][0]
    assert chart.cell("pair", "A", "A") is chart.pairs["A"][-1]
    assert chart.cell("hard", 18, "1") is chart.hard[18][0]
    # where no "1" column exists, "1" (and the value 1) still mean the ace
    vegas = solve(charted_rules("vegas-strip")).chart
    assert vegas.cell("hard", 16, "1") is vegas.cell("hard", 16, "A") is vegas.hard[16][-1]


def test_every_terminal_21_cell_is_the_state_of_a_dealt_hand():
    """The cell model gives exactly the state the table shows for the hand (legal actions
    included), for every cell two dealt cards can make."""
    chart = solve(T21).chart
    undealt = set()
    for kind, row, up in cells(chart):
        real = dealt_state(T21, kind, row, up)
        if real is None:
            undealt.add((kind, row))
            continue
        assert cell_state(T21, kind, row, up) == real, (kind, row, up)
    # no two cards make a non-pair hard 2 (only J,J), 20 (only T,T) or 21; soft 21 is a
    # natural, which ends the hand
    assert undealt == {("hard", 2), ("hard", 20), ("hard", 21), ("soft", 21)}


@pytest.mark.parametrize("name", list(PRESETS))
def test_basic_charts_with_no_difference_on_every_preset(name):
    """The optimal agent's chart, read cell by cell, is the optimal chart (the analysis's
    chart is itself the basic agent's policy, so every cell is the same state twice)."""
    rules = charted_rules(name)
    optimal = solve(rules).chart
    mine = agent_chart(basic_policy(rules), rules, optimal)
    assert chart_differences(mine, optimal) == []


def test_the_chart_command_on_terminal_21_shows_no_difference_for_basic(tmp_path):
    result = run(Settings(agent="basic", rules="terminal-21", png=str(tmp_path / "c.png")))
    assert result["differences"] == [] and result["exact"]["regret"] == pytest.approx(0, abs=1e-12)
    assert result["agent_chart"] == {**result["optimal_chart"], "title": "agent: basic"}
    assert differences_text(result["differences"]) == "0 cell(s) differ from the optimal chart"


@pytest.mark.slow
@pytest.mark.parametrize("name", list(PRESETS))
def test_the_chart_command_shows_no_difference_for_basic_on_every_preset(name, tmp_path):
    result = run(Settings(agent="basic", rules=name, png=str(tmp_path / "c.png")))
    assert result["differences"] == []


def test_standing_always_differs_exactly_where_the_analysis_prefers_another_action(tmp_path):
    """``stand`` on terminal-21: the differing cells are those whose dealt hand's best action
    (the analysis's action values for that exact hand) is not STAND; rows no two cards make
    (hard 2, 20, 21) are valued as the cell's state, and the natural (soft 21) is not
    asked."""
    result = run(Settings(agent="stand", rules="terminal-21", png=str(tmp_path / "c.png")))
    got = {(d["kind"], d["row"], d["upcard"]) for d in result["differences"]}
    solution = solve(T21)
    chart = solution.chart
    expected = set()
    for kind, row, up in cells(chart):
        if (kind, row) == ("soft", 21):
            continue
        state = dealt_state(T21, kind, row, up) or cell_state(T21, kind, row, up)
        evs = solution.action_values(state)
        if max(evs, key=evs.__getitem__) is not Action.STAND:
            expected.add((kind, row, up))
    assert {("hard", 2, up) for up in chart.upcards} <= expected
    assert got == expected and len(got) == 363
    # the jack's column and row are told apart from the ace's: a pair of jacks is split
    # (a hard 2), a pair of aces is hit (split aces take one card each)
    assert ("pair", "1", "1") in got and ("pair", "A", "1") in got


def test_a_difference_only_against_a_jack_up_shows_in_the_jack_column_alone():
    """A policy that plays basic except against a jack up (hits a hard 18 that is not a
    pair there) differs in one cell, hard 18 v 1; one that never splits jacks differs in
    the jack-pair row alone, in every column where splitting two jacks is the best
    action."""
    optimal = solve(T21).chart
    basic = basic_policy(T21)

    def hits_18_v_jack(state):
        if (state.total, state.soft, state.pair, state.dealer, state.dealer_ace) == (
                18, False, None, 1, False):
            return Action.HIT
        return basic(state)

    mine = agent_chart(hits_18_v_jack, T21, optimal)
    assert optimal.cell("hard", 18, "1").value == "S"
    assert chart_differences(mine, optimal) == [("hard", 18, "1")]

    def keeps_jacks(state):
        if state.pair == 1 and not state.soft and Action.SPLIT in state.legal:
            return Action.HIT
        return basic(state)

    solution = solve(T21)
    want = []
    for up in optimal.upcards:
        evs = solution.action_values(dealt_state(T21, "pair", "1", up))
        if max(evs, key=evs.__getitem__) is Action.SPLIT:
            want.append(("pair", "1", up))
    assert want  # splitting two jacks (a hard 2) is best against some upcard
    assert chart_differences(agent_chart(keeps_jacks, T21, optimal), optimal) == want


def _display_box(artist, fig):
    fig.canvas.draw()
    return artist.get_window_extent(fig.canvas.get_renderer())


def test_learning_curve_legends_hide_no_point():
    """A short run's one graded point (at the right end, where a lower-right legend used to
    sit over it), the optimum line and the training curve: no legend covers a plotted
    point, and no legend reaches into a plotting area at all."""
    from blackjack_env.agents.plots import learning_curve_figure

    blocks = [(n, -0.3 + n / 80_000) for n in range(256, 8193, 256)]
    fig = learning_curve_figure("maskable-ppo on vegas-strip", blocks, [(8192, -0.16)],
                                -0.0043, xlabel="timesteps")
    try:
        axes = fig.get_axes()
        assert len(axes) == 2 and all(ax.get_legend() is not None for ax in axes)
        for ax in axes:
            box = _display_box(ax.get_legend(), fig)
            area = ax.get_window_extent()
            assert box.y0 >= area.y1 - 1 or box.x0 >= area.x1 - 1  # outside the plot
            for line in ax.get_lines():
                points = ax.transData.transform(line.get_xydata())
                assert not any(box.contains(x, y) for x, y in points), line.get_label()
            for other in axes:  # nor over the other panel
                if other is not ax:
                    assert not box.overlaps(other.get_window_extent())
    finally:
        import matplotlib.pyplot as plt

        plt.close(fig)


def test_one_chart_drawing_names_its_codes_and_axes():
    """analyze --chart, Chart.plot and chart.png are one drawing: axis titles on every
    panel, and a legend that names (with its meaning) each code that appears, and no
    other."""
    import matplotlib.pyplot as plt

    from blackjack_env.agents.plots import chart_figure
    from blackjack_env.analysis import Chart, Play

    ups = ("2", "3", "4", "5", "6", "7", "8", "9", "T", "A")
    hard = {r: tuple(Play.HIT if r < 17 else Play.STAND for _ in ups) for r in range(5, 22)}
    soft = {r: tuple(Play.STAND for _ in ups) for r in range(13, 22)}
    pairs = {str(r): tuple(Play.SPLIT if r == 8 else Play.HIT for _ in ups)
             for r in (2, 3, 4, 5, 6, 7, 8, 9)}
    chart = Chart(ups, hard, soft, pairs, title="hit to 16")
    for fig in (chart_figure([chart], title="one chart"), chart.plot()):
        try:
            labels = sorted(t.get_text() for t in fig.legends[0].get_texts())
            assert labels == ["H hit", "P split", "S stand"]
            for ax in fig.get_axes():
                assert ax.get_xlabel() == "dealer upcard"
                assert ax.get_ylabel().startswith("player hand (")
        finally:
            plt.close(fig)
    optimal = solve(T21).chart
    fig = chart_figure([optimal, optimal], {("hard", 16, optimal.upcards[0])}, title="x")
    try:
        assert len(fig.get_axes()) == 6
        assert "differs from optimal" in [t.get_text() for t in fig.legends[0].get_texts()]
    finally:
        plt.close(fig)
