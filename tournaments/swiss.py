"""Pairing one round of a Swiss: a pure function of the standings as they are (no Django).

The service calls :func:`pair_swiss` once per round with every active entrant's score, place,
past opponents, byes and seat balance, and a seed derived from the competition's: the same
standings and seed give the same round, whichever worker asks and however often.

Order
    Entrants are walked in *standing order*: score, highest first, then ``rank`` (1 = best), then
    id. When the standings rank by score first (as a Swiss's do) this is simply ``rank`` order;
    sorting by score first keeps score groups contiguous even if they do not. A *score group*
    is the entrants with one score; groups are numbered from the top, and "distance" between
    two entrants' scores is the difference of their group numbers.

Seat balance (one convention for every table size)
    ``seat_balance`` is the sum, over the entrant's past tables, of ``2 * seat - (size - 1)``
    (seat 0 is first): :func:`seat_balance_change` gives one table's term. Positive means the
    entrant has sat late more than early. At a 2-player table this is ``+1`` for sitting last
    and ``-1`` for sitting first, so the balance is (times last) - (times first): the opposite
    sign of "first minus last", chosen so that 2-player tables and pods read the same way. At
    every table, whoever has the highest balance (has sat late most) sits first.

Two-player tables: a maximum-weight matching
    Odd field: exactly one bye, chosen before matching, to the lowest-placed entrant among
    those with the fewest byes (so nobody gets a second bye while someone has none). Should the
    rest of the field then only pair with a rematch, the next candidates of that same kind are
    tried (up to ``_BYE_TRIES``) and the first that needs the fewest rematches keeps the bye.

    The rest are paired by ``networkx.max_weight_matching(maxcardinality=True)``: the matching
    has as many tables as the graph allows (everyone, on a graph with a perfect matching), and
    among those it has the greatest total weight. Each edge's weight is a large constant minus
    a penalty whose tiers are strictly lexicographic: each tier's unit is larger than the sum the
    tiers below it can reach over a whole round, so no amount of a lower tier buys one unit of a
    higher one. Integer weights, so networkx computes exactly. From the most important:

    1. a rematch (the two have met);
    2. the seat limit (optional, ``seat_limit=2`` by default; ``None`` leaves it out): two
       entrants whose balances are both ``>= limit`` or both ``<= -limit``, since one of them
       would end past the limit. This is FIDE's "absolute colour" criterion, placed as FIDE
       places it, above score groups: without it no bound on the balance can be shown (see
       below), and in a luck-heavy game the first seat can matter. It costs a float only when
       a group has too many entrants leaning the same way;
    3. score distance, squared: keeps score groups together, and makes one float across two
       groups cost more than two floats across one, so an entrant floats no farther than needed;
    4. for a pair from different groups, their distance in standing order: the one who floats
       down is the lowest-placed of its group, and meets the top of the group below;
    5. seat balance: the sum of the two balances squared after this table (the higher sits
       first), least when a late-sitter meets an early-sitter;
    6. within a score group, the usual Swiss fold: the top half meets the bottom half (1st
       meets the (g/2 + 1)th of a group of g), the penalty being how far the two entrants' gap
       is from g/2;
    7. a few values drawn from ``rng_seed``, so that what the tiers above leave equal is decided
       by the seed rather than by the order networkx happens to visit nodes in.

    Sparsifying: networkx's blossom matching costs about (entrants x edges) per round, so a
    complete graph is hopeless (256 entrants took 5 s). Two cuts, both checked after the fact:

    - Blocks. The field is cut into blocks of about ``_BLOCK`` entrants matched apart: between
      score groups where an even number lies above (no float needs to cross), and around and
      inside every group of ``_BLOCK`` or more: its floats settled first as tier 4 would, the
      rest cut along its fold (a slice of its top half with the matching slice of its bottom half).
      A block whose matching leaves anyone out, holds a rematch or breaches the seat limit is
      merged with its neighbours and matched again; at worst the blocks become the whole field.
    - A window. In a block each entrant is joined only to the ``window`` entrants either side in
      standing order, and to the few around its fold partner (tier 6 wants those, and a group
      can be hundreds long mid-tournament). Joining everyone in the same and adjacent groups,
      the obvious alternative, is nearly a complete graph in a large field's middle rounds. When
      the whole field is one block and its matching leaves someone unpaired, rematched or past
      the seat limit, those entrants are joined to everyone and it is matched again; when that
      finds nobody new in trouble the window widens fourfold, up to the complete graph.

    So a round ends either with no rematch and no seat-limit breach (the best possible on those
    two tiers) or on the complete graph, where those two tiers are exact. Tiers 3 to 7 are the
    best within each block and its window, which hold every pairing that keeps neighbouring
    scores together; a pairing that gains on them only by floating across a block's edge, or
    farther than the window, is not looked for (a block that must float to avoid a rematch does
    so inside itself, possibly farther than the whole field would need).

    The seat bound: with ``seat_limit=2`` and no rematch constraint in the way, nobody's balance
    ever leaves [-2, 2]. Proof: say every balance is within [-2, 2] before the round, and let A
    be the entrants at +2 and B those at -2, among the n entrants to pair (the bye's balance is
    within [-2, 2] too, and the field's balances sum to 0, so those n sum to at most 2 in absolute
    value). A violation-free perfect matching exists unless A or B is more than half of n (a
    complete graph minus the edges inside A and inside B). If |A| >= n/2 + 1, the n balances sum
    to at least 2|A| - 2|B| - (n - |A| - |B|) = 3|A| - |B| - n >= 4 > 2: impossible; B likewise.
    Tier 2 then picks a violation-free matching, and whoever sits first moves toward 0.
    Rematches are a higher tier, so a late round of a small field can still push someone to 3;
    the tests check that this happens only when every pairing with as few rematches would.

Pods (``table_size >= 3``)
    ``n % table_size`` byes (the lowest-placed among those with the fewest byes, as above); no
    smaller tables, so a pod always has the game's size. The rest are cut into tables of
    consecutive entrants in standing order. Then a local search: while a table holds a repeated
    opponent pair, swap one of its entrants with one of another table's, nearest table first,
    choosing the swap that removes the most repeats and, among those, adds the least score
    spread (the sum over a table's pairs of score distance squared). Each swap removes at least one
    repeat, so it ends; when it does no single swap between two tables removes a repeat (a
    local optimum, not always the fewest possible). Seats: the highest balance sits first, and so
    on down; ties by the seed.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations, pairwise

import networkx as nx

#: Entrants either side, in standing order, that each entrant is joined to at first.
DEFAULT_WINDOW = 8
#: Entrants either side of its fold partner (tier 6) that each entrant is joined to.
_FOLD_REACH = 2
#: How many bye candidates (fewest byes, lowest placed first) are tried when a bye forces a rematch.
_BYE_TRIES = 16
#: Entrants in a block matched apart from the rest (``_blocks``): blossom's time grows faster than the field.
_BLOCK = 48
#: Range of the seeded tie-break values (tier 7).
_JITTER = 8


@dataclass(frozen=True)
class SwissEntrant:
    """What pairing knows of an entrant."""

    id: int
    #: Points so far (byes already counted as the competition scores them).
    score: Fraction
    #: Place in the standings, 1 = best.
    rank: int
    #: Everyone already met, at any table.
    opponents: frozenset[int]
    #: Byes had so far.
    byes: int
    #: Sum of :func:`seat_balance_change` over past tables: positive = has sat late more than early.
    seat_balance: int


@dataclass(frozen=True)
class SwissRound:
    #: Entrant ids in seat order, the top table first.
    tables: list[tuple[int, ...]]
    #: Entrants without a table this round.
    byes: list[int]


def swiss_rounds(entrant_count: int) -> int:
    """The standard number of rounds, ceil(log2 n), at least 1."""
    return max(1, (entrant_count - 1).bit_length()) if entrant_count > 1 else 1


def seat_balance_change(seat: int, table_size: int) -> int:
    """One table's term of ``seat_balance`` for sitting at ``seat`` (0 = first): -1/+1 at 2-player tables."""
    return 2 * seat - (table_size - 1)


def pair_swiss(
    entrants: Sequence[SwissEntrant],
    *,
    table_size: int,
    rng_seed: int,
    seat_limit: int | None = 2,
    window: int = DEFAULT_WINDOW,
) -> SwissRound:
    """The next round's tables and byes (the module docstring explains how)."""
    _validate(entrants, table_size, window)
    standing = sorted(entrants, key=lambda e: (-e.score, e.rank, e.id))
    rng = random.Random(rng_seed)
    if table_size == 2:
        return _pair_two(standing, rng, seat_limit, window)
    return _pair_pods(standing, table_size, rng)


def _validate(entrants: Sequence[SwissEntrant], table_size: int, window: int) -> None:
    if table_size < 2:
        raise ValueError(f"table_size must be at least 2, not {table_size}")
    if window < 1:
        raise ValueError(f"window must be at least 1, not {window}")
    duplicates = sorted(i for i, times in Counter(entrant.id for entrant in entrants).items() if times > 1)
    if duplicates:
        raise ValueError(f"duplicate entrant ids: {duplicates}")
    if len(entrants) < table_size:
        raise ValueError(f"{len(entrants)} entrants cannot fill a table of {table_size}")


def _bye_candidates(standing: Sequence[SwissEntrant]) -> list[SwissEntrant]:
    """Who gets a bye first: fewest byes, then lowest placed."""
    place = {entrant.id: index for index, entrant in enumerate(standing)}
    return sorted(standing, key=lambda e: (e.byes, -place[e.id]))


def _group_numbers(standing: Sequence[SwissEntrant]) -> list[int]:
    """Each entrant's score group, 0 for the top score, in standing order."""
    numbers: list[int] = []
    for index, entrant in enumerate(standing):
        same = index > 0 and entrant.score == standing[index - 1].score
        numbers.append(numbers[-1] if same else (numbers[-1] + 1 if numbers else 0))
    return numbers


# --- Two-player tables --------------------------------------------------------------------------


def _pair_two(standing: list[SwissEntrant], rng: random.Random, seat_limit: int | None, window: int) -> SwissRound:
    if len(standing) % 2 == 0:
        pairs, _ = _match(standing, rng, seat_limit, window)
        return SwissRound(tables=_seat_pairs(pairs, standing, rng), byes=[])
    best: tuple[list[tuple[SwissEntrant, SwissEntrant]], int, SwissEntrant] | None = None
    candidates = _bye_candidates(standing)
    fewest = candidates[0].byes
    # Only entrants with the fewest byes may take this one; among them, the lowest placed unless it forces a rematch.
    for candidate in [c for c in candidates if c.byes == fewest][:_BYE_TRIES]:
        rest = [entrant for entrant in standing if entrant.id != candidate.id]
        pairs, rematches = _match(rest, rng, seat_limit, window)
        if best is None or rematches < best[1]:
            best = (pairs, rematches, candidate)
        if rematches == 0:
            break
    assert best is not None
    return SwissRound(tables=_seat_pairs(best[0], standing, rng), byes=[best[2].id])


def _match(
    players: list[SwissEntrant], rng: random.Random, seat_limit: int | None, window: int
) -> tuple[list[tuple[SwissEntrant, SwissEntrant]], int]:
    """A perfect matching of ``players`` (even, in standing order) and its number of rematches.

    Block by block (see ``_blocks``); a block whose matching is not clean is merged with its
    neighbours and matched again, and once one block is the whole field its graph grows instead.
    """
    weigher = _Weigher(players, rng, seat_limit)
    blocks = _blocks(weigher, _BLOCK)
    results: list[list[tuple[int, int]] | None] = [None] * len(blocks)
    while len(blocks) > 1:
        failed = next((b for b in range(len(blocks)) if not _match_block(weigher, blocks, results, b, window)), None)
        if failed is None:
            break
        low, high = max(0, failed - 1), min(len(blocks), failed + 2)
        blocks[low:high] = [[index for block in blocks[low:high] for index in block]]
        results[low:high] = [None]
    if len(blocks) == 1:
        results = [_match_field(weigher, window)]
    pairs = sorted(pair for result in results if result is not None for pair in result)
    rematches = sum(1 for i, j in pairs if players[j].id in players[i].opponents)
    return [(players[i], players[j]) for i, j in pairs], rematches


def _match_block(
    weigher: _Weigher, blocks: list[list[int]], results: list[list[tuple[int, int]] | None], b: int, window: int
) -> bool:
    """Match block ``b`` unless done; whether its matching is clean (perfect, no rematch, within the seat limit)."""
    if results[b] is None:
        pairs = _max_matching(weigher, _window_edges(weigher, blocks[b], window))
        if 2 * len(pairs) != len(blocks[b]) or any(weigher.tiers(i, j)[0] or weigher.tiers(i, j)[1] for i, j in pairs):
            return False
        results[b] = pairs
    return True


def _match_field(weigher: _Weigher, window: int) -> list[tuple[int, int]]:
    """The whole field at once, the graph growing until nobody is unpaired, rematched or pushed past the seat limit.

    Whoever is in trouble is joined to everyone first (a few rows, cheap); only when that finds
    nobody new in trouble does the window widen for all, up to the complete graph, where the
    rematches and seat-limit breaches left are the fewest possible.
    """
    everyone = list(range(len(weigher.players)))
    reach, troubled = window, set[int]()
    while True:
        edges = set(_window_edges(weigher, everyone, reach))
        edges.update((min(i, j), max(i, j)) for i in troubled for j in everyone if i != j)
        pairs = _max_matching(weigher, sorted(edges))
        trouble = set(everyone) - {i for pair in pairs for i in pair}
        trouble.update(i for pair in pairs if weigher.tiers(*pair)[0] or weigher.tiers(*pair)[1] for i in pair)
        if not trouble or reach >= len(everyone):
            # A complete graph on an even number of nodes always has a perfect matching.
            assert 2 * len(pairs) == len(everyone)
            return pairs
        if trouble <= troubled:
            reach *= 4
        troubled |= trouble


def _max_matching(weigher: _Weigher, edges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    graph = nx.Graph()
    graph.add_weighted_edges_from((i, j, weigher.weight(i, j)) for i, j in edges)
    return sorted((min(i, j), max(i, j)) for i, j in nx.max_weight_matching(graph, maxcardinality=True))


def _blocks(weigher: _Weigher, size: int) -> list[list[int]]:
    """The field cut into blocks that can be matched apart, each of even size, most of them at least ``size``.

    Blossom's time grows with entrants times edges, so matching blocks of about ``size`` apart
    is far quicker than the field at once. Cuts fall between score groups where an even number
    of entrants lies above (so no float crosses them), and around and inside every group of
    ``size`` or more. Such a group's floats are settled first, as tier 4 would settle them: a
    float from above meets its top (in the block above), and if it is left odd its lowest floats
    down (into the run below). The rest is cut along its fold: a block takes a slice of the
    group's top half and the matching slice of its bottom half, so 1st-meets-(g/2 + 1)th holds.
    Smaller groups gather into runs until a run has ``size`` entrants and an even count.
    """
    blocks: list[list[int]] = []
    run: list[int] = []
    for start, length in _groups(weigher):
        if length >= size:
            members = list(range(start, start + length))
            if len(run) % 2:
                # Someone floats down into this group: it meets the group's top (tier 4).
                run.append(members.pop(0))
            blocks.extend([run] if run else [])
            # An odd group's lowest floats down to the next (tier 4 again).
            run = [members.pop()] if len(members) % 2 else []
            blocks.extend(_fold_slices(members, size))
            continue
        run.extend(range(start, start + length))
        if len(run) >= size and len(run) % 2 == 0:
            blocks.append(run)
            run = []
    # The field is even and every block is, so what is left is too.
    blocks.extend([run] if run else [])
    return blocks


def _groups(weigher: _Weigher) -> list[tuple[int, int]]:
    """(start, size) of each score group, in standing order."""
    return sorted({(start, size) for start, size in zip(weigher.group_start, weigher.group_size, strict=True)})


def _fold_slices(members: list[int], size: int) -> list[list[int]]:
    """An even run of one group cut into blocks of about ``size``, each a top-half slice and its fold."""
    half = len(members) // 2
    count = max(1, len(members) // size)
    cuts = [half * part // count for part in range(count + 1)]
    return [[*members[low:high], *members[half + low : half + high]] for low, high in pairwise(cuts)]


def _window_edges(weigher: _Weigher, block: list[int], reach: int) -> list[tuple[int, int]]:
    """Pairs (i < j) of the block joined in its graph: neighbours in standing order, and around each fold partner."""
    members = set(block)
    edges = {(i, j) for i in block for j in range(i + 1, i + reach + 1) if j in members}
    for i in block:
        end = weigher.group_start[i] + weigher.group_size[i]
        partner = i + weigher.group_size[i] // 2
        edges.update(
            (i, j) for j in range(partner - _FOLD_REACH, partner + _FOLD_REACH + 1) if i < j < end and j in members
        )
    return sorted(edges)


class _Weigher:
    """The edge weights of one matching: the tiers of the module docstring, as one integer."""

    def __init__(self, players: list[SwissEntrant], rng: random.Random, seat_limit: int | None) -> None:
        self.players = players
        self.rng = rng
        self.seat_limit = seat_limit
        self.drawn: dict[tuple[int, int], int] = {}
        self.group = _group_numbers(players)
        # Groups are contiguous in standing order: where each entrant's group starts, and its size.
        starts = {number: self.group.index(number) for number in set(self.group)}
        sizes = {number: self.group.count(number) for number in set(self.group)}
        self.group_start = [starts[number] for number in self.group]
        self.group_size = [sizes[number] for number in self.group]
        self.radices = self._radices()
        # Weights stay positive: with maxcardinality every perfect matching has the same number of edges.
        self.top = 1
        for radix in self.radices:
            self.top *= radix

    def _radices(self) -> list[int]:
        """Each tier's unit: more than the tier's largest possible sum over one round's pairs."""
        count = len(self.players)
        pairs = count // 2
        lean = max((abs(p.seat_balance) for p in self.players), default=0) + 1
        groups = self.group[-1] + 1 if self.group else 1
        per_pair = [1, 1, groups**2, count, 2 * lean**2, count, _JITTER]
        return [pairs * most + 1 for most in per_pair]

    def tiers(self, i: int, j: int) -> list[int]:
        """The penalty of seating ``i`` and ``j`` (i < j, indices in standing order), tier by tier."""
        first, second = self.players[i], self.players[j]
        high, low = sorted((first.seat_balance, second.seat_balance), reverse=True)
        limit = self.seat_limit
        over_limit = limit is not None and (low >= limit or high <= -limit)
        distance = self.group[j] - self.group[i]
        gap, half = abs(j - i), self.group_size[i] // 2
        return [
            int(second.id in first.opponents),
            int(over_limit),
            distance**2,
            gap if distance else 0,
            (high - 1) ** 2 + (low + 1) ** 2,
            0 if distance else abs(gap - half),
            self._tie_break(i, j),
        ]

    def _tie_break(self, i: int, j: int) -> int:
        """Drawn once per pair, so that weighing or checking a pair again gives it the same value."""
        if (i, j) not in self.drawn:
            self.drawn[(i, j)] = self.rng.randrange(_JITTER)
        return self.drawn[(i, j)]

    def weight(self, i: int, j: int) -> int:
        penalty = 0
        for radix, value in zip(self.radices, self.tiers(i, j), strict=True):
            penalty = penalty * radix + value
        return self.top - penalty


def _seat_pairs(
    pairs: list[tuple[SwissEntrant, SwissEntrant]], standing: list[SwissEntrant], rng: random.Random
) -> list[tuple[int, ...]]:
    """Seat each pair (the higher balance first; a tie by the seed), the top table first."""
    place = {entrant.id: index for index, entrant in enumerate(standing)}
    tables = [_seat_table(list(pair), rng) for pair in pairs]
    return sorted(tables, key=lambda table: min(place[i] for i in table))


def _seat_table(members: list[SwissEntrant], rng: random.Random) -> tuple[int, ...]:
    draws = {member.id: rng.random() for member in members}
    return tuple(member.id for member in sorted(members, key=lambda m: (-m.seat_balance, draws[m.id])))


# --- Pods -----------------------------------------------------------------------------------------


def _pair_pods(standing: list[SwissEntrant], table_size: int, rng: random.Random) -> SwissRound:
    bye_count = len(standing) % table_size
    byes = {entrant.id for entrant in _bye_candidates(standing)[:bye_count]}
    rest = [entrant for entrant in standing if entrant.id not in byes]
    group = dict(zip((e.id for e in standing), _group_numbers(standing), strict=True))
    tables = [rest[start : start + table_size] for start in range(0, len(rest), table_size)]
    _remove_repeats(tables, group)
    place = {entrant.id: index for index, entrant in enumerate(standing)}
    seated = [_seat_table(table, rng) for table in tables]
    seated.sort(key=lambda table: min(place[i] for i in table))
    return SwissRound(tables=seated, byes=[e.id for e in standing if e.id in byes])


def _pod_cost(table: Sequence[SwissEntrant], group: dict[int, int]) -> tuple[int, int]:
    """(repeated opponent pairs, score spread) of one table."""
    repeats = spread = 0
    for first, second in combinations(table, 2):
        repeats += second.id in first.opponents
        spread += (group[first.id] - group[second.id]) ** 2
    return repeats, spread


def _remove_repeats(tables: list[list[SwissEntrant]], group: dict[int, int]) -> None:
    """Swap entrants between tables while a swap removes a repeated opponent pair (see the module docstring)."""
    costs = [_pod_cost(table, group) for table in tables]
    improved = True
    while improved:
        improved = False
        for here in range(len(tables)):
            if costs[here][0] and _swap_from(here, tables, costs, group):
                improved = True


def _swap_from(
    here: int, tables: list[list[SwissEntrant]], costs: list[tuple[int, int]], group: dict[int, int]
) -> bool:
    """Make the best repeat-removing swap between table ``here`` and the nearest table that has one."""
    others = sorted((t for t in range(len(tables)) if t != here), key=lambda t: (abs(t - here), t))
    for there in others:
        before = (costs[here][0] + costs[there][0], costs[here][1] + costs[there][1])
        best: tuple[tuple[int, int], int, int, tuple[int, int], tuple[int, int]] | None = None
        for i in range(len(tables[here])):
            for j in range(len(tables[there])):
                mine = [*tables[here][:i], tables[there][j], *tables[here][i + 1 :]]
                theirs = [*tables[there][:j], tables[here][i], *tables[there][j + 1 :]]
                cost_mine, cost_theirs = _pod_cost(mine, group), _pod_cost(theirs, group)
                delta = (cost_mine[0] + cost_theirs[0] - before[0], cost_mine[1] + cost_theirs[1] - before[1])
                if delta[0] < 0 and (best is None or delta < best[0]):
                    best = (delta, i, j, cost_mine, cost_theirs)
        if best is not None:
            _, i, j, costs[here], costs[there] = best
            tables[here][i], tables[there][j] = tables[there][j], tables[here][i]
            return True
    return False
