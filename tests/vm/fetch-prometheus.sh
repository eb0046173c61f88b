#!/bin/sh
# fetch-prometheus.sh: fetch (never install) the Prometheus programs the
# metrics tests run, into the cache, once: promtool (Debian's prometheus
# package), which checks dl-stat --prometheus and the example rules;
# prometheus (the same package's server), which scrapes node_exporter and
# answers a query; and prometheus-node-exporter (its package of that
# name), whose textfile collector serves the file dl-stat --output writes.
#
# Usage: tests/vm/fetch-prometheus.sh [--check]
#        (--check: fetch nothing; exit 0 when the cache holds all three, 1 if not)
#
# Environment:
#   LIBDL_VM_CACHE   cache folder (default: ~/.cache/libdl, cache-dir.sh)
#
# Leaves in $LIBDL_VM_CACHE/prometheus/: promtool, prometheus,
# prometheus-node-exporter and prometheus.stamp (the packages' versions).
#
# Why not apt-get install: both packages start a daemon on installation
# (a Prometheus server on port 9090 that then scrapes this host, a node
# exporter on port 9100), enabled at every boot, and the prometheus
# package brings a web interface's JavaScript libraries; the tests need
# three programs: promtool, run here, and the server and the exporter,
# which tests/vm/systemd.vm starts in a VM on its loopback
# address.  So the packages are downloaded with the host's apt (apt-get
# download) and unpacked (dpkg-deb -x), as the VM kernels are.  The programs are static Go binaries: nothing else is needed.
#
# Exit status: 0 when the cache holds all three (at once when it already does);
# 1 with one line on stderr saying why otherwise.
set -eu

. "$(dirname "$0")/fetch-lib.sh"
out=$cache/prometheus

[ -x "$out/promtool" ] && [ -x "$out/prometheus" ] && [ -x "$out/prometheus-node-exporter" ] && exit 0
[ "${1:-}" = --check ] && exit 1
need_tools "this needs Debian's apt" apt-get dpkg-deb
work_in "$cache" prometheus

# As root, apt's download sandbox user cannot write into the cache.
(cd "$work" && apt-get download -q -o APT::Sandbox::User=root prometheus prometheus-node-exporter) \
	>"$work/download.log" 2>&1 ||
	die "apt-get download prometheus prometheus-node-exporter failed: $(grep -E '^(E|W):' "$work/download.log" | head -n 1)"
mkdir -p "$work/x" "$work/out"
for deb in "$work"/prometheus_*.deb "$work"/prometheus-node-exporter_*.deb; do
	dpkg-deb -x "$deb" "$work/x" || die "dpkg-deb -x of $deb failed"
	echo "$(dpkg-deb -f "$deb" Package) $(dpkg-deb -f "$deb" Version)" >>"$work/out/prometheus.stamp"
done
cp "$work/x/usr/bin/promtool" "$work/x/usr/bin/prometheus" "$work/x/usr/bin/prometheus-node-exporter" "$work/out/" ||
	die "the packages hold no usr/bin/promtool, usr/bin/prometheus or usr/bin/prometheus-node-exporter"
rm -rf "$out"
mv "$work/out" "$out"
echo "$me: $(tr '\n' ' ' <"$out/prometheus.stamp")in $out"
