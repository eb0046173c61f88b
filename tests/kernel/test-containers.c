/*
 * Containers in a partition on this host, without a container engine
 * (cgroup v1 cpusets, no systemd): what a cgroupfs runtime does, done
 * here with the suite's own processes.  A config.json whose
 * linux.cgroupsPath is below the partition's cpuset: dl-run --check --oci
 * says admitted, then refused once the partition is full, and the kernel
 * answers a process put in that cgroup and given the request
 * (sched_setattr, as crun does) the same both times.  dl-part destroy
 * refuses while such a cgroup holds a process, naming it; --force stops
 * nothing and leaves the partition; once it is empty destroy gives the
 * tree back.  The OCI hook (libdl-oci-hook(8)) given what an engine
 * gives it: at precreate a configuration whose annotations name the
 * partition comes back with its cgroupsPath there and process.scheduler,
 * or is refused once the partition is full; at createRuntime the state's
 * process gets exactly the reservation asked (read back from the kernel),
 * or is refused and left as it was.  podman itself, systemd and cgroup v2
 * are the VM's (tests/vm/guest/podman.sh).
 */
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testlib.h"

#define MS 1000000ULL
#define CTR "libpod-0123456789abcdef0123456789abcdef"

static char out[65536], err[16384], dir[] = "/tmp/libdl-oci-XXXXXX";
/* What the hook's test build reads as dl-run.conf(5). */
#define POD_POLICY "/run/libdl-test-oci-hook.conf"
/* The suite's processes in the cgroups, ended before they are removed
 * whatever happened. */
static pid_t kids[48];
static int nkids;

static int tool(const char *name, char *const args[])
{
	return tl_run_tool(name, args, out, sizeof(out), err, sizeof(err));
}
#define DL_RUN(...) tool("dl-run", (char *[]){ __VA_ARGS__, NULL })
#define DL_PART(...) tool("dl-part", (char *[]){ __VA_ARGS__, NULL })

static const char *cs_root(void)
{
	return "/sys/fs/cgroup/cpuset";
}

/* A cgroup of ours below a member's cpuset removed, once the processes
 * killed in it are gone. */
static void rm_cgroup_in(const char *member, const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/libdl/%s/%s", cs_root(), member, name);
	for (int i = 0; i < 100 && rmdir(path) < 0 && errno == EBUSY; i++)
		usleep(10000);
}

/* Ours in partition p and in the cluster (ESC in a name: an engine's
 * choice, escaped in messages). */
#define ESC_CTR "ctr-\x1b[31m"
static void rm_cgroups(void)
{
	static const char *const names[] = { CTR, "ctr2", ESC_CTR, "crio-a", "crio-b", "crio-c" };

	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		rm_cgroup_in("p", names[i]);
		rm_cgroup_in("cluster", names[i]);
	}
}
#define rm_cgroup(name) rm_cgroup_in("p", name)

/* A test that failed ended its process, and its children with it
 * (PR_SET_PDEATHSIG), but not its cgroups: those first, then the layout. */
static void setup(void)
{
	rm_cgroups();
	tl_layout_restore(NULL);
	tl_settle();
	snprintf(dir, sizeof(dir), "/tmp/libdl-oci-XXXXXX");
	ck_assert(mkdtemp(dir));
}

static void teardown(void)
{
	char path[256];

	for (int i = 0; i < nkids; i++) {
		kill(kids[i], SIGKILL);
		waitpid(kids[i], NULL, 0);
	}
	nkids = 0;
	unlink(POD_POLICY);
	rm_cgroups();
	tl_layout_restore(NULL);
	snprintf(path, sizeof(path), "%s/config.json", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/log", dir);
	unlink(path);
	rmdir(dir);
}

/* The hook at a stage (and its option), given text on stdin as an
 * engine gives it. */
static int hook(const char *stage, const char *text)
{
	bool opt = strchr(stage, ' ');
	char *argv[] = { (char *)tl_tool("libdl-oci-hook"), opt ? "precreate" : (char *)stage, opt ? "--scheduler" : NULL,
			 NULL };

	return tl_run_input(argv, (uid_t)-1, (gid_t)-1, text, out, sizeof(out), err, sizeof(err));
}

static const char *config(uint64_t runtime, const char *cgroups_path)
{
	static char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/config.json", dir);
	f = fopen(path, "w");
	ck_assert(f);
	fprintf(f, "{\"ociVersion\":\"1.1.0\",\"process\":{\"args\":[\"sleep\"],\"scheduler\":{\"policy\":\"SCHED_DEADLINE\","
		   "\"runtime\":%llu,\"deadline\":100000000,\"period\":100000000,\"flags\":[\"SCHED_FLAG_RESET_ON_FORK\"]}},"
		   "\"linux\":{\"cgroupsPath\":\"%s\"}}\n",
		(unsigned long long)runtime, cgroups_path);
	fclose(f);
	return dir; /* the bundle's folder */
}

/* A cgroup below a member of the layout (partition p, or the cluster),
 * as a cgroupfs runtime makes one, with a sleeping child of ours in it;
 * returns the child. */
static pid_t contained_in(const char *member, const char *name)
{
	char path[256], buf[64];
	int fd, ready[2];
	pid_t pid;

	snprintf(path, sizeof(path), "%s/libdl/%s/%s", cs_root(), member, name);
	ck_assert(mkdir(path, 0755) == 0 || errno == EEXIST);
	for (int i = 0; i < 2; i++) {
		const char *file = i ? "cpuset.mems" : "cpuset.cpus";
		char from[256], val[64] = "";

		snprintf(from, sizeof(from), "%s/libdl/%s/%s", cs_root(), member, file);
		fd = open(from, O_RDONLY);
		ck_assert_int_gt(read(fd, val, sizeof(val) - 1), 0);
		close(fd);
		snprintf(from, sizeof(from), "%s/%s", path, file);
		fd = open(from, O_WRONLY);
		ck_assert_int_gt(write(fd, val, strlen(val)), 0);
		close(fd);
	}
	snprintf(path, sizeof(path), "%s/libdl/%s/%s/tasks", cs_root(), member, name);
	ck_assert_int_eq(pipe(ready), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		/* Into the cgroup itself, running, as a runtime's process
		 * joins its cgroup before sched_setattr: a thread moved while
		 * asleep stays on its old CPU, judged by that CPU's root
		 * domain (docs/kernel-notes.md, "Admission per root domain"). */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		fd = open(path, O_WRONLY);
		snprintf(buf, sizeof(buf), "%d", (int)getpid());
		if (fd < 0 || write(fd, buf, strlen(buf)) < 0)
			_exit(1);
		close(fd);
		if (write(ready[1], "x", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(ready[1]);
	ck_assert_int_eq(read(ready[0], buf, 1), 1);
	close(ready[0]);
	ck_assert(nkids < (int)ARRAY_SIZE(kids));
	kids[nkids++] = pid;
	return pid;
}
#define contained(name) contained_in("p", name)

START_TEST(test_oci_verdict_is_the_kernels)
{
	struct dl_params p = { .runtime = 50 * MS, .deadline = 100 * MS, .period = 100 * MS,
			       .flags = DL_FLAG_RESET_ON_FORK };
	pid_t a, b;

	ck_assert_msg(DL_PART("create", "--partition", "p=0", "--no-move") == 0, "%s", err);
	/* 0.5 of CPU 0: fits (0.95, the fair server's 0.05 held). */
	ck_assert_msg(DL_RUN("--check", "--oci", (char *)config(50 * MS, "/libdl/p/" CTR)) == 0, "%s%s", out, err);
	ck_assert_msg(strstr(out, "in partition p") && strstr(out, "admitted"), "%s", out);
	a = contained(CTR);
	ck_assert_int_eq(dl_set(a, &p), 0);
	/* 0.5 more: does not. */
	ck_assert_msg(DL_RUN("--check", "--oci", (char *)config(50 * MS, "/libdl/p/ctr2")) == 1, "%s%s", out, err);
	ck_assert_msg(strstr(out, "not admissible") && strstr(out, "refused"), "%s", out);
	b = contained("ctr2");
	ck_assert_int_eq(dl_set(b, &p), -EBUSY);
	/* 0.3 does, again as the kernel says. */
	p.runtime = 30 * MS;
	ck_assert_msg(DL_RUN("--check", "--json", "--oci", (char *)config(30 * MS, "/libdl/p/ctr2")) == 0, "%s%s", out, err);
	ck_assert_msg(strstr(out, "\"partition\":\"p\"") && strstr(out, "\"verdict\":\"admitted\""), "%s", out);
	/* The member judged is the container's partition, as with --partition. */
	ck_assert_msg(strstr(out, "\"member\":\"p\""), "%s", out);
	ck_assert_int_eq(dl_set(b, &p), 0);
	/* Outside the partitions (no cgroup of the layout): the cluster. */
	ck_assert_msg(DL_RUN("--check", "--oci", (char *)config(50 * MS, "machine.slice:libpod:abc")) == 0, "%s%s", out, err);
	ck_assert_msg(strstr(out, "outside the partitions, in the cluster"), "%s", out);
	/* In the cluster's own cgroup (v1's is below the partitions' parent):
	 * judged there, not refused as in no member. */
	ck_assert_msg(DL_RUN("--check", "--oci", (char *)config(50 * MS, "/libdl/cluster/" CTR)) == 0, "%s%s", out, err);
	ck_assert_msg(strstr(out, "cgroup /libdl/cluster/" CTR ": in the cluster (cgroup /libdl/cluster)") &&
		      strstr(out, "in the cluster (cgroup /libdl/cluster, CPUs "), "%s", out);
	tl_kill(a);
	tl_kill(b);
}
END_TEST

START_TEST(test_destroy_names_what_runs)
{
	char before[65536], mid[65536], after[65536];
	pid_t a;

	tl_cpuset_snapshot(before, sizeof(before));
	ck_assert_msg(DL_PART("create", "--partition", "p=0", "--no-move") == 0, "%s", err);
	a = contained(CTR);
	tl_cpuset_snapshot(mid, sizeof(mid));
	ck_assert_int_eq(DL_PART("destroy"), 1);
	ck_assert_msg(strstr(err, "partition p holds " CTR " (podman container 0123456789ab), 1 thread") &&
		      strstr(err, "dl-part destroy --force"), "%s", err);
	tl_cpuset_snapshot(after, sizeof(after));
	ck_assert_str_eq(after, mid);
	ck_assert_msg(DL_PART("destroy", "--force") == 0, "%s", err);
	ck_assert_msg(strstr(out, "left in place: partition p, which holds " CTR), "%s", out);
	ck_assert_int_eq(kill(a, 0), 0);
	ck_assert_msg(DL_PART("status") == 0 || strstr(out, "p "), "%s", out);
	ck_assert_msg(strstr(out, "exclusive"), "partition p is no longer a partition: %s", out);
	tl_kill(a);
	rm_cgroup(CTR);
	ck_assert_msg(DL_PART("destroy") == 0, "%s", err);
	tl_cpuset_snapshot(after, sizeof(after));
	ck_assert_str_eq(after, before);
}
END_TEST

/*
 * linux.cgroupsPath is a path the runtime resolves: "/libdl/p/../x" is
 * the cgroup /x, outside the partition whose name it starts with.  It is
 * refused, naming the path without "..", never judged in partition p.
 */
START_TEST(test_oci_dotdot_refused)
{
	ck_assert_msg(DL_PART("create", "--partition", "p=0", "--no-move") == 0, "%s", err);
	ck_assert_msg(DL_RUN("--check", "--oci", (char *)config(50 * MS, "/libdl/p/../system.slice/x")) == 125,
		      "a path leaving partition p with .. was judged: %s%s", out, err);
	ck_assert_msg(strstr(err, "\"..\"") && strstr(err, "/libdl/system.slice/x"), "%s", err);
	ck_assert_msg(DL_RUN("--check", "--oci", (char *)config(50 * MS, "/libdl/./p/" CTR)) == 125, "%s%s", out, err);
	ck_assert_msg(strstr(err, "\".\"") && strstr(err, "/libdl/p/" CTR), "%s", err);
	/* The same with --json: a file that cannot be judged. */
	ck_assert_int_eq(DL_RUN("--check", "--json", "--oci", (char *)config(50 * MS, "/../libdl/p/" CTR)), 125);
	ck_assert_msg(strstr(out, "\"verdict\":\"bad-file\""), "%s", out);
}
END_TEST

/*
 * A user who cannot read the layout's state (/run/libdl is root's) does
 * not know which partition a cgroup is: "layout unknown", not a bad file,
 * and no policy was applied to a container's request (null).
 */
START_TEST(test_oci_layout_unknown)
{
	struct passwd *pw = getpwnam("nobody");
	char *argv[] = { NULL, "--check", "--json", "--oci", NULL, NULL };
	int rc;

	if (!pw)
		return;
	argv[0] = (char *)tl_tool_for_anyone("dl-run");
	ck_assert_msg(DL_PART("create", "--partition", "p=0", "--no-move") == 0, "%s", err);
	argv[4] = (char *)config(50 * MS, "/libdl/p/" CTR);
	ck_assert_int_eq(chmod(dir, 0755), 0);
	ck_assert_int_eq(access("/run/libdl/layout", F_OK), 0);
	rc = tl_run_as(argv, pw->pw_uid, pw->pw_gid, out, sizeof(out), err, sizeof(err));
	ck_assert_msg(rc == 125, "rc %d: %s%s", rc, out, err);
	ck_assert_msg(strstr(out, "\"verdict\":\"layout-unknown\"") && strstr(out, "\"admissible\":false"), "%s", out);
	ck_assert_msg(strstr(out, "\"policy\":null"), "a policy is reported though none was applied: %s", out);
	ck_assert_msg(strstr(out, "layout unknown") && strstr(out, "root's"), "%s", out);
	argv[2] = "-v"; /* no --json: the same in words */
	rc = tl_run_as(argv, pw->pw_uid, pw->pw_gid, out, sizeof(out), err, sizeof(err));
	ck_assert_msg(rc == 125 && strstr(out, "layout unknown"), "rc %d: %s%s", rc, out, err);
}
END_TEST

#define ASK(runtime, more) "\"annotations\":{\"deadline.libdl.io/runtime\":\"" runtime "\"," \
	"\"deadline.libdl.io/period\":\"100ms\",\"deadline.libdl.io/flags\":\"reset-on-fork\"" more "}"
#define IN_P ",\"deadline.libdl.io/partition\":\"p\""
#define IN_P_NAMED ",\"partition.deadline.libdl.io/loop\":\"p\""

/* precreate: placed in the partition the annotation names, and admitted
 * there, or refused before anything exists. */
START_TEST(test_hook_precreate)
{
	struct dl_params p = { .runtime = 50 * MS, .deadline = 100 * MS, .period = 100 * MS };
	const char *conf = "{\"ociVersion\":\"1.1.0\",\"process\":{\"args\":[\"sleep\"]},"
			   "\"linux\":{\"cgroupsPath\":\"/machine/" CTR "\"}," ASK("50ms", IN_P) "}";
	pid_t a;

	ck_assert_msg(DL_PART("create", "--partition", "p=0", "--no-move") == 0, "%s", err);
	ck_assert_msg(hook("precreate", conf) == 0, "%s%s", out, err);
	ck_assert_msg(strstr(out, "\"cgroupsPath\":\"/libdl/p/" CTR "\""), "%s", out);
	ck_assert_msg(!strstr(out, "scheduler"), "process.scheduler written unasked: %s", out);
	ck_assert_msg(hook("precreate --scheduler", conf) == 0, "%s%s", out, err);
	ck_assert_msg(strstr(out, "\"cgroupsPath\":\"/libdl/p/" CTR "\""), "%s", out);
	ck_assert_msg(strstr(out, "\"scheduler\":{\"policy\":\"SCHED_DEADLINE\",\"runtime\":50000000,"
				  "\"deadline\":100000000,\"period\":100000000,\"flags\":[\"SCHED_FLAG_RESET_ON_FORK\"]}"),
		      "%s", out);
	/* What it wrote is what dl-run --check --oci judges the same. */
	a = contained(CTR);
	ck_assert_int_eq(dl_set(a, &p), 0);
	ck_assert_msg(hook("precreate", conf) == 1, "admitted 0.5 more in a partition of one CPU: %s%s", out, err);
	ck_assert_msg(!out[0], "a refusal printed a configuration: %s", out);
	ck_assert_msg(strstr(err, "refused") && strstr(err, "in partition p") && strstr(err, "deadline.libdl.io/runtime"),
		      "%s", err);
	/* A partition the layout has not. */
	ck_assert_int_eq(hook("precreate", "{\"linux\":{\"cgroupsPath\":\"/x/y\"}," ASK("1ms", ",\"deadline.libdl.io/partition\":\"q\"") "}"), 1);
	ck_assert_msg(strstr(err, "no partition \"q\"") && strstr(err, "partitions: p"), "%s", err);
	tl_kill(a);
}
END_TEST

/* What ASK() asks, with this runtime, read back from the kernel. */
static void reserved_as_asked(pid_t pid, uint64_t runtime)
{
	struct dl_params got;

	ck_assert_int_eq(dl_get(pid, &got), DL_SCHED_DEADLINE);
	ck_assert_uint_eq(got.runtime, runtime);
	ck_assert_uint_eq(got.deadline, 100 * MS);
	ck_assert_uint_eq(got.period, 100 * MS);
	ck_assert_uint_eq(got.flags, DL_FLAG_RESET_ON_FORK);
}

/* createRuntime: the state's process gets exactly what was asked, read
 * back from the kernel; what does not fit is refused and left alone. */
START_TEST(test_hook_create_runtime)
{
	char state[512];
	pid_t a, b;

	ck_assert_msg(DL_PART("create", "--partition", "p=0", "--no-move") == 0, "%s", err);
	a = contained(CTR);
	snprintf(state, sizeof(state), "{\"ociVersion\":\"1.0.2\",\"id\":\"x\",\"status\":\"created\",\"pid\":%d,"
		 "\"bundle\":\"%s\"," ASK("60ms", IN_P) "}", (int)a, dir);
	ck_assert_msg(hook("createRuntime", state) == 0, "%s%s", out, err);
	reserved_as_asked(a, 60 * MS);
	/* 0.6 more does not fit: refused, the process as it was. */
	b = contained("ctr2");
	snprintf(state, sizeof(state), "{\"pid\":%d," ASK("60ms", IN_P) "}", (int)b);
	ck_assert_msg(hook("createRuntime", state) == 1, "%s%s", out, err);
	ck_assert_msg(strstr(err, "refused") && strstr(err, "deadline.libdl.io/runtime"), "%s", err);
	ck_assert_int_eq(sched_getscheduler(b), SCHED_OTHER);
	/* No annotation of ours: nothing done. */
	snprintf(state, sizeof(state), "{\"pid\":%d,\"annotations\":{\"x\":\"y\"}}", (int)b);
	ck_assert_msg(hook("createRuntime", state) == 0 && !err[0], "%s", err);
	ck_assert_int_eq(sched_getscheduler(b), SCHED_OTHER);
	/* A process outside the partition it names: refused, never moved. */
	snprintf(state, sizeof(state), "{\"pid\":%d," ASK("1ms", IN_P) "}", (int)getpid());
	ck_assert_int_eq(hook("createRuntime", state), 1);
	ck_assert_msg(strstr(err, "asks for partition p") && strstr(err, "outside the partitions"), "%s", err);
	ck_assert_int_eq(sched_getscheduler(0), SCHED_OTHER);
	tl_kill(a);
	tl_kill(b);
}
END_TEST

#define IN_CLUSTER ",\"deadline.libdl.io/partition\":\"cluster\""

/*
 * deadline.libdl.io/partition: cluster, which libdl-containers(7) says
 * needs nothing more.  precreate places the container below the
 * cluster's cgroup and admits it there, as dl-run --cluster; at
 * createRuntime a process the engine put there gets exactly what was
 * asked (read back from the kernel).  Once the cluster is full both
 * stages refuse, the process left as it was; a process the engine put
 * elsewhere (outside the cluster, or in a partition) is refused and
 * never moved.
 */
START_TEST(test_hook_cluster)
{
	const char *conf = "{\"ociVersion\":\"1.1.0\",\"process\":{\"args\":[\"sleep\"]},"
			   "\"linux\":{\"cgroupsPath\":\"/machine/" CTR "\"}," ASK("60ms", IN_CLUSTER) "}";
	char state[512];
	pid_t a, b, c;

	ck_assert_msg(DL_PART("create", "--partition", "p=0", "--no-move") == 0, "%s", err);
	ck_assert_msg(hook("precreate --scheduler", conf) == 0, "%s%s", out, err);
	ck_assert_msg(strstr(out, "\"cgroupsPath\":\"/libdl/cluster/" CTR "\"") &&
		      strstr(out, "\"scheduler\":{\"policy\":\"SCHED_DEADLINE\",\"runtime\":60000000,"),
		      "%s", out);
	/* The engine made it there: createRuntime sets it, the kernel admits. */
	a = contained_in("cluster", CTR);
	snprintf(state, sizeof(state), "{\"pid\":%d," ASK("60ms", IN_CLUSTER) "}", (int)a);
	ck_assert_msg(hook("createRuntime", state) == 0, "%s%s", out, err);
	reserved_as_asked(a, 60 * MS);
	/* 0.6 more does not fit in the cluster's CPU: refused at both stages. */
	ck_assert_msg(hook("precreate", conf) == 1 && !out[0], "admitted 0.6 more in a cluster of one CPU: %s%s", out, err);
	ck_assert_msg(strstr(err, "refused") && strstr(err, "in the cluster (cgroup /libdl/cluster)") &&
		      strstr(err, "deadline.libdl.io/runtime"), "%s", err);
	b = contained_in("cluster", "ctr2");
	snprintf(state, sizeof(state), "{\"pid\":%d," ASK("60ms", IN_CLUSTER) "}", (int)b);
	ck_assert_msg(hook("createRuntime", state) == 1, "%s%s", out, err);
	ck_assert_msg(strstr(err, "refused") && strstr(err, "in the cluster"), "%s", err);
	ck_assert_int_eq(sched_getscheduler(b), SCHED_OTHER);
	/* Where the engine put it is not the cluster: refused, never moved. */
	snprintf(state, sizeof(state), "{\"pid\":%d," ASK("1ms", IN_CLUSTER) "}", (int)getpid());
	ck_assert_int_eq(hook("createRuntime", state), 1);
	ck_assert_msg(strstr(err, "asks for the cluster") && strstr(err, "is outside it") &&
		      strstr(err, "the cluster's cgroup /libdl/cluster"), "%s", err);
	ck_assert_int_eq(sched_getscheduler(0), SCHED_OTHER);
	c = contained("ctr2");
	snprintf(state, sizeof(state), "{\"pid\":%d," ASK("1ms", IN_CLUSTER) "}", (int)c);
	ck_assert_int_eq(hook("createRuntime", state), 1);
	ck_assert_msg(strstr(err, "asks for the cluster") && strstr(err, "is in partition p"), "%s", err);
	ck_assert_int_eq(sched_getscheduler(c), SCHED_OTHER);
	tl_kill(a);
	tl_kill(b);
	tl_kill(c);
}
END_TEST

/*
 * The hook run as an engine runs it, its system log captured: in a
 * mount namespace of its own whose /dev is a tmpfs holding only "log",
 * a link to a datagram socket of the suite's (glibc's syslog(3) writes
 * to /dev/log).  The stderr and the log line it sent are returned; the
 * log line is "" when none came.  0 with no namespace (a chroot).
 */
static int hook_logged(const char *stage, const char *text, char *line, size_t len)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int sock, in = memfd_create("in", 0), fds[2] = { memfd_create("out", 0), memfd_create("err", 0) }, status;
	char *argv[] = { (char *)tl_tool("libdl-oci-hook"), (char *)stage, NULL };
	char *bufs[2] = { out, err };
	size_t sizes[2] = { sizeof(out), sizeof(err) };
	ssize_t n;
	pid_t pid;

	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s/log", dir);
	unlink(addr.sun_path);
	sock = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	ck_assert_int_ge(sock, 0);
	ck_assert_int_eq(bind(sock, (struct sockaddr *)&addr, sizeof(addr)), 0);
	ck_assert(in >= 0 && fds[0] >= 0 && fds[1] >= 0);
	ck_assert_int_eq(write(in, text, strlen(text)), (ssize_t)strlen(text));
	ck_assert_int_eq(lseek(in, 0, SEEK_SET), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		/* Private first: the tmpfs is never seen outside. */
		if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
		    mount("tmpfs", "/dev", "tmpfs", 0, "mode=0755") < 0 || symlink(addr.sun_path, "/dev/log") < 0)
			_exit(99);
		dup2(in, 0);
		dup2(fds[0], 1);
		dup2(fds[1], 2);
		execv(argv[0], argv);
		_exit(127);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	line[0] = '\0';
	n = recv(sock, line, len - 1, MSG_DONTWAIT);
	line[n > 0 ? n : 0] = '\0';
	close(sock);
	unlink(addr.sun_path);
	for (int i = 0; i < 2; i++) {
		lseek(fds[i], 0, SEEK_SET);
		n = read(fds[i], bufs[i], sizes[i] - 1);
		bufs[i][n > 0 ? n : 0] = '\0';
		close(fds[i]);
	}
	close(in);
	ck_assert(WIFEXITED(status));
	if (WEXITSTATUS(status) == 99)
		return 0;
	return WEXITSTATUS(status) == 1 ? 1 : -WEXITSTATUS(status) - 1;
}

static const char *crio_state(pid_t pid, const char *ns, const char *pod, const char *ctr, const char *more);

/* Only printable ASCII (a trailing newline aside). */
static bool printable(const char *s)
{
	size_t n = strlen(s);

	if (n && s[n - 1] == '\n')
		n--;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] >= 0x7f)
			return false;
	return true;
}

/*
 * Every string from a container reaches the engine's terminal and the
 * system log escaped: a partition's name with a newline and ESC (decoded
 * from the annotation's JSON), and the cgroup the engine named the
 * container's (its id is in it), each refused, in stderr and in the
 * line the hook sent to syslog.
 */
START_TEST(test_hook_escapes)
{
	const char *bad = "{\"linux\":{\"cgroupsPath\":\"/machine/" CTR "\"},"
			  ASK("1ms", ",\"deadline.libdl.io/partition\":\"p\\n\\u001b[31mX\"") "}";
	char line[8192], state[4096];
	pid_t a;
	int rc;

	ck_assert_msg(DL_PART("create", "--partition", "p=0", "--no-move") == 0, "%s", err);
	rc = hook_logged("precreate", bad, line, sizeof(line));
	if (rc == 0) {
		tl_note("no mount namespace here (%s): the system log is the host's run's; stderr alone", err);
		ck_assert_int_eq(hook("precreate", bad), 1);
	} else {
		ck_assert_msg(rc == 1, "rc %d: %s%s", rc, out, err);
		ck_assert_msg(strstr(line, "libdl-oci-hook[") && strstr(line, "refused the container"),
			      "no log line: \"%s\"", line);
		ck_assert_msg(strstr(line, "partition=\"p\\x0a\\x1b[31mX\": no partition \"p\\x0a\\x1b[31mX\"") &&
			      printable(line), "%s", line);
	}
	ck_assert_msg(strstr(err, "partition=\"p\\x0a\\x1b[31mX\": no partition \"p\\x0a\\x1b[31mX\"") && printable(err),
		      "%s", err);
	ck_assert_msg(!out[0], "%s", out);
	/* The process's cgroup, as the engine named it: in partition p,
	 * though the container asks for the cluster. */
	a = contained(ESC_CTR);
	snprintf(state, sizeof(state), "{\"pid\":%d," ASK("1ms", IN_CLUSTER) "}", (int)a);
	rc = hook_logged("createRuntime", state, line, sizeof(line));
	if (rc == 0) {
		ck_assert_int_eq(hook("createRuntime", state), 1);
	} else {
		ck_assert_msg(rc == 1, "rc %d: %s%s", rc, out, err);
		ck_assert_msg(strstr(line, "cgroup /libdl/p/ctr-\\x1b[31m") && printable(line), "%s", line);
	}
	ck_assert_msg(strstr(err, "cgroup /libdl/p/ctr-\\x1b[31m") && printable(err), "%s", err);
	ck_assert_int_eq(sched_getscheduler(a), SCHED_OTHER);
	/* A pod's and a container's names (the kubelet's labels), in the
	 * refusal of the hook's policy (the host has no file: the built-in
	 * one, which allows no namespace). */
	snprintf(state, sizeof(state), "%s",
		 crio_state(a, "tenant", "p\\n\\u001b[31mX", "c\\n\\u001b[31mY",
			    "\"runtime.deadline.libdl.io/c\\n\\u001b[31mY\":\"1ms\","
			    "\"period.deadline.libdl.io/c\\n\\u001b[31mY\":\"100ms\""));
	rc = hook_logged("createRuntime", state, line, sizeof(line));
	if (rc == 0) {
		ck_assert_int_eq(hook("createRuntime", state), 1);
	} else {
		ck_assert_msg(rc == 1, "rc %d: %s%s", rc, out, err);
		ck_assert_msg(strstr(line, "pod p\\x0a\\x1b[31mX, container c\\x0a\\x1b[31mY") && printable(line), "%s", line);
	}
	ck_assert_msg(strstr(err, "pod p\\x0a\\x1b[31mX, container c\\x0a\\x1b[31mY") && printable(err), "%s", err);
	ck_assert_int_eq(sched_getscheduler(a), SCHED_OTHER);
	tl_kill(a);
}
END_TEST

/*
 * Who may: a rootless engine runs its hooks in a user namespace, where
 * the hook refuses, naming the host's uid (no process there holds
 * CAP_SYS_NICE on the host); a user without one is judged by
 * dl-run.conf(5) (the built-in default allows a task 0.25 of a CPU).
 * Each refused before the kernel is asked, the suite's process untouched.
 */
START_TEST(test_hook_rootless_and_policy)
{
	struct passwd *pw = getpwnam("nobody");
	const char *conf = "{\"linux\":{\"cgroupsPath\":\"/x/" CTR "\"}," ASK("50ms", "") "}";
	char *argv[] = { "/usr/bin/unshare", "--user", "--map-root-user", "--", NULL, "precreate", NULL };
	int rc;

	if (!pw)
		return;
	argv[4] = (char *)tl_tool_for_anyone("libdl-oci-hook");
	rc = tl_run_input(argv, pw->pw_uid, pw->pw_gid, conf, out, sizeof(out), err, sizeof(err));
	if (strstr(err, "unshare failed")) {
		/* No user namespace for a user here: in a chroot (the distro
		 * suites) the kernel refuses one to anybody.  The host's run
		 * has it; the policy below runs either way. */
		tl_note("no user namespace here (%s): the rootless case is the host's run", err);
	} else {
		ck_assert_msg(rc == 1 && !out[0], "rc %d: %s%s", rc, out, err);
		ck_assert_msg(strstr(err, "the engine is rootless") && strstr(err, "as host uid"), "%s", err);
		/* Naming a partition: the same reason, not the layout's state
		 * that the namespace cannot read. */
		rc = tl_run_input(argv, pw->pw_uid, pw->pw_gid, "{" ASK("50ms", IN_P) "}", out, sizeof(out), err,
				  sizeof(err));
		ck_assert_msg(rc == 1 && !out[0], "rc %d: %s%s", rc, out, err);
		ck_assert_msg(strstr(err, "the engine is rootless") && strstr(err, "as host uid"), "%s", err);
	}
	/* No namespace: the policy, for nobody. */
	rc = tl_run_input(argv + 4, pw->pw_uid, pw->pw_gid, conf, out, sizeof(out), err, sizeof(err));
	ck_assert_msg(rc == 1 && !out[0], "rc %d: %s%s", rc, out, err);
	ck_assert_msg(strstr(err, "the policy") && strstr(err, "does not allow it for uid"), "%s", err);
	ck_assert_int_eq(sched_getscheduler(0), SCHED_OTHER);
}
END_TEST


/* The test build of the hook, whose dl-run.conf(5) is POD_POLICY, at
 * the createRuntime stage. */
static int pod_hook(const char *text)
{
	char *argv[] = { (char *)tl_test_tool("libdl-oci-hook"), "createRuntime", NULL };

	return tl_run_input(argv, (uid_t)-1, (gid_t)-1, text, out, sizeof(out), err, sizeof(err));
}

static void pod_policy(const char *text)
{
	int fd = open(POD_POLICY ".new", O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0644);

	ck_assert(fd >= 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	ck_assert_int_eq(fchmod(fd, 0644), 0);
	close(fd);
	ck_assert_int_eq(rename(POD_POLICY ".new", POD_POLICY), 0);
}

/* A createRuntime state as CRI-O gives it for a pod's container: the
 * kubelet's labels written as annotations after the pod's own, and again
 * in io.kubernetes.cri-o.Labels; the pod's annotations (more) copied in. */
/* s, already a JSON string's text, as the text of a string inside
 * another (its backslashes doubled). */
static const char *twice(const char *s, char *buf, size_t len)
{
	size_t n = 0;

	for (; *s && n + 2 < len; s++) {
		if (*s == '\\')
			buf[n++] = '\\';
		buf[n++] = *s;
	}
	buf[n] = '\0';
	return buf;
}

static const char *crio_state(pid_t pid, const char *ns, const char *pod, const char *ctr, const char *more)
{
	static char text[4096];
	char p2[256], c2[256];

	snprintf(text, sizeof(text),
		 "{\"ociVersion\":\"1.0.2\",\"id\":\"0123abcd\",\"status\":\"created\",\"pid\":%d,\"bundle\":\"%s\","
		 "\"annotations\":{%s%s\"io.kubernetes.cri-o.ContainerType\":\"container\","
		 "\"io.kubernetes.cri-o.Labels\":\"{\\\"io.kubernetes.container.name\\\":\\\"%s\\\","
		 "\\\"io.kubernetes.pod.name\\\":\\\"%s\\\",\\\"io.kubernetes.pod.namespace\\\":\\\"%s\\\"}\","
		 "\"io.kubernetes.container.name\":\"%s\",\"io.kubernetes.pod.name\":\"%s\","
		 "\"io.kubernetes.pod.namespace\":\"%s\"}}",
		 (int)pid, dir, more, more[0] ? "," : "", twice(ctr, c2, sizeof(c2)), twice(pod, p2, sizeof(p2)), ns, ctr,
		 pod, ns);
	return text;
}

/* The reservation of container NAME, as a pod names it. */
#define FOR(name, runtime, more) "\"runtime.deadline.libdl.io/" name "\":\"" runtime "\"," \
	"\"period.deadline.libdl.io/" name "\":\"100ms\",\"flags.deadline.libdl.io/" name "\":\"reset-on-fork\"" more

static void not_reserved(pid_t pid)
{
	ck_assert_int_eq(sched_getscheduler(pid), SCHED_OTHER);
}

/*
 * A pod's container by its namespace's rule, root's engine included:
 * without a rule refused (the default), in a namespace without one
 * refused naming it, within max-task admitted with exactly what it asked;
 * a second container of the namespace over max-total refused with the
 * figures, admitted once the first is killed; reclaim refused unless
 * allowed; a member not in partitions= refused; the cluster admitted by a
 * rule that allows it.  Every refusal leaves the process SCHED_OTHER.
 */
START_TEST(test_pod_policy)
{
	pid_t a, b, c;

	ck_assert_msg(DL_PART("create", "--partition", "p=0", "--no-move") == 0, "%s", err);
	unlink(POD_POLICY);
	a = contained("crio-a");
	/* No file: the built-in policy allows no namespace. */
	ck_assert_msg(pod_hook(crio_state(a, "rt-team", "ctl", "loop", FOR("loop", "20ms", IN_P_NAMED))) == 1, "%s%s", out, err);
	ck_assert_msg(strstr(err, "no rule of the built-in policy allows namespace rt-team") &&
		      strstr(err, "allow namespace rt-team"), "%s", err);
	not_reserved(a);
	pod_policy("allow namespace rt-team max-task=0.4 max-total=0.5 partitions=p\n"
		   "allow namespace other max-task=0.1\n");
	/* Another namespace's rule does not apply. */
	ck_assert_msg(pod_hook(crio_state(a, "tenant", "ctl", "loop", FOR("loop", "20ms", IN_P_NAMED))) == 1, "%s", err);
	ck_assert_msg(strstr(err, "allows namespace tenant") && strstr(err, "pod ctl, container loop"), "%s", err);
	not_reserved(a);
	/* Within the rule: exactly what was asked. */
	ck_assert_msg(pod_hook(crio_state(a, "rt-team", "ctl", "loop", FOR("loop", "20ms", IN_P_NAMED))) == 0, "%s%s", out, err);
	reserved_as_asked(a, 20 * MS);
	/* A second one over the namespace's total: the figures named. */
	b = contained("crio-b");
	ck_assert_msg(pod_hook(crio_state(b, "rt-team", "ctl2", "loop", FOR("loop", "40ms", IN_P_NAMED))) == 1, "%s", err);
	ck_assert_msg(strstr(err, "namespace rt-team's 1 running container holds 0.2000 of a CPU") &&
		      strstr(err, "0.4000 more would pass the 0.5000 allowed in all"), "%s", err);
	not_reserved(b);
	/* The first killed: its share is free at once. */
	tl_kill(a);
	ck_assert_msg(pod_hook(crio_state(b, "rt-team", "ctl2", "loop", FOR("loop", "40ms", IN_P_NAMED))) == 0, "%s%s", out, err);
	reserved_as_asked(b, 40 * MS);
	/* Reclaim needs allow-flags=reclaim. */
	c = contained("crio-c");
	ck_assert_msg(pod_hook(crio_state(c, "rt-team", "ctl3", "loop",
					  "\"runtime.deadline.libdl.io/loop\":\"5ms\",\"period.deadline.libdl.io/loop\":\"100ms\","
					  "\"flags.deadline.libdl.io/loop\":\"reset-on-fork,reclaim\"" IN_P_NAMED)) == 1, "%s", err);
	ck_assert_msg(strstr(err, "reclaim") && strstr(err, "allow-flags=reclaim"), "%s", err);
	not_reserved(c);
	/* A partition, where kubelet put the pod outside it: no hook of
	 * CRI-O's can move it; the refusal says what to do. */
	ck_assert_msg(pod_hook(crio_state(getpid(), "rt-team", "ctl3", "loop", FOR("loop", "5ms", IN_P_NAMED))) == 1, "%s", err);
	ck_assert_msg(strstr(err, "the pod's container asks for partition p") &&
		      strstr(err, "ask for the cluster (partition.deadline.libdl.io/NAME: cluster)"), "%s", err);
	ck_assert_int_eq(sched_getscheduler(0), SCHED_OTHER);
	/* A member the rule does not list. */
	pod_policy("allow namespace rt-team max-task=0.4 max-total=0.9 partitions=cluster\n");
	ck_assert_msg(pod_hook(crio_state(c, "rt-team", "ctl3", "loop", FOR("loop", "5ms", IN_P_NAMED))) == 1, "%s", err);
	ck_assert_msg(strstr(err, "asks for partition p") && strstr(err, "allows only cluster"), "%s", err);
	not_reserved(c);
	tl_kill(b);
	tl_kill(c);
	/* The cluster, where the rule allows it. */
	a = contained_in("cluster", "crio-a");
	ck_assert_msg(pod_hook(crio_state(a, "rt-team", "ctl", "loop",
					  FOR("loop", "20ms", ",\"partition.deadline.libdl.io/loop\":\"cluster\""))) == 0,
		      "%s%s", out, err);
	reserved_as_asked(a, 20 * MS);
	tl_kill(a);
}
END_TEST

/*
 * One container, one reservation: an annotation names its container; the
 * pod's own deadline.libdl.io/runtime (which CRI-O copies into every
 * container) is refused, saying how to name one; a container the
 * annotations do not name (a sidecar) is passed through untouched.  Who
 * the container is comes from the kubelet's labels: an annotation that
 * disagrees with CRI-O's io.kubernetes.cri-o.Labels is refused.  A
 * container of no pod is judged by an "engine podman" rule when there is
 * one, root's engine included.
 */
START_TEST(test_pod_one_reservation)
{
	char state[4096];
	pid_t a, b;

	ck_assert_msg(DL_PART("create", "--partition", "p=0", "--no-move") == 0, "%s", err);
	pod_policy("allow namespace rt-team max-task=0.4 max-total=0.9\nallow engine podman max-task=0.1\n");
	a = contained("crio-a");
	b = contained("crio-b");
	/* The pod's annotations, for no container. */
	ck_assert_msg(pod_hook(crio_state(a, "rt-team", "ctl", "loop",
					  "\"deadline.libdl.io/runtime\":\"20ms\",\"deadline.libdl.io/period\":\"100ms\"")) == 1,
		      "%s", err);
	ck_assert_msg(strstr(err, "is the pod's, for no container") && strstr(err, "runtime.deadline.libdl.io/loop"),
		      "%s", err);
	not_reserved(a);
	/* The sidecar of a pod whose loop is named: nothing done. */
	ck_assert_msg(pod_hook(crio_state(b, "rt-team", "ctl", "sidecar", FOR("loop", "20ms", IN_P_NAMED))) == 0 && !err[0],
		      "%s", err);
	not_reserved(b);
	ck_assert_msg(pod_hook(crio_state(a, "rt-team", "ctl", "loop", FOR("loop", "20ms", IN_P_NAMED))) == 0, "%s%s", out, err);
	reserved_as_asked(a, 20 * MS);
	/* A pod's annotation naming another namespace than the kubelet's. */
	snprintf(state, sizeof(state), "%s", crio_state(b, "rt-team", "ctl", "loop", FOR("loop", "20ms", IN_P_NAMED)));
	memcpy(strstr(state, "\"io.kubernetes.pod.namespace\":\"rt-team\"}}") + 31, "rt-teax", 7);
	ck_assert_msg(pod_hook(state) == 1, "%s", err);
	ck_assert_msg(strstr(err, "io.kubernetes.cri-o.Labels says \"rt-team\""), "%s", err);
	not_reserved(b);
	/* podman's, by the engine's rule: 0.2 is above its 0.1. */
	snprintf(state, sizeof(state), "{\"pid\":%d," ASK("20ms", IN_P) "}", (int)b);
	ck_assert_msg(pod_hook(state) == 1, "%s", err);
	ck_assert_msg(strstr(err, "no Kubernetes pod (podman's)") && strstr(err, "allow engine podman"), "%s", err);
	not_reserved(b);
	snprintf(state, sizeof(state), "{\"pid\":%d," ASK("5ms", IN_P) "}", (int)b);
	ck_assert_msg(pod_hook(state) == 0, "%s%s", out, err);
	reserved_as_asked(b, 5 * MS);
	tl_kill(a);
	tl_kill(b);
}
END_TEST

/*
 * Two hooks at once for one namespace's last share (0.3 left, 0.2 asked
 * by each): exactly one is admitted, 20 times over.
 */
START_TEST(test_pod_race)
{
	ck_assert_msg(DL_PART("create", "--partition", "p=0", "--no-move") == 0, "%s", err);
	pod_policy("allow namespace rt-team max-task=0.4 max-total=0.3\n");
	for (int round = 0; round < 20; round++) {
		pid_t v[2] = { contained("crio-a"), contained("crio-b") }, h[2];
		int admitted = 0;

		for (int i = 0; i < 2; i++) {
			const char *state = crio_state(v[i], "rt-team", i ? "ctl-b" : "ctl-a", "loop",
						       FOR("loop", "20ms", IN_P_NAMED));
			char *argv[] = { (char *)tl_test_tool("libdl-oci-hook"), "createRuntime", NULL };
			int in[2];

			ck_assert_int_eq(pipe(in), 0);
			h[i] = fork();
			ck_assert_int_ge(h[i], 0);
			if (h[i] == 0) {
				int null = open("/dev/null", O_WRONLY);

				dup2(in[0], 0);
				dup2(null, 1);
				dup2(null, 2);
				close(in[1]);
				execv(argv[0], argv);
				_exit(127);
			}
			close(in[0]);
			ck_assert_int_eq(write(in[1], state, strlen(state)), (ssize_t)strlen(state));
			close(in[1]);
		}
		for (int i = 0; i < 2; i++) {
			int status;

			ck_assert_int_eq(waitpid(h[i], &status, 0), h[i]);
			ck_assert(WIFEXITED(status) && WEXITSTATUS(status) <= 1);
			admitted += WEXITSTATUS(status) == 0;
			ck_assert_int_eq(sched_getscheduler(v[i]) & ~SCHED_RESET_ON_FORK,
					 WEXITSTATUS(status) == 0 ? DL_SCHED_DEADLINE : SCHED_OTHER);
		}
		ck_assert_msg(admitted == 1, "round %d: %d of 2 admitted within a total that admits one", round, admitted);
		for (int i = 0; i < nkids; i++) {
			kill(kids[i], SIGKILL);
			waitpid(kids[i], NULL, 0);
		}
		nkids = 0;
		rm_cgroups();
	}
}
END_TEST

/* A process of ours that waits, killed in the teardown. */
static pid_t waiting(void)
{
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		for (;;)
			pause();
	}
	ck_assert(nkids < (int)ARRAY_SIZE(kids));
	kids[nkids++] = pid;
	return pid;
}

/* How many records dl_container_unreserved_list(3) gives for pid, and
 * the last one's names. */
static int unreserved_of(pid_t pid, struct dl_container_unreserved *got)
{
	struct dl_container_unreserved *v;
	size_t n;
	int found = 0;

	ck_assert_int_eq(dl_container_unreserved_list(&v, &n), 0);
	for (size_t i = 0; i < n; i++)
		if (v[i].pid == pid) {
			found++;
			if (got)
				*got = v[i];
		}
	free(v);
	return found;
}

/*
 * libdl-nri's record of a container that asks for a reservation and runs
 * without one: the hook's unreserved stage records it once however often
 * it is told, by its pod's namespace and name and its own, a name's odd
 * bytes shown as '?'; a container that asks for nothing, or one that
 * holds its reservation, is not recorded; one that gets a reservation
 * later, or whose process ends, is no longer listed.  dl-stat shows them
 * in its table, its JSON and its metrics, the count 0 included.
 */
START_TEST(test_hook_unreserved)
{
	struct dl_container_unreserved u;
	pid_t a = waiting(), b = waiting(), c = waiting();
	char *stat_argv[] = { (char *)tl_tool("dl-stat"), "--prometheus", NULL }, line[512], path[64];
	struct stat st;
	size_t total;
	/* The records' file as found: made here, removed here. */
	bool had = access("/run/libdl/containers.unreserved", F_OK) == 0;

	ck_assert_msg(hook("unreserved", crio_state(a, "rt-team", "ctl", "loop", FOR("loop", "20ms", ""))) == 0, "%s",
		      err);
	ck_assert_msg(!out[0] && !err[0], "%s%s", out, err);
	ck_assert_int_eq(unreserved_of(a, &u), 1);
	ck_assert_str_eq(u.ns, "rt-team");
	ck_assert_str_eq(u.pod, "ctl");
	ck_assert_str_eq(u.name, "loop");
	ck_assert_int_eq(hook("unreserved", crio_state(a, "rt-team", "ctl", "loop", FOR("loop", "20ms", ""))), 0);
	ck_assert_int_eq(unreserved_of(a, NULL), 1);
	ck_assert_int_eq(lstat("/run/libdl/containers.unreserved", &st), 0);
	ck_assert(S_ISREG(st.st_mode) && (st.st_mode & 07777) == 0600 && st.st_uid == 0);
	/* A pod's name is the runtime's text: only [A-Za-z0-9._-] kept. */
	ck_assert_int_eq(hook("unreserved", crio_state(b, "rt-team", "we ird\\u001b", "loop", FOR("loop", "20ms", ""))), 0);
	ck_assert_int_eq(unreserved_of(b, &u), 1);
	ck_assert_str_eq(u.pod, "we?ird?");
	/* Asking for nothing (another container's keys): not recorded. */
	ck_assert_int_eq(hook("unreserved", crio_state(c, "rt-team", "ctl", "sidecar", FOR("loop", "20ms", ""))), 0);
	ck_assert_int_eq(unreserved_of(c, NULL), 0);
	/* Holding a reservation: not recorded; given one later: not listed. */
	ck_assert_int_eq(dl_set(c, &(struct dl_params){ .runtime = 1000000, .deadline = 100000000, .period = 100000000 }),
			 0);
	ck_assert_int_eq(hook("unreserved", crio_state(c, "rt-team", "ctl", "loop", FOR("loop", "20ms", ""))), 0);
	ck_assert_int_eq(unreserved_of(c, NULL), 0);
	ck_assert_int_eq(dl_set(b, &(struct dl_params){ .runtime = 1000000, .deadline = 100000000, .period = 100000000 }),
			 0);
	ck_assert_int_eq(unreserved_of(b, NULL), 0);
	/* dl-stat's metrics: the count, and the container by name. */
	{
		struct dl_container_unreserved *v;

		ck_assert_int_eq(dl_container_unreserved_list(&v, &total), 0);
		free(v);
	}
	ck_assert_int_eq(tl_run(stat_argv, out, sizeof(out), err, sizeof(err)), 0);
	snprintf(line, sizeof(line), "\nlibdl_containers_unreserved %zu\n", total);
	ck_assert_msg(strstr(out, line), "%s", out);
	ck_assert_msg(strstr(out, "\nlibdl_container_unreserved_info{namespace=\"rt-team\",pod=\"ctl\",container=\"loop\"} 1\n"),
		      "%s", out);
	ck_assert_msg(!strstr(out, "pod=\"we?ird?\""), "a container with its reservation is listed:\n%s", out);
	stat_argv[1] = "--tasks";
	ck_assert_int_eq(tl_run(stat_argv, out, sizeof(out), err, sizeof(err)), 0);
	snprintf(line, sizeof(line), "process %d: container loop of pod ctl in namespace rt-team\n", (int)a);
	ck_assert_msg(strstr(out, line), "%s", out);
	/* Its process ended: no longer listed, nor counted. */
	kill(a, SIGKILL);
	ck_assert_int_eq(waitpid(a, NULL, 0), a);
	for (int i = 0; i < nkids; i++)
		if (kids[i] == a)
			kids[i--] = kids[--nkids]; /* reaped: not the teardown's to kill */
	ck_assert_int_eq(unreserved_of(a, NULL), 0);
	snprintf(path, sizeof(path), "/proc/%d", (int)a);
	ck_assert_int_ne(access(path, F_OK), 0);
	if (!had)
		unlink("/run/libdl/containers.unreserved");
}
END_TEST

static Suite *make(void)
{
	Suite *s = suite_create("containers");
	TCase *tc = tcase_create("containers");

	if (access("/sys/fs/cgroup/cpuset/cpuset.cpus", F_OK) != 0)
		tl_skip_all("no cgroup v1 cpuset hierarchy at /sys/fs/cgroup/cpuset: the cgroupfs runtime's steps are the VM's here");
	tl_skip_if_layout();
	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_oci_verdict_is_the_kernels);
	tcase_add_test(tc, test_destroy_names_what_runs);
	tcase_add_test(tc, test_oci_dotdot_refused);
	tcase_add_test(tc, test_oci_layout_unknown);
	tcase_add_test(tc, test_hook_precreate);
	tcase_add_test(tc, test_hook_create_runtime);
	tcase_add_test(tc, test_hook_cluster);
	tcase_add_test(tc, test_hook_escapes);
	tcase_add_test(tc, test_hook_rootless_and_policy);
	tcase_add_test(tc, test_pod_policy);
	tcase_add_test(tc, test_pod_one_reservation);
	tcase_add_test(tc, test_pod_race);
	tcase_add_test(tc, test_hook_unreserved);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	int ret = tl_main(make, TL_KERNEL);

	/* What a failed case left (its teardown does not run): its
	 * processes died with it, then its cgroups, then the layout. */
	rm_cgroups();
	tl_layout_restore(NULL);
	return ret;
}
