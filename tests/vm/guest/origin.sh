# origin.sh: destroy puts a task that dl-run --partition placed back in
# the cgroup it came from, or, when that was removed meanwhile (a user's
# own, empty once the task left it), in the nearest parent that still
# exists: never in the root, where no limit of its owner's would hold it.
# The layout is partition 0 and cluster 1.  On v1 the layout's exclusive
# parent cpuset takes those CPUs, and the task's own cpusets need one
# outside it: ORIGIN_CPU (origin-v1.vm boots three).  Sourced after
# lib.sh, with no layout and nothing of its own left; ends without
# done_testing.

# The task's cgroup as destroy records it: on v2 its own, on v1 its cpuset.
cg_of() {
	if [ "$V2" = 1 ]; then sed -n 's/^0:://p' "/proc/$1/cgroup"; else cat "/proc/$1/cpuset"; fi
}

# mkcg NAME: a cgroup for the task (v1: a cpuset of ORIGIN_CPU).
mkcg() {
	mkdir "$CS/$1"
	if [ "$V2" = 0 ]; then
		echo "$ORIGIN_CPU" > "$CS/$1/cpuset.cpus"
		cat "$CS/cpuset.mems" > "$CS/$1/cpuset.mems"
	fi
}

[ "$V2" = 1 ] && P0=/libdl-partition0 || P0=/libdl/partition0

# place_from CGROUP: a busy task (a sleeping one would move only when it
# wakes) started in CGROUP, a layout made and the task placed in its
# partition with dl-run --pid; $s is its pid.
place_from() {
	yes > /dev/null &
	s=$!
	echo $s > "$CS/$1/cgroup.procs"
	run /bin/dl-part create --partition 0 --cluster 1
	check "create with a task in /$1" eq "$rc" 0
	[ "$rc" = 0 ] || note "$err"
	run /bin/dl-run --partition partition0 -r 1ms -p 100ms --pid $s
	[ "$rc" = 0 ] || note "dl-run: $err"
	check "dl-run --partition --pid moves it in from /$1" eq "$(cg_of $s)" "$P0"
}

# Destroy puts a task placed in a partition back in the cgroup it came
# from, not in the root (it would leave its service for good).
mkcg origin
place_from origin
run /bin/dl-part destroy
check "destroy succeeds" eq "$rc" 0
check "destroy puts it back in its own cgroup" eq "$(cg_of $s)" /origin
kill $s
wait $s 2>/dev/null
# Its cgroup removed meanwhile: the nearest one that still exists.
mkcg origin/inner
place_from origin/inner
rmdir "$CS/origin/inner"
run /bin/dl-part destroy
check "destroy succeeds with the task's cgroup gone" eq "$rc" 0
check "destroy puts it in the nearest cgroup that exists" eq "$(cg_of $s)" /origin
kill $s
wait $s 2>/dev/null
rmdir "$CS/origin"
