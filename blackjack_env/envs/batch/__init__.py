"""Many blackjack tables stepped at once with numpy: the batched tables of the vector env.

:class:`TableBatch` plays ``num_tables`` independent tables, each with one
player seat and a dealer, under one :class:`~blackjack_env.engine.rules.Rules`, or
(:meth:`TableBatch.from_bank`) each under its own rule set of a rule space
(``rules.py``).
It is the engine's round (:class:`~blackjack_env.engine.table.Table`) rewritten
as structure-of-arrays code: every field of every hand of every table is an
element of a numpy array, and one call advances all tables. Nothing here
imports gymnasium; :mod:`blackjack_env.envs.vector` wraps it as a
``gymnasium.vector.VectorEnv``.

Semantics are those of :class:`~blackjack_env.engine.table.Table` for a single
seat (the parity tests replay stacked rounds through both and compare every
reward): a fixed bet, or a stake per table given to :meth:`TableBatch.start_rounds`
(bet steps: :meth:`TableBatch.open_rounds` first opens the round as
``Table.new_round`` does); unlimited credit, or a bankroll per table (exact, in
integer units of ``1 / chip_den`` chips) that doubles, matched splits and
insurance must be covered by (``engine.play.can_cover``). No rule is decided here: legal
actions, the pre-peek question, the peek, splits, the dealer's drawing rule,
outcomes and payouts are read from lookup tables that :mod:`blackjack_env.engine.play`
builds from its functions, and totals use its array forms. The round:

* deal order: player, dealer upcard, player, dealer hole card (none under
  ``HoleCard.NONE``); a split hand receives its second card when play reaches it;
* the insurance / early-surrender decision before the peek (``Phase.INSURANCE``),
  the peek, naturals, double, split (up to ``max_split_hands``, resplit aces,
  hit split aces, by rank or value, matched or halved bets), late / early
  surrender, S17 / H17, no-peek and no-hole-card dealers, every tie rule, both
  settlements, custom card values;
* each table has its own shoe: ``decks`` x 52 card ids (0..51, suit-major as in
  :data:`~blackjack_env.engine.cards.ALL_CARDS`) in a row whose cards from
  ``pos`` on are undealt. The shuffle is lazy: each draw takes a uniformly
  random undealt card (an incremental Fisher-Yates shuffle, so the deal order
  is a uniformly random permutation, as a shuffled shoe), and a reshuffle
  (between rounds, once the cut card at ``penetration`` is out) just gathers
  every card back; if a shoe runs dry mid-round, the table's discards become
  its undealt cards, as a casino reshuffles the discard tray. Or an infinite
  deck (``decks=None``): cards drawn with replacement; the dealer's drawing is
  then sampled in one step from the exact distribution of its final hand given
  its cards (unless stacked cards are pending), which is the same law as
  drawing card by card;
* stacked cards (:meth:`TableBatch.stack`) are dealt first, in order;
* every random number comes from the one injected ``numpy.random.Generator``
  (through pre-drawn blocks): same generator state and actions, same game.

Several seats (``seats=S``): row ``r`` is seat ``r % S`` of table ``r // S``. Hand arrays
and per-seat state (``phase``, ``nhands``, ``cur``, ``last_hand``, stakes, insurance) are
per row; the table's shoe is kept at the row of seat 0 (:attr:`TableBatch.lead_row`; the
other rows hold copies of its counters after every call) and the dealer is drawn there
and copied to every seat once played. The deal takes ``2S + 2`` cards (``2S + 1``
without a hole card) from the shoe in casino order; pre-peek questions go seat by seat
(phase ``PEEK_WAIT`` for a seat waiting for the peek); then seat 0 plays all its hands,
seat 1, ... (phase ``DONE`` for a seat whose hands are done); :meth:`TableBatch.acting`
names the one seat each table waits for, and only it acts in :meth:`TableBatch.step`, so
one seat per table draws at a time. After the last seat the dealer plays once and
every seat is settled; the step reports the round for every seat of the table. Fixed
bet and unlimited credit only.

Not supported here (the constructor raises ``ValueError``): ``bet_raising`` (a per-card
bet decision); bet sizes and bankrolls with several seats.

Round life cycle of a table (``phase``):

``DECIDE``
    the player's current hand awaits a playing action (``Action`` 0..4);
``INSURE``
    the pre-peek decision (``Action.INSURE`` / ``DECLINE`` / ``SURRENDER``);
``OVER``
    the round was settled at the deal (a natural paid at once, a dealer
    blackjack found by the peek, or a natural with nothing to decide) and the
    result has not been reported yet: the next :meth:`TableBatch.step` reports
    it whatever the action.

:meth:`TableBatch.step` returns, per table, whether the round ended on that
step and the net result in units of the bet; a round that ends mid-step is
reported on that step (no extra step), a round settled at the deal on the
step after the deal.

The int codes the batched rounds share with the rule tables and the JAX table
(:class:`~blackjack_env.envs.codes.BatchPhase`, the outcome and action codes) are
:mod:`blackjack_env.envs.codes`'s.

Where things are (one module per concept; :class:`TableBatch` combines their methods
as mixins, and every module's docstring says what it holds):

``table.py``
    :class:`TableBatch` itself: ``__init__`` (every field, the rule constants as
    lookup tables), the flat views of the hand arrays, pickling;
``shoe.py``
    the per-table shoes: lazy Fisher-Yates draws from pools of uniforms, the
    infinite deck's pool of cards, stacking, reshuffles, mid-round refills, and
    what a counter reads of them (``shoe_count``, ``undealt_counts``, ``unseen_hilo``);
``round.py``
    the round: ``start_rounds`` (deal, naturals, pre-peek question, peek),
    ``step``, ``round_net``, ``finish_rounds``, the pre-peek answers;
``hands.py``
    a hand's decisions: legality (``legal_mask``, ``legal_keys``), hit, stand,
    double, surrender, split, moving on to the next hand; ``current_totals``;
``dealer.py``
    the dealer's turn: drawing to the rules (from finite shoes in one fused loop,
    ``_dealer_draws_shoe``), or the infinite deck's one-step sample;
    ``dealer_up_value``;
``settlement.py``
    each hand's outcome against the dealer and its net, written in one place;
``seats.py``
    several seats per table: who acts, the deal and the peek seat by seat, the
    dealer once per table;
``chips.py``
    bet steps (``open_rounds``) and finite bankrolls (``chips``, ``set_chips``);
``rules.py``
    each table under its own rules: a :class:`~blackjack_env.envs.tables.RuleBank`'s
    stacked tables, a rule slot per table (``set_rules``), the per-table offsets and flags;
``kernels.py``
    the finite shoes' draws (a deal's, a hit's, the dealer's) as scalar loops compiled
    by numba, used where it is installed (the ``fast`` extra): the same cards as the
    numpy loops of ``shoe.py`` and ``dealer.py``.
"""

from blackjack_env.envs.batch.table import TableBatch

__all__ = ["TableBatch"]

# the class keeps the package as its home (its pickles and documented path)
TableBatch.__module__ = __name__
