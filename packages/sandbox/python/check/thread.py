# Escape suite, row `processes` (src/check.ts): a correct program that starts a thread, run while a fork bomb holds
# its process limit. It fails ("can't start new thread") when it shares the bomb's RLIMIT_NPROC (the same user id).
import threading
out = []
t = threading.Thread(target=lambda: out.append(sum(range(1000))))
t.start()
t.join()
assert out == [499500]
