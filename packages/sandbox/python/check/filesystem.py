# Escape suite, row `filesystem` (src/check.ts): tries to read PARAMS["reads"] (a world-readable secret in a
# world-writable host temp dir, /etc/shadow), list PARAMS["lists"] (the evaluator's working directory, /root, that
# host temp dir) and write PARAMS["written"] (a file in that host temp dir). Prints what it reached as one JSON line.
import json, os
r = {"read": [], "listed": [], "wrote": []}
for p in PARAMS["reads"]:
    try:
        with open(p, "rb") as f:
            f.read(64)
        r["read"].append(p)
    except OSError:
        pass
for p in PARAMS["lists"]:
    try:
        os.listdir(p)
        r["listed"].append(p)
    except OSError:
        pass
try:
    with open(PARAMS["written"], "w") as f:
        f.write("x")
    r["wrote"].append(PARAMS["written"])
except OSError:
    pass
print(json.dumps(r))
