# Exit forgery: os._exit(0) before a failing assert.
import os
os._exit(0)
assert False
