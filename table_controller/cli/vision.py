"""``table-controller vision read``: read the board slots from images with a camera profile.

Examples::

    table-controller vision read --calibration camera.json --json frame1.png frame2.png
    table-controller vision read --calibration camera.json --annotate seen.png frame1.png
    table-controller vision capture camera:///dev/video0 frame.png
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
    r.add_argument("--annotate", metavar="FILE", help="write the (single) image with each "
                   "slot's box, the card found, the card read and its confidence drawn on it")
    r.add_argument("images", nargs="+", metavar="IMAGE")
    r.set_defaults(handler=run_read)
    c = sub.add_parser(
        "capture",
        help="save one frame from a camera",
        description="Open the camera at URL (camera:///dev/video0, camera://0, "
        "camera://?url=rtsp://..., sim://camera?...), wait for one frame and write it to FILE "
        "(PNG or JPEG by its name): an image to calibrate from or to read. A device is asked "
        "for MJPEG frames (add ?fourcc=YUYV for raw ones).",
    )
    c.add_argument("url", metavar="URL")
    c.add_argument("file", metavar="FILE")
    c.add_argument("--timeout", type=float, default=10.0,
                   help="seconds to wait for a frame (10)")
    c.add_argument("--skip", type=int, default=0,
                   help="frames to drop first, while the camera's exposure settles (0)")
    c.set_defaults(handler=run_capture)
    f = sub.add_parser(
        "capture-faces",
        help="register the deck's faces from the camera, one card at a time",
        description="Asks for each of the 52 cards in turn (2c 2d 2h 2s 3c ... As): lay it "
        "face up, alone, in the capture slot; it is captured once it lies still, then take it "
        "out and show the next. SOURCE is a camera URL, or image files read in order (frames "
        "saved from the camera). Writes a new profile: the same calibration with these faces.",
    )
    f.add_argument("--calibration", required=True, help="camera profile (calibrate camera)")
    f.add_argument("--out", required=True, help="camera profile to write (JSON)")
    f.add_argument("--slot", type=int, default=3, help="capture slot 1-5 (3)")
    f.add_argument("--design", help="deck design name (default: the profile's)")
    f.add_argument("--force", action="store_true", help="overwrite an existing profile")
    f.add_argument("source", nargs="+", metavar="SOURCE")
    f.set_defaults(handler=run_capture_faces)


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
    if args.annotate and len(args.images) != 1:
        print("vision read: --annotate takes one image", file=sys.stderr)
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
        if args.annotate:
            from hardware.camera.annotate import annotate

            drawn = annotate(np.asarray(image, np.uint8), recognizer, reading)
            if not cv2.imwrite(args.annotate, drawn):
                print(f"vision read: --annotate {args.annotate!r} cannot be written",
                      file=sys.stderr)
                status = 1
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


def run_capture(args: argparse.Namespace) -> int:
    """Handle ``vision capture``; returns 0, or 1 if no frame came or it cannot be written."""
    import time

    import cv2

    from hardware.base import open_camera
    from table_controller.errors import TableError

    try:
        camera = open_camera(args.url)
        camera.open()
    except TableError as exc:
        print(f"vision capture: {exc}", file=sys.stderr)
        return 1
    try:
        deadline = time.monotonic() + args.timeout
        skip = max(0, args.skip)
        while True:
            now = time.monotonic()
            frame = camera.read_frame(now)
            if frame is not None:
                if skip == 0:
                    break
                skip -= 1
            if now > deadline:
                print(f"vision capture: no frame from {args.url} in {args.timeout:g} s "
                      f"({camera.status().last_error or 'no error reported'})", file=sys.stderr)
                return 1
            time.sleep(0.02)
    finally:
        camera.close()
    if not cv2.imwrite(args.file, frame):
        print(f"vision capture: {args.file!r} cannot be written", file=sys.stderr)
        return 1
    h, w = frame.shape[:2]
    print(f"{args.file}: {w}x{h} frame from {args.url}")
    return 0


def run_capture_faces(args: argparse.Namespace) -> int:
    """Handle ``vision capture-faces``; returns 0 when all 52 faces were captured and saved."""
    import dataclasses
    import time
    from collections.abc import Iterator
    from pathlib import Path

    import cv2
    import numpy as np
    import numpy.typing as npt

    from calibration.camera import load_profile, profile_with_patches, save_profile
    from calibration.faces import FaceRegistration
    from hardware.base import open_camera
    from table_controller.errors import CalibrationError, TableError

    def frames() -> Iterator[npt.NDArray[np.uint8]]:
        if len(args.source) == 1 and "://" in args.source[0]:
            camera = open_camera(args.source[0])
            camera.open()
            try:
                while True:
                    frame = camera.read_frame(time.monotonic())
                    if frame is None:
                        time.sleep(0.02)
                        continue
                    yield frame
            finally:
                camera.close()
        for path in args.source:
            image = cv2.imread(path, cv2.IMREAD_COLOR)
            if image is None:
                raise CalibrationError(f"{path}: cannot be read as an image")
            yield np.asarray(image, np.uint8)

    try:
        out = Path(args.out)
        if out.exists() and not args.force:
            raise CalibrationError(f"{out} exists (use --force to overwrite)")
        profile = load_profile(args.calibration)
        registration = FaceRegistration(profile.face_capture(slot=args.slot - 1))
        print(registration.prompt(), flush=True)
        last = ""
        for frame in frames():
            h, w = frame.shape[:2]
            if (w, h) != profile.image_size:
                raise CalibrationError(f"frame is {w}x{h}, the camera profile is for "
                                       f"{profile.image_size[0]}x{profile.image_size[1]}")
            step = registration.feed(frame)
            if step.message != last:
                print(step.message, flush=True)
                last = step.message
            if step.next_card is None:
                break
        capture = registration.capture
        patched = profile_with_patches(profile, capture.patches())
        if args.design:
            patched = dataclasses.replace(patched, design=args.design)
        faces_file = save_profile(patched, out)
        print(f"camera profile {out} (faces {faces_file.name}): 52 faces from the camera")
    except KeyboardInterrupt:
        print("vision capture-faces: stopped; nothing saved", file=sys.stderr)
        return 1
    except TableError as exc:
        print(f"vision capture-faces: {exc}", file=sys.stderr)
        return 1
    return 0
