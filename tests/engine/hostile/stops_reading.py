# expect: timeout
# Queues answers ahead, shrinks its input pipe and never reads again: the referee's writes must not block.
import fcntl
import os
import time

F_SETPIPE_SZ = 1031
fcntl.fcntl(0, F_SETPIPE_SZ, 4096)
os.write(1, b'{"ready": true}\n')
time.sleep(3600)
