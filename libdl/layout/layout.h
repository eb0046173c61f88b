/*
 * layout.h: the layout object and the steps that make and unmake it
 * (internal).
 */
#ifndef LIBDL_LAYOUT_H
#define LIBDL_LAYOUT_H

#include <time.h>

#include "bw/bw.h"

struct dl_layout_part {
	char name[DL_LAYOUT_NAME_MAX + 1];
	dl_cpus_t cpus;
};

/* Where a task placed in the layout came from, for destroy to put it
 * back: its pid (v1: a thread's tid), its start time (field 22 of
 * /proc/PID/stat, so a reused pid is not mistaken for it) and its cgroup
 * below the cpuset hierarchy's root ("" is the root), at most 4095
 * bytes. */
struct dl_origin {
	pid_t pid;
	unsigned long long start;
	char *cgroup;
};

/* A deadline server setting of the layout: kind's server of member's
 * CPUs (a partition's, or DL_CLUSTER) at runtime every period (0: the
 * period as it is). */
struct dl_layout_server {
	char member[DL_LAYOUT_NAME_MAX + 1];
	int kind;
	uint64_t runtime, period;
};

/* A server as create found it on one CPU, for destroy to put back. */
struct dl_server_orig {
	int cpu;
	int kind;
	uint64_t runtime, period;
};

/* The largest state file read back: a saved state holds the origins of
 * live tasks only, but one written by a busy host or an older libdl may
 * hold 100,000 lines, and destroy must still read it. */
#define DL_STATE_MAX (64 << 20)

struct dl_layout {
	/* What was asked (and, once checked, completed). */
	struct dl_layout_part *parts;
	size_t nparts;
	dl_cpus_t cluster;
	bool cluster_set;
	dl_cpus_t mems;
	bool mems_set;
	unsigned int flags;
	/* What create changed, for destroy (the state file). */
	int version;            /* cgroup version of the cpuset controller */
	pid_t creator;
	time_t created;
	int root_lb;            /* v1: the root's sched_load_balance before; -1 unknown */
	bool enabled_subtree;   /* v2: create wrote +cpuset into the root's subtree_control */
	bool cluster_partition; /* v2: the cluster is a root partition of its own */
	struct dl_origin *origins; /* tasks placed in the layout from other cgroups */
	size_t norigins, origins_cap;
	size_t *origin_slots;   /* by pid: an index into origins + 1, or 0 (layout.c) */
	size_t norigin_slots;   /* a power of two, at least 4 * norigins */
	bool systemd;           /* v2 under systemd: made of its units (backend-systemd.c) */
	/* The deadline servers asked for, and (the state) those create
	 * changed, as they were. */
	struct dl_layout_server *servers;
	size_t nservers;
	struct dl_server_orig *server_orig;
	size_t nserver_orig;
	/* destroy with DL_LAYOUT_LEAVE_BUSY: per partition, left in place
	 * because something runs in it (NULL: none); the backends skip
	 * these and whatever keeps them root domains. */
	bool *leave;
};

static inline bool dl_layout_left(const struct dl_layout *l, int i)
{
	return i >= 0 && l->leave && l->leave[i];
}

/*
 * The cgroup backends of a layout, one table of operations each: v1
 * cpusets, v2 partitions, and v2 partitions made of systemd's units
 * (backend-systemd.c).  Chosen once per layout, from the host when it is
 * created and from its state file ever after (backend.c).
 */
struct dl_cg_backend {
	const char *name;
	/* A member's cgroup below the hierarchy's root; NULL: the parent. */
	int (*cgroup)(const char *member, char *buf, size_t len);
	/* Leftovers of an earlier layout, under this backend's names. */
	int (*leftovers)(const struct dl_layout *l);
	/* A cgroup elsewhere that would break the layout (dl_cs_walk). */
	dl_cs_visit *conflict;
	int (*create)(struct dl_layout *l, struct dl_layout_result *res);
	int (*destroy)(const struct dl_layout *l, struct dl_layout_result *res);
	/* A member's state in words, for dl_layout_report. */
	void (*state)(const char *cg, bool partition, char *buf, size_t len);
	/* Threads in a member's cgroup (and, under systemd, below a
	 * partition's). */
	int (*count)(const char *cg, bool partition, uint64_t *threads, uint64_t *deadline);
	/* A moved thread takes its whole process along (v2). */
	bool moves_process;
	/* Create moves the root's tasks into the cluster (v1). */
	bool moves_root_tasks;
};
const struct dl_cg_backend *dl_layout_backend(const struct dl_layout *l);

/* oci.c, oci-hook.c: a container's OCI configuration or state read
 * (dl_oci_read(3), dl_oci_parse(3)); what the caller gets first.  The
 * tree is kept for dl_oci_write(), with the cgroupsPath it writes. */
struct dl_jval;
struct dl_oci_priv {
	struct dl_oci pub;
	char *config, *cgroup, *member, *where, *note, *newcg, *bundle;
	/* config escaped (dl_str_escape): what messages name it by, since
	 * a bundle's path is the engine's and the container's id is in it */
	char *shown;
	/* dl_oci_find_member(): the cgroup is in the layout's cluster */
	bool in_cluster;
	struct dl_jval *root;
};
struct dl_oci_priv *dl_oci_new(const char *origin);
void dl_oci_show(struct dl_oci_priv *o);
int dl_oci_tree(const char *text, size_t len, const char *origin, const char *what, struct dl_jval **root);
int dl_oci_container_cgroup(const char *file, const char *path, char *cg, size_t len, char *how, size_t hlen);
int dl_oci_find_member(struct dl_oci_priv *o, const char *cg, const char *how);
/* join.c: the cgroup a thread is in now, below the cpuset hierarchy's
 * root. */
int dl_task_cgroup(pid_t tid, char *buf, size_t len);

/* layout.c: the object, checked; a member's cgroup; in words. */
int dl_layout_validate(struct dl_layout *l);
int dl_layout_cgroup(const struct dl_layout *l, const char *member, char *buf, size_t len);
int dl_layout_add_origin(struct dl_layout *l, const struct dl_origin *o, const char *cgroup);
const char *dl_layout_origin(const struct dl_layout *l, pid_t pid, unsigned long long start);
bool dl_origin_live(const struct dl_origin *o);
char *dl_layout_text(const struct dl_layout *l, char *buf, size_t len);

/* servers.c: the layout's deadline servers checked against its members
 * (validate); each CPU's set, as found recorded first (create); put back
 * as found, newest first (destroy, a create's rollback); the CPUs whose
 * server is not the layout's (of member, or NULL: every member), named
 * into buf (status). */
int dl_layout_servers_check(const struct dl_layout *l);
int dl_layout_servers_apply(struct dl_layout *l);
int dl_layout_servers_restore(const struct dl_layout *l);
int dl_layout_servers_differ(const struct dl_layout *l, const char *member, char *buf, size_t len);
/* The layout's setting given again to each CPU whose server is not it
 * (a hand's change): how many. */
int dl_layout_servers_reapply(const struct dl_layout *l);

/* state.c: the state file (written whole, root's alone) and the lock
 * every layout change takes (a descriptor to close, or -EBUSY naming
 * the holder after wait_ms). */
int dl_layout_save(const struct dl_layout *l);
int dl_layout_parse(const char *text, size_t len, const char *origin, struct dl_layout **out);
int dl_layout_forget(void);
int dl_layout_lock(unsigned int wait_ms);

/* join.c: the cgroup of member name (a partition's, or DL_CLUSTER) of
 * the layout in place, and with out the layout (the caller frees it);
 * -ENOENT naming the members when there is no such member. */
int dl_layout_member_cgroup(const char *name, char *buf, size_t len, struct dl_layout **out);

/* occupants.c: the cgroups below member name's that hold tasks, named
 * into buf ("; "-separated); how many. */
int dl_layout_occupants(const struct dl_layout *l, const char *name, char *buf, size_t len);

/* admitted-fit.c: -EBUSY, naming the threads, when the admitted deadline
 * bandwidth would not fit a member's new root domain. */
int dl_layout_check_bw(const struct dl_layout *l);

/* backend.c: what the backends share.  Steps are numbered, and the test
 * builds stop or fail step N (dl_test_hooks): dl_step_begin before a
 * step (0 or the injected failure), dl_step after it.  DL_STEP runs an
 * action as the next step, returning its error. */
int dl_step_begin(struct dl_layout_result *res, const char *what);
int dl_step(struct dl_layout_result *res, const char *what);
#define DL_STEP(res, what, action)                     \
	do {                                           \
		int e_ = dl_step_begin(res, what);     \
		if (!e_)                               \
			e_ = (action);                 \
		if (e_)                                \
			return e_;                     \
		dl_step(res, what);                    \
	} while (0)
/* How long a change that rebuilds root domains waits for exited
 * deadline tasks to give their bandwidth back (dl_wait_quiet). */
#define DL_QUIET_TIMEOUT_MS 5000
/* Every CPU of the layout: its partitions' and the cluster's. */
void dl_layout_all_cpus(const struct dl_layout *l, dl_cpus_t *out);
/* A cpuset with its CPUs and nodes (in that order: the kernel wants both
 * before cpu_exclusive), then more values. */
int dl_layout_make_cs(const char *name, const dl_cpus_t *cpus, const dl_cpus_t *mems,
		      const struct dl_kv *more, size_t nmore);
/* Every member's tasks back where they came from, once no exit is in
 * flight; a member's cgroup removed, moving back what forked into it. */
int dl_layout_move_back(const struct dl_layout *l, bool threads, struct dl_layout_result *res);
int dl_layout_remove_member(const struct dl_layout *l, const char *name, bool threads,
			    struct dl_layout_result *res);
/* A member's threads, and its deadline threads (the cpuset's own). */
int dl_layout_count_cs(const char *cg, bool partition, uint64_t *threads, uint64_t *deadline);

/* backend-v1.c, backend-v2.c, backend-systemd.c: the backends; v2's
 * conflict check and member state serve systemd's too. */
extern const struct dl_cg_backend dl_backend_v1, dl_backend_v2, dl_backend_systemd;
int dl_v2_conflict(const char *child, int depth, void *arg);
void dl_v2_state(const char *cg, bool partition, char *buf, size_t len);
/* What a conflict check sees (dl_cs_walk's arg). */
struct dl_cs_conflict {
	const struct dl_layout *l;
	dl_cpus_t all;
};

/* move.c: tasks between cpusets */
int dl_cs_move_all(const char *from, const char *to, bool threads, struct dl_layout_result *res);
/* Every task of `from` back to the cgroup it came from (l's origins), or
 * to the root. */
int dl_cs_move_home(const struct dl_layout *l, const char *from, bool threads, struct dl_layout_result *res);

#endif
