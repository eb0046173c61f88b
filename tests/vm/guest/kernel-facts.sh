# kernel-facts.sh: what the booted kernel has that the suites' figures
# depend on, as TAP comments, for the record of docs/kernel-notes.md
# ("Where these were seen"): its build (PREEMPT_RT or not), each CPU's
# deadline servers (sched/fair_server and, where the kernel has one,
# sched/ext_server: runtime/period, or why they cannot be read), and each
# root domain's admission limit per CPU and count (dl_bw->bw and
# total_bw in sched/debug).  The sysctls sched_rt_{runtime,period}_us
# are not read: on 6.12 and 6.18 a read rebuilds the root domains.
# Sourced after lib.sh; prints no test result.
note "kernel: $(uname -r) $(uname -v)"
for kf_s in fair_server ext_server; do
	if ! [ -d /sys/kernel/debug/sched/$kf_s ]; then
		note "$kf_s: none (no /sys/kernel/debug/sched/$kf_s)"
		continue
	fi
	for kf_d in /sys/kernel/debug/sched/$kf_s/cpu*; do
		kf_r=$(cat "$kf_d/runtime" 2>&1)
		kf_p=$(cat "$kf_d/period" 2>&1)
		note "$kf_s ${kf_d##*/}: runtime $kf_r, period $kf_p"
	done
done
kf_c=0
while [ -d /sys/devices/system/cpu/cpu$kf_c ]; do
	note "CPU $kf_c: dl_bw->bw $(cpu_bw $kf_c) ($(fmt_bw "$(cpu_bw $kf_c)") of a CPU), total_bw $(total_bw $kf_c), its fair server $(fair_bw $kf_c)"
	kf_c=$((kf_c + 1))
done
