# The sandbox probe (src/sandbox.ts `probeWith`): run once per interpreter and candidate mode through the real
# pipeline; reports what a sandboxed program can observe, as one line `hpt-sandbox-probe {json}`:
#   uid: its user id; net: the errno of a TCP connect to 127.0.0.1:9 (0 when it connected); as: its RLIMIT_AS soft
#   limit; cg: whether it runs in a cgroup whose path contains PARAMS["prefix"] (its own memory cgroup).
# It also tries to write /tmp/<PARAMS["marker"]>; the evaluator looks for that file on the host (shared filesystem).
# PARAMS (marker, prefix) is defined before this text by the evaluator.
import json, os, resource, socket
r = {"uid": os.getuid()}
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
s.settimeout(1)
try:
    s.connect(("127.0.0.1", 9))
    r["net"] = 0
except OSError as e:
    r["net"] = e.errno or -1
finally:
    s.close()
try:
    with open("/tmp/" + PARAMS["marker"], "w") as f:
        f.write("x")
except OSError:
    pass
r["as"] = resource.getrlimit(resource.RLIMIT_AS)[0]
try:
    with open("/proc/self/cgroup") as f:
        r["cg"] = any("/" + PARAMS["prefix"] in line for line in f)
except OSError:
    r["cg"] = False
print("hpt-sandbox-probe " + json.dumps(r))
