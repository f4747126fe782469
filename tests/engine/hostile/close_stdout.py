# expect: crash
# Closes the protocol channel and exits early, after a clean start.
import json
import os
import sys

for line in sys.stdin.buffer:
    if json.loads(line)["type"] == "start":
        os.write(1, b'{"ready": true}\n')
    else:
        os.close(1)
        sys.exit(0)
