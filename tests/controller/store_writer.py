"""A writer process for the kill -9 test: plays random legal events into a store forever.

Usage: python store_writer.py DB SEED RULES PLAYERS

Resumes the latest unfinished game (or starts one), then appends random legal
events as fast as it can. After each append returns it prints one line
``ACK <game_id> <seq> <sha1 of the state JSON> <event JSON>`` and flushes, so
the test knows exactly which events were acknowledged before it killed us.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys

from controller.bench.game import random_event
from controller.game.game import Game, Setup
from controller.store import Store


def state_hash(game: Game) -> str:
    return hashlib.sha1(json.dumps(game.to_json(), sort_keys=True).encode()).hexdigest()


def main() -> None:
    db, seed, rules, players = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
    rng = random.Random(seed)
    store = Store(db)
    while True:
        gid = store.latest_unfinished()
        if gid is None:
            gid = store.new_game(Setup.create(rules, players))
            print(f"NEW {gid}", flush=True)
        game = store.load(gid)
        while not game.finished:
            event = random_event(game, rng, undo_rate=0.05)
            game = store.append(gid, event)
            print(f"ACK {gid} {len(game.events) - 1} {state_hash(game)} {json.dumps(game.events[-1])}", flush=True)


if __name__ == "__main__":
    main()
