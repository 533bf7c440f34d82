"""One language for every command: ``--lang``, else the config file's ``display.language``,
else the locale's.

The locale is the first of ``LC_ALL``, ``LC_MESSAGES`` and ``LANG`` that is set (as POSIX
orders them): ``sv`` -> Swedish, ``nb``/``nn``/``no`` -> Norwegian (bokmål), ``da`` -> Danish;
anything else, ``C`` and ``POSIX`` included, -> English. Box ids in JSON are never translated.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping
from pathlib import Path

from controller.game.rules import LANGUAGES

LOCALE_LANGS = {"sv": "sv", "nb": "nb", "nn": "nb", "no": "nb", "da": "da"}


def from_locale(env: Mapping[str, str] | None = None) -> str:
    """The language of the locale (see the module's docstring)."""
    env = os.environ if env is None else env
    value = next((env[k] for k in ("LC_ALL", "LC_MESSAGES", "LANG") if env.get(k)), "")
    code = value.split(".")[0].split("@")[0].split("_")[0].split("-")[0].lower()
    return LOCALE_LANGS.get(code, "en")


def from_config(path: str | Path | None) -> str | None:
    """``display.language`` as the config file sets it (None: not set, or no such file; a bad
    file is left for the commands that read all of it)."""
    if path is None:
        from controller.config import DEFAULT_PATH

        path = DEFAULT_PATH
    try:
        import tomllib

        from controller.tomlfile import TOML_LIMIT
        from vision.inputfile import read_text

        data = tomllib.loads(read_text(path, TOML_LIMIT))  # (a FIFO or a huge file: refused, never waited on)
    except (OSError, UnicodeDecodeError, ValueError, RecursionError):
        return None
    lang = data.get("display", {}).get("language") if isinstance(data.get("display"), dict) else None
    return lang if lang in LANGUAGES else None


def resolve(lang: str | None, config: str | Path | None = None, env: Mapping[str, str] | None = None) -> str:
    """``lang`` if given, else the config's language, else the locale's."""
    return lang or from_config(config) or from_locale(env)


def add_option(p: argparse.ArgumentParser, what: str = "labels and messages") -> None:
    """The ``--lang`` option every command shares (its default is resolved at run time)."""
    p.add_argument("--lang", default=None, choices=LANGUAGES,
                   help=f"language of the {what} (default: the config's display.language, else the locale's: "
                   "LANG sv, nb/nn/no, da; anything else English)")
