/*
 * layout.c: a layout of partitions and a cluster, as the caller builds
 * it, checked before anything is touched, and in words.
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
#include "layout/systemd.h"

DL_EXPORT struct dl_layout *dl_layout_new(void)
{
	struct dl_layout *l = calloc(1, sizeof(*l));

	if (!l) {
		dl_fail(-ENOMEM, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	l->root_lb = -1;
	return l;
}

DL_EXPORT void dl_layout_free(struct dl_layout *l)
{
	if (!l)
		return;
	free(l->parts);
	for (size_t i = 0; i < l->norigins; i++)
		free(l->origins[i].cgroup);
	free(l->origins);
	free(l->origin_slots);
	free(l->leave);
	free(l->servers);
	free(l->server_orig);
	free(l);
}

static bool valid_name(const char *name)
{
	size_t n = strlen(name);

	if (n == 0 || n > DL_LAYOUT_NAME_MAX)
		return false;
	for (const char *p = name; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '_' && *p != '-')
			return false;
	return true;
}

DL_EXPORT int dl_layout_add_partition(struct dl_layout *l, const char *name, const dl_cpus_t *cpus)
{
	char defname[DL_LAYOUT_NAME_MAX + 1];
	struct dl_layout_part *np;

	if (!l || !cpus)
		return dl_fail(-EINVAL, "no layout or no CPUs");
	if (!name || !*name) {
		snprintf(defname, sizeof(defname), "partition%zu", l->nparts);
		name = defname;
	}
	if (!valid_name(name))
		return dl_fail(-EINVAL, "invalid partition name \"%s\": use up to %d letters, digits, '-' and '_'",
			       name, DL_LAYOUT_NAME_MAX);
	/* cgroup v1 puts the partitions beside the cpuset's own files. */
	if (strcmp(name, "tasks") == 0 || strcmp(name, "notify_on_release") == 0 ||
	    strcmp(name, "release_agent") == 0)
		return dl_fail(-EINVAL, "invalid partition name \"%s\": it is the name of a cgroup control file; choose another",
			       name);
	if (strcmp(name, DL_CLUSTER) == 0)
		return dl_fail(-EINVAL, "\"%s\" is the cluster's name: give the partition another", name);
	for (size_t i = 0; i < l->nparts; i++)
		if (strcmp(l->parts[i].name, name) == 0)
			return dl_fail(-EEXIST, "two partitions are named \"%s\"", name);
	np = realloc(l->parts, (l->nparts + 1) * sizeof(*np));
	if (!np)
		return dl_fail(-ENOMEM, "out of memory");
	l->parts = np;
	memset(&np[l->nparts], 0, sizeof(*np));
	snprintf(np[l->nparts].name, sizeof(np->name), "%s", name);
	np[l->nparts].cpus = *cpus;
	l->nparts++;
	return 0;
}

/*
 * The origins are found by pid through an open-addressing table of at
 * least four slots per origin, doubled as they grow: loading a state of
 * n lines and looking each up cost O(n) (a busy host's or an older
 * libdl's state may hold 100,000), and dl_count_work counts the probes.
 */
static size_t *origin_slot(const struct dl_layout *l, pid_t pid)
{
	size_t mask = l->norigin_slots - 1;
	size_t i = ((uint32_t)pid * 2654435761u) & mask;

	for (;; i = (i + 1) & mask) {
		size_t *s = &l->origin_slots[i];

		dl_count_work(1);
		if (!*s || l->origins[*s - 1].pid == pid)
			return s;
	}
}

static int grow_origin_slots(struct dl_layout *l)
{
	size_t *old = l->origin_slots, n = l->norigin_slots;

	l->norigin_slots = n ? 2 * n : 64;
	l->origin_slots = calloc(l->norigin_slots, sizeof(*l->origin_slots));
	if (!l->origin_slots) {
		l->origin_slots = old;
		l->norigin_slots = n;
		return dl_fail(-ENOMEM, "out of memory");
	}
	free(old);
	for (size_t i = 0; i < l->norigins; i++)
		*origin_slot(l, l->origins[i].pid) = i + 1;
	return 0;
}

/* Record (or update) where task o->pid came from. */
int dl_layout_add_origin(struct dl_layout *l, const struct dl_origin *o, const char *cgroup)
{
	char *cg;
	size_t *s;

	if (strlen(cgroup) >= 4096 || strchr(cgroup, '\n'))
		return -EINVAL;
	if (4 * (l->norigins + 1) > l->norigin_slots && grow_origin_slots(l))
		return -ENOMEM;
	if (l->norigins == l->origins_cap) {
		size_t cap = l->origins_cap ? 2 * l->origins_cap : 16;
		struct dl_origin *v = realloc(l->origins, cap * sizeof(*v));

		if (!v)
			return dl_fail(-ENOMEM, "out of memory");
		l->origins = v;
		l->origins_cap = cap;
	}
	cg = strdup(cgroup);
	if (!cg)
		return dl_fail(-ENOMEM, "out of memory");
	s = origin_slot(l, o->pid);
	if (!*s) {
		*s = ++l->norigins;
		l->origins[*s - 1].cgroup = NULL;
	}
	free(l->origins[*s - 1].cgroup);
	l->origins[*s - 1] = (struct dl_origin){ .pid = o->pid, .start = o->start, .cgroup = cg };
	return 0;
}

/* The cgroup task pid (started at `start`) came from; NULL: none recorded. */
const char *dl_layout_origin(const struct dl_layout *l, pid_t pid, unsigned long long start)
{
	size_t *s;

	if (!l->norigins)
		return NULL;
	s = origin_slot(l, pid);
	return *s && l->origins[*s - 1].start == start ? l->origins[*s - 1].cgroup : NULL;
}

/* The task an origin names is still alive: its pid now names a task
 * started at the time recorded (not a later one that reused the pid). */
bool dl_origin_live(const struct dl_origin *o)
{
	unsigned long long start;

	return dl_task_stat_field(o->pid, 22, &start) == 0 && start == o->start;
}

DL_EXPORT int dl_layout_set_cluster(struct dl_layout *l, const dl_cpus_t *cpus)
{
	if (!l || !cpus)
		return dl_fail(-EINVAL, "no layout or no CPUs");
	l->cluster = *cpus;
	l->cluster_set = true;
	return 0;
}

DL_EXPORT int dl_layout_set_mems(struct dl_layout *l, const char *nodes)
{
	dl_cpus_t set;

	if (!l || !nodes)
		return dl_fail(-EINVAL, "no layout or no memory nodes");
	if (dl_cpus_parse(nodes, &set) < 0)
		return dl_fail(-EINVAL, "invalid memory node list \"%s\" (use the kernel's format, e.g. 0 or 0-1)", nodes);
	l->mems = set;
	l->mems_set = true;
	return 0;
}

DL_EXPORT int dl_layout_set_flags(struct dl_layout *l, unsigned int flags)
{
	if (!l || (flags & ~(unsigned int)(DL_LAYOUT_ISOLATED | DL_LAYOUT_NO_MOVE | DL_LAYOUT_LEAVE_BUSY |
					  DL_LAYOUT_SERVER_OFF)))
		return dl_fail(-EINVAL, "unknown layout flags 0x%x", flags);
	l->flags = flags;
	return 0;
}

DL_EXPORT int dl_layout_count(const struct dl_layout *l)
{
	return l ? (int)l->nparts : 0;
}

DL_EXPORT const char *dl_layout_member(const struct dl_layout *l, int i, dl_cpus_t *cpus)
{
	if (!l || i < -1 || i >= (int)l->nparts) {
		errno = l ? ERANGE : EINVAL;
		dl_fail(-errno, l ? "member %d: the layout has partitions 0 to %d and the cluster, -1" : "no layout given",
			i, (int)(l ? l->nparts : 0) - 1);
		return NULL;
	}
	if (i == -1) {
		if (cpus)
			*cpus = l->cluster;
		return DL_CLUSTER;
	}
	if (cpus)
		*cpus = l->parts[i].cpus;
	return l->parts[i].name;
}

DL_EXPORT int dl_layout_version(const struct dl_layout *l)
{
	return l ? l->version : 0;
}

DL_EXPORT unsigned int dl_layout_flags(const struct dl_layout *l)
{
	return l ? l->flags : 0;
}

/* The cgroup of a member, below the cpuset hierarchy's root: the
 * backend's names (partition.c). */
int dl_layout_cgroup(const struct dl_layout *l, const char *member, char *buf, size_t len)
{
	return dl_layout_backend(l)->cgroup(member, buf, len);
}

/* Online memory nodes; "0" on kernels without NUMA information.  Room
 * for the longest list of nodes a dl_cpus_t holds (DL_CPUS_STRLEN): a
 * longer one names a node past DL_CPUS_MAX before it is cut, which
 * dl_cpus_parse refuses, instead of being read as fewer nodes. */
static int online_nodes(dl_cpus_t *set)
{
	char buf[DL_CPUS_STRLEN];

	if (dl_read_file("/sys/devices/system/node/online", buf, sizeof(buf)) < 0)
		snprintf(buf, sizeof(buf), "0");
	return dl_cpus_parse(buf, set);
}

static int possible_cpus(dl_cpus_t *set)
{
	char buf[4096];

	if (dl_read_file("/sys/devices/system/cpu/possible", buf, sizeof(buf)) < 0)
		return dl_cpus_online(set);
	return dl_cpus_parse(buf, set);
}

/* Every CPU exists and is online, or say which is not. */
static int check_cpus(const char *what, const dl_cpus_t *cpus, const dl_cpus_t *online,
		      const dl_cpus_t *possible)
{
	char a[DL_CPUS_STRLEN], b[DL_CPUS_STRLEN];

	if (dl_cpus_count(cpus) == 0)
		return dl_fail(-EINVAL, "%s has no CPU", what);
	for (int c = 0; c < DL_CPUS_MAX; c++) {
		if (!dl_cpus_isset(cpus, c))
			continue;
		if (!dl_cpus_isset(possible, c))
			return dl_fail(-EINVAL, "%s: CPU %d does not exist (this machine has CPUs %s)",
				       what, c, dl_cpus_format(possible, a, sizeof(a)));
		if (!dl_cpus_isset(online, c))
			return dl_fail(-EINVAL, "%s: CPU %d is offline (online: %s): bring it online or leave it out",
				       what, c, dl_cpus_format(online, b, sizeof(b)));
	}
	return 0;
}

/*
 * Complete the layout (the cluster defaults to every online CPU no
 * partition has, the memory nodes to every online node) and check it.
 */
int dl_layout_validate(struct dl_layout *l)
{
	dl_cpus_t online, possible, used, nodes;
	char what[DL_CPUS_STRLEN], a[DL_CPUS_STRLEN], b[DL_CPUS_STRLEN];
	int err;

	if (l->nparts == 0)
		return dl_fail(-EINVAL, "no partition: give at least one (dl_layout_add_partition(3))");
	err = dl_cpus_online(&online);
	if (!err)
		err = possible_cpus(&possible);
	if (err)
		return err;
	dl_cpus_zero(&used);
	for (size_t i = 0; i < l->nparts; i++) {
		snprintf(what, sizeof(what), "partition %s", l->parts[i].name);
		err = check_cpus(what, &l->parts[i].cpus, &online, &possible);
		if (err)
			return err;
		for (size_t j = 0; j < i; j++) {
			dl_cpus_t both = l->parts[i].cpus;

			dl_cpus_and(&both, &l->parts[j].cpus);
			if (dl_cpus_count(&both))
				return dl_fail(-EINVAL, "partitions %s (CPUs %s) and %s (CPUs %s) overlap at CPUs %s: a CPU belongs to one partition",
					       l->parts[j].name, dl_cpus_format(&l->parts[j].cpus, a, sizeof(a)),
					       l->parts[i].name, dl_cpus_format(&l->parts[i].cpus, b, sizeof(b)),
					       dl_cpus_format(&both, what, sizeof(what)));
		}
		dl_cpus_or(&used, &l->parts[i].cpus);
	}
	if (!l->cluster_set) {
		l->cluster = online;
		dl_cpus_andnot(&l->cluster, &used);
		if (dl_cpus_count(&l->cluster) == 0)
			return dl_fail(-EINVAL, "no CPU left for the cluster: the partitions take every online CPU (%s); leave at least one out, for the system's other tasks",
				       dl_cpus_format(&online, a, sizeof(a)));
	} else {
		err = check_cpus("the cluster", &l->cluster, &online, &possible);
		if (err)
			return err;
		if (dl_cpus_intersects(&l->cluster, &used))
			return dl_fail(-EINVAL, "the cluster (CPUs %s) overlaps the partitions (CPUs %s): give it other CPUs",
				       dl_cpus_format(&l->cluster, a, sizeof(a)), dl_cpus_format(&used, b, sizeof(b)));
	}
	err = dl_layout_servers_check(l);
	if (err)
		return err;
	err = online_nodes(&nodes);
	if (err)
		return err;
	if (!l->mems_set) {
		l->mems = nodes;
	} else if (dl_cpus_count(&l->mems) == 0 || !dl_cpus_subset(&l->mems, &nodes)) {
		return dl_fail(-EINVAL, "memory nodes %s are not all online (online: %s)",
			       dl_cpus_format(&l->mems, a, sizeof(a)), dl_cpus_format(&nodes, b, sizeof(b)));
	}
	return 0;
}

/* "partition0=0 partition1=2-3 cluster=1,4-7": for messages. */
char *dl_layout_text(const struct dl_layout *l, char *buf, size_t len)
{
	size_t used = 0;
	char c[DL_CPUS_STRLEN];

	buf[0] = '\0';
	for (int i = 0; i < (int)l->nparts && used < len; i++) {
		int n = snprintf(buf + used, len - used, "%s%s=%s", used ? " " : "", l->parts[i].name,
				 dl_cpus_format(&l->parts[i].cpus, c, sizeof(c)));
		used += n > 0 ? (size_t)n : 0;
	}
	if (used < len)
		snprintf(buf + used, len - used, "%scluster=%s", used ? " " : "",
			 dl_cpus_format(&l->cluster, c, sizeof(c)));
	return buf;
}
