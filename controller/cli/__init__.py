"""The ``yatzycam`` command. One module here per group of subcommands;
``main`` builds the parser from them and runs one (``python -m controller.cli`` is the same).

Each such module exposes ``register(subparsers)``; it adds its parser and sets
``func`` (args -> exit code). Heavy imports (OpenCV, the reader) happen inside
the handlers so that ``yatzycam score`` stays quick to start.

Errors meant for the user carry ``user_error = True`` (see ``UserError``); they
are printed as one line on stderr and the exit code is 2 — never a traceback.
"""


class UserError(Exception):
    """Bad input from the user: one clear line, exit code 2."""

    user_error = True
