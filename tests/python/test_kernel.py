"""The Python binding on the real kernel, as root (pytest-tap.sh holds the
kernel suites' lock): a reservation made and read back through chrt -p,
reserve() giving a thread back its policy, admission refused with EBUSY
exactly when dl-run --check predicts it, a layout made and destroyed
leaving the cpusets as they were, the README's example run as written.
Every test uses only processes it started and ends them; the kernel's
total_bw is the same after the suite as before."""
import errno
import os
import re
import subprocess
import threading
import time

import pytest

import libdeadline as dl
from conftest import BUILD, PYTHON, SRC

DL_RUN = os.path.join(BUILD, "utils", "dl-run")


def total_bw():
    return {tuple(sorted(rd.cpus)): rd.total_bw for rd in dl.root_domains()}


@pytest.fixture(scope="module", autouse=True)
def accounting():
    """The kernel's count is back where it was once the suite's tasks are
    gone (an exited task's bandwidth is released at its 0-lag time, so
    wait for it)."""
    before = total_bw()
    yield
    for _ in range(60):
        if total_bw() == before:
            break
        time.sleep(0.1)
    assert total_bw() == before


class Children:
    """Sleeping processes of the test's own, cleared and killed at the end."""

    def __init__(self):
        self.procs = []

    def start(self):
        p = subprocess.Popen(["sleep", "600"])
        self.procs.append(p)
        return p.pid

    def end(self):
        for p in self.procs:
            try:
                if dl.get(p.pid) is not None:
                    dl.clear(p.pid)
            except dl.DeadlineError:
                pass
            p.kill()
            p.wait()


@pytest.fixture
def children():
    c = Children()
    yield c
    c.end()


def chrt(pid):
    return subprocess.run(["chrt", "-p", str(pid)], capture_output=True, text=True, check=True).stdout


def test_reservation_read_back_through_chrt(children):
    pid = children.start()
    dl.set(tid=pid, runtime="2ms", period="10ms")
    out = chrt(pid)
    assert "SCHED_DEADLINE" in out
    assert re.search(r"runtime/deadline/period parameters: 2000000/10000000/10000000", out), out
    assert dl.get(pid) == dl.Params("2ms", period="10ms")
    assert [t.tid for t in dl.snapshot(pid)] == [pid]
    dl.clear(pid)
    assert "SCHED_OTHER" in chrt(pid)
    assert dl.get(pid) is None


def test_reserve_restores_the_previous_policy():
    """A thread of this process under reserve(): chrt sees the reservation
    inside the with block, and SCHED_FIFO 7 again after it."""
    inside = threading.Event()
    leave = threading.Event()
    left = threading.Event()
    tid = []
    errors = []

    def worker():
        try:
            tid.append(threading.get_native_id())
            os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(7))
            with dl.reserve(runtime="1ms", deadline="5ms", period="20ms") as r:
                assert r.params.deadline == 5_000_000
                inside.set()
                leave.wait(30)
            left.set()
            leave.clear()
            leave.wait(30)
            os.sched_setscheduler(0, os.SCHED_OTHER, os.sched_param(0))
        except BaseException as e:  # reported by the main thread
            errors.append(e)
            inside.set()
            left.set()

    t = threading.Thread(target=worker)
    t.start()
    try:
        assert inside.wait(30)
        assert not errors, errors
        out = chrt(tid[0])
        assert "SCHED_DEADLINE" in out and "1000000/5000000/20000000" in out, out
        leave.set()
        assert left.wait(30)
        out = chrt(tid[0])
        assert "SCHED_FIFO" in out and "priority: 7" in out, out
    finally:
        leave.set()
        t.join()
    assert not errors, errors


def test_reserve_lets_the_block_start_processes_and_threads():
    """subprocess.run() and a new thread inside reserve(): the children run
    as SCHED_OTHER (FLAG_RESET_ON_FORK).  With reset_on_fork=False the
    kernel refuses the fork (docs/kernel-notes.md, "A deadline task cannot
    fork"), which is why it is the default."""
    seen, errors = [], []

    def worker():
        try:
            with dl.reserve(runtime="2ms", period="20ms"):
                assert dl.get().flags & dl.FLAG_RESET_ON_FORK
                r = subprocess.run(["sh", "-c", "chrt -p $$"], capture_output=True, text=True, timeout=30)
                seen.append(r.stdout)
                t = threading.Thread(target=lambda: seen.append(os.sched_getscheduler(0)))
                t.start()
                t.join()
            with dl.reserve(runtime="2ms", period="20ms", reset_on_fork=False):
                try:
                    subprocess.run(["true"], timeout=30)
                    seen.append("forked")
                except BlockingIOError as e:
                    seen.append(e.errno)
            seen.append(os.sched_getscheduler(0))
        except BaseException as e:
            errors.append(e)

    t = threading.Thread(target=worker)
    t.start()
    t.join(60)
    assert not errors, errors
    chrt_out, thread_policy, forked, after = seen
    assert "SCHED_OTHER" in chrt_out and "DEADLINE" not in chrt_out, chrt_out
    assert thread_policy == os.SCHED_OTHER
    assert forked == errno.EAGAIN
    assert after == os.SCHED_OTHER


def test_periodic_loop_under_its_reservation_gives_the_policy_back():
    """A thread runs 20 jobs of libdeadline.periodic() with a reservation:
    chrt sees it while the loop runs, every job is measured, and the thread
    is SCHED_OTHER again once the loop has ended."""
    running, leave, tid, errors, seen = threading.Event(), threading.Event(), [], [], []

    def worker():
        try:
            tid.append(threading.get_native_id())
            loop = dl.periodic(runtime="2ms", period="10ms", jobs=20)
            for job in loop:
                seen.append(job)
                if job.number == 1:
                    running.set()
                    leave.wait(30)
            seen.append(loop.stats())
            loop.close()
            seen.append(os.sched_getscheduler(0))
        except BaseException as e:
            errors.append(e)
        finally:
            running.set()

    t = threading.Thread(target=worker)
    t.start()
    try:
        assert running.wait(30) and not errors, errors
        out = chrt(tid[0])
        assert "SCHED_DEADLINE" in out and "2000000/10000000/10000000" in out, out
    finally:
        leave.set()
        t.join()
    assert not errors, errors
    policy, stats, jobs = seen[-1], seen[-2], seen[:-2]
    assert policy == os.SCHED_OTHER
    assert stats.jobs == 20 and len(jobs) == 20 and all(j.ended for j in jobs)
    assert [j.index for j in jobs] == sorted(j.index for j in jobs)
    assert all(j.release + 10_000_000 == j.deadline for j in jobs)


def test_closing_a_loop_from_another_thread_gives_the_loops_thread_its_policy():
    """A thread runs loops under their reservations and the main thread
    closes them: one that has ended while its thread waits, alive, and
    one its thread waits in.  chrt sees the loop's thread SCHED_OTHER
    again each time, and the main thread's policy is untouched."""
    tid, errors, loops, after = [], [], [], []
    ended, leave, running = threading.Event(), threading.Event(), threading.Event()

    def worker():
        try:
            tid.append(threading.get_native_id())
            loops.append(dl.periodic(runtime="1ms", period="10ms", jobs=3))
            for job in loops[0]:
                pass
            ended.set()
            leave.wait(30)
            loops.append(dl.periodic(runtime="1ms", period="30ms"))
            for job in loops[1]:
                if job.number == 1:
                    running.set()
            after.append(os.sched_getscheduler(0))
        except BaseException as e:
            errors.append(e)
        finally:
            ended.set()
            running.set()

    mine = os.sched_getscheduler(0)
    t = threading.Thread(target=worker)
    t.start()
    try:
        assert ended.wait(30) and not errors, errors
        assert "SCHED_DEADLINE" in chrt(tid[0])
        loops[0].close()
        assert "SCHED_OTHER" in chrt(tid[0])
        assert os.sched_getscheduler(0) == mine
        leave.set()
        assert running.wait(30) and not errors, errors
        assert "SCHED_DEADLINE" in chrt(tid[0])
        loops[1].close()
    finally:
        leave.set()
        for loop in loops:
            loop.close()
        t.join(30)
    assert not errors, errors
    assert after == [os.SCHED_OTHER]
    assert os.sched_getscheduler(0) == mine


def dl_run_check(pid, runtime, period):
    r = subprocess.run([DL_RUN, "--check", "-r", runtime, "-p", period, "--pid", str(pid)],
                       capture_output=True, text=True)
    assert r.returncode in (0, 1), r.stderr
    return r.returncode == 0


def test_admission_refused_exactly_when_dl_run_check_predicts(children):
    """Fill the root domain of CPU 0 with the test's own sleeping tasks,
    each asked for 0.45 of a CPU; each request is judged by dl-run --check,
    by check() and then by the kernel, and all three agree, up to the
    first refusal, an AdmissionError with EBUSY and the library's words."""
    runtime, period = "4.5ms", "10ms"
    rd = dl.root_domain_of(0)
    if rd.unlimited:
        pytest.skip("sched_rt_runtime_us is -1: the kernel admits everything")
    refused = None
    for _ in range(4 * rd.ncpus + 2):
        pid = children.start()
        os.sched_setaffinity(pid, rd.cpus)
        predicted = dl_run_check(pid, runtime, period)
        verdict = dl.check(pid=pid, runtime=runtime, period=period)
        assert bool(verdict) == predicted, verdict.why
        try:
            dl.set(tid=pid, runtime=runtime, period=period)
            assert predicted, "the kernel admitted what dl-run --check refused: " + verdict.why
        except dl.AdmissionError as e:
            assert not predicted, "the kernel refused what dl-run --check admitted: " + verdict.why
            assert verdict.step == "overflow" and verdict.errno == errno.EBUSY
            refused = e
            break
    assert refused is not None, "the root domain never filled"
    assert refused.errno == errno.EBUSY and isinstance(refused, dl.DeadlineError)
    assert "free" in refused.strerror, refused.strerror
    assert dl.get(pid) is None


def cpuset_tree():
    """Every cpuset below the v1 hierarchy with its CPUs and flags."""
    root = next((line.split()[1] for line in open("/proc/mounts")
                 if line.split()[2] == "cgroup" and "cpuset" in line.split()[3].split(",")), None)
    if root is None:
        return None
    tree = {}
    for d, _, files in os.walk(root):
        vals = {}
        for f in ("cpuset.cpus", "cpuset.cpu_exclusive", "cpuset.sched_load_balance"):
            try:
                vals[f] = open(os.path.join(d, f)).read().strip()
            except OSError:
                pass
        tree[os.path.relpath(d, root)] = vals
    return tree


def test_layout_made_and_destroyed_leaves_the_cpusets_as_they_were():
    if os.path.exists("/run/libdl/layout"):
        pytest.skip("a dl-part layout is in place on this machine: the tests will not touch it")
    before = cpuset_tree()
    if before is None:
        pytest.skip("no cgroup v1 cpuset hierarchy on this host (cgroup v2 is tested in the VM suites)")
    if len(dl.online_cpus()) < 2:
        pytest.skip("a partition needs a second CPU for the cluster")
    # A thread of this process places itself (it runs, so it moves at once).
    placed, leave, errors, tid = threading.Event(), threading.Event(), [], []

    def worker():
        try:
            tid.append(threading.get_native_id())
            dl.place("pypart0", runtime="1ms", period="10ms")
            placed.set()
            leave.wait(30)
            dl.clear()
        except BaseException as e:
            errors.append(e)
            placed.set()

    try:
        with dl.Layout({"pypart0": "0"}, no_move=True) as lay:
            cur = dl.current_layout()
            assert cur.partitions == (("pypart0", frozenset({0})),) and cur.no_move and cur.version == 1
            assert cur.cluster == dl.online_cpus() - {0}
            members = {m.name: m for m in dl.layout_status()}
            assert members["pypart0"].partition and members["pypart0"].cpus == frozenset({0})
            assert dl.root_domain_of(0).cpus == frozenset({0})
            with pytest.raises(dl.DeadlineError) as e:
                dl.Layout({"other": "0"}).destroy()
            assert e.value.errno == errno.ESTALE
            t = threading.Thread(target=worker)
            t.start()
            try:
                assert placed.wait(30) and not errors, errors
                assert "/libdl/pypart0" in open(f"/proc/self/task/{tid[0]}/cpuset").read()
                assert "SCHED_DEADLINE" in chrt(tid[0])
                task = next(x for x in dl.snapshot(os.getpid()) if x.tid == tid[0])
                assert task.rd_cpus == frozenset({0}) and task.params.runtime == 1_000_000
            finally:
                leave.set()
                t.join()
            assert not errors, errors
            assert lay.partitions[0][0] == "pypart0"
    finally:
        cur = dl.current_layout()
        if cur is not None and cur.partitions[0][0] == "pypart0":
            dl.destroy_layout()
    assert dl.current_layout() is None
    assert dl.layout_status() == ()
    assert cpuset_tree() == before


def test_readme_example_runs_as_written():
    text = open(os.path.join(SRC, "README")).read()
    m = re.search(r"^Python in ten lines\n-+\n\n((?:    .*\n|\n)+)", text, re.M)
    assert m, "the README's Python example"
    code = "\n".join(line[4:] for line in m.group(1).rstrip().splitlines())
    r = subprocess.run([PYTHON, "-c", code], capture_output=True, text=True, timeout=60, cwd=SRC)
    assert r.returncode == 0, r.stderr
    assert "admitted" in r.stdout and "100 jobs" in r.stdout, r.stdout
