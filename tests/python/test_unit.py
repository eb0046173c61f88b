"""The Python binding without privileges: times, parameters, errors, task
sets in their three forms, the analysis and plans, the periodic loop
without a reservation, the GIL released while it waits."""
import dataclasses
import errno
import os
import sys
import threading
import time

import pytest

import libdeadline as dl
from conftest import POISON_FREED, run_python

ARTICLE = os.path.join(os.environ.get("LIBDL_SRC", "."), "demo", "article.tasks")


def test_times_as_ns_and_with_units():
    assert dl.ns("2ms") == 2_000_000
    assert dl.ns("1.5ms") == 1_500_000
    assert dl.ns("500us") == 500_000
    assert dl.ns("1s") == 1_000_000_000
    assert dl.ns("750") == 750
    assert dl.ns(1234) == 1234
    assert dl.format_time(1_500_000) == "1.5ms"


@pytest.mark.parametrize("bad", ["2 parsecs", "", "-1ms", "ms"])
def test_bad_time_is_valueerror_with_the_librarys_message(bad):
    with pytest.raises(ValueError) as e:
        dl.ns(bad)
    assert str(e.value)


def test_time_types():
    with pytest.raises(TypeError):
        dl.ns(1.5)
    with pytest.raises(TypeError):
        dl.ns(True)
    with pytest.raises(ValueError):
        dl.ns(-5)


def test_params_fill_the_deadline_and_are_frozen():
    p = dl.Params(runtime="2ms", period="10ms")
    assert (p.runtime, p.deadline, p.period, p.flags) == (2_000_000, 10_000_000, 10_000_000, 0)
    q = dl.Params(runtime=2_000_000, deadline="10ms")
    assert q.period == 10_000_000 and q == p and hash(q) == hash(p)
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.runtime = 1
    assert p.bw == (2 << 20) // 10
    assert p.utilization == pytest.approx(0.2)
    assert repr(p) == "Params(runtime=2ms, deadline=10ms, period=10ms)"
    assert dl.params(runtime="1ms", period="4ms", flags=dl.FLAG_RESET_ON_FORK).flags == dl.FLAG_RESET_ON_FORK
    r = dataclasses.replace(p, runtime=3_000_000)
    assert r == dl.Params("3ms", period="10ms") and r.flags == 0
    c = dl.Params("1ms", period="4ms", util_max=512)
    assert c.flags == dl.FLAG_UTIL_CLAMP_MAX and c.util_max == 512 and "util_max=512" in repr(c)
    with pytest.raises(ValueError):
        dataclasses.replace(p, runtime="20ms")


def test_rule_breaking_params_raise_valueerror():
    with pytest.raises(ValueError, match="runtime 3ms is longer than the deadline 2ms"):
        dl.Params(runtime="3ms", period="2ms")
    with pytest.raises(ValueError, match="deadline"):
        dl.Params(runtime="1ms", deadline="20ms", period="10ms")
    with pytest.raises(ValueError):
        dl.params(runtime="1ms")


def test_valueerror_comes_before_any_system_call():
    # A thread that does not exist: the system call would say ESRCH.
    # The rule is checked first, so the answer is ValueError.
    with pytest.raises(ValueError, match="longer than"):
        dl.set(tid=2**22 + 7, runtime="3ms", period="2ms")
    with pytest.raises(ValueError, match="longer than"):
        dl.check(pid=2**22 + 7, runtime="3ms", period="2ms")
    with pytest.raises(dl.DeadlineError) as e:
        dl.set(tid=2**22 + 7, runtime="1ms", period="2ms")
    assert e.value.errno == errno.ESRCH and e.value.strerror


def test_budget_is_the_kernels_answer():
    # This thread is not SCHED_DEADLINE: EINVAL where the kernel gives the
    # budget (Linux 7.1), ENOTSUP where it does not; a thread that does not
    # exist is then ESRCH, or ENOTSUP again.
    with pytest.raises(dl.DeadlineError) as e:
        dl.budget()
    assert e.value.errno in (errno.EINVAL, errno.ENOTSUP), e.value
    gives = e.value.errno == errno.EINVAL
    assert ("not SCHED_DEADLINE" if gives else "Linux 7.1") in e.value.strerror
    with pytest.raises(dl.DeadlineError) as e:
        dl.budget(2**22 + 7)
    assert e.value.errno == (errno.ESRCH if gives else errno.ENOTSUP)


def test_exception_hierarchy():
    assert issubclass(dl.DeadlineError, OSError)
    assert issubclass(dl.AdmissionError, dl.DeadlineError)
    assert issubclass(dl.PolicyError, dl.DeadlineError)
    assert issubclass(dl.PolicyError, PermissionError)
    with pytest.raises(dl.DeadlineError) as e:
        dl.get(2**22 + 7)
    assert e.value.errno == errno.ESRCH
    assert "2**22" not in e.value.strerror and e.value.strerror


def test_eperm_is_policyerror_with_the_librarys_message():
    code = ("import libdeadline as dl, errno\n"
            "try:\n"
            "    dl.set(runtime='1ms', period='10ms')\n"
            "except dl.PolicyError as e:\n"
            "    assert isinstance(e, PermissionError) and e.errno == errno.EPERM\n"
            "    print(e.strerror)\n")
    r = run_python(code, user="65534" if os.geteuid() == 0 else None)
    assert r.returncode == 0, r.stderr
    assert "CAP_SYS_NICE" in r.stdout


def test_tasksets_in_three_forms_read_alike():
    text = "ctl 3ms 10ms 10ms spin=2ms\nio 1.2ms 5ms 5ms work=800us count=2 offset=250us flags=reclaim\n"
    json = ('{"tasks": [{"name": "ctl", "runtime": "3ms", "period": "10ms", "spin": 2000000},'
            '{"name": "io", "runtime": 1200000, "deadline": "5ms", "work": "800us", "count": 2,'
            ' "offset": "250us", "flags": ["reclaim"]}]}')
    rtapp = ('{"tasks": {"ctl": {"policy": "SCHED_DEADLINE", "dl-runtime": 3000, "dl-period": 10000,'
             ' "runtime": 2000, "timer": {"ref": "unique", "period": 10000}},'
             ' "io": {"policy": "SCHED_DEADLINE", "instance": 2, "delay": 250, "dl-runtime": 1200,'
             ' "dl-period": 5000, "dl-reclaim": true, "run": 800, "timer": {"ref": "unique", "period": 5000}}}}')
    sets = [dl.TaskSet.parse(t) for t in (text, json, rtapp)]
    # rt-app's runtime event is a spin of wall-clock time, its run CPU work.
    want = [("ctl", 3_000_000, 10_000_000, 10_000_000, 0, 0, 2_000_000, 0),
            ("io.1", 1_200_000, 5_000_000, 5_000_000, dl.FLAG_RECLAIM, 800_000, 0, 250_000),
            ("io.2", 1_200_000, 5_000_000, 5_000_000, dl.FLAG_RECLAIM, 800_000, 0, 250_000)]
    for ts in sets:
        assert len(ts) == 3
        got = [(t.name, t.params.runtime, t.params.deadline, t.params.period, t.params.flags, t.work, t.spin,
                t.offset) for t in ts]
        assert got == want


def test_bad_taskset_names_line_and_field(tmp_path):
    path = tmp_path / "bad.tasks"
    path.write_text("ok 1ms 10ms 10ms\nbad 3ms 2ms 2ms\n")
    with pytest.raises(ValueError) as e:
        dl.TaskSet.read(path)
    assert "bad.tasks:2" in str(e.value)
    with pytest.raises(dl.DeadlineError) as e:
        dl.TaskSet.read(tmp_path / "missing.tasks")
    assert e.value.errno == errno.ENOENT


def test_taskset_made_by_hand():
    ts = dl.TaskSet()
    ts.add("a", runtime="1ms", period="4ms")
    ts.add("b", dl.Params("2ms", period="5ms"))
    assert [t.name for t in ts] == ["a", "b"]
    assert ts[1].work == 1_800_000  # 90% of the runtime
    ts.set_place(0, dl.CLUSTER)
    assert ts[0].place == "cluster" and ts[-1].place is None


def test_platform_defaults_for_another_machine():
    pf = dl.Platform.default(8)
    assert pf.ncpus == 8 and pf.cpus == frozenset(range(8))
    assert pf.cpu_bw == (950_000 << 20) // 1_000_000  # sched_rt_runtime_us / sched_rt_period_us
    assert pf.server == dl.Params("50ms", period="1s")
    host = dl.Platform.host()
    assert host.cpus == dl.online_cpus()


def test_edf_test_one_cpu():
    ok = dl.edf_test([dl.Params("1ms", period="4ms"), dl.Params("2ms", period="5ms")])
    assert ok and ok.verdict == dl.SCHEDULABLE
    assert dl.format_bw(ok.util) == "0.6500"
    over = dl.edf_test([dl.Params("6ms", period="10ms"), dl.Params("6ms", period="10ms")])
    assert not over and over.verdict == dl.INFEASIBLE and over.fail_t == 10_000_000
    assert over.fail_demand == 12_000_000


def test_global_test_and_plan_of_the_article():
    ts = dl.TaskSet.read(ARTICLE)
    pf = dl.Platform.default(2)
    g = dl.global_test(ts, platform=pf)
    assert not g and g.results["GFB"] is False and "2 CPUs" in g.why
    p = dl.plan(ts, pf)
    assert p and p.method == "EDF(k)" and p.k == 1
    assert [(x.name, x.cpus, x.tasks) for x in p.parts] == [("cpu0", frozenset({0}), (0,))]
    assert p.cluster.tasks == (1, 2) and p.cluster.cpus == frozenset({1})
    # heavy 8ms/9ms + the fair server 50ms/1s on CPU 0
    assert dl.format_bw(p.parts[0].load) == "0.9389"
    assert p.layout.partitions == (("cpu0", frozenset({0})),) and p.layout.cluster == frozenset({1})
    # the same tasks as Params plan the same
    q = dl.plan([t.params for t in ts], pf)
    assert [x.tasks for x in q.parts] == [(0,)]


def test_exact_test_of_dhall_and_of_a_set_no_sufficient_test_accepts():
    dhall = [dl.Params("2ms", period="10ms"), dl.Params("2ms", period="10ms"), dl.Params("10ms", period="11ms")]
    r = dl.exact_test(dhall, 2)
    assert not r and r.verdict == dl.UNSCHEDULABLE and r.task == 2 and r.miss_at == 11_000_000
    assert r.arrivals == ((0, 0), (1, 0), (2, 0)) and r.ties == () and r.any_tie_order
    assert "heavy" not in r.taskfile and "task2.j2 10ms 11ms 11ms work=10ms offset=0ns" in r.taskfile
    assert len(dl.TaskSet.parse(r.taskfile)) == 3
    ok = [dl.Params("1ms", "3ms", "4ms"), dl.Params("2ms", "2ms", "6ms"), dl.Params("1ms", "4ms", "4ms"),
          dl.Params("3ms", "6ms", "6ms")]
    assert not dl.global_test(ok, 2)
    e = dl.exact_test(ok, 2)
    assert e and e.verdict == dl.SCHEDULABLE and e.unit == 1_000_000 and e.taskfile is None
    assert "whatever the order" in str(e)
    assert "task order" in dl.exact_test(ok, 2, ties="index").why
    small = dl.exact_test(ok, 2, max_states=3)
    assert small.verdict == dl.NOT_GUARANTEED and small.budget_spent == "states" and small.states == 3
    ts = dl.TaskSet()
    for i, p in enumerate(dhall):
        ts.add(f"t{i}", p)
    assert dl.exact_test(ts, 2).verdict == dl.UNSCHEDULABLE
    with pytest.raises(ValueError):
        dl.exact_test(ok, 2, ties="first")
    with pytest.raises(ValueError):
        dl.exact_test(ok, 2, max_seconds=-1)
    with pytest.raises((ValueError, OverflowError)):
        dl.exact_test(ok, 2, max_states=-1)


def test_plan_that_cannot_be():
    p = dl.plan([dl.Params("9ms", period="10ms")] * 3, dl.Platform.default(2))
    assert not p and p.why and p.layout is None


def test_plan_on_cpus_of_two_capacities():
    # The little CPUs first, as on many arm64 boards: the task that needs
    # capacity 614 gets a big CPU; with only little CPUs, no plan.
    tasks = [dl.Params("6ms", period="10ms"), dl.Params("2ms", period="10ms"), dl.Params("1ms", period="20ms")]
    pf = dataclasses.replace(dl.Platform.default(4), capacity=(446, 446, 1024, 1024))
    p = dl.plan(tasks, pf)
    assert p and p.cap_need == (614, 204, 51) and (p.cap_min, p.cap_max) == (446, 1024)
    assert len(p.parts) == 1 and p.parts[0].tasks == (0,) and p.parts[0].cpus == frozenset({2})
    assert (p.cluster.cap_min, p.cluster.cap_max) == (446, 1024)
    assert "needs a CPU of capacity 614" in p.global_result.why
    assert not dl.plan(tasks, dataclasses.replace(pf, capacity=(446,) * 4))
    with pytest.raises(ValueError, match="capacity gives 3"):
        dl.plan(tasks, dataclasses.replace(pf, capacity=(446,) * 3))
    with pytest.raises(ValueError, match="CPU 0 of the platform has capacity 2000: give 1 to 1024"):
        dl.plan(tasks, dataclasses.replace(pf, capacity=(2000, 446, 1024, 1024)))
    # This host (x86 here: CPUs alike) gives none.
    assert dl.Platform.host().capacity is None or len(dl.Platform.host().capacity) == dl.Platform.host().ncpus


def test_snapshot_unprivileged():
    snap = dl.snapshot()
    cpus = frozenset().union(*(rd.cpus for rd in snap.root_domains))
    assert cpus == dl.online_cpus()
    assert list(snap) == list(snap.tasks)
    assert "RootDomain" in repr(snap)


def test_periodic_loop_without_a_reservation():
    loop = dl.periodic(runtime="1ms", period="5ms", reserve=False, jobs=5)
    seen = []
    for job in loop:
        assert not job.ended and job.met is None and job.release is None
        seen.append(job)
    assert [j.number for j in seen] == [0, 1, 2, 3, 4]
    assert all(j.ended for j in seen)
    for a, b in zip(seen, seen[1:]):
        assert b.release - a.release == 5_000_000 * (b.index - a.index)
        assert a.end >= a.release and a.response == a.end - a.release
    assert loop.last is seen[-1]
    assert loop.stats().jobs == 5
    loop.close()
    assert loop.stats() is None
    assert dl.get() is None


def test_periodic_rejects_bad_modes():
    with pytest.raises(ValueError, match="mode"):
        dl.periodic(runtime="1ms", period="5ms", mode="nap")
    with pytest.raises(TypeError):
        dl.periodic(reserve=False)


def test_the_gil_is_released_while_the_loop_waits():
    # With a switch interval of minutes the interpreter never takes the GIL
    # from a thread: the main thread counts only while the loop's thread
    # has let it go, which it does in its wait for the next release.
    counter = [0]
    between = []
    done = threading.Event()

    def loop():
        for job in dl.periodic(runtime="1ms", period="10ms", reserve=False, jobs=10):
            between.append(counter[0])
        done.set()

    old = sys.getswitchinterval()
    sys.setswitchinterval(300)
    try:
        t = threading.Thread(target=loop)
        t.start()
        while not done.is_set():
            done.wait(0.0005)
            counter[0] += 1
        t.join()
    finally:
        sys.setswitchinterval(old)
    moved = sum(1 for a, b in zip(between, between[1:]) if b > a)
    assert moved >= len(between) // 2, between


def test_docstrings_everywhere():
    for name in dl.__all__:
        obj = getattr(dl, name)
        if callable(obj):
            assert obj.__doc__, name
    assert "platform" in dl.plan.__doc__


def test_stub_names_every_public_name_with_its_signature():
    import ast
    import inspect

    stub = os.path.join(os.path.dirname(dl.__file__), "__init__.pyi")
    tree = ast.parse(open(stub).read())
    defs = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            defs[node.name] = node
        elif isinstance(node, ast.AnnAssign):
            defs[node.target.id] = node
    missing = [n for n in dl.__all__ if n not in defs]
    assert not missing, missing

    def names(args):
        return ([a.arg for a in args.posonlyargs + args.args], [a.arg for a in args.kwonlyargs],
                args.vararg is not None, args.kwarg is not None)

    def real(fn):
        sig = inspect.signature(fn)
        pos = [p.name for p in sig.parameters.values()
               if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        kw = [p.name for p in sig.parameters.values() if p.kind == p.KEYWORD_ONLY]
        return (pos, kw, any(p.kind == p.VAR_POSITIONAL for p in sig.parameters.values()),
                any(p.kind == p.VAR_KEYWORD for p in sig.parameters.values()))

    for name in dl.__all__:
        obj, node = getattr(dl, name), defs[name]
        if isinstance(node, ast.FunctionDef):
            assert names(node.args) == real(obj), name
        elif isinstance(node, ast.ClassDef) and inspect.isclass(obj) and obj.__module__ == "libdeadline":
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and not item.decorator_list and item.name in vars(obj):
                    stub_pos, stub_kw, va, vk = names(item.args)
                    assert (stub_pos, stub_kw, va, vk) == real(vars(obj)[item.name]), f"{name}.{item.name}"


def test_the_loop_holds_no_more_memory_at_job_400_than_at_job_100():
    # Each step makes one Job and drops the one before: what Python holds
    # stays the same however long the loop runs (the library's loop
    # allocates nothing once started: dl_periodic_start(3)).
    import array
    import tracemalloc

    held = array.array("q", [0, 0, 0, 0, 0])  # no object per figure kept
    tracemalloc.start()
    try:
        for job in dl.periodic(runtime="100us", period="500us", reserve=False, jobs=401):
            if job.number % 100 == 0:
                held[job.number // 100] = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert held[4] <= held[1], list(held)



def test_closing_a_loop_that_another_thread_iterates_ends_it_cleanly():
    # The worker waits in next() for its next release, the GIL released,
    # while the main thread closes the loop: the wait ends as planned, the
    # job it ended keeps its record, and the worker's for loop ends.
    code = """
import threading, time, libdeadline as dl
loop = dl.periodic(runtime="1ms", period="30ms", reserve=False)
seen, errors, running = [], [], threading.Event()
def worker():
    try:
        for job in loop:
            seen.append(job)
            if job.number == 2:
                running.set()
    except BaseException as e:
        errors.append(repr(e))
    running.set()
t = threading.Thread(target=worker)
t.start()
assert running.wait(10)
time.sleep(0.01)
loop.close()
t.join(10)
assert not t.is_alive(), "the worker's loop did not end"
assert not errors, errors
now = time.monotonic_ns()
for j in seen:
    assert j.ended and j.release <= j.end <= now and j.response == j.end - j.release, (j, j.release)
assert loop.last is seen[-1] and loop.stats() is None
print(len(seen), "jobs")
"""
    r = run_python(code, env=POISON_FREED)
    assert r.returncode == 0, r.stderr
    assert "jobs" in r.stdout


def test_a_loop_runs_in_one_thread_at_a_time():
    loop = dl.periodic(runtime="1ms", period="50ms", reserve=False, jobs=3)
    first = next(loop)
    errors = []

    def other():
        try:
            next(loop)
        except RuntimeError as e:
            errors.append(e)

    t = threading.Thread(target=lambda: [j for j in loop])
    t.start()
    time.sleep(0.01)  # t waits in next() for the next release
    o = threading.Thread(target=other)
    o.start()
    o.join()
    t.join()
    assert len(errors) == 1 and "another thread" in str(errors[0])
    assert first.ended and loop.stats().jobs == 3
    loop.close()


def test_closing_from_another_thread_restores_the_loops_thread(monkeypatch):
    # The loop runs as if under a reservation (the extension's loop is
    # told not to set one, so any user runs it); which thread close() and
    # the loop's end give the policy back to is what _core.clear sees.
    real = dl._core.Periodic
    calls = []
    monkeypatch.setattr(dl._core, "Periodic", lambda p, mode, first, jobs: real(p, mode | 0x100, first, jobs))
    monkeypatch.setattr(dl._core, "clear", lambda tid: calls.append((tid, threading.get_native_id())))
    tids, ran, leave = [], threading.Event(), threading.Event()
    loops = [dl.periodic(runtime="1ms", period="10ms", jobs=3), dl.periodic(runtime="1ms", period="30ms")]

    def worker():
        tids.append(threading.get_native_id())
        for job in loops[0]:
            pass
        for job in loops[1]:
            if job.number == 1:
                ran.set()
        leave.wait(10)

    t = threading.Thread(target=worker)
    t.start()
    try:
        assert ran.wait(10)
        loops[0].close()  # ended, not closed: its thread waits, alive
        time.sleep(0.01)
        loops[1].close()  # its thread waits in next()
        for _ in range(100):
            if len(calls) == 2:
                break
            time.sleep(0.01)
    finally:
        leave.set()
        t.join()
    targets = [tid if tid else caller for tid, caller in calls]
    assert targets == [tids[0], tids[0]], (calls, tids)


@pytest.mark.parametrize("field, value", [("runtime", 2**64 + 1_000_000), ("deadline", 2**64 + 10_000_000),
                                          ("period", 2**64 + 10_000_000), ("flags", 2**64 + 1),
                                          ("flags", -1), ("util_min", 2**32 + 100), ("util_min", -1),
                                          ("util_max", 2**32 + 100), ("util_max", -1)])
def test_out_of_range_reservation_fields_are_refused_by_name(field, value):
    fields = {"runtime": 1_000_000, "deadline": 10_000_000, "period": 10_000_000, "flags": 0, "util_min": 0,
              "util_max": 0}
    fields[field] = value
    top = "4294967295" if field.startswith("util") else "18446744073709551615"
    with pytest.raises(OverflowError) as e:
        dl._core.normalize(tuple(fields.values()))
    assert field in str(e.value) and str(value) in str(e.value) and top in str(e.value)
    if field in ("flags", "util_min", "util_max"):
        with pytest.raises(OverflowError, match=field):
            dl.Params(**fields)


def test_huge_times_are_not_truncated():
    with pytest.raises(OverflowError, match="runtime"):
        dl.Params(runtime=2**64 + 1_000_000, period="10ms")
    with pytest.raises(OverflowError, match="runtime"):
        dl.edf_test([{"runtime": 2**64 + 1_000_000, "period": 10_000_000}])
    with pytest.raises(OverflowError, match="jobs"):
        dl.periodic(runtime="1ms", period="10ms", reserve=False, jobs=2**64 + 3)
    with pytest.raises(OverflowError, match="first_release"):
        dl.periodic(runtime="1ms", period="10ms", reserve=False, first_release=-1)


@pytest.mark.parametrize("field, value, top", [("period_min", -1, 2**64 - 1), ("period_min", 2**64 + 100_000, 2**64 - 1),
                                               ("period_max", -1, 2**64 - 1),
                                               ("period_max", 2**64 + 4_194_304_000, 2**64 - 1),
                                               ("cpu_bw", -1, 2**63 - 1), ("cpu_bw", 2**63, 2**63 - 1)])
def test_out_of_range_platform_fields_are_refused_by_name(field, value, top):
    # Not wrapped: 2**64 + 100us is not a period limit of 100us, nor -1 one
    # of 2**64 - 1 ns, and an admission cap is not negative.
    pf = dataclasses.replace(dl.Platform.default(2), **{field: value})
    for call in (lambda: dl.plan([dl.Params("1ms", period="10ms")], pf),
                 lambda: dl.global_test(dl.TaskSet(), platform=pf)):
        with pytest.raises(OverflowError) as e:
            call()
        assert f"{field} {value} is out of range" in str(e.value) and str(top) in str(e.value), e.value


@pytest.mark.parametrize("value", [-1, 2**32, 2**32 + 1])
def test_out_of_range_flags_and_settle_times_are_refused_by_name(value):
    # Each call would fail at once with a value in range (parameters that
    # break the kernel's rules, CPUs that are not CPUs, a member that does
    # not exist, a thread that does not exist): nothing is changed whatever
    # the flags, and the answer for the value is OverflowError, not a wrap
    # (2**32 taken for 0, -1 for 2**32 - 1).
    bad = (3_000_000, 2_000_000, 2_000_000, 0, 0, 0)
    calls = {"flags": [lambda: dl._core.set_process(os.getpid(), bad, value),
                       lambda: dl._core.layout_create([("py0", "no-such-cpus")], None, None, value),
                       lambda: dl._core.layout_destroy([("py0", "no-such-cpus")], None, None, value),
                       lambda: dl._core.part_attach("no-such-member", 2**31 - 1, value),
                       lambda: dl._core.part_set("no-such-member", 2**31 - 1, bad, True, value)],
             "settle_ms": [lambda: dl.drift_check(settle_ms=value)]}
    for field, fns in calls.items():
        for call in fns:
            with pytest.raises(OverflowError) as e:
                call()
            assert f"{field} {value} is out of range" in str(e.value) and "4294967295" in str(e.value), e.value


def test_other_numbers_are_not_wrapped():
    with pytest.raises(OverflowError, match="time -1 is out of range"):
        dl.format_time(-1)
    with pytest.raises(OverflowError, match="time 18446744073709551616 is out of range"):
        dl.format_time(2**64)
    assert dl._core.test_name(1) == "GFB"
    with pytest.raises(OverflowError):
        dl._core.test_name(2**32 + 1)


def test_a_loop_past_its_jobs_limit_stays_finished():
    loop = dl.periodic(runtime="1ms", period="20ms", reserve=False, jobs=2)
    assert [j.number for j in loop] == [0, 1]
    last, jobs = loop.last, loop.stats().jobs
    assert jobs == 2
    for _ in range(3):
        with pytest.raises(StopIteration):
            next(loop)
        # No further period waited for, no job ended or counted.
        assert loop.last is last and loop.stats().jobs == jobs
    assert not loop._loop.closed
    loop.close()
    assert loop.stats() is None


EMPTIER = """
import libdeadline as dl
from libdeadline import _core

class Emptier:
    def __init__(self, target, value, *keys):
        self.target, self.value, self.keys = target, value, keys
    def __index__(self):
        for k in self.keys:
            del self.target[k]
        if not self.keys:
            self.target.clear()
        return self.value
"""


@pytest.mark.parametrize("case", ["tasks", "platform", "partitions"])
def test_lists_emptied_during_conversion(case):
    # An object whose __index__ empties the list being converted (or takes
    # a value out of the dict), freeing what it held: the extension
    # converts what the call was given.
    code = EMPTIER + {
        "tasks": """
tasks = []
tasks += [(1_000_000, 10_000_000, 10_000_000, 0, Emptier(tasks, 0), 0), (1_000_000, 4_000_000, 4_000_000, 0, 0, 0)]
r = _core.edf_test(tasks)
assert r["verdict"] == 1 and abs(r["util"] - (1 << 20) * 35 // 100) <= 1, r
print("ok")
""",
        "platform": """
pf = {"ncpus": 2, "cpus": frozenset(range(2)), "unlimited": False, "server": tuple([0] * 6),
      "period_min": 0, "period_max": 0}
pf["cpu_bw"] = Emptier(pf, 1 << 20, "cpus")
r = _core.plan([(1_000_000, 10_000_000, 10_000_000, 0, 0, 0)], pf)
assert r["feasible"] and frozenset().union(*(x["cpus"] for x in r["parts"] + (r["cluster"],))) == {0, 1}, r
print("ok")
""",
        # The cluster's CPUs are not CPUs: the layout is never made.
        "partitions": """
parts = []
parts.append(("".join(["py", "rt0"]), [Emptier(parts, 0)]))
try:
    _core.layout_create(parts, "no-such-cpus")
except ValueError as e:
    assert "no-such-cpus" in str(e), e
    print("ok")
""",
    }[case]
    r = run_python(code, env=POISON_FREED)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "ok\n", r.stdout


def test_a_taskset_planned_while_other_threads_add_to_it():
    # Every task alike: a result over the first k tasks (k the set's size
    # when it was read) has k response times and k tasks' utilization over
    # the empty set's, and a plan places k distinct tasks.
    code = """
import threading, time, libdeadline as dl
one = dl.Params("10us", period="100ms")
pf = dl.Platform.default(4)
base = dl.global_test(dl.TaskSet(), platform=pf).util
bad, plans = [], [0]
for round in range(10):
    ts = dl.TaskSet()
    def adder(name):
        for i in range(300):
            ts.add(f"{name}{i}", one)
            if i % 10 == 0:
                time.sleep(0)
    def planner():
        try:
            while len(ts) < 600:
                g = dl.global_test(ts, platform=pf)
                k = len(g.response)
                if not g or abs(g.util - base - k * one.utilization * dl.BW_UNIT) > 1:
                    bad.append(("global", g.why, g.util, k))
                p = dl.plan(ts, pf)
                placed = [i for x in p.parts + ((p.cluster,) if p.cluster else ()) for i in x.tasks]
                if not p or len(set(placed)) != len(placed) or any(i >= len(ts) for i in placed):
                    bad.append(("plan", p.why, placed))
                plans[0] += 1
        except Exception as e:
            bad.append(repr(e))
    threads = [threading.Thread(target=planner), threading.Thread(target=planner),
               threading.Thread(target=adder, args=("a",)), threading.Thread(target=adder, args=("b",))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
assert not bad, bad[:5]
assert plans[0] > 10, plans
print("ok")
"""
    r = run_python(code, env=POISON_FREED, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout == "ok\n"


def test_reservations_of_reserve_and_periodic_reset_on_fork():
    # So that the thread may start processes and threads under them
    # (test_kernel.py starts one); reset_on_fork=False leaves the flag out.
    p = dl.Params("1ms", period="10ms", flags=dl.FLAG_RECLAIM)
    assert dl.reserve(runtime="1ms", period="10ms").params.flags == dl.FLAG_RESET_ON_FORK
    assert dl.reserve(p).params == dataclasses.replace(p, flags=dl.FLAG_RECLAIM | dl.FLAG_RESET_ON_FORK)
    assert dl.reserve(p, reset_on_fork=False).params == p
    assert dl.periodic(p, jobs=1).params.flags == dl.FLAG_RECLAIM | dl.FLAG_RESET_ON_FORK
    assert dl.periodic(p, jobs=1, reset_on_fork=False).params == p
    # No reservation set: the parameters only time the loop.
    assert dl.periodic(p, jobs=1, reserve=False).params == p
