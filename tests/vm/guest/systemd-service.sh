# systemd-service.sh: a deadline service as dl-run(1), SYSTEMD SERVICES,
# shows it: the package's data/examples/control-loop.service (copied to
# /etc/systemd/system/ by the suite) in partition rt of the layout
# dl-part.service makes (tests/vm/boot/dl-part.conf: CPU 0), its program
# replaced by a drop-in with tests/kernel/dl-spin --notify (READY=1 from
# its own pid) under 500 ms every 1 s.  Started (Type=notify), crashed
# (SIGSEGV) and restarted, stopped; a second copy that does not fit
# refused (dl-run's status 125), failed and not restarted; a third whose
# program exits 1 by itself restarted; where jq is (Debian 12's boot),
# the Kubernetes node agent's figure on that layout
# (data/examples/libdl-node-capacity.sh).  Each read from the kernel
# (/proc/PID/sched, dl-stat's sched_getattr, total_bw) and from systemd
# (systemctl show, status, journalctl).  Sourced after lib.sh with
# dl-part.service stopped and no layout; leaves them so, and no unit of
# its own; ends without done_testing.

svc=control-loop.service
two=control-loop2.service
three=control-loop3.service
bw=524288 # 500 ms / 1 s, the kernel's units
for u in $svc $two; do
	mkdir -p /run/systemd/system/$u.d
	cat >/run/systemd/system/$u.d/test.conf <<EOT
[Service]
ExecStart=
ExecStart=/usr/bin/dl-run --partition rt -r 500ms -p 1s -- /usr/bin/dl-spin --notify
EOT
done
cp /etc/systemd/system/$svc /run/systemd/system/$two
systemctl daemon-reload
journal() { journalctl -b -u "$1" --no-pager | tail -n 15 | sed 's/^/# /'; }

# counted TASKS: CPU 0's root domain counts TASKS (and its fair server),
# once a dead task's bandwidth is back (up to 5 s).
counted() {
	i=0
	while [ $i -lt 50 ] && ! counts 0 "$1" >/dev/null; do
		sleep 0.1
		i=$((i + 1))
	done
	counts 0 "$1"
}
# params PID: the reservation dl-stat reads with sched_getattr.
params() { /bin/dl-stat --tasks | awk -v p="$1" '$1 == p && $2 == p { print $4, $5, $6 }'; }

# Type=notify: systemctl start returns once the program said READY=1.
run systemctl start $svc
check "$svc: systemctl start returns 0 (Requires= started dl-part.service)" eq "$rc" 0
[ "$rc" = 0 ] || journal $svc
check "active at once: Type=notify took READY=1" eq "$(prop $svc ActiveState)" active
pid=$(prop $svc MainPID)
check "MainPID is the program: dl-run became it (exec)" eq "$(cat /proc/$pid/comm 2>&1)" dl-spin
check "its STATUS= came from MainPID (NotifyAccess=main): SCHED_DEADLINE" eq "$(prop $svc StatusText)" "policy 6"
check "the kernel: SCHED_DEADLINE (/proc/PID/sched)" eq "$(policy $pid)" 6
check "sched_getattr: 500ms 1s 1s" eq "$(params $pid)" "500ms 1s 1s"
check "in its unit, in the partition's slice" eq "$(cut -d: -f3 /proc/$pid/cgroup)" /libdl.slice/libdl-rt.slice/$svc
check "CPU 0's root domain counts it" counted $bw

# The node agent's figure for Kubernetes (data/examples/, where the
# suite copies it with the jq it needs: Debian 12's boot): each
# member's root domain's admission limit less its fair server, in
# thousandths, from the kernel's figures.
if [ -r /usr/local/bin/libdl-node-capacity.sh ] && command -v jq >/dev/null 2>&1; then
	run sh /usr/local/bin/libdl-node-capacity.sh --print
	e0=$((($(cpu_bw 0) - $(fair_bw 0)) * 1000 / 1048576))
	e1=$((($(cpu_bw 1) - $(fair_bw 1)) * 1000 / 1048576))
	check "libdl-node-capacity.sh --print: rt (CPU 0) $e0, the cluster (CPU 1) $e1" eq "$out" \
		"[{\"op\":\"add\",\"path\":\"/status/capacity/deadline.libdl.io~1rt-bandwidth\",\"value\":\"$e0\"},{\"op\":\"add\",\"path\":\"/status/capacity/deadline.libdl.io~1cluster-bandwidth\",\"value\":\"$e1\"}]"
else
	note "no jq here: libdl-node-capacity.sh runs in Debian 12's boot (tests/vm/systemd.vm)"
fi

# A crash: restarted, and admitted again.  Two such reservations do not
# fit in CPU 0 (0.95, less its fair server): the second admission proves
# the first was given back.
kill -SEGV "$pid"
i=0
while [ $i -lt 100 ]; do
	npid=$(prop $svc MainPID)
	[ "$npid" != 0 ] && [ "$npid" != "$pid" ] && [ "$(prop $svc ActiveState)" = active ] && break
	sleep 0.2
	i=$((i + 1))
done
check "a crash (SIGSEGV): restarted, NRestarts 1" eq "$(prop $svc NRestarts)" 1
check "the journal says the crash" has "$(journalctl -b -u $svc --no-pager)" "status=11/SEGV"
check "the new program's pid is MainPID" eq "$(cat /proc/$npid/comm 2>&1)" dl-spin
check "the new one is under SCHED_DEADLINE" eq "$(policy $npid)" 6
check "sched_getattr: 500ms 1s 1s again" eq "$(params $npid)" "500ms 1s 1s"
check "CPU 0 counts one reservation: the dead one's given back" counted $bw

# A copy that does not fit: refused, the unit failed, not restarted.
run systemctl start $two
check "$two (0.5 more): systemctl start fails" test "$rc" != 0
check "failed: ActiveState" eq "$(prop $two ActiveState)" failed
check "Result exit-code" eq "$(prop $two Result)" exit-code
check "dl-run's own exit status, 125" eq "$(prop $two ExecMainStatus)" 125
sleep 1.5 # RestartSec=1s
check "not restarted (RestartPreventExitStatus=125)" eq "$(prop $two NRestarts)/$(prop $two ActiveState)" 0/failed
j=$(journalctl -b -u $two --no-pager)
check "the journal has dl-run's refusal" has "$j" "dl-run: cannot set SCHED_DEADLINE"
check "naming the admission" has "$j" "admission refused"
note "$(echo "$j" | grep -m 1 'dl-run:' | cut -c 1-300)"
run systemctl status --full --no-pager -n 10 $two
check "systemctl status shows it failed" has "$out" "failed"
check "and dl-run's message" has "$out" "dl-run: cannot set SCHED_DEADLINE"
check "the refusal left CPU 0 as it was" counts 0 $bw
[ "$(prop $two Result)" = exit-code ] || journal $two

# The program's own exit status 1 is the program's: admitted, it exits 1
# by itself and Restart=on-failure restarts it, as it would without
# dl-run (RestartPreventExitStatus= names dl-run's 125 alone).
mkdir -p /run/systemd/system/$three.d
cat >/run/systemd/system/$three.d/test.conf <<EOT
[Service]
Type=exec
ExecStart=
ExecStart=/usr/bin/dl-run --partition rt -r 10ms -p 1s -- /bin/sh -c 'exit 1'
EOT
cp /etc/systemd/system/$svc /run/systemd/system/$three
systemctl daemon-reload
systemctl start $three >/dev/null 2>&1
i=0
while [ $i -lt 100 ] && [ "$(prop $three NRestarts)" = 0 ]; do
	sleep 0.2
	i=$((i + 1))
done
j=$(journalctl -b -u $three --no-pager)
check "$three, a program that exits 1 under dl-run: restarted" test "$(prop $three NRestarts)" -ge 1
check "the journal says its own status=1" has "$j" "status=1/FAILURE"
check "and no refusal of dl-run's" test -z "$(echo "$j" | grep 'dl-run:')"
[ "$(prop $three NRestarts)" -ge 1 ] || journal $three
systemctl stop $three
systemctl reset-failed $three >/dev/null 2>&1

# systemctl stop gives the bandwidth back.
systemctl stop $svc
check "systemctl stop: inactive" eq "$(prop $svc ActiveState)" inactive
check "its program is gone" test ! -e /proc/$npid
check "CPU 0's root domain back to its fair server alone" counted 0

# Nothing of the suite's stays: its units, then the layout.
systemctl reset-failed $two >/dev/null 2>&1
rm -rf /run/systemd/system/$svc.d /run/systemd/system/$two.d /run/systemd/system/$two /run/systemd/system/$three.d \
	/run/systemd/system/$three /etc/systemd/system/$svc
systemctl daemon-reload
systemctl stop dl-part.service
check "dl-part.service's destroy succeeded" eq "$(prop dl-part.service Result)" success
check "the slices are gone" test ! -e $CS/libdl.slice
units=$(systemctl list-units --all --no-legend 'libdl.slice' 'libdl-*.slice' 'control-loop*')
check "no unit of the suite or the layout is loaded" eq "$units" ""
