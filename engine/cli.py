"""``python -m engine``: play, verify and benchmark games from the shell.

Exit codes: 0 success, 1 an invalid record (verify), 2 bad arguments or input.
Every bad input gets one clear line on stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import secrets
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from engine.bench import run_bench, unit_of
from engine.cards import parse_cards
from engine.errors import EngineError, RecordError
from engine.fairness import commitment, commitment_holds
from engine.games import Game, game_names, get_game
from engine.gauntlet import GauntletPlan, Pairing, check_plan, contender, play_pairing
from engine.gauntlet_report import failures, heading, table
from engine.harness import harness_agents, is_external
from engine.ladder_opponents import MAX_LADDER_TOP, fetch_ladder
from engine.options import parse_assignments
from engine.progress import Progress
from engine.record import Record
from engine.remote import RemoteBot
from engine.runner import play_game
from engine.sandbox import check_sandbox
from engine.sprt import DEFAULTS, SprtSettings
from engine.verify import verify

EXIT_INVALID = 1
EXIT_USAGE = 2


class UsageError(Exception):
    """Bad command-line input: reported on one line with exit code 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        # argparse would print the whole usage block; one line is easier to act on.
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m engine", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    play = commands.add_parser("play", help="play one game and print its record")
    play.add_argument("game", help="war, 1923, banter or punk")
    play.add_argument(
        "--bots",
        default="",
        help="comma-separated, one per player: a bot name, a bot file (./mybot.py, .zip) or an http(s) URL",
    )
    source = play.add_mutually_exclusive_group()
    source.add_argument("--seed", type=_seed, help="seed for the deal and every later shuffle")
    source.add_argument("--deck", help="war only: the 52-card deck, top first, e.g. '2C 8D ...'")
    source.add_argument("--deal", type=Path, help="a JSON file with an explicit deal")
    play.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="a ruleset option")
    play.add_argument("--json", action="store_true", help="print only the record, as JSON")
    play.add_argument("--out", type=Path, help="also write the record to this file")

    check = commands.add_parser("verify", help="replay a record and check its result")
    check.add_argument("file", help="a record file, or - for standard input")
    check.add_argument(
        "--commitment",
        type=_commitment,
        metavar="HEX",
        help="the commitment published when the match started: also check the record's seed and salt against it",
    )

    bench = commands.add_parser("bench", help="games per second on one core, records kept")
    bench.add_argument("game")
    bench.add_argument("--games", type=_positive, default=2000)
    bench.add_argument("--bots", default="", help="comma-separated bot names (default: random for every player)")
    bench.add_argument("--players", type=_positive, help="players when --bots is not given")
    bench.add_argument("--option", action="append", default=[], metavar="KEY=VALUE")
    bench.add_argument("--quiet", action="store_true", help="no progress line")

    gauntlet = commands.add_parser(
        "gauntlet", help="play a bot against opponents until the server's sequential test decides (docs/gauntlet.md)"
    )
    gauntlet.add_argument(
        "candidate", help="the bot to test: a bot file (./mybot.py, .zip), an http(s) URL or a bot name"
    )
    gauntlet.add_argument("--game", help="war, 1923, banter or punk (with --vs-ladder: the competition's game)")
    gauntlet.add_argument(
        "--vs", action="append", default=[], help="opponents, comma-separated or repeated: bot names, files or URLs"
    )
    gauntlet.add_argument(
        "--vs-ladder",
        metavar="COMPETITION",
        help="also the top bots of a competition on a server: its address, e.g. http://127.0.0.1:8000/competitions/12/",
    )
    gauntlet.add_argument("--top", type=_positive, default=5, help="with --vs-ladder: how many of its top bots")
    gauntlet.add_argument(
        "--token", default=os.environ.get("CARDCLUB_TOKEN"), help="with --vs-ladder: your API token (CARDCLUB_TOKEN)"
    )
    gauntlet.add_argument(
        "--games", type=_positive, default=DEFAULTS.max_games, help="most games against each opponent (the test's cap)"
    )
    gauntlet.add_argument(
        "--games-per-match", type=_positive, default=2, help="games a match, an even number (each deal from both seats)"
    )
    gauntlet.add_argument("--seed", type=_seed, help="the seed a server competition would have (default: a random one)")
    gauntlet.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="a ruleset option")
    gauntlet.add_argument(
        "--elo0", type=_number, default=DEFAULTS.elo0, help="H0: the edge, in Elo, that is no real difference"
    )
    gauntlet.add_argument(
        "--elo1", type=_number, default=DEFAULTS.elo1, help="H1: the edge, in Elo, that counts as stronger"
    )
    gauntlet.add_argument("--alpha", type=_number, default=DEFAULTS.alpha, help="the chance of a false 'stronger'")
    gauntlet.add_argument("--beta", type=_number, default=DEFAULTS.beta, help="the chance of a false 'no difference'")
    gauntlet.add_argument("--quiet", action="store_true", help="no progress line")

    commands.add_parser("demo", help="play a short demo game of each of the four games")
    commands.add_parser("games", help="list the games, their options and their bots")
    bots = commands.add_parser("bench-bots", help="sandbox start time and per-move overhead")
    bots.add_argument("--starts", type=_positive, default=40, help="sandboxes to start")
    bots.add_argument("--moves", type=_positive, default=5000, help="decisions to time")
    return parser


def _seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError("the seed must not be negative")
    return value


def _commitment(text: str) -> str:
    digest = text.strip().lower()
    if len(digest) != 64 or any(c not in "0123456789abcdef" for c in digest):
        raise argparse.ArgumentTypeError(f"expected 64 hex digits (a SHA-256 digest), got {text!r}")
    return digest


def _number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"expected a finite number, got {text!r}")
    return value


def _positive(text: str) -> int:
    value = _seed(text)
    if value == 0:
        raise argparse.ArgumentTypeError("expected a positive number")
    return value


def _bot_names(text: str) -> list[str]:
    names = [name.strip() for name in text.split(",")]
    if text and not all(names):
        raise UsageError(f"--bots {text!r}: empty bot name")
    return names if text else []


def _read_deal(args: argparse.Namespace) -> object:
    if args.deck is not None:
        if get_game(args.game).NAME != "war":
            raise UsageError("--deck is for war; give other games' deals with --deal FILE")
        return {"deck": parse_cards(args.deck, count=52, what="--deck")}
    if args.deal is not None:
        return _load_json(args.deal, "--deal")
    return None


def _load_json(path: Path, what: str) -> Any:
    try:
        text = sys.stdin.buffer.read() if str(path) == "-" else path.read_bytes()
    except OSError as exc:
        raise UsageError(f"{what} {path}: {exc.strerror or exc}") from None
    try:
        return json.loads(text)
    except ValueError as exc:  # UnicodeDecodeError included: bytes that are no text are no JSON either
        raise UsageError(f"{what} {path}: not valid JSON: {exc}") from None
    except RecursionError:
        raise UsageError(f"{what} {path}: not valid JSON: nested too deeply") from None


def _game_setup(args: argparse.Namespace) -> tuple[Game, dict[str, str], list[str]]:
    """The game, its options and the bot names, refusing bots for a game without decisions."""
    game = get_game(args.game)
    options = parse_assignments(args.option)
    bots = _bot_names(args.bots)
    if bots and not game.DECISIONS and not all(is_external(bot) for bot in bots):
        # A bot file is still welcome: the harness starts it, as the server's validation does.
        raise UsageError(f"{game.NAME} has no decisions: leave out --bots (or give bot files to check they start)")
    return game, options, bots


def cmd_play(args: argparse.Namespace) -> int:
    game, options, bots = _game_setup(args)
    if game.DECISIONS and not bots:
        raise UsageError(f"--bots is required for {game.NAME}: one bot name per player, e.g. random,random")
    deal = _read_deal(args)
    seed = args.seed if args.seed is not None else (0 if deal is not None else secrets.randbits(32))
    agents: list[Any] = [None] * max(len(bots), game.MIN_PLAYERS)
    remotes: dict[str, RemoteBot] = {}
    if bots:
        agents, remotes = harness_agents(game.NAME, bots, options, seed)
    try:
        record = play_game(game.NAME, agents=agents, seed=seed, options=options, deal=deal)
    finally:
        for bot in remotes.values():
            bot.close()
    if args.out is not None:
        try:
            args.out.write_text(record.to_json() + "\n")
        except OSError as exc:
            raise UsageError(f"--out {args.out}: {exc.strerror or exc}") from None
    print(record.to_json() if args.json else summary(record, bots))
    for name, bot in remotes.items():
        # What the server shows only the bot's owner: here the owner is at the keyboard.
        if bot.start_seconds is not None and not game.DECISIONS:
            print(
                f"{name}: started in {bot.start_seconds * 1000:.0f} ms; {game.NAME} asks it nothing more",
                file=sys.stderr,
            )
        if bot.failure is not None:
            print(f"{name}: {bot.failure}", file=sys.stderr)
        if bot.log:
            print(f"--- {name}: stderr ---\n{bot.log.rstrip()}", file=sys.stderr)
    return 0


def summary(record: Record, bots: Sequence[str]) -> str:
    result = record.result or {}
    names = bots if bots else [f"P{seat + 1}" for seat in range(record.players)]
    seats = [f"{names[i]} (seat {i})" if i < len(names) else f"seat {i} (engine)" for i in range(record.players)]
    winners = result.get("winners", [])
    if len(winners) == 1:
        outcome = f"winner: {seats[winners[0]]}"
    elif winners:
        outcome = "shared win: " + ", ".join(seats[w] for w in winners)
    else:
        outcome = "draw"
    lines = [f"{record.game}  seed {record.seed}  {outcome}"]
    lines.append("ranks: " + "  ".join(f"{seats[i]} #{r}" for i, r in enumerate(result.get("ranks", []))))
    lines.append("scores: " + " ".join(str(s) for s in result.get("scores", [])))
    figures = {k: v for k, v in result.items() if k not in {"winner", "winners", "ranks", "scores", "forfeit"}}
    if figures:
        lines.append("figures: " + json.dumps(figures, sort_keys=True)[:500])
    if record.forfeit:
        f = record.forfeit
        lines.append(f"forfeit: seat {f.seat} at move {f.move}: {f.cause}" + (f": {f.detail}" if f.detail else ""))
    lines.append(f"record: {record.to_json()}")
    return "\n".join(lines)


def cmd_verify(args: argparse.Namespace) -> int:
    path = Path(args.file)
    try:
        # Bytes, not text: json decodes UTF-8 (or UTF-16/32) itself, so a file that is no text at all is
        # invalid JSON (exit 1), not a UnicodeDecodeError out of read_text().
        text = sys.stdin.buffer.read() if args.file == "-" else path.read_bytes()
    except OSError as exc:
        raise UsageError(f"{args.file}: {exc.strerror or exc}") from None
    try:
        record = Record.from_json(text)
    except RecordError as exc:
        print(f"invalid: {exc}", file=sys.stderr)
        return EXIT_INVALID
    verdict = verify(record)
    if not verdict.ok:
        print(f"invalid: {verdict}", file=sys.stderr)
        return EXIT_INVALID
    if args.commitment is not None:
        broken = commitment_problem(record, args.commitment)
        if broken is not None:
            print(f"invalid: commitment: {broken}", file=sys.stderr)
            return EXIT_INVALID
        print(f"valid: {record.game}, {len(record.actions)} steps, result confirmed, dealt from the committed seed")
        return 0
    print(f"valid: {record.game}, {len(record.actions)} steps, result confirmed")
    return 0


def commitment_problem(record: Record, published: str) -> str | None:
    """Why the record does not bear out the published commitment, or None when it does."""
    if record.salt is None:
        return "the record reveals no salt"
    if record.deal is not None:
        # An explicit deal overrides the seed, so a commitment to the seed would prove nothing of it.
        return "the record has an explicit deal, which the committed seed does not fix"
    try:
        holds = commitment_holds(record.seed, record.salt, published)
    except UnicodeEncodeError:
        # JSON can spell a lone surrogate ("\ud800"), which has no UTF-8 to hash: never a salt of ours.
        return "the record's salt is not UTF-8 text"
    if holds:
        return None
    return f"sha256 of salt and seed is {commitment(record.seed, record.salt)}, not {published}"


def cmd_bench(args: argparse.Namespace) -> int:
    game, options, bots = _game_setup(args)
    if game.DECISIONS and not bots:
        # Punk's figures are for a table of 4 (docs/performance.md); other games start at their minimum.
        bots = ["random"] * (args.players or (4 if game.NAME == "punk" else game.MIN_PLAYERS))
    elif args.players is not None and args.players != len(bots):
        raise UsageError(f"--players {args.players} does not match the {len(bots)} bots given")
    result = run_bench(game.NAME, games=args.games, bots=bots, options=options, progress=not args.quiet)
    unit = unit_of(game.NAME, options)
    options_text = ",".join(f"{k}={v}" for k, v in sorted(options.items())) or "defaults"
    bots_text = ",".join(bots) or "none (no decisions)"
    print(
        f"{game.NAME}: {result.games:,} {unit} in {result.seconds:.2f} s = {result.rate:,.0f} {unit}/s "
        f"on one core (bots: {bots_text}; options: {options_text}; records kept: {len(result.records):,})"
    )
    return 0


def cmd_gauntlet(args: argparse.Namespace) -> int:
    # Every check of the command line comes before the server is asked anything or a game is played.
    try:
        settings = SprtSettings(elo0=args.elo0, elo1=args.elo1, alpha=args.alpha, beta=args.beta, max_games=args.games)
    except ValueError as exc:
        field, _, message = str(exc).partition(": ")
        raise UsageError(f"--{'games' if field == 'max_games' else field}: {message}") from None
    opponents: list[str] = []
    for given in args.vs:
        names = [name.strip() for name in given.split(",")]
        if not all(names):
            raise UsageError(f"--vs {given!r}: an empty opponent name")
        opponents += names
    if not opponents and not args.vs_ladder:
        raise UsageError("name the opponents with --vs, --vs-ladder or both")
    if args.vs_ladder and args.top > MAX_LADDER_TOP:
        raise UsageError(f"--top {args.top}: at most {MAX_LADDER_TOP}")
    ladder = fetch_ladder(args.vs_ladder, top=args.top, token=args.token) if args.vs_ladder else None
    if args.game is not None:
        game = get_game(args.game)
    elif ladder is not None:
        game = get_game(ladder.game)
    else:
        raise UsageError("--game is required (war, 1923, banter or punk)")
    options: dict[str, object] = dict(parse_assignments(args.option))
    if ladder is not None:
        if ladder.game != game.NAME:
            raise UsageError(f"--game {args.game}: the competition {args.vs_ladder} plays {ladder.game}")
        for line in ladder.skipped:
            print(f"left out: {line}", file=sys.stderr)
        if not ladder.specs and not opponents:
            raise UsageError(f"--vs-ladder: none of the competition's top {args.top} bots can be played here")
        opponents += ladder.specs
        # The competition's own ruleset, with any --option on top of it.
        options = {**ladder.options, **options}
    plan = GauntletPlan(
        game=game.NAME,
        candidate=contender(args.candidate, game.NAME),
        opponents=tuple(contender(spec, game.NAME) for spec in opponents),
        settings=settings,
        seed=args.seed if args.seed is not None else secrets.randbits(32),
        games_per_match=args.games_per_match,
        options=options,
    )
    check_plan(plan)
    if any(bot.code is not None for bot in (plan.candidate, *plan.opponents)):
        check_sandbox()  # a machine without the sandbox says so before the first game, not as a forfeit
    print(heading(plan), flush=True)
    progress = Progress(settings.max_games * len(plan.opponents), "games", enabled=not args.quiet)
    pairings: list[Pairing] = []
    played_before = 0

    def after_round(pairing: Pairing, games: int) -> None:
        if not pairings or pairings[-1] is not pairing:
            pairings.append(pairing)  # kept from its first round, so an interruption can still show it
        if pairing.verdict.decision != "continue":
            # This opponent's test has stopped: the games it did not need leave the total.
            progress.total -= settings.max_games - len(pairing.games)
        progress.update(played_before + len(pairing.games))

    try:
        for opponent in plan.opponents:
            played_before += len(play_pairing(plan, opponent, after_round=after_round).games)
    except KeyboardInterrupt:
        progress.finish()
        print(table(pairings, settings))
        print("interrupted: each verdict is where its test stood", file=sys.stderr)
        return 130
    progress.finish()
    print(table(pairings, settings))
    for line in failures(pairings, plan.candidate.spec):
        print(line, file=sys.stderr)
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    from engine.demo import run_demo

    run_demo()
    return 0


def cmd_games(args: argparse.Namespace) -> int:
    from engine.bots import bot_names

    for name in game_names():
        game = get_game(name)
        print(f"{name}: {game.MIN_PLAYERS}-{game.MAX_PLAYERS} seats; bots: {', '.join(bot_names(name)) or 'none'}")
        for option in game.OPTIONS.describe():
            # The ranges keep every record and its public view under 2 MB (docs/records.md, "Size bounds").
            span = f"; {option.get('minimum', 'up')} to {option['maximum']}" if "maximum" in option else ""
            print(f"  --option {option['name']}=...  (default {option['default']!r}{span}) {option['help']}")
    return 0


def cmd_bench_bots(args: argparse.Namespace) -> int:
    from engine.sandbox.bench import report, run_bot_bench

    print(report(run_bot_bench(starts=args.starts, moves=args.moves)))
    return 0


COMMANDS = {
    "play": cmd_play,
    "verify": cmd_verify,
    "bench": cmd_bench,
    "gauntlet": cmd_gauntlet,
    "demo": cmd_demo,
    "games": cmd_games,
    "bench-bots": cmd_bench_bots,
}


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return COMMANDS[args.command](args)
    except (UsageError, EngineError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
