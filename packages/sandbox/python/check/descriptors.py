# Escape suite, row `descriptors` (src/check.ts): every descriptor 3..1024 that is open (but the harness's report
# channel, 4), and on which of them fchdir (a directory: a way out of the private root) and write (a host file) work.
# Prints `{"open": [...], "fchdir": [...], "write": [...]}` as one JSON line.
import json, os
r = {"open": [], "fchdir": [], "write": []}
for fd in range(3, 1025):
    try:
        os.fstat(fd)
    except OSError:
        continue
    if fd == 4:
        continue  # the harness's report channel
    r["open"].append(fd)
    try:
        os.fchdir(fd)
        r["fchdir"].append(fd)
    except OSError:
        pass
    try:
        os.write(fd, b"pwned")
        r["write"].append(fd)
    except OSError:
        pass
print(json.dumps(r))
