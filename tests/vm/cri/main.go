// cri-client: the CRI calls the kubelet makes for a pod, one per
// command, for the NRI plugin's test (tests/vm/guest/nri-sid.sh): no
// kubelet and no crictl are in Debian; this speaks the CRI with
// Debian's Go CRI API (k8s.io/cri-api) over gRPC, as the kubelet does,
// with the metadata, labels and annotations the kubelet writes.
//
//	cri-client [-socket S] run-pod POD...          RunPodSandbox: the pod's id
//	cri-client [-socket S] create POD... -pod ID -c NAME -image IMG -- CMD...
//	                                               CreateContainer: the container's id
//	cri-client [-socket S] start|stop|pid ID      StartContainer, StopContainer, its process
//	cri-client [-socket S] remove-pod ID          StopPodSandbox and RemovePodSandbox
//
// POD is -name, -ns, -uid, -cgroup-parent and -a KEY=VALUE (its
// annotations, repeated), the same for run-pod and create (the kubelet
// gives CreateContainer the pod's configuration again).  A refused call
// prints the runtime's error on stderr and exits 1.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	cri "k8s.io/cri-api/pkg/apis/runtime/v1"
)

type annotations map[string]string

func (a annotations) String() string { return fmt.Sprint(map[string]string(a)) }
func (a annotations) Set(s string) error {
	k, v, ok := strings.Cut(s, "=")
	if !ok {
		return fmt.Errorf("%q is no KEY=VALUE", s)
	}
	a[k] = v
	return nil
}

type pod struct {
	name, ns, uid, parent string
	ann                   annotations
}

func podFlags(fs *flag.FlagSet) *pod {
	p := &pod{ann: annotations{}}
	fs.StringVar(&p.name, "name", "", "the pod's name")
	fs.StringVar(&p.ns, "ns", "default", "the pod's namespace")
	fs.StringVar(&p.uid, "uid", "", "the pod's uid")
	fs.StringVar(&p.parent, "cgroup-parent", "", "the pod's cgroup (the kubelet's, for the cgroupfs driver)")
	fs.Var(p.ann, "a", "an annotation of the pod, KEY=VALUE")
	return p
}

// The sandbox configuration as the kubelet writes it
// (pkg/kubelet/kuberuntime/kuberuntime_sandbox.go): the pod's metadata,
// its labels with the kubelet's, its annotations, host network (no CNI
// in the test).
func (p *pod) config() *cri.PodSandboxConfig {
	return &cri.PodSandboxConfig{
		Metadata: &cri.PodSandboxMetadata{Name: p.name, Uid: p.uid, Namespace: p.ns},
		Labels: map[string]string{"io.kubernetes.pod.name": p.name, "io.kubernetes.pod.namespace": p.ns,
			"io.kubernetes.pod.uid": p.uid},
		Annotations:  p.ann,
		LogDirectory: "/var/log/pods/" + p.ns + "_" + p.name + "_" + p.uid,
		Linux: &cri.LinuxPodSandboxConfig{
			CgroupParent: p.parent,
			SecurityContext: &cri.LinuxSandboxSecurityContext{
				NamespaceOptions: &cri.NamespaceOption{Network: cri.NamespaceMode_NODE},
			},
		},
	}
}

func die(format string, a ...interface{}) {
	fmt.Fprintf(os.Stderr, "cri-client: "+format+"\n", a...)
	os.Exit(1)
}

func main() {
	socket := flag.String("socket", "unix:///run/containerd/containerd.sock", "the runtime's CRI socket")
	flag.Parse()
	if flag.NArg() < 1 {
		die("give run-pod, create, start, stop, pid or remove-pod")
	}
	conn, err := grpc.NewClient(*socket, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		die("%v", err)
	}
	defer conn.Close()
	rt := cri.NewRuntimeServiceClient(conn)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd, args := flag.Arg(0), flag.Args()[1:]
	switch cmd {
	case "run-pod":
		fs := flag.NewFlagSet(cmd, flag.ExitOnError)
		p := podFlags(fs)
		fs.Parse(args)
		r, err := rt.RunPodSandbox(ctx, &cri.RunPodSandboxRequest{Config: p.config()})
		if err != nil {
			die("%v", err)
		}
		fmt.Println(r.PodSandboxId)
	case "create":
		fs := flag.NewFlagSet(cmd, flag.ExitOnError)
		p := podFlags(fs)
		id := fs.String("pod", "", "the pod's id (run-pod's)")
		name := fs.String("c", "", "the container's name")
		image := fs.String("image", "", "the image")
		fs.Parse(args)
		// The kubelet's labels and annotations of a container
		// (pkg/kubelet/kuberuntime/labels.go).
		cfg := &cri.ContainerConfig{
			Metadata: &cri.ContainerMetadata{Name: *name},
			Image:    &cri.ImageSpec{Image: *image},
			Command:  fs.Args(),
			Labels: map[string]string{"io.kubernetes.container.name": *name, "io.kubernetes.pod.name": p.name,
				"io.kubernetes.pod.namespace": p.ns, "io.kubernetes.pod.uid": p.uid},
			Annotations: map[string]string{"io.kubernetes.container.restartCount": "0",
				"io.kubernetes.container.terminationMessagePath": "/dev/termination-log"},
			LogPath: *name + "/0.log",
			Linux:   &cri.LinuxContainerConfig{},
		}
		r, err := rt.CreateContainer(ctx, &cri.CreateContainerRequest{PodSandboxId: *id, Config: cfg, SandboxConfig: p.config()})
		if err != nil {
			die("%v", err)
		}
		fmt.Println(r.ContainerId)
	case "start", "stop", "pid", "remove-pod":
		if len(args) != 1 {
			die("%s takes one id", cmd)
		}
		switch cmd {
		case "start":
			_, err = rt.StartContainer(ctx, &cri.StartContainerRequest{ContainerId: args[0]})
		case "stop":
			_, err = rt.StopContainer(ctx, &cri.StopContainerRequest{ContainerId: args[0], Timeout: 0})
		case "remove-pod":
			if _, err = rt.StopPodSandbox(ctx, &cri.StopPodSandboxRequest{PodSandboxId: args[0]}); err == nil {
				_, err = rt.RemovePodSandbox(ctx, &cri.RemovePodSandboxRequest{PodSandboxId: args[0]})
			}
		case "pid":
			var r *cri.ContainerStatusResponse
			if r, err = rt.ContainerStatus(ctx, &cri.ContainerStatusRequest{ContainerId: args[0], Verbose: true}); err == nil {
				var info struct{ Pid int }
				if err = json.Unmarshal([]byte(r.Info["info"]), &info); err == nil {
					fmt.Println(info.Pid)
				}
			}
		}
		if err != nil {
			die("%v", err)
		}
	default:
		die("unknown command %q: give run-pod, create, start, stop, pid or remove-pod", cmd)
	}
}
