# Escape suite, row `network` (src/check.ts): a TCP connect to the checker's server on 127.0.0.1:PARAMS["port"], a UDP
# connect() to 192.0.2.1 (TEST-NET-1: a UDP connect only looks the route up, no packet is sent anywhere), and the
# network interfaces the program sees. Prints `{"tcp": "connected" | errno, "route": "routable" | errno,
# "ifaces": [...] | null}` as one JSON line.
import json, socket
r = {}
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
s.settimeout(2)
try:
    s.connect(("127.0.0.1", PARAMS["port"]))
    r["tcp"] = "connected"
except OSError as e:
    r["tcp"] = e.errno or str(e)
finally:
    s.close()
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
try:
    u.connect(("192.0.2.1", 9))
    r["route"] = "routable"
except OSError as e:
    r["route"] = e.errno or str(e)
finally:
    u.close()
try:
    with open("/proc/net/dev") as f:
        r["ifaces"] = [l.split(":")[0].strip() for l in f.readlines()[2:]]
except OSError:
    r["ifaces"] = None
print(json.dumps(r))
