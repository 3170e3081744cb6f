"""``table-controller vision read``: read the board slots from images with a camera profile.

Examples::

    table-controller vision read --calibration camera.json --json frame1.png frame2.png
    table-controller vision read --calibration camera.json --annotate seen.png frame1.png
    table-controller vision capture camera:///dev/video0 frame.png
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from hardware.base import BoardCamera

    Image = npt.NDArray[np.uint8]


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
    f.add_argument("--timeout", type=float, default=10.0,
                   help="seconds to wait for each camera frame before giving up (10)")
    f.add_argument("source", nargs="+", metavar="SOURCE")
    f.set_defaults(handler=run_capture_faces)


def run_read(args: argparse.Namespace) -> int:
    """Handle ``vision read``; returns 0, or 1 if the profile or an image is unusable."""
    import json

    from calibration.camera import load_profile
    from table_controller.cli.image_files import check_image_target, read_image, write_image
    from table_controller.errors import ConfigError, TableError

    try:
        if args.annotate and len(args.images) != 1:
            raise ConfigError("--annotate takes one image")
        if args.annotate:
            check_image_target(args.annotate, "--annotate")
        profile = load_profile(args.calibration)
    except TableError as exc:
        print(f"vision read: {exc}", file=sys.stderr)
        return 1
    recognizer = profile.recognizer()
    status = 0
    for path in args.images:
        try:
            image = read_image(path)
            h, w = image.shape[:2]
            if (w, h) != profile.image_size:
                raise ConfigError(f"{path}: image is {w}x{h}, the camera profile is for "
                                  f"{profile.image_size[0]}x{profile.image_size[1]}")
            reading = recognizer.read(image)
            if args.annotate:
                from hardware.camera.annotate import annotate

                write_image(args.annotate, annotate(image, recognizer, reading), "--annotate")
        except TableError as exc:
            print(f"vision read: {exc}", file=sys.stderr)
            status = 1
            continue
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
        if args.annotate and not args.json:
            print(f"annotated {args.annotate}", flush=True)
    return status


#: What a camera URL looks like, for the messages about one that is not.
CAMERA_URLS = "camera:///dev/video0, camera://0, camera://?url=http://HOST/stream or sim://camera"


def open_board_camera(url: str) -> BoardCamera:
    """Open the camera at ``url`` for a technician's command.

    :raises TableError: if ``url`` is not a camera URL or the camera cannot be opened.
    """
    from hardware.base import open_camera
    from table_controller.errors import ConfigError

    if "://" not in url:
        raise ConfigError(f"{url!r} is not a camera URL (use {CAMERA_URLS})")
    try:
        camera = open_camera(url)
    except ConfigError as exc:
        raise ConfigError(f"{exc} (camera URLs: {CAMERA_URLS})") from None
    camera.open()
    return camera


def first_frame(camera: BoardCamera, url: str, timeout: float, skip: int = 0) -> Image:
    """Wait for a frame from the open ``camera`` (after dropping ``skip`` frames).

    :raises DeviceError: if none came within ``timeout`` seconds.
    """
    import time

    import numpy as np

    from table_controller.errors import DeviceError

    deadline = time.monotonic() + timeout
    while True:
        now = time.monotonic()
        frame = camera.read_frame(now)
        if frame is not None:
            if skip <= 0:
                return np.asarray(frame, np.uint8)
            skip -= 1
        elif now > deadline:
            raise DeviceError(f"no frame from {url} in {timeout:g} s "
                              f"({camera.status().last_error or 'no error reported'})")
        else:
            time.sleep(0.02)


def run_capture(args: argparse.Namespace) -> int:
    """Handle ``vision capture``; returns 0, or 1 if no frame came or it cannot be written."""
    from table_controller.cli.image_files import check_image_target, write_image
    from table_controller.errors import TableError

    try:
        check_image_target(args.file)
        camera = open_board_camera(args.url)
        try:
            frame = first_frame(camera, args.url, args.timeout, max(0, args.skip))
        finally:
            camera.close()
        write_image(args.file, frame)
    except TableError as exc:
        print(f"vision capture: {exc}", file=sys.stderr)
        return 1
    h, w = frame.shape[:2]
    print(f"{args.file}: {w}x{h} frame from {args.url}")
    return 0


def run_capture_faces(args: argparse.Namespace) -> int:
    """Handle ``vision capture-faces``; returns 0 when all 52 faces were captured and saved."""
    import dataclasses
    from collections.abc import Iterator
    from pathlib import Path

    from calibration.camera import load_profile, profile_with_patches, save_profile
    from calibration.faces import FaceRegistration
    from table_controller.cli.image_files import read_image
    from table_controller.errors import CalibrationError, TableError

    def frames() -> Iterator[Image]:
        if len(args.source) == 1 and "://" in args.source[0]:
            url = args.source[0]
            camera = open_board_camera(url)
            try:
                while True:
                    yield first_frame(camera, url, args.timeout)
            finally:
                camera.close()
        for path in args.source:
            yield read_image(path)

    try:
        out = Path(args.out)
        if out.exists() and not args.force:
            raise CalibrationError(f"{out} exists (use --force to overwrite)")
        if not out.parent.is_dir():
            raise CalibrationError(f"--out {args.out!r}: folder {str(out.parent)!r} does not "
                                   "exist")
        profile = load_profile(args.calibration)
        if not 1 <= args.slot <= profile.geometry.slots:
            raise CalibrationError(f"--slot {args.slot}: the board has slots 1-"
                                   f"{profile.geometry.slots}")
        registration = FaceRegistration(profile.face_capture(slot=args.slot - 1))
        last = registration.prompt()
        print(last, flush=True)
        for frame in frames():
            h, w = frame.shape[:2]
            if (w, h) != profile.image_size:
                pw, ph = profile.image_size
                hint = (f" (ask the camera for it: width={pw}&height={ph} in the URL query)"
                        if "://" in args.source[0] else "")
                raise CalibrationError(f"frame is {w}x{h}, the camera profile is for "
                                       f"{pw}x{ph}{hint}")
            step = registration.feed(frame)
            if step.message != last:
                print(step.message, flush=True)
                last = step.message
            if step.next_card is None:
                break
        capture = registration.capture
        patched = profile_with_patches(profile, capture.patches(), capture.fine_faces(),
                                       captured=True)
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
