"""`yatzycam bench`: accuracy and speed figures of every part, on this machine, with the
sample sizes behind them.

Each section is a function ``bench(quick: bool) -> dict`` in the module that owns the
measurement: ``rules``, ``game``, ``screen``, ``app`` and ``advisor`` here, ``vision.bench``
for the reader. ``run`` names the sections and runs them; ``controller.cli.bench`` is the
command.
"""
