# Escape suite, row `memory` (src/check.ts): 6 children each allocate PARAMS["child_mb"] MiB (each within its own
# RLIMIT_AS), hold it for 0.6 s and print "alive". Without a total bound (a memory cgroup) all 6 survive together.
import os, sys, time
kids = []
for i in range(6):
    pid = os.fork()
    if pid == 0:
        try:
            b = b"x" * (PARAMS["child_mb"] * 1024 * 1024)
            time.sleep(0.6)
            os.write(1, b"alive\n")
        except MemoryError:
            pass
        os._exit(0)
    kids.append(pid)
for k in kids:
    os.waitpid(k, 0)
