# systemd-server.sh: a layout's deadline server set at boot by
# dl-part.service (tests/vm/boot/dl-part-server.conf: partition rt of
# CPU 1, its fair server off), under the release's own systemd, whose
# cgroup writes rebuild the root domains while and after the layout is
# made: on 6.12 a rebuild that keeps a root domain stops counting its
# fair servers (docs/kernel-notes.md, "The fair server"), and the
# kernel's dl_server_apply_params() takes the old setting out of a count
# that no longer holds it.  Then the same for a setting of both values
# (20 ms every 25 ms) through systemctl restart, and the servers as found
# once the layout is stopped.  Checked against the kernel's own files,
# total_bw and admission.  Sourced after lib.sh by a suite that enables
# dl-part.service with that file; ends without done_testing.
FS=/sys/kernel/debug/sched/fair_server
journal() { journalctl -b -u dl-part.service --no-pager | tail -n 15 | sed 's/^/# /'; }
fs() { echo "$(cat $FS/cpu$1/runtime)/$(cat $FS/cpu$1/period)"; }
note "at boot: dl-part.service $(systemctl is-active dl-part.service) ($(prop dl-part.service Result));" \
	"CPU 0's server $(fs 0), CPU 1's $(fs 1); total_bw CPU 0 $(total_bw 0), CPU 1 $(total_bw 1)"
journal
check "dl-part.service set the layout at boot and stays active" eq "$(systemctl is-active dl-part.service)" active
P=$CS/libdl.slice/libdl-rt.slice
check "the partition rt is a root partition of CPU 1" eq "$(cat $P/cpuset.cpus.partition 2>&1) $(cat $P/cpuset.cpus.effective 2>&1)" "root 1"
check "CPU 1's fair server is off, CPU 0's at the default" eq "$(fs 0) $(fs 1)" "50000000/1000000000 0/1000000000"
check "CPU 1's root domain counts nothing" eq "$(total_bw 1)" 0
check "CPU 0's root domain counts its server, or none (6.12's rebuilds)" counts 0 0
run /bin/dl-part status
check "dl-part status exits 0" eq "$rc" 0
[ "$rc" = 0 ] || note "$out"
# The kernel's answer: the whole per-CPU limit is admitted on CPU 1.
whole=$((($(cpu_bw 1) * 100000 + (1 << 20) - 1) >> 20))
/bin/dl-run --partition rt -r ${whole}us -p 100ms -- /bin/sleep 60 &
dpid=$!
deadline_or_gone $dpid
check "the partition admits the whole limit (${whole}us/100ms) beside its server off" eq "$(policy $dpid)" 6
check "and the kernel counts that alone on CPU 1" eq "$(total_bw 1)" "$((whole * 1048576 / 100000))"
run /bin/dl-run --partition rt -r 1ms -p 100ms -- /bin/true
check "1ms/100ms more is refused" eq "$rc" 125
kill $dpid 2>/dev/null
wait $dpid 2>/dev/null
released 1 0

# A setting of both values, made by a restart under systemd.
sed -i 's|^fair-server rt=.*|fair-server rt=20ms/25ms|' /etc/libdl/dl-part.conf
systemctl restart dl-part.service
note "after a restart at 20ms/25ms: dl-part.service $(systemctl is-active dl-part.service);" \
	"CPU 1's server $(fs 1); total_bw CPU 0 $(total_bw 0), CPU 1 $(total_bw 1)"
check "restarted at 20ms/25ms, active" eq "$(systemctl is-active dl-part.service)" active
[ "$(systemctl is-active dl-part.service)" = active ] || journal
check "CPU 1's fair server is 20ms/25ms" eq "$(fs 1)" "20000000/25000000"
check "CPU 1's root domain counts it, or none (6.12's rebuilds)" counts 1 0
run /bin/dl-part status
check "dl-part status exits 0" eq "$rc" 0
[ "$rc" = 0 ] || note "$out"
# The kernel's answer, while it counts the server (6.12's rebuilds may
# have dropped it since): 0.25 more does not fit beside 0.8 (0.95 or 1.0
# a CPU).
if [ "$(total_bw 1)" != 0 ]; then
	run /bin/dl-run --partition rt -r 25ms -p 100ms -- /bin/true
	check "0.25 more is refused in the partition, whose server holds 0.8" eq "$rc" 125
fi

# A rebuild that keeps the root domains (on 6.12 a read of
# sched_rt_runtime_us is one): there the kernel stops counting CPU 1's
# server, and refuses a write of less to it.  Destroy puts the server
# back all the same (dl-part makes the root domain again first).
cat /proc/sys/kernel/sched_rt_runtime_us >/dev/null
note "after a rebuild that keeps the root domains: total_bw CPU 0 $(total_bw 0), CPU 1 $(total_bw 1)"
if [ "$FAIR_DROPPABLE" = 1 ]; then
	check "6.12: CPU 1's root domain counts nothing now" eq "$(total_bw 1)" 0
	msg=$( (echo 10000000 >$FS/cpu1/runtime) 2>&1)
	w=$?
	note "6.12: 10000000 written to CPU 1's runtime: exit $w ($msg); it reads $(fs 1), total_bw $(total_bw 1)"
	check "6.12: the kernel refuses 10ms there, taking the old 20ms/25ms out of a count without it" \
		eq "$w $(fs 1) $(total_bw 1)" "1 20000000/25000000 0"
fi

systemctl stop dl-part.service
check "stopping dl-part.service destroys the layout" eq "$(prop dl-part.service Result)" success
[ "$(prop dl-part.service Result)" = success ] || journal
check "and puts the servers back as found" eq "$(fs 0) $(fs 1)" "50000000/1000000000 50000000/1000000000"
check "the machine's root domain counts its servers, or none (6.12's rebuilds)" counts 0 0 2
note "once stopped: total_bw CPU 0 $(total_bw 0), CPU 1 $(total_bw 1)"
