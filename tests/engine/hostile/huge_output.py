# expect: bad_output
# One enormous line on the protocol channel (and on stderr).
import json
import os
import sys

for line in sys.stdin.buffer:
    message = json.loads(line)
    if message["type"] == "start":
        os.write(1, b'{"ready": true}\n')
    else:
        sys.stderr.write("e" * 10_000_000)
        os.write(1, b'{"action": "' + b"x" * 10_000_000 + b'"}\n')
