"""The service never branches on a competition's format: what differs between formats is the format's to say
(issue 22), as tests/test_game_agnostic_service.py holds for games.

Every module of ``league/``, ``tournaments/`` and ``config/`` is read with ``ast``, and flagged where it
- compares (``==``, ``!=``, ``in``, ``not in``, ``is``, ``is not``) a named format (a registered format's key
  as a literal, a constant holding keys, a collection of them, a format object or its ``.key``) with
  anything, or something called ``format`` or ``cut_format`` with anything but None or a literal that is no
  format's key (a renderer's ``format == "json"`` is not a competition's);
- keeps a dict keyed by format keys, or looks something up by a competition's format (``table[c.format]``,
  ``table.get(c.format)``);
- queries competitions by a named format (``.filter(format="swiss")``, ``.exclude(format__in=KNOCKOUTS)``);
- asks ``isinstance``/``issubclass`` about a format's class, or ``match``es on a format key.
Templates and scripts are read with patterns: ``format ==``, ``format in`` and a quoted format key.

Calling a helper defined inside ``tournaments/formats/`` is how the rest of the service asks a question that
depends on the format, so nothing inside it is read. Migrations describe the data as it was.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from itertools import pairwise
from pathlib import Path

from tournaments.formats.base import Format
from tournaments.formats.registry import all_formats, format_keys

ROOT = Path(__file__).resolve().parents[1]
SERVICE = ("league", "tournaments", "config")
#: Where a format may be named: the formats themselves (and their page parts), and the demo, whose data
#: names the formats of the competitions it creates, as a club would when it creates them.
ALLOWED = (
    ROOT / "tournaments" / "formats",
    ROOT / "tournaments" / "templates" / "formats",
    ROOT / "tournaments" / "demo.py",
)
FORMAT_NAMES = {"format", "cut_format"}
COMPARISONS = (ast.Eq, ast.NotEq, ast.In, ast.NotIn, ast.Is, ast.IsNot)
QUERIES = {"filter", "exclude", "Q"}
PROJECT = tuple(f"{package}." for package in SERVICE)


def _allowed(path: Path) -> bool:
    return "migrations" in path.parts or any(path == a or a in path.parents for a in ALLOWED)


def _service_files(*suffixes: str) -> list[Path]:
    return [
        path
        for package in SERVICE
        for path in sorted((ROOT / package).rglob("*"))
        if path.suffix in suffixes and not _allowed(path)
    ]


@cache
def _format_classes() -> frozenset[type]:
    """The classes of the formats (and their bases) and the protocols formats satisfy."""
    classes: set[type] = {Format}
    for format in all_formats():
        classes.update(cls for cls in type(format).__mro__ if cls.__module__.startswith("tournaments.formats"))
    for module_name in {cls.__module__ for cls in classes}:
        module = importlib.import_module(module_name)
        classes.update(
            cls for _, cls in inspect.getmembers(module, inspect.isclass) if Format in getattr(cls, "__mro__", ())
        )
    return frozenset(classes)


def _named_value(value: object, keys: frozenset[str]) -> bool:
    """Whether a value of the service names a format: a key, keys, a format or a format's class."""
    if isinstance(value, str):
        return value in keys
    if isinstance(value, dict):
        return any(_named_value(key, keys) for key in value)
    if isinstance(value, tuple | list | set | frozenset):
        return any(_named_value(item, keys) for item in value)
    if isinstance(value, type):
        return value in _format_classes()
    return any(cls in _format_classes() for cls in type(value).__mro__)


@dataclass
class _Reader:
    """One module's offences, read from its syntax tree."""

    keys: frozenset[str]
    #: Names of the module bound to a named format: a literal assigned here, or a value imported.
    named: set[str]

    @classmethod
    def of(cls, tree: ast.AST, keys: frozenset[str]) -> _Reader:
        reader = cls(keys, set())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith(PROJECT):
                module = importlib.import_module(node.module)
                for alias in node.names:
                    if _named_value(getattr(module, alias.name, None), keys):
                        reader.named.add(alias.asname or alias.name)
        # Twice, so a constant built from another (KNOCKOUTS = (SINGLE, DOUBLE)) is known in either order.
        for _ in range(2):
            for node in ast.walk(tree):
                targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
                value = getattr(node, "value", None)
                if isinstance(node, ast.Assign | ast.AnnAssign) and value is not None and reader.names_format(value):
                    reader.named.update(t.id for t in targets if isinstance(t, ast.Name))
        return reader

    def names_format(self, node: ast.AST) -> bool:
        """A named format: a key, a constant holding keys, a collection of them, a format or its key."""
        if isinstance(node, ast.Constant):
            return isinstance(node.value, str) and node.value in self.keys
        if isinstance(node, ast.Name):
            return node.id in self.named
        if isinstance(node, ast.Attribute) and node.attr == "key":
            return self.names_format(node.value)
        if isinstance(node, ast.Tuple | ast.List | ast.Set):
            return any(self.names_format(element) for element in node.elts)
        if isinstance(node, ast.Dict):
            return any(key is not None and self.names_format(key) for key in node.keys)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in {"frozenset", "set"}:
            return any(self.names_format(arg) for arg in node.args)
        return False

    @staticmethod
    def called_format(node: ast.AST) -> bool:
        """Something called ``format`` or ``cut_format``: a name, an attribute or a stored setting."""
        if isinstance(node, ast.Name):
            return node.id in FORMAT_NAMES
        if isinstance(node, ast.Attribute):
            return node.attr in FORMAT_NAMES
        if isinstance(node, ast.Subscript):
            return isinstance(node.slice, ast.Constant) and node.slice.value in FORMAT_NAMES
        return False

    def branch(self, one: ast.AST, other: ast.AST) -> bool:
        if self.names_format(one):
            return True
        if not self.called_format(one):
            return False
        # Whether there is a format at all, or another kind of format (a renderer's "json"), is no branch on one.
        return not (isinstance(other, ast.Constant) and (other.value is None or isinstance(other.value, str)))

    def offences(self, tree: ast.AST) -> Iterator[tuple[int, str]]:
        for node in ast.walk(tree):
            line = getattr(node, "lineno", 0)
            if isinstance(node, ast.Compare):
                sides = [node.left, *node.comparators]
                for (left, right), op in zip(pairwise(sides), node.ops, strict=True):
                    if isinstance(op, COMPARISONS) and (self.branch(left, right) or self.branch(right, left)):
                        yield line, "compares a format"
            elif isinstance(node, ast.Dict) and self.names_format(node):
                yield line, "a dict keyed by format keys"
            elif isinstance(node, ast.Subscript) and self.called_format(node.slice):
                yield line, "a lookup by format"
            elif isinstance(node, ast.Call):
                yield from ((line, why) for why in self._call(node))
            elif isinstance(node, ast.match_case) and self._pattern_names_format(node.pattern):
                yield node.pattern.lineno, "a match case on a format"
            elif isinstance(node, ast.Match) and self.called_format(node.subject):
                yield line, "a match on a format"

    def _call(self, node: ast.Call) -> Iterator[str]:
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        if name in {"isinstance", "issubclass"} and len(node.args) == 2 and self.names_format(node.args[1]):
            yield f"{name} on a format's class"
        if name == "get" and isinstance(func, ast.Attribute) and node.args and self.called_format(node.args[0]):
            yield "a lookup by format"
        if name in QUERIES:
            for keyword in node.keywords:
                field = (keyword.arg or "").split("__")
                if FORMAT_NAMES & set(field) and self.names_format(keyword.value):
                    yield f"a query by format ({keyword.arg}=)"

    def _pattern_names_format(self, pattern: ast.pattern) -> bool:
        if isinstance(pattern, ast.MatchValue):
            return self.names_format(pattern.value)
        if isinstance(pattern, ast.MatchClass):
            return self.names_format(pattern.cls)
        if isinstance(pattern, ast.MatchOr):
            return any(self._pattern_names_format(p) for p in pattern.patterns)
        return False


def python_offences(source: str, where: str, keys: Iterable[str]) -> list[str]:
    """Each branch on a format in ``source``, as ``where:line: why``."""
    tree = ast.parse(source, where)
    reader = _Reader.of(tree, frozenset(keys))
    return [f"{where}:{line}: {why}" for line, why in sorted(set(reader.offences(tree)))]


def template_offences(text: str, where: str, keys: Iterable[str]) -> list[str]:
    words = "|".join(map(re.escape, sorted(keys, key=len, reverse=True)))
    pattern = re.compile(rf"""\b(?:cut_)?format\s*(?:==|!=|\bnot\s+in\b|\bin\b)|(["'`])\s*(?:{words})\s*\1""")
    # A loop over the formats ({% for format in formats %}) is no branch on one.
    looping = re.compile(r"\bfor\s+$")
    return [
        f"{where}:{text.count(chr(10), 0, match.start()) + 1}: {match.group(0)!r}"
        for match in pattern.finditer(text)
        if not looping.search(text, 0, match.start())
    ]


def _keys() -> list[str]:
    return format_keys()


def test_the_keys_checked_are_the_registered_formats() -> None:
    assert {"round_robin", "swiss", "single_elimination", "separation", "challenge_ladder"} <= set(_keys())


def test_no_python_module_of_the_service_branches_on_a_format() -> None:
    offenders = [
        offence
        for path in _service_files(".py")
        for offence in python_offences(path.read_text(), str(path.relative_to(ROOT)), _keys())
    ]
    assert offenders == []


def test_no_template_or_script_of_the_service_branches_on_a_format() -> None:
    offenders = [
        offence
        for path in _service_files(".html", ".js", ".txt")
        for offence in template_offences(path.read_text(), str(path.relative_to(ROOT)), _keys())
    ]
    assert offenders == []


KEYS = ("swiss", "single_elimination", "double_elimination", "challenge_ladder")


def _flagged(source: str) -> list[int]:
    return [int(offence.split(":")[1]) for offence in python_offences(source, "x.py", KEYS)]


def test_the_check_finds_each_kind_of_branch_on_a_format() -> None:
    """The checks above would fail on the code they exist to keep out: one offence a line."""
    source = """\
if competition.format == "swiss": pass
if "single_elimination" != kind: pass
if competition.format in KNOCKOUTS: pass
if kind not in ("swiss", "challenge_ladder"): pass
if competition.format is other.format: pass
ROUNDS = {"swiss": 4}
LADDER = "challenge_ladder"
if kind == LADDER: pass
Competition.objects.filter(format="swiss")
Competition.objects.exclude(format__in=["single_elimination", "double_elimination"])
if isinstance(format_of(competition), Knockout): pass
if isinstance(format, (int, Staged)): pass
part = PARTS[competition.format]
part = PARTS.get(competition.settings["cut_format"])
if format_of(competition) is SWISS: pass
if format_of(competition).key == SINGLE.key: pass
match competition.format:
    case "swiss": pass
"""
    header = (
        "from tournaments.formats.knockout import Knockout, SINGLE\n"
        "from tournaments.formats.stages import Staged\n"
        "from tournaments.formats.swiss import SWISS\n"
        "from tournaments.formats.knockout_settings import KNOCKOUTS\n"
    )
    flagged = _flagged(header + source)
    lines = len(header.splitlines())
    assert [line - lines for line in flagged] == [1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18]


def test_the_check_lets_the_service_ask_the_format() -> None:
    source = """\
from tournaments.formats.spec import WholeNumber
if format_of(competition).pairs_round_by_round: pass
if competition.format is None or format == "": pass
if request.accepted_renderer.format == "json": pass
if "{}".format(name) == other: pass
if isinstance(setting, WholeNumber): pass
Competition.objects.filter(format=self.value())
part = get_format(competition.format).page_part(competition, admin=False)
"""
    assert _flagged(source) == []


def test_the_template_check_finds_a_branch_and_a_quoted_key() -> None:
    text = '{% if competition.format == "swiss" %}\n{% if cut_format in knockouts %}\nx\n<p data-f="challenge_ladder">'
    assert [o.split(": ", 1)[1] for o in template_offences(text, "t.html", KEYS)] == [
        "'format =='",
        "'\"swiss\"'",
        "'cut_format in'",
        "'\"challenge_ladder\"'",
    ]
    fine = "{{ competition.format_label }} {% if swiss_round %} {% for format in formats %}{{ format.key }}"
    assert template_offences(fine, "t.html", KEYS) == []
