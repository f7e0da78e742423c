# Escape suite, row `processes` (src/check.ts): a fork bomb. It first re-executes itself (its own interpreter) under
# the argv[0] PARAMS["marker"], so that every copy is recognisable in the host's /proc, then forks forever, ignoring
# the EAGAIN of its RLIMIT_NPROC.
import os, sys
if sys.argv[1:] == ["--bomb"]:
    while True:
        try:
            os.fork()
        except OSError:
            pass
os.execv(sys.executable, [PARAMS["marker"], "-I", os.path.abspath(__file__), "--bomb"])
