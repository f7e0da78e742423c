# Exit forgery: SIGKILL to itself.
import os, signal
os.kill(os.getpid(), signal.SIGKILL)
