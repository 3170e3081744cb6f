"""Schema 2's payload compression: raw DEFLATE with a fixed preset dictionary.

A journal payload is a short JSON object (about 100 bytes) whose keys and common values repeat
from one entry to the next; compressed alone it hardly shrinks, compressed against a dictionary
of typical payloads it shrinks about five times. The dictionary is part of schema 2: it is
never changed (a new dictionary would be a new schema version); a payload unlike it is still
compressed correctly, only less.

The hash chain covers the canonical JSON, not these bytes: a damaged compressed payload either
does not decompress (:func:`inflate` returns ``None``) or gives other JSON, which does not match
its entry's hash. Either way the entry is refused.
"""

from __future__ import annotations

import zlib

#: The preset dictionary's pieces (typical payloads; the most frequent last, nearest the data).
_PIECES = (
    '{"text":"daemon stopped (exit status 0)"',
    '{"held":[],"previous":"clean stop","text":"daemon started: ',
    '"key":"',
    '"text":"hold lifted: ',
    '{"note":"',
    '"text":"table held: ',
    '"secret":{',
    '{"irregularity":{',
    '"version":1}',
    '"text":"checkpoint after hand ',
    '"open_hand":null,"pins":{',
    '"last_of":{"checkpoint":',
    '"last_hand":',
    '"last_command":{',
    '"chain":{"configs":[',
    '"state_hash":"',
    '{"state":{',
    '{"command":{"command":"unseat","seat":1},"console":"sim-dealer","reply":{"accepted":true,'
    '"reason":"","result":{"cashed_out":12137,"seat":1}},"seq":245}',
    '{"command":{"command":"all_in","seat":4},"console":"sim-dealer","reply":{"accepted":true,'
    '"reason":"","result":{"action":"bet","all_in":true,"amount":790,"seat":4,"to":790}},"seq"'
    ':33}',
    '{"command":{"command":"seat","player":"Ann","seat":1,"stack":10000},"console":"sim-dealer'
    '","reply":{"accepted":true,"reason":"","result":{"player":"Ann","post":"wait","seat":1,"s'
    'tack":10000}},"seq":1}',
    '{"command":{"command":"raise","seat":4,"to":200},"console":"sim-dealer","reply":{"accepte'
    'd":true,"reason":"","result":{"action":"raise","all_in":false,"amount":100,"seat":4,"to":'
    '200}},"seq":9}',
    '{"command":{"amount":810,"command":"bet","seat":4},"console":"sim-dealer","reply":{"accep'
    'ted":true,"reason":"","result":{"action":"bet","all_in":false,"amount":810,"seat":4,"to":'
    '810}},"seq":15}',
    '{"command":{"command":"fold","seat":1},"console":"sim-dealer","reply":{"accepted":true,"r'
    'eason":"","result":{"action":"fold","all_in":false,"amount":0,"seat":1,"to":0}},"seq":7}',
    '{"final_stacks":{"1":10000,"2":11110,"4":890,"6":3000},"text":"hand 1 ends","voided":fals'
    'e}',
    '{"command":{"command":"start"},"console":"sim-dealer","reply":{"accepted":true,"reason":"'
    '","result":{"button":1,"hand":1,"seats":[1,2,4,6]}},"seq":5}',
    '{"config":{"ante":0,"bb_ante":0,"bb_seat":4,"big_blind":100,"button":1,"extra_posts":[],"'
    'no_small_blind":false,"rake":null,"sb_seat":2,"seats":[1,2,4,6],"small_blind":50,"stacks"'
    ':{"1":10000,"2":5000,"4":2000,"6":8000}},"number":1,"text":"hand 1 starts"}',
    '{"command":{"command":"confirm","prompt":45},"console":"sim-dealer","reply":{"accepted":t'
    'rue,"reason":"","result":{"confirmed":{"kind":"show","seat":2}}},"seq":26}',
    '{"command":{"command":"call","seat":6},"console":"sim-dealer","reply":{"accepted":true,"r'
    'eason":"","result":{"action":"call","all_in":false,"amount":100,"seat":6,"to":100}},"seq"'
    ':6}',
    '{"command":{"command":"check","seat":2},"console":"sim-dealer","reply":{"accepted":true,"'
    'reason":"","result":{"action":"check","all_in":false,"amount":0,"seat":2,"to":0}},"seq":1'
    '4}',
    '{"input":{"kind":"board","occluded":[],"slots":["8s",null,null,null,null]},"text":"camera'
    ' sees the board 8s -- -- -- --"}',
    '{"input":{"kind":"card","shoe_ms":null,"uid":"040D387DD401E9"},"text":"Hole card 1 dealt '
    'to seat 2"}',
    '{"input":{"counts":[[3,2]],"kind":"zone","zone":2},"text":"Seat 2 posted the small blind:'
    ' 50"}',
)
#: Schema 2's preset dictionary (fixed).
DICTIONARY = "".join(_PIECES).encode("ascii")
#: The largest payload :func:`inflate` returns (anything larger is damage).
MAX_PAYLOAD = 64 * 1024 * 1024


def deflate(payload_json: str) -> bytes:
    """Compress a canonical JSON payload (ASCII) for schema 2.

    >>> inflate(deflate('{"text":"hand 1 starts"}'))
    '{"text":"hand 1 starts"}'
    """
    z = zlib.compressobj(9, zlib.DEFLATED, -15, 9, zlib.Z_DEFAULT_STRATEGY, DICTIONARY)
    return z.compress(payload_json.encode("utf-8")) + z.flush()


def inflate(stored: object) -> str | None:
    """Return the payload JSON text of a stored schema 2 payload, or ``None`` if it is damaged."""
    if not isinstance(stored, bytes):
        return None
    z = zlib.decompressobj(-15, zdict=DICTIONARY)
    try:
        raw = z.decompress(stored, MAX_PAYLOAD)
        if z.unconsumed_tail or not z.eof or z.unused_data:
            return None
        return raw.decode("utf-8")
    except (zlib.error, UnicodeDecodeError):
        return None
