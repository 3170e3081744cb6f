"""Reading a multipart ZeroMQ message without letting its frame count grow memory."""

from __future__ import annotations

import zmq
import zmq.asyncio


async def recv_bounded(sock: zmq.asyncio.Socket,
                       max_frames: int) -> tuple[list[zmq.Frame], bool]:
    """Receive one message, keeping at most ``max_frames`` frames.

    :returns: the first frames and the last (the body), and whether frames between were
        dropped (unread: memory stays bounded however many frames a message has).
    """
    frame = await sock.recv(copy=False)
    frames = [frame]
    more, extra = frame.more, False
    while more:  # the rest of a multipart message has arrived with its first frame
        frame = await sock.recv(zmq.NOBLOCK, copy=False)
        more = frame.more
        if len(frames) < max_frames:
            frames.append(frame)
        else:  # keep the first frames and the last (the body), drop those between
            frames[-1] = frame
            extra = True
    return frames, extra
