"""ZeroMQ feeds: per-audience publishers, snapshots, heartbeats, CURVE keys, dealer commands.

Public API:

- :class:`FeedHub` (:mod:`.hub`) — PUB sockets for the public, dealer and surveillance feeds,
  snapshot endpoints (Clone pattern), heartbeats, hole-card redaction and guard.
- :class:`FeedClient` (:mod:`.client`) — what a display uses: subscribe, snapshot, gap detection,
  lost / recovered.
- :class:`CommandServer` (:mod:`.commands`), :class:`CommandClient` (:mod:`.console_client`) — the
  dealer command endpoint with idempotent replies stored in the journal, and its Lazy Pirate
  client.
- :class:`~.keeper.HeartbeatKeeper` (:mod:`.keeper`) — the heartbeats from a thread while the
  event loop is blocked in a journal write.
- :class:`CurveServer`, :class:`KeyAllowList`, :class:`ClientKeys`, :func:`create_key_pair`
  (:mod:`.security`).
- Messages (:mod:`.messages`): :class:`Message`, :func:`decode`, :class:`Feed`, :func:`redact`,
  :func:`check_no_hole_cards`, :data:`COMMANDS`, :class:`Command`, :class:`CommandReply`,
  :func:`topic` / :func:`table_topic` (a feed message's topic is ``TABLE/TYPE``).

The schema of every message is in ``docs/messages.md``.
"""

from table_controller.feeds.client import (
    ClientState,
    FeedClient,
    FeedEvent,
    FeedEventKind,
)
from table_controller.feeds.commands import (
    CommandHandler,
    CommandServer,
    CommittedCallback,
)
from table_controller.feeds.console_client import CommandClient
from table_controller.feeds.hub import FeedEndpoints, FeedHub
from table_controller.feeds.messages import (
    COMMANDS,
    HOLE_CARD_KEYS,
    MASK,
    PROTOCOL_VERSION,
    REDACTED_FEEDS,
    Command,
    CommandError,
    CommandReply,
    CommandTimeout,
    Feed,
    FeedError,
    HoleCardLeak,
    KeyRefused,
    Message,
    MessageError,
    check_no_hole_cards,
    decode,
    parse_command,
    redact,
    table_topic,
    topic,
)
from table_controller.feeds.security import (
    CONSOLES_DOMAIN,
    DISPLAYS_DOMAIN,
    ClientKeys,
    CurveServer,
    KeyAllowList,
    KeyFileError,
    create_key_pair,
    load_key_pair,
    load_public_key,
)

__all__ = [
    "COMMANDS",
    "CONSOLES_DOMAIN",
    "DISPLAYS_DOMAIN",
    "HOLE_CARD_KEYS",
    "MASK",
    "PROTOCOL_VERSION",
    "REDACTED_FEEDS",
    "ClientKeys",
    "ClientState",
    "Command",
    "CommandClient",
    "CommandError",
    "CommandHandler",
    "CommandReply",
    "CommandServer",
    "CommandTimeout",
    "CommittedCallback",
    "CurveServer",
    "Feed",
    "FeedClient",
    "FeedEndpoints",
    "FeedError",
    "FeedEvent",
    "FeedEventKind",
    "FeedHub",
    "HoleCardLeak",
    "KeyAllowList",
    "KeyFileError",
    "KeyRefused",
    "Message",
    "MessageError",
    "check_no_hole_cards",
    "create_key_pair",
    "decode",
    "load_key_pair",
    "load_public_key",
    "parse_command",
    "redact",
    "table_topic",
    "topic",
]
