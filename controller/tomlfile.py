"""Read a TOML file, turning every way it can fail into one line of the caller's error class."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from vision.inputfile import read_text

TOML_LIMIT = 1_000_000  # bytes: a config or a rule set is a few kB


def read_toml(path: str | Path, error: type[Exception], what: str, hint: str = "") -> dict[str, Any]:
    """The parsed file, or ``error("PATH: why")``; ``what`` names the file's kind ("rule-set file")."""
    shown = str(path)
    try:
        text = read_text(path, TOML_LIMIT)
    except FileNotFoundError:
        raise error(f"{shown}: no such {what}{hint}") from None
    except (OSError, UnicodeDecodeError) as e:
        raise error(f"{shown}: cannot read: {getattr(e, 'strerror', None) or e}") from None
    try:
        return tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError) as e:  # (RecursionError: arrays nested thousands deep)
        why = "nested too deeply" if isinstance(e, RecursionError) else e
        raise error(f"{shown}: not valid TOML: {why}") from None
