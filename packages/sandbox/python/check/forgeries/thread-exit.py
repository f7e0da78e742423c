# Exit forgery: os._exit(0) from a thread while the main thread sleeps, then fails.
import os, threading, time
threading.Thread(target=lambda: os._exit(0)).start()
time.sleep(0.5)
assert False
