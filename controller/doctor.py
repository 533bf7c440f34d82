"""`yatzycam doctor`: is this Pi ready to keep score? Each check says what it found and how to fix it.

Checks, in order (``CHECKS``): config, python (numpy/OpenCV/picamera2 import in
this venv and apt's numpy is not shadowed), camera (opens, gives frames, frame
rate, size), gpio (which pin factory, which gpiochip; lgpio on a Pi 5), pins
(each button and LED pin can be claimed), display (framebuffer device, depth and
size from sysfs), calibration (present, matches the camera size, the live frame
still shows the calibrated tray: ``calibration.check_frame``), database (opens, writable, ``PRAGMA integrity_check``),
disk (free space where the state lives).

Where doctor looks is a :class:`Probe` (filesystem root for /sys, /proc and
/usr/lib, pin factory, camera opener, clock), so tests point it at temporary
files, gpiozero's MockFactory and a folder camera.
"""

from __future__ import annotations

import importlib
import json
import os
import shutil
import sqlite3
import sys
import time
import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller import config as config_mod
from controller.config import Config, ConfigError

CHECKS = ("config", "python", "camera", "gpio", "pins", "display", "calibration", "database", "disk")
SERVICE_HINT = "if the service is running it holds the device: sudo systemctl stop yatzycam, run doctor, then start it"


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str
    fix: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "ok": self.ok, "detail": self.detail, "fix": self.fix}


@dataclass(frozen=True)
class Probe:
    """Where the checks look. The defaults are the real machine."""

    root: Path = Path("/")  # prefix for /sys, /proc, /usr/lib/python3/dist-packages
    pin_factory: Any = None  # None: gpiozero's default factory
    open_camera: Callable[[Config], Any] = config_mod.open_camera
    clock: Callable[[], float] = time.monotonic
    frames: int = 10  # frames captured to measure the frame rate
    min_fps: float = 2.0
    min_free_mb: int = 200

    def path(self, absolute: str) -> Path:
        return self.root / absolute.lstrip("/")


@dataclass
class _Run:
    """What one check leaves for a later one (the live frame for the calibration check)."""

    frame: Any = None
    factory: Any = None
    notes: list[str] = field(default_factory=list)
    picture: Path | None = None  # where to draw the calibration on the live frame when it no longer fits


def _fail(name: str, detail: str, fix: str) -> Check:
    return Check(name, False, detail, fix)


def _first_line(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return f"{type(e).__name__}: {text[0]}" if text else type(e).__name__


# ------------------------------------------------------------------ python


def _apt_copy(probe: Probe, module: str) -> Path | None:
    dist = probe.path("/usr/lib/python3/dist-packages")
    for p in (dist / module, *sorted(dist.glob(f"{module}.cpython-*.so"))):
        if p.exists():
            return p
    return None


def _dist_version(name: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(name)
    except PackageNotFoundError:
        return ""


def check_python(cfg: Config, probe: Probe, run: _Run) -> Check:
    wanted = ["numpy", "cv2", "PIL", "gpiozero"] + (["picamera2"] if cfg.camera.source == "picamera2" else [])
    found, problems = [], []
    for name in wanted:
        try:
            mod = importlib.import_module(name)
        except Exception as e:  # noqa: BLE001 - ImportError, or numpy's "dtype size changed" ValueError
            problems.append(f"{name}: {_first_line(e)}")
            continue
        found.append(f"{name} {getattr(mod, '__version__', '') or _dist_version(name)}".strip())
    for name, apt in (("numpy", "python3-numpy"), ("cv2", "python3-opencv")):
        mod = sys.modules.get(name)
        system = _apt_copy(probe, name)
        if mod is None or system is None or not getattr(mod, "__file__", None):
            continue
        if not Path(mod.__file__).resolve().is_relative_to(system.parent.resolve()):
            problems.append(f"{name} from {Path(mod.__file__).parent} shadows apt's {apt} in {system.parent}")
    detail = f"{sys.executable}: " + ", ".join(found)
    if "cv2" in sys.modules:
        try:
            from vision.onnxnet import describe

            detail += f"; the reader's nets run by {describe()}"
        except Exception as e:  # noqa: BLE001 - a bad $YATZYCAM_DNN, or a broken onnxruntime
            return _fail("python", detail + f"; the reader's engine: {_first_line(e)}",
                         "set YATZYCAM_DNN to onnxruntime or opencv, or leave it unset (onnxruntime when it "
                         "imports); onnxruntime goes into the venv with pip install --no-deps onnxruntime")
    if problems:
        return _fail(
            "python",
            detail + "; " + "; ".join(problems),
            "take numpy, OpenCV and picamera2 from apt: sudo apt install python3-picamera2 python3-numpy "
            "python3-opencv, and a venv made with --system-site-packages without its own numpy/OpenCV "
            "(re-run sudo systemd/install.sh; or pip uninstall numpy opencv-python-headless inside the venv)",
        )
    return Check("python", True, detail)


# ------------------------------------------------------------------ camera


def check_camera(cfg: Config, probe: Probe, run: _Run) -> Check:
    cam = cfg.camera
    what = f"{cam.source} camera" + (f" {cam.device!r}" if cam.source == "opencv" else "")
    fixes = {
        "picamera2": "check the ribbon cable (contacts towards the board), `rpicam-hello --list-cameras`, "
        "and that the user is in the video group; " + SERVICE_HINT,
        "opencv": "check the USB camera with `v4l2-ctl --list-devices` and camera.device; " + SERVICE_HINT,
        "folder": "camera.folder must name a folder of images",
        "sim": "the simulated camera needs the vision package",
    }
    try:
        source = probe.open_camera(cfg)
    except Exception as e:  # noqa: BLE001 - CameraError and whatever a driver raises
        return _fail("camera", f"{what} did not open: {_first_line(e)}", fixes[cam.source])
    try:
        t0 = probe.clock()
        frames = [source.capture() for _ in range(probe.frames)]
        dt = probe.clock() - t0
    except Exception as e:  # noqa: BLE001
        return _fail("camera", f"{what} opened but gave no frame: {_first_line(e)}", fixes[cam.source])
    finally:
        source.close()
    frame = frames[-1]
    h, w = frame.shape[:2]
    fps = len(frames) / dt if dt > 0 else float("inf")
    detail = f"{what}: {len(frames)} frames {w}x{h}, {fps:.1f} frames/s"
    if frame.ndim != 3 or frame.shape[2] != 3 or frame.dtype.name != "uint8":
        return _fail("camera", f"{detail}; frames are {frame.shape} {frame.dtype}, not BGR uint8", fixes[cam.source])
    if cam.source in ("picamera2", "opencv", "sim") and (w, h) != cam.size:
        return _fail("camera", f"{detail}; camera.size asks for {cam.size[0]}x{cam.size[1]}",
                     "set camera.size to a size the camera gives, e.g. [1280, 960], then calibrate again")
    if float(frame.std()) < 2.0:
        return _fail("camera", f"{detail}; the picture is flat (std {frame.std():.1f})",
                     "lens cap on, no light, or camera.exposure far too short")
    if fps < probe.min_fps:
        return _fail("camera", f"{detail}; below {probe.min_fps:g} frames/s",
                     "use a smaller camera.size or lores size; check `vcgencmd get_throttled` for undervoltage")
    run.frame = frame
    return Check("camera", True, detail)


# ------------------------------------------------------------------ GPIO


def _board_model(probe: Probe) -> str:
    try:
        return probe.path("/proc/device-tree/model").read_bytes().rstrip(b"\0").decode(errors="replace").strip()
    except OSError:
        return ""


def check_gpio(cfg: Config, probe: Probe, run: _Run) -> Check:
    model = _board_model(probe)
    chips = sorted(p.name for p in probe.path("/dev").glob("gpiochip*"))
    with warnings.catch_warnings(record=True) as fallbacks:
        warnings.simplefilter("always")
        try:
            factory = probe.pin_factory
            if factory is None:
                from gpiozero import Device

                Device.ensure_pin_factory()
                factory = Device.pin_factory
        except Exception as e:  # noqa: BLE001 - BadPinFactory, lgpio errors
            tried = "; ".join(str(w.message) for w in fallbacks)
            return _fail("gpio", f"{model or 'this machine'}: no GPIO pin factory works ({tried or _first_line(e)})",
                         "on a Pi: sudo apt install python3-lgpio python3-gpiozero and a venv with --system-site-packages; "
                         "off a Pi set GPIOZERO_PIN_FACTORY=mock")
    run.factory = factory
    name = type(factory).__name__
    chip = getattr(factory, "chip", None)
    detail = f"{model or 'not a Raspberry Pi'}: gpiozero {name}" + (f" on gpiochip{chip}" if chip is not None else "")
    detail += f"; devices: {', '.join(chips) or 'no /dev/gpiochip*'}"
    if fallbacks:
        detail += "; " + "; ".join(str(w.message) for w in fallbacks)
    if model.startswith("Raspberry Pi") and name == "MockFactory":
        return _fail("gpio", detail, "GPIOZERO_PIN_FACTORY=mock is set: unset it (the unit does not set it)")
    if "Raspberry Pi 5" in model and name != "LGPIOFactory":
        return _fail("gpio", detail, "only lgpio works on a Pi 5: sudo apt install python3-lgpio (venv with --system-site-packages)")
    if chip is not None and f"gpiochip{chip}" not in chips:
        return _fail("gpio", detail, f"/dev/gpiochip{chip} is missing: update gpiozero/lgpio to a pair that knows this kernel")
    return Check("gpio", True, detail)


def check_pins(cfg: Config, probe: Probe, run: _Run) -> Check:
    factory = run.factory or probe.pin_factory
    if factory is None:
        check = check_gpio(cfg, probe, run)
        if not check.ok:
            return _fail("pins", "no pin factory: " + check.detail, check.fix)
        factory = run.factory
    from gpiozero import LED, Button

    roles = [(f"{k} button", pin, Button) for k, pin in cfg.pins.buttons.items()]
    roles += [("throws LED", p, LED) for p in cfg.pins.leds_throws] + [("bank LED", p, LED) for p in cfg.pins.leds_bank]
    busy = []
    for role, pin, cls in roles:
        try:
            dev = cls(pin, pin_factory=factory)
        except Exception as e:  # noqa: BLE001 - GPIOPinInUse, "GPIO busy", ...
            busy.append(f"GPIO{pin} ({role}): {_first_line(e)}")
            continue
        dev.close()
    listed = ", ".join(f"GPIO{pin} {role}" for role, pin, _ in roles)
    if busy:
        return _fail("pins", "; ".join(busy),
                     "another program holds the pin, or it is used by the screen/HAT: change [pins] in the config; " + SERVICE_HINT)
    return Check("pins", True, f"{len(roles)} pins free: {listed}")


# ------------------------------------------------------------------ display


def _writable_dir(path: Path) -> bool:
    p = path
    while not p.exists() and p != p.parent:
        p = p.parent
    return p.is_dir() and os.access(p, os.W_OK)


def check_display(cfg: Config, probe: Probe, run: _Run) -> Check:
    d = cfg.display
    if d.sink == "terminal":
        return Check("display", True, "terminal sink: the pad is printed on stdout")
    if d.sink == "png":
        if _writable_dir(d.file.parent):
            return Check("display", True, f"png sink: {d.file}")
        return _fail("display", f"png sink: cannot write into {d.file.parent}", "set display.file to a writable place")
    if d.sink == "window":
        if os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"):
            return Check("display", True, "window sink on the desktop")
        return _fail("display", "window sink but no desktop (DISPLAY is not set)", 'use display.sink = "framebuffer" on the Pi')
    dev = Path(d.device)
    if not dev.exists():
        fbs = sorted(p.name for p in probe.path("/sys/class/graphics").glob("fb*"))
        return _fail("display", f"{dev}: no such device (framebuffers: {', '.join(fbs) or 'none'})",
                     "connect the screen and enable its driver (dtoverlay in /boot/firmware/config.txt), "
                     "or set display.device to one of the framebuffers listed")
    from hardware.display import DisplayError, FramebufferSink

    try:  # opens it read-write, as the app will
        sink = FramebufferSink(dev, probe.path("/sys/class/graphics"))
    except DisplayError as e:
        return _fail("display", str(e), "16 (RGB565) or 32 (XRGB8888) bits per pixel are supported; the user needs the "
                     "video group (the installer adds it); check the screen's overlay in /boot/firmware/config.txt")
    info = sink.info
    sink.close()
    detail = f"{dev}: {info.width}x{info.height}, {info.bits_per_pixel} bits per pixel, stride {info.stride}"
    if d.size is not None and d.size != (info.width, info.height):
        detail += f"; the pad is drawn at display.size {d.size[0]}x{d.size[1]} and scaled to fit"
    return Check("display", True, detail)


# ------------------------------------------------------------------ calibration


def check_calibration(cfg: Config, probe: Probe, run: _Run) -> Check:
    from calibration import load, check_frame

    path = cfg.paths.calibration
    fix_new = (f"calibrate: sudo -u yatzycam yatzycam calibrate-live (with the service stopped), "
               f"or yatzycam calibrate --empty EMPTY.png --out {path}")
    if not path.exists():
        return _fail("calibration", f"{path}: none yet", fix_new)
    try:
        cal = load(path)
    except Exception as e:  # noqa: BLE001 - CalibrationError: corrupt, foreign, out of date
        return _fail("calibration", _first_line(e), fix_new)
    w, h = cal.image_size
    detail = f"{path}: made at {w}x{h}" + (f" with {cal.n_dice} dice" if cal.n_dice else " (no reference throw)")
    if cfg.camera.source in ("picamera2", "opencv", "sim") and (w, h) != cfg.camera.size:
        return _fail("calibration", detail + f", the camera gives {cfg.camera.size[0]}x{cfg.camera.size[1]}",
                     "calibrate again at this camera size, or set camera.size back")
    if run.frame is None:
        return Check("calibration", True, detail + "; no live frame to compare (camera check not run or failed)")
    try:
        problem = check_frame(run.frame, cal)
    except Exception as e:  # noqa: BLE001
        problem = _first_line(e)
    if problem and run.picture is not None:
        import cv2

        from calibration.draw import draw

        if cv2.imwrite(str(run.picture), draw(run.frame, cal, f"calibrated floor on the live frame: {problem}")):
            problem += f" (drawn in {run.picture})"
        else:
            problem += f" (cannot write {run.picture})"
    if problem:
        return _fail("calibration", f"{detail}; live frame: {problem}",
                     "empty the tray and put it back under the camera; if the camera moved, " + fix_new)
    return Check("calibration", True, detail + "; the live frame still shows the calibrated tray")


# ------------------------------------------------------------------ database, disk


def check_database(cfg: Config, probe: Probe, run: _Run) -> Check:
    """Read-only: doctor never writes to the game record (it may run as root next to the service)."""
    path = cfg.paths.db
    if not path.exists():
        if _writable_dir(path.parent):
            return Check("database", True, f"{path}: not created yet (the first game creates it)")
        return _fail("database", f"{path}: cannot be created", "make its folder writable (the unit's StateDirectory= does)")
    fix = "stop the service, copy the file aside, then try: sqlite3 FILE '.recover' | sqlite3 NEW.sqlite (never delete it blindly)"
    try:
        # A read-only open of a WAL database creates -wal/-shm files (owned by whoever runs
        # doctor, e.g. root, which would lock the service out). With none there, no writer
        # is active: read it as immutable, which creates nothing.
        live = any(path.with_name(path.name + x).exists() for x in ("-wal", "-shm"))
        db = sqlite3.connect(f"file:{path}?mode=ro{'' if live else '&immutable=1'}", uri=True, timeout=10.0)
        try:
            tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            result = [r[0] for r in db.execute("PRAGMA integrity_check")]
            games = db.execute("SELECT count(*) FROM games").fetchone()[0] if "games" in tables else 0
        finally:
            db.close()
    except sqlite3.Error as e:
        return _fail("database", f"{path}: {_first_line(e)}", fix)
    if tables and "meta" not in tables:
        return _fail("database", f"{path}: another program's database (tables: {', '.join(sorted(tables))})", "set paths.db to a file of its own")
    if result != ["ok"]:
        return _fail("database", f"{path}: integrity_check: {'; '.join(result[:3])}", fix)
    if not (os.access(path, os.W_OK) and os.access(path.parent, os.W_OK)):
        return _fail("database", f"{path}: not writable by this user", "run as the yatzycam user, or fix the owner of the state directory")
    return Check("database", True, f"{path}: integrity ok, writable, {games} games, {path.stat().st_size // 1024} KiB")


def check_disk(cfg: Config, probe: Probe, run: _Run) -> Check:
    p = cfg.paths.db.parent
    while not p.exists() and p != p.parent:
        p = p.parent
    usage = shutil.disk_usage(p)
    free_mb = usage.free // 2**20
    detail = f"{p}: {free_mb} MiB free of {usage.total // 2**20} MiB"
    if free_mb < probe.min_free_mb:
        return _fail("disk", detail, f"free at least {probe.min_free_mb} MiB (old throw images: {cfg.paths.images})")
    return Check("disk", True, detail)


_FUNCS: dict[str, Callable[[Config, Probe, _Run], Check]] = {
    "python": check_python,
    "camera": check_camera,
    "gpio": check_gpio,
    "pins": check_pins,
    "display": check_display,
    "calibration": check_calibration,
    "database": check_database,
    "disk": check_disk,
}


def run_checks(config_path: str | Path | None, only: Iterable[str] = (), probe: Probe = Probe(),
               picture: str | Path | None = None) -> list[Check]:
    """Run the checks (all, or ``only``); a config that does not load fails the run at once. ``picture``: a PNG
    path where the calibration check draws the profile on the live frame when the camera or tray moved."""
    names = [n for n in CHECKS if not only or n in set(only)]
    try:
        cfg = config_mod.load(config_path)
    except ConfigError as e:
        return [_fail("config", str(e), "fix that key in the config file (every key: /etc/yatzycam/config.example.toml)")]
    out = [Check("config", True, str(cfg.source or "defaults (no config file)"))] if "config" in names else []
    run = _Run(picture=Path(picture) if picture is not None else None)
    for name in names:
        if name == "config":
            continue
        try:
            out.append(_FUNCS[name](cfg, probe, run))
        except Exception as e:  # noqa: BLE001 - a check that crashes is a failed check, not a traceback
            out.append(_fail(name, f"the check itself failed: {_first_line(e)}", "report this with `yatzycam doctor --json`"))
    return out


def report(checks: list[Check]) -> str:
    lines = []
    for c in checks:
        lines.append(f"{'ok  ' if c.ok else 'FAIL'} {c.name:<12} {c.detail}")
        if not c.ok and c.fix:
            lines.append(f"     {'':<12} fix: {c.fix}")
    failed = [c.name for c in checks if not c.ok]
    lines.append(f"{len(checks) - len(failed)} of {len(checks)} checks passed" + (f"; failed: {', '.join(failed)}" if failed else ""))
    return "\n".join(lines)


# ------------------------------------------------------------------ live calibration


class CalibrationFailed(Exception):
    """The live calibration did not produce a usable profile (the old one is kept)."""

    user_error = True


Calibrator = Callable[[Path, "Path | None", int, Path], None]  # empty.png, reference.png, n_dice, out.json
Verifier = Callable[[Path, Path, int], "str | None"]  # calibration, reference.png, n_dice -> problem or None


def default_calibrator(empty: Path, reference: Path | None, n_dice: int, out: Path, whole_frame: bool = False) -> None:
    """The calibration part's own code: ``calibration.calibrate`` then ``calibration.save`` (``whole_frame``:
    the whole frame less a margin is the floor, as the player chose)."""
    import cv2

    from calibration import calibrate, save
    from vision.tray import whole_frame as whole

    img = cv2.imread(str(empty))
    ref = cv2.imread(str(reference)) if reference is not None else None
    floor = whole((img.shape[1], img.shape[0])) if whole_frame and img is not None else None
    save(calibrate(img, ref, n_dice if ref is not None else None, floor=floor), out)


def _preview_floor(source: Any, empty: Any, show: Callable[[str], Any], show_frame: Callable[[Any, str], Any],
                   wait_choice: Callable[[], str], frames: int, tries: int = 5):
    """Show the floor found in the empty frame and let the player take it (press) or the whole frame (hold):
    (the empty frame, None for the found floor or "whole"). A frame with no floor found is taken again on a
    press, up to `tries` times (then CalibrationFailed)."""
    from calibration.draw import draw
    from calibration.profile import Calibration
    from vision import tray

    for _ in range(tries):
        h, w = empty.shape[:2]
        try:
            floor = tray.find_floor(empty)
        except tray.TrayError as e:
            show_frame(empty, f"No tray floor found ({e}).\nPress THROW to try again, hold it to use the whole frame")
            if wait_choice() == "hold":
                return empty, "whole"
            empty = grab(source, frames)
            continue
        keep = tray.find_keep_zone(empty, floor)
        # lines a 130th of the frame wide: about 3 px once the picture is fitted to the screen
        show_frame(draw(empty, Calibration((w, h), floor, keep), "", max(2, round(w / 130))),
                   f"Tray floor found (green){', keep zone (yellow)' if keep else ''}.\n"
                   "Press THROW to accept it, hold it to use the whole frame")
        return empty, ("whole" if wait_choice() == "hold" else None)
    show("Calibration failed: no tray floor found; the old calibration is kept. Try again.")
    raise CalibrationFailed(f"no tray floor found in {tries} empty frames (try calibrate --floor or --whole-frame)")


def default_verifier(calibration: Path, reference: Path, n_dice: int) -> str | None:
    """Read the reference throw with the new calibration: all N dice, verdict ok?"""
    import cv2

    from calibration import load
    from vision.reader import read

    r = read(cv2.imread(str(reference)), load(calibration), n_dice)
    if r.verdict != "ok" or len(r.values) != n_dice:
        return f"the reference throw read as {list(r.values)} ({r.verdict}: {', '.join(r.reasons) or 'no reason'})"
    return None


def _give_to_owner_of(folder: Path, paths: list[Path]) -> None:
    """Run as root (sudo), hand what we wrote to the state directory's owner (the service user)."""
    if os.geteuid() != 0:
        return
    st = folder.stat()
    for p in paths:
        if p.exists() and (p.stat().st_uid, p.stat().st_gid) != (st.st_uid, st.st_gid):
            os.chown(p, st.st_uid, st.st_gid)


def grab(source: Any, frames: int = 3) -> Any:
    """The per-pixel median of a few frames: mains flicker and sensor noise averaged out."""
    import numpy as np

    shots = [source.capture() for _ in range(max(1, frames))]
    return np.median(np.stack(shots), axis=0).astype(np.uint8) if len(shots) > 1 else shots[0]


def calibrate_live(
    source: Any,
    wait_press: Callable[[], Any],
    show: Callable[[str], Any],
    out: Path,
    n_dice: int,
    images: Path,
    calibrate: Calibrator = default_calibrator,
    verify: Verifier | None = default_verifier,
    frames: int = 3,
    show_frame: Callable[[Any, str], Any] | None = None,
    wait_choice: Callable[[], str] | None = None,
) -> Path:
    """Guided calibration from a live FrameSource: empty tray, press; N dice flat, press.

    ``show(text)`` puts a line on the screen; ``wait_press()`` returns when the
    button is pressed. The two frames are kept in ``images``; the profile is
    written next to ``out`` and moved over it only when it works (the reference
    throw reads as N dice), so a failed attempt keeps the old calibration.
    Raises :class:`CalibrationFailed` (after showing why).

    With ``show_frame(frame, text)`` and ``wait_choice()`` ("press" or "hold"): the floor found in the empty
    frame is drawn on the screen; a press accepts it, a hold takes the whole frame as the floor. When no
    floor is found that is said in words, and a press tries again, a hold takes the whole frame.
    """
    import cv2

    show("Calibration 1/2: empty the tray, then press the button")
    wait_press()
    empty = grab(source, frames)
    floor_choice = None
    if show_frame is not None and wait_choice is not None:
        empty, floor_choice = _preview_floor(source, empty, show, show_frame, wait_choice, frames)
    show(f"Calibration 2/2: put {n_dice} dice flat on the tray, apart, then press the button")
    wait_press()
    reference = grab(source, frames)
    images.mkdir(parents=True, exist_ok=True)
    empty_png, ref_png = images / "calibration-empty.png", images / "calibration-reference.png"
    for path, frame in ((empty_png, empty), (ref_png, reference)):
        if not cv2.imwrite(str(path), frame):
            raise CalibrationFailed(f"{path}: cannot write the frame")
    out.parent.mkdir(parents=True, exist_ok=True)
    new = out.with_name(out.name + ".new")
    try:
        if floor_choice == "whole":
            calibrate(empty_png, ref_png, n_dice, new, whole_frame=True)
        else:
            calibrate(empty_png, ref_png, n_dice, new)
        problem = verify(new, ref_png, n_dice) if verify else None
        if problem:
            raise CalibrationFailed(problem)
    except Exception as e:
        new.unlink(missing_ok=True)
        why = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        kept = "the old calibration is kept" if out.exists() else "no calibration yet"
        show(f"Calibration failed: {why}; {kept}. Try again.")
        raise CalibrationFailed(f"{why} ({kept}; the frames are in {images})") from None
    os.replace(new, out)
    _give_to_owner_of(out.parent, [out, images, empty_png, ref_png])
    show(f"Calibrated: {n_dice} dice read on the tray. Saved {out.name}.")
    return out
