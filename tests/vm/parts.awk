# parts.awk: the console of a boot of several suites (guest/parts.sh) as
# one TAP stream, for vm-test.  Each part's results keep their words,
# named after the part ("ok 7 - kill-v2: ..."), and are numbered in one
# sequence; its own plan is checked, and a part that skipped whole is one
# skipped result.  A part that ended with a failing status but no failed
# result, printed fewer results than it planned, was killed at its
# timeout, left the cgroup tree changed (LIBDL-PART-LEFT), or was under
# way when the VM ended, is a failed result of its own saying so; each
# part the VM never reached, one more.  A part under way when the kernel
# crashed right after its "# kernel-bug: FUNCTION: WHAT" line, with an
# oops in FUNCTION, gets the expected failure (TODO) vm-test gives such a
# suite.  Everything else the console printed becomes a TAP comment.
#
# Variables: specs (" NAME:SECONDS..." as guest/parts.sh got them), rc
# (run-vm.sh's status), why (its reason, when it gave one), last (the
# guest's last line).
function emit(ok, text) {
	n++
	print ok " " n " - " text
}

function end_part(st,    reason) {
	if (pcount == 0 && plan ~ /^1\.\.0/) {
		reason = plan
		sub(/^1\.\.0 *(# *)?(SKIP|skip)? */, "", reason)
		emit("ok", cur " # SKIP " reason)
	} else if (st == "timeout") {
		emit("not ok", cur ": killed after " secs[cur] " s, its timeout (its last line: " plast ")")
	} else if (st != 0 && pnot == 0) {
		emit("not ok", cur ": ended with status " st " and no failed result (its last line: " plast ")")
	} else if (plan == "" && pcount == 0) {
		emit("not ok", cur ": printed no result")
	} else if (plan != "" && plan !~ /^1\.\.0/ && substr(plan, 4) + 0 != pcount) {
		emit("not ok", cur ": planned " substr(plan, 4) + 0 " results, printed " pcount)
	}
	done[cur] = 1
	cur = ""
}

BEGIN {
	np = split(specs, sp, " ")
	for (i = 1; i <= np; i++) {
		name = sp[i]
		sub(/:[^:]*$/, "", name)
		t = sp[i]
		sub(/^.*:/, "", t)
		order[i] = name
		secs[name] = t
	}
	cur = ""
	reached = ""
}

/^LIBDL-PART-START / {
	cur = $2
	reached = cur
	plan = ""
	pcount = pnot = 0
	plast = ""
	bug = bugfunc = oops = ""
	funcseen = 0
	next
}
/^LIBDL-PART-END / {
	if (cur != "")
		end_part($3)
	next
}
/^LIBDL-PART-LEFT / {
	name = $2
	sub(/:$/, "", name)
	text = $0
	sub(/^LIBDL-PART-LEFT [^ ]* */, "", text)
	emit("not ok", name ": left the cgroup tree and the layout's state as it found them (it left: " text ")")
	next
}
cur != "" && /^(not )?ok( |$)/ {
	text = $0
	res = "ok"
	if (text ~ /^not /) {
		res = "not ok"
		pnot++
	}
	sub(/^(not )?ok( +[0-9]+)?( +-)? */, "", text)
	pcount++
	emit(res, cur ": " text)
	plast = $0
	next
}
cur != "" && /^1\.\./ {
	plan = $0
	next
}
cur != "" && /^# kernel-bug: / {
	bug = $0
	sub(/^# kernel-bug: /, "", bug)
	bugfunc = bug
	sub(/:.*/, "", bugfunc)
	sub(/^[^:]*: /, "", bug)
}
bug != "" && /Oops|Kernel panic/ && oops == "" {
	if (match($0, /[A-Za-z][A-Za-z :]*: [0-9a-f][0-9a-f][0-9a-f][0-9a-f] \[#[0-9]*\]/))
		oops = substr($0, RSTART, RLENGTH)
	else
		oops = "an oops"
}
bug != "" && index($0, bugfunc "+0x") > 0 {
	funcseen = 1
}
{
	if (cur != "" && $0 !~ /^ *$/)
		plast = $0
	if ($0 ~ /^#/)
		print
	else
		print "# " $0
}

END {
	if (cur != "") {
		if (bug != "" && rc != 0 && oops != "" && funcseen)
			emit("not ok", cur ": " bug ": the kernel crashed (" oops " in " bugfunc ") # TODO a kernel bug, expected on this kernel (docs/kernel-notes.md)")
		else
			emit("not ok", cur ": the VM ended during this part, status " rc (why != "" ? " (" why ")" : "") "; the last line from the guest: " last)
		done[cur] = 1
	}
	for (i = 1; i <= np; i++) {
		if (order[i] in done)
			continue
		if (reached == "")
			emit("not ok", order[i] ": not run: the VM ended before its first part, status " rc (why != "" ? " (" why ")" : "") "; the last line from the guest: " last)
		else
			emit("not ok", order[i] ": not run: the VM ended in " reached)
	}
	print "1.." n
}
