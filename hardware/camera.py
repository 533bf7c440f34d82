"""Frame sources: the only code that opens a camera.

One interface, :class:`FrameSource` (a context manager):

- ``capture()`` -> the main frame, BGR ``uint8`` (H, W, 3), for reading the dice;
- ``capture_small()`` -> a small grayscale ``uint8`` frame, cheap to watch for
  motion (settle detection);
- ``close()`` -> release the device (always called by ``__exit__``, also on errors).

Four sources:

- :class:`PiCameraSource` - picamera2 (imported lazily): "RGB888" main stream
  (bytes B,G,R, what OpenCV wants) and a "lores" YUV420 stream whose Y plane is
  the small frame; exposure, white balance (and focus on a camera with
  autofocus) are left on auto until they settle, then locked.
- :class:`OpenCVSource` - a USB webcam through ``cv2.VideoCapture``.
- :class:`FolderSource` - replays the images of a folder in name order.
- :class:`SimulatedSource` - a simulated tray: renders scenes from a simulated
  table (``vision.synthetic.SimTable`` or anything with ``throw``/``rethrow``/
  ``render``); while thrown dice roll, the frames move, so settle detection
  works on real pixels.

A failing camera call raises :class:`CameraError`; the app reports it on the
screen and retries; the game is never changed by it.

Time is an explicit :class:`Clock` (``now()``, ``sleep(dt)``): ``SystemClock``
on a device, ``ManualClock`` in tests and the demo (sleep advances it at once).
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Protocol, Sequence

import numpy as np

SMALL_WIDTH = 160  # width of the small settle frame of the sources that downscale


class CameraError(Exception):
    """A camera call failed (device missing, busy, unplugged, a bad image)."""

    user_error = True


class Clock(Protocol):
    def now(self) -> float: ...

    def sleep(self, dt: float) -> None: ...


class SystemClock:
    """Real time (monotonic)."""

    def now(self) -> float:
        return time.monotonic()

    def sleep(self, dt: float) -> None:
        if dt > 0:
            time.sleep(dt)


class ManualClock:
    """Time that moves only when told: ``sleep`` and ``advance`` move it at once."""

    def __init__(self, start: float = 0.0) -> None:
        self.t = float(start)

    def now(self) -> float:
        return self.t

    def sleep(self, dt: float) -> None:
        self.advance(dt)

    def advance(self, dt: float) -> None:
        if dt > 0:
            self.t += float(dt)


def to_small(frame: np.ndarray, width: int = SMALL_WIDTH) -> np.ndarray:
    """A small grayscale copy of a BGR (or gray) frame, ``width`` pixels wide."""
    import cv2

    gray = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    h, w = gray.shape[:2]
    if w <= width:
        return np.ascontiguousarray(gray)
    height = max(1, round(h * width / w))
    return cv2.resize(gray, (width, height), interpolation=cv2.INTER_AREA)


class FrameSource:
    """The interface every source implements."""

    name = "camera"

    def capture(self) -> np.ndarray:
        raise NotImplementedError

    def capture_small(self) -> np.ndarray:
        return to_small(self.capture())

    def close(self) -> None:
        pass

    def __enter__(self) -> "FrameSource":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def describe(self) -> str:
        return self.name


# --------------------------------------------------------------------------- picamera2


@dataclass(frozen=True)
class LockedControls:
    """What the Pi camera was locked to after auto exposure/white balance/focus settled."""

    exposure_us: int
    analogue_gain: float
    colour_gains: tuple[float, float]
    lens_position: float | None  # None: no autofocus on this camera


def lock_controls(
    metadata: dict[str, Any], has_af: bool, exposure_us: int | None = None, lens_position: float | None = None
) -> tuple[dict[str, Any], LockedControls]:
    """The ``set_controls`` dict that freezes what auto settled on (from the frame metadata).

    ``exposure_us`` / ``lens_position``: fixed values from the config instead of what auto found.
    """
    try:
        exposure = int(exposure_us if exposure_us is not None else metadata["ExposureTime"])
        gain = float(metadata["AnalogueGain"])
        r, b = metadata["ColourGains"]
    except (KeyError, TypeError, ValueError) as e:
        raise CameraError(f"the camera gave no exposure/colour metadata to lock ({e})") from e
    controls: dict[str, Any] = {
        "AeEnable": False,
        "AwbEnable": False,
        "ExposureTime": exposure,
        "AnalogueGain": gain,
        "ColourGains": (float(r), float(b)),
    }
    lens = lens_position if lens_position is not None else metadata.get("LensPosition")
    if has_af and lens is not None:
        lens = float(lens)
        controls["AfMode"] = 0  # libcamera AfModeEnum.Manual
        controls["LensPosition"] = lens
    else:
        lens = None
    return controls, LockedControls(exposure, gain, (float(r), float(b)), lens)


class PiCameraSource(FrameSource):
    """Raspberry Pi camera through picamera2 (apt package python3-picamera2)."""

    name = "picamera2"

    def __init__(
        self,
        size: tuple[int, int] = (1640, 1232),
        small: tuple[int, int] = (320, 240),
        settle_s: float = 2.0,
        camera_num: int = 0,
        clock: Clock | None = None,
        exposure_us: int | None = None,
        lens_position: float | None = None,
    ) -> None:
        self.size = size
        self.small = small
        self.locked: LockedControls | None = None
        self._cam: Any = None
        clock = clock or SystemClock()
        try:
            from picamera2 import Picamera2  # type: ignore[import-not-found]
        except ImportError as e:  # also numpy ABI clashes show up here
            print(
                f"yatzycam: picamera2 is missing or broken ({e}); on a Pi: `sudo apt install python3-picamera2` "
                "and a venv made with --system-site-packages (see docs/pi.md)",
                file=sys.stderr,
            )
            raise CameraError(f"picamera2 is not available: {e}") from e
        try:
            self._cam = Picamera2(camera_num)
            config = self._cam.create_video_configuration(
                main={"size": tuple(size), "format": "RGB888"},
                lores={"size": tuple(small), "format": "YUV420"},
            )
            self._cam.configure(config)
            self._cam.start()
            has_af = "AfMode" in getattr(self._cam, "camera_controls", {})
            if has_af and lens_position is None:
                self._cam.set_controls({"AfMode": 1})  # Auto: one scan, then it holds
                try:
                    self._cam.autofocus_cycle()
                except Exception as e:  # noqa: BLE001 - an old picamera2 without autofocus_cycle
                    print(f"yatzycam: autofocus cycle failed ({e}); focus left as it is", file=sys.stderr)
            if exposure_us is not None:  # a fixed exposure: auto gain settles around it
                self._cam.set_controls({"ExposureTime": int(exposure_us)})
            clock.sleep(settle_s)  # let AE/AWB converge before locking them
            controls, self.locked = lock_controls(self._cam.capture_metadata(), has_af, exposure_us, lens_position)
            self._cam.set_controls(controls)
        except CameraError:
            self.close()
            raise
        except Exception as e:  # noqa: BLE001 - "Failed to acquire camera", no camera, ...
            self.close()
            raise CameraError(f"the Pi camera did not start: {e}") from e

    def _array(self, stream: str) -> np.ndarray:
        if self._cam is None:
            raise CameraError("the Pi camera is closed")
        try:
            return self._cam.capture_array(stream)
        except Exception as e:  # noqa: BLE001
            raise CameraError(f"capture failed: {e}") from e

    def capture(self) -> np.ndarray:
        return np.ascontiguousarray(self._array("main")[:, :, :3])

    def capture_small(self) -> np.ndarray:
        arr = self._array("lores")
        w, h = self.small
        return np.ascontiguousarray(arr[:h, :w])  # the Y plane of YUV420

    def close(self) -> None:
        cam, self._cam = self._cam, None
        if cam is not None:
            try:
                cam.stop()
            except Exception:  # noqa: BLE001 - closing must not fail
                pass
            try:
                cam.close()
            except Exception:  # noqa: BLE001
                pass

    def describe(self) -> str:
        return f"picamera2 {self.size[0]}x{self.size[1]}, locked {self.locked}"


# --------------------------------------------------------------------------- OpenCV


class OpenCVSource(FrameSource):
    """A USB webcam (or any ``cv2.VideoCapture`` device / URL / video file)."""

    name = "opencv"

    def __init__(self, device: int | str = 0, size: tuple[int, int] | None = None, warmup: int = 5) -> None:
        import cv2

        self.device = device
        self._cap = cv2.VideoCapture(device)
        if not self._cap.isOpened():
            self._cap.release()
            self._cap = None
            raise CameraError(f"cannot open video device {device!r}")
        if size:
            self._cap.set(cv2.CAP_PROP_FRAME_WIDTH, size[0])
            self._cap.set(cv2.CAP_PROP_FRAME_HEIGHT, size[1])
        for _ in range(warmup):  # auto exposure needs a few frames
            self._cap.read()

    def capture(self) -> np.ndarray:
        if self._cap is None:
            raise CameraError(f"video device {self.device!r} is closed")
        ok, frame = self._cap.read()
        if not ok or frame is None:
            raise CameraError(f"video device {self.device!r} gave no frame")
        if frame.ndim == 2:
            import cv2

            frame = cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
        return frame[:, :, :3]

    def close(self) -> None:
        cap, self._cap = self._cap, None
        if cap is not None:
            cap.release()

    def describe(self) -> str:
        return f"opencv device {self.device!r}"


# --------------------------------------------------------------------------- folder

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp")


class FolderSource(FrameSource):
    """Replays the images of a folder in name order; each ``capture`` moves on one image.

    ``capture_small`` shows the image the next ``capture`` will return (so a
    settle check sees the frames it is about to read). ``loop``: start again at
    the end; otherwise the last image repeats.
    """

    name = "folder"

    def __init__(self, folder: str | Path, loop: bool = False) -> None:
        self.folder = Path(folder)
        if not self.folder.is_dir():
            raise CameraError(f"{self.folder}: not a folder")
        self.files = sorted(p for p in self.folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        if not self.files:
            raise CameraError(f"{self.folder}: no images in it")
        self.loop = loop
        self.pos = 0

    def _load(self, i: int) -> np.ndarray:
        import cv2

        path = self.files[i]
        frame = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if frame is None:
            raise CameraError(f"{path}: not a readable image")
        return frame

    def _index(self) -> int:
        if self.pos < len(self.files):
            return self.pos
        return self.pos % len(self.files) if self.loop else len(self.files) - 1

    def capture(self) -> np.ndarray:
        i = self._index()
        self.pos += 1
        return self._load(i)

    def capture_small(self) -> np.ndarray:
        return to_small(self._load(self._index()))

    def describe(self) -> str:
        return f"folder {self.folder} ({len(self.files)} images)"


# --------------------------------------------------------------------------- simulated tray


class SimulatedSource(FrameSource):
    """A simulated tray over a simulated table.

    ``table`` has ``throw(keep=indices) -> scene``, ``rethrow() -> scene`` and
    ``render() -> BGR`` of its current scene (``vision.synthetic.SimTable``). The simulated player
    calls :meth:`throw` (naming the dice it sets aside) or :meth:`rethrow`; for the
    next ``roll_s`` seconds of ``clock`` time the thrown dice tumble (frames
    differ), then the tray shows the scene where they came to rest. Each capture
    takes one frame interval (``clock.sleep(1/fps)``), as a camera does.
    ``flicker``: relative brightness ripple of mains lighting, frame to frame.
    ``fail_next``: the next that many capture calls raise :class:`CameraError`.
    """

    name = "simulated"

    def __init__(
        self,
        table: Any,
        clock: Clock,
        roll_s: float = 0.5,
        fps: float = 30.0,
        flicker: float = 0.0,
        seed: int = 0,
        initial: np.ndarray | None = None,
    ) -> None:
        self.table = table
        self.clock = clock
        self.roll_s = roll_s
        self.frame_s = 1.0 / fps
        self.flicker = flicker
        self.rng = np.random.default_rng(seed)
        self.scene: Any = None
        self._rest: np.ndarray | None = initial  # frame of the tray at rest
        self._before: np.ndarray | None = None  # frame before the current throw
        self._moving: np.ndarray | None = None  # mask of the pixels the throw changed
        self._landed_at = -1e9
        self.fail_next = 0
        self.frames = 0
        self.closed = False

    # the simulated player's side
    def throw(self, keep: Sequence[int] = ()) -> Any:
        """Throw every die except those at ``keep`` (indices into the scene's dice)."""
        return self._start(self.table.throw(keep=list(keep)))

    def rethrow(self) -> Any:
        """Redo the last throw (after a cocked die or a die off the tray)."""
        return self._start(self.table.rethrow())

    def show(self, scene: Any = None) -> Any:
        """Show the table's current scene at once (no roll)."""
        scene = self.table.scene if scene is None else scene
        self.scene = scene
        self._rest = self.table.render()
        self._landed_at = -1e9
        return scene

    def _start(self, scene: Any) -> Any:
        before = self._rest
        rest = self.table.render()
        if before is None or before.shape != rest.shape:
            before = np.full_like(rest, int(np.median(rest)))
        diff = np.abs(rest.astype(np.int16) - before.astype(np.int16)).max(axis=2)
        self._before, self._rest, self.scene = before, rest, scene
        self._moving = diff > 12
        self._landed_at = self.clock.now() + self.roll_s
        return scene

    @property
    def rolling(self) -> bool:
        return self.clock.now() < self._landed_at

    def _frame(self) -> np.ndarray:
        if self.closed:
            raise CameraError("the simulated camera is closed")
        if self.fail_next > 0:
            self.fail_next -= 1
            raise CameraError("simulated camera failure")
        if self._rest is None:
            raise CameraError("the simulated tray has no scene yet")
        self.clock.sleep(self.frame_s)
        self.frames += 1
        frame = self._rest
        if self.rolling and self._moving is not None and self._before is not None:
            # thrown dice still tumbling: their pixels jump around, set-aside dice stay put
            left = (self._landed_at - self.clock.now()) / max(self.roll_s, 1e-6)
            reach = max(2, int(40 * left))
            dy, dx = (int(v) for v in self.rng.integers(-reach, reach + 1, size=2))
            moved = np.roll(self._rest, (dy, dx), axis=(0, 1))
            mask = np.roll(self._moving, (dy, dx), axis=(0, 1)) | self._moving
            frame = self._before.copy()
            frame[mask] = moved[mask]
        if self.flicker:
            gain = 1.0 + self.flicker * float(np.sin(2 * np.pi * 100.0 * self.clock.now()))
            import cv2

            frame = cv2.convertScaleAbs(frame, alpha=gain)
        return frame

    def capture(self) -> np.ndarray:
        return self._frame().copy()

    def capture_small(self) -> np.ndarray:
        return to_small(self._frame())

    def close(self) -> None:
        self.closed = True


# --------------------------------------------------------------------------- choosing a source


def open_source(kind: str, **options: Any) -> FrameSource:
    """A source by name: "picamera2", "opencv", "folder" (``path=``) - the device kinds of the config."""
    factories: dict[str, Callable[..., FrameSource]] = {
        "picamera2": PiCameraSource,
        "pi": PiCameraSource,
        "opencv": OpenCVSource,
        "usb": OpenCVSource,
        "folder": FolderSource,
    }
    if kind not in factories:
        raise CameraError(f"unknown camera kind {kind!r} (one of: picamera2, opencv, folder)")
    return factories[kind](**options)
