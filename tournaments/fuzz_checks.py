"""A Schemathesis check of the API fuzz gate (tournaments/fuzz.py), loaded by the ``schemathesis`` CLI.

Schemathesis's ``positive_data_acceptance`` fails any schema-valid request answered with a 400. A
write here can be refused with a 400 for what no schema can state: a name already taken, an id that
names nothing, a competition that is no longer open, a record that does not verify. So the gate lets
writes answer a schema-valid request with 400 (tournaments/fuzz.py, SCHEMATHESIS_CONFIG), and this
check keeps the part of ``positive_data_acceptance`` that still holds: a schema-valid request must
never be refused for a reason the schema states (a missing field, a wrong type, a value out of range,
a choice not offered, a NUL in text, a body that does not parse). Such a refusal means the schema
and the API disagree.

Loaded from its path (not imported as part of the project), so it needs nothing but Schemathesis.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import schemathesis

#: The messages of DRF's fields, Django's form fields (the filters) and the project's own input
#: checks that say the request broke a rule its schema states.
STATED_BY_THE_SCHEMA = re.compile(
    "|".join(
        [
            r"^This field is required\.$",
            r"^This field may not be (null|blank)\.$",
            r"^Ensure this (field|value|filename) has (no more than|at least|at most)",
            r"^Ensure this value is (greater|less) than or equal to",
            r"^Ensure that there are no more than",
            r"^A valid (integer|number) is required\.$",
            r"^String value too large\.$",
            r"^Must be a valid boolean\.$",
            r"^Not a valid string\.$",
            r"is not a valid choice\.$",
            r"^Null characters are not allowed\.$",
            r"^Expected a (dictionary|list) of items but got type",
            r"^Invalid data\. Expected a dictionary",
            r"^Incorrect type\. Expected pk value",
            r"^This (list|dictionary) may not be empty\.$",
            r"^(The submitted data was not a file|No file was submitted|The submitted file is empty)",
            r"^Value must be valid JSON\.$",
            r"^(Date|Datetime|Time) has wrong format",
            r"^Enter a (whole number|valid date|valid)",
            r"^Select a valid choice\.",
            r"^give true or false$",
            r"(JSON|Multipart form) parse error",
            # A competition setting's own spec (tournaments/formats/spec.py), through which the API reads each
            # setting: its schema states the same bounds and choices.
            r"^must be between -?[0-9.e+-]+ and -?[0-9.e+-]+$",
            r"^must be more than -?[0-9.e+-]+ and less than -?[0-9.e+-]+$",
            r"^give a (whole )?number$",
            r"^choose one of '",
            r"^give a value: this setting cannot be empty$",
            # BotVersionCreateSerializer's rules, which the schema states as one shape per kind.
            r"^an? \w+ version needs '\w+'$",
            r"^'\w+' is for \w+ versions, not \w+$",
        ]
    )
)


def messages(body: object) -> Iterator[str]:
    """Every message in a DRF error body, however deeply nested."""
    if isinstance(body, str):
        yield body
    elif isinstance(body, dict):
        for value in body.values():
            yield from messages(value)
    elif isinstance(body, list):
        for value in body:
            yield from messages(value)


@schemathesis.check
def refused_for_a_stated_reason(
    ctx: schemathesis.CheckContext, response: schemathesis.Response, case: schemathesis.Case[Any]
) -> bool | None:
    """A schema-valid request answered with 400 must be refused for a reason the schema cannot state."""
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive or response.status_code != 400:
        return None
    try:
        body = json.loads(response.content)
    except ValueError:
        raise AssertionError("a 400 whose body is not JSON") from None
    stated = sorted({message for message in messages(body) if STATED_BY_THE_SCHEMA.search(message)})
    if stated:
        raise AssertionError(
            "A request the schema allows was refused for a reason the schema should state: " + "; ".join(stated)
        )
    return None
