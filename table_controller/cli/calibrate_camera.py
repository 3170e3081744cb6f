"""``table-controller calibrate camera``: board area, slots and deck faces into a camera profile.

Examples (one command each)::

    table-controller calibrate camera --print-markers markers.pdf

    table-controller calibrate camera --image board.png --faces cards/kennard
        --out camera.json --preview camera-preview.png
    table-controller calibrate camera --image board.png --faces cards/kennard --out camera.json
        --corners 480,300,1440,300,1460,700,460,700
"""

from __future__ import annotations

import argparse
import sys


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``calibrate camera``."""
    p = subparsers.add_parser(
        "camera",
        help="calibrate the board camera (board area, slots, deck faces)",
        description="Find the board area from the four ArUco markers (DICT_4X4_50, ids 0-3 "
        "clockwise from top-left) or from --corners, register the deck's faces, and write a "
        "camera profile (JSON plus <name>.faces.npz) and an optional preview PNG.",
    )
    p.add_argument("--print-markers", metavar="FILE", help="write the four board markers at "
                   "true size to FILE (.pdf or .png, an A4 sheet with a 100 mm scale bar) and "
                   "stop")
    p.add_argument("--image", help="calibration image (the board, best empty)")
    p.add_argument("--corners", help="board corners x1,y1,x2,y2,x3,y3,x4,y4 clockwise from "
                   "top-left, instead of the markers")
    p.add_argument("--faces", help="folder of the deck's 52 faces <rank><suit>.png")
    p.add_argument("--design", help="name of the deck design (default: the folder's name)")
    p.add_argument("--out", help="camera profile to write (JSON)")
    p.add_argument("--preview", help="PNG to write with the board area and slots drawn")
    p.add_argument("--board-mm", default="400x120", help="board area size WxH in mm (400x120)")
    p.add_argument("--card-mm", help="card size WxH in mm, measured on a card of the deck "
                   "(default: from the faces' proportions: 63x88 poker, 57x89 bridge, else 88 "
                   "mm tall)")
    p.add_argument("--force", action="store_true", help="overwrite an existing profile")
    p.set_defaults(handler=run)


def _size(text: str, what: str) -> tuple[float, float]:
    from table_controller.errors import CalibrationError

    try:
        w, h = (float(v) for v in text.lower().split("x"))
    except ValueError:
        raise CalibrationError(f"{what}: {text!r} is not WxH in millimetres") from None
    return w, h


def run(args: argparse.Namespace) -> int:
    """Handle ``calibrate camera``; returns the exit status."""
    from pathlib import Path

    from calibration.camera import (
        calibrate_camera,
        card_size,
        draw_preview,
        layout_report,
        parse_corners,
        save_profile,
    )
    from calibration.faces import load_face_folder
    from hardware.camera.geometry import BoardGeometry
    from table_controller.cli.image_files import check_image_target, read_image, write_image
    from table_controller.errors import CalibrationError, TableError

    try:
        if args.print_markers:
            from hardware.camera.markers import SCALE_BAR_MM, write_marker_sheet

            sheet = write_marker_sheet(args.print_markers)
            print(f"marker sheet {sheet}: A4, markers ids 0-3 (DICT_4X4_50) 40 mm; print at "
                  f"100% and check that its scale bar measures {SCALE_BAR_MM:g} mm")
            return 0
        lacking = [f"--{n}" for n in ("image", "faces", "out") if not getattr(args, n)]
        if lacking:
            raise CalibrationError(f"{', '.join(lacking)} needed (or --print-markers FILE)")
        out = Path(args.out)
        if out.exists() and not args.force:
            raise CalibrationError(f"{out} exists (use --force to overwrite)")
        if not out.parent.is_dir():
            raise CalibrationError(f"--out {args.out!r}: folder {str(out.parent)!r} does not "
                                   "exist")
        if args.preview:
            check_image_target(args.preview, "--preview")
        image = read_image(args.image, "--image")
        board_mm = _size(args.board_mm, "--board-mm")
        card_mm = _size(args.card_mm, "--card-mm") if args.card_mm else None
        faces = load_face_folder(args.faces)
        size = card_size(faces, card_mm)
        geometry = BoardGeometry(board_mm=board_mm, card_mm=size)
        corners = parse_corners(args.corners) if args.corners else None
        design = args.design or Path(args.faces).resolve().name
        profile = calibrate_camera(image, faces, corners=corners,
                                   geometry=geometry, design=design, card_mm=size)
        faces_file = save_profile(profile, out)
        print(f"camera profile {out} (faces {faces_file.name}); board area from "
              f"{profile.source}: " + " ".join(f"({x:.0f},{y:.0f})"
                                               for x, y in profile.board_corners_px))
        source = "as given" if card_mm else "from the faces' proportions"
        for line in layout_report(profile.geometry, source):
            print(line)
        print(f"felt: {profile.felt_channel}, ratio {profile.felt_ratio:.2f} (cards are told "
              f"from felt by it; recalibrate if the cloth or the lighting changes)")
        if args.preview:
            write_image(args.preview, draw_preview(image, profile), "--preview")
            print(f"preview {args.preview}")
    except TableError as exc:
        print(f"calibrate camera: {exc}", file=sys.stderr)
        return 1
    return 0
