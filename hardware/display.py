"""Display sinks: where a rendered screen goes. They take numpy RGB uint8 arrays (h, w, 3)
and, for the terminal, text; they know nothing about the game.

- :class:`FramebufferSink` — a Linux framebuffer (``/dev/fbN``): geometry from
  ``/sys/class/graphics/fbN/`` (``bits_per_pixel``, ``stride``, ``virtual_size``;
  the visible size from ``modes`` when present), RGB565 little-endian or XRGB8888
  (bytes B,G,R,X), stride padding, scaled and letterboxed to the panel.
- :class:`PngSink` — every screen change to a numbered PNG in a directory.
- :class:`WindowSink` — a Tk window (Pillow's ImageTk) when a desktop is there.
- :class:`TerminalSink` — the text view, printed when it changes.
- :class:`Blanker` / :class:`BlankingDisplay` — blank after an idle time, wake on a press,
  driven by an explicit clock (``now`` in seconds; no sleeps, no threads).

Every sink has ``show(frame, text=None)`` and ``close()``. A device that is missing or
cannot be opened raises :class:`DisplayError` (``user_error = True``, one line).
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, Sequence, TextIO

import numpy as np
from PIL import Image


class DisplayError(RuntimeError):
    """A screen that cannot be used; the message is one line for the user."""

    user_error = True


class Sink(Protocol):
    def show(self, frame: np.ndarray, text: str | None = None) -> None: ...

    def close(self) -> None: ...


def _check_frame(frame: np.ndarray) -> np.ndarray:
    a = np.asarray(frame)
    if a.ndim != 3 or a.shape[2] != 3 or a.dtype != np.uint8:
        raise ValueError(f"a frame is an RGB uint8 array (h, w, 3), got {a.dtype} {a.shape}")
    return a


def fit_to(frame: np.ndarray, width: int, height: int) -> np.ndarray:
    """``frame`` scaled to fit (width, height) keeping its aspect, centred on black (letterbox)."""
    a = _check_frame(frame)
    h, w = a.shape[:2]
    if (w, h) == (width, height):
        return a
    scale = min(width / w, height / h)
    nw, nh = max(1, round(w * scale)), max(1, round(h * scale))
    img = Image.fromarray(a).resize((nw, nh), Image.Resampling.BILINEAR if scale > 1 else Image.Resampling.BOX)
    out = np.zeros((height, width, 3), np.uint8)
    x0, y0 = (width - nw) // 2, (height - nh) // 2
    out[y0 : y0 + nh, x0 : x0 + nw] = np.asarray(img)
    return out


# ----------------------------------------------------------------------- framebuffer


@dataclass(frozen=True)
class FbInfo:
    """Geometry of a framebuffer as sysfs reports it."""

    bits_per_pixel: int
    stride: int  # bytes per line (>= width x bytes per pixel)
    width: int  # visible
    height: int
    virtual_width: int
    virtual_height: int

    @property
    def bytes_per_pixel(self) -> int:
        return self.bits_per_pixel // 8


def _read_sys(path: Path) -> str:
    try:
        return path.read_text().strip()
    except OSError as e:
        raise DisplayError(f"cannot read {path}: {e.strerror or e}") from None


def read_fb_info(fb: str = "fb0", sysfs: str | Path = "/sys/class/graphics") -> FbInfo:
    """Read ``bits_per_pixel``, ``stride``, ``virtual_size`` (and ``modes``) of ``fb``."""
    d = Path(sysfs) / fb
    if not d.is_dir():
        raise DisplayError(f"no framebuffer {fb}: {d} does not exist (is the panel's driver loaded?)")
    try:
        bpp = int(_read_sys(d / "bits_per_pixel"))
        stride = int(_read_sys(d / "stride"))
        vw, vh = (int(v) for v in _read_sys(d / "virtual_size").split(","))
    except ValueError:
        raise DisplayError(f"{d}: unexpected contents in bits_per_pixel, stride or virtual_size") from None
    w, h = vw, vh
    modes = d / "modes"
    if modes.exists():
        m = re.search(r"(\d+)x(\d+)", _read_sys(modes))
        if m and int(m.group(1)) <= vw and int(m.group(2)) <= vh:
            w, h = int(m.group(1)), int(m.group(2))
    if bpp not in (16, 32):
        raise DisplayError(f"{fb}: {bpp} bits per pixel is not supported (16 = RGB565, 32 = XRGB8888)")
    if stride < w * bpp // 8:
        raise DisplayError(f"{fb}: stride {stride} is shorter than a line of {w} pixels at {bpp} bpp")
    return FbInfo(bpp, stride, w, h, vw, vh)


def pack(frame: np.ndarray, info: FbInfo) -> bytes:
    """The frame (already of the panel's size) as framebuffer bytes: RGB565 LE or B,G,R,X; lines padded to stride."""
    a = _check_frame(frame)
    h, w = a.shape[:2]
    if (w, h) != (info.width, info.height):
        raise ValueError(f"frame {w}x{h} is not the panel's {info.width}x{info.height}")
    import cv2  # C conversion: ~10x faster than numpy bit twiddling (0.15 ms at 800x480)

    conv = cv2.COLOR_RGB2BGR565 if info.bits_per_pixel == 16 else cv2.COLOR_RGB2BGRA  # 565 LE / B,G,R,X=255
    px = cv2.cvtColor(np.ascontiguousarray(a), conv).reshape(h, -1)
    if px.shape[1] == info.stride:
        return px.tobytes()
    buf = np.zeros((h, info.stride), np.uint8)
    buf[:, : px.shape[1]] = px
    return buf.tobytes()


def unpack(data: bytes, info: FbInfo) -> np.ndarray:
    """Framebuffer bytes back to an RGB array (RGB565 loses the low bits; they are filled by replication)."""
    buf = np.frombuffer(data, np.uint8)[: info.stride * info.height].reshape(info.height, info.stride)
    w = info.width
    if info.bits_per_pixel == 16:
        px = buf[:, : w * 2].copy().view("<u2").reshape(info.height, w).astype(np.uint16)
        r5, g6, b5 = (px >> 11) & 31, (px >> 5) & 63, px & 31
        return np.stack([(r5 << 3) | (r5 >> 2), (g6 << 2) | (g6 >> 4), (b5 << 3) | (b5 >> 2)], axis=-1).astype(np.uint8)
    q = buf[:, : w * 4].reshape(info.height, w, 4)
    return np.stack([q[..., 2], q[..., 1], q[..., 0]], axis=-1)


class FramebufferSink:
    """Writes frames to a Linux framebuffer. ``device`` and ``sysfs`` are parameters so tests use files."""

    def __init__(self, device: str | Path = "/dev/fb0", sysfs: str | Path = "/sys/class/graphics") -> None:
        self.device = Path(device)
        fb = self.device.name
        if not re.fullmatch(r"fb\d+", fb):
            raise DisplayError(f"{self.device}: not a framebuffer device name (expected /dev/fbN)")
        self.info = read_fb_info(fb, sysfs)
        try:
            self._fd = os.open(self.device, os.O_RDWR)
        except OSError as e:
            hint = " (add the user to the video group)" if e.errno == 13 else ""
            raise DisplayError(f"cannot open {self.device}: {e.strerror}{hint}") from None

    @property
    def size(self) -> tuple[int, int]:
        return self.info.width, self.info.height

    def show(self, frame: np.ndarray, text: str | None = None) -> None:
        data = pack(fit_to(frame, self.info.width, self.info.height), self.info)
        try:
            os.pwrite(self._fd, data, 0)
        except OSError as e:
            raise DisplayError(f"cannot write {self.device}: {e.strerror}") from None

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


# ----------------------------------------------------------------------- PNG files


class PngSink:
    """Every screen change to ``directory/screen-000001.png``, ``-000002``, ... (numbering goes on
    after the files already there; a frame equal to the last one is not written again)."""

    def __init__(self, directory: str | Path, prefix: str = "screen") -> None:
        self.dir = Path(directory)
        try:
            self.dir.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise DisplayError(f"cannot create {self.dir}: {e.strerror}") from None
        self.prefix = prefix
        nums = [int(m.group(1)) for p in self.dir.glob(f"{prefix}-*.png") if (m := re.fullmatch(rf"{re.escape(prefix)}-(\d+)\.png", p.name))]
        self.count = max(nums, default=0)
        self._last: bytes | None = None
        self.written: list[Path] = []

    def show(self, frame: np.ndarray, text: str | None = None) -> Path | None:
        a = _check_frame(frame)
        digest = hashlib.blake2b(a.tobytes(), digest_size=16).digest() + bytes(str(a.shape), "ascii")
        if digest == self._last:
            return None
        self._last = digest
        self.count += 1
        path = self.dir / f"{self.prefix}-{self.count:06d}.png"
        try:
            Image.fromarray(a).save(path, compress_level=1)
        except OSError as e:
            raise DisplayError(f"cannot write {path}: {e.strerror or e}") from None
        self.written.append(path)
        return path

    def close(self) -> None:
        pass


# ----------------------------------------------------------------------- window


class WindowSink:
    """A Tk window showing the frames (Pillow's ImageTk). ``show`` also runs Tk's pending events;
    nothing blocks. No desktop -> DisplayError."""

    def __init__(self, title: str = "yatzycam", env: dict[str, str] | None = None) -> None:
        env = dict(os.environ) if env is None else env
        if not (env.get("DISPLAY") or env.get("WAYLAND_DISPLAY")) and sys.platform.startswith("linux"):
            raise DisplayError("no desktop for a window (DISPLAY is not set); use the framebuffer, png or terminal display")
        try:
            import tkinter

            from PIL import ImageTk
        except ImportError as e:
            raise DisplayError(f"a window needs Tk ({e}); install python3-tk, or use another display") from None
        try:
            self._root = tkinter.Tk()
        except tkinter.TclError as e:
            raise DisplayError(f"cannot open a window: {e}") from None
        self._root.title(title)
        self._imagetk = ImageTk
        self._label = tkinter.Label(self._root, borderwidth=0)
        self._label.pack()
        self._photo = None
        self.closed = False
        self._root.protocol("WM_DELETE_WINDOW", self.close)

    def show(self, frame: np.ndarray, text: str | None = None) -> None:
        if self.closed:
            return
        self._photo = self._imagetk.PhotoImage(Image.fromarray(_check_frame(frame)))
        self._label.configure(image=self._photo)
        self.poll()

    def poll(self) -> None:
        if not self.closed:
            self._root.update()

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self._root.destroy()


# ----------------------------------------------------------------------- terminal


class TerminalSink:
    """Prints the text view when it changes (optionally clearing the screen first)."""

    def __init__(self, stream: TextIO | None = None, clear: bool = False) -> None:
        self.stream = stream if stream is not None else sys.stdout
        self.clear = clear
        self._last: str | None = None

    def show(self, frame: np.ndarray | None = None, text: str | None = None) -> None:
        if not text or text == self._last:
            return
        self._last = text
        if self.clear:
            self.stream.write("\x1b[H\x1b[2J")
        self.stream.write(text if text.endswith("\n") else text + "\n")
        self.stream.flush()

    def close(self) -> None:
        pass


# ----------------------------------------------------------------------- blanking


@dataclass(frozen=True)
class Blanker:
    """Screen blanking as a value: ``idle_s`` seconds after the last activity the screen blanks
    (0 or less: never). ``touch(now)`` records activity; ``blank(now)`` tells whether it is dark."""

    idle_s: float
    last: float = 0.0

    def touch(self, now: float) -> Blanker:
        return Blanker(self.idle_s, now)

    def blank(self, now: float) -> bool:
        return self.idle_s > 0 and now - self.last >= self.idle_s


class BlankingDisplay:
    """Sends frames to sinks, blanking them (a black frame, empty text) after an idle time.

    Activity is a press (``press(now)``) or a screen whose content changed. A press that
    wakes a blank screen returns True: the app should treat it as "wake only".
    ``tick(now)`` is called from the main loop and blanks when the time has come.
    """

    def __init__(self, sinks: Sequence[Sink], idle_s: float, now: float = 0.0) -> None:
        self.sinks = list(sinks)
        self.blanker = Blanker(idle_s, now)
        self._frame: np.ndarray | None = None
        self._text: str | None = None
        self._digest: bytes | None = None
        self.is_blank = False

    def _send(self, frame: np.ndarray, text: str | None) -> None:
        for s in self.sinks:
            s.show(frame, text)

    def show(self, frame: np.ndarray, text: str | None, now: float, activity: bool = True) -> None:
        """Show a frame. ``activity=False`` (a page flip, a clock) changes the picture without
        counting as use: it neither wakes a blank screen nor postpones blanking."""
        a = _check_frame(frame)
        digest = hashlib.blake2b(a.tobytes(), digest_size=16).digest() + hashlib.blake2b((text or "").encode(), digest_size=8).digest()
        changed = digest != self._digest
        self._frame, self._text, self._digest = a, text, digest
        if changed and not activity and self.is_blank:
            return
        if changed:
            if activity:
                self.blanker = self.blanker.touch(now)
            self.is_blank = False
            self._send(a, text)
        self.tick(now)

    def press(self, now: float) -> bool:
        """A button press: wake. True when the screen was blank (the press only woke it)."""
        was_blank = self.is_blank
        self.blanker = self.blanker.touch(now)
        if was_blank:
            self.is_blank = False
            if self._frame is not None:
                self._send(self._frame, self._text)
        return was_blank

    def tick(self, now: float) -> bool:
        """Blank if the idle time has passed; returns whether the screen is blank."""
        if not self.is_blank and self.blanker.blank(now):
            self.is_blank = True
            shape = self._frame.shape if self._frame is not None else (1, 1, 3)
            self._send(np.zeros(shape, np.uint8), "")
        return self.is_blank

    def close(self) -> None:
        for s in self.sinks:
            s.close()
