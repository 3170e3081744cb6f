"""Rules engine vs pokerkit: the same random hands (same cards, same actions) through both.

``python -m benchmarks engine`` prints hands per second for our engine and for pokerkit 0.7.7 and
their ratio, then 7-card evaluations per second of our evaluator path (eval7, as the engine uses
it) beside pokerkit's.

The random hands come from :func:`random_spec` and :func:`play_ours` (a seeded
``random.Random``; actions chosen among the legal ones); the differential tests use the same
generator. pokerkit is a test-only dependency: it is imported here and in ``tests/`` only.
"""

from __future__ import annotations

import contextlib
import random
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, cast

from table_controller.engine import (
    FULL_DECK,
    Act,
    ActionKind,
    ActStep,
    Card,
    Deal,
    Hand,
    HandConfig,
    HandOverStep,
    Input,
    LegalActions,
    Muck,
    ShowStep,
)
from table_controller.engine.answers import card_input, default_input, wants_card

# --------------------------------------------------------------------------------------------
# Random hands


@dataclass(frozen=True, slots=True)
class HandSpec:
    """One random hand's set-up: seats, button, stakes, stacks, the shuffled deck, a seed."""

    seats: tuple[int, ...]
    button: int
    stacks: tuple[int, ...]
    small_blind: int
    big_blind: int
    ante: int
    bb_ante: int
    deck: tuple[Card, ...]
    seed: int

    def config(self) -> HandConfig:
        """Our engine's configuration of the hand."""
        return HandConfig(
            seats=self.seats,
            stacks=dict(zip(self.seats, self.stacks, strict=True)),
            button=self.button,
            small_blind=self.small_blind,
            big_blind=self.big_blind,
            ante=self.ante,
            bb_ante=self.bb_ante,
        )

    def order(self) -> tuple[int, ...]:
        """The dealt seats clockwise from the first left of the button (pokerkit / PHH order)."""
        seats = sorted(self.seats)
        start = next((i for i, s in enumerate(seats) if s > self.button), 0)
        return tuple(seats[start:] + seats[:start])


def random_spec(rng: random.Random, *, min_players: int = 2, max_players: int = 10,
                short_bb: bool = True) -> HandSpec:
    """Draw a random hand: 2..10 seats, random stakes, stacks from tiny to deep, antes.

    With ``short_bb`` false, every stack covers its blind and antes (no big blind all-in short).
    """
    n = rng.randint(min_players, max_players)
    seats = tuple(sorted(rng.sample(range(1, 11), n)))
    if n >= 3 and rng.random() < 0.1:
        empty = [s for s in range(1, 11) if s not in seats]
        button = rng.choice(empty) if empty else rng.choice(seats)
    else:
        button = rng.choice(seats)
    big = rng.choice((2, 4, 10, 20, 100, 200, 1000))
    small = rng.choice((big // 2, big // 2, max(1, big // 4), big if n > 2 else big // 2))
    ante = bb_ante = 0
    roll = rng.random()
    if roll < 0.2:
        ante = rng.randint(1, max(1, big // 2))
    elif roll < 0.4:
        bb_ante = rng.choice((big, big, big // 2 or 1, big * 3 // 2))
    stacks = []
    for _ in seats:
        kind = rng.random()
        if kind < 0.1:
            stack = rng.randint(1, 3 * big)
        elif kind < 0.45:
            stack = rng.randint(3 * big, 30 * big)
        else:
            stack = rng.randint(30 * big, 300 * big)
        if not short_bb:
            stack = max(stack, small + big + ante + bb_ante + 1)
        stacks.append(stack)
    deck = list(FULL_DECK)
    rng.shuffle(deck)
    return HandSpec(seats, button, tuple(stacks), small, big, ante, bb_ante, tuple(deck),
                    rng.getrandbits(32))


def choose_action(rng: random.Random, legal: LegalActions) -> Act:
    """Pick one legal action at random (folds, checks, calls, min-raises, all-ins, in between)."""
    seat = legal.seat
    raise_ok = legal.can_raise and legal.max_raise_to > legal.to_call_total
    if legal.can_check:
        if raise_ok and rng.random() < 0.4:
            return Act(seat, ActionKind.BET if legal.is_bet else ActionKind.RAISE,
                       raise_amount(rng, legal))
        return Act(seat, ActionKind.CHECK)
    roll = rng.random()
    if roll < 0.28 and legal.can_fold:
        return Act(seat, ActionKind.FOLD)
    if roll < 0.78 or not raise_ok:
        return Act(seat, ActionKind.CALL)
    return Act(seat, ActionKind.BET if legal.is_bet else ActionKind.RAISE,
               raise_amount(rng, legal))


def raise_amount(rng: random.Random, legal: LegalActions, low: int | None = None,
                 high: int | None = None) -> int:
    """A legal raise-to amount: the minimum, all-in, or in between (optionally within bounds)."""
    lo = min(legal.min_raise_to, legal.max_raise_to) if low is None else low
    hi = legal.max_raise_to if high is None else high
    roll = rng.random()
    if roll < 0.35 or hi <= lo:
        return lo
    if roll < 0.6:
        return hi
    return rng.randint(lo, hi)


@dataclass(frozen=True, slots=True)
class PlayedHand:
    """A hand played through our engine: its spec, the inputs in order, the final stacks."""

    spec: HandSpec
    inputs: tuple[Input, ...]
    final_stacks: dict[int, int]
    hand: Hand


def deal_input(spec: HandSpec, used: list[int]) -> Deal:
    """The next card of the spec's deck (``used`` counts cards dealt so far)."""
    card = spec.deck[used[0]]
    used[0] += 1
    return card_input(card)


def play_ours(spec: HandSpec, choose: Callable[[random.Random, LegalActions], Act] = choose_action,
              muck_rate: float = 0.0) -> PlayedHand:
    """Play ``spec`` through our engine, choosing actions with ``random.Random(spec.seed)``.

    At the showdown a seat mucks instead of showing with probability ``muck_rate``.
    """
    rng = random.Random(spec.seed)
    hand = Hand(spec.config())
    inputs: list[Input] = []
    used = [0]
    while True:
        step = hand.expected()
        if isinstance(step, HandOverStep):
            return PlayedHand(spec, tuple(inputs), dict(step.final_stacks), hand)
        inp: Input | None
        if wants_card(step):
            inp = deal_input(spec, used)
        elif isinstance(step, ActStep):
            inp = choose(rng, step.legal)
        else:
            inp = default_input(step)
            assert inp is not None, step
            if (isinstance(step, ShowStep) and muck_rate and rng.random() < muck_rate
                    and hand.check(Muck(step.seat)) is None):
                inp = Muck(step.seat)
        hand.apply(inp)
        inputs.append(inp)


def replay_ours(spec: HandSpec, inputs: Sequence[Input]) -> dict[int, int]:
    """Apply recorded inputs to a fresh hand; return the final stacks (the timed path)."""
    hand = Hand(spec.config())
    apply = hand.apply
    for inp in inputs:
        apply(inp)
    step = hand.expected()
    assert isinstance(step, HandOverStep)
    return dict(step.final_stacks)


# --------------------------------------------------------------------------------------------
# pokerkit side


def pokerkit_state(spec: HandSpec) -> Any:
    """A pokerkit state of the same hand (players in :meth:`HandSpec.order`), dealing manual."""
    from pokerkit import Automation, Mode, NoLimitTexasHoldem

    order = spec.order()
    n = len(order)
    antes = [spec.ante] * n
    antes[1] += spec.bb_ante
    return NoLimitTexasHoldem.create_state(
        (
            Automation.ANTE_POSTING,
            Automation.BET_COLLECTION,
            Automation.BLIND_OR_STRADDLE_POSTING,
            Automation.CARD_BURNING,
            Automation.HOLE_CARDS_SHOWING_OR_MUCKING,
            Automation.HAND_KILLING,
            Automation.CHIPS_PUSHING,
            Automation.CHIPS_PULLING,
            Automation.RUNOUT_COUNT_SELECTION,
        ),
        spec.bb_ante == 0,  # ante trimming: on for equal antes, off for a big-blind ante
        tuple(antes),
        (spec.small_blind, spec.big_blind),
        spec.big_blind,
        tuple(spec.stacks[spec.seats.index(s)] for s in order),
        n,
        mode=Mode.CASH_GAME,
    )


def pokerkit_replay(spec: HandSpec, inputs: Sequence[Input]) -> dict[int, int]:
    """Play the same cards and actions through pokerkit; return its final stacks by our seat.

    :raises ValueError: if pokerkit refuses an action (see the known differences in
        ``tests/test_differential.py``).
    """
    order = spec.order()
    index = {seat: i for i, seat in enumerate(order)}
    state = pokerkit_state(spec)
    holes = [inp.card for inp in inputs if isinstance(inp, Deal)]
    n = len(order)
    hole_cards = holes[: 2 * n]
    for card in hole_cards:
        state.deal_hole(card.code if card else "??")
    board = [c for c in holes[2 * n :]]
    # our deck stream after the hole cards: burn, 3 flop, burn, turn, burn, river
    board_by_street = [board[1:4], board[5:6], board[7:8]]
    street = 0
    for inp in inputs:
        if not isinstance(inp, Act):
            continue
        while state.can_deal_board():
            state.deal_board("".join(c.code for c in board_by_street[street] if c))
            street += 1
        assert state.actor_index == index[inp.seat], (state.actor_index, inp)
        if inp.kind is ActionKind.FOLD:
            state.fold()
        elif inp.kind in (ActionKind.CHECK, ActionKind.CALL):
            state.check_or_call()
        else:
            state.complete_bet_or_raise_to(inp.to)
    while state.status:
        if state.can_deal_board():
            state.deal_board("".join(c.code for c in board_by_street[street] if c))
            street += 1
        else:
            raise ValueError(f"pokerkit is stuck: {state.operations[-1]!r}")
    return {seat: state.stacks[i] for i, seat in enumerate(order)}


# --------------------------------------------------------------------------------------------
# Benchmark


def _hands(count: int, seed: int) -> list[PlayedHand]:
    rng = random.Random(seed)
    return [play_ours(random_spec(rng, short_bb=False)) for _ in range(count)]


def bench_hands(count: int = 500, seed: int = 2026, rounds: int = 5,
                chunk: int = 25) -> dict[str, float]:
    """Time the same hands through both engines; returns hands/s for each and the ratio.

    The machine is shared, so the hands are timed in chunks of ``chunk``, our engine and pokerkit
    one after the other on the same chunk, ``rounds`` times; each chunk counts with its best
    (least disturbed) time for each engine.
    """
    import warnings

    played = _hands(count, seed)
    usable = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for p in played:
            try:
                pokerkit_replay(p.spec, p.inputs)
            except (ValueError, AssertionError):
                continue
            usable.append(p)
        chunks = [usable[i : i + chunk] for i in range(0, len(usable), chunk)]
        best_pk = [float("inf")] * len(chunks)
        best_ours = [float("inf")] * len(chunks)
        clock = time.perf_counter
        for _ in range(rounds):
            for k, hands in enumerate(chunks):
                t0 = clock()
                for p in hands:
                    replay_ours(p.spec, p.inputs)
                t1 = clock()
                for p in hands:
                    pokerkit_replay(p.spec, p.inputs)
                t2 = clock()
                best_ours[k] = min(best_ours[k], t1 - t0)
                best_pk[k] = min(best_pk[k], t2 - t1)
    ours = len(usable) / sum(best_ours)
    theirs = len(usable) / sum(best_pk)
    return {"hands": len(usable), "ours_hps": ours, "pokerkit_hps": theirs,
            "ratio": ours / theirs}


def bench_eval(count: int = 20000, seed: int = 7) -> dict[str, float]:
    """7-card evaluations per second: our path (``showdown.strength`` / ``strengths``, eval7)
    and pokerkit's."""
    from pokerkit import Card as PkCard
    from pokerkit import StandardHighHand

    from table_controller.engine.showdown import strength, strengths

    rng = random.Random(seed)
    deals = [rng.sample(FULL_DECK, 7) for _ in range(count)]
    t_ours = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        for d in deals:
            strength(d[:2], d[2:])
        t_ours = min(t_ours, time.perf_counter() - t0)
    # The showdown path: six hands against one board (the board converted once).
    tables = [rng.sample(FULL_DECK, 17) for _ in range(count // 6)]
    showdowns = [({i: d[5 + 2 * i : 7 + 2 * i] for i in range(6)}, d[:5]) for d in tables]
    t_showdown = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        for seat_cards, board_cards in showdowns:
            strengths(seat_cards, board_cards)
        t_showdown = min(t_showdown, time.perf_counter() - t0)
    pk_cards = [(tuple(PkCard.parse("".join(c.code for c in d[:2]))),
                 tuple(PkCard.parse("".join(c.code for c in d[2:])))) for d in deals[:2000]]
    t_pk = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        for hole, board in pk_cards:
            StandardHighHand.from_game(hole, board)
        t_pk = min(t_pk, time.perf_counter() - t0)
    return {"ours_eps": count / t_ours, "ours_showdown_eps": 6 * len(showdowns) / t_showdown,
            "pokerkit_eps": len(pk_cards) / t_pk}


def bench_phh(corpus: str, limit: int = 0) -> dict[str, Any]:
    """Time reading a folder of hand histories, ours and pokerkit's, side by side (seconds).

    The files are read into memory first (no disk time). ``parse``: text to a hand history
    (ours :func:`table_controller.phh.loads`, pokerkit ``HandHistory.loads``); ``end_to_end``:
    parse and play every hand (ours :func:`table_controller.phh.replay`, which also compares the
    finishing stacks; pokerkit's ``loads`` then iterating its states). Each is the best of three
    passes, ours and pokerkit's alternating (the load of a shared machine shifts), each of our
    passes with the cache of parsed actions emptied first. Wall times, and the CPU time of the
    process (``*_cpu_s``: one core each side, less disturbed by the rest of a shared machine).
    Then, untimed, :func:`phh_results_digest` of our results (``results``, ``results_sha256``).
    """
    import warnings
    from pathlib import Path

    from pokerkit import HandHistory as PkHandHistory

    from table_controller.phh import iter_paths, loads, replay
    from table_controller.phh.reader import clear_action_cache
    from table_controller.phh.replay import clear_input_cache

    texts = [Path(p).read_text(encoding="utf-8") for p in iter_paths([corpus])]
    if limit:
        texts = texts[:limit]

    def once(run: Callable[[str], object]) -> tuple[float, float]:
        """One pass: (wall seconds, CPU seconds of this process)."""
        clear_action_cache()  # every pass starts cold: no action parsed in an earlier pass
        clear_input_cache()  # nor any engine input made
        t0, c0 = time.perf_counter(), time.process_time()
        for text in texts:
            with contextlib.suppress(Exception):  # a hand either side cannot read still costs
                run(text)
        return time.perf_counter() - t0, time.process_time() - c0

    cpu: dict[str, float] = {}

    def best_pair(name: str, ours: Callable[[str], object], theirs: Callable[[str], object],
                  rounds: int = 3) -> tuple[float, float]:
        """Best of ``rounds`` passes each, ours and theirs alternating (the load shifts).

        Returns the wall times; the best CPU times (one core each: per core, whatever else
        the machine runs) go into ``cpu``.
        """
        a, b = [], []
        for _ in range(rounds):
            a.append(once(ours))
            b.append(once(theirs))
        cpu[f"ours_{name}_cpu_s"] = min(c for _, c in a)
        cpu[f"pokerkit_{name}_cpu_s"] = min(c for _, c in b)
        return min(w for w, _ in a), min(w for w, _ in b)

    def pk_play(text: str) -> None:
        for _ in PkHandHistory.loads(text):
            pass

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours_parse, pk_parse = best_pair("parse", loads, PkHandHistory.loads)
        ours_e2e, pk_e2e = best_pair("end_to_end", lambda text: replay(loads(text)), pk_play)
    counts, digest = phh_results_digest(texts)
    return {"hands": len(texts), "ours_parse_s": ours_parse, "pokerkit_parse_s": pk_parse,
            "ours_end_to_end_s": ours_e2e, "pokerkit_end_to_end_s": pk_e2e,
            "parse_ratio": pk_parse / ours_parse, "end_to_end_ratio": pk_e2e / ours_e2e, **cpu,
            "end_to_end_cpu_ratio": cpu["pokerkit_end_to_end_cpu_s"]
            / cpu["ours_end_to_end_cpu_s"], "results": counts, "results_sha256": digest}


def phh_results_digest(texts: Sequence[str]) -> tuple[dict[str, int], str]:
    """Replay every text once (untimed): the count of each outcome and a SHA-256 of every result.

    Each result is hashed whole (status, our finishing stacks, the file's, the differences, the
    error's type and words; an unreadable file by its error), in the order of ``texts``: two trees
    that print the same digest gave the same answer on every hand.
    """
    import hashlib

    from table_controller.phh import loads, replay
    from table_controller.phh.model import PhhError

    counts: dict[str, int] = {}
    digest = hashlib.sha256()
    for text in texts:
        try:
            r = replay(loads(text))
        except PhhError as exc:
            counts["unreadable"] = counts.get("unreadable", 0) + 1
            digest.update(f"unreadable {exc}\n".encode())
            continue
        counts[r.status] = counts.get(r.status, 0) + 1
        error = None if r.error is None else (type(r.error).__name__, str(r.error))
        digest.update(repr((r.status, r.finishing_stacks, r.expected,
                            sorted(r.differences.items()), error)).encode() + b"\n")
    return counts, digest.hexdigest()


def main(argv: Sequence[str] = ()) -> None:
    """Print the benchmark figures (``phh FOLDER``: the hand-history reading figures)."""
    if argv and argv[0] == "phh":
        r = bench_phh(argv[1], int(argv[2]) if len(argv) > 2 else 0)
        print(f"hand histories: {r['hands']:.0f}")
        print(f"parse:      ours {r['ours_parse_s']:.2f} s, pokerkit {r['pokerkit_parse_s']:.2f} s"
              f" ({r['parse_ratio']:.2f}x)")
        print(f"end to end: ours {r['ours_end_to_end_s']:.2f} s, pokerkit "
              f"{r['pokerkit_end_to_end_s']:.2f} s ({r['end_to_end_ratio']:.2f}x; target >= 5x)")
        print(f"CPU time:   parse ours {r['ours_parse_cpu_s']:.2f} s, pokerkit "
              f"{r['pokerkit_parse_cpu_s']:.2f} s; end to end ours {r['ours_end_to_end_cpu_s']:.2f}"
              f" s, pokerkit {r['pokerkit_end_to_end_cpu_s']:.2f} s "
              f"({r['end_to_end_cpu_ratio']:.2f}x)")
        results = cast("dict[str, int]", r["results"])
        print(f"results:    {', '.join(f'{n} {k}' for k, n in sorted(results.items()))}; "
              f"sha256 {r['results_sha256']}")
        return
    count = int(argv[0]) if argv else 500
    hands = bench_hands(count)
    print(f"hands played through both: {hands['hands']:.0f} (random 2-10 seats, antes, all-ins)")
    print(f"our engine: {hands['ours_hps']:,.0f} hands/s")
    print(f"pokerkit:   {hands['pokerkit_hps']:,.0f} hands/s")
    print(f"ratio:      {hands['ratio']:.1f}x (target >= 20x)")
    evals = bench_eval()
    print(f"7-card evaluations/s: ours (eval7) {evals['ours_eps']:,.0f} one by one, "
          f"{evals['ours_showdown_eps']:,.0f} in 6-hand showdowns; "
          f"pokerkit {evals['pokerkit_eps']:,.0f}")


if __name__ == "__main__":
    main(sys.argv[1:])
