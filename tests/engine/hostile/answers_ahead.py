# expect: bad_output
# Writes a pile of answers before being asked anything: answers to questions not yet put are refused.
import os
import sys

os.write(1, b'{"ready": true}\n' + b'{"action": "LOCK"}\n' * 50)
for line in sys.stdin.buffer:
    pass
