"""The core's dealer commands: each decided first, changing nothing, then applied once.

Rules this module keeps:

1. One handler per command name of :data:`table_controller.commands.COMMANDS` (the dealing
   rules add theirs, :mod:`.dealing`); :data:`CORE_COMMANDS` is the dispatch table.
2. A handler returns a :class:`~.irregularities.Decision`: the exact :class:`Reply` and, if the
   command is accepted, the effect that applies it. Deciding reads the state and never writes
   it (the engine's ``check`` / ``trial``, the table's ``check_*`` and ``plan_hand``), so the
   daemon can journal the reply before the command changes the table.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from table_controller.commands import ACTION_COMMANDS
from table_controller.controller.events import (
    DealerCommand,
    HoldLifted,
    Output,
    Reply,
)
from table_controller.controller.irregularities import Decision, refused
from table_controller.controller.steps import step_to_dict
from table_controller.engine import (
    Act,
    ActionKind,
    ActStep,
    Card,
    Hand,
    Input,
    Muck,
    PostChoice,
    Show,
    describe_step,
)
from table_controller.engine.answers import default_input

if TYPE_CHECKING:
    from table_controller.controller.core import TableCore

Args = Mapping[str, Any]
Handler = Callable[["TableCore", Args, float], Decision]

_ACTIONS = {name: ActionKind(name) for name in ACTION_COMMANDS}


def _accept(result: Mapping[str, Any], effect: Callable[[float, list[Output]], None]) -> Decision:
    return Decision(Reply(True, "", result), effect)


def _in_hand(core: TableCore, *, held_ok: bool = False) -> Decision | Hand:
    if not held_ok:
        held = core.refuse_if_held()
        if held is not None:
            return held
    if core.hand is None:
        return refused("no hand in progress")
    return core.hand


def _engine(core: TableCore, inp: Input, result: Mapping[str, Any]) -> Decision:
    """Accept an engine input the hand takes (checked on the engine, not applied)."""
    hand = core.hand
    assert hand is not None
    hand.trial(inp)  # RuleError: refused, nothing changed

    def effect(now: float, out: list[Output]) -> None:
        core.apply(inp, now, out)
    return _accept(result, effect)


def act(core: TableCore, name: str, args: Args, now: float) -> Decision:
    """``fold`` / ``check`` / ``call`` / ``bet`` / ``raise`` / ``all_in`` (``seat``)."""
    hand = _in_hand(core)
    if isinstance(hand, Decision):
        return hand
    step = hand.expected()
    if not isinstance(step, ActStep):
        return refused(f"nobody is to act now; expected: {describe_step(step)}")
    seat = int(args["seat"])
    if seat != step.seat:
        return refused(f"it is seat {step.seat}'s turn, not seat {seat}'s")
    kind = _ACTIONS[name]
    inp = Act(seat, kind, int(args.get("amount", args.get("to", 0))))
    rec = hand.trial(inp)

    def effect(now: float, out: list[Output]) -> None:
        core.apply(inp, now, out)
    return _accept({"seat": seat, "action": rec.kind.value if rec.kind else kind.value,
                    "amount": rec.amount, "to": rec.to, "all_in": rec.all_in}, effect)


def start(core: TableCore, args: Args, now: float) -> Decision:
    """``start``: the next hand."""
    held = core.refuse_if_held()
    if held is not None:
        return held
    if core.hand is not None:
        return refused(f"hand {core.hand_number} is in progress")
    lost = [d for d in sorted(core.critical_devices) if core.devices.get(d) == "lost"]
    if lost:
        return refused(f"the {' and '.join(lost)} {'is' if len(lost) == 1 else 'are'} "
                       "lost: cannot start a hand")
    config, _plan = core.table.plan_hand()
    number = core.hand_number + 1
    return _accept({"hand": number, "button": config.button, "seats": list(config.seats)},
                   core.start_hand)


def _post_choice(args: Args) -> PostChoice:
    return PostChoice.of(str(args.get("post", "wait")).strip().lower())  # RuleError: refused


def seat(core: TableCore, args: Args, now: float) -> Decision:
    """``seat`` (``seat``, ``player``, ``stack``, ``post`` = wait | now)."""
    n, player, stack = int(args["seat"]), str(args["player"]), int(args["stack"])
    post = _post_choice(args)
    core.table.check_seat_player(n, player, stack)

    def effect(now: float, out: list[Output]) -> None:
        core.table.seat_player(n, player, stack, post=post)
        core.announce("seat", f"{player} takes seat {n} with {stack:,}", out, seat=n,
                      player=player, stack=stack, post=post.value)
    return _accept({"seat": n, "player": player, "stack": stack, "post": post.value}, effect)


def unseat(core: TableCore, args: Args, now: float) -> Decision:
    """``unseat`` (``seat``): the player leaves with its chips."""
    n = int(args["seat"])
    chips = core.table.check_unseat(n)

    def effect(now: float, out: list[Output]) -> None:
        core.table.unseat(n)
        core.announce("unseat", f"Seat {n} leaves with {chips:,}", out, seat=n,
                      cashed_out=chips)
    return _accept({"seat": n, "cashed_out": chips}, effect)


def buy_in(core: TableCore, args: Args, now: float) -> Decision:
    """``buy_in`` (``seat``, ``amount``)."""
    n, amount = int(args["seat"]), int(args["amount"])
    stack = core.table.check_buy_in(n, amount)
    return _accept({"seat": n, "amount": amount, "stack": stack},
                   lambda now, out: core.table.buy_in(n, amount))


def sit_out(core: TableCore, args: Args, now: float) -> Decision:
    """``sit_out`` (``seat``)."""
    n = int(args["seat"])
    core.table.check_occupied(n)
    return _accept({"seat": n}, lambda now, out: core.table.sit_out(n))


def sit_in(core: TableCore, args: Args, now: float) -> Decision:
    """``sit_in`` (``seat``, ``post`` = wait | now)."""
    n = int(args["seat"])
    post = _post_choice(args)
    core.table.check_occupied(n)
    return _accept({"seat": n, "post": post.value},
                   lambda now, out: core.table.sit_in(n, post=post))


def straddle(core: TableCore, args: Args, now: float) -> Decision:
    """``straddle`` (``seat``, ``choice`` = on | off): a straddle for the next hand."""
    n = int(args["seat"])
    choice = str(args.get("choice", "on")).strip().lower()
    if choice not in ("on", "off"):
        return refused(f"straddle: choice is on or off, not {choice!r}")
    if choice == "off":
        core.table.check_occupied(n)
        if core.table.straddler != n:
            return refused(f"seat {n} has not asked to straddle")
        return _accept({"seat": n, "straddle": 0},
                       lambda now, out: core.table.straddle(None))
    amount = core.table.check_straddle(n)  # RuleError: refused

    def effect(now: float, out: list[Output]) -> None:
        core.table.straddle(n)
        core.announce("straddle", f"seat {n} straddles the next hand: {amount:,}", out, seat=n,
                      amount=amount)
    return _accept({"seat": n, "straddle": amount}, effect)


def _void(core: TableCore, word: str, reason: str) -> Decision:
    hand = core.hand
    if hand is None:
        return refused("no hand in progress")
    refunds = {str(s): v for s, v in hand.refunds().items()}

    def effect(now: float, out: list[Output]) -> None:
        core.void_hand(word, reason, out)
    return _accept({"hand": core.hand_number, "refunds": refunds}, effect)


def misdeal(core: TableCore, args: Args, now: float) -> Decision:
    """``misdeal`` (``reason``): void the hand, replayed with the same button."""
    return _void(core, "misdeal", str(args["reason"]))


def void(core: TableCore, args: Args, now: float) -> Decision:
    """``void`` (``reason``): void the hand."""
    return _void(core, "void", str(args["reason"]))


def hold(core: TableCore, args: Args, now: float) -> Decision:
    """``hold`` (``reason``): the dealer holds the table."""
    reason = f"held by the dealer: {args['reason']!s}"

    def effect(now: float, out: list[Output]) -> None:
        core.enter_hold(reason, None, out)
    return _accept({"holds": [*(r for r, _ in core.holds), reason]}, effect)


def resume(core: TableCore, args: Args, now: float) -> Decision:
    """``resume`` (``note``): lift the hold once no holding irregularity is open."""
    if not core.holds:
        return refused("the table is not held")
    blocking = [i.id for i in core.open_irregularities() if i.hold]
    if blocking:
        ids = ", ".join(str(i) for i in blocking)
        return refused(f"resolve irregularit{'y' if len(blocking) == 1 else 'ies'} {ids} first")
    note = str(args.get("note", "resumed"))

    def effect(now: float, out: list[Output]) -> None:
        core.holds.clear()
        out.append(HoldLifted(note))
        core.announce("resume", "Play resumes", out)  # players' words; the note is the hold's
        if core.chips is not None and core.hand is not None:
            core.chips.restart(now)
        core.after_change(now, out)
    return _accept({}, effect)


def resolve(core: TableCore, args: Args, now: float) -> Decision:
    """``resolve`` (``irregularity``, ``note``): record how an irregularity was settled."""
    open_ = core.open_irregularities()
    wanted = args.get("irregularity")
    if wanted is None:
        if not open_:
            return refused("no open irregularity to resolve")
        target = open_[0].id
    else:
        target = int(wanted)
        irr = core.log.get(target)
        if irr is None and not 1 <= target < core.next_irregularity_id:
            return refused(f"no irregularity {wanted}")
        if irr is None:
            return refused(f"irregularity {wanted} is already resolved (see the journal)")
        if irr.resolution is not None:
            return refused(f"irregularity {wanted} is already resolved: {irr.resolution}")
    note = str(args["note"])

    def effect(now: float, out: list[Output]) -> None:
        core.resolve_irregularity(target, note, out)
    return _accept({"irregularity": target,
                    "open": [i.id for i in open_ if i.id != target]}, effect)


def confirm(core: TableCore, args: Args, now: float) -> Decision:
    """``confirm`` (``prompt``): the sensors' step (a post, the collection, a push) is done."""
    held = core.refuse_if_held()
    if held is not None:
        return held
    wanted = args.get("prompt")
    if wanted is not None and (core.prompt is None or core.prompt.id != int(wanted)):
        current = core.prompt.id if core.prompt is not None else None
        return refused(f"prompt {wanted} is not the current prompt ({current})")
    hand = core.hand
    if hand is None:
        return refused("no hand in progress: use start")
    step = hand.expected()
    if isinstance(step, ActStep):
        return refused(f"seat {step.seat} must act: {describe_step(step)}")
    inp = default_input(step)
    if inp is None:
        return refused(f"deal that card from the shoe: {describe_step(step)}")
    return _engine(core, inp, {"confirmed": step_to_dict(step)})


def show(core: TableCore, args: Args, now: float) -> Decision:
    """``show`` (``seat``, ``cards``): the seat tables its hand, in full, to win."""
    hand = _in_hand(core)
    if isinstance(hand, Decision):
        return hand
    n = int(args["seat"])
    cards = tuple(Card.parse(c) for c in str(args.get("cards", "")).split())
    return _engine(core, Show(n, cards), {"seat": n})


def muck(core: TableCore, args: Args, now: float) -> Decision:
    """``muck`` (``seat``): the seat throws its hand away at the showdown; it cannot win."""
    hand = _in_hand(core)
    if isinstance(hand, Decision):
        return hand
    n = int(args["seat"])
    return _engine(core, Muck(n), {"seat": n})


def status(core: TableCore, args: Args, now: float) -> Decision:
    """``status``: the table's summary (changes nothing)."""
    return Decision(Reply(True, "", core.summary()))


def _action(name: str) -> Handler:
    def handler(core: TableCore, args: Args, now: float) -> Decision:
        return act(core, name, args, now)
    handler.__doc__ = f"``{name}`` (``seat``): a player's action."
    return handler


#: The core's dispatch table: command name -> handler.
CORE_COMMANDS: Mapping[str, Handler] = {
    **{name: _action(name) for name in sorted(ACTION_COMMANDS)},
    "start": start, "seat": seat, "unseat": unseat, "buy_in": buy_in, "sit_out": sit_out,
    "sit_in": sit_in, "straddle": straddle, "misdeal": misdeal, "void": void, "hold": hold,
    "resume": resume,
    "confirm": confirm, "resolve": resolve, "status": status, "show": show, "muck": muck,
}


def decide_command(core: TableCore, cmd: DealerCommand, now: float) -> Decision:
    """Decide one of the core's commands (an unknown name is refused)."""
    handler = CORE_COMMANDS.get(cmd.name)
    if handler is None:
        return refused(f"unknown command {cmd.name!r}")
    return handler(core, cmd.args, now)
