# Type stub of the libdeadline package (python/libdeadline/__init__.py and
# its C half, libdeadline._core): every public name and signature, for
# editors and mypy.  tests/python/test_unit.py checks it against the package.
import os
from typing import Any, Iterable, Iterator, Mapping, Optional, Sequence, Tuple, Union

Time = Union[int, str]
_Partitions = Union[Mapping[str, Union[str, Iterable[int]]], Iterable[Tuple[str, Union[str, Iterable[int]]]]]
_Tasks = Iterable[Union["Params", Mapping[str, Any]]]

FLAG_RESET_ON_FORK: int
FLAG_RECLAIM: int
FLAG_DL_OVERRUN: int
FLAG_UTIL_CLAMP_MIN: int
FLAG_UTIL_CLAMP_MAX: int
UTIL_MAX: int
BW_UNIT: int
CLUSTER: str
SCHEDULABLE: int
NOT_GUARANTEED: int
INFEASIBLE: int
UNSCHEDULABLE: int

class DeadlineError(OSError): ...
class AdmissionError(DeadlineError): ...
class PolicyError(DeadlineError, PermissionError): ...

class Job:
    @property
    def number(self) -> int: ...
    @property
    def ended(self) -> bool: ...
    @property
    def index(self) -> Optional[int]: ...
    @property
    def release(self) -> Optional[int]: ...
    @property
    def deadline(self) -> Optional[int]: ...
    @property
    def start(self) -> Optional[int]: ...
    @property
    def end(self) -> Optional[int]: ...
    @property
    def response(self) -> Optional[int]: ...
    @property
    def tardiness(self) -> Optional[int]: ...
    @property
    def skipped(self) -> Optional[int]: ...
    @property
    def reanchor(self) -> Optional[int]: ...
    @property
    def cpu(self) -> Optional[int]: ...
    @property
    def overruns(self) -> Optional[int]: ...
    @property
    def met(self) -> Optional[bool]: ...

def ns(value: Time) -> int: ...
def format_time(value: int) -> str: ...
def format_bw(bw: int) -> str: ...
def online_cpus() -> frozenset[int]: ...
def period_limits() -> Tuple[int, int]: ...
def have_cap_sys_nice() -> bool: ...

class Params:
    runtime: int
    deadline: int
    period: int
    flags: int
    util_min: int
    util_max: int
    def __init__(self, runtime: Time, deadline: Optional[Time] = ..., period: Optional[Time] = ...,
                 flags: int = ..., util_min: Optional[int] = ..., util_max: Optional[int] = ...) -> None: ...
    @property
    def bw(self) -> int: ...
    @property
    def utilization(self) -> float: ...
    def __hash__(self) -> int: ...

def params(params: Optional[Params] = ..., *, runtime: Optional[Time] = ..., deadline: Optional[Time] = ...,
           period: Optional[Time] = ..., flags: int = ..., util_min: Optional[int] = ...,
           util_max: Optional[int] = ...) -> Params: ...

class ThreadStatus:
    tid: int
    errno: int
    def __init__(self, tid: int, errno: int) -> None: ...

def set(params: Optional[Params] = ..., *, runtime: Optional[Time] = ..., deadline: Optional[Time] = ...,
        period: Optional[Time] = ..., flags: int = ..., util_min: Optional[int] = ...,
        util_max: Optional[int] = ..., tid: int = ..., all_threads: bool = ..., partial: bool = ...,
        owned: bool = ...) -> Optional[Tuple[ThreadStatus, ...]]: ...
def get(tid: int = ...) -> Optional[Params]: ...
class Budget:
    runtime: int
    deadline: int
    def __init__(self, runtime: int, deadline: int) -> None: ...

def budget(tid: int = ...) -> Budget: ...
def clear(tid: int = ...) -> None: ...

class Reservation:
    params: Params
    previous: Optional[Params]
    def __init__(self, params: Params) -> None: ...
    def __enter__(self) -> Reservation: ...
    def __exit__(self, *exc: Any) -> None: ...

def reserve(params: Optional[Params] = ..., *, runtime: Optional[Time] = ..., deadline: Optional[Time] = ...,
            period: Optional[Time] = ..., flags: int = ..., util_min: Optional[int] = ...,
            util_max: Optional[int] = ..., reset_on_fork: bool = ...) -> Reservation: ...

class RootDomain:
    cpus: frozenset[int]
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

class Verdict:
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
    def __bool__(self) -> bool: ...

def check(params: Optional[Params] = ..., *, runtime: Optional[Time] = ..., deadline: Optional[Time] = ...,
          period: Optional[Time] = ..., flags: int = ..., util_min: Optional[int] = ...,
          util_max: Optional[int] = ..., pid: int = ..., all_threads: bool = ...,
          partition: Optional[str] = ..., new_task: bool = ...) -> Verdict: ...
def explain(err: int, params: Optional[Params] = ..., *, tid: int = ..., **kw: Any) -> str: ...

class Task:
    pid: int
    tid: int
    comm: str
    params: Params
    bw: int
    cpu: int
    rd: int
    rd_cpus: frozenset[int]
    cpuset: str
    exec_ns: int
    when_ns: int

class Snapshot:
    tasks: Tuple[Task, ...]
    root_domains: Tuple[RootDomain, ...]
    def __iter__(self) -> Iterator[Task]: ...
    def __len__(self) -> int: ...

def snapshot(pid: int = ...) -> Snapshot: ...
def root_domains() -> Tuple[RootDomain, ...]: ...
def root_domain_of(cpu: int) -> RootDomain: ...

class Drift:
    cpus: frozenset[int]
    kernel_bw: int
    expected_bw: int

def drift_check(settle_ms: int = ...) -> Tuple[Drift, ...]: ...
def rebuild_root_domains() -> None: ...
def mount_debugfs() -> None: ...

class LayoutResult:
    moved: int
    skipped: int
    gone: int
    steps: int
    repaired: bool
    absent: int
    left: int

class Layout:
    partitions: Tuple[Tuple[str, frozenset[int]], ...]
    cluster: Optional[frozenset[int]]
    mems: Optional[str]
    isolated: bool
    no_move: bool
    leave_busy: bool
    version: Optional[int]
    def __init__(self, partitions: _Partitions, cluster: Optional[Union[str, Iterable[int]]] = ...,
                 mems: Optional[str] = ..., isolated: bool = ..., no_move: bool = ..., leave_busy: bool = ...,
                 version: Optional[int] = ...) -> None: ...
    def create(self) -> LayoutResult: ...
    def destroy(self) -> LayoutResult: ...
    def __enter__(self) -> Layout: ...
    def __exit__(self, *exc: Any) -> None: ...

def create_layout(partitions: _Partitions, cluster: Optional[Union[str, Iterable[int]]] = ...,
                  mems: Optional[str] = ..., isolated: bool = ..., no_move: bool = ...) -> Layout: ...
def destroy_layout(leave_busy: bool = ...) -> LayoutResult: ...
def current_layout() -> Optional[Layout]: ...

class Member:
    name: str
    cgroup: str
    cpus: frozenset[int]
    partition: bool
    state: str
    nthreads: int
    ndeadline: int
    root_domain: RootDomain

def layout_status() -> Tuple[Member, ...]: ...
def attach(name: str, tid: int = ..., process: bool = ...) -> None: ...
def place(name: str, params: Optional[Params] = ..., *, runtime: Optional[Time] = ...,
          deadline: Optional[Time] = ..., period: Optional[Time] = ..., flags: int = ...,
          util_min: Optional[int] = ..., util_max: Optional[int] = ..., tid: int = ...,
          all_threads: bool = ..., partial: bool = ...) -> Optional[Tuple[ThreadStatus, ...]]: ...
def occupants(name: str) -> Tuple[int, str]: ...

class TaskSpec:
    name: str
    params: Params
    work: int
    offset: int
    place: Optional[str]
    argv: Optional[Tuple[str, ...]]
    line: int
    spin: int

class TaskSet:
    def __init__(self, tasks: Iterable[Tuple[str, Params]] = ...) -> None: ...
    @classmethod
    def read(cls, path: Union[str, os.PathLike[str]]) -> TaskSet: ...
    @classmethod
    def parse(cls, text: str, origin: Optional[str] = ...) -> TaskSet: ...
    def add(self, name: str, params: Optional[Params] = ..., **kw: Any) -> None: ...
    def set_place(self, i: int, place: Optional[str]) -> None: ...
    @property
    def duration(self) -> int: ...
    def __len__(self) -> int: ...
    def __getitem__(self, i: int) -> TaskSpec: ...
    def __iter__(self) -> Iterator[TaskSpec]: ...

def read_taskset(path: Union[str, os.PathLike[str]]) -> TaskSet: ...
def parse_taskset(text: str, origin: Optional[str] = ...) -> TaskSet: ...

class Platform:
    ncpus: int
    cpus: frozenset[int]
    cpu_bw: int
    unlimited: bool
    server: Optional[Params]
    period_min: int
    period_max: int
    capacity: Optional[Tuple[int, ...]]
    def __init__(self, ncpus: int, cpus: frozenset[int], cpu_bw: int, unlimited: bool = ...,
                 server: Optional[Params] = ..., period_min: int = ..., period_max: int = ...,
                 capacity: Optional[Tuple[int, ...]] = ...) -> None: ...
    @classmethod
    def host(cls, ncpus: int = ...) -> Platform: ...
    @classmethod
    def default(cls, ncpus: int) -> Platform: ...

def platform(ncpus: int = ...) -> Platform: ...

class EdfResult:
    verdict: int
    util: int
    bound: int
    fail_t: int
    fail_demand: int
    limiting: Optional[int]
    scaling: int
    steps: int
    def __bool__(self) -> bool: ...

class GlobalResult:
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
    def __bool__(self) -> bool: ...

class PlanPart:
    name: str
    cpus: frozenset[int]
    ncpus: int
    tasks: Tuple[int, ...]
    load: int
    free_bw: int
    test: Optional[str]
    scaling: int
    cap_min: int
    cap_max: int

class Plan:
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
    cap_need: Tuple[int, ...]
    cap_min: int
    cap_max: int
    def __bool__(self) -> bool: ...

def edf_test(tasks: _Tasks, server: Optional[Params] = ...) -> EdfResult: ...
def global_test(tasks: Union[TaskSet, _Tasks], ncpus: Optional[int] = ..., server: Optional[Params] = ...,
                platform: Optional[Platform] = ...) -> GlobalResult: ...
def plan(tasks: Union[TaskSet, _Tasks], platform: Optional[Platform] = ...) -> Plan: ...

class ExactResult:
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
    def __bool__(self) -> bool: ...

def exact_test(tasks: Union[TaskSet, _Tasks], ncpus: int, server: Optional[Params] = ..., *, max_states: int = ...,
               max_seconds: float = ..., ties: str = ...) -> ExactResult: ...

class PeriodicStats:
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

class Periodic:
    params: Optional[Params]
    def __iter__(self) -> Periodic: ...
    def __next__(self) -> Job: ...
    @property
    def last(self) -> Optional[Job]: ...
    def stats(self) -> Optional[PeriodicStats]: ...
    def close(self) -> None: ...
    def __enter__(self) -> Periodic: ...
    def __exit__(self, *exc: Any) -> None: ...

def periodic(params: Optional[Params] = ..., *, runtime: Optional[Time] = ..., deadline: Optional[Time] = ...,
             period: Optional[Time] = ..., flags: int = ..., mode: str = ..., reserve: bool = ...,
             first_release: int = ..., jobs: int = ..., reset_on_fork: bool = ...) -> Periodic: ...
