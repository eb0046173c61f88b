/*
 * backend-systemd.c: a layout on a host whose PID 1 is systemd, on cgroup v2,
 * made of systemd units so that systemd keeps it.
 *
 * systemd owns the cgroup tree: it rewrites a cgroup's subtree_control on
 * every daemon-reload to what its units need, so a cpuset cgroup made
 * behind its back loses its controller and its partition
 * (docs/kernel-notes.md, "systemd on cgroup v2").  A unit with AllowedCPUs= makes systemd keep
 * cpuset enabled on its path (systemd.resource-control(5)).  So:
 *
 *   libdl.slice              AllowedCPUs= every partition's CPUs, "root"
 *   libdl.slice/libdl-NAME.slice   AllowedCPUs= NAME's CPUs, "root" or
 *                            "isolated" (systemd nests slices by the
 *                            dashes of their names, systemd.slice(5); the
 *                            kernel makes a cgroup a partition only when
 *                            its parent is one)
 *
 * as unit files in /run/systemd/system (gone at reboot, like the
 * partitions), loaded with the manager's Reload and started with
 * StartUnit over D-Bus (sd-bus); then the partition types are written
 * into cpuset.cpus.partition and read back.  The cluster is the rest of
 * the machine: the root cgroup's own root domain, where every other unit
 * is.  Processes join a partition through systemd too: a transient scope
 * in the slice (StartTransientUnit, as systemd-run --scope does).
 *
 * libsystemd is not linked: it is loaded (dlopen) by the first call that
 * talks to systemd, so only layouts on a systemd host pay for it (see
 * sd_load() below).  Without libsystemd's headers at build time
 * dl_sd_host() is false and the direct cgroupfs path (backend-v2.c) is
 * used everywhere.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "layout/layout.h"
#include "layout/systemd.h"

#define UNIT_DIR "/run/systemd/system"
#define RUNTIME_CONTROL "/run/systemd/system.control"
#define WAIT_MS 10000

/* Like sd_booted(3): systemd is PID 1 when /run/systemd/system is a
 * folder.  And cgroup v2 with the cpuset controller. */
bool dl_sd_host(void)
{
#ifdef HAVE_LIBSYSTEMD
	struct stat st;

	if (secure_getenv("LIBDL_NO_SYSTEMD"))
		return false;
	return lstat("/run/systemd/system", &st) == 0 && S_ISDIR(st.st_mode) &&
	       dl_cpuset_version() == 2;
#else
	return false;
#endif
}

int dl_sd_cgroup(const char *member, char *buf, size_t len)
{
	if (!member)
		return dl_pathf(buf, len, DL_SD_PARENT ".slice");
	if (strcmp(member, DL_CLUSTER) == 0)
		return dl_pathf(buf, len, "%s", ""); /* the rest: the root cgroup */
	return dl_pathf(buf, len, DL_SD_PARENT ".slice/" DL_SD_PARENT "-%s.slice", member);
}

struct counts {
	uint64_t *threads, *deadline;
};

/* The threads of one cgroup (its cgroup.threads), and how many are
 * deadline threads. */
static int count_one(const char *cg, int depth, void *arg)
{
	struct counts *c = arg;
	char path[4096], line[64];
	FILE *f;

	(void)depth;
	if (dl_cs_path(cg, "cgroup.threads", path, sizeof(path)) < 0 || !(f = fopen(path, "re")))
		return DL_CS_DESCEND;
	while (fgets(line, sizeof(line), f)) {
		struct dl_sched_attr a;
		pid_t tid;

		line[strcspn(line, "\n")] = '\0';
		tid = dl_parse_pid(line);
		if (tid <= 0 || dl_sys_getattr(tid, &a) < 0)
			continue; /* exited */
		(*c->threads)++;
		if (a.sched_policy == DL_SCHED_DEADLINE)
			(*c->deadline)++;
	}
	fclose(f);
	return DL_CS_DESCEND;
}

/* Threads in a cgroup and below (a slice's scopes and services). */
int dl_sd_count(const char *cg, uint64_t *threads, uint64_t *deadline)
{
	struct counts c = { threads, deadline };
	char path[4096];
	int err;

	if ((err = dl_cs_path(cg, "cgroup.threads", path, sizeof(path))))
		return err;
	count_one(cg, 0, &c);
	return dl_cs_walk(cg, count_one, &c);
}

#ifdef HAVE_LIBSYSTEMD
#include <pthread.h>
#include <stdio.h>
#include <systemd/sd-bus.h>

/*
 * libsystemd, loaded when first needed.  Linked, the loader would map it
 * and what it links (libgcrypt, liblzma, libzstd, liblz4, libgpg-error)
 * into every start of every program that uses libdeadline, on every host:
 * a few milliseconds that made `dl-run -- true` 1.5 times as slow as chrt
 * (bench/README, experiment 3), for calls that only layouts on a
 * systemd host make.  So it is opened by soname, as systemd loads its own
 * optional libraries; its headers still type every call (a call through
 * lib.sd_bus_x has sd_bus_x's prototype).  The soname has been
 * libsystemd.so.0 since libsystemd existed (systemd 209); the calls used
 * here are all in 221, the version configure asks for.  The ELF note
 * declares it (sys.h, DL_ELF_NOTE_DLOPEN).
 */
#define LIBSYSTEMD_SONAME "libsystemd.so.0"
DL_ELF_NOTE_DLOPEN(libsystemd, "[{\"feature\":\"systemd\",\"description\":\"cpuset partitions "
				"made of systemd units on a systemd host (sd-bus)\",\"priority\":\"suggested\","
				"\"soname\":[\"" LIBSYSTEMD_SONAME "\"]}]");

#define SD_SYMBOLS(X) \
	X(sd_bus_new) \
	X(sd_bus_set_address) \
	X(sd_bus_start) \
	X(sd_bus_open_system) \
	X(sd_bus_unref) \
	X(sd_bus_flush_close_unref) \
	X(sd_bus_call) \
	X(sd_bus_call_methodv) \
	X(sd_bus_message_new_method_call) \
	X(sd_bus_message_append) \
	X(sd_bus_message_append_array) \
	X(sd_bus_message_open_container) \
	X(sd_bus_message_close_container) \
	X(sd_bus_message_unref) \
	X(sd_bus_error_free)

static struct {
#define SD_FIELD(name) __typeof__(name) *name;
	SD_SYMBOLS(SD_FIELD)
#undef SD_FIELD
} lib;

static pthread_once_t lib_once = PTHREAD_ONCE_INIT;
static char lib_error[512]; /* empty once loaded */

static void lib_open(void)
{
	const char *soname = dl_test_hooks && dl_test_hooks->libsystemd ? dl_test_hooks->libsystemd
									: LIBSYSTEMD_SONAME;
#define SD_NAME(name) #name,
	static const char *const names[] = { SD_SYMBOLS(SD_NAME) };
#undef SD_NAME
	void *syms[ARRAY_SIZE(names)];
	size_t i = 0;

	/* Never closed: libsystemd keeps per-thread state (default buses)
	 * that must not be unmapped under a thread that holds it. */
	if (!dl_lib_load(soname, names, syms, ARRAY_SIZE(names), lib_error, sizeof(lib_error)))
		return;
#define SD_SET(name) memcpy(&lib.name, &syms[i++], sizeof(void *));
	SD_SYMBOLS(SD_SET)
#undef SD_SET
}

/* libsystemd's calls in lib, or ENOTSUP and why (dl_errmsg()).  Only a
 * systemd host gets here (dl_sd_host()), where the direct path would not
 * last: no fallback. */
static int sd_load(void)
{
	pthread_once(&lib_once, lib_open);
	if (lib_error[0])
		return dl_fail(-ENOTSUP, "this host's PID 1 is systemd, so layouts are made through its D-Bus API, but " LIBSYSTEMD_SONAME " could not be loaded (%s): install the Debian package libsystemd0",
			       lib_error);
	return 0;
}

#define DEST "org.freedesktop.systemd1"
#define PATH "/org/freedesktop/systemd1"
#define MANAGER "org.freedesktop.systemd1.Manager"

/* systemd's own bus first as root (as systemctl does: it works before
 * and without dbus-daemon), else the system bus. */
static int bus_open(sd_bus **out)
{
	sd_bus *bus = NULL;
	int r;

	if ((r = sd_load()))
		return r;
	if (geteuid() == 0 && access("/run/systemd/private", F_OK) == 0) {
		r = lib.sd_bus_new(&bus);
		if (r >= 0)
			r = lib.sd_bus_set_address(bus, "unix:path=/run/systemd/private");
		if (r >= 0)
			r = lib.sd_bus_start(bus);
		if (r >= 0) {
			*out = bus;
			return 0;
		}
		lib.sd_bus_unref(bus);
		bus = NULL;
	}
	r = lib.sd_bus_open_system(&bus);
	if (r < 0)
		return dl_fail(r, "cannot talk to systemd over D-Bus: %s", strerror(-r));
	*out = bus;
	return 0;
}

static int bus_call(sd_bus *bus, const char *method, const char *what, const char *types, ...)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	sd_bus_message *reply = NULL;
	va_list ap;
	int r;

	if ((r = dl_fault(method)))
		return r;
	va_start(ap, types);
	r = lib.sd_bus_call_methodv(bus, DEST, PATH, MANAGER, method, &e, &reply, types, ap);
	va_end(ap);
	if (r < 0)
		dl_fail(r, "systemd refused to %s: %s", what, e.message ? e.message : strerror(-r));
	lib.sd_bus_error_free(&e);
	lib.sd_bus_message_unref(reply);
	return r < 0 ? r : 0;
}

static int unit_path(char *buf, size_t len, const char *member)
{
	if (!member)
		return dl_pathf(buf, len, UNIT_DIR "/" DL_SD_PARENT ".slice");
	return dl_pathf(buf, len, UNIT_DIR "/" DL_SD_PARENT "-%s.slice", member);
}

static int unit_name(char *buf, size_t len, const char *member)
{
	if (!member)
		return dl_pathf(buf, len, DL_SD_PARENT ".slice");
	return dl_pathf(buf, len, DL_SD_PARENT "-%s.slice", member);
}

/* A unit file, whole or not at all (dl_file_replace()).  fsync'd: a
 * unit systemd reads at its next daemon-reload must not be empty after
 * a crash. */
static int write_unit(const char *member, const dl_cpus_t *cpus, const dl_cpus_t *mems)
{
	char path[4096], c[4096], m[DL_CPUS_STRLEN], text[10000];
	int n, err;

	if ((err = dl_fault("a unit file")))
		return err;
	if ((err = unit_path(path, sizeof(path), member)))
		return err;
	n = snprintf(text, sizeof(text),
		     "# Written by libdeadline (dl-part create); dl-part destroy removes it.\n"
		     "[Unit]\nDescription=%s%s\n\n[Slice]\nAllowedCPUs=%s\nAllowedMemoryNodes=%s\n",
		     member ? "libdl partition " : "libdl partitions (SCHED_DEADLINE root domains)",
		     member ? member : "", dl_cpus_format(cpus, c, sizeof(c)), dl_cpus_format(mems, m, sizeof(m)));
	if (n < 0 || (size_t)n >= sizeof(text))
		return dl_fail(-ENAMETOOLONG, "the unit %s would be too long", path);
	err = dl_file_replace(path, text, (size_t)n, 0644, true);
	if (err)
		return dl_fail(err, "cannot write the unit %s: %s", path, strerror(-err));
	return 0;
}

/*
 * A slice that was live before its unit file came: one that a unit
 * started at boot names in Slice=, before dl-part.service has made the
 * file.  systemd 257 does not apply the file's AllowedCPUs= to it at the
 * Reload (seen in qemu; docs/kernel-notes.md, "systemd on cgroup v2"): a
 * runtime property change does, as `systemctl set-property --runtime`,
 * with a drop-in in RUNTIME_CONTROL that destroy removes.
 */
static int set_cpus(sd_bus *bus, const char *name, const dl_cpus_t *cpus)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	sd_bus_message *m = NULL, *reply = NULL;
	uint8_t mask[DL_CPUS_MAX / 8] = { 0 };
	size_t n = 0;
	int r;

	for (int c = 0; c < DL_CPUS_MAX; c++) {
		if (dl_cpus_isset(cpus, c)) {
			mask[c / 8] |= (uint8_t)(1u << (c % 8));
			n = (size_t)c / 8 + 1;
		}
	}
	r = lib.sd_bus_message_new_method_call(bus, &m, DEST, PATH, MANAGER, "SetUnitProperties");
	if (r >= 0)
		r = lib.sd_bus_message_append(m, "sb", name, 1);
	if (r >= 0)
		r = lib.sd_bus_message_open_container(m, 'a', "(sv)");
	if (r >= 0)
		r = lib.sd_bus_message_open_container(m, 'r', "sv");
	if (r >= 0)
		r = lib.sd_bus_message_append(m, "s", "AllowedCPUs");
	if (r >= 0)
		r = lib.sd_bus_message_open_container(m, 'v', "ay");
	if (r >= 0)
		r = lib.sd_bus_message_append_array(m, 'y', mask, n);
	for (int i = 0; i < 3 && r >= 0; i++)
		r = lib.sd_bus_message_close_container(m);
	if (r < 0) {
		dl_fail(r, "cannot build the D-Bus call for %s: %s", name, strerror(-r));
		goto out;
	}
	r = dl_fault("SetUnitProperties");
	if (!r && (r = lib.sd_bus_call(bus, m, 0, &e, &reply)) < 0)
		dl_fail(r, "systemd refused to set AllowedCPUs of %s: %s", name, e.message ? e.message : strerror(-r));
out:
	lib.sd_bus_error_free(&e);
	lib.sd_bus_message_unref(reply);
	lib.sd_bus_message_unref(m);
	return r < 0 ? r : 0;
}

/* set_cpus()'s drop-in, gone with the layout. */
static void remove_dropin(const char *name)
{
	char path[4096];

	if (dl_pathf(path, sizeof(path), RUNTIME_CONTROL "/%s.d/50-AllowedCPUs.conf", name) == 0)
		unlink(path);
	if (dl_pathf(path, sizeof(path), RUNTIME_CONTROL "/%s.d", name) == 0)
		rmdir(path);
}

/* Until the cgroup exists with these CPUs (systemd realizes it with its
 * cpuset.cpus), or a timeout. */
static int wait_cgroup(const char *cg, const dl_cpus_t *cpus)
{
	uint64_t until = dl_now_ns() + WAIT_MS * 1000000ULL;
	dl_cpus_t now;
	char a[DL_CPUS_STRLEN];

	for (;;) {
		if (dl_cs_cpus(cg, "cpuset.cpus", &now) == 0 && dl_cpus_equal(&now, cpus))
			return 0;
		if (dl_now_ns() >= until)
			break;
		dl_sleep_ns(10000000);
	}
	return dl_fail(-ETIMEDOUT, "systemd did not make cgroup /%s with cpuset.cpus %s in %d s",
		       cg, dl_cpus_format(cpus, a, sizeof(a)), WAIT_MS / 1000);
}

static int wait_gone(const char *cg)
{
	uint64_t until = dl_now_ns() + WAIT_MS * 1000000ULL;

	while (dl_cs_exists(cg)) {
		if (dl_now_ns() >= until)
			return dl_fail(-ETIMEDOUT, "systemd did not remove cgroup /%s in %d s", cg, WAIT_MS / 1000);
		dl_sleep_ns(10000000);
	}
	return 0;
}

int dl_sd_check(const struct dl_layout *l)
{
	dl_cpus_t online, rest;
	char a[DL_CPUS_STRLEN];
	int err;

	/* Before anything is changed: a create that cannot talk to systemd
	 * could not roll itself back through it either. */
	if ((err = sd_load()))
		return err;
	for (size_t i = 0; i < l->nparts; i++)
		if (strchr(l->parts[i].name, '-'))
			return dl_fail(-EINVAL, "partition name \"%s\" holds a '-': on a systemd host a partition is the slice " DL_SD_PARENT "-NAME.slice and systemd nests slices at each '-'; use '_'",
				       l->parts[i].name);
	dl_cpus_online(&online);
	rest = online;
	for (size_t i = 0; i < l->nparts; i++)
		dl_cpus_andnot(&rest, &l->parts[i].cpus);
	if (!dl_cpus_equal(&rest, &l->cluster))
		return dl_fail(-EINVAL, "on a systemd host the cluster is the rest of the machine (CPUs %s here), where systemd's other units run: leave the cluster out",
			       dl_cpus_format(&rest, a, sizeof(a)));
	/* Its cgroup may exist: systemd makes a slice that a unit names in
	 * Slice= (one waiting for the layout at boot) without a file. */
	if (access(UNIT_DIR "/" DL_SD_PARENT ".slice", F_OK) == 0)
		return dl_fail(-EEXIST, "%s/" DL_SD_PARENT ".slice exists but no layout is recorded: stop the slice (systemctl stop " DL_SD_PARENT ".slice) and remove the file, then create again",
			       UNIT_DIR);
	return 0;
}

int dl_sd_create(struct dl_layout *l, struct dl_layout_result *res)
{
	const char *type = l->flags & DL_LAYOUT_ISOLATED ? "isolated" : "root";
	char name[256], cg[4200];
	bool *live;
	dl_cpus_t all;
	sd_bus *bus;
	int err;

	dl_cpus_zero(&all);
	for (size_t i = 0; i < l->nparts; i++)
		dl_cpus_or(&all, &l->parts[i].cpus);
	/* Which slices are live already (index nparts: the parent). */
	live = calloc(l->nparts + 1, sizeof(*live));
	if (!live)
		return dl_fail(-ENOMEM, "out of memory");
	for (size_t i = 0; i <= l->nparts; i++)
		live[i] = dl_sd_cgroup(i < l->nparts ? l->parts[i].name : NULL, cg, sizeof(cg)) == 0 &&
			  dl_cs_exists(cg);
	err = bus_open(&bus);
	if (err) {
		free(live);
		return err;
	}
	err = write_unit(NULL, &all, &l->mems);
	for (size_t i = 0; !err && i < l->nparts; i++)
		err = write_unit(l->parts[i].name, &l->parts[i].cpus, &l->mems);
	if (!err)
		err = dl_step(res, "unit files");
	if (!err)
		err = bus_call(bus, "Reload", "reload its units", "");
	/* Starting a slice starts its parent first. */
	for (size_t i = 0; !err && i < l->nparts; i++) {
		unit_name(name, sizeof(name), l->parts[i].name);
		err = bus_call(bus, "StartUnit", "start the slice", "ss", name, "replace");
		if (!err)
			err = dl_step(res, "slice started");
	}
	/* The parent first: a child's cpuset needs its parent's. */
	for (size_t k = 0; !err && k <= l->nparts; k++) {
		size_t i = k == 0 ? l->nparts : k - 1;

		if (!live[i])
			continue;
		unit_name(name, sizeof(name), i < l->nparts ? l->parts[i].name : NULL);
		err = set_cpus(bus, name, i < l->nparts ? &l->parts[i].cpus : &all);
	}
	free(live);
	if (!err && !(err = dl_sd_cgroup(NULL, cg, sizeof(cg))) && !(err = wait_cgroup(cg, &all)))
		err = dl_cs_make_partition(cg, "root");
	for (size_t i = 0; !err && i < l->nparts; i++) {
		dl_sd_cgroup(l->parts[i].name, cg, sizeof(cg));
		err = wait_cgroup(cg, &l->parts[i].cpus);
		if (!err)
			err = dl_cs_make_partition(cg, type);
		if (!err)
			err = dl_step(res, "partition");
	}
	lib.sd_bus_flush_close_unref(bus);
	return err;
}

static uint64_t busy(const char *cg)
{
	uint64_t threads = 0, dl = 0;

	dl_sd_count(cg, &threads, &dl);
	return threads;
}

int dl_sd_destroy(const struct dl_layout *l, struct dl_layout_result *res)
{
	char name[256], cg[4200], path[4096], state[256];
	int err = 0, e;
	sd_bus *bus;

	for (size_t i = 0; i < l->nparts; i++) {
		dl_sd_cgroup(l->parts[i].name, cg, sizeof(cg));
		if (!dl_layout_left(l, (int)i) && dl_cs_exists(cg) && busy(cg))
			return dl_fail(-EBUSY, "partition %s still runs tasks (systemctl status %s-%s.slice lists their units): stop them first; destroying the slice would stop them",
				       l->parts[i].name, DL_SD_PARENT, l->parts[i].name);
	}
	err = bus_open(&bus);
	if (err)
		return err;
	/* Member first, children before the parent, once no deadline exit
	 * is in flight (libdeadline(3), BUGS). */
	dl_wait_quiet(5000);
	/* What is left keeps its slice, and the parent slice with it. */
	for (int i = 0; i <= (int)l->nparts; i++) {
		if (dl_layout_left(l, i) || (i == (int)l->nparts && res->left))
			continue;
		dl_sd_cgroup(i < (int)l->nparts ? l->parts[i].name : NULL, cg, sizeof(cg));
		if (dl_cs_read(cg, "cpuset.cpus.partition", state, sizeof(state)) == 0 &&
		    strcmp(state, "member") != 0 && (e = dl_cs_write(cg, "cpuset.cpus.partition", "member")) &&
		    !err)
			err = dl_fail(e, "cannot turn /%s back into a member: %s", cg, dl_cg_why(e));
	}
	if (err)
		goto out;
	for (int i = 0; i <= (int)l->nparts && !err; i++) {
		const char *m = i < (int)l->nparts ? l->parts[i].name : NULL;

		if (dl_layout_left(l, i) || (i == (int)l->nparts && res->left))
			continue;
		unit_name(name, sizeof(name), m);
		dl_sd_cgroup(m, cg, sizeof(cg));
		if (dl_cs_exists(cg) && !(err = bus_call(bus, "StopUnit", "stop the slice", "ss", name, "replace")))
			err = wait_gone(cg);
	}
	for (int i = 0; i <= (int)l->nparts && !err; i++) {
		if (dl_layout_left(l, i) || (i == (int)l->nparts && res->left))
			continue;
		unit_path(path, sizeof(path), i < (int)l->nparts ? l->parts[i].name : NULL);
		if ((e = dl_fault("remove a unit file")))
			err = e;
		else if (unlink(path) < 0 && errno != ENOENT)
			err = dl_fail(-errno, "cannot remove %s: %s", path, strerror(errno));
		unit_name(name, sizeof(name), i < (int)l->nparts ? l->parts[i].name : NULL);
		remove_dropin(name);
	}
	if (!err)
		err = bus_call(bus, "Reload", "reload its units", "");
out:
	lib.sd_bus_flush_close_unref(bus);
	return err;
}

/* Until the process is in a cgroup below cg (/proc/PID/cgroup), for up
 * to ms milliseconds. */
static int wait_in(pid_t pid, const char *cg, unsigned int ms)
{
	uint64_t until = dl_now_ns() + ms * 1000000ULL;
	char path[64], now[4200];

	snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
	for (;;) {
		if (dl_read_file(path, now, sizeof(now)) < 0)
			return dl_fail(-ESRCH, "no process %d", (int)pid);
		/* "0::/libdl.slice/libdl-rt.slice/libdl-rt-123.scope" */
		if (strncmp(now, "0::/", 4) == 0 && strncmp(now + 4, cg, strlen(cg)) == 0 &&
		    now[4 + strlen(cg)] == '/')
			return 0;
		if (dl_now_ns() >= until)
			return dl_fail(-ETIMEDOUT, "systemd did not move process %d into /%s in %u s",
				       (int)pid, cg, ms / 1000);
		dl_sleep_ns(5000000);
	}
}

int dl_sd_attach(const char *member, pid_t pid)
{
	char slice[256], scope[256], cg[4200], desc[256];
	sd_bus_error e = SD_BUS_ERROR_NULL;
	sd_bus_message *m = NULL, *reply = NULL;
	sd_bus *bus;
	int r;

	if (strcmp(member, DL_CLUSTER) == 0) {
		/* The cluster is the rest of the machine: any unit outside the
		 * layout's slice is in it already. */
		char path[64], now[4200], shown[1100];

		snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
		if (dl_read_file(path, now, sizeof(now)) < 0)
			return dl_fail(-ESRCH, "no process %d", (int)pid);
		/* The cgroup's path is its owner's choice: escaped. */
		if (strstr(now, "::/" DL_SD_PARENT ".slice/"))
			return dl_fail(-EBUSY, "process %d runs in a partition (%s): on a systemd host the cluster is every unit outside " DL_SD_PARENT ".slice; start it outside the partition",
				       (int)pid, dl_str_escape(now + 3, shown, sizeof(shown)));
		return 0;
	}
	unit_name(slice, sizeof(slice), member);
	dl_sd_cgroup(member, cg, sizeof(cg));
	/* Already in the slice (a unit with Slice=): it stays in its unit. */
	if (wait_in(pid, cg, 0) == 0)
		return 0;
	snprintf(scope, sizeof(scope), DL_SD_PARENT "-%s-%d.scope", member, (int)pid);
	snprintf(desc, sizeof(desc), "process %d in libdl partition %s", (int)pid, member);
	r = bus_open(&bus);
	if (r < 0)
		return r;
	r = lib.sd_bus_message_new_method_call(bus, &m, DEST, PATH, MANAGER, "StartTransientUnit");
	if (r >= 0)
		r = lib.sd_bus_message_append(m, "ss", scope, "fail");
	if (r >= 0)
		r = lib.sd_bus_message_append(m, "a(sv)", 3, "Slice", "s", slice, "Description", "s", desc,
					  "PIDs", "au", 1, (uint32_t)pid);
	if (r >= 0)
		r = lib.sd_bus_message_append(m, "a(sa(sv))", 0);
	if (r < 0) {
		dl_fail(r, "cannot build the D-Bus call for scope %s: %s", scope, strerror(-r));
		goto out;
	}
	r = dl_fault("StartTransientUnit");
	if (!r)
		r = lib.sd_bus_call(bus, m, 0, &e, &reply);
	if (r < 0) {
		dl_fail(r, "systemd refused to start scope %s in %s: %s", scope, slice,
			e.message ? e.message : strerror(-r));
		goto out;
	}
	r = wait_in(pid, cg, WAIT_MS);
out:
	lib.sd_bus_error_free(&e);
	lib.sd_bus_message_unref(reply);
	lib.sd_bus_message_unref(m);
	lib.sd_bus_flush_close_unref(bus);
	return r;
}

#else /* !HAVE_LIBSYSTEMD */

int dl_sd_check(const struct dl_layout *l)
{
	(void)l;
	return dl_fail(-ENOTSUP, "built without libsystemd");
}

int dl_sd_create(struct dl_layout *l, struct dl_layout_result *res)
{
	(void)l;
	(void)res;
	return dl_fail(-ENOTSUP, "built without libsystemd");
}

int dl_sd_destroy(const struct dl_layout *l, struct dl_layout_result *res)
{
	(void)l;
	(void)res;
	return dl_fail(-ENOTSUP, "this layout was made through systemd, and this libdeadline was built without libsystemd");
}

int dl_sd_attach(const char *member, pid_t pid)
{
	(void)member;
	(void)pid;
	return dl_fail(-ENOTSUP, "this layout was made through systemd, and this libdeadline was built without libsystemd");
}
#endif

/* ---------------------------------------------------------------- the backend */

static void state_systemd(const char *cg, bool partition, char *buf, size_t len)
{
	if (partition)
		dl_v2_state(cg, partition, buf, len);
	else /* the cluster is the root cgroup: every other unit */
		snprintf(buf, len, "the rest of the machine");
}

/* A partition's slice with its scopes and services; the cluster, the
 * root cgroup's own threads only. */
static int count_systemd(const char *cg, bool partition, uint64_t *threads, uint64_t *deadline)
{
	return partition ? dl_sd_count(cg, threads, deadline) : dl_cs_count_threads(cg, threads, deadline);
}

const struct dl_cg_backend dl_backend_systemd = {
	.name = "systemd",
	.cgroup = dl_sd_cgroup,
	.leftovers = dl_sd_check,
	.conflict = dl_v2_conflict,
	.create = dl_sd_create,
	.destroy = dl_sd_destroy,
	.state = state_systemd,
	.count = count_systemd,
	.moves_process = true,
};

