/*
 * state.c: the layout's state file and its lock.
 *
 * The state file (/run/libdl/layout) is written before the first change
 * and updated as create goes, so that a fresh process can undo a create
 * that was killed at any point: it records what the root's settings were
 * and which cpusets the layout owns.  /run is a tmpfs: like the cpusets
 * it describes, it does not survive a reboot.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "layout/layout.h"

int dl_layout_save(const struct dl_layout *l)
{
	char path[4096], a[4096], *text = NULL;
	size_t len = 0;
	FILE *f;
	int err;

	if ((err = dl_state_dir_make()) || (err = dl_fault("the layout's state")))
		return err;
	if ((err = dl_state_path(path, sizeof(path), "layout")))
		return err;
	f = open_memstream(&text, &len);
	if (!f)
		return dl_fail(-errno, "cannot write the layout's state: %s", strerror(errno));
	fprintf(f, "# libdl layout: what dl-part destroy undoes.  Do not edit.\n");
	fprintf(f, "cgroup %d\n", l->version);
	fprintf(f, "creator %d\n", (int)l->creator);
	fprintf(f, "created %lld\n", (long long)l->created);
	fprintf(f, "flags %u\n", l->flags);
	fprintf(f, "root_lb %d\n", l->root_lb);
	fprintf(f, "enabled_subtree %d\n", l->enabled_subtree);
	fprintf(f, "cluster_partition %d\n", l->cluster_partition);
	fprintf(f, "systemd %d\n", l->systemd);
	fprintf(f, "mems %s\n", dl_cpus_format(&l->mems, a, sizeof(a)));
	fprintf(f, "cluster %s\n", dl_cpus_format(&l->cluster, a, sizeof(a)));
	for (size_t i = 0; i < l->nparts; i++)
		fprintf(f, "partition %s %s\n", l->parts[i].name, dl_cpus_format(&l->parts[i].cpus, a, sizeof(a)));
	/* The servers asked for, and each CPU's as create found it, for
	 * destroy to put back (servers.c). */
	for (size_t i = 0; i < l->nservers; i++)
		fprintf(f, "server %s %s %" PRIu64 " %" PRIu64 "\n", l->servers[i].member,
			l->servers[i].kind == DL_SERVER_EXT ? "ext" : "fair", l->servers[i].runtime,
			l->servers[i].period);
	for (size_t i = 0; i < l->nserver_orig; i++)
		fprintf(f, "server_orig %d %s %" PRIu64 " %" PRIu64 "\n", l->server_orig[i].cpu,
			l->server_orig[i].kind == DL_SERVER_EXT ? "ext" : "fair", l->server_orig[i].runtime,
			l->server_orig[i].period);
	/* Only the origins of live tasks: those of tasks that have exited
	 * are dropped at every save, so the state stays the size of what
	 * the layout holds now, whatever it held over the months. */
	for (size_t i = 0; i < l->norigins; i++)
		if (dl_origin_live(&l->origins[i]))
			fprintf(f, "origin %d %llu %s\n", (int)l->origins[i].pid, l->origins[i].start,
				l->origins[i].cgroup);
	if (fclose(f) != 0) {
		free(text);
		return dl_fail(-ENOMEM, "cannot write the layout's state: out of memory");
	}
	/* Not durable (no fsync): the state only has to outlive this
	 * process (a create killed half-way, undone by a later destroy), and
	 * the page cache gives it to any later process.  What it describes
	 * (cpusets, root domains) is kernel memory that a reboot removes
	 * anyway.  On a /run that is not a tmpfs, each fsync cost
	 * milliseconds.  The rename still makes every reader see
	 * a whole old or new file, mode 0600. */
	err = dl_file_replace(path, text, len, 0600, false);
	free(text);
	if (err)
		return dl_fail(err, "cannot write the layout's state %s: %s", path, strerror(-err));
	return 0;
}

int dl_layout_forget(void)
{
	char path[4096];

	if (dl_state_path(path, sizeof(path), "layout") == 0 && unlink(path) < 0 && errno != ENOENT)
		return dl_fail(-errno, "cannot remove %s: %s", path, strerror(errno));
	return 0;
}

/* "server MEMBER KIND RUNTIME PERIOD" or "server_orig CPU KIND RUNTIME
 * PERIOD" (KIND fair or ext). */
static int load_server(struct dl_layout *l, const char *line)
{
	char key[16], who[DL_LAYOUT_NAME_MAX + 2], kind[8];
	unsigned long long runtime, period;
	struct dl_server_orig *n;
	int k, cpu;

	if (sscanf(line, "%15s %33s %7s %llu %llu", key, who, kind, &runtime, &period) != 5)
		return -EINVAL;
	if (strcmp(kind, "fair") == 0)
		k = DL_SERVER_FAIR;
	else if (strcmp(kind, "ext") == 0)
		k = DL_SERVER_EXT;
	else
		return -EINVAL;
	if (strcmp(key, "server") == 0)
		return dl_layout_set_server(l, who, k, runtime, period) < 0 ? -EINVAL : 0;
	cpu = atoi(who);
	if (cpu < 0 || cpu >= DL_CPUS_MAX)
		return -EINVAL;
	n = realloc(l->server_orig, (l->nserver_orig + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	l->server_orig = n;
	n[l->nserver_orig++] = (struct dl_server_orig){ .cpu = cpu, .kind = k, .runtime = runtime, .period = period };
	return 0;
}

/* One line of the state file into l; 0, or -EINVAL when it is damaged. */
static int load_line(struct dl_layout *l, char *line)
{
	/* A value is a number, a partition's name (dl_layout_add_partition
	 * judges its length) or a CPU list: each buffer holds a whole line
	 * (dl_layout_parse's), so a list of up to DL_CPUS_MAX CPUs
	 * (DL_CPUS_STRLEN) is read whole, never cut. */
	char key[32], v1[4200], v2[4200];
	long long n;
	int k;

	line[strcspn(line, "\n")] = '\0';
	if (line[0] == '#' || !line[0])
		return 0;
	if (strncmp(line, "origin ", 7) == 0) {
		struct dl_origin o;
		int used = 0, pid;

		if (sscanf(line + 7, "%d %llu %n", &pid, &o.start, &used) < 2 || used == 0 || pid <= 0)
			return -EINVAL;
		o.pid = (pid_t)pid;
		return dl_layout_add_origin(l, &o, line + 7 + used);
	}
	if (strncmp(line, "server", 6) == 0 && (line[6] == ' ' || strncmp(line + 6, "_orig ", 6) == 0))
		return load_server(l, line);
	k = sscanf(line, "%31s %4199s %4199s", key, v1, v2);
	if (k < 1)
		return -EINVAL;
	n = k >= 2 ? atoll(v1) : 0;
	if (strcmp(key, "phase") == 0)
		; /* written until 2026-12 ("creating", "complete"), never read */
	else if (strcmp(key, "cgroup") == 0)
		l->version = (int)n;
	else if (strcmp(key, "creator") == 0)
		l->creator = (pid_t)n;
	else if (strcmp(key, "created") == 0)
		l->created = (time_t)n;
	else if (strcmp(key, "flags") == 0)
		l->flags = (unsigned int)n;
	else if (strcmp(key, "root_lb") == 0)
		l->root_lb = (int)n;
	else if (strcmp(key, "enabled_subtree") == 0)
		l->enabled_subtree = n != 0;
	else if (strcmp(key, "cluster_partition") == 0)
		l->cluster_partition = n != 0;
	else if (strcmp(key, "systemd") == 0)
		l->systemd = n != 0;
	else if (strcmp(key, "mems") == 0 && k >= 2) {
		l->mems_set = true;
		return dl_cpus_parse(v1, &l->mems);
	} else if (strcmp(key, "cluster") == 0 && k >= 2) {
		l->cluster_set = true;
		return dl_cpus_parse(v1, &l->cluster);
	} else if (strcmp(key, "partition") == 0 && k == 3) {
		dl_cpus_t c;
		int err = dl_cpus_parse(v2, &c);

		return err ? err : dl_layout_add_partition(l, v1, &c);
	}
	return 0;
}

/* The state file's text into a layout; -EINVAL when it is damaged. */
int dl_layout_parse(const char *text, size_t len, const char *origin, struct dl_layout **out)
{
	struct dl_layout *l;
	size_t i = 0;
	int err = 0;

	*out = NULL;
	if (len > DL_STATE_MAX)
		return dl_fail(-EFBIG, "%s is larger than a layout's state can be: remove it", origin);
	l = dl_layout_new();
	if (!l)
		return -ENOMEM;
	while (!err && i < len) {
		char line[4200];
		size_t n = 0;

		for (; i < len && text[i] != '\n'; i++) {
			if (text[i] == '\0' || n == sizeof(line) - 1) {
				err = -EINVAL;
				break;
			}
			line[n++] = text[i];
		}
		i++;
		line[n] = '\0';
		if (!err)
			err = load_line(l, line);
	}
	if (err || (l->version != 1 && l->version != 2)) {
		dl_layout_free(l);
		return dl_fail(-EINVAL, "%s is damaged: remove the layout's cpusets (%s) by hand, then the file",
			       origin, "libdl*");
	}
	*out = l;
	return 0;
}

DL_EXPORT int dl_layout_load(struct dl_layout **out)
{
	char path[4096], *text;
	struct stat st;
	ssize_t got;
	int err = 0, fd;

	if (!out)
		return dl_fail(-EINVAL, "no place for the layout");
	*out = NULL;
	if ((err = dl_state_path(path, sizeof(path), "layout")))
		return dl_fail(err, "the layout's state path is too long");
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			return dl_fail(-ENOENT, "no layout: create one with dl_layout_create(3)");
		if (errno == EACCES)
			return dl_fail(-EACCES, "cannot read the layout's state %s: it is root's (the layout is changed and used by root)", path);
		return dl_fail(-errno, "cannot read %s: %s", path, strerror(errno));
	}
	if (fstat(fd, &st) < 0 || (err = dl_state_trusted(&st, path, S_IFREG)) ||
	    st.st_size > DL_STATE_MAX) {
		close(fd);
		return err ? err : dl_fail(-EFBIG, "%s is larger than a layout's state can be: remove it", path);
	}
	text = malloc((size_t)st.st_size + 1);
	if (!text) {
		close(fd);
		return dl_fail(-ENOMEM, "out of memory");
	}
	got = read(fd, text, (size_t)st.st_size);
	err = got < 0 ? -errno : 0;
	close(fd);
	if (!err)
		err = dl_layout_parse(text, (size_t)got, path, out);
	else
		dl_fail(err, "cannot read %s: %s", path, strerror(-err));
	free(text);
	return err;
}

/*
 * One create, destroy, repair or placement at a time: the state
 * folder's lock (dl_state_lock).  Waits up to wait_ms for the holder;
 * returns the fd to close.
 */
int dl_layout_lock(unsigned int wait_ms)
{
	return dl_state_lock("lock", wait_ms,
			     "another layout change (dl_layout_create(3), dl_layout_destroy(3) or dl_rd_rebuild(3)) is running");
}
