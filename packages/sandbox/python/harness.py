# The sandbox harness (@hpt-bench/sandbox, src/sandbox.ts "The harness"): the program the interpreter runs as
# `python -I -B -c <this file>` in the work dir holding main.py, before any model code. In this order it
#   1. reads the per-run nonce (NONCE_LENGTH hex characters) from stdin, a pipe the evaluator writes once and closes,
#      then points fd 0 at /dev/null: the nonce is in no file, argument, environment variable or program text;
#   2. closes every descriptor above 2 except the report channel REPORT_FD (those listed in /proc/self/fd, then
#      close_range as a second net), so nothing the evaluator inherited reaches model code;
#   3. compiles and runs main.py as `__main__` (`__file__`, `sys.argv`, the module in `sys.modules`, as
#      `python main.py` would); any exception, SystemExit included, propagates and ends the process as usual;
#   4. only when the module body returned normally: flushes stdout and stderr, writes the nonce to REPORT_FD and leaves
#      with os._exit(0) (atexit hooks and leftover threads do not run after that).
# The evaluator counts a run as passed iff the nonce arrived on REPORT_FD. NONCE_LENGTH and REPORT_FD must equal the
# constants of src/sandbox.ts, which checks them when it reads this file.
import os as _o
def _hpt_harness():
    import sys
    NONCE_LENGTH = 32
    REPORT_FD = 4
    write, leave, read = _o.write, _o._exit, _o.read
    nonce = chunk = b""
    while len(nonce) < NONCE_LENGTH:
        try:
            chunk = read(0, NONCE_LENGTH - len(nonce))
        except OSError:
            break
        if not chunk:
            break
        nonce += chunk
    null = _o.open("/dev/null", _o.O_RDONLY)
    if null != 0:
        _o.dup2(null, 0)
        _o.close(null)
    try:
        fds = [int(f) for f in _o.listdir("/proc/self/fd")]
    except (OSError, ValueError):
        fds = []
    for fd in fds:
        if fd > 2 and fd != REPORT_FD:
            try:
                _o.close(fd)
            except OSError:
                pass
    _o.closerange(3, REPORT_FD)
    _o.closerange(REPORT_FD + 1, 65536)
    path = _o.path.abspath("main.py")
    with open(path, "rb") as f:
        source = f.read()
    code = compile(source, path, "exec", dont_inherit=True)
    main = type(sys)("__main__")
    main.__file__ = path
    main.__builtins__ = __builtins__
    sys.modules["__main__"] = main
    sys.argv[:] = ["main.py"]
    del f, fds, source, null, chunk
    exec(code, main.__dict__)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:
            pass
    try:
        write(REPORT_FD, nonce)
    except BaseException:
        leave(1)
    leave(0)
_hpt_harness()
