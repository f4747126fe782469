# expect: bad_output
# Never finishes its answer: output without end and without a newline.
import json
import os
import sys

for line in sys.stdin.buffer:
    message = json.loads(line)
    if message["type"] == "start":
        os.write(1, b'{"ready": true}\n')
    else:
        while True:
            os.write(1, b'{"action": ')
