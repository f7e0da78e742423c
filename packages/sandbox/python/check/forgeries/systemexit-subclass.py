# Exit forgery: a SystemExit subclass with code 0.
class Done(SystemExit):
    pass
raise Done(0)
