"""An image file to a frame, its size read from the header before anything is decoded.

``load(path)`` is what ``vision.reader.load_image`` does with a file:

1. only a regular file is opened (``vision.inputfile``: a FIFO never hangs), at most
   ``MAX_FILE_BYTES``;
2. Pillow reads the header only (``Image.open`` is lazy) and gives the format and the size; a file
   Pillow cannot identify is not an image;
3. more than ``MAX_PIXELS`` (about 50 MP): refused - decoding it would take more memory than a Pi
   has to spare (a 20000x20000 PNG is 1.2 GB of pixels);
4. more than ``WORK_PIXELS`` (12.5 MP: the largest camera frame, 4608x2592, fits): OpenCV decodes it reduced
   (``IMREAD_REDUCED_COLOR_2/4/8``, the smallest reduction that fits; a JPEG is then decoded at
   that scale, never whole), so a 48 MP phone photo reads at 4000x3000;
5. OpenCV decodes it; a truncated PNG or JPEG (the file ends early) is refused first.

Every refusal is an :class:`ImageFileError` with one line naming the file.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
import threading
import warnings
from collections.abc import Iterator

import cv2
import numpy as np

from vision.inputfile import read_bytes

MAX_PIXELS = 50_000_000
WORK_PIXELS = 12_500_000  # the Camera Module 3's full 4608x2592 frame and a 48 MP photo halved; larger: reduced
MAX_FILE_BYTES = 256 * 1024 * 1024
REDUCED = ((1, cv2.IMREAD_COLOR), (2, cv2.IMREAD_REDUCED_COLOR_2), (4, cv2.IMREAD_REDUCED_COLOR_4),
           (8, cv2.IMREAD_REDUCED_COLOR_8))


class ImageFileError(ValueError):
    """The file is not an image this program reads."""

    user_error = True


def header(data: bytes) -> tuple[str, int, int]:
    """(format, width, height) from the file's header; ImageFileError when Pillow does not know it."""
    from PIL import Image

    with warnings.catch_warnings(), _PIL:
        warnings.simplefilter("ignore")  # (Pillow's DecompressionBombWarning: the size is judged here, by reduction)
        limit, Image.MAX_IMAGE_PIXELS = Image.MAX_IMAGE_PIXELS, None  # (nothing is decoded: the header only)
        try:
            with Image.open(io.BytesIO(data)) as im:
                return str(im.format), int(im.size[0]), int(im.size[1])
        except Exception:  # noqa: BLE001 - (UnidentifiedImageError, SyntaxError, struct.error, ...: a plugin's parser on junk)
            raise ImageFileError("not an image (an unknown or damaged header; PNG, JPEG, BMP, TIFF, WebP and PNM are read)") from None
        finally:
            Image.MAX_IMAGE_PIXELS = limit


_PIL = threading.Lock()  # (Pillow's pixel limit is lifted while one header is read)


def reduction(width: int, height: int) -> tuple[int, int]:
    """(factor, OpenCV imread flag): the smallest reduction that brings the image within WORK_PIXELS;
    ImageFileError above MAX_PIXELS."""
    pixels = width * height
    if pixels > MAX_PIXELS:
        raise ImageFileError(f"{width}x{height} is {pixels / 1e6:.0f} MP: at most {MAX_PIXELS / 1e6:.0f} MP is read "
                             "(a camera frame or a phone photo)")
    for factor, flag in REDUCED:
        if pixels <= WORK_PIXELS * factor * factor:
            return factor, flag
    return REDUCED[-1]


_STDERR = threading.Lock()


@contextlib.contextmanager
def _quiet_stderr() -> Iterator[None]:
    """OpenCV's own log and libpng / libjpeg write their complaints about a damaged file straight to
    file descriptor 2 ("Corrupt JPEG data", "libpng error: ..."): while decoding, it goes to
    /dev/null, so that a bad image is the one line this module gives."""
    with _STDERR:
        try:
            sys.stderr.flush()
            saved = os.dup(2)
        except (OSError, ValueError):
            yield
            return
        try:
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, 2)
            os.close(null)
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)


def load(path: str | os.PathLike) -> np.ndarray:
    """The image as a BGR frame, decoded reduced when it is larger than WORK_PIXELS."""
    shown = os.fspath(path)
    try:
        data = read_bytes(path, MAX_FILE_BYTES)
    except FileNotFoundError:
        raise ImageFileError(f"{shown}: no such file") from None
    except OSError as e:
        raise ImageFileError(f"{shown}: cannot read ({e.strerror or e})") from None
    if not data:
        raise ImageFileError(f"{shown}: empty file")
    if data.startswith(b"\xff\xd8") and b"\xff\xd9" not in data[-64:]:
        raise ImageFileError(f"{shown}: truncated JPEG (the file ends early)")
    if data.startswith(b"\x89PNG") and b"IEND" not in data[-32:]:
        raise ImageFileError(f"{shown}: truncated PNG (the file ends early)")
    try:
        fmt, w, h = header(data)
        _, flag = reduction(w, h)
    except ImageFileError as e:
        raise ImageFileError(f"{shown}: {e}") from None
    with _quiet_stderr():
        try:
            img = cv2.imdecode(np.frombuffer(data, np.uint8), flag)
        except cv2.error:
            img = None
    if img is None:
        raise ImageFileError(f"{shown}: not an image OpenCV can read ({fmt} {w}x{h})")
    return img
