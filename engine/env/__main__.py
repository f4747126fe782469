"""``python -m engine.env GAME [--players N] [--option KEY=VALUE ...]``: a ruleset's action space and
observation layout, as docs/training.md tabulates them for the defaults."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from engine.env.table import Table
from engine.errors import EngineError
from engine.options import parse_assignments


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        # One line, as the engine's own command line says it (engine/cli.py).
        self.exit(2, f"{self.prog}: error: {message}\n")


def main(argv: Sequence[str] | None = None) -> int:
    parser = _Parser(prog="python -m engine.env", description=__doc__.splitlines()[0])
    parser.add_argument("game")
    parser.add_argument("--players", type=int, help="seats, Punk's dummy included (default: the game's least)")
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="a ruleset option")
    args = parser.parse_args(argv)
    try:
        table = Table(args.game, args.players, parse_assignments(args.option))
    except EngineError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    options = ", ".join(f"{key}={value}" for key, value in sorted(table.options.items())) or "none"
    print(f"{table.game.NAME}, {table.players} seats ({options})")
    print(f"agents: {', '.join(f'seat_{seat}' for seat in table.people)}")
    print(f"actions ({len(table.actions)}):")
    for index, action in enumerate(table.actions.labels):
        print(f"  {index}: {action}")
    print(f"observation: {table.encoder.size} float32 slots")
    print(table.encoder.table())
    return 0


if __name__ == "__main__":
    sys.exit(main())
