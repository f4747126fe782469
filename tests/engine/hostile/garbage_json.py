# expect: bad_output
# Speaks the protocol itself, from import time, and answers "act" with broken JSON.
import json
import os
import sys

for line in sys.stdin.buffer:
    message = json.loads(line)
    os.write(1, b'{"ready": true}\n' if message["type"] == "start" else b"{this is not json\n")
