#!/bin/bash
# dl-stat's metrics as Prometheus reads them: promtool check metrics
# (Debian's prometheus package) accepts dl-stat --prometheus with deadline
# threads of this suite running, one of them named with a quote, a
# backslash and a byte that is not ASCII, once and with --watch; and
# Debian's prometheus-node-exporter, its textfile collector alone, serves
# the file dl-stat --output writes on a loopback address in a network
# namespace of this suite's own, where curl reads every libdl sample back
# over HTTP with its labels and value.  A dl-load task that misses every
# deadline publishes its counters meanwhile, so that the jobs, misses and
# response histogram families are among them; a Prometheus server of the
# suite's own scrapes node_exporter in the namespace and answers
# rate(libdl_task_deadline_misses_total[1m]) with the value its own
# samples of the counter give by Prometheus's rule; promtool check rules
# accepts the example alerting rules.
#
# The programs come from tests/vm/fetch.sh prometheus, unpacked, never
# installed.  Root (deadline threads, network
# namespaces), under the kernel suites' lock.  TAP.
set -u
build=${top_builddir:-.}
here=$(cd "$(dirname "$0")" && pwd)
cache=${LIBDL_VM_CACHE:-$here/../vm/cache}
promtool=$cache/prometheus/promtool
exporter=$cache/prometheus/prometheus-node-exporter
server=$cache/prometheus/prometheus
dl_stat=$build/utils/dl-stat
dl_run=$build/utils/dl-run
dl_load=$build/utils/dl-load
src=${top_srcdir:-$here/../..}

skip() {
	echo "1..0 # SKIP $*"
	exit 0
}
[ "$(id -u)" = 0 ] || skip "deadline threads and network namespaces need root"
# At once when they are there, else after their fetch (make check starts
# it); on CI, a fetch that fails is a failure, not a skip.
why=$(LIBDL_VM_CACHE=$cache "$here/../vm/fetch.sh" prometheus)
case $? in
0) ;;
77) skip "$why" ;;
*) printf '1..1\nnot ok 1 - %s\n' "${why:-tests/vm/fetch.sh prometheus failed}"; exit 0 ;;
esac
for tool in ip curl flock jq; do
	command -v "$tool" >/dev/null 2>&1 || skip "no $tool (bootstrap.sh installs it)"
done

# One kernel suite at a time (tests/lib/testlib.c holds the same lock).
exec 9>>/run/lock/libdl-kernel-tests.lock && flock 9

tmp=$(mktemp -d /tmp/libdl-prom.XXXXXX) || exit 1
ns=libdl-prom-$$
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	ip netns delete "$ns" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' HUP INT TERM

n=0
ok() {
	n=$((n + 1))
	echo "ok $n - $*"
}
notok() {
	n=$((n + 1))
	echo "not ok $n - $1"
	shift
	for f in "$@"; do sed 's/^/# /' "$f"; done
}
echo "1..7"

# Our own deadline threads: a plain one, one with an awkward name.
weird=$tmp/$'we"ird\\name\xff'
cp /bin/sleep "$weird"
"$dl_run" -r 2ms -d 5ms -p 10ms -- /bin/sleep 60 &
pids+=($!)
"$dl_run" -R -r 1ms -p 100ms -- "$weird" 60 &
pids+=($!)
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
	"$promtool" check metrics <"$tmp/once.prom" >"$tmp/lint" 2>&1; then
	ok "promtool check metrics accepts dl-stat --prometheus, an escaped name and a published response histogram among the tasks"
else
	notok "promtool check metrics accepts dl-stat --prometheus, an escaped name and a published response histogram among the tasks" \
		"$tmp/err" "$tmp/lint" "$tmp/once.prom" "$tmp/load.out"
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

# node_exporter in a network namespace of ours, on its loopback only.
port=9100
if ip netns add "$ns" && ip -n "$ns" link set lo up; then
	ok "a network namespace of our own ($ns) with its loopback up"
else
	notok "a network namespace of our own ($ns) with its loopback up"
fi
ip netns exec "$ns" "$exporter" --web.listen-address="127.0.0.1:$port" --collector.disable-defaults \
	--collector.textfile --collector.textfile.directory="$tmp/textfile" >"$tmp/exporter.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do
	ip netns exec "$ns" curl -sf "http://127.0.0.1:$port/metrics" -o "$tmp/scraped" 2>/dev/null && break
	sleep 0.1
done

# Every libdl sample of the file, and only those, as the exporter serves
# them: the same labels (in any order) and the same number.
normalize() {
	grep '^libdl_' "$1" | awk '{
		line = $0
		name = line; sub(/[{ ].*/, "", name)
		value = line; sub(/.* /, "", value)
		n = 0
		if (index(line, "{")) {
			rest = substr(line, index(line, "{") + 1)
			# key="value" pairs; a value ends at a quote no backslash escapes
			while (substr(rest, 1, 1) != "}") {
				eq = index(rest, "=")
				key = substr(rest, 1, eq - 1)
				rest = substr(rest, eq + 2)
				val = ""
				while (substr(rest, 1, 1) != "\"") {
					c = substr(rest, 1, 1)
					if (c == "\\") { val = val substr(rest, 1, 2); rest = substr(rest, 3) }
					else { val = val c; rest = substr(rest, 2) }
				}
				l[++n] = key "=\"" val "\""
				rest = substr(rest, 2)
				if (substr(rest, 1, 1) == ",") rest = substr(rest, 2)
			}
		}
		for (i = 1; i <= n; i++) for (k = i + 1; k <= n; k++) if (l[k] < l[i]) { t = l[i]; l[i] = l[k]; l[k] = t }
		s = ""
		for (i = 1; i <= n; i++) s = s (i > 1 ? "," : "") l[i]
		printf "%s{%s} %.17g\n", name, s, value
	}' | sort
}
normalize "$out" >"$tmp/want"
normalize "$tmp/scraped" >"$tmp/got"
if [ -s "$tmp/want" ] && grep -q '^libdl_root_domain_free_ratio' "$tmp/got" && diff "$tmp/want" "$tmp/got" >"$tmp/diff"; then
	ok "node_exporter's textfile collector serves all $(wc -l <"$tmp/want") libdl samples over HTTP on 127.0.0.1 in $ns, as written"
else
	notok "node_exporter's textfile collector serves every libdl sample over HTTP on 127.0.0.1 in $ns, as written" \
		"$tmp/diff" "$tmp/exporter.log"
fi
if grep -q '^node_textfile_scrape_error 0' "$tmp/scraped"; then
	ok "node_exporter read the file without an error (node_textfile_scrape_error 0)"
else
	notok "node_exporter read the file without an error (node_textfile_scrape_error 0)" "$tmp/scraped" "$tmp/exporter.log"
fi

# A Prometheus server in the namespace scrapes node_exporter every second
# while dl-stat rewrites the file twice a second.  The rate it answers is
# checked against its own samples of the counter by Prometheus's rule
# (promql's extrapolatedRate, 2.x): the increase over the samples,
# extrapolated to the window's edges when the samples reach within 1.1
# average intervals of them (else by half an interval), never to below
# zero, divided by the window.  A minute of samples would take a minute;
# this takes a few seconds and checks the same arithmetic.
"$dl_stat" --prometheus --watch 0.5 --output "$out" 2>"$tmp/watch.err" &
pids+=($!)
cat >"$tmp/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: node
    static_configs:
      - targets: ['127.0.0.1:$port']
EOF
ip netns exec "$ns" "$server" --config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/tsdb" \
	--web.listen-address=127.0.0.1:9090 >"$tmp/server.log" 2>&1 &
pids+=($!)
query() {
	ip netns exec "$ns" curl -sf "http://127.0.0.1:9090/api/v1/query" \
		--data-urlencode "query=$1" --data-urlencode "time=$2"
}
sel='libdl_task_deadline_misses_total{command="late"}'
t=0
for _ in $(seq 200); do
	t=$(date +%s.%3N)
	[ "$(query "$sel[1m]" "$t" | jq '.data.result[0].values // [] | length' 2>/dev/null)" -ge 6 ] 2>/dev/null && break
	sleep 0.1
done
query "$sel[1m]" "$t" >"$tmp/samples.json" 2>/dev/null
query "rate($sel[1m])" "$t" >"$tmp/rate.json" 2>/dev/null
want=$(jq --argjson T "$t" '
	.data.result[0].values as $v | ($v | length) as $n | ($v | map(.[1] | tonumber)) as $x |
	($v[0][0]) as $t0 | ($v[$n - 1][0]) as $t1 |
	(reduce range(1; $n) as $i ({r: ($x[$n - 1] - $x[0]), p: $x[0]};
		(if $x[$i] < .p then .r += .p else . end) | .p = $x[$i])).r as $inc |
	($t1 - $t0) as $sampled | ($sampled / ($n - 1)) as $avg | ($avg * 1.1) as $near |
	($t0 - ($T - 60)) as $to_start0 | ($T - $t1) as $to_end |
	(if $inc > 0 and $x[0] >= 0 and $sampled * ($x[0] / $inc) < $to_start0
	 then $sampled * ($x[0] / $inc) else $to_start0 end) as $to_start |
	$inc * (($sampled + (if $to_start < $near then $to_start else $avg / 2 end)
	                   + (if $to_end < $near then $to_end else $avg / 2 end)) / $sampled) / 60' "$tmp/samples.json" 2>/dev/null)
got=$(jq -r '.data.result[0].value[1]' "$tmp/rate.json" 2>/dev/null)
if [ -n "$want" ] && [ "$want" != null ] && [ -n "$got" ] && [ "$got" != null ] &&
	jq -ne --argjson w "$want" --argjson g "$got" '$g > 0 and (($g - $w) | fabs) <= 1e-6 * $w' >/dev/null; then
	ok "Prometheus scraped node_exporter in $ns and answers rate($sel[1m]) = $got, as its $(jq '.data.result[0].values | length' "$tmp/samples.json") samples give"
else
	notok "Prometheus scraped node_exporter in $ns and answers rate($sel[1m]) as its samples give (got ${got:-nothing}, want ${want:-nothing})" \
		"$tmp/samples.json" "$tmp/rate.json" "$tmp/server.log" "$tmp/watch.err"
fi
exit 0
