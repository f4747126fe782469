"""A seated person's transcripts of games played with real cards: upload the record, or build it step by step;
confirm or dispute the others'.

One page, /play/matches/<id>/transcripts/, and a POST address per thing it does. Every write is a service of
tournaments/services/transcripts.py, the API's own, so the page refuses what the API refuses in the same
words. The step-by-step draft waits in the session (one per match), so a reload or a refused step loses
nothing; each builder form may be sent by htmx, which swaps only the builder's section.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404, render
from django.urls import URLPattern, path, reverse
from django.views.decorators.http import require_POST

from engine.errors import EngineError
from engine.record import Record
from league.models import Player
from league.selectors import player_of_user
from tournaments.models import Competition, Match, MatchParticipant, Transcript
from tournaments.services.transcripts import (
    match_transcripts,
    transcript_confirm,
    transcript_dispute,
    transcript_settler,
    transcript_submit,
    transcript_viewer,
)
from tournaments.web.refusals import call_for_form, call_for_message
from tournaments.web.transcript_builder import (
    Draft,
    DraftProblem,
    Position,
    StepLine,
    Table,
    advance,
    draft_record,
    finished_record,
    step_lines,
    table_for,
    undo,
    with_later_part,
    with_start,
    with_step,
)
from tournaments.web.transcript_forms import (
    DealForm,
    DeckForm,
    DisputeForm,
    StartForm,
    StepForm,
    UploadForm,
)

Status = Transcript.Status

#: What each status means, in words for the person reading the page.
STATUS_WORDS = {
    Status.SUBMITTED: "Being checked by the engine",
    Status.VERIFIED: "Checked: the moves are valid",
    Status.REJECTED: "Rejected by the engine",
    Status.ACCEPTED: "Accepted",
    Status.DISPUTED: "Disputed",
    Status.VOIDED: "Set aside",
}
GOOD, BAD = {Status.VERIFIED, Status.ACCEPTED}, {Status.REJECTED, Status.DISPUTED, Status.VOIDED}


def takes_transcripts(match: Match) -> bool:
    """Whether the match's people send transcripts of games played with real cards (rather than play at the
    live table): the table page links here for them."""
    return match.competition.people_play == Competition.PeoplePlay.TRANSCRIPT


# --- Who is looking -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Seated:
    """One participant of the match, in participant order (seat of game 0)."""

    index: int
    entrant_id: int
    player_id: int | None
    name: str


@dataclass(frozen=True)
class Viewer:
    match: Match
    player: Player
    people: list[Seated]
    me: Seated | None

    @property
    def names(self) -> list[str]:
        return [seated.name for seated in self.people]

    def table(self, game_number: int) -> Table:
        competition = self.match.competition
        return table_for(
            game_name=competition.game, options=competition.options, names=self.names, game_number=game_number
        )


def _viewer(request: HttpRequest, match_id: int) -> Viewer:
    match = get_object_or_404(Match.objects.select_related("competition"), pk=match_id)
    player = player_of_user(request.user)
    if player is None or not transcript_viewer(match=match, player=player):
        raise PermissionDenied("Only the match's players, its referees and its organisers see its transcripts.")
    rows = MatchParticipant.objects.filter(match=match).select_related("entrant").order_by("seat")
    people = [Seated(row.seat, row.entrant_id, row.entrant.player_id, row.entrant.name) for row in rows]
    me = next((seated for seated in people if seated.player_id == player.pk), None)
    return Viewer(match=match, player=player, people=people, me=me)


def _open_for_transcripts(match: Match) -> bool:
    competition = match.competition
    running = competition.status == Competition.Status.RUNNING
    return takes_transcripts(match) and match.status == Match.Status.LIVE and running


# --- The draft in the session -------------------------------------------------------------------


def _draft_key(match: Match) -> str:
    return f"transcript-draft-{match.pk}"


def _draft(request: HttpRequest, viewer: Viewer) -> Draft | None:
    raw = request.session.get(_draft_key(viewer.match))
    if not isinstance(raw, dict):
        return None
    try:
        draft = Draft.from_json(raw)
    except (KeyError, TypeError, ValueError):
        return None
    return draft if 0 <= draft.game_number < viewer.match.competition.games_per_match else None


def _keep(request: HttpRequest, viewer: Viewer, draft: Draft | None) -> None:
    if draft is None:
        request.session.pop(_draft_key(viewer.match), None)
    else:
        request.session[_draft_key(viewer.match)] = draft.to_json()


# --- What the page shows ------------------------------------------------------------------------


@dataclass
class Builder:
    """The step-by-step part of the page: the draft, where it stands, and the one form it needs next."""

    draft: Draft | None
    table: Table | None = None
    position: Position | None = None
    steps: list[StepLine] | None = None
    problem: str = ""
    form: forms.Form | None = None
    #: Which form ``form`` is: "start", "deal", "deck", "step" or "" (the game is over, or the draft is broken).
    kind: str = ""
    single_seat: int | None = None
    result_lines: list[str] | None = None


def _builder(
    request: HttpRequest, viewer: Viewer, bound: forms.Form | None = None, problem: str = ""
) -> Builder | None:
    if viewer.me is None or not _open_for_transcripts(viewer.match):
        return None
    games = viewer.match.competition.games_per_match
    draft = _draft(request, viewer)
    if draft is None:
        return Builder(draft=None, form=bound or StartForm(games=games), kind="start", problem=problem)
    table = viewer.table(draft.game_number)
    builder = Builder(draft=draft, table=table, problem=problem)
    if draft.start is None:
        builder.form, builder.kind = bound or DealForm(table=table, initial_cards=_last_deal(request, viewer)), "deal"
        return builder
    try:
        draft, position = advance(table, draft)
    except DraftProblem as exc:
        builder.problem = builder.problem or f"This draft no longer replays: {exc}. Undo the last step or start again."
        return builder
    builder.position = position
    builder.steps = step_lines(table, draft_record(table, draft), draft.automatic)
    if position.wanted is not None:
        builder.form, builder.kind = bound or DeckForm(table=table, part=position.wanted), "deck"
    elif position.over:
        builder.result_lines = _result_lines(table, position.result or {})
    else:
        builder.form, builder.kind = bound or StepForm(table=table, choices=position.choices), "step"
        if len(position.choices) == 1 and not builder.problem:
            (builder.single_seat,) = position.choices
    return builder


def _last_deal(request: HttpRequest, viewer: Viewer) -> list[list[str]]:
    """The deal of a draft undone back to its deal, so the person corrects it rather than types it again."""
    raw = request.session.get(f"{_draft_key(viewer.match)}-deal")
    return raw if isinstance(raw, list) else []


def _result_lines(table: Table, result: dict[str, Any]) -> list[str]:
    ranks, scores = result.get("ranks") or [], result.get("scores") or []
    names = [table.seat_name(seat) for seat in range(len(ranks))]
    rows = zip(names, ranks, scores, strict=False)
    return [f"{_capitalised(name)}: place {rank}, score {score}" for name, rank, score in rows]


def _capitalised(text: str) -> str:
    return text[:1].upper() + text[1:]


@dataclass
class Shown:
    """One transcript as the page lists it."""

    transcript: Transcript
    game_label: str
    status_words: str
    tone: str
    reason: str
    submitted_by: str
    confirmed_by: list[str]
    #: The people whose confirmation a checked transcript still waits for.
    waiting_for: list[str]
    notes: list[str]
    steps: list[StepLine]
    result_lines: list[str]
    can_confirm: bool
    can_dispute: bool
    dispute_form: DisputeForm | None


def _shown(viewer: Viewer, transcripts: list[Transcript], disputing: tuple[int, DisputeForm] | None) -> list[Shown]:
    names = {seated.entrant_id: seated.name for seated in viewer.people}
    settler = viewer.me is None and transcript_settler(competition=viewer.match.competition, player=viewer.player)
    shown = []
    for transcript in transcripts:
        table = viewer.table(transcript.game_number)
        confirmed_ids = {c.entrant_id for c in transcript.confirmations.all()}
        confirmed = [names.get(entrant_id, "someone") for entrant_id in sorted(confirmed_ids)]
        # As the service counts them: every person but the submitter, whose confirmation is implied.
        waiting = [
            seated.name
            for seated in viewer.people
            if seated.player_id not in (None, transcript.submitted_by_id) and seated.entrant_id not in confirmed_ids
        ]
        mine = transcript.submitted_by_id == viewer.player.pk
        verified = transcript.status == Status.VERIFIED
        i_confirmed = viewer.me is not None and viewer.me.entrant_id in confirmed_ids
        try:
            record: Record | None = Record.from_dict(transcript.record)
        except EngineError:
            record = None
        form = disputing[1] if disputing and disputing[0] == transcript.number else DisputeForm()
        shown.append(
            Shown(
                transcript=transcript,
                game_label=f"Game {transcript.game_number + 1}",
                status_words=STATUS_WORDS.get(Status(transcript.status), transcript.status),
                tone="good" if transcript.status in GOOD else "bad" if transcript.status in BAD else "",
                reason=_capitalised(table.plain(transcript.reason)),
                submitted_by=transcript.submitted_by.display_name,
                confirmed_by=confirmed,
                waiting_for=waiting if verified else [],
                notes=[
                    f"{event.actor.display_name if event.actor else 'The engine'}: {event.note}"
                    for event in transcript.events.all()
                    if event.note and event.action in ("dispute", "accept", "void")
                ],
                steps=[] if record is None else step_lines(table, record),
                # What a rejected record states is not what the game gave: only a checked one's result is shown.
                result_lines=[]
                if record is None or transcript.status == Status.REJECTED
                else _result_lines(table, record.result or {}),
                can_confirm=verified and ((viewer.me is not None and not mine and not i_confirmed) or settler),
                can_dispute=verified and viewer.me is not None and not mine,
                dispute_form=form,
            )
        )
    return shown


def _page(
    request: HttpRequest,
    viewer: Viewer,
    *,
    upload: UploadForm | None = None,
    bound: forms.Form | None = None,
    problem: str = "",
    disputing: tuple[int, DisputeForm] | None = None,
) -> HttpResponse:
    match, competition = viewer.match, viewer.match.competition
    transcripts = list(match_transcripts(match=match))
    shown = _shown(viewer, transcripts, disputing)
    games = competition.games_per_match
    context = {
        "match": match,
        "competition": competition,
        "viewer": viewer,
        "takes_transcripts": takes_transcripts(match),
        "open": _open_for_transcripts(match),
        "upload_form": upload or UploadForm(games=games),
        "builder": _builder(request, viewer, bound, problem),
        "shown": shown,
        "checking": any(t.status == Status.SUBMITTED for t in transcripts),
        "seats": viewer.table(0),
    }
    return render(request, "site/transcripts/match.html", context)


def _back(viewer: Viewer, anchor: str = "") -> HttpResponseRedirect:
    return HttpResponseRedirect(reverse("site:match-transcripts", args=[viewer.match.pk]) + anchor)


# --- Pages --------------------------------------------------------------------------------------


@login_required
def match_transcripts_page(request: HttpRequest, match_id: int) -> HttpResponse:
    return _page(request, _viewer(request, match_id))


@login_required
@require_POST
def upload_transcript(request: HttpRequest, match_id: int) -> HttpResponse:
    viewer = _viewer(request, match_id)
    form = UploadForm(request.POST, request.FILES, games=viewer.match.competition.games_per_match)
    if form.is_valid():
        number = form.cleaned_data["game_number"]
        sent = call_for_form(
            form,
            lambda: transcript_submit(
                match=viewer.match, player=viewer.player, game_number=number, record=form.cleaned_data["record"]
            ),
        )
        if sent is not None:
            messages.success(request, f"Game {number + 1} sent: the engine is checking it.")
            return _back(viewer, "#transcripts")
    return _page(request, viewer, upload=form)


def _seated(viewer: Viewer) -> None:
    if viewer.me is None:
        raise PermissionDenied("Only a person playing in this match writes down its games.")


def _draft_change(handler: Callable[[HttpRequest, Viewer], HttpResponse]) -> Callable[..., HttpResponse]:
    """A POST that changes the draft: only a seated person's, and what the engine refuses goes on the page."""

    @login_required
    @require_POST
    def view(request: HttpRequest, match_id: int) -> HttpResponse:
        viewer = _viewer(request, match_id)
        _seated(viewer)
        if not _open_for_transcripts(viewer.match):
            # The service refuses the transcript anyway; a draft for it would only lose the person's time.
            messages.error(request, "This match does not take transcripts now.")
            return _back(viewer)
        try:
            return handler(request, viewer)
        except DraftProblem as exc:
            return _page(request, viewer, problem=str(exc))

    view.__name__ = handler.__name__
    view.__doc__ = handler.__doc__
    return view


@_draft_change
def start_draft(request: HttpRequest, viewer: Viewer) -> HttpResponse:
    """Begin writing down one game of the match."""
    form = StartForm(request.POST, games=viewer.match.competition.games_per_match)
    if not form.is_valid():
        return _page(request, viewer, bound=form)
    _keep(request, viewer, Draft(game_number=form.cleaned_data["game_number"]))
    return _back(viewer, "#builder")


def _current(request: HttpRequest, viewer: Viewer) -> tuple[Draft, Table]:
    draft = _draft(request, viewer)
    if draft is None:
        raise DraftProblem("Choose which game you are writing down first.")
    return draft, viewer.table(draft.game_number)


def _changed_by_form(
    request: HttpRequest,
    viewer: Viewer,
    form: forms.Form,
    change: Callable[[], Draft],
    *,
    refused: str,
    field: str | None = None,
) -> HttpResponse:
    """Keep the draft ``change`` makes from a valid form; what the form or the engine refuses stays on the form."""
    if form.is_valid():
        try:
            changed = change()
        except DraftProblem as exc:
            form.add_error(field, f"{refused}: {exc}")
        else:
            _keep(request, viewer, changed)
            return _back(viewer, "#builder")
    return _page(request, viewer, bound=form)


@_draft_change
def enter_deal(request: HttpRequest, viewer: Viewer) -> HttpResponse:
    """The deal dealt before play; the engine checks it is one whole deal of this game."""
    draft, table = _current(request, viewer)
    form = DealForm(request.POST, table=table)

    def change() -> Draft:
        changed = with_start(table, draft, form.card_lists(), form.seed())
        # Kept apart from the draft: undone back to its deal, the form comes back filled in.
        request.session[f"{_draft_key(viewer.match)}-deal"] = form.card_lists()
        return changed

    return _changed_by_form(request, viewer, form, change, refused="This deal does not fit the game")


@_draft_change
def enter_deck(request: HttpRequest, viewer: Viewer) -> HttpResponse:
    """A deck shuffled during play, which the deal must list before play goes on."""
    draft, table = _current(request, viewer)
    _, position = advance(table, draft)
    if position.wanted is None:
        raise DraftProblem("No shuffled deck is waiting to be written down now.")
    form = DeckForm(request.POST, table=table, part=position.wanted)
    return _changed_by_form(
        request,
        viewer,
        form,
        lambda: with_later_part(table, draft, form.cleaned_data["cards"]),
        refused="These cards do not fit the game",
        field="cards",
    )


@_draft_change
def take_step(request: HttpRequest, viewer: Viewer) -> HttpResponse:
    """One step: the moves of the seats that decide now, judged by the engine."""
    draft, table = _current(request, viewer)
    _, position = advance(table, draft)
    form = StepForm(request.POST, table=table, choices=position.choices)
    return _changed_by_form(
        request, viewer, form, lambda: with_step(table, draft, form.chosen()), refused="That move is not allowed"
    )


@_draft_change
def undo_step(request: HttpRequest, viewer: Viewer) -> HttpResponse:
    """Take back the last step (or the last deck written down, or the deal)."""
    draft, _ = _current(request, viewer)
    _keep(request, viewer, undo(draft))
    return _back(viewer, "#builder")


@_draft_change
def start_again(request: HttpRequest, viewer: Viewer) -> HttpResponse:
    """Throw the draft away."""
    _keep(request, viewer, None)
    request.session.pop(f"{_draft_key(viewer.match)}-deal", None)
    return _back(viewer, "#builder")


@_draft_change
def send_draft(request: HttpRequest, viewer: Viewer) -> HttpResponse:
    """Send the finished game as a transcript, as the API's submit does; the draft is kept if it is refused."""
    draft, table = _current(request, viewer)
    record = finished_record(table, draft)
    sent = call_for_message(
        request,
        lambda: transcript_submit(
            match=viewer.match, player=viewer.player, game_number=draft.game_number, record=record
        ),
        done=f"Game {draft.game_number + 1} sent: the engine is checking it.",
    )
    if sent is not None:
        _keep(request, viewer, None)
        request.session.pop(f"{_draft_key(viewer.match)}-deal", None)
    return _back(viewer, "#transcripts")


def _transcript(viewer: Viewer, number: int) -> Transcript:
    return get_object_or_404(Transcript, match=viewer.match, number=number)


@login_required
@require_POST
def confirm_transcript(request: HttpRequest, match_id: int, number: int) -> HttpResponse:
    viewer = _viewer(request, match_id)
    transcript = _transcript(viewer, number)
    call_for_message(
        request,
        lambda: transcript_confirm(transcript=transcript, player=viewer.player),
        done=f"You confirmed game {transcript.game_number + 1}'s transcript.",
    )
    return _back(viewer, "#transcripts")


@login_required
@require_POST
def dispute_transcript(request: HttpRequest, match_id: int, number: int) -> HttpResponse:
    viewer = _viewer(request, match_id)
    transcript = _transcript(viewer, number)
    form = DisputeForm(request.POST)
    if form.is_valid():
        disputed = call_for_form(
            form,
            lambda: transcript_dispute(transcript=transcript, player=viewer.player, note=form.cleaned_data["note"]),
        )
        if disputed is not None:
            messages.success(request, "Your dispute is sent: the organisers will decide.")
            return _back(viewer, "#transcripts")
    return _page(request, viewer, disputing=(number, form))


_MATCH = "play/matches/<int:match_id>/transcripts/"

urlpatterns: list[URLPattern] = [
    path(_MATCH, match_transcripts_page, name="match-transcripts"),
    path(f"{_MATCH}upload/", upload_transcript, name="transcript-upload"),
    path(f"{_MATCH}draft/start/", start_draft, name="transcript-draft-start"),
    path(f"{_MATCH}draft/deal/", enter_deal, name="transcript-draft-deal"),
    path(f"{_MATCH}draft/deck/", enter_deck, name="transcript-draft-deck"),
    path(f"{_MATCH}draft/step/", take_step, name="transcript-draft-step"),
    path(f"{_MATCH}draft/undo/", undo_step, name="transcript-draft-undo"),
    path(f"{_MATCH}draft/restart/", start_again, name="transcript-draft-restart"),
    path(f"{_MATCH}draft/send/", send_draft, name="transcript-draft-send"),
    path(f"{_MATCH}<int:number>/confirm/", confirm_transcript, name="transcript-confirm"),
    path(f"{_MATCH}<int:number>/dispute/", dispute_transcript, name="transcript-dispute"),
]
