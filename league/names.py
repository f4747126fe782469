"""The names people are known by: a username and a display name, each claimed once, whatever its spelling.

Two names that a person reading a standings table or signing in could take for one another fold to the
same text (``folded``): case, surrounding and repeated spaces, invisible characters, what NFKC folds
(sign-in's own folding: "ａlice" is "alice") and single characters that Unicode lists as looking like an
ASCII one (Cyrillic "а" is "a"). Every player holds a ``NameClaim`` on the fold of their username and of
their display name (one claim when the two fold alike), and the claim's key is unique: two requests that
both found a name free cannot both write it, whatever the timing (docs/security.md, "Look-alike names").
"""

from __future__ import annotations

import functools
import hashlib
import json
import unicodedata
from collections.abc import Callable
from importlib import resources

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from league.models import NameClaim, Player

#: What a taken name is answered with, before the write (the check) and after it (the claim's constraint).
NAME_TAKEN = "that name is taken, or looks too like one that is: choose another"
#: Characters that show nothing: format characters (zero-width spaces and joiners, direction marks) and controls.
_INVISIBLE = {"Cf", "Cc"}
#: The form field each kind of claim comes from, for the message.
_FIELD = {NameClaim.Kind.USERNAME: "username", NameClaim.Kind.DISPLAY_NAME: "display_name"}
#: The longest display name (Player.display_name).
DISPLAY_NAME_LENGTH = 80


@functools.cache
def _lookalikes() -> dict[str, str]:
    """Each non-ASCII character that Unicode's confusables (UTS #39, as confusable_homoglyphs ships them) list as
    looking like exactly one ASCII character, mapped to it in lower case. Read once, on the first name folded."""
    data = json.loads(resources.files("confusable_homoglyphs").joinpath("confusables.json").read_text("utf-8"))
    mapped: dict[str, str] = {}
    for char, glyphs in data.items():
        if len(char) != 1 or char.isascii() or len(glyphs) != 1:
            continue
        like = glyphs[0]["c"]
        if len(like) == 1 and like.isascii():
            mapped[char] = like.lower()
    return mapped


def folded(name: str) -> str:
    """The name as the eye reads it: what two names that look alike have in common."""
    # NFKC, then case folding, then NFKC again (case folding can undo the first): Unicode's NFKC_Casefold.
    text = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())
    lookalikes = _lookalikes()
    text = "".join(lookalikes.get(char, char) for char in text if unicodedata.category(char) not in _INVISIBLE)
    return " ".join(text.split())


def name_key(name: str) -> str:
    """The claim key of a name: a hash of its fold, so that the unique column is short whatever NFKC makes of it."""
    return hashlib.sha256(folded(name).encode()).hexdigest()


def shows_something(name: str) -> bool:
    return bool(folded(name))


def _claimed_by_another(key: str, player: Player | None) -> bool:
    claims = NameClaim.objects.filter(key=key)
    if player is not None and player.pk is not None:
        claims = claims.exclude(player=player)
    return claims.exists()


def names_check(*, username: str | None = None, display_name: str | None = None, player: Player | None = None) -> None:
    """Refuse, naming the field, a username or display name that folds to another player's name.

    ``player`` is whose names they are (None for someone signing up). A display name that folds to the
    person's own username is theirs to show. This is the early, friendly answer; the claims' unique key
    is what holds against a request racing this one (``names_claim``).
    """
    own_username = username if username is not None else (player.user.get_username() if player else None)
    errors: dict[str, str] = {}
    if username is not None and _claimed_by_another(name_key(username), player):
        errors["username"] = NAME_TAKEN
    if display_name is not None:
        key = name_key(display_name)
        if not shows_something(display_name):
            errors["display_name"] = "a display name cannot be blank"
        elif key == name_key(own_username or "") and "username" not in errors:
            pass  # one's own username, in any case or spelling
        elif _claimed_by_another(key, player) or _someone_elses_username(display_name, player):
            errors["display_name"] = NAME_TAKEN
    if errors:
        raise ValidationError(errors)


def _someone_elses_username(name: str, player: Player | None) -> bool:
    """Accounts without a player (made by ``createsuperuser`` or on Django's user pages) hold no claims yet:
    their usernames, compared as sign-in compares them, are still not for others to show."""
    users = get_user_model()._default_manager.filter(username__iexact=" ".join(name.split()))
    if player is not None:
        users = users.exclude(pk=player.user_id)
    return users.exists()


def names_claim(*, player: Player, require_username: bool = True) -> None:
    """Make the player's claims match their username and display name, in the caller's transaction.

    A claim another player holds is a ValidationError naming the field (the caller's transaction must
    then be rolled back, as every service's is). ``require_username=False`` is for a player whose
    username is not being set now: an account older than the claims, whose username folds like another's
    (migration 0008 kept the first), goes on without a username claim rather than being locked out.
    """
    username_key = name_key(player.user.get_username())
    display_key = name_key(player.display_name)
    held = {claim.kind: claim for claim in NameClaim.objects.filter(player=player)}
    # The old claims go first, so that a name given up is free at once (for this player's other claim too).
    username_claim = held.get(NameClaim.Kind.USERNAME)
    if username_claim is not None and username_claim.key != username_key:
        username_claim.delete()
        username_claim = None
    display_claim = held.get(NameClaim.Kind.DISPLAY_NAME)
    if display_claim is not None and display_claim.key != display_key:
        display_claim.delete()
        display_claim = None
    if username_claim is None:
        holds_username = _claim(player, NameClaim.Kind.USERNAME, username_key, required=require_username)
    else:
        holds_username = True
    needs_display = display_key != username_key or not holds_username
    if not needs_display and display_claim is not None:
        display_claim.delete()
    elif needs_display and display_claim is None:
        _claim(player, NameClaim.Kind.DISPLAY_NAME, display_key, required=True)


def _claim(player: Player, kind: str, key: str, *, required: bool) -> bool:
    """Write one claim; whether it was written (False only if not ``required``)."""
    try:
        # A savepoint, so that a taken key leaves the caller's transaction usable for the answer.
        with transaction.atomic():
            NameClaim.objects.create(key=key, player=player, kind=kind)
    except IntegrityError:
        # Another player holds it: someone took it between the check and now, or always had it.
        if required:
            raise ValidationError({_FIELD[NameClaim.Kind(kind)]: NAME_TAKEN}) from None
        return False
    return True


def free_variant(name: str, taken: Callable[[str], bool]) -> str:
    """``name`` with the first free suffix " (2)", " (3)"…, cut to fit a display name: for a name that
    cannot be kept as it is (migration 0008's collisions; an old account's first profile)."""
    number = 2
    while True:
        suffix = f" ({number})"
        candidate = name[: DISPLAY_NAME_LENGTH - len(suffix)].rstrip() + suffix
        if not taken(name_key(candidate)):
            return candidate
        number += 1
