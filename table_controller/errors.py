"""The project's one exception hierarchy, rooted at :class:`TableError`.

Every package (engine, controller, journal, feeds, hardware, calibration) raises subclasses of
:class:`TableError`, so a caller can tell a domain refusal from a programming error.
"""

from __future__ import annotations


class TableError(Exception):
    """Root of every domain error raised by the table controller."""


class RuleError(TableError):
    """An input broke a rule of the game; the state is unchanged.

    :param rule: short identifier of the rule that was broken (for example ``"min-raise"``).
    :param message: plain-words explanation naming what was wrong.
    """

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(f"[{rule}] {message}")
        self.rule = rule
        self.message = message


class IntegrityError(TableError):
    """Chips or cards are no longer accounted for: the table must hold.

    Raised when chip conservation or card uniqueness breaks. Never caught and ignored.
    """


class ChipConservationError(IntegrityError):
    """The chips on the table do not add up."""


class DuplicateCardError(IntegrityError):
    """A card appeared twice."""


class ConfigError(TableError):
    """A configuration or calibration file is invalid; the message names the key and value."""


class DeviceError(TableError):
    """A device failed or sent something that cannot be used."""


class ProtocolError(DeviceError):
    """A frame or message could not be decoded."""


class CalibrationError(TableError):
    """A calibration (deck profile, camera profile, chip zones) is invalid or incomplete."""


class JournalError(TableError):
    """The journal cannot be written or does not verify."""


class JournalDamagedError(JournalError):
    """The journal is damaged: cut, rolled back, altered, or unreadable.

    The daemon refuses to start on it (exit status 4); the message names the file and the first
    bad entry. See ``docs/operations.md``, "A damaged journal".
    """
