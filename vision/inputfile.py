"""A user's input file, opened so that it cannot hang or flood the program.

Every file a command reads from a path (an image, a calibration, a config, a rule set, an event
log) goes through :func:`open_regular`: it is opened without blocking (a FIFO opened for reading
would otherwise wait forever for a writer), and anything but a regular file - a FIFO, a device, a
socket, a folder - is refused before a byte is read. :func:`read_bytes` adds a size cap, checked
on the file's size before reading and again while reading (a file that grows meanwhile).

The refusal is a :class:`NotARegularFile`, an ``OSError`` whose ``strerror`` is the one line to
show, so that the callers' existing ``except OSError`` turns it into their own error class.
"""

from __future__ import annotations

import errno
import os
import stat
from typing import BinaryIO


class NotARegularFile(OSError):
    """Not a regular file, or too large: ``strerror`` says which."""

    def __init__(self, why: str) -> None:
        super().__init__(errno.EINVAL, why)

    def __str__(self) -> str:
        return self.strerror


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def not_a_file(path: str | os.PathLike) -> str | None:
    """Why ``path`` can never be a regular file to read or write (None: it is one, or is not there
    yet): "is a folder, not a file", "is a FIFO (named pipe), not a file", or the system's word
    ("File name too long", "Not a directory"); a name holding a NUL character names no file at all."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return None
    except OSError as e:
        return e.strerror or str(e)
    except ValueError:  # (os.stat's "embedded null byte")
        return "holds a NUL character, which no file name can"
    return None if stat.S_ISREG(mode) else f"is {_kind(mode)}, not a file"


def open_regular(path: str | os.PathLike) -> BinaryIO:
    """The file opened for reading in binary; NotARegularFile for anything but a regular file,
    OSError (FileNotFoundError, PermissionError, ...) when it cannot be opened."""
    try:
        st = os.stat(path)  # (a socket cannot even be opened: say what it is)
    except OSError:
        st = None
    if st is not None and not stat.S_ISREG(st.st_mode):
        raise NotARegularFile(f"is {_kind(st.st_mode)}, not a file")
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)  # never waits on a FIFO swapped in meanwhile
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotARegularFile(f"is {_kind(mode)}, not a file")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_bytes(path: str | os.PathLike, limit: int) -> bytes:
    """The whole regular file, at most ``limit`` bytes (NotARegularFile when larger)."""
    with open_regular(path) as f:
        size = os.fstat(f.fileno()).st_size
        if size > limit:
            raise NotARegularFile(f"too large ({_mb(size)}; at most {_mb(limit)})")
        data = f.read(limit + 1)
    if len(data) > limit:
        raise NotARegularFile(f"too large (more than {_mb(limit)})")
    return data


def read_text(path: str | os.PathLike, limit: int) -> str:
    """:func:`read_bytes` decoded as UTF-8 (UnicodeDecodeError when it is not)."""
    return read_bytes(path, limit).decode("utf-8")


def _mb(n: int) -> str:
    return f"{n / 1e6:.1f} MB" if n >= 100_000 else f"{n} bytes"

