# nri-sid.sh: deadline pods on Debian sid's containerd (2.x: its CRI
# plugin and NRI) with runc, through libdl-nri (libdl-nri(8)), driven by
# cri-client, which makes the kubelet's CRI calls (tests/vm/cri): a pod
# of an allowed namespace gets exactly its reservation, in the
# partition's cgroup, with reset-on-fork, its sidecar none; a namespace
# with no rule, a request over the rule, and one over the partition's
# free bandwidth each fail CreateContainer with the sentence in the CRI
# error, nothing admitted; removing the pod gives the bandwidth back;
# the plugin killed, its containers keep their reservations; a pod made
# while it is stopped runs without one (what the pod sees, SCHED_OTHER)
# and is reported by the plugin when it starts again (Synchronize), in
# its journal and in dl-stat's table, JSON and metrics.
# Nothing is left: cgroups, the plugin, reservations.
#
# Sourced after lib.sh, systemd-part.sh and podman-sid.sh (podman-common.sh
# gives conf_set and the image tree /tmp/img, packed here as an OCI
# image for containerd, offline), in a boot of the sid podman image,
# which has containerd and runc (its unit not enabled: started here);
# ends without done_testing.

CRI=cri-client
RT=$CS/libdl.slice/libdl-rt.slice
if ! command -v containerd >/dev/null || ! command -v libdl-nri >/dev/null || ! command -v $CRI >/dev/null; then
	# A build without Go (configure: no go or no NRI stub) or an image
	# without containerd: said, and counted as a failure only where
	# the sid build root has them (it always does: fetch-debian.sh).
	not_ok "containerd ($(command -v containerd)), libdl-nri ($(command -v libdl-nri)) and cri-client ($(command -v $CRI)) are in the guest"
	return 0 2>/dev/null || exit 0
fi
note "$(containerd --version), $(runc --version | head -n 1)"

# The image, offline: the tree podman-common.sh made (busybox and
# dl-run) as one layer of an OCI image layout, imported into the CRI's
# namespace; the pods' sandboxes run it too (pinned as the sandbox image).
oci=/tmp/oci
mkdir -p "$oci/blobs/sha256"
blob() { # FILE MEDIATYPE: the file as a blob, its descriptor on stdout
	d=$(sha256sum "$1" | cut -d' ' -f1)
	mv "$1" "$oci/blobs/sha256/$d"
	printf '{"mediaType":"%s","digest":"sha256:%s","size":%s}' "$2" "$d" "$(stat -c %s "$oci/blobs/sha256/$d")"
}
tar -C /tmp/img -cf /tmp/layer.tar .
diff=$(sha256sum /tmp/layer.tar | cut -d' ' -f1)
layer=$(blob /tmp/layer.tar application/vnd.oci.image.layer.v1.tar)
printf '{"architecture":"amd64","os":"linux","config":{"Cmd":["/bin/sleep","100000"]},"rootfs":{"type":"layers","diff_ids":["sha256:%s"]}}' "$diff" >/tmp/config.json
config=$(blob /tmp/config.json application/vnd.oci.image.config.v1+json)
printf '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":%s,"layers":[%s]}' "$config" "$layer" >/tmp/manifest.json
manifest=$(blob /tmp/manifest.json application/vnd.oci.image.manifest.v1+json)
IMG=localhost/libdl-rt:1
printf '{"schemaVersion":2,"manifests":[%s]}' "$(echo "$manifest" | sed "s|}\$|,\"annotations\":{\"io.containerd.image.name\":\"$IMG\",\"org.opencontainers.image.ref.name\":\"1\"}}|")" >"$oci/index.json"
echo '{"imageLayoutVersion":"1.0.0"}' >"$oci/oci-layout"
tar -C "$oci" -cf /tmp/oci.tar .

# containerd as a node runs it, but: the native snapshotter and no
# pivot_root (the guest's root is the initramfs, where overlayfs's upper
# and pivot_root(2) are refused), the cgroupfs driver (the kubelet's
# default), the local image as the sandbox image (no registry), NRI on.
mkdir -p /etc/containerd
cat >/etc/containerd/config.toml <<'TOML'
version = 3
[plugins.'io.containerd.cri.v1.images']
  snapshotter = 'native'
  [plugins.'io.containerd.cri.v1.images'.pinned_images]
    sandbox = 'localhost/libdl-rt:1'
[plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc.options]
  NoPivotRoot = true
  SystemdCgroup = false
[plugins.'io.containerd.nri.v1.nri']
  disable = false
TOML
t0=$(date +%s)
run systemctl start containerd
i=0
while ! [ -S /run/containerd/containerd.sock ] && [ $i -lt 60 ]; do sleep 1; i=$((i + 1)); done
check "containerd starts, its CRI socket there ($(($(date +%s) - t0)) s)" eq "$rc $([ -S /run/containerd/containerd.sock ] && echo socket)" "0 socket"
# (--local: ctr unpacks it itself; containerd's transfer service would
# unpack for overlayfs alone.)
run ctr -n k8s.io images import --local --platform linux/amd64 --snapshotter native /tmp/oci.tar
check "the image imported into the CRI's namespace, offline" eq "$rc" 0
[ "$rc" = 0 ] || note "$err"
rm -rf "$oci" /tmp/oci.tar

plugin_log() { journalctl -q -o cat -u libdl-nri 2>/dev/null; }
connected() { # N: the plugin's Nth connection to the runtime, waited for
	i=0
	while [ "$(plugin_log | grep -c '^connected to ')" -lt "$1" ] && [ $i -lt 60 ]; do sleep 1; i=$((i + 1)); done
	[ "$(plugin_log | grep -c '^connected to ')" -ge "$1" ]
}
run systemctl start libdl-nri
check "libdl-nri's unit starts, and the plugin connects to containerd's NRI" connected 1
note "$(plugin_log | grep '^connected to ' | tail -n 1)"

run dl-part create --partition rt=1
check "dl-part create --partition rt=1" eq "$rc $(cat "$RT/cpuset.cpus.partition")" "0 root"
[ "$rc" = 0 ] || note "$err"
conf_set 'allow namespace rt-apps max-task=0.05
allow namespace rt-big max-task=1 max-total=2'
domains=$(dl-stat --domains)

ASK="-a period.deadline.libdl.io/app=1s -a flags.deadline.libdl.io/app=reset-on-fork -a partition.deadline.libdl.io/app=rt"
pod() { # NAME NAMESPACE UID [-a K=V...]: the pod's flags, as run-pod and create take them
	p_name=$1 p_ns=$2 p_uid=$3
	shift 3
	POD="-name $p_name -ns $p_ns -uid $p_uid -cgroup-parent /kubepods/besteffort/pod$p_uid $*"
}
params() { chrt -p "$1" | sed -n 's/.*parameters: //p'; }

# A: an allowed namespace: app gets 10ms every 1s in partition rt, the
# sidecar nothing.
pod loop rt-apps 1111 $ASK -a runtime.deadline.libdl.io/app=10ms
t0=$(date +%s)
run $CRI run-pod $POD
pa=$out
check "RunPodSandbox of pod loop in namespace rt-apps ($(($(date +%s) - t0)) s)" eq "$rc" 0
[ "$rc" = 0 ] || note "$err"
run $CRI create $POD -pod "$pa" -c app -image $IMG -- /bin/sleep 100000
app=$out
check "CreateContainer app: admitted" eq "$rc" 0
[ "$rc" = 0 ] || note "$err"
run $CRI start "$app"
check "StartContainer app" eq "$rc" 0
apid=$($CRI pid "$app")
check "app's process has exactly its reservation, 10ms every 1s (sched_getattr)" eq "$(params "$apid")" "10000000/1000000000/1000000000"
check "SCHED_DEADLINE with reset-on-fork" has "$(chrt -p "$apid")" "SCHED_DEADLINE|SCHED_RESET_ON_FORK"
check "in partition rt's cgroup, on its CPU 1" eq "$(grep -c "^0::/libdl.slice/libdl-rt.slice/$app\$" /proc/"$apid"/cgroup) $(awk '/^Cpus_allowed_list/ { print $2 }' /proc/"$apid"/status)" "1 1"
check "the plugin logged its decision, naming the container" has "$(plugin_log)" "container \"app\" of pod \"loop\" in namespace \"rt-apps\": admitted"
run $CRI create $POD -pod "$pa" -c sidecar -image $IMG -- /bin/sleep 100000
side=$out
$CRI start "$side" >/dev/null 2>&1
spid=$($CRI pid "$side")
check "the sidecar of the same pod runs SCHED_OTHER, where containerd put it" eq "$(policy "$spid") $(grep -c libdl /proc/"$spid"/cgroup)" "0 0"
with_app=$(dl-stat --domains)

# B, C, D: refusals, each the CRI error of CreateContainer, nothing admitted.
refused() { # WHAT CONTAINER MESSAGE: the pod POD's container refused, saying MESSAGE
	what=$1 ctr=$2 want=$3
	run $CRI run-pod $POD
	p=$out
	run $CRI create $POD -pod "$p" -c "$ctr" -image $IMG -- /bin/sleep 100000
	check "$what: CreateContainer fails" eq "$rc" 1
	check "$what: the CRI error says why" has "$err" "$want"
	note "$err"
	check "$what: nothing admitted (the root domains as before)" eq "$(dl-stat --domains)" "$with_app"
	$CRI remove-pod "$p" >/dev/null 2>&1
}
pod nope default 2222 $ASK -a runtime.deadline.libdl.io/app=10ms
refused "a namespace with no rule" app "the policy ($conf) does not allow it"
pod greedy rt-apps 3333 $ASK -a runtime.deadline.libdl.io/app=100ms
refused "a request over the namespace's rule (0.1 > max-task 0.05)" app "above the 0.0500 allowed"
pod big rt-big 4444 $ASK -a runtime.deadline.libdl.io/app=990ms
refused "a request over the partition's free bandwidth (0.99)" app "ask for less (deadline.libdl.io/runtime)"

# F: the plugin killed: the running container keeps its reservation;
# systemd starts it again.
run systemctl kill -s KILL libdl-nri
check "the plugin killed: app keeps exactly its reservation" eq "$(params "$apid")" "10000000/1000000000/1000000000"
check "systemd starts the plugin again, which connects" connected 2
# Stopped: containerd creates a deadline pod's container without it.
run systemctl stop libdl-nri
pod missed rt-apps 5555 -a runtime.deadline.libdl.io/app=20ms -a period.deadline.libdl.io/app=1s
run $CRI run-pod $POD
pm=$out
run $CRI create $POD -pod "$pm" -c app -image $IMG -- /bin/sleep 100000
mc=$out
$CRI start "$mc" >/dev/null 2>&1
mpid=$($CRI pid "$mc")
check "created while the plugin is stopped: the container runs, SCHED_OTHER (what the pod sees)" eq "$rc $(policy "$mpid")" "0 0"
run systemctl start libdl-nri
check "the plugin started again" connected 3
i=0
while ! plugin_log | grep -q 'runs without the reservation' && [ $i -lt 20 ]; do sleep 1; i=$((i + 1)); done
check "on its start (Synchronize) it reports the container it missed, by pod and name" has "$(plugin_log)" "container \"app\" of pod \"missed\" in namespace \"rt-apps\": runs without the reservation its annotations ask for (process $mpid is not SCHED_DEADLINE)"
check "and the one it admitted is not reported" eq "$(plugin_log | grep -c 'pod "loop".*runs without')" 0
i=0
while ! dl-stat --prometheus | grep -q '^libdl_containers_unreserved 1$' && [ $i -lt 10 ]; do sleep 1; i=$((i + 1)); done
prom=$(dl-stat --prometheus)
check "dl-stat's metrics count it: libdl_containers_unreserved 1" has "$prom" "libdl_containers_unreserved 1"
check "and name it by pod" has "$prom" 'libdl_container_unreserved_info{namespace="rt-apps",pod="missed",container="app"} 1'
check "dl-stat's table warns of it, with its process" has "$(dl-stat --tasks)" "process $mpid: container app of pod missed in namespace rt-apps"
check "dl-stat --json lists it" has "$(dl-stat --json)" "\"unreserved_containers\":[{\"pid\":$mpid,\"namespace\":\"rt-apps\",\"pod\":\"missed\",\"container\":\"app\"}]"
run $CRI remove-pod "$pm"
check "its pod removed, no container is counted: libdl_containers_unreserved 0" has "$(dl-stat --prometheus)" "libdl_containers_unreserved 0"

# E: the pod removed gives its bandwidth back.
run $CRI remove-pod "$pa"
check "RemovePodSandbox of pod loop" eq "$rc" 0
i=0
while [ "$(dl-stat --domains)" != "$domains" ] && [ $i -lt 5 ]; do sleep 1; i=$((i + 1)); done
check "the root domains as before the pod (total_bw given back)" eq "$(dl-stat --domains)" "$domains"

# Nothing left: no container cgroup in the partition, no container
# process (containerd's shims gone), the plugin and containerd stopped,
# the pods' parent cgroups (the kubelet's to remove) removed, the layout
# gone.
check "no cgroup left in partition rt" eq "$(find "$RT" -mindepth 1 -type d | wc -l)" 0
run systemctl stop libdl-nri containerd
check "the plugin and containerd stop" eq "$rc $(systemctl is-active libdl-nri)" "0 inactive"
check "no container process is left (no containerd-shim)" eq "$(pgrep -c containerd-shim)" 0
for d in /sys/fs/cgroup/kubepods/besteffort/pod*; do rmdir "$d"; done
rmdir /sys/fs/cgroup/kubepods/besteffort /sys/fs/cgroup/kubepods
check "the pods' cgroups were empty and are removed" eq "$(ls -d /sys/fs/cgroup/kubepods 2>&1 | grep -c 'No such file')" 1
conf_restore
run dl-part destroy
check "dl-part destroy once the pods are gone" eq "$rc" 0
[ "$rc" = 0 ] || note "$err"
