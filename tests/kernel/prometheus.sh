#!/bin/bash
# dl-stat's metrics as Prometheus reads them: promtool check metrics
# (Debian's prometheus package) accepts dl-stat --prometheus with deadline
# threads of this suite running, one of them named with a quote, a
# backslash and a byte that is not ASCII, and a dl-load task that misses
# every deadline publishing its counters (so that the jobs, misses and
# response histogram families are among them), and a pod's container
# recorded as running without the reservation it asks for (libdl-nri's
# record), once and with --watch --output; promtool check rules accepts the example alerting rules.
# node_exporter serving the file and a Prometheus server's query of it are
# tests/vm/systemd.vm's, with the package's service.
#
# promtool comes from tests/vm/fetch.sh prometheus, unpacked, never
# installed.  Root (deadline threads), under the kernel suites' lock.  TAP.
set -u
build=${top_builddir:-.}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../vm/cache-dir.sh"
promtool=$cache/prometheus/promtool
dl_stat=$build/utils/dl-stat
dl_run=$build/utils/dl-run
dl_load=$build/utils/dl-load
src=${top_srcdir:-$here/../..}

skip() {
	echo "1..0 # SKIP $*"
	exit 0
}
[ "$(id -u)" = 0 ] || skip "deadline threads need root"
# At once when they are there, else after their fetch (make check starts
# it); on CI, a fetch that fails is a failure, not a skip.
why=$(LIBDL_VM_CACHE=$cache "$here/../vm/fetch.sh" prometheus)
case $? in
0) ;;
77) skip "$why" ;;
*) printf '1..1\nnot ok 1 - %s\n' "${why:-tests/vm/fetch.sh prometheus failed}"; exit 0 ;;
esac
for tool in flock; do
	command -v "$tool" >/dev/null 2>&1 || skip "no $tool (bootstrap.sh installs it)"
done

. "$here/shell-suite.sh" prom

echo "1..3"

# Our own deadline threads: a plain one, one with an awkward name.
weird=$tmp/$'we"ird\\name\xff'
cp /bin/sleep "$weird"
"$dl_run" -r 2ms -d 5ms -p 10ms -- /bin/sleep 60 &
pids+=($!)
"$dl_run" -R -r 1ms -p 100ms -- "$weird" 60 &
pids+=($!)
# A process of ours as a pod's container that asks for a reservation and
# holds none, recorded as libdl-nri records one (libdl-oci-hook unreserved).
had_unreserved=no
[ -e /run/libdl/containers.unreserved ] && had_unreserved=yes
/bin/sleep 60 &
pids+=($!)
printf '{"ociVersion":"1.0.2","id":"c0","status":"running","pid":%d,"bundle":"","annotations":{"io.kubernetes.pod.namespace":"rt","io.kubernetes.pod.name":"loop","io.kubernetes.container.name":"app","runtime.deadline.libdl.io/app":"2ms","period.deadline.libdl.io/app":"10ms"}}' \
	"$!" | "$build/utils/libdl-oci-hook" unreserved 2>"$tmp/hook.err"
# 3ms of work on a 2ms runtime: throttled, every job ends after its
# deadline, 100 jobs a second, published.
echo "late 2ms 10ms 10ms work=3ms" >"$tmp/late.ts"
"$dl_load" -t 60s "$tmp/late.ts" >"$tmp/load.out" 2>&1 &
pids+=($!)
for _ in $(seq 50); do
	"$dl_stat" --prometheus >"$tmp/probe" 2>/dev/null
	[ "$(grep -c '^libdl_task_runtime_seconds{' "$tmp/probe")" -ge 3 ] &&
		grep -q '^libdl_task_deadline_misses_total{command="late"' "$tmp/probe" && break
	sleep 0.1
done

if "$dl_stat" --prometheus >"$tmp/once.prom" 2>"$tmp/err" &&
	grep -q 'command="we\\"ird\\\\\\\\name\\\\xff"' "$tmp/once.prom" &&
	grep -q '^libdl_task_response_seconds_bucket{command="late",.*le="+Inf"}' "$tmp/once.prom" &&
	grep -q '^libdl_container_unreserved_info{namespace="rt",pod="loop",container="app"} 1$' "$tmp/once.prom" &&
	"$promtool" check metrics <"$tmp/once.prom" >"$tmp/lint" 2>&1; then
	ok "promtool check metrics accepts dl-stat --prometheus, an escaped name, a published response histogram and an unreserved container"
else
	notok "promtool check metrics accepts dl-stat --prometheus, an escaped name, a published response histogram and an unreserved container" \
		"$tmp/err" "$tmp/lint" "$tmp/once.prom" "$tmp/load.out" "$tmp/hook.err"
fi
if "$promtool" check rules "$src/data/examples/libdl-alerts.yml" >"$tmp/rules" 2>&1; then
	ok "promtool check rules accepts the example alerting rules"
else
	notok "promtool check rules accepts the example alerting rules" "$tmp/rules"
fi

out=$tmp/textfile/libdl.prom
mkdir -p "$tmp/textfile"
if "$dl_stat" --prometheus --pid-labels --watch 0.2 -n 3 --output "$out" >"$tmp/stdout" 2>"$tmp/err" &&
	[ ! -s "$tmp/stdout" ] && grep -q '^libdl_task_out_of_budget_refreshes_total{' "$out" &&
	"$promtool" check metrics <"$out" >"$tmp/lint" 2>&1; then
	ok "dl-stat --watch --output: the file holds the last refresh, --watch figures and pid labels, and promtool accepts it"
else
	notok "dl-stat --watch --output: the file holds the last refresh, --watch figures and pid labels, and promtool accepts it" \
		"$tmp/err" "$tmp/stdout" "$tmp/lint" "$out"
fi

# The records' file as found: made here, removed here.
[ "$had_unreserved" = yes ] || rm -f /run/libdl/containers.unreserved
exit 0
