"""Commitments to seeds (engine/fairness.py) and the salt a record reveals (engine/record.py)."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest

from engine.errors import RecordError
from engine.fairness import commitment, commitment_holds, new_salt
from engine.record import Record
from engine.runner import play_game
from engine.verify import public_record, verify

GOLDEN = Path(__file__).parent / "golden"


def test_the_commitment_is_sha256_of_salt_colon_seed_as_docs_fair_play_says() -> None:
    assert commitment(42, "abc") == hashlib.sha256(b"abc:42").hexdigest()
    # Pinned, so a change of the text hashed would break every published commitment loudly.
    assert commitment(42, "abc") == "77fed3f4d816b7f45026b803d1110fd9e8495ff5884d55c08c605d1b68057163"
    assert len(commitment(0, "")) == 64


def test_a_commitment_holds_for_its_seed_and_salt_only() -> None:
    salt = new_salt()
    published = commitment(7, salt)
    assert commitment_holds(7, salt, published)
    assert commitment_holds(7, salt, f"  {published.upper()}\n")
    assert not commitment_holds(8, salt, published)
    assert not commitment_holds(7, new_salt(), published)


def test_salts_are_fresh_hex() -> None:
    salts = {new_salt() for _ in range(50)}
    assert len(salts) == 50 and all(re.fullmatch("[0-9a-f]{32}", s) for s in salts)


def test_a_record_without_a_salt_keeps_its_bytes() -> None:
    for path in sorted(GOLDEN.glob("*.json")):
        text = path.read_text().strip()
        record = Record.from_json(text)
        assert record.salt is None
        assert "salt" not in record.to_dict()
        assert json.loads(record.to_json()) == json.loads(text)


def test_a_salt_is_written_after_the_seed_and_read_back() -> None:
    record = play_game("war", agents=[None, None], seed=5)
    record.salt = "00ff"
    data = record.to_dict()
    assert list(data)[4:7] == ["seed", "salt", "deal"]
    again = Record.from_json(record.to_json())
    assert again == record and again.salt == "00ff"
    assert verify(again).ok


@pytest.mark.parametrize("salt", [5, ["ab"], {"a": 1}, True])
def test_a_salt_that_is_not_text_is_a_record_error(salt: object) -> None:
    data = play_game("war", agents=[None, None], seed=5).to_dict()
    data["salt"] = salt
    with pytest.raises(RecordError, match=r"^salt: expected text or null$"):
        Record.from_dict(data)


def test_a_null_salt_reads_as_none() -> None:
    data = play_game("war", agents=[None, None], seed=5).to_dict()
    data["salt"] = None
    assert Record.from_dict(data).salt is None


def test_the_public_record_shows_no_seed_deal_or_salt() -> None:
    record = play_game("war", agents=[None, None], seed=987654321987)
    record.salt = new_salt()
    public = public_record(record)
    assert not {"seed", "deal", "salt"} & set(public)
    text = json.dumps(public)
    assert "987654321987" not in text and record.salt not in text
