# expect: bad_output
# A reply nested deeper than any JSON parser's recursion allows.
import json
import os
import sys

for line in sys.stdin.buffer:
    if json.loads(line)["type"] == "start":
        os.write(1, b'{"ready": true}\n')
    else:
        os.write(1, b"[" * 60000 + b"\n")
