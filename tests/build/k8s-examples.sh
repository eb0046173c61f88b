#!/bin/sh
# The Kubernetes examples (data/examples/, libdl-containers(7)) as the
# tools that read them would: the pod and RuntimeClass with Python's
# yaml as Kubernetes' schema wants them, the CRI-O drop-in with
# tomllib, their names against each other and against the annotations
# libdl-oci-hook(8) reads, the man page's copy against the file; and
# libdl-node-capacity.sh --print on dl-stat --json output (with a
# layout, a partition the kernel no longer keeps, a name that cannot
# be a resource's, none).  No cluster is involved.  TAP.
src=${top_srcdir:-.}
ex=$src/data/examples
n=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); fail=1; echo "not ok $n - $*"; }
fail=0

if ! python3 -c 'import yaml, tomllib' 2>/dev/null; then
	echo "1..0 # SKIP python3 with yaml (python3-yaml) and tomllib (3.11) is needed"
	exit 0
fi
if ! command -v jq >/dev/null 2>&1; then
	echo "1..0 # SKIP jq is needed (libdl-node-capacity.sh's)"
	exit 0
fi

# The files: one TAP line per check, numbered here.
python3 - "$ex" "$src/man/libdl-containers.7" "$src/tests/vm/guest/nri-sid.sh" >"${TMPDIR:-/tmp}/k8s-examples.$$" <<'PY'
import math, re, sys, tomllib, yaml
ex, man, nri_test = sys.argv[1], sys.argv[2], sys.argv[3]
def check(ok, what):
    print(("ok" if ok else "not ok") + " - " + what)

docs = list(yaml.safe_load_all(open(ex + "/libdl-deadline-pod.yaml")))
docs = [d for d in docs if d is not None]
kinds = [(d.get("apiVersion"), d.get("kind")) for d in docs]
check(kinds == [("node.k8s.io/v1", "RuntimeClass"), ("v1", "Pod")],
      "libdl-deadline-pod.yaml: a RuntimeClass (node.k8s.io/v1) and a Pod (v1): %s" % kinds)
rc, pod = docs[0], docs[1]
dns = re.compile(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")
check(all(dns.match(d["metadata"]["name"]) for d in docs), "their names are DNS labels")
check(dns.match(rc.get("handler", "")) is not None, "the RuntimeClass's handler is a DNS label: %r" % rc.get("handler"))
check(pod["spec"].get("runtimeClassName") == rc["metadata"]["name"], "the pod names the RuntimeClass")

keys = ("runtime", "deadline", "period", "flags", "partition")
ann = pod["metadata"].get("annotations", {})
names = [c["name"] for c in pod["spec"]["containers"]]
split = [re.fullmatch(r"([a-z]+)\.deadline\.libdl\.io/(.+)", k) for k in ann]
check(all(m is not None and m.group(1) in keys and m.group(2) in names for m in split),
      "the pod's annotations are the hook's, each naming one of its containers (KEY.deadline.libdl.io/CONTAINER): %s" % sorted(ann))
check(not any(k.startswith("deadline.libdl.io/") for k in ann), "no pod-level deadline.libdl.io/ key (the hook refuses it)")
check(dns.match(pod["metadata"].get("namespace", "")) is not None, "the pod has a namespace, which the node policy names")
check(all(isinstance(v, str) for v in ann.values()), "every annotation value is a string")
units = {"ns": 1, "us": 1000, "ms": 1000000, "s": 1000000000}
def ns(t):
    m = re.fullmatch(r"([0-9]+(?:\.[0-9]+)?)(ns|us|ms|s)", t)
    return float(m.group(1)) * units[m.group(2)] if m else None
named = sorted({m.group(2) for m in split if m})
check(len(named) >= 1 and len(named) < len(names), "a container is named and one is not (the sidecar): %s of %s" % (named, names))
for c in pod["spec"]["containers"]:
    a = {k: v for k, v in ann.items() if k.endswith("/" + c["name"])}
    get = lambda k, d="": a.get("%s.deadline.libdl.io/%s" % (k, c["name"]), d)
    lims = c.get("resources", {}).get("limits", {})
    ours = [l for l in lims if l.startswith("deadline.libdl.io/")]
    if not a:
        check(not ours, "container %s, not named, asks for no deadline bandwidth: %s" % (c["name"], ours))
        continue
    r = ns(get("runtime"))
    p = ns(get("period", get("deadline")))
    d = ns(get("deadline", get("period")))
    check(None not in (r, d, p) and r <= d <= p, "%s: runtime <= deadline <= period, in dl-run's units" % c["name"])
    part = get("partition", "cluster")
    res = "deadline.libdl.io/%s-bandwidth" % part
    want = math.ceil(r / p * 1000) if None not in (r, p) else None
    check(ours == [res] and lims[res] == str(want),
          "%s: its limit of %s is runtime / period in thousandths, rounded up: %s, want %s" % (c["name"], res, lims, want))
    check(re.fullmatch(r"[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?", res.split("/")[1]) is not None,
          "%s is a qualified resource name" % res)
sel = rc.get("scheduling", {}).get("nodeSelector", {})
script = open(ex + "/libdl-node-capacity.sh").read()
check(len(sel) == 1 and all(("kubectl label --overwrite node \"$node\" %s=%s" % (k, v)) in script for k, v in sel.items()),
      "the RuntimeClass selects the label libdl-node-capacity.sh sets: %s" % sel)

conf = tomllib.load(open(ex + "/libdl-crio.conf", "rb"))
rt = conf.get("crio", {}).get("runtime", {})
check("/usr/share/containers/oci/hooks.d" in rt.get("hooks_dir", []),
      "libdl-crio.conf: hooks_dir holds the package's hooks.d")
h = rt.get("runtimes", {}).get(rc.get("handler"))
check(h is not None and h.get("runtime_type") == "oci" and h.get("runtime_path", "").startswith("/"),
      "libdl-crio.conf: the RuntimeClass's handler is an oci runtime with its path")
check(not any("libdl" in a for v in rt.get("runtimes", {}).values() for a in v.get("allowed_annotations", [])),
      "libdl-crio.conf: no deadline.libdl.io annotation in allowed_annotations (CRI-O refuses names it does not know)")

# NRI on: containerd's table is the one tests/vm/guest/nri-sid.sh runs
# containerd 2.1 with (its config.toml), CRI-O's the [crio.nri] of 1.26+.
ctd = tomllib.load(open(ex + "/libdl-containerd-nri.toml", "rb"))
nri = ctd.get("plugins", {}).get("io.containerd.nri.v1.nri")
m = re.search(r"cat >/etc/containerd/config\.toml <<'TOML'\n(.*?)\nTOML\n", open(nri_test).read(), re.S)
ran = tomllib.loads(m.group(1)) if m else {}
check(ctd.get("version") == 3 and nri == {"disable": False},
      "libdl-containerd-nri.toml: containerd's configuration version 3, NRI's plugin not disabled: %s" % nri)
check(m is not None and ran.get("version") == 3 and ran.get("plugins", {}).get("io.containerd.nri.v1.nri") == nri,
      "libdl-containerd-nri.toml: its NRI table is the one nri-sid.sh runs containerd with")
crio_nri = tomllib.load(open(ex + "/libdl-crio-nri.conf", "rb"))
check(crio_nri == {"crio": {"nri": {"enable_nri": True}}},
      "libdl-crio-nri.conf: [crio.nri] enable_nri = true, and nothing else")

# The man page's copy of the manifest is the file's.
text = open(man).read()
m = re.search(r"holds a RuntimeClass and a pod:\n\.PP\n\.nf\n(.*?)\n\.fi\n", text, re.S)
copy = m.group(1).replace("\\-", "-") if m else ""
check(m is not None and [d for d in yaml.safe_load_all(copy)] == docs,
      "libdl-containers(7)'s manifest is libdl-deadline-pod.yaml's, comments aside")
m = re.search(r"goes to\n\.IR /etc/crio/crio\.conf\.d/50\\-libdl\.conf :\n\.PP\n\.nf\n(.*?)\n\.fi\n", text, re.S)
check(m is not None and tomllib.loads(m.group(1).replace("\\-", "-")) == conf,
      "libdl-containers(7)'s CRI-O drop-in is libdl-crio.conf's, comments aside")
PY
py=$?
while read -r line; do
	case $line in
	"ok - "*) ok "${line#ok - }" ;;
	*) not_ok "${line#not ok - }" ;;
	esac
done <"${TMPDIR:-/tmp}/k8s-examples.$$"
rm -f "${TMPDIR:-/tmp}/k8s-examples.$$"
[ "$py" = 0 ] || not_ok "the examples' checks in Python ended with status $py"

# libdl-node-capacity.sh --print on a layout's figures: partition rt on
# CPU 1 and the cluster on CPU 0 of a 6.12 kernel, each (0.95 - its
# fair server 0.05) x 1000 = 900.
fix=$src/tests/build/data/dl-stat-rt.json
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
node() { LIBDL_STAT_JSON=$1 sh "$ex/libdl-node-capacity.sh" --print >"$tmp/out" 2>"$tmp/err"; rc=$?; }
node "$fix"
want='[{"op":"add","path":"/status/capacity/deadline.libdl.io~1rt-bandwidth","value":"900"},{"op":"add","path":"/status/capacity/deadline.libdl.io~1cluster-bandwidth","value":"900"}]'
if [ "$rc" = 0 ] && [ "$(cat "$tmp/out")" = "$want" ]; then
	ok "libdl-node-capacity.sh --print: 900 for rt and for the cluster"
else
	not_ok "libdl-node-capacity.sh --print: exit $rc: $(cat "$tmp/out" "$tmp/err")"
fi
jq '.layout.members[0].valid = false' "$fix" >"$tmp/invalid.json"
node "$tmp/invalid.json"
if [ "$rc" = 0 ] && [ "$(jq -r '.[0].value' "$tmp/out")" = 0 ] && [ "$(jq -r '.[1].value' "$tmp/out")" = 900 ]; then
	ok "a partition the kernel no longer keeps: 0"
else
	not_ok "a partition the kernel no longer keeps: exit $rc: $(cat "$tmp/out" "$tmp/err")"
fi
long=rt_$(printf '%060d' 0)
jq --arg n "$long" '.layout.members[0].name = $n' "$fix" >"$tmp/name.json"
node "$tmp/name.json"
if [ "$rc" = 0 ] && [ "$(jq -c 'map(.path)' "$tmp/out")" = '["/status/capacity/deadline.libdl.io~1cluster-bandwidth"]' ] &&
	grep -q "member \"$long\" cannot name a resource" "$tmp/err"; then
	ok "a member whose name cannot be a resource's (73 characters) is left out, and said"
else
	not_ok "a bad member name: exit $rc: $(cat "$tmp/out" "$tmp/err")"
fi
jq '.layout = null' "$fix" >"$tmp/none.json"
node "$tmp/none.json"
if [ "$rc" = 1 ] && [ ! -s "$tmp/out" ] && grep -q 'no dl-part layout' "$tmp/err"; then
	ok "no layout: exit 1, nothing printed, said"
else
	not_ok "no layout: exit $rc: $(cat "$tmp/out" "$tmp/err")"
fi
echo "1..$n"
[ "$fail" = 0 ]
