# Exit forgery: sys.exit(0) before a failing assert (must fail: the module body did not return).
import sys
sys.exit(0)
assert False
