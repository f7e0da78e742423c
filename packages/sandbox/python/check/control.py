# Escape suite, row `exitForgery` (src/check.ts): the control, a program that runs to its end; it must pass.
def check(f):
    assert f(2) == 4
check(lambda x: x * 2)
