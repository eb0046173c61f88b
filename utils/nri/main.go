// libdl-nri: an NRI plugin (containerd, CRI-O) that gives a Kubernetes
// pod's container the SCHED_DEADLINE reservation its pod's
// deadline.libdl.io annotations ask for (libdl-nri(8)).
//
// A thin adapter: every decision is libdeadline's, taken by
// libdl-oci-hook, the program the OCI hook files run (libdl-oci-hook(8)).
// On CreateContainer the plugin writes what it was told (the pod's
// annotations, the pod's namespace and name and the container's name
// from the runtime, the container's cgroups path) as the runtime
// configuration a precreate hook reads, and runs `libdl-oci-hook
// precreate` on it: the node's policy (dl-run.conf(5)), the admission
// in the partition asked for, and the partition's cgroup in the form the
// runtime uses all come from the library, as for podman.  A refusal is
// the hook's sentence, returned to the runtime, which fails the
// kubelet's CreateContainer with it.  An admitted container is adjusted:
// its cgroups path into the partition, the annotations the hook reads at
// createRuntime, and libdl-oci-hook's createRuntime hook, which sets the
// reservation on the container's process before its program runs (the
// runtimes of Debian sid and 13, containerd 2.1 and 2.0, have no NRI
// process.scheduler adjustment: that is NRI 0.11's, containerd 2.2's).
//
// A container of which no annotation names it is not touched.  When the
// plugin is not running the runtime starts containers without it: on its
// start (NRI's Synchronize) it reports every running container that asks
// for a reservation and has none, by pod and name, in its journal, and
// has the hook record it, which dl-stat and its metrics show.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/containerd/nri/pkg/api"
	"github.com/containerd/nri/pkg/stub"
)

const prefix = "deadline.libdl.io/"

// The keys libdl-oci-hook reads (dl_oci_parse(3)); a pod's are
// KEY.deadline.libdl.io/CONTAINER.
var keys = []string{"runtime", "deadline", "period", "flags", "partition"}

// Set at build time (utils/Makemodule.am): where the package installs
// the hook (-hook: elsewhere) and the version.
var (
	hookPath = "/usr/bin/libdl-oci-hook"
	version  = "unknown"
)

// The hook's answer within this time, or the container is refused: the
// runtime waits for the plugin (NRI's request timeout, 2 s by default).
const hookTimeout = 1500 * time.Millisecond

type plugin struct {
	stub stub.Stub
}

// Every decision is logged with the container it was for, on stderr,
// which systemd keeps in the unit's journal (journalctl -u libdl-nri),
// with the priority prefix it reads (sd-daemon(3)).
func (p *plugin) logf(prio int, format string, a ...interface{}) {
	fmt.Fprintf(os.Stderr, "<%d>%s\n", prio, fmt.Sprintf(format, a...))
}

const (
	logErr     = 3
	logWarning = 4
	logInfo    = 6
)

// Who a container is, for messages: the pod's namespace and name and
// the container's name, quoted as Go quotes (their text is the pod
// author's and may hold anything).
func who(pod *api.PodSandbox, ctr *api.Container) string {
	return fmt.Sprintf("container %q of pod %q in namespace %q", ctr.GetName(), pod.GetName(), pod.GetNamespace())
}

// asks says whether the pod's annotations name this container
// (KEY.deadline.libdl.io/NAME) or name no container (the pod-level
// deadline.libdl.io/KEY, which the hook refuses with how to name one).
// Other containers' keys leave it alone: a sidecar is not touched.
func asks(pod *api.PodSandbox, ctr *api.Container) bool {
	for k := range pod.GetAnnotations() {
		if strings.HasPrefix(k, prefix) {
			return true
		}
		for _, key := range keys {
			if k == key+"."+prefix+ctr.GetName() {
				return true
			}
		}
	}
	return false
}

// config is the runtime configuration the hook reads at precreate: the
// pod's annotations, then the identity the runtime gives (a pod
// author's annotation of these names is overwritten, as CRI-O does),
// and the cgroups path the runtime chose.
func config(pod *api.PodSandbox, ctr *api.Container) map[string]interface{} {
	ann := map[string]string{}
	for k, v := range pod.GetAnnotations() {
		ann[k] = v
	}
	ann["io.kubernetes.pod.namespace"] = pod.GetNamespace()
	ann["io.kubernetes.pod.name"] = pod.GetName()
	ann["io.kubernetes.container.name"] = ctr.GetName()
	return map[string]interface{}{
		"ociVersion":  "1.0.2",
		"annotations": ann,
		"linux":       map[string]interface{}{"cgroupsPath": ctr.GetLinux().GetCgroupsPath()},
	}
}

// precreate runs the hook on the configuration: the configuration it
// prints back, or its refusal (its stderr, one sentence).
func precreate(cfg map[string]interface{}) (map[string]interface{}, error) {
	in, err := json.Marshal(cfg)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), hookTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, hookPath, "precreate")
	cmd.Stdin = bytes.NewReader(in)
	var out, stderr bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if ctx.Err() != nil {
			return nil, fmt.Errorf("libdl-nri: %s gave no answer within %v: refused", hookPath, hookTimeout)
		}
		if msg == "" {
			return nil, fmt.Errorf("libdl-nri: %s precreate failed (%v): refused", hookPath, err)
		}
		return nil, errors.New(msg)
	}
	var back map[string]interface{}
	if err := json.Unmarshal(out.Bytes(), &back); err != nil {
		return nil, fmt.Errorf("libdl-nri: %s precreate printed no configuration (%v): refused", hookPath, err)
	}
	return back, nil
}

func (p *plugin) CreateContainer(_ context.Context, pod *api.PodSandbox, ctr *api.Container) (*api.ContainerAdjustment, []*api.ContainerUpdate, error) {
	if !asks(pod, ctr) {
		return nil, nil, nil
	}
	cfg := config(pod, ctr)
	back, err := precreate(cfg)
	if err != nil {
		p.logf(logErr, "%s: %v", who(pod, ctr), err)
		return nil, nil, err
	}
	adj := &api.ContainerAdjustment{}
	cgroup := ctr.GetLinux().GetCgroupsPath()
	if l, ok := back["linux"].(map[string]interface{}); ok {
		if c, ok := l["cgroupsPath"].(string); ok && c != cgroup {
			adj.SetLinuxCgroupsPath(c)
			cgroup = c
		}
	}
	// What the createRuntime hook reads from the container's state: this
	// container's keys and who it is.
	for k, v := range cfg["annotations"].(map[string]string) {
		if strings.Contains(k, prefix) || strings.HasPrefix(k, "io.kubernetes.pod.") || k == "io.kubernetes.container.name" {
			adj.AddAnnotation(k, v)
		}
	}
	adj.AddHooks(&api.Hooks{CreateRuntime: []*api.Hook{{Path: hookPath, Args: []string{"libdl-oci-hook", "createRuntime"}}}})
	p.logf(logInfo, "%s: admitted, cgroups path %q, reservation set by %s createRuntime", who(pod, ctr), cgroup, hookPath)
	return adj, nil, nil
}

// reserved says whether the process holds SCHED_DEADLINE (policy 6 in
// /proc/PID/sched, as the kernel reports it).
func reserved(pid uint32) (bool, error) {
	b, err := os.ReadFile("/proc/" + strconv.FormatUint(uint64(pid), 10) + "/sched")
	if err != nil {
		return false, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) == 3 && f[0] == "policy" && f[1] == ":" {
			return f[2] == "6", nil
		}
	}
	return false, errors.New("no policy line")
}

// record has the hook record a container that runs without the
// reservation it asks for, for dl-stat and its metrics (libdl-nri(8)):
// the container's state as a createRuntime hook reads it.
func record(pod *api.PodSandbox, ctr *api.Container) error {
	state := map[string]interface{}{
		"ociVersion":  "1.0.2",
		"id":          ctr.GetId(),
		"status":      "running",
		"pid":         ctr.GetPid(),
		"bundle":      "",
		"annotations": config(pod, ctr)["annotations"],
	}
	in, err := json.Marshal(state)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), hookTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, hookPath, "unreserved")
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return errors.New(msg)
		}
		return fmt.Errorf("%s unreserved failed: %v", hookPath, err)
	}
	return nil
}

// Synchronize: the containers that exist when the plugin starts.  One
// that asks for a reservation and runs without one was created while the
// plugin was not running: reported in the journal and recorded for
// dl-stat, not changed (setting a reservation
// on a running container would give it one outside the partition it
// asked for, unseen by the policy's count at creation).
func (p *plugin) Synchronize(_ context.Context, pods []*api.PodSandbox, ctrs []*api.Container) ([]*api.ContainerUpdate, error) {
	byID := map[string]*api.PodSandbox{}
	for _, pod := range pods {
		byID[pod.GetId()] = pod
	}
	missed := 0
	for _, ctr := range ctrs {
		pod := byID[ctr.GetPodSandboxId()]
		if pod == nil || ctr.GetState() != api.ContainerState_CONTAINER_RUNNING || !asks(pod, ctr) || ctr.GetPid() == 0 {
			continue
		}
		ok, err := reserved(ctr.GetPid())
		if err != nil || ok {
			continue
		}
		missed++
		p.logf(logWarning, "%s: runs without the reservation its annotations ask for (process %d is not SCHED_DEADLINE): it was created while libdl-nri was not running; delete the pod to have it created again", who(pod, ctr), ctr.GetPid())
		if err := record(pod, ctr); err != nil {
			p.logf(logErr, "%s: %v", who(pod, ctr), err)
		}
	}
	p.logf(logInfo, "synchronized with the runtime: %d containers, %d running without the reservation they ask for", len(ctrs), missed)
	return nil, nil
}

func (p *plugin) Configure(_ context.Context, _, runtime, ver string) (api.EventMask, error) {
	p.logf(logInfo, "connected to %s %s", runtime, ver)
	return api.MustParseEventMask("CreateContainer"), nil
}

func main() {
	socket := flag.String("socket", "", "the runtime's NRI socket (default: NRI's, /var/run/nri/nri.sock)")
	name := flag.String("name", "libdl", "the plugin's name")
	idx := flag.String("idx", "50", "the plugin's index: its place among the runtime's plugins")
	flag.StringVar(&hookPath, "hook", hookPath, "libdl-oci-hook, which decides and which the container's createRuntime hook runs")
	showVersion := flag.Bool("version", false, "print the version")
	flag.Parse()
	if *showVersion {
		fmt.Printf("libdl-nri (libdl) %s\n", version)
		return
	}
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "libdl-nri: unexpected argument %q: the options are -socket, -name, -idx, -hook and -version\n", flag.Arg(0))
		os.Exit(2)
	}
	p := &plugin{}
	opts := []stub.Option{stub.WithPluginName(*name), stub.WithPluginIdx(*idx),
		stub.WithOnClose(func() {
			p.logf(logWarning, "the runtime closed the connection: exiting (systemd restarts the plugin)")
			os.Exit(1)
		})}
	if *socket != "" {
		opts = append(opts, stub.WithSocketPath(*socket))
	}
	s, err := stub.New(p, opts...)
	if err != nil {
		fmt.Fprintf(os.Stderr, "libdl-nri: %v\n", err)
		os.Exit(1)
	}
	p.stub = s
	if err := s.Run(context.Background()); err != nil {
		fmt.Fprintf(os.Stderr, "libdl-nri: %v\n", err)
		os.Exit(1)
	}
}
