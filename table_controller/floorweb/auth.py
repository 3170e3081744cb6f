"""Floor web users, sessions and login rate limits.

- The users file is JSON, ``{"users": {NAME: {"role": "floor"|"surveillance", "hash": ...}}}``,
  written with mode 0600 by :func:`add_user`; passwords are stored as argon2id hashes
  (argon2-cffi's :class:`~argon2.PasswordHasher`, its RFC 9106 defaults).
- :class:`Sessions`: random tokens (``secrets.token_urlsafe(32)``) kept server-side, each with
  its own CSRF token, expiring ``ttl`` seconds after login or ``idle`` seconds after last use.
- :class:`RateLimiter`: failed logins per key (a user name, an address) in a sliding window.

Times are monotonic seconds passed in (or read from the injected clock).
"""

from __future__ import annotations

import json
import os
import re
import secrets
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from table_controller.errors import ConfigError
from table_controller.floorweb.fanout import ROLES

_NAME = re.compile(r"^[A-Za-z0-9._-]{1,64}$")
#: Shortest password :func:`add_user` accepts.
MIN_PASSWORD = 8


class UserFileError(ConfigError):
    """The users file is missing, unreadable or malformed; or a user cannot be added."""


@dataclass(frozen=True, slots=True)
class User:
    """One floor web user."""

    name: str
    role: str
    hash: str


class Users:
    """The users of one floor web server.

    :param users: name -> user.
    :param hasher: the password hasher (tests may pass cheaper parameters).
    """

    def __init__(self, users: Mapping[str, User], hasher: PasswordHasher | None = None) -> None:
        self.users = dict(users)
        self.hasher = hasher or PasswordHasher()
        self._dummy = self.hasher.hash(secrets.token_hex(16))

    @classmethod
    def load(cls, path: Path, hasher: PasswordHasher | None = None) -> Users:
        """Read a users file.

        :raises UserFileError: naming the file and what is wrong.
        """
        try:
            obj = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise UserFileError(f"{path}: no users file (create one with 'table-controller "
                                f"floor-web add-user {path} NAME --role floor')") from None
        except (OSError, ValueError) as exc:
            raise UserFileError(f"{path}: cannot read the users file: {exc}") from exc
        raw = obj.get("users") if isinstance(obj, dict) else None
        if not isinstance(raw, dict):
            raise UserFileError(f"{path}: expected {{\"users\": {{NAME: {{...}}}}}}")
        users = {}
        for name, entry in raw.items():
            if not isinstance(entry, dict) or entry.get("role") not in ROLES or not isinstance(
                    entry.get("hash"), str) or not _NAME.match(name):
                raise UserFileError(f"{path}: users.{name}: needs a role ({' or '.join(ROLES)}) "
                                    "and a hash")
            users[name] = User(name, entry["role"], entry["hash"])
        return cls(users, hasher)

    def verify(self, name: str, password: str) -> User | None:
        """Return the user if ``password`` is right (an unknown name costs the same time)."""
        user = self.users.get(name)
        try:
            self.hasher.verify(user.hash if user else self._dummy, password)
        except (VerificationError, InvalidHashError):
            return None
        return user


def add_user(path: Path, name: str, role: str, password: str,
             hasher: PasswordHasher | None = None) -> None:
    """Add (or replace) ``name`` in the users file, creating it with mode 0600.

    :raises UserFileError: a bad name, role or password, or a malformed existing file.
    """
    if not _NAME.match(name):
        raise UserFileError(f"user name {name!r}: letters, digits, '.', '_' and '-' (1..64)")
    if role not in ROLES:
        raise UserFileError(f"role {role!r}: one of {', '.join(ROLES)}")
    if len(password) < MIN_PASSWORD:
        raise UserFileError(f"the password must have at least {MIN_PASSWORD} characters")
    users = Users.load(path).users if path.exists() else {}
    users[name] = User(name, role, (hasher or PasswordHasher()).hash(password))
    body = {"users": {u.name: {"role": u.role, "hash": u.hash} for u in users.values()}}
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(body, f, indent=2)
        f.write("\n")
    os.replace(tmp, path)


@dataclass(slots=True)
class Session:
    """One logged-in browser."""

    token: str
    user: str
    role: str
    csrf: str
    expires: float
    idle_until: float


class Sessions:
    """Server-side sessions.

    :param ttl: seconds a session lasts after login.
    :param idle: seconds a session lasts without use.
    """

    def __init__(self, *, ttl: float = 12 * 3600, idle: float = 3600,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.ttl = ttl
        self.idle = idle
        self._clock = clock
        self._sessions: dict[str, Session] = {}

    def create(self, user: User) -> Session:
        """Start a session for ``user``."""
        now = self._clock()
        self._purge(now)
        s = Session(secrets.token_urlsafe(32), user.name, user.role, secrets.token_urlsafe(24),
                    now + self.ttl, now + self.idle)
        self._sessions[s.token] = s
        return s

    def get(self, token: str | None, *, touch: bool = True) -> Session | None:
        """Return the live session of ``token`` (``None``: unknown or expired)."""
        if not token:
            return None
        s = self._sessions.get(token)
        now = self._clock()
        if s is None:
            return None
        if now >= s.expires or now >= s.idle_until:
            del self._sessions[token]
            return None
        if touch:
            s.idle_until = min(s.expires, now + self.idle)
        return s

    def end(self, token: str | None) -> None:
        """End a session (logout)."""
        if token:
            self._sessions.pop(token, None)

    def __len__(self) -> int:
        return len(self._sessions)

    def _purge(self, now: float) -> None:
        for token in [t for t, s in self._sessions.items()
                      if now >= s.expires or now >= s.idle_until]:
            del self._sessions[token]


class RateLimiter:
    """At most ``limit`` failures per key in any ``window`` seconds.

    >>> r = RateLimiter(limit=2, window=60, clock=lambda: 0.0)
    >>> r.failed("ann"); r.failed("ann"); r.retry_after("ann")
    60.0
    >>> r.retry_after("bo")
    0.0
    """

    def __init__(self, *, limit: int = 5, window: float = 300.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.limit = limit
        self.window = window
        self._clock = clock
        self._fails: dict[str, deque[float]] = {}

    def _recent(self, key: str) -> deque[float]:
        q = self._fails.get(key)
        if q is None:
            return deque()
        cutoff = self._clock() - self.window
        while q and q[0] <= cutoff:
            q.popleft()
        if not q:
            del self._fails[key]
        return q

    def retry_after(self, key: str) -> float:
        """Seconds until ``key`` may try again (0: now)."""
        q = self._recent(key)
        if len(q) < self.limit:
            return 0.0
        return max(0.0, q[-self.limit] + self.window - self._clock())

    def failed(self, key: str) -> None:
        """Count one failure."""
        self._recent(key)
        q = self._fails.setdefault(key, deque())
        q.append(self._clock())
        while len(q) > self.limit:
            q.popleft()

    def clear(self, key: str) -> None:
        """Forget ``key``'s failures (after a good login)."""
        self._fails.pop(key, None)
