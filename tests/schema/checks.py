"""What the checkers here share: checks that count their failures and let
the run go on, and dataprof's output."""
import subprocess

failures = 0


def check(cond, what):
    """Prints "FAIL: what" and counts it unless cond holds."""
    global failures
    if not cond:
        failures += 1
        print("FAIL:", what)


def run(dataprof, *args):
    """The standard output of dataprof ARGS, which must exit 0."""
    return subprocess.run([dataprof, *args], check=True, capture_output=True,
                          text=True).stdout
