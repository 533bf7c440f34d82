"""`yatzycam calibrate` and `yatzycam read`: the camera-free face of the vision part.

`read` prints one JSON object a line (`--json`) or one readable line per image;
an image that cannot be read is reported (verdict "error", message on stderr),
the others are still read, and the exit code is 2 at the end.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from controller.cli.args import number, printable, whole
from controller.game.view import dice_text

MAX_CORNERS = 1000  # (a calibration profile holds at most this many)


def _poly_arg(text: str) -> tuple[tuple[float, float], ...]:
    parts = [x for x in text.replace(";", ",").split(",") if x.strip()]
    if len(parts) > 2 * MAX_CORNERS:
        raise argparse.ArgumentTypeError(f"at most {MAX_CORNERS} corners")
    try:
        v = [number(x) for x in parts]
    except argparse.ArgumentTypeError as e:
        raise argparse.ArgumentTypeError(f"expected numbers X0,Y0,X1,Y1,...: {e}") from None
    if len(v) == 4:  # a rectangle x0,y0,x1,y1
        x0, y0, x1, y1 = v
        v = [x0, y0, x1, y0, x1, y1, x0, y1]
    if len(v) < 6 or len(v) % 2:
        raise argparse.ArgumentTypeError("a polygon is X0,Y0,X1,Y1 (a rectangle) or three or more X,Y corners")
    return tuple((v[i], v[i + 1]) for i in range(0, len(v), 2))


_count = whole(1, 20, "a number of dice")


def register(sub: argparse._SubParsersAction) -> None:
    c = sub.add_parser("calibrate", help="learn the tray (and die size) from an empty frame (and N flat dice)",
                       description="Find the tray floor in a frame of the empty tray; from an optional frame of "
                                   "N dice lying flat, apart, learn the die size. Writes a versioned JSON profile.")
    c.add_argument("--empty", required=True, metavar="IMG", help="frame of the empty tray")
    c.add_argument("--reference", metavar="IMG", help="frame of N dice lying flat on the tray, apart")
    c.add_argument("--dice", type=_count, metavar="N", help="how many dice the reference frame shows")
    c.add_argument("--keep-zone", type=_poly_arg, metavar="X0,Y0,X1,Y1",
                   help="where set-aside dice may lie outside the tray (default: found automatically when marked)")
    c.add_argument("--no-keep-zone", action="store_true", help="no keep zone: every die outside the tray is off the tray")
    fl = c.add_mutually_exclusive_group()
    fl.add_argument("--floor", type=_poly_arg, metavar="X0,Y0,X1,Y1,...",
                    help="the tray floor by hand (frame pixels; a rectangle or three or more corners): not looked for")
    fl.add_argument("--whole-frame", action="store_true", help="the whole frame (less a 1%% margin) is the floor")
    c.add_argument("--out", required=True, metavar="CAL.json", help="where to write the profile")
    c.set_defaults(func=cmd_calibrate)

    sc = sub.add_parser("show-calibration", help="draw a calibration profile on a frame (floor, keep zone, die size)",
                        description="Draw what a profile learnt on a frame: the tray floor (green), the keep zone "
                                    "(yellow) and a die's top face at the measured size (cyan).")
    sc.add_argument("calibration", metavar="CAL.json")
    sc.add_argument("image", metavar="IMG", help="a frame from the camera (e.g. the empty tray)")
    sc.add_argument("--out", required=True, metavar="PNG", help="where to write the drawing")
    sc.set_defaults(func=cmd_show_calibration)

    r = sub.add_parser("read", help="read the dice in images: faces, or throw again with the reason",
                       description="Read every die in each image. Without a calibration: any top-down photo of dice "
                                   "on a contrasting surface.")
    r.add_argument("images", nargs="+", metavar="IMG")
    r.add_argument("--calibration", metavar="CAL.json", help="a profile from `yatzycam calibrate`")
    r.add_argument("--dice", type=_count, metavar="N", help="how many dice there should be (missing / extra)")
    r.add_argument("--json", action="store_true", help="one JSON object a line")
    r.set_defaults(func=cmd_read)


def cmd_calibrate(args: argparse.Namespace) -> int:
    from calibration import Calibration, CalibrationError, FloorNotFound, calibrate, save
    from vision.reader import FrameError, load_image

    if args.reference and args.dice is None:
        raise CalibrationError("--reference needs --dice N (how many dice lie on it)")
    out = _out_path(args.out, CalibrationError)  # (before the work: a wrong --out wastes none)
    try:
        empty = load_image(args.empty)
        ref = load_image(args.reference) if args.reference else None
    except FrameError as e:
        raise CalibrationError(str(e)) from None
    floor = args.floor
    w, h = empty.shape[1], empty.shape[0]
    if args.whole_frame:
        from vision.tray import whole_frame

        floor = whole_frame((w, h))
    if args.keep_zone and not all(0 <= x <= w and 0 <= y <= h for x, y in args.keep_zone):
        raise CalibrationError(f"--keep-zone: a corner lies outside the {w}x{h} frame")
    try:
        cal = calibrate(empty, ref, args.dice if ref is not None else None,
                        keep_zone=args.keep_zone, auto_keep_zone=not args.no_keep_zone, floor=floor)
    except FloorNotFound as e:
        raise CalibrationError(f"{e}; give the floor by hand with --floor X0,Y0,X1,Y1,X2,Y2,... "
                               "or take the whole frame with --whole-frame") from None
    Calibration.from_json(cal.to_json(), f"--out {args.out}")  # what is written reads back (the profile's own checks)
    try:
        save(cal, out)
    except OSError as e:
        out.with_name(out.name + ".tmp").unlink(missing_ok=True)  # (save's temporary file, if it got that far)
        raise CalibrationError(f"--out {args.out}: cannot write: {e.strerror or e}") from None
    w, h = cal.image_size
    size = f", die top face about {cal.die_px:.0f} px" if cal.die_px else ", die size: measured in each frame (no reference)"
    keep = f", keep zone with {len(cal.keep_zone)} corners" if cal.keep_zone else ", no keep zone"
    print(f"{args.out}: {w}x{h}, tray floor with {len(cal.floor)} corners{size}{keep}")
    return 0


def cmd_show_calibration(args: argparse.Namespace) -> int:
    import cv2

    from calibration import CalibrationError, load
    from calibration.draw import describe, draw
    from vision.reader import FrameError, load_image

    out = _out_path(args.out, CalibrationError)
    cal = load(args.calibration)
    try:
        frame = load_image(args.image)
    except FrameError as e:
        raise CalibrationError(str(e)) from None
    try:
        written = cv2.imwrite(str(out), draw(frame, cal))
    except cv2.error:  # (no writer for the file's extension)
        written = False
    if not written:
        raise CalibrationError(f"{args.out}: cannot write the picture (a .png path in a folder that exists?)")
    print(f"{args.out}: {describe(cal)}")
    return 0


def _out_path(text: str, error: type[Exception]) -> Path:
    """An output file's path: its folder must exist, and it must not be a folder or a special file."""

    from vision.inputfile import not_a_file

    out = Path(text)
    if out.is_dir():
        raise error(f"--out {text}: is a folder; give the file to write, e.g. {out / 'calibration.json'}")
    why = not_a_file(out)
    if why:
        raise error(f"--out {text}: {why}")
    if not out.absolute().parent.is_dir():
        raise error(f"--out {text}: no such folder {out.parent} (make it first)")
    return out


def cmd_read(args: argparse.Namespace) -> int:
    from vision.reader import FrameError, load_image, read

    cal = None
    if args.calibration:
        from calibration import load

        cal = load(args.calibration)
    failed = False
    for path in args.images:
        try:
            reading = read(load_image(path), cal, args.dice)
        except FrameError as e:
            failed = True
            msg = str(e) if str(e).startswith(path) else f"{path}: {e}"
            print(printable(f"yatzycam read: {msg}"), file=sys.stderr)
            if args.json:
                print(json.dumps({"image": path, "verdict": "error", "error": msg, "reasons": [], "values": [],
                                  "dice": [], "ms": 0.0}))
            continue
        if args.json:
            print(json.dumps(reading.to_json(path)))
        else:
            faces = " ".join(str(v) for v in reading.values) or "-"
            line = f"{path}: {reading.verdict} {faces}"
            if reading.reasons:
                seen = f"; seen left to right: {dice_text(reading.seen())}" if reading.dice else ""
                line += f" (throw again: {', '.join(reading.reasons)}{seen})"
            print(line)
        sys.stdout.flush()
    return 2 if failed else 0
