# Exit forgery: an atexit hook that calls os._exit(0) after a failed assert.
import atexit, os
atexit.register(lambda: os._exit(0))
assert False
