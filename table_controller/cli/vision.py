"""``table-controller vision read``: read the board slots from images with a camera profile.

Example::

    table-controller vision read --calibration camera.json --json frame1.png frame2.png
"""

from __future__ import annotations

import argparse
import sys


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``vision``."""
    p = subparsers.add_parser("vision", help="board camera tools (read slots from images)")
    sub = p.add_subparsers(dest="vision_command", metavar="ACTION", required=True)
    r = sub.add_parser(
        "read",
        help="read the five board slots from images",
        description="For each image, print the board slots: card (with confidence), empty, "
        "occluded or uncertain. A card the recogniser is not sure of is reported as uncertain.",
    )
    r.add_argument("--calibration", required=True, help="camera profile (calibrate camera)")
    r.add_argument("--json", action="store_true", help="one JSON object per image, per line")
    r.add_argument("images", nargs="+", metavar="IMAGE")
    r.set_defaults(handler=run_read)


def run_read(args: argparse.Namespace) -> int:
    """Handle ``vision read``; returns 0, or 1 if the profile or an image is unusable."""
    import json

    import cv2
    import numpy as np

    from calibration.camera import load_profile
    from table_controller.errors import TableError

    try:
        profile = load_profile(args.calibration)
    except TableError as exc:
        print(f"vision read: {exc}", file=sys.stderr)
        return 1
    recognizer = profile.recognizer()
    status = 0
    for path in args.images:
        image = cv2.imread(path, cv2.IMREAD_COLOR)
        if image is None:
            print(f"vision read: {path}: cannot be read as an image", file=sys.stderr)
            status = 1
            continue
        h, w = image.shape[:2]
        if (w, h) != profile.image_size:
            print(f"vision read: {path}: image is {w}x{h}, the camera profile is for "
                  f"{profile.image_size[0]}x{profile.image_size[1]}", file=sys.stderr)
            status = 1
            continue
        reading = recognizer.read(np.asarray(image, np.uint8))
        if args.json:
            doc = {"image": path, "slots": [s.as_json() for s in reading.slots]}
            print(json.dumps(doc), flush=True)
        else:
            parts = []
            for i, s in enumerate(reading.slots, 1):
                if s.status == "card" and s.card is not None:
                    parts.append(f"{i}:{s.card.code}({s.confidence:.2f})")
                else:
                    parts.append(f"{i}:{s.status}")
            print(f"{path}: " + "  ".join(parts), flush=True)
    return status
