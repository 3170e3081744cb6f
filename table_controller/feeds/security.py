"""CURVE keys, allow-lists and the one ZAP authenticator of a daemon's ZeroMQ context.

Rules this module keeps (see NOTES.md, "CURVE"):

1. One :class:`CurveServer` per :class:`zmq.asyncio.Context`: it runs the single
   :class:`zmq.auth.asyncio.AsyncioAuthenticator` of that context and answers every domain through
   a callback backed by that domain's :class:`KeyAllowList`. ``CURVE_ALLOW_ANY`` and certificate
   folders are never used (a callback anywhere disables the folders, and ``ALLOW_ANY`` opens every
   domain).
2. Domains: :data:`DISPLAYS_DOMAIN` (the surveillance feed and its snapshot endpoint) and
   :data:`CONSOLES_DOMAIN` (the dealer command endpoint). A key is allowed only if it is on that
   domain's list; an unknown domain is refused.
3. Removing a key from a list refuses new handshakes only; the owner of the socket must close and
   rebind it to cut existing connections (:meth:`table_controller.feeds.FeedHub.revoke_display`).
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import zmq
import zmq.asyncio
import zmq.auth
import zmq.auth.asyncio

from table_controller.feeds.messages import FeedError
from table_controller.ratelimit import RateLimitedLog

#: ZAP domain of the surveillance feed and its snapshot endpoint.
DISPLAYS_DOMAIN = "displays"
#: ZAP domain of the dealer command endpoint.
CONSOLES_DOMAIN = "consoles"

log = logging.getLogger(__name__)


class KeyFileError(FeedError):
    """A key file or key directory is missing or invalid."""


def _z85(key: bytes | str) -> bytes:
    k = key.encode() if isinstance(key, str) else key
    if len(k) != 40:
        raise KeyFileError(f"a CURVE public key is 40 z85 characters, got {len(k)}: {k!r}")
    return k


def load_public_key(path: str | os.PathLike[str]) -> bytes:
    """Read the z85 public key from a ``.key`` (or ``.key_secret``) certificate file.

    :raises KeyFileError: if the file is missing or not a certificate.
    """
    try:
        public, _ = zmq.auth.load_certificate(os.fspath(path))
    except (OSError, ValueError) as exc:
        raise KeyFileError(f"cannot read public key {path}: {exc}") from exc
    return public


def load_key_pair(path: str | os.PathLike[str]) -> tuple[bytes, bytes]:
    """Read ``(public, secret)`` z85 keys from a ``.key_secret`` certificate file.

    :raises KeyFileError: if the file is missing or holds no secret key.
    """
    try:
        public, secret = zmq.auth.load_certificate(os.fspath(path))
    except (OSError, ValueError) as exc:
        raise KeyFileError(f"cannot read key pair {path}: {exc}") from exc
    if not secret:
        raise KeyFileError(f"{path} holds no secret key (use the .key_secret file)")
    return public, secret


def create_key_pair(directory: str | os.PathLike[str], name: str) -> tuple[Path, Path]:
    """Create ``NAME.key`` (public) and ``NAME.key_secret`` (secret, mode 0600) in ``directory``.

    :returns: the two paths (public, secret).
    :raises KeyFileError: if the name is not a plain file name or the files already exist.
    """
    if not name or "/" in name or name.startswith(".") or "\x00" in name:
        raise KeyFileError(f"key name must be a plain file name, got {name!r}")
    d = Path(directory)
    public, secret = d / f"{name}.key", d / f"{name}.key_secret"
    for p in (public, secret):
        if p.exists():
            raise KeyFileError(f"{p} already exists (refusing to overwrite a key)")
    try:
        d.mkdir(parents=True, exist_ok=True)
        pub, sec = zmq.auth.create_certificates(os.fspath(d), name)
        os.chmod(sec, 0o600)
    except OSError as exc:
        raise KeyFileError(f"cannot write keys in {d}: {exc}") from exc
    return Path(pub), Path(sec)


class KeyAllowList:
    """A mutable set of allowed z85 public keys (one per display or console).

    >>> allow = KeyAllowList()
    >>> allow.add(b"rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7")
    >>> allow.allows("rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7")
    True
    """

    def __init__(self, keys: Iterable[bytes | str] = ()) -> None:
        self._keys: set[bytes] = {_z85(k) for k in keys}
        self._names: dict[bytes, str] = {}

    @classmethod
    def from_dir(cls, directory: str | os.PathLike[str]) -> KeyAllowList:
        """Load every ``*.key`` public certificate in ``directory`` (named by its file name).

        :raises KeyFileError: if the directory is missing or a file is not a certificate.
        """
        d = Path(directory)
        if not d.is_dir():
            raise KeyFileError(f"key directory {d} does not exist")
        allow = cls()
        for p in sorted(d.glob("*.key")):
            allow.add(load_public_key(p), name=p.stem)
        return allow

    def add(self, key: bytes | str, *, name: str | None = None) -> None:
        """Allow a key (``name``: what the journal calls it, the key file's name)."""
        k = _z85(key)
        self._keys.add(k)
        if name is not None:
            self._names[k] = name

    def remove(self, key: bytes | str) -> None:
        """Stop allowing a key (new handshakes only; see the module rules)."""
        self._keys.discard(_z85(key))

    def name_of(self, key: bytes | str) -> str | None:
        """Return the name of an allowed key (its file name), or ``None``."""
        k = key.encode() if isinstance(key, str) else key
        return self._names.get(k) if k in self._keys else None

    def allows(self, key: bytes | str | None) -> bool:
        """Return ``True`` if ``key`` (z85) is on the list."""
        if key is None:
            return False
        k = key.encode() if isinstance(key, str) else key
        return k in self._keys

    def __len__(self) -> int:
        return len(self._keys)


class _Provider:
    """Credentials provider for :meth:`Authenticator.configure_curve_callback`."""

    def __init__(self, allow: KeyAllowList) -> None:
        self.allow = allow
        self._logged: set[bytes] = set()
        self._rlog = RateLimitedLog(log, interval=60.0, burst=10)

    def callback(self, domain: str, key: bytes) -> bool:
        ok = self.allow.allows(key)
        if not ok and key not in self._logged:
            # once per key (a refused client retries its handshake every reconnect interval),
            # and at most 10 lines a minute (a client inventing keys)
            if len(self._logged) < 1000:
                self._logged.add(key)
            self._rlog.warning("refused", "CURVE: refused key %s in domain %s",
                               key.decode(errors="replace")[:40], domain, now=time.monotonic())
        return ok


@dataclass(frozen=True, slots=True)
class ClientKeys:
    """What a client (display or console) needs for CURVE: its key pair and the server's key."""

    public: bytes
    secret: bytes
    server_public: bytes

    @classmethod
    def from_files(
        cls, client_secret_file: str | os.PathLike[str], server_public_file: str | os.PathLike[str]
    ) -> ClientKeys:
        """Load the client's ``.key_secret`` and the server's ``.key`` file.

        :raises KeyFileError: if a file is missing or invalid.
        """
        public, secret = load_key_pair(client_secret_file)
        return cls(public, secret, load_public_key(server_public_file))

    def apply(self, sock: zmq.Socket[Any]) -> None:
        """Make ``sock`` a CURVE client of the server (before connecting)."""
        sock.curve_publickey = self.public
        sock.curve_secretkey = self.secret
        sock.curve_serverkey = self.server_public


class CurveServer:
    """The server keys and the ZAP authenticator of one context.

    :param ctx: the daemon's context (one :class:`CurveServer` per context).
    :param public_key: server public key (z85).
    :param secret_key: server secret key (z85).
    :param displays: keys allowed on the surveillance feed and its snapshot endpoint.
    :param consoles: keys allowed on the command endpoint.
    """

    def __init__(
        self,
        ctx: zmq.asyncio.Context,
        *,
        public_key: bytes,
        secret_key: bytes,
        displays: KeyAllowList,
        consoles: KeyAllowList,
    ) -> None:
        self.ctx = ctx
        self.public_key = _z85(public_key)
        self.secret_key = _z85(secret_key)
        self.displays = displays
        self.consoles = consoles
        self._auth: zmq.auth.asyncio.AsyncioAuthenticator | None = None

    @classmethod
    def from_files(
        cls,
        ctx: zmq.asyncio.Context,
        *,
        server_secret_key: str | os.PathLike[str],
        displays_dir: str | os.PathLike[str],
        consoles_dir: str | os.PathLike[str],
    ) -> CurveServer:
        """Load the server key pair and the two allow-list directories.

        :raises KeyFileError: if a file or directory is missing or invalid.
        """
        public, secret = load_key_pair(server_secret_key)
        return cls(
            ctx, public_key=public, secret_key=secret,
            displays=KeyAllowList.from_dir(displays_dir),
            consoles=KeyAllowList.from_dir(consoles_dir),
        )

    @classmethod
    def from_config(cls, ctx: zmq.asyncio.Context, keys: Any) -> CurveServer | None:
        """Build from a :class:`table_controller.config.KeysSection` (``None`` if security is off).

        :raises KeyFileError: if a key file or directory is missing or invalid.
        """
        if keys.security != "curve":
            return None
        return cls.from_files(
            ctx, server_secret_key=keys.server_secret_key, displays_dir=keys.displays_dir,
            consoles_dir=keys.consoles_dir,
        )

    @property
    def started(self) -> bool:
        """``True`` while the authenticator runs."""
        return self._auth is not None

    def start(self) -> None:
        """Start the authenticator (inside the running event loop; idempotent)."""
        if self._auth is not None:
            return
        auth = zmq.auth.asyncio.AsyncioAuthenticator(self.ctx, log=log)
        auth.start()
        for domain, allow in ((DISPLAYS_DOMAIN, self.displays), (CONSOLES_DOMAIN, self.consoles)):
            auth.configure_curve_callback(domain, credentials_provider=_Provider(allow))
        self._auth = auth

    def stop(self) -> None:
        """Stop the authenticator (idempotent)."""
        if self._auth is not None:
            self._auth.stop()
            self._auth = None

    def secure(self, sock: zmq.Socket[Any], domain: str) -> None:
        """Make ``sock`` a CURVE server checked against ``domain``'s list (before binding).

        :raises FeedError: if the authenticator is not started or the domain is unknown.
        """
        if self._auth is None:
            raise FeedError("CurveServer.start() must run before securing sockets")
        if domain not in (DISPLAYS_DOMAIN, CONSOLES_DOMAIN):
            raise FeedError(f"unknown ZAP domain {domain!r}")
        sock.curve_secretkey = self.secret_key
        sock.curve_publickey = self.public_key
        sock.curve_server = True
        sock.zap_domain = domain.encode()
