# Escape suite, row `timeout` (src/check.ts): starts `sleep PARAMS["marker"]` in a new session (it leaves the process
# group), then loops forever. The run must end as `timeout`, and the sleeping child must be gone.
import subprocess
subprocess.Popen(["sleep", PARAMS["marker"]], start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
while True:
    pass
