#!/bin/sh
# libdl-node-capacity.sh: publish each partition's deadline bandwidth
# as a Kubernetes extended resource of this node, for the scheduler
# (libdl-containers(7), "The scheduler's figure").
#
# Usage: libdl-node-capacity.sh [--print] [NODE]
#
# Reads `dl-stat --json --domains` (or, for a test, the file
# $LIBDL_STAT_JSON) and, for each member of the dl-part(1) layout (each
# partition and the cluster), sets
#
#     deadline.libdl.io/MEMBER-bandwidth
#
# in the node's status capacity: the bandwidth its deadline tasks may
# hold together, in thousandths of a CPU (the kernel's admission limit of
# the member's root domain, less the deadline servers it counts), 0 for
# a partition the kernel no longer keeps (dl-part status: invalid).  A
# pod asks for runtime / period of a CPU there (x 1000, rounded up) in
# its limits; the scheduler subtracts what the pods on the node ask
# for, so the figure is the total, not what is free now.  With
# --print, the JSON patch is printed and nothing is sent; else it is
# sent with kubectl to NODE (default: this host's name), and the node
# labelled deadline.libdl.io/layout=true (the RuntimeClass's
# nodeSelector).  Needs jq, and kubectl with the right to patch
# nodes/status (as a DaemonSet's service account, or an admin's config).
# Run it again when the layout changes (after dl-part.service, say).
set -eu

print=0
if [ "${1:-}" = --print ]; then
	print=1
	shift
fi
node=${1:-$(uname -n)}

if [ -n "${LIBDL_STAT_JSON:-}" ]; then
	stat=$(cat "$LIBDL_STAT_JSON")
else
	stat=$(dl-stat --json --domains)
fi

# One JSON patch operation per member whose name can make a resource
# name (63 characters of [A-Za-z0-9_.-] at most, alphanumeric at both
# ends); the others are said on stderr.
ok='test("^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$")'
printf '%s\n' "$stat" | jq -r ".layout.members[]? | select(.name + \"-bandwidth\" | $ok | not) | .name" |
	while read -r m; do
		echo "libdl-node-capacity: member \"$m\" cannot name a resource: left out" >&2
	done
patch=$(printf '%s\n' "$stat" | jq -c "
	if .layout == null then [] else
	. as \$s | [ .layout.members[]
	  | . as \$m
	  | select(\$m.name + \"-bandwidth\" | $ok)
	  | ([\$s.root_domains[] | select(.cpus == \$m.root_domain_cpus)] | first) as \$rd
	  | { op: \"add\",
	      path: (\"/status/capacity/deadline.libdl.io~1\" + \$m.name + \"-bandwidth\"),
	      value: (if \$m.valid and \$rd != null
		      then ((\$rd.capacity - \$rd.fair_bw - \$rd.uncounted_fair_bw) * 1000 / 1048576 | floor | tostring)
		      else \"0\" end) } ] end")
if [ "$patch" = "[]" ]; then
	echo "libdl-node-capacity: no dl-part layout on this node: nothing to publish (dl-part create, or dl-part.service)" >&2
	exit 1
fi
if [ "$print" = 1 ]; then
	printf '%s\n' "$patch"
	exit 0
fi
kubectl patch node "$node" --subresource=status --type=json -p "$patch"
kubectl label --overwrite node "$node" deadline.libdl.io/layout=true
