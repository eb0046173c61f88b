# What the Python binding's suites share: where the build and the sources
# are (pytest-tap.sh exports them), and the machine's view of a thread.
import os
import subprocess

BUILD = os.environ.get("LIBDL_BUILD", os.path.join(os.path.dirname(__file__), "..", ".."))
SRC = os.environ.get("LIBDL_SRC", os.path.join(os.path.dirname(__file__), "..", ".."))
PYTHON = os.environ.get("PYTHON", "/usr/bin/python3")


def run_python(code, user=None, **kw):
    """Run code in a fresh python3 with the built package, as user (a name, through setpriv) when given."""
    cmd = [PYTHON, "-c", code]
    if user is not None:
        cmd = ["setpriv", "--reuid=" + user, "--regid=" + user, "--clear-groups", "--inh-caps=-all"] + cmd
    return subprocess.run(cmd, capture_output=True, text=True, timeout=60, env=dict(os.environ), **kw)
