# Escape suite, row `memory` (src/check.ts): one 8 GiB allocation; must fail with MemoryError (RLIMIT_AS).
x = bytearray(8 * 1024 ** 3)
