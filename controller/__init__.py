"""The game and the appliance around it.

``game`` (rules, rule sets, Game, GameView) and ``advisor`` are pure; ``screen`` draws a
GameView; ``store`` is the SQLite event log; ``app`` wires button, camera, reader, game,
store, LEDs and screen; ``config`` and ``doctor`` are the appliance's file and checks;
``cli`` is the ``yatzycam`` command; ``bench`` the sections of ``yatzycam bench``.
"""
