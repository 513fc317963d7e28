"""What the Python tests that drive the loci command share: their arguments (LOCI_BIN WORKDIR, as ctest passes
them), an empty work folder, and commands run to completion with their output in the failure."""
import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def arguments():
    """(loci_bin, work): the work folder emptied, so that a rerun starts from nothing."""
    loci_bin, work = sys.argv[1], sys.argv[2]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    return loci_bin, work


def _run(command, ok):
    r = subprocess.run(command, capture_output=True, text=True)
    if ok and r.returncode != 0:
        raise AssertionError(f"{' '.join(command)}: exit {r.returncode}\n{r.stdout}{r.stderr}")
    return r


def loci_command(loci_bin):
    """loci(*args, ok=True): runs loci; fails the test with its output when ok and it exits non-zero."""
    return lambda *args, ok=True: _run([loci_bin, *args], ok)


def script_command(script):
    """run(*args, ok=True): runs a Python script of the repository the same way."""
    return lambda *args, ok=True: _run([sys.executable, script, *args], ok)
