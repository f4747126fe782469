"""A newcomer's way in, through the API only (issue 13, "Done means"): sign up, then join a club by
invitation, and another by request; an organiser decides; the roll lists them in their roles."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from league.models import Club
from tests.league.test_api_support import results

pytestmark = pytest.mark.django_db


def signed_up(username: str, address: str) -> APIClient:
    """A client holding the token a fresh sign-up returned."""
    answer = APIClient().post(
        "/api/auth/register/",
        {"username": username, "password": f"{username}-plays-cards-2026"},
        format="json",
        REMOTE_ADDR=address,
    )
    assert answer.status_code == 201, answer.json()
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {answer.json()['token']}")
    return client


def test_newcomers_sign_up_and_join_by_invitation_and_by_request() -> None:
    organiser = signed_up("olga", "10.1.0.1")
    made = organiser.post(
        "/api/clubs/", {"name": "Tuesday club", "slug": "tuesday", "joining": "request"}, format="json"
    )
    assert made.status_code == 201
    club = made.json()["id"]

    # Nina has a code from Olga: she joins as a referee at once.
    code = organiser.post(f"/api/clubs/{club}/invitations/", {"role": "referee"}, format="json").json()["code"]
    nina = signed_up("nina", "10.1.0.2")
    assert nina.get(f"/api/invitations/{code}/").json()["club_name"] == "Tuesday club"
    assert nina.post(f"/api/invitations/{code}/accept/").status_code == 201

    # Otto has none: he asks, and Olga accepts.
    otto = signed_up("otto", "10.1.0.3")
    asked = otto.post(f"/api/clubs/{club}/join/", {"note": "friend of Nina"}, format="json")
    assert asked.status_code == 202
    pending = results(organiser.get(f"/api/clubs/{club}/join-requests/"))
    assert [(r["player"]["display_name"], r["note"]) for r in pending] == [("otto", "friend of Nina")]
    assert organiser.post(f"/api/clubs/{club}/join-requests/{asked.json()['id']}/accept/").status_code == 200

    roll: list[dict[str, Any]] = results(APIClient().get(f"/api/clubs/{club}/members/"))
    assert sorted((m["player"]["display_name"], m["role"]) for m in roll) == [
        ("nina", "referee"),
        ("olga", "organiser"),
        ("otto", "member"),
    ]
    assert Club.objects.get(pk=club).joining == Club.Joining.REQUEST
    # Without an invitation, an invitation-only club says how to get in.
    organiser.patch(f"/api/clubs/{club}/", {"joining": "invitation"}, format="json")
    refused = signed_up("pia", "10.1.0.4").post(f"/api/clubs/{club}/join/")
    assert refused.status_code == 403 and "invitation only" in refused.json()["detail"]
