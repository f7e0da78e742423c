# Escape suite, rows `privileges` and `environment` (src/check.ts): the program's user ids, capabilities
# (CapEff, CapPrm), NoNewPrivs and the names of its environment variables, as one JSON line.
import json, os
r = {"uid": os.getuid(), "euid": os.geteuid(), "env": sorted(os.environ)}
with open("/proc/self/status") as f:
    for line in f:
        k, _, v = line.partition(":")
        if k in ("CapEff", "CapPrm", "NoNewPrivs"):
            r[k] = v.strip()
print(json.dumps(r))
