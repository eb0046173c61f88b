"""libdeadline: Linux's SCHED_DEADLINE made practical, from Python.

The binding of libdeadline(3): reservations set, read and cleared, with
the kernel's rules checked first and every refusal explained; the
kernel's admission predicted; the machine's root domains and deadline
threads; cpuset layouts (partitions and a cluster); task sets, their
schedulability tests and plans; the periodic loop.

Times are int nanoseconds, or strings with a unit ("2ms", "1.5ms",
"500us", "1s"; a bare number is ns) as the library parses them.
Bandwidths are ints in units of BW_UNIT (1 << 20 = one whole CPU).  A
reservation is given by the keyword arguments runtime, deadline (default:
the period), period (default: the deadline) and flags wherever one is
taken, or as a Params.

A reservation that breaks the kernel's rules raises ValueError before any
system call.  A refusal raises DeadlineError (an OSError) carrying the
errno and the library's explanation: AdmissionError for EBUSY (no
bandwidth left), PolicyError (also a PermissionError) for EPERM.

    import libdeadline
    with libdeadline.reserve(runtime="2ms", period="10ms"):
        for job in libdeadline.periodic(jobs=100):
            work()

See libdeadline-python(3).
"""

from __future__ import annotations

import dataclasses
import errno as _errno
import os
import threading
from typing import Any, Iterable, Iterator, Mapping, Optional, Sequence, Tuple, Union

from . import _core
from ._core import AdmissionError, DeadlineError, Job, PolicyError

__all__ = [
    "AdmissionError", "DeadlineError", "PolicyError", "Job",
    "FLAG_RESET_ON_FORK", "FLAG_RECLAIM", "FLAG_DL_OVERRUN", "FLAG_UTIL_CLAMP_MIN", "FLAG_UTIL_CLAMP_MAX",
    "UTIL_MAX", "BW_UNIT", "CLUSTER", "SCHEDULABLE", "NOT_GUARANTEED", "INFEASIBLE", "UNSCHEDULABLE",
    "ns", "format_time", "format_bw", "online_cpus", "period_limits", "have_cap_sys_nice",
    "Params", "params", "set", "get", "Budget", "budget", "clear", "reserve", "Reservation", "ThreadStatus",
    "check", "Verdict", "explain",
    "RootDomain", "Task", "Snapshot", "snapshot", "root_domains", "root_domain_of", "Drift", "drift_check",
    "rebuild_root_domains", "mount_debugfs",
    "Layout", "LayoutResult", "Member", "create_layout", "destroy_layout", "current_layout", "layout_status",
    "attach", "place", "occupants",
    "TaskSpec", "TaskSet", "read_taskset", "parse_taskset",
    "Platform", "platform", "EdfResult", "GlobalResult", "ExactResult", "PlanPart", "Plan", "edf_test", "global_test",
    "exact_test", "plan",
    "Periodic", "PeriodicStats", "periodic",
]

Time = Union[int, str]

# The kernel's SCHED_FLAG_* values (libdeadline.h, DL_FLAG_*).
FLAG_RESET_ON_FORK = 0x01
FLAG_RECLAIM = 0x02
FLAG_DL_OVERRUN = 0x04
FLAG_UTIL_CLAMP_MIN = 0x20
FLAG_UTIL_CLAMP_MAX = 0x40
UTIL_MAX = 1024
BW_UNIT = 1 << 20
CLUSTER = "cluster"
SCHEDULABLE, NOT_GUARANTEED, INFEASIBLE, UNSCHEDULABLE = 1, 0, -1, -2
_VERDICT_STEPS = ("admitted", "invalid", "no_cap", "affinity", "no_bw", "overflow")
_VERDICT_ERRNO = (0, _errno.EINVAL, _errno.EPERM, _errno.EPERM, _errno.EPERM, _errno.EBUSY)
_VERDICTS = {1: "schedulable", 0: "not guaranteed", -1: "infeasible", -2: "not schedulable"}
_LAYOUT_ISOLATED, _LAYOUT_NO_MOVE, _LAYOUT_LEAVE_BUSY = 0x1, 0x2, 0x4
_PROC_PARTIAL, _PROC_OWNED = 0x1, 0x2
_SCHED_DEADLINE = 6
_SCHED_RESET_ON_FORK = 0x40000000


def ns(value: Time) -> int:
    """A time as int nanoseconds: an int as it is, a string such as "2ms",
    "1.5ms", "500us" or "1s" parsed by the library (dl_time_parse(3)).

    >>> ns("1.5ms")
    1500000
    """
    if isinstance(value, bool):
        raise TypeError("a time is an int of nanoseconds or a string with a unit such as '2ms', not a bool")
    if isinstance(value, int):
        if value < 0:
            raise ValueError(f"a time cannot be negative ({value} ns)")
        return value
    if isinstance(value, str):
        return _core.time_parse(value)
    raise TypeError(f"a time is an int of nanoseconds or a string with a unit such as '2ms', "
                    f"not {type(value).__name__}")


def format_time(value: int) -> str:
    """A time in ns as the library prints it: format_time(1500000) == "1.5ms"."""
    return _core.time_format(value)


def format_bw(bw: int) -> str:
    """A bandwidth (BW_UNIT = one CPU) as a fraction with four decimals: "0.2000"."""
    return _core.bw_format(bw)


def online_cpus() -> frozenset:
    """The online CPUs (dl_cpus_online(3))."""
    return _core.cpus_online()


def period_limits() -> Tuple[int, int]:
    """The kernel's shortest and longest period allowed, ns (dl_period_limits(3))."""
    return _core.period_limits()


def have_cap_sys_nice() -> bool:
    """Whether this process may set reservations (holds CAP_SYS_NICE)."""
    return _core.have_cap_sys_nice()


def _cpus_text(cpus: Iterable[int]) -> str:
    return _core.cpus_format(cpus) if cpus else "-"


@dataclasses.dataclass(frozen=True)
class Params:
    """A deadline reservation: runtime ns of CPU time in every period,
    within deadline ns of the period's start.  Frozen, hashable.

    Params(runtime="2ms", period="10ms") fills in the deadline (the
    period) and checks the kernel's rules (dl_params_normalize(3)):
    ValueError, with the library's sentence, when they are broken.
    """

    runtime: int
    deadline: int = 0
    period: int = 0
    flags: int = 0
    util_min: int = 0
    util_max: int = 0

    def __init__(self, runtime: Time, deadline: Optional[Time] = None, period: Optional[Time] = None,
                 flags: int = 0, util_min: Optional[int] = None, util_max: Optional[int] = None) -> None:
        # A clamp given sets its flag; 0 with the flag given in flags is a clamp too
        # (dataclasses.replace() passes every field back this way).
        if util_min:
            flags |= FLAG_UTIL_CLAMP_MIN
        if util_max:
            flags |= FLAG_UTIL_CLAMP_MAX
        raw = (ns(runtime), ns(deadline) if deadline is not None else 0, ns(period) if period is not None else 0,
               int(flags), util_min or 0, util_max or 0)
        fields = _core.normalize(raw)
        for name, value in zip(("runtime", "deadline", "period", "flags", "util_min", "util_max"), fields):
            object.__setattr__(self, name, value)

    @classmethod
    def _from(cls, t: Sequence[int]) -> "Params":
        p = object.__new__(cls)
        for name, value in zip(("runtime", "deadline", "period", "flags", "util_min", "util_max"), t):
            object.__setattr__(p, name, value)
        return p

    def _tuple(self) -> Tuple[int, int, int, int, int, int]:
        return (self.runtime, self.deadline, self.period, self.flags, self.util_min, self.util_max)

    @property
    def bw(self) -> int:
        """runtime / period in BW_UNIT (the kernel's to_ratio())."""
        return _core.params_bw(self._tuple())

    @property
    def utilization(self) -> float:
        """runtime / period as a float (0.2 for 2ms in 10ms)."""
        return self.runtime / self.period

    def __repr__(self) -> str:
        text = (f"Params(runtime={format_time(self.runtime)}, deadline={format_time(self.deadline)}, "
                f"period={format_time(self.period)}")
        if self.flags:
            text += f", flags={self.flags:#x}"
        if self.flags & FLAG_UTIL_CLAMP_MIN:
            text += f", util_min={self.util_min}"
        if self.flags & FLAG_UTIL_CLAMP_MAX:
            text += f", util_max={self.util_max}"
        return text + ")"


def params(params: Optional[Params] = None, *, runtime: Optional[Time] = None, deadline: Optional[Time] = None,
           period: Optional[Time] = None, flags: int = 0, util_min: Optional[int] = None,
           util_max: Optional[int] = None) -> Params:
    """A Params from either a Params or the keyword arguments runtime,
    deadline (default: the period), period (default: the deadline), flags,
    util_min and util_max."""
    if params is not None:
        if not isinstance(params, Params):
            raise TypeError(f"params must be a libdeadline.Params, not {type(params).__name__}")
        if runtime is not None or deadline is not None or period is not None or flags:
            raise TypeError("give a Params or runtime=, deadline=, period=, flags=, not both")
        return params
    if runtime is None:
        raise TypeError("a reservation needs runtime= (and period= or deadline=)")
    if deadline is None and period is None:
        raise ValueError(f"runtime {runtime} needs a period or a deadline: "
                         f"give period= (the deadline defaults to it)")
    return Params(runtime, deadline, period, flags, util_min, util_max)


@dataclasses.dataclass(frozen=True)
class ThreadStatus:
    """One thread of a process set with all_threads=True: errno 0 when it was set."""

    tid: int
    errno: int


def set(params: Optional[Params] = None, *, runtime: Optional[Time] = None, deadline: Optional[Time] = None,
        period: Optional[Time] = None, flags: int = 0, util_min: Optional[int] = None,
        util_max: Optional[int] = None, tid: int = 0, all_threads: bool = False, partial: bool = False,
        owned: bool = False) -> Optional[Tuple[ThreadStatus, ...]]:
    """Put thread tid (0: the calling thread) under SCHED_DEADLINE with the
    reservation (dl_set(3)).  all_threads=True: every thread of process tid
    (0: this process) (dl_set_process(3)), all or none unless partial=True;
    returns each thread's status then.  owned=True refuses threads that are
    not the caller's (dl_set_owned(3)).  Raises AdmissionError (EBUSY) when
    the root domain has no room, PolicyError (EPERM) without CAP_SYS_NICE
    or when the CPU affinity does not cover the root domain."""
    p = globals()["params"](params, runtime=runtime, deadline=deadline, period=period, flags=flags,
                            util_min=util_min, util_max=util_max)
    if all_threads:
        how = (_PROC_PARTIAL if partial else 0) | (_PROC_OWNED if owned else 0)
        status = _core.set_process(tid or os.getpid(), p._tuple(), how)
        return tuple(ThreadStatus(t, e) for t, e in status)
    _core.set(tid, p._tuple(), owned)
    return None


def get(tid: int = 0) -> Optional[Params]:
    """Thread tid's reservation as the kernel reports it (dl_get(3)), or None
    when the thread is not under SCHED_DEADLINE."""
    t = _core.get(tid)
    return None if t is None else Params._from(t)


@dataclasses.dataclass(frozen=True)
class Budget:
    """What a deadline thread's job has left now, the kernel's figures
    (dl_get_budget(3)): runtime ns of this period's runtime (0 or below once
    throttled) and deadline, the absolute deadline, CLOCK_MONOTONIC ns (as
    time.monotonic_ns())."""

    runtime: int
    deadline: int


def budget(tid: int = 0) -> Budget:
    """Thread tid's budget left (dl_get_budget(3)): Linux 7.1 and later.
    Raises DeadlineError with errno ENOTSUP on an older kernel, EINVAL when
    the thread is not under SCHED_DEADLINE."""
    return Budget(*_core.budget(tid))


def clear(tid: int = 0) -> None:
    """Return thread tid to SCHED_OTHER (dl_clear(3))."""
    _core.clear(tid)


class Reservation:
    """The calling thread under a reservation for a with block; on exit the
    thread gets back the policy it had before (a reservation, SCHED_FIFO,
    SCHED_RR, or SCHED_OTHER with its nice value).  Made by reserve()."""

    def __init__(self, params: Params) -> None:
        self.params = params
        self.previous: Optional[Params] = None
        self._policy: Optional[Tuple[int, Any]] = None
        self._tid = 0
        self._thread: Optional[threading.Thread] = None

    def __enter__(self) -> "Reservation":
        self._save()
        _core.set(0, self.params._tuple(), False)
        return self

    def __exit__(self, *exc: Any) -> None:
        self._restore()

    def _save(self) -> None:
        self._tid = threading.get_native_id()
        self._thread = threading.current_thread()
        policy = os.sched_getscheduler(0)
        if policy & ~_SCHED_RESET_ON_FORK == _SCHED_DEADLINE:
            self.previous = get(0)
        else:
            self._policy = (policy, os.sched_getparam(0))

    def _restore(self) -> None:
        # The thread saved, whichever thread restores it (a loop's close()
        # or __del__ may run on another).  One that has ended took its
        # policy with it, and its id may be another thread's by now.
        tid = 0 if threading.get_native_id() == self._tid else self._tid
        if tid and self._thread is not None and not self._thread.is_alive():
            return
        if self.previous is not None:
            _core.set(tid, self.previous._tuple(), False)
            return
        _core.clear(tid)
        policy, param = self._policy or (os.SCHED_OTHER, None)
        if policy & ~_SCHED_RESET_ON_FORK != os.SCHED_OTHER:
            os.sched_setscheduler(tid, policy, param)

    def __repr__(self) -> str:
        return f"<Reservation {self.params!r}>"


def _reset_on_fork(p: Params, reset: bool) -> Params:
    """p with FLAG_RESET_ON_FORK when reset: the kernel refuses a deadline
    task fork() and pthread_create() (EAGAIN) without it, and Python forks
    and starts threads behind its caller's back (subprocess, logging
    handlers, libraries' pools); with it, the children run as normal tasks
    (docs/kernel-notes.md, "A deadline task cannot fork")."""
    if not reset or p.flags & FLAG_RESET_ON_FORK:
        return p
    return dataclasses.replace(p, flags=p.flags | FLAG_RESET_ON_FORK)


def reserve(params: Optional[Params] = None, *, runtime: Optional[Time] = None, deadline: Optional[Time] = None,
            period: Optional[Time] = None, flags: int = 0, util_min: Optional[int] = None,
            util_max: Optional[int] = None, reset_on_fork: bool = True) -> Reservation:
    """A context manager: the calling thread runs the with block under the
    reservation and gets its previous policy back on exit.

        with libdeadline.reserve(runtime="2ms", period="10ms"):
            control_loop()

    The reservation carries FLAG_RESET_ON_FORK, so that the block may start
    processes and threads (they run as normal tasks); reset_on_fork=False
    leaves it out, and the kernel then refuses them (BlockingIOError)."""
    p = globals()["params"](params, runtime=runtime, deadline=deadline, period=period, flags=flags,
                            util_min=util_min, util_max=util_max)
    return Reservation(_reset_on_fork(p, reset_on_fork))


@dataclasses.dataclass(frozen=True)
class RootDomain:
    """A root domain and its deadline bandwidth (struct dl_rd), in BW_UNIT."""

    cpus: frozenset
    ncpus: int
    cpu_bw: int
    capacity: int
    fair_bw: int
    tasks_bw: int
    ntasks: int
    total_bw: int
    free_bw: int
    from_kernel: bool
    unlimited: bool
    uncounted_fair_bw: int
    # The smallest and largest cpu_capacity of its CPUs (1024: the
    # biggest kind), and their sum, which capacity scales cpu_bw by.
    cap_min: int = 1024
    cap_max: int = 1024
    cap_sum: int = 0

    def __repr__(self) -> str:
        return (f"<RootDomain CPUs {_cpus_text(self.cpus)}: capacity {format_bw(self.capacity)}, "
                f"fair {format_bw(self.fair_bw)}, admitted {format_bw(self.total_bw)}, "
                f"free {format_bw(self.free_bw)}, {self.ntasks} tasks>")


def _rd(d: Optional[Mapping[str, Any]]) -> Optional[RootDomain]:
    return None if d is None else RootDomain(**d)


@dataclasses.dataclass(frozen=True)
class Verdict:
    """check()'s prediction: true when the kernel would admit the
    reservation; why says why, in the library's words; step names the
    rule that decided ("admitted", "invalid", "no_cap", "affinity",
    "no_bw", "overflow") and errno the error the kernel would return."""

    admitted: bool
    step: str
    errno: int
    cpu: int
    threads: int
    need: int
    old: int
    drift: int
    root_domain: Optional[RootDomain]
    why: str
    # The cpu_capacity a CPU needs to run each thread in time.
    cap_need: int = 0

    def __bool__(self) -> bool:
        return self.admitted

    def __str__(self) -> str:
        return self.why

    def __repr__(self) -> str:
        return f"<Verdict {'admitted' if self.admitted else 'refused'} ({self.step}): {self.why}>"


def check(params: Optional[Params] = None, *, runtime: Optional[Time] = None, deadline: Optional[Time] = None,
          period: Optional[Time] = None, flags: int = 0, util_min: Optional[int] = None,
          util_max: Optional[int] = None, pid: int = 0, all_threads: bool = False,
          partition: Optional[str] = None, new_task: bool = False) -> Verdict:
    """Would the kernel admit the reservation now (dl_predict_verdict(3))?
    For thread pid (0: the calling thread), or every thread of it; placed
    in layout member partition first (dl_part_predict(3)); or, with
    new_task=True, for a task about to start in partition (None: outside
    the layout) (dl_predict_member(3)).  Changes nothing.  The Verdict is
    truthy when admissible and carries the explanation."""
    p = globals()["params"](params, runtime=runtime, deadline=deadline, period=period, flags=flags,
                            util_min=util_min, util_max=util_max)
    d = _core.predict(pid, all_threads, p._tuple(), partition, new_task)
    return Verdict(admitted=d["admitted"], step=_VERDICT_STEPS[d["step"]], errno=_VERDICT_ERRNO[d["step"]],
                   cpu=d["cpu"], threads=d["threads"], need=d["need"], old=d["old"], drift=d["drift"],
                   root_domain=_rd(d["rd"]), why=d["why"], cap_need=d["cap_need"])


def explain(err: int, params: Optional[Params] = None, *, tid: int = 0, **kw: Any) -> str:
    """Why a reservation failed with errno err, from the system as it is now
    (dl_explain(3))."""
    p = globals()["params"](params, **kw)
    return _core.explain(err, tid, p._tuple())


@dataclasses.dataclass(frozen=True)
class Task:
    """A SCHED_DEADLINE thread (struct dl_task)."""

    pid: int
    tid: int
    comm: str
    params: Params
    bw: int
    cpu: int
    rd: int
    rd_cpus: frozenset
    cpuset: str
    exec_ns: int
    when_ns: int

    def __repr__(self) -> str:
        p = self.params
        return (f"<Task {self.pid}/{self.tid} {self.comm!r} runtime {format_time(p.runtime)} deadline "
                f"{format_time(p.deadline)} period {format_time(p.period)} util {format_bw(self.bw)} "
                f"rd {self.rd} cpuset {self.cpuset or '-'}>")


@dataclasses.dataclass(frozen=True)
class Snapshot:
    """The machine's deadline threads and root domains, read at one time
    (dl_snapshot(3)); iterating it gives the tasks."""

    tasks: Tuple[Task, ...]
    root_domains: Tuple[RootDomain, ...]

    def __iter__(self) -> Iterator[Task]:
        return iter(self.tasks)

    def __len__(self) -> int:
        return len(self.tasks)

    def __repr__(self) -> str:
        lines = [f"<Snapshot: {len(self.root_domains)} root domains, {len(self.tasks)} deadline threads"]
        lines += [f"  {i}: {rd!r}" for i, rd in enumerate(self.root_domains)]
        lines += [f"  {t!r}" for t in self.tasks]
        return "\n".join(lines) + ">"


def _task(d: Mapping[str, Any]) -> Task:
    d = dict(d)
    d["params"] = Params._from(d["params"])
    return Task(**d)


def snapshot(pid: int = 0) -> Snapshot:
    """Every deadline thread (of process pid only, when not 0) and every
    root domain (dl_snapshot(3))."""
    tasks, rds = _core.snapshot(pid)
    return Snapshot(tuple(_task(t) for t in tasks), tuple(RootDomain(**r) for r in rds))


def root_domains() -> Tuple[RootDomain, ...]:
    """The root domains and their bandwidth (dl_rd_list(3))."""
    return snapshot().root_domains


def root_domain_of(cpu: int) -> RootDomain:
    """The root domain of a CPU (dl_rd_of_cpu(3))."""
    return RootDomain(**_core.rd_of_cpu(cpu))


@dataclasses.dataclass(frozen=True)
class Drift:
    """A root domain whose kernel count disagrees with its tasks (dl_drift_check(3))."""

    cpus: frozenset
    kernel_bw: int
    expected_bw: int


def drift_check(settle_ms: int = 2000) -> Tuple[Drift, ...]:
    """The root domains whose total_bw has drifted (dl_drift_check(3))."""
    return tuple(Drift(*d) for d in _core.drift_check(settle_ms))


def rebuild_root_domains() -> None:
    """Make the kernel rebuild its root domains, repairing drift (dl_rd_rebuild(3), root)."""
    _core.rd_rebuild()


def mount_debugfs() -> None:
    """Mount debugfs so that the kernel's figures can be read (dl_debugfs_mount(3), root)."""
    _core.debugfs_mount()


@dataclasses.dataclass(frozen=True)
class LayoutResult:
    """What a layout's create or destroy did (struct dl_layout_result)."""

    moved: int
    skipped: int
    gone: int
    steps: int
    repaired: bool
    absent: int
    left: int


def _partitions(parts: Union[Mapping[str, Any], Iterable[Tuple[str, Any]]]) -> Tuple[Tuple[str, frozenset], ...]:
    items = parts.items() if isinstance(parts, Mapping) else parts
    return tuple((name, _core.cpus_parse(cpus if isinstance(cpus, str) else tuple(cpus))) for name, cpus in items)


@dataclasses.dataclass(frozen=True)
class Layout:
    """A cpuset layout (dl_layout_create(3)): partitions, each a root domain
    of its own, and a cluster of the other CPUs.

        with libdeadline.Layout({"rt0": "1"}, no_move=True) as lay:
            libdeadline.place("rt0", runtime="5ms", period="10ms")

    partitions maps names to CPUs (a kernel CPU list "2-3" or ints);
    cluster is the cluster's CPUs (default: the rest).  As a context
    manager it is created on entry and destroyed on exit."""

    partitions: Tuple[Tuple[str, frozenset], ...]
    cluster: Optional[frozenset] = None
    mems: Optional[str] = None
    isolated: bool = False
    no_move: bool = False
    leave_busy: bool = False
    version: Optional[int] = None

    def __init__(self, partitions: Union[Mapping[str, Any], Iterable[Tuple[str, Any]]],
                 cluster: Optional[Union[str, Iterable[int]]] = None, mems: Optional[str] = None,
                 isolated: bool = False, no_move: bool = False, leave_busy: bool = False,
                 version: Optional[int] = None) -> None:
        object.__setattr__(self, "partitions", _partitions(partitions))
        object.__setattr__(self, "cluster", None if cluster is None else _core.cpus_parse(
            cluster if isinstance(cluster, str) else tuple(cluster)))
        object.__setattr__(self, "mems", mems)
        object.__setattr__(self, "isolated", isolated)
        object.__setattr__(self, "no_move", no_move)
        object.__setattr__(self, "leave_busy", leave_busy)
        object.__setattr__(self, "version", version)

    def _flags(self) -> int:
        return ((_LAYOUT_ISOLATED if self.isolated else 0) | (_LAYOUT_NO_MOVE if self.no_move else 0) |
                (_LAYOUT_LEAVE_BUSY if self.leave_busy else 0))

    def create(self) -> LayoutResult:
        """Make the layout (dl_layout_create(3), root); nothing is left changed on failure."""
        return LayoutResult(**_core.layout_create(self.partitions, self.cluster, self.mems, self._flags()))

    def destroy(self) -> LayoutResult:
        """Undo this layout (dl_layout_destroy(3)); DeadlineError ESTALE when another is in place."""
        cluster = self.cluster
        if cluster is None:
            # "The rest": the cluster of these partitions as it was made.
            cur = _core.layout_load()
            if cur is not None and tuple(cur["partitions"]) == self.partitions:
                cluster = cur["cluster"]
        return LayoutResult(**_core.layout_destroy(self.partitions, cluster, self.mems, self._flags()))

    def __enter__(self) -> "Layout":
        self.create()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.destroy()

    def __repr__(self) -> str:
        parts = ", ".join(f"{name}: {_cpus_text(cpus)}" for name, cpus in self.partitions)
        cluster = "the rest" if self.cluster is None else _cpus_text(self.cluster)
        return f"<Layout {parts}; cluster: {cluster}>"


def create_layout(partitions: Union[Mapping[str, Any], Iterable[Tuple[str, Any]]],
                  cluster: Optional[Union[str, Iterable[int]]] = None, mems: Optional[str] = None,
                  isolated: bool = False, no_move: bool = False) -> Layout:
    """Make a layout and return it (dl_layout_create(3), root)."""
    lay = Layout(partitions, cluster, mems, isolated, no_move)
    lay.create()
    return lay


def destroy_layout(leave_busy: bool = False) -> LayoutResult:
    """Undo whatever layout is in place (dl_layout_destroy(3), root)."""
    return LayoutResult(**_core.layout_destroy(None, None, None, _LAYOUT_LEAVE_BUSY if leave_busy else 0))


def current_layout() -> Optional[Layout]:
    """The layout in place, or None (dl_layout_load(3))."""
    d = _core.layout_load()
    if d is None:
        return None
    flags = d["flags"]
    return Layout(d["partitions"], d["cluster"], None, bool(flags & _LAYOUT_ISOLATED),
                  bool(flags & _LAYOUT_NO_MOVE), bool(flags & _LAYOUT_LEAVE_BUSY), d["version"])


@dataclasses.dataclass(frozen=True)
class Member:
    """A cpuset of the layout in place, as it is now (struct dl_part_info)."""

    name: str
    cgroup: str
    cpus: frozenset
    partition: bool
    state: str
    nthreads: int
    ndeadline: int
    root_domain: RootDomain

    def __repr__(self) -> str:
        rd = self.root_domain
        return (f"<Member {self.name} {self.cgroup} CPUs {_cpus_text(self.cpus)} {self.state}: "
                f"{self.nthreads} threads ({self.ndeadline} deadline); root domain CPUs {_cpus_text(rd.cpus)}: "
                f"capacity {format_bw(rd.capacity)}, admitted {format_bw(rd.total_bw)}, "
                f"free {format_bw(rd.free_bw)}>")


def layout_status() -> Tuple[Member, ...]:
    """The layout's members as they are now (dl_layout_report(3)); () without a layout."""
    out = []
    try:
        report = _core.layout_report()
    except DeadlineError as e:
        if e.errno == _errno.ENOENT:
            return ()
        raise
    for d in report:
        d = dict(d)
        d["root_domain"] = RootDomain(**d.pop("rd"))
        out.append(Member(**d))
    return tuple(out)


def attach(name: str, tid: int = 0, process: bool = False) -> None:
    """Move thread tid (0: the caller), or its whole process, into layout
    member name (a partition, or CLUSTER) (dl_part_attach(3))."""
    _core.part_attach(name, tid, 1 if process else 0)


def place(name: str, params: Optional[Params] = None, *, runtime: Optional[Time] = None,
          deadline: Optional[Time] = None, period: Optional[Time] = None, flags: int = 0,
          util_min: Optional[int] = None, util_max: Optional[int] = None, tid: int = 0,
          all_threads: bool = False, partial: bool = False) -> Optional[Tuple[ThreadStatus, ...]]:
    """Move thread tid (or every thread of process tid) into member name,
    then set the reservation, the order admission needs (dl_part_set(3),
    dl_part_set_process(3))."""
    p = globals()["params"](params, runtime=runtime, deadline=deadline, period=period, flags=flags,
                            util_min=util_min, util_max=util_max)
    st = _core.part_set(name, tid if tid or not all_threads else os.getpid(), p._tuple(), all_threads,
                        _PROC_PARTIAL if partial else 0)
    return None if st is None else tuple(ThreadStatus(t, e) for t, e in st)


def occupants(name: str) -> Tuple[int, str]:
    """The cgroups below partition name that hold tasks, and their count (dl_part_occupants(3))."""
    return _core.part_occupants(name)


@dataclasses.dataclass(frozen=True)
class TaskSpec:
    """A task of a task set (struct dl_taskspec)."""

    name: str
    params: Params
    work: int
    offset: int
    place: Optional[str]
    argv: Optional[Tuple[str, ...]]
    line: int
    spin: int = 0

    def __repr__(self) -> str:
        p = self.params
        text = (f"<TaskSpec {self.name} runtime={format_time(p.runtime)} deadline={format_time(p.deadline)} "
                f"period={format_time(p.period)} work={format_time(self.work)}")
        if self.spin:
            text += f" spin={format_time(self.spin)}"
        if self.offset:
            text += f" offset={format_time(self.offset)}"
        if self.place:
            text += f" place={self.place}"
        return text + ">"


class TaskSet:
    """A task set (libdl-taskset(5)): read from the text form, JSON, or
    rt-app's workload files (TaskSet.read, TaskSet.parse: the form is
    recognised), or made with add().  A sequence of TaskSpec."""

    def __init__(self, tasks: Iterable[Tuple[str, Params]] = ()) -> None:
        self._ts = _core.TaskSet()
        for name, p in tasks:
            self.add(name, p)

    @classmethod
    def _wrap(cls, ts: Any) -> "TaskSet":
        self = cls.__new__(cls)
        self._ts = ts
        return self

    @classmethod
    def read(cls, path: Union[str, "os.PathLike[str]"]) -> "TaskSet":
        """Read a task set file ("-": standard input) (dl_taskset_read(3)).
        ValueError names the file, line and field of a bad one."""
        return cls._wrap(_core.TaskSet.read(os.fspath(path)))

    @classmethod
    def parse(cls, text: str, origin: Optional[str] = None) -> "TaskSet":
        """Read a task set from text; origin names it in messages (dl_taskset_parse(3))."""
        return cls._wrap(_core.TaskSet.parse(text, origin))

    def add(self, name: str, params: Optional[Params] = None, **kw: Any) -> None:
        """Add a task with the reservation (a Params, or runtime=, period=...)."""
        self._ts.add(name, globals()["params"](params, **kw)._tuple())

    def set_place(self, i: int, place: Optional[str]) -> None:
        """Where task i runs: CLUSTER, a partition's name, or None (anywhere)."""
        self._ts.set_place(i, place)

    @property
    def duration(self) -> int:
        """How long the file asks the set to run, ns (0: it does not say)."""
        return self._ts.duration()

    def __len__(self) -> int:
        return len(self._ts)

    def __getitem__(self, i: int) -> TaskSpec:
        if i < 0:
            i += len(self)
        d = dict(self._ts[i])
        d["params"] = Params._from(d["params"])
        return TaskSpec(**d)

    def __iter__(self) -> Iterator[TaskSpec]:
        return (self[i] for i in range(len(self)))

    def __repr__(self) -> str:
        return "<TaskSet " + ", ".join(repr(t) for t in self) + ">"


def read_taskset(path: Union[str, "os.PathLike[str]"]) -> TaskSet:
    """TaskSet.read(path)."""
    return TaskSet.read(path)


def parse_taskset(text: str, origin: Optional[str] = None) -> TaskSet:
    """TaskSet.parse(text, origin)."""
    return TaskSet.parse(text, origin)


@dataclasses.dataclass(frozen=True)
class Platform:
    """What the analysis assumes of a machine (struct dl_platform): CPUs,
    the admission cap per CPU (BW_UNIT), the fair server on each CPU (None:
    none) and the period limits (0: the kernel's defaults).

    Platform.host() describes this machine; Platform.default(8) a machine
    of 8 CPUs with the kernel's defaults; or build one by hand or with
    dataclasses.replace()."""

    ncpus: int
    cpus: frozenset
    cpu_bw: int
    unlimited: bool = False
    server: Optional[Params] = None
    period_min: int = 0
    period_max: int = 0
    # Each CPU's capacity (the kernel's cpu_capacity, 1 to 1024), in the
    # order of sorted(cpus); None: every CPU of the biggest kind.
    capacity: Optional[Tuple[int, ...]] = None

    @classmethod
    def host(cls, ncpus: int = 0) -> "Platform":
        """This machine: its first ncpus online CPUs (0: all) (dl_platform_get(3))."""
        return cls._from(_core.platform(ncpus, True))

    @classmethod
    def default(cls, ncpus: int) -> "Platform":
        """A machine of ncpus CPUs with the kernel's defaults (dl_platform_init(3))."""
        return cls._from(_core.platform(ncpus, False))

    @classmethod
    def _from(cls, d: Mapping[str, Any]) -> "Platform":
        d = dict(d)
        d["server"] = Params._from(d["server"]) if d["server"][0] else None
        d["capacity"] = None if d["capacity"] is None else tuple(d["capacity"])
        return cls(**d)

    def _dict(self) -> dict:
        return {"ncpus": self.ncpus, "cpus": self.cpus, "cpu_bw": self.cpu_bw, "unlimited": self.unlimited,
                "server": self.server._tuple() if self.server else (0, 0, 0, 0, 0, 0),
                "period_min": self.period_min, "period_max": self.period_max,
                "capacity": None if self.capacity is None else tuple(self.capacity)}


def platform(ncpus: int = 0) -> Platform:
    """Platform.host(ncpus): this machine as the analysis sees it."""
    return Platform.host(ncpus)


def _verdict_name(v: int) -> str:
    return _VERDICTS.get(v, str(v))


@dataclasses.dataclass(frozen=True)
class EdfResult:
    """The exact one-CPU test (dl_edf_test(3)); truthy when schedulable."""

    verdict: int
    util: int
    bound: int
    fail_t: int
    fail_demand: int
    limiting: Optional[int]
    scaling: int
    steps: int

    def __bool__(self) -> bool:
        return self.verdict == SCHEDULABLE

    def __repr__(self) -> str:
        return f"<EdfResult {_verdict_name(self.verdict)}, util {format_bw(self.util)}>"


@dataclasses.dataclass(frozen=True)
class GlobalResult:
    """Global EDF's sufficient tests (dl_global_test(3)); truthy when schedulable.
    results maps each test's name to True (accepted), False or None (not run)."""

    verdict: int
    ncpus: int
    accepted_by: Optional[str]
    results: Mapping[str, Optional[bool]]
    limiting: Optional[int]
    margin: int
    util: int
    scaling: int
    why: str
    response: Tuple[int, ...]
    miss_at: int

    def __bool__(self) -> bool:
        return self.verdict == SCHEDULABLE

    def __str__(self) -> str:
        return self.why

    def __repr__(self) -> str:
        return f"<GlobalResult {_verdict_name(self.verdict)} on {self.ncpus} CPUs: {self.why}>"


def _global(d: Mapping[str, Any]) -> GlobalResult:
    d = dict(d)
    d["results"] = {_core.test_name(i): (None if r < 0 else bool(r)) for i, r in enumerate(d["results"])}
    d["accepted_by"] = None if d["accepted_by"] < 0 else _core.test_name(d["accepted_by"])
    return GlobalResult(**d)


def _tasks_arg(tasks: Any) -> Any:
    if isinstance(tasks, TaskSet):
        return tasks._ts
    out = []
    for t in tasks:
        if isinstance(t, Params):
            out.append(t._tuple())
        elif isinstance(t, Mapping):
            out.append(params(**t)._tuple())
        else:
            raise TypeError(f"a task is a Params or a mapping of runtime=, period=..., not {type(t).__name__}")
    return out


def edf_test(tasks: Iterable[Union[Params, Mapping[str, Any]]], server: Optional[Params] = None) -> EdfResult:
    """The exact EDF test on one CPU (processor demand with QPA), with the
    CPU's fair server if given (dl_edf_test(3))."""
    return EdfResult(**_core.edf_test(_tasks_arg(tasks), None if server is None else server._tuple()))


def global_test(tasks: Union[TaskSet, Iterable[Union[Params, Mapping[str, Any]]]], ncpus: Optional[int] = None,
                server: Optional[Params] = None, platform: Optional[Platform] = None) -> GlobalResult:
    """Global EDF on ncpus CPUs, sufficient tests cheapest first
    (dl_global_test(3)).  A TaskSet is judged on platform (default: this
    host) instead (dl_global_test_taskset(3))."""
    if isinstance(tasks, TaskSet):
        if ncpus is not None or server is not None:
            raise TypeError("a TaskSet is judged on a platform=, not ncpus= and server=")
        return _global(_core.global_test(tasks._ts, None if platform is None else platform._dict()))
    if platform is not None:
        ncpus = platform.ncpus if ncpus is None else ncpus
        server = platform.server if server is None else server
    if ncpus is None:
        raise TypeError("global_test needs ncpus= or platform=")
    return _global(_core.global_test(_tasks_arg(tasks), ncpus, None if server is None else server._tuple()))


@dataclasses.dataclass(frozen=True)
class ExactResult:
    """Global EDF decided exactly (dl_exact_test(3)); truthy when schedulable.
    verdict: SCHEDULABLE, UNSCHEDULABLE (with a witness), INFEASIBLE, or
    NOT_GUARANTEED when the budget ran out (budget_spent "time" or "states").
    arrivals: (task, release ns) that make task miss its deadline at miss_at;
    ties: (from ns, to ns, tasks run ahead at equal deadlines); taskfile: the
    witness as a task file for dl-load (libdl-taskset(5))."""

    verdict: int
    ncpus: int
    any_tie_order: bool
    budget_spent: Optional[str]
    unit: int
    states: int
    expanded: int
    elapsed_ns: int
    task: Optional[int]
    miss_at: int
    ntasks: int
    arrivals: Tuple[Tuple[int, int], ...]
    ties: Tuple[Tuple[int, int, frozenset], ...]
    why: str
    taskfile: Optional[str]

    def __bool__(self) -> bool:
        return self.verdict == SCHEDULABLE

    def __str__(self) -> str:
        return self.why

    def __repr__(self) -> str:
        return f"<ExactResult {_verdict_name(self.verdict)} on {self.ncpus} CPUs: {self.why}>"


def exact_test(tasks: Union[TaskSet, Iterable[Union[Params, Mapping[str, Any]]]], ncpus: int,
               server: Optional[Params] = None, *, max_states: int = 0, max_seconds: float = 0,
               ties: str = "any") -> ExactResult:
    """Global EDF on ncpus CPUs decided exactly: every sporadic arrival
    sequence searched within a budget (dl_exact_test(3)); 0: the default
    budget (2097152 states, 5 s).  ties="any" holds for every order among
    equal deadlines, "index" for the lower task first."""
    if ties not in ("any", "index"):
        raise ValueError(f"ties={ties!r}: say 'any' (every order among equal deadlines) or 'index'")
    if isinstance(max_seconds, bool) or not isinstance(max_seconds, (int, float)) or not 0 <= max_seconds < 2**34:
        raise ValueError(f"max_seconds={max_seconds!r}: give a number of seconds from 0 (the default) up")
    if isinstance(tasks, TaskSet):
        tasks = [tasks[i].params for i in range(len(tasks))]
    d = dict(_core.exact_test(_tasks_arg(tasks), ncpus, None if server is None else server._tuple(),
                              max_states, int(max_seconds * 1e9), ties == "index"))
    d["budget_spent"] = {0: None, 1: "time", 2: "states"}[d["budget_spent"]]
    d["ties"] = tuple((a, b, frozenset(i for i in range(64) if m >> i & 1)) for a, b, m in d["ties"])
    return ExactResult(**d)


@dataclasses.dataclass(frozen=True)
class PlanPart:
    """A partition or the cluster of a plan: tasks are indices into the tasks planned."""

    name: str
    cpus: frozenset
    ncpus: int
    tasks: Tuple[int, ...]
    load: int
    free_bw: int
    test: Optional[str]
    scaling: int
    # Its CPUs' smallest and biggest capacity: the tests count every CPU
    # at the smallest's speed.
    cap_min: int = 1024
    cap_max: int = 1024

    def __repr__(self) -> str:
        return (f"<PlanPart {self.name} CPUs {_cpus_text(self.cpus)}: tasks {list(self.tasks)}, "
                f"load {format_bw(self.load)}, free {format_bw(self.free_bw)}>")


@dataclasses.dataclass(frozen=True)
class Plan:
    """A plan (dl_plan_compute(3)): one-CPU partitions and a cluster that the
    kernel admits and the tests accept; truthy when feasible.  layout is
    the Layout that makes it real (None without partitions)."""

    feasible: bool
    method: str
    k: int
    parts: Tuple[PlanPart, ...]
    cluster: Optional[PlanPart]
    margin: int
    global_result: Optional[GlobalResult]
    unplaced: Optional[int]
    why: str
    layout: Optional[Layout]
    # Per task, the CPU capacity its runtime/deadline needs; the platform's
    # smallest and biggest CPU capacity.
    cap_need: Tuple[int, ...] = ()
    cap_min: int = 1024
    cap_max: int = 1024

    def __bool__(self) -> bool:
        return self.feasible

    def __repr__(self) -> str:
        if not self.feasible:
            return f"<Plan none: {self.why}>"
        parts = ", ".join(repr(p) for p in self.parts + ((self.cluster,) if self.cluster else ()))
        return f"<Plan {self.method} (k={self.k}), margin {format_bw(self.margin)}: {parts}>"


def _part(d: Optional[Mapping[str, Any]]) -> Optional[PlanPart]:
    if d is None:
        return None
    d = dict(d)
    d["test"] = None if d["test"] < 0 else _core.test_name(d["test"])
    return PlanPart(**d)


def plan(tasks: Union[TaskSet, Iterable[Union[Params, Mapping[str, Any]]]],
         platform: Optional[Platform] = None) -> Plan:
    """Plan partitions and a cluster for the tasks (a TaskSet, or Params) on
    platform (default: this host) (dl_plan_compute(3), dl_plan_taskset(3)).

        p = libdeadline.plan(libdeadline.TaskSet.read("robot.tasks"), Platform.default(4))
        if p:
            with p.layout:
                ...
    """
    d = _core.plan(_tasks_arg(tasks), None if platform is None else platform._dict())
    lay = d["layout"]
    return Plan(feasible=d["feasible"], method=d["method_name"], k=d["k"],
                parts=tuple(_part(p) for p in d["parts"]), cluster=_part(d["cluster"]), margin=d["margin"],
                global_result=None if d["global_"] is None else _global(d["global_"]),
                unplaced=d["unplaced"], why=d["why"],
                layout=None if lay is None else Layout(lay["partitions"], lay["cluster"]),
                cap_need=tuple(d["cap_need"]), cap_min=d["cap_min"], cap_max=d["cap_max"])


@dataclasses.dataclass(frozen=True)
class PeriodicStats:
    """A periodic loop's jobs summed up (dl_periodic_stats(3)), times in ns."""

    jobs: int
    misses: int
    skipped: int
    overruns: int
    reanchors: int
    reanchor_ns: int
    response_min: int
    response_p50: int
    response_p90: int
    response_p99: int
    response_max: int
    tardiness_max: int

    def __repr__(self) -> str:
        return (f"<PeriodicStats {self.jobs} jobs, {self.misses} missed, response min "
                f"{format_time(self.response_min)} p50 {format_time(self.response_p50)} p99 "
                f"{format_time(self.response_p99)} max {format_time(self.response_max)}>")


class Periodic:
    """The periodic loop (dl_periodic_start(3)): iterating it yields each
    Job as it is released; the body of the for loop is the job's work.  A
    Job's record (release, end, response, met...) is filled in when the loop
    moves on.  The wait for the next release releases the GIL.  Made by
    periodic(); closing it (or leaving its with block) gives the loop's
    thread back the policy it had, when the loop set a reservation.

    One thread iterates a loop: next() from another while it waits raises
    RuntimeError.  close() may come from any thread; while the loop's
    thread waits in it, close() returns at once and the loop ends when
    that wait does (the thread's next() raises StopIteration, its last
    job filled in, its policy given back)."""

    def __init__(self, p: Optional[Params], mode: str, reserve: bool, first_release: int, jobs: int) -> None:
        if mode not in ("sleep", "yield"):
            raise ValueError(f"mode {mode!r} is not a periodic mode: give 'sleep' (an absolute grid) "
                             f"or 'yield' (the kernel's replenishments)")
        if not reserve and p is None:
            raise TypeError("a loop without a reservation still needs runtime= and period=")
        flags = (1 if mode == "sleep" else 0) | (0 if reserve else 0x100)
        self.params = p
        self._restore = Reservation(p) if reserve and p is not None else None
        self._saved = False
        self._giving_back = threading.Lock()
        self._loop = _core.Periodic(None if p is None else p._tuple(), flags, first_release, jobs)

    def __iter__(self) -> "Periodic":
        return self

    def __next__(self) -> Job:
        if self._restore is not None and not self._saved:
            # What the thread had, for close(); the loop sets the reservation itself.
            self._restore._save()
            self._saved = True
        try:
            return next(self._loop)
        except StopIteration:
            if self._loop.closed:
                # Closed by another thread while this one waited in the loop.
                self._give_back()
            raise

    @property
    def last(self) -> Optional[Job]:
        """The last job ended, or None."""
        return self._loop.last

    def stats(self) -> Optional[PeriodicStats]:
        """The jobs so far summed up; None before the loop starts or after close()."""
        d = self._loop.stats()
        return None if d is None else PeriodicStats(**d)

    def close(self) -> None:
        """End the loop and give its thread back its previous policy: now, or,
        when that thread waits in the loop, when the wait ends."""
        if self._loop.close():
            self._give_back()

    def _give_back(self) -> None:
        with self._giving_back:
            saved, self._saved = self._saved, False
        if saved:
            self._restore._restore()

    def __enter__(self) -> "Periodic":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass


def periodic(params: Optional[Params] = None, *, runtime: Optional[Time] = None, deadline: Optional[Time] = None,
             period: Optional[Time] = None, flags: int = 0, mode: str = "sleep", reserve: bool = True,
             first_release: int = 0, jobs: int = 0, reset_on_fork: bool = True) -> Periodic:
    """A periodic loop of the calling thread (dl_periodic_start(3)):

        for job in libdeadline.periodic(runtime="2ms", period="10ms", jobs=1000):
            control_step()

    With a reservation given, the loop puts the thread under it (and gives
    back its previous policy when closed); without one, it adopts the
    reservation the thread has (set by dl-run or reserve()).
    reserve=False measures the same releases without a reservation (no
    privilege needed).  mode "sleep" releases on an absolute grid, "yield"
    follows the kernel's replenishments.  jobs=N stops after N jobs (0:
    never), for good: a further next() waits for no period.  The
    reservation the loop sets carries FLAG_RESET_ON_FORK, as reserve()'s
    does, unless reset_on_fork=False."""
    p = None
    if params is not None or runtime is not None:
        p = globals()["params"](params, runtime=runtime, deadline=deadline, period=period, flags=flags)
        p = _reset_on_fork(p, reset_on_fork and reserve)
    return Periodic(p, mode, reserve, first_release, jobs)
