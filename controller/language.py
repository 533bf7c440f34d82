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


#: What the appliance says (notices and menu items), by key, in each language; ``{...}`` are filled in
#: by :func:`say`. The words of the pad itself are the scoreboard's (controller.screen.scoreboard.WORDS)
#: and the rule sets' box labels; the text of an error passed in (a camera's, the disk's) stays as given.
SAYINGS: Mapping[str, Mapping[str, str]] = {
    "cocked": {"en": "a die is cocked", "sv": "en tärning ligger snett",
               "nb": "en terning ligger skjevt", "da": "en terning ligger skævt"},
    "off_tray": {"en": "a die is off the tray", "sv": "en tärning ligger utanför brickan",
                 "nb": "en terning ligger utenfor brettet", "da": "en terning ligger uden for bakken"},
    "missing": {"en": "a die is missing", "sv": "en tärning saknas", "nb": "en terning mangler",
                "da": "en terning mangler"},
    "extra": {"en": "too many dice", "sv": "för många tärningar", "nb": "for mange terninger",
              "da": "for mange terninger"},
    "unreadable": {"en": "a die cannot be read", "sv": "en tärning kan inte läsas",
                   "nb": "en terning kan ikke leses", "da": "en terning kan ikke aflæses"},
    "disagree": {"en": "the dice moved while reading", "sv": "tärningarna rörde sig under läsningen",
                 "nb": "terningene flyttet seg under lesingen", "da": "terningerne flyttede sig under aflæsningen"},
    "unclear": {"en": "the dice are unclear", "sv": "tärningarna syns inte tydligt",
                "nb": "terningene er utydelige", "da": "terningerne er utydelige"},
    "throw_again": {"en": "Throw again: {why} (no throw used)", "sv": "Kasta igen: {why} (inget slag förbrukat)",
                    "nb": "Kast igjen: {why} (ingen kast brukt)", "da": "Slå igen: {why} (intet slag brugt)"},
    "menu_keys": {"en": "press: next, hold: choose", "sv": "tryck: nästa, håll: välj",
                  "nb": "trykk: neste, hold: velg", "da": "tryk: næste, hold: vælg"},
    "menu_keys_keyboard": {"en": "n: next, s: choose", "sv": "n: nästa, s: välj", "nb": "n: neste, s: velg",
                           "da": "n: næste, s: vælg"},
    "by_hand": {"en": "By hand: {dice}", "sv": "För hand: {dice}", "nb": "For hånd: {dice}",
                "da": "Manuelt: {dice}"},
    "by_hand_keys": {"en": "press: +1, hold: next die", "sv": "tryck: +1, håll: nästa tärning",
                     "nb": "trykk: +1, hold: neste terning", "da": "tryk: +1, hold: næste terning"},
    "by_hand_keys_keyboard": {"en": "1-6: the die, Enter: next", "sv": "1-6: tärningen, Enter: nästa",
                              "nb": "1-6: terningen, Enter: neste", "da": "1-6: terningen, Enter: næste"},
    "power_off": {"en": "Power off? Press the button within 10 s to confirm.",
                  "sv": "Stänga av? Tryck på knappen inom 10 s för att bekräfta.",
                  "nb": "Slå av? Trykk på knappen innen 10 s for å bekrefte.",
                  "da": "Sluk? Tryk på knappen inden 10 s for at bekræfte."},
    "powering_off": {"en": "Powering off...", "sv": "Stänger av...", "nb": "Slår av...", "da": "Slukker..."},
    "new_game_prompt": {"en": "Press to start a new game.", "sv": "Tryck för att börja ett nytt spel.",
                        "nb": "Trykk for å starte et nytt spill.", "da": "Tryk for at starte et nyt spil."},
    "new_game_prompt_keyboard": {"en": "Space: a new game, q: quit.", "sv": "Mellanslag: nytt spel, q: avsluta.",
                                 "nb": "Mellomrom: nytt spill, q: avslutt.", "da": "Mellemrum: nyt spil, q: afslut."},
    "not_saved_yet": {"en": "not saved yet: {e} - trying again", "sv": "inte sparat än: {e} - försöker igen",
                      "nb": "ikke lagret ennå: {e} - prøver igjen", "da": "ikke gemt endnu: {e} - prøver igen"},
    "not_saved": {"en": "not saved: {e}", "sv": "inte sparat: {e}", "nb": "ikke lagret: {e}", "da": "ikke gemt: {e}"},
    "camera_retrying": {"en": "camera: {e} - retrying", "sv": "kamera: {e} - försöker igen",
                        "nb": "kamera: {e} - prøver igjen", "da": "kamera: {e} - prøver igen"},
    "camera_down": {"en": "camera not working: {e} - retrying", "sv": "kameran fungerar inte: {e} - försöker igen",
                    "nb": "kameraet virker ikke: {e} - prøver igjen", "da": "kameraet virker ikke: {e} - prøver igen"},
    "camera_failed": {"en": "camera not working: {e}. Press to try again, or enter the dice by hand (menu)",
                      "sv": "kameran fungerar inte: {e}. Tryck för att försöka igen, eller mata in tärningarna för hand (menyn)",
                      "nb": "kameraet virker ikke: {e}. Trykk for å prøve igjen, eller legg inn terningene for hånd (menyen)",
                      "da": "kameraet virker ikke: {e}. Tryk for at prøve igen, eller indtast terningerne manuelt (menuen)"},
    "nothing_to_undo": {"en": "nothing to undo: the game has just begun", "sv": "inget att ångra: spelet har just börjat",
                        "nb": "ingenting å angre: spillet har akkurat begynt", "da": "intet at fortryde: spillet er lige begyndt"},
    "throw_first": {"en": "throw first: a turn needs at least one throw", "sv": "kasta först: en tur behöver minst ett slag",
                    "nb": "kast først: en tur trenger minst ett kast", "da": "slå først: en tur kræver mindst ét slag"},
    "box_filled": {"en": "{box} is already filled ({points} points)", "sv": "{box} är redan ifylld ({points} poäng)",
                   "nb": "{box} er allerede fylt ut ({points} poeng)", "da": "{box} er allerede udfyldt ({points} point)"},
    "forced_order": {"en": "in order: the next box is {box}", "sv": "i tur och ordning: nästa ruta är {box}",
                     "nb": "i rekkefølge: neste rute er {box}", "da": "i rækkefølge: næste rubrik er {box}"},
    "joker": {"en": "joker rule: this roll must go in {boxes}", "sv": "jokerregeln: slaget ska skrivas i {boxes}",
              "nb": "jokerregelen: kastet skal føres i {boxes}", "da": "jokerreglen: slaget skal skrives i {boxes}"},
    "cannot_take": {"en": "{box} cannot take this roll", "sv": "{box} kan inte ta det här slaget",
                    "nb": "{box} kan ikke ta dette kastet", "da": "{box} kan ikke tage dette slag"},
    "declared_no_throws": {"en": "no throws left after declaring {box}: score the standing result",
                           "sv": "inga slag kvar efter deklarationen av {box}: skriv in det som står",
                           "nb": "ingen kast igjen etter erklæringen av {box}: før inn det som står",
                           "da": "ingen slag tilbage efter meldingen af {box}: skriv det, der står"},
    "game_over": {"en": "the game is over", "sv": "spelet är slut", "nb": "spillet er over", "da": "spillet er slut"},
    "no_throws_left": {"en": "no throws left: hold the button to choose a box",
                       "sv": "inga slag kvar: håll knappen för att välja en ruta",
                       "nb": "ingen kast igjen: hold knappen for å velge en rute",
                       "da": "ingen slag tilbage: hold knappen for at vælge en rubrik"},
    "unsettled": {"en": "the tray does not keep still - try again", "sv": "brickan ligger inte still - försök igen",
                  "nb": "brettet ligger ikke stille - prøv igjen", "da": "bakken ligger ikke stille - prøv igen"},
    "same_dice": {"en": "read again: the same dice", "sv": "läst igen: samma tärningar",
                  "nb": "lest igjen: de samme terningene", "da": "aflæst igen: de samme terninger"},
    "moved_no_throws": {"en": "the dice moved, and no throws are left",
                        "sv": "tärningarna har flyttats, och inga slag är kvar",
                        "nb": "terningene er flyttet, og ingen kast er igjen",
                        "da": "terningerne er flyttet, og der er ingen slag tilbage"},
    "new_game": {"en": "New game: {setup}", "sv": "Nytt spel: {setup}", "nb": "Nytt spill: {setup}",
                 "da": "Nyt spil: {setup}"},
    "declare": {"en": "Declare {box}", "sv": "Deklarera {box}", "nb": "Erklær {box}", "da": "Meld {box}"},
    "read_again": {"en": "Read again", "sv": "Läs igen", "nb": "Les igjen", "da": "Aflæs igen"},
    "fix_by_hand": {"en": "Correct the dice by hand", "sv": "Rätta tärningarna för hand",
                    "nb": "Rett terningene for hånd", "da": "Ret terningerne manuelt"},
    "throw_by_hand": {"en": "Enter a throw by hand", "sv": "Mata in ett slag för hand",
                      "nb": "Legg inn et kast for hånd", "da": "Indtast et slag manuelt"},
    "undo": {"en": "Undo", "sv": "Ångra", "nb": "Angre", "da": "Fortryd"},
    "another_game": {"en": "Another game (rules, players)", "sv": "Annat spel (regler, spelare)",
                     "nb": "Annet spill (regler, spillere)", "da": "Andet spil (regler, spillere)"},
    "back": {"en": "Back", "sv": "Tillbaka", "nb": "Tilbake", "da": "Tilbage"},
    "start": {"en": "Start: {setup}", "sv": "Starta: {setup}", "nb": "Start: {setup}", "da": "Start: {setup}"},
    "give_up_and_start": {"en": "Give up this game and start: {setup}", "sv": "Avbryt spelet och starta: {setup}",
                          "nb": "Avbryt spillet og start: {setup}", "da": "Afbryd spillet og start: {setup}"},
    "pick_rules": {"en": "Rules: {rules} (pick to change)", "sv": "Regler: {rules} (välj för att byta)",
                   "nb": "Regler: {rules} (velg for å bytte)", "da": "Regler: {rules} (vælg for at skifte)"},
    "pick_players": {"en": "Players: {n} (pick to change)", "sv": "Spelare: {n} (välj för att byta)",
                     "nb": "Spillere: {n} (velg for å bytte)", "da": "Spillere: {n} (vælg for at skifte)"},
    "setup_one": {"en": "{rules}, 1 player", "sv": "{rules}, 1 spelare", "nb": "{rules}, 1 spiller",
                  "da": "{rules}, 1 spiller"},
    "setup_many": {"en": "{rules}, {n} players", "sv": "{rules}, {n} spelare", "nb": "{rules}, {n} spillere",
                   "da": "{rules}, {n} spillere"},
}


def say(lang: str, key: str, **fill: object) -> str:
    """What the appliance says for ``key`` in ``lang`` (English for a language it has no words in)."""
    words = SAYINGS[key]
    return words.get(lang, words["en"]).format(**fill)
