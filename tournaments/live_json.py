"""JSON for live tables' answers and page updates, written by orjson (docs/performance.md, "Live tables").

At a busy table every move is written out four times or so: the mover's answer and each open page's
update. The standard library's encoder took about 7 % of a live-table worker's busy time under
``make bench-live`` (py-spy); orjson writes the same JSON several times faster. Its output differs from
``json.dumps`` only where JSON allows it to: no spaces, and text as UTF-8 rather than ``\\u`` escapes.
"""

from __future__ import annotations

from typing import Any

import orjson
from rest_framework.renderers import JSONRenderer
from rest_framework.utils.encoders import JSONEncoder

#: What orjson does not know itself (translated text, decimals...) as DRF writes it for every other view.
_drf_default = JSONEncoder().default


def dumps(data: Any) -> bytes:
    # Keys that are not text (a seat's number) written as text, as the standard library writes them.
    return orjson.dumps(data, default=_drf_default, option=orjson.OPT_NON_STR_KEYS)


class LiveJSONRenderer(JSONRenderer):
    """DRF's JSON renderer for the live table's views, writing with orjson."""

    def render(self, data: Any, accepted_media_type: str | None = None, renderer_context: Any = None) -> bytes:
        if data is None:
            return b""
        if self.get_indent(accepted_media_type or "", renderer_context or {}) is not None:
            return super().render(data, accepted_media_type, renderer_context)  # a person asked for it laid out
        # DRF escapes these two line separators, which JavaScript read as the end of a line: so does this.
        return dumps(data).replace(b"\xe2\x80\xa8", b"\\u2028").replace(b"\xe2\x80\xa9", b"\\u2029")
