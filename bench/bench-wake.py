#!/usr/bin/python3
"""bench-wake.py: the activation latency of libdl's periodic loop run from
Python (import libdeadline), beside bench-wake's C loop.

The same experiment as bench-wake.c, which says why: one SCHED_DEADLINE
thread (runtime 60% of PERIOD, deadline = period) runs
libdeadline.periodic() in MODE for SECONDS, each job doing no work but
write "job" to $TRACE_MARKER when set, while the main thread wakes every
10 ms.  A job's latency is from its release to the moment the loop
handed it to Python (Job.start), CLOCK_MONOTONIC, so what the binding
adds shows against the C loop's figures.  The loop's thread is named
bench-wake-py (its comm) for bench/trace-wake.sh.

Prints one line: mode jobs min median p99 max avg (microseconds); with a
fourth argument writes every job's release and start (ns) there.

    bench-wake.py MODE PERIOD_US SECONDS [JOBS.CSV]
"""
import os
import sys
import threading
import time

import libdeadline


def main(argv):
    if len(argv) < 4 or argv[1] not in ("sleep", "yield"):
        print("usage: bench-wake.py sleep|yield PERIOD_US SECONDS [JOBS.CSV]", file=sys.stderr)
        return 2
    mode, period = argv[1], int(argv[2]) * 1000
    jobs = int(argv[3]) * 1_000_000_000 // period
    marker = os.environ.get("TRACE_MARKER")
    mark = os.open(marker, os.O_WRONLY | os.O_CLOEXEC) if marker else -1
    seen, status = [], []

    def loop():
        with open(f"/proc/self/task/{threading.get_native_id()}/comm", "w") as f:
            f.write("bench-wake-py")
        try:
            # One job more: job 0 began with the start call itself, not a wake-up.
            for job in libdeadline.periodic(runtime=period * 60 // 100, period=period, mode=mode,
                                            jobs=jobs + 1):
                if mark >= 0:
                    os.write(mark, b"job\n")
                seen.append(job)
        except libdeadline.DeadlineError as e:
            print(f"bench-wake.py: {e.strerror}", file=sys.stderr)
            status.append(1)

    t = threading.Thread(target=loop)
    t.start()
    while t.is_alive():
        time.sleep(0.01)
    t.join()
    if status:
        return 1
    done = [j for j in seen if j.ended and j.index > 0]
    if len(argv) > 4:
        with open(argv[4], "w") as f:
            f.writelines(f"{j.release},{j.start}\n" for j in done)
    lat = sorted(j.start - j.release for j in done)
    n = len(lat)
    if not n:
        return 1
    print(f"{mode} {n} {lat[0] / 1e3:.1f} {lat[n // 2] / 1e3:.1f} {lat[(n * 99 + 99) // 100 - 1] / 1e3:.1f} "
          f"{lat[-1] / 1e3:.1f} {sum(lat) / n / 1e3:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
