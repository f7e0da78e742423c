# Exit forgery: a made-up nonce (and an old completion marker) on the report channel, fd 4, then os._exit(0).
import os
for n in (b"0" * 32, b"hpt-done\n"):
    try:
        os.write(4, n)
    except OSError:
        pass
os._exit(0)
