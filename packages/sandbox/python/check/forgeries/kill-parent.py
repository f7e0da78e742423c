# Exit forgery: kill its parent, then fail.
import os, signal, time
try:
    os.kill(os.getppid(), signal.SIGKILL)
except OSError:
    pass
time.sleep(0.3)
assert False
