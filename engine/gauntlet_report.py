"""What the offline gauntlet prints: a line per opponent and one overall, then the test's verdicts in words."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from engine.gauntlet import GauntletPlan, Pairing, Tally, pooled
from engine.sprt import SprtSettings, SprtState, SprtVerdict, sprt


def heading(plan: GauntletPlan) -> str:
    options = ",".join(f"{k}={v}" for k, v in sorted(plan.options.items())) or "defaults"
    s = plan.settings
    return (
        f"{plan.candidate.spec} against {', '.join(o.spec for o in plan.opponents)} at {plan.game} "
        f"(options: {options}), seed {plan.seed}, {plan.games_per_match} games a match with duplicate deals\n"
        f"test: H0 an edge of {s.elo0:g} Elo, H1 an edge of {s.elo1:g} Elo, alpha {s.alpha:g}, beta {s.beta:g}, "
        f"at most {s.max_games} games an opponent"
    )


def table(pairings: Sequence[Pairing], settings: SprtSettings) -> str:
    """One row per opponent and an overall row: games, wins/draws/losses, score rate and its 95% interval."""
    rows: list[tuple[str, ...]] = [("opponent", "games", "won", "drew", "lost", "score", "95% interval", "verdict")]
    for pairing in pairings:
        rows.append(_row(pairing.opponent, pairing.state, pairing.verdict, settings))
    if len(pairings) > 1:
        total = pooled(pairings)
        rows.append(_row("overall", total, overall_verdict(pairings, settings), settings))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = []
    for row in rows:
        cells = [
            cell.ljust(width) if i in (0, 7) else cell.rjust(width)
            for i, (cell, width) in enumerate(zip(row, widths, strict=True))
        ]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


def overall_verdict(pairings: Sequence[Pairing], settings: SprtSettings) -> SprtVerdict:
    """The test's arithmetic on every game together, capped at every opponent's cap added up.

    Each opponent's own verdict is the one the server would give; this pooled one answers "stronger than this
    field as a whole?", and is only a summary, since each opponent's games stopped by their own test.
    """
    return sprt(pooled(pairings), replace(settings, max_games=settings.max_games * len(pairings)))


def _row(name: str, state: SprtState, verdict: SprtVerdict, settings: SprtSettings) -> tuple[str, ...]:
    tally = Tally(state)
    rate = tally.score_rate
    low, high = tally.interval
    return (
        name,
        str(tally.state.games),
        str(tally.state.wins),
        str(tally.state.draws),
        str(tally.state.losses),
        "-" if rate is None else f"{rate:.1%}",
        f"{low:.1%} to {high:.1%}",
        decision_words(verdict, settings),
    )


def decision_words(verdict: SprtVerdict, settings: SprtSettings) -> str:
    """The verdict in the words the server's competition page uses, with the evidence."""
    words = {
        "H1": f"stronger: an edge of {settings.elo1:g} Elo fits better than {settings.elo0:g} (H1)",
        "H0": f"not {settings.elo1:g} Elo stronger: an edge of {settings.elo0:g} Elo fits better (H0)",
        "cap": f"undecided after {verdict.games} games (the cap)",
        # Only the overall line can say "play on": every opponent's own test has stopped, so no games are coming.
        "continue": f"undecided after {verdict.games} games",
    }[verdict.decision]
    return f"{words}; LLR {verdict.llr:.2f} in ({verdict.lower:.2f}, {verdict.upper:.2f})"


def failures(pairings: Sequence[Pairing], candidate: str) -> list[str]:
    """Lines for the candidate's author: its forfeits by cause, and the log of the first match it failed in."""
    lines = []
    for pairing in pairings:
        causes = pairing.candidate_forfeits()
        if causes:
            counted = ", ".join(f"{cause} {count}" for cause, count in sorted(causes.items()))
            lines.append(f"{candidate} forfeited against {pairing.opponent}: {counted}")
            first = next(g for g in pairing.games if g.forfeit is not None and g.forfeit[0] == g.seat)
            _, cause, detail = first.forfeit or (0, "", "")
            said = f"{cause}: {detail}" if detail else cause
            lines.append(f"  the first: round {first.round_number}, game {first.number}, seed {first.seed}: {said}")
        if pairing.failure_logs:
            lines.append(f"--- {candidate} against {pairing.opponent}, {pairing.failure_logs[0]}")
    return lines
