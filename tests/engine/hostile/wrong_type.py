# expect: bad_output
import json
import os
import sys

for line in sys.stdin.buffer:
    message = json.loads(line)
    os.write(1, b'{"ready": true}\n' if message["type"] == "start" else b'{"action": 42}\n')
