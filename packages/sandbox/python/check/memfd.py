# Escape suite, row `memory` (src/check.ts): 40 memfds of 15 MiB, never mapped (so outside RLIMIT_AS); prints
# "memfd <n>" after each one. Only a memory cgroup stops it before 600 MiB.
import os
fds = []
for i in range(40):
    fd = os.memfd_create("x")
    os.write(fd, b"y" * (15 * 1024 * 1024))
    fds.append(fd)
    os.write(1, b"memfd %d\n" % len(fds))
