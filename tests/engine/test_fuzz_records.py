"""Fuzzing ``python -m engine verify`` and the record parser behind it: any input, one clear line, no traceback.

Exit codes (engine/cli.py): 0 a valid record, 1 an invalid one (not JSON, not a record, or a
replay that breaks: the message names the step), 2 input that cannot be read at all.
Most cases run the CLI in-process (``main(argv)``); two run it as a subprocess, as a person would.
"""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from engine.cli import main
from engine.errors import RecordError
from engine.fairness import commitment
from engine.record import Record
from engine.verify import verify
from tests.engine.fuzz_support import base_records, json_text, json_values, mutated_records

ROOT = Path(__file__).resolve().parents[2]
FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
#: Bytes that are not UTF-8 (or UTF-16/32) text, and JSON nested deeper than json will read.
NOT_TEXT = b"\xff\xfe\x00\xd8garbage\x80"
TOO_DEEP = b"[" * 100_000


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz-records")


def run_cli(argv: Sequence[str], stdin: bytes | None = None) -> tuple[int, str, str]:
    """``python -m engine ARGV`` in-process: its exit code, stdout and stderr."""
    out, err = io.StringIO(), io.StringIO()
    saved_stdin = sys.stdin
    if stdin is not None:
        sys.stdin = io.TextIOWrapper(io.BytesIO(stdin))
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(list(argv))
            except SystemExit as exit_:  # argparse's own errors
                code = int(str(exit_.code))
    finally:
        sys.stdin = saved_stdin
    return code, out.getvalue(), err.getvalue()


def verify_file(path: Path, data: bytes, *extra: str) -> tuple[int, str, str]:
    path.write_bytes(data)
    return run_cli(["verify", str(path), *extra])


def assert_one_clear_line(code: int, out: str, err: str) -> None:
    """What the CLI promises for any input: an exit code it documents and one line that says why."""
    assert code in (0, 1, 2), (code, err)
    assert "Traceback" not in err + out
    if code == 0:
        assert out.startswith("valid: ") and out.count("\n") == 1 and not err
    else:
        prefix = "invalid: " if code == 1 else "error: "
        assert err.startswith(prefix) and err.count("\n") == 1 and err.endswith("\n"), err
        assert not out


def expected_code(raw: Any) -> int:
    """What ``verify`` should answer, from the library: 0 when the record parses and replays, else 1."""
    try:
        record = Record.from_dict(raw)
    except RecordError:
        return 1
    return 0 if verify(record).ok else 1


# --- Real records ------------------------------------------------------------------------------


@pytest.mark.parametrize("index", range(len(base_records())))
def test_real_records_round_trip_and_verify_through_the_cli(index: int, scratch: Path) -> None:
    raw = base_records()[index]
    record = Record.from_dict(raw)
    assert Record.from_json(record.to_json()) == record
    assert json.loads(record.to_json()) == raw
    code, out, err = verify_file(scratch / "real.json", record.to_json().encode())
    assert (code, err) == (0, "")
    assert out == f"valid: {raw['game']}, {len(raw['actions'])} steps, result confirmed\n"


def test_a_real_records_salt_and_seed_bear_out_its_commitment(scratch: Path) -> None:
    raw = next(r for r in base_records() if "salt" in r)
    code, out, _ = verify_file(scratch / "salted.json", json.dumps(raw).encode(), "--commitment", _published(raw))
    assert code == 0 and out.endswith("dealt from the committed seed\n")


def _published(raw: dict[str, Any]) -> str:
    return commitment(raw["seed"], raw["salt"])


# --- Mutated records ---------------------------------------------------------------------------


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(raw=mutated_records())
def test_a_mutated_record_gets_a_verdict_never_an_exception(raw: Any) -> None:
    try:
        record = Record.from_dict(raw)
    except RecordError as exc:
        assert "\n" not in str(exc)
        return
    verdict = verify(record)
    assert isinstance(verdict.ok, bool)
    assert verdict.ok or (str(verdict) and "\n" not in str(verdict))


@FUZZ
@given(raw=mutated_records())
def test_the_verify_command_answers_a_mutated_record_on_one_line(raw: Any, scratch: Path) -> None:
    code, out, err = verify_file(scratch / "mutated.json", json_text(raw).encode())
    assert_one_clear_line(code, out, err)
    assert code == expected_code(raw)


@FUZZ
@given(raw=json_values())
def test_the_verify_command_answers_any_json_document_on_one_line(raw: Any, scratch: Path) -> None:
    code, out, err = verify_file(scratch / "document.json", json_text(raw).encode())
    assert_one_clear_line(code, out, err)
    assert code == 1


@FUZZ
@given(data=st.binary(max_size=300))
@example(data=NOT_TEXT)
@example(data=TOO_DEEP)
@example(data=b'{"a":' * 5000)
@example(data=b"")
@example(data=b"\xef\xbb\xbf{}")
def test_the_verify_command_answers_any_bytes_on_one_line(data: bytes, scratch: Path) -> None:
    code, out, err = verify_file(scratch / "bytes.json", data)
    assert_one_clear_line(code, out, err)
    assert code == 1


@FUZZ
@given(salt=json_values(), seed=st.integers(-(2**70), 2**70) | st.just(10**4000))
@example(salt="\ud800", seed=1)
@example(salt="\x00", seed=1)
def test_the_commitment_check_answers_any_salt_and_seed(salt: Any, seed: int, scratch: Path) -> None:
    raw = dict(next(r for r in base_records() if "salt" in r), salt=salt, seed=seed)
    published = _published(next(r for r in base_records() if "salt" in r))
    code, out, err = verify_file(scratch / "salt.json", json_text(raw).encode(), "--commitment", published)
    assert_one_clear_line(code, out, err)
    assert code == 1  # the seed fixes the deal the actions were played from, and the salt the commitment


# --- What the fuzzing found --------------------------------------------------------------------


def test_a_file_that_is_not_text_is_invalid_json(scratch: Path) -> None:
    code, _, err = verify_file(scratch / "binary.json", NOT_TEXT)
    assert code == 1 and err.startswith("invalid: not valid JSON")


@pytest.mark.parametrize("data", [TOO_DEEP, b'{"a":' * 5000], ids=["arrays", "objects"])
def test_json_nested_too_deeply_is_invalid_json(data: bytes, scratch: Path) -> None:
    code, _, err = verify_file(scratch / "deep.json", data)
    assert (code, err) == (1, "invalid: not valid JSON: nested too deeply\n")
    with pytest.raises(RecordError, match="nested too deeply"):
        Record.from_json(data)


def test_standard_input_is_read_as_bytes_too() -> None:
    code, _, err = run_cli(["verify", "-"], stdin=NOT_TEXT)
    assert code == 1 and err.startswith("invalid: not valid JSON")
    valid = json.dumps(base_records()[0]).encode()
    assert run_cli(["verify", "-"], stdin=valid)[0] == 0


def test_a_salt_with_a_lone_surrogate_is_no_salt_of_ours(scratch: Path) -> None:
    raw = dict(next(r for r in base_records() if "salt" in r), salt="\ud800")
    code, _, err = verify_file(scratch / "surrogate.json", json.dumps(raw).encode(), "--commitment", "a" * 64)
    assert (code, err) == (1, "invalid: commitment: the record's salt is not UTF-8 text\n")


def test_a_kelvin_sign_is_not_a_king(scratch: Path) -> None:
    """Unicode case folding matched K (U+212A) as K, and War's replay then raised KeyError."""
    raw = dict(next(r for r in base_records() if r["deal"] and "hands" in r["deal"]))
    raw["deal"] = {"hands": [["\u212aS", "2C"], ["3C", "4C"]]}
    code, _, err = verify_file(scratch / "kelvin.json", json.dumps(raw).encode())
    assert code == 1 and "malformed card '\u212aS'" in err


def test_a_long_wrong_format_is_quoted_short(scratch: Path) -> None:
    raw = dict(base_records()[0], format="x" * 100_000)
    code, _, err = verify_file(scratch / "format.json", json.dumps(raw).encode())
    assert code == 1 and err.startswith("invalid: format: expected 'cardgames-record/1', got 'xxx") and len(err) < 200


@pytest.mark.parametrize("data", [NOT_TEXT, TOO_DEEP], ids=["not-text", "too-deep"])
def test_a_deal_file_that_cannot_be_read_is_a_usage_error(data: bytes, scratch: Path) -> None:
    path = scratch / "deal.json"
    path.write_bytes(data)
    code, out, err = run_cli(["play", "war", "--deal", str(path)])
    assert_one_clear_line(code, out, err)
    assert code == 2 and "not valid JSON" in err


# --- As a person runs it -----------------------------------------------------------------------


@pytest.mark.parametrize("data", [NOT_TEXT, TOO_DEEP], ids=["not-text", "too-deep"])
def test_the_module_entry_point_answers_hostile_files_without_a_traceback(data: bytes, tmp_path: Path) -> None:
    path = tmp_path / "hostile.json"
    path.write_bytes(data)
    proc = subprocess.run(
        [sys.executable, "-m", "engine", "verify", str(path)], capture_output=True, text=True, cwd=ROOT, timeout=60
    )
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr and proc.stderr.startswith("invalid: not valid JSON")
    assert proc.stderr.count("\n") == 1 and not proc.stdout
