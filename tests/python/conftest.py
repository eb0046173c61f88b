# What the Python binding's suites share: where the build and the sources
# are (pytest-tap.sh exports them), and the machine's view of a thread.
import atexit
import os
import shutil
import subprocess
import tempfile

BUILD = os.environ.get("LIBDL_BUILD", os.path.join(os.path.dirname(__file__), "..", ".."))
SRC = os.environ.get("LIBDL_SRC", os.path.join(os.path.dirname(__file__), "..", ".."))
PYTHON = os.environ.get("PYTHON", "/usr/bin/python3")

_staged = None


def _stage():
    """The built package and library, copied where any user can read them:
    the build tree may sit in a folder only root reads (CI's clone does)."""
    global _staged
    if _staged is None:
        top = tempfile.mkdtemp(prefix="libdl-py-")
        os.chmod(top, 0o755)
        atexit.register(shutil.rmtree, top, True)
        shutil.copytree(os.path.join(BUILD, "python", "build", "libdeadline"), os.path.join(top, "libdeadline"))
        shutil.copy(os.path.realpath(os.path.join(BUILD, "libdl", ".libs", "libdeadline.so.0")),
                    os.path.join(top, "libdeadline.so.0"))
        for d, dirs, files in os.walk(top):
            for n in dirs + files:
                os.chmod(os.path.join(d, n), 0o755)
        _staged = top
    return _staged


# Freed memory that a use-after-free would read is poisoned, so that the
# read fails at once rather than seeing what was there: Python's objects
# are freed with malloc's free, which fills them with 0xa5 (no per-thread
# cache, which skips the filling).  Under AddressSanitizer (pytest-tap.sh
# preloads it) the read is reported instead.
POISON_FREED = {"PYTHONMALLOC": "malloc", "GLIBC_TUNABLES": "glibc.malloc.tcache_count=0:glibc.malloc.perturb=165"}


def run_python(code, user=None, env=None, **kw):
    """Run code in a fresh python3 with the built package, as user (a name, through setpriv) when given,
    with env's variables added to the environment."""
    cmd = [PYTHON, "-c", code]
    env = dict(os.environ, **(env or {}))
    if user is not None:
        cmd = ["setpriv", "--reuid=" + user, "--regid=" + user, "--clear-groups", "--inh-caps=-all"] + cmd
        staged = _stage()
        env["PYTHONPATH"] = staged
        env["LD_LIBRARY_PATH"] = staged + (":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
        kw.setdefault("cwd", "/")
    kw.setdefault("timeout", 60)
    return subprocess.run(cmd, capture_output=True, text=True, env=env, **kw)
