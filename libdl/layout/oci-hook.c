/*
 * oci-hook.c: a container that asks for a reservation by its annotations
 * (dl_oci_parse(3), libdl-oci-hook(8)), read where an OCI hook reads it:
 * the runtime configuration on a precreate hook's stdin (podman), or the
 * container's state on a createRuntime hook's (runtime-spec runtime.md
 * "State": pid, bundle, annotations; every engine), and the
 * configuration written back with the partition's cgroup and, when the
 * runtime applies it, process.scheduler (dl_oci_write(3)).
 *
 * Annotations are the one field every engine passes through unchanged
 * (podman --annotation, a Kubernetes pod's metadata.annotations that
 * CRI-O lets through): deadline.libdl.io/runtime, deadline and period in
 * dl-run's units, flags in its words, partition a layout's member.  A
 * name under the prefix that is none of these is refused: a typo would
 * otherwise run the container without what it asked.  The text is the
 * engine's, written from a user's request: every value is checked, and
 * the reader (workload/json.c) refuses deep nesting, bad UTF-8 and
 * duplicates; oci.c the size.  Its strings (values, cgroups, the
 * partition's name) are escaped where a message or `where` embeds them
 * (oci.c says why there).
 *
 * The partition may be DL_CLUSTER: the container goes below the
 * cluster's cgroup, or, where that is the root cgroup (under systemd),
 * stays where the engine put it outside the partitions.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "layout/layout.h"
#include "policy/policy.h"
#include "workload/taskset.h"

#define PREFIX "deadline.libdl.io/"
#define VALUE_MAX 256

static const char *const keys[] = { "runtime", "deadline", "period", "flags", "partition" };
enum { K_RUNTIME, K_DEADLINE, K_PERIOD, K_FLAGS, K_PARTITION, K_N };

/* A string annotation's value, or NULL. */
static const char *string_of(const struct dl_jval *a, const char *key)
{
	const struct dl_jval *v = dl_json_get(a, key);

	return v && v->type == DL_JSTR ? v->text : NULL;
}

/*
 * Who the container is, when it is a Kubernetes pod's: the kubelet's
 * labels io.kubernetes.pod.namespace, io.kubernetes.pod.name and
 * io.kubernetes.container.name, which CRI-O writes as annotations after
 * the pod's own (a pod author's annotation of that name is overwritten),
 * and, where CRI-O wrote it, the same labels in its
 * io.kubernetes.cri-o.Labels: the two must agree.
 */
static int pod_identity(struct dl_oci_priv *o, const struct dl_jval *a)
{
	static const char *const ids[] = { "io.kubernetes.pod.namespace", "io.kubernetes.pod.name",
					   "io.kubernetes.container.name" };
	const char **pub[] = { &o->pub.ns, &o->pub.pod, &o->pub.container };
	const char *labels = string_of(a, "io.kubernetes.cri-o.Labels");
	struct dl_jval *l = NULL;
	char shown[256], lshown[256];
	int err = 0;

	for (size_t i = 0; i < ARRAY_SIZE(ids); i++)
		*pub[i] = string_of(a, ids[i]);
	if (!o->pub.ns)
		return 0;
	if (!dl_policy_namespace_ok(o->pub.ns))
		return dl_fail(-EINVAL, "%s: io.kubernetes.pod.namespace \"%s\" is not a Kubernetes namespace's name", o->shown,
			       dl_str_escape(o->pub.ns, shown, sizeof(shown)));
	if (!labels)
		return 0;
	if (dl_json_parse(labels, strlen(labels), "io.kubernetes.cri-o.Labels", &l) < 0 || l->type != DL_JOBJ) {
		dl_json_free(l);
		return dl_fail(-EINVAL, "%s: io.kubernetes.cri-o.Labels is not the JSON object CRI-O writes", o->shown);
	}
	for (size_t i = 0; i < ARRAY_SIZE(ids) && !err; i++) {
		const char *lv = string_of(l, ids[i]);

		if (lv && (!*pub[i] || strcmp(lv, *pub[i])))
			err = dl_fail(-EINVAL, "%s: annotation %s is \"%s\" but CRI-O's io.kubernetes.cri-o.Labels says \"%s\": who the container is cannot be told; refused",
				      o->shown, ids[i], *pub[i] ? dl_str_escape(*pub[i], shown, sizeof(shown)) : "",
				      dl_str_escape(lv, lshown, sizeof(lshown)));
	}
	dl_json_free(l);
	return err;
}

/* key is KEY.deadline.libdl.io/CONTAINER: the key's index (or K_N for a
 * name that is none), the container in *ctr; -1 when it is not of that
 * form. */
static int named_key(const char *key, const char **ctr)
{
	const char *at = strstr(key, "." PREFIX);

	if (!at || at == key)
		return -1;
	*ctr = at + 1 + strlen(PREFIX);
	for (int k = 0; k < K_N; k++)
		if ((size_t)(at - key) == strlen(keys[k]) && !strncmp(key, keys[k], (size_t)(at - key)))
			return k;
	return K_N;
}

static int unknown_key(const char *origin, const struct dl_jval *v)
{
	char shown[4 * 64 + 1], cut[65];

	snprintf(cut, sizeof(cut), "%s", v->key);
	return dl_fail(-EINVAL, "%s:%d: unknown annotation \"%s\": the ones read are " PREFIX "runtime, " PREFIX
		       "deadline, " PREFIX "period, " PREFIX "flags and " PREFIX "partition (a pod's: runtime."
		       PREFIX "CONTAINER, and so on)",
		       origin, v->line, dl_str_escape(cut, shown, sizeof(shown)));
}

/*
 * The annotations' values by key; 0 with none for this container is
 * -ENODATA.  A container of no pod (podman) reads deadline.libdl.io/KEY.
 * A pod's container reads KEY.deadline.libdl.io/NAME, NAME its own (the
 * convention of Kubernetes' per-container annotations): CRI-O copies a
 * pod's annotations into each of its containers, so a pod's
 * deadline.libdl.io/KEY would give every container (sidecars, init
 * containers) the reservation again; it is refused, saying how to name
 * one.
 */
static int annotations(struct dl_oci_priv *o, const struct dl_jval *root, const char *val[K_N])
{
	const char *origin = o->shown;
	const struct dl_jval *a = dl_json_get(root, "annotations");
	const char *podlevel = NULL, *other = NULL;
	size_t found = 0;
	int err;

	memset(val, 0, K_N * sizeof(*val));
	if (a && a->type != DL_JOBJ)
		return dl_fail(-EINVAL, "%s:%d: annotations must be an object of strings, not %s", origin, a->line,
			       dl_json_type_name(a->type));
	if ((err = pod_identity(o, a)))
		return err;
	for (size_t i = 0; a && i < a->n; i++) {
		const struct dl_jval *v = &a->items[i];
		const char *ctr = NULL;
		int k;

		if (!strncmp(v->key, PREFIX, strlen(PREFIX))) {
			for (k = 0; k < K_N; k++)
				if (!strcmp(v->key + strlen(PREFIX), keys[k]))
					break;
			if (k == K_N)
				return unknown_key(origin, v);
			podlevel = v->key;
		} else if ((k = named_key(v->key, &ctr)) < 0) {
			continue;
		} else if (k == K_N) {
			return unknown_key(origin, v);
		} else if (!o->pub.container || strcmp(ctr, o->pub.container)) {
			other = v->key; /* another container's */
			continue;
		}
		if (v->type != DL_JSTR)
			return dl_fail(-EINVAL, "%s:%d: annotation %s must be a string, not %s", origin, v->line, v->key,
				       dl_json_type_name(v->type));
		if (strlen(v->text) > VALUE_MAX)
			return dl_fail(-EINVAL, "%s:%d: annotation %s is %zu bytes long: no time, flag list or partition name is longer than %d",
				       origin, v->line, v->key, strlen(v->text), VALUE_MAX);
		if (ctr || !o->pub.ns) {
			val[k] = v->text;
			found++;
		}
	}
	if (o->pub.ns && podlevel) {
		char shown[256];

		return dl_fail(-EINVAL, "%s: annotation %s is the pod's, for no container: CRI-O copies a pod's annotations into each of its containers, so every one (sidecars, init containers) would take the reservation again; name the container it is for: KEY." PREFIX "CONTAINER, e.g. runtime." PREFIX "%s: \"2ms\" (libdl-containers(7))",
			       origin, podlevel, o->pub.container ? dl_str_escape(o->pub.container, shown, sizeof(shown)) : "loop");
	}
	if (!o->pub.ns && other) {
		char shown[256];

		return dl_fail(-EINVAL, "%s: annotation %s names a container of a Kubernetes pod, but this container is no pod's (no io.kubernetes.pod.namespace): give " PREFIX "runtime and the like",
			       origin, dl_str_escape(other, shown, sizeof(shown)));
	}
	if (!found)
		return dl_fail(-ENODATA, "%s: no " PREFIX " annotation for this container: it asks for no reservation", origin);
	return 0;
}

static int time_value(const char *origin, const char *key, const char *text, uint64_t *ns)
{
	char shown[VALUE_MAX * 4 + 1], why[512];

	*ns = 0;
	if (!text)
		return 0;
	if (dl_time_parse(text, ns) < 0) {
		snprintf(why, sizeof(why), "%s", dl_errmsg());
		return dl_fail(-EINVAL, "%s: annotation " PREFIX "%s=\"%s\": %s", origin, key,
			       dl_str_escape(text, shown, sizeof(shown)), why);
	}
	return 0;
}

/* The reservation asked, checked as the kernel checks it. */
static int reservation(const char *origin, const char *const val[K_N], struct dl_params *p)
{
	struct dl_params norm;
	char shown[VALUE_MAX * 4 + 1], why[512];
	int err;

	memset(p, 0, sizeof(*p));
	if (!val[K_RUNTIME])
		return dl_fail(-EINVAL, "%s: no annotation " PREFIX "runtime: give the CPU time per period (" PREFIX "runtime=2ms)",
			       origin);
	if ((err = time_value(origin, "runtime", val[K_RUNTIME], &p->runtime)) ||
	    (err = time_value(origin, "deadline", val[K_DEADLINE], &p->deadline)) ||
	    (err = time_value(origin, "period", val[K_PERIOD], &p->period)))
		return err;
	if (!p->deadline && !p->period)
		return dl_fail(-EINVAL, "%s: no annotation " PREFIX "period or " PREFIX "deadline: give at least one (each defaults to the other, as dl-run's)",
			       origin);
	if (val[K_FLAGS] && val[K_FLAGS][0] && dl_taskset_flags(val[K_FLAGS], &p->flags) < 0) {
		snprintf(why, sizeof(why), "%s", dl_errmsg());
		return dl_fail(-EINVAL, "%s: annotation " PREFIX "flags=\"%s\": %s", origin,
			       dl_str_escape(val[K_FLAGS], shown, sizeof(shown)), why);
	}
	if (dl_params_normalize(p, &norm) < 0) {
		snprintf(why, sizeof(why), "%s", dl_errmsg());
		return dl_fail(-EINVAL, "%s: the annotations ask what the kernel refuses: %s", origin, why);
	}
	*p = norm;
	return 0;
}

/* A member of the layout in words: "partition rt", or "the cluster". */
static const char *member_words(const char *name, char *buf, size_t len)
{
	if (!strcmp(name, DL_CLUSTER))
		return "the cluster";
	snprintf(buf, len, "partition %s", name);
	return buf;
}

/*
 * Where the container goes when it names a partition or the cluster:
 * its cgroupsPath with the member's cgroup as the parent, in the form
 * the engine wrote (the cgroup driver follows it).  systemd's
 * SLICE:PREFIX:NAME takes the partition's slice, the last component of
 * its cgroup; a cgroupfs path keeps its last component below the
 * member's cgroup.
 */
static int moved_cgroup(struct dl_oci_priv *o, const struct dl_layout *l, const char *mcg, char *buf, size_t len)
{
	const char *cg = o->cgroup, *colon, *slice;
	char words[128], shown[1024];

	if (!cg || !*cg)
		return dl_fail(-EINVAL, "%s: no linux.cgroupsPath: the engine chose no cgroup, so the container cannot be placed in %s; an engine writes one (podman always does)",
			       o->shown, member_words(o->member, words, sizeof(words)));
	dl_str_escape(cg, shown, sizeof(shown));
	colon = strchr(cg, ':');
	if (colon) {
		if (!l->systemd)
			return dl_fail(-EINVAL, "%s: linux.cgroupsPath \"%s\" is systemd's form, but the layout's partitions are cgroups made without systemd (/%s): run the engine with the cgroupfs manager (podman --cgroup-manager cgroupfs)",
				       o->shown, shown, mcg);
		slice = strrchr(mcg, '/');
		slice = slice ? slice + 1 : mcg;
		if (snprintf(buf, len, "%s%s", slice, colon) >= (int)len)
			return dl_fail(-ENAMETOOLONG, "%s: linux.cgroupsPath is too long", o->shown);
		return 0;
	}
	const char *base = strrchr(cg, '/');

	base = base ? base + 1 : cg;
	if (!*base || !strcmp(base, ".") || !strcmp(base, ".."))
		return dl_fail(-EINVAL, "%s: linux.cgroupsPath \"%s\" ends in no cgroup's name", o->shown, shown);
	if (snprintf(buf, len, "/%s/%s", mcg, base) >= (int)len)
		return dl_fail(-ENAMETOOLONG, "%s: linux.cgroupsPath is too long", o->shown);
	return 0;
}

/*
 * The cluster where it is the root cgroup (a layout under systemd: the
 * rest of the machine, as dl_part_attach(DL_CLUSTER) takes it): the
 * container stays in the cgroup the engine chose, which must be outside
 * the partitions.  cg and how are the configuration's (dl_oci_find_member).
 */
static int rest_of_machine(struct dl_oci_priv *o, const char *cg, const char *how)
{
	char text[4600];
	int err = dl_oci_find_member(o, cg, how);

	if (!err && o->member)
		err = dl_fail(-EINVAL, "%s: annotation " PREFIX "partition=\"" DL_CLUSTER "\", but the %s is in partition %s: the cluster is every cgroup outside the layout's partitions; give the engine a cgroup parent outside them, or name partition %s",
			      o->shown, how, o->member, o->member);
	free(o->member);
	o->member = NULL;
	if (err)
		return err;
	snprintf(text, sizeof(text), "%s: in the cluster, the rest of the machine", how);
	free(o->where);
	if (!(o->where = strdup(text)) || !(o->member = strdup(DL_CLUSTER)))
		return dl_fail(-ENOMEM, "out of memory");
	return 0;
}

/* The partition (or the cluster) named: the member, the cgroupsPath that
 * puts the container in it, and where that is in words; its cgroup in
 * mcg (mlen bytes).  cg and how: where the configuration puts it. */
static int named_partition(struct dl_oci_priv *o, const char *name, const char *cg, const char *how, char *mcg,
			   size_t mlen)
{
	struct dl_layout *l;
	char newcg[4600], text[9000], shown[VALUE_MAX * 4 + 1], words[128], cgshown[1024];
	bool cluster = !strcmp(name, DL_CLUSTER);
	int err = dl_layout_load(&l);

	dl_str_escape(name, shown, sizeof(shown));
	if (err == -ENOENT)
		return dl_fail(-ENOENT, "%s: annotation " PREFIX "partition=\"%s\": there is no layout, so no %s: make it first (dl-part create), or drop the annotation",
			       o->shown, shown, cluster ? "cluster (without one the whole machine judges the container)" : "partition");
	if (!err) {
		dl_layout_free(l);
		err = dl_layout_member_cgroup(name, mcg, mlen, &l);
	}
	if (err == -EACCES)
		return dl_fail(-EACCES, "%s: annotation " PREFIX "partition=\"%s\": the layout's state is root's: the hook runs as root to place a container",
			       o->shown, shown);
	if (err) {
		char why[1024];

		snprintf(why, sizeof(why), "%s", dl_errmsg());
		return dl_fail(err, "%s: annotation " PREFIX "partition=\"%s\": %s", o->shown, shown, why);
	}
	if (cluster && !mcg[0] && !o->pub.pid) {
		/* The cluster as the root cgroup: nothing to move. */
		dl_layout_free(l);
		return rest_of_machine(o, cg, how);
	}
	if (!(o->member = strdup(name))) {
		dl_layout_free(l);
		return dl_fail(-ENOMEM, "out of memory");
	}
	if (o->pub.pid) {
		/* A state: the process is placed already (parse() checks
		 * where). */
		dl_layout_free(l);
		return 0;
	}
	err = moved_cgroup(o, l, mcg, newcg, sizeof(newcg));
	dl_layout_free(l);
	if (!err && !(o->newcg = strdup(newcg)))
		err = dl_fail(-ENOMEM, "out of memory");
	if (err)
		return err;
	snprintf(text, sizeof(text), "in %s (cgroup /%s): linux.cgroupsPath %s", member_words(name, words, sizeof(words)),
		 mcg, dl_str_escape(newcg, cgshown, sizeof(cgshown)));
	return (o->where = strdup(text)) ? 0 : dl_fail(-ENOMEM, "out of memory");
}

/* A state's pid and bundle, and the cgroup the kernel has the process in. */
static int state_process(struct dl_oci_priv *o, const struct dl_jval *root, char *cg, size_t len, char *how, size_t hlen)
{
	const struct dl_jval *pid = dl_json_get(root, "pid"), *bundle = dl_json_get(root, "bundle");
	char *end, shown[1024];
	long n;
	int err;

	if (!pid || pid->type != DL_JNUM || strspn(pid->text, "0123456789") != strlen(pid->text))
		return dl_fail(-EINVAL, "%s: the state's pid must be a process id (a positive integer), not %s", o->shown,
			       pid ? (pid->type == DL_JNUM ? pid->text : dl_json_type_name(pid->type)) : "missing");
	errno = 0;
	n = strtol(pid->text, &end, 10);
	if (errno || n <= 0 || n > 4194304)
		return dl_fail(-EINVAL, "%s: the state's pid %.32s is no process id (1 to 4194304)", o->shown, pid->text);
	o->pub.pid = (pid_t)n;
	if (bundle && bundle->type != DL_JSTR)
		return dl_fail(-EINVAL, "%s: the state's bundle must be a string, not %s", o->shown,
			       dl_json_type_name(bundle->type));
	if (bundle && !(o->bundle = strdup(bundle->text)))
		return dl_fail(-ENOMEM, "out of memory");
	err = dl_task_cgroup(o->pub.pid, cg, len);
	if (err == -ENOENT || err == -ESRCH)
		return dl_fail(-ESRCH, "%s: the container's process %d is gone", o->shown, (int)o->pub.pid);
	if (err)
		return dl_fail(err, "%s: cannot read the cgroup of the container's process %d: %s", o->shown,
			       (int)o->pub.pid, strerror(-err));
	/* The engine named the cgroup (the container's id is in it). */
	snprintf(how, hlen, "process %d in cgroup /%s", (int)o->pub.pid, dl_str_escape(cg, shown, sizeof(shown)));
	return 0;
}

static int parse(struct dl_oci_priv *o, const char *text, size_t len, unsigned int flags)
{
	const char *val[K_N];
	const struct dl_jval *cgp, *sched;
	char cg[4200], how[4400], mcg[4200];
	int err;

	err = dl_oci_tree(text, len, o->shown, flags & DL_OCI_STATE ? "a container's state" : "a runtime configuration",
			  &o->root);
	if (!err)
		err = annotations(o, o->root, val);
	if (!err)
		err = reservation(o->shown, val, &o->pub.params);
	if (err)
		return err;
	if (flags & DL_OCI_STATE) {
		if ((err = state_process(o, o->root, cg, sizeof(cg), how, sizeof(how))))
			return err;
	} else {
		/* dl_oci_write() adds to these two. */
		for (int i = 0; i < 2; i++) {
			const struct dl_jval *v = dl_json_get(o->root, i ? "linux" : "process");

			if (v && v->type != DL_JOBJ)
				return dl_fail(-EINVAL, "%s:%d: %s must be an object, not %s", o->shown, v->line,
					       i ? "linux" : "process", dl_json_type_name(v->type));
		}
		sched = dl_json_get(dl_json_get(o->root, "process"), "scheduler");
		if (sched)
			return dl_fail(-EINVAL, "%s:%d: the configuration has a process.scheduler of its own and " PREFIX " annotations: give the reservation one way, not both",
				       o->shown, sched->line);
		cgp = dl_json_get(dl_json_get(o->root, "linux"), "cgroupsPath");
		if (cgp && cgp->type != DL_JSTR)
			return dl_fail(-EINVAL, "%s:%d: linux.cgroupsPath must be a string, not %s", o->shown, cgp->line,
				       dl_json_type_name(cgp->type));
		if (cgp && !(o->cgroup = strdup(cgp->text)))
			return dl_fail(-ENOMEM, "out of memory");
		cg[0] = '\0';
		snprintf(how, sizeof(how), "no linux.cgroupsPath (the runtime's default cgroup)");
		if (o->cgroup &&
		    (err = dl_oci_container_cgroup(o->shown, o->cgroup, cg, sizeof(cg), how, sizeof(how))))
			return err;
	}
	if (!val[K_PARTITION])
		return dl_oci_find_member(o, cg, how);
	if ((err = named_partition(o, val[K_PARTITION], cg, how, mcg, sizeof(mcg))))
		return err;
	if (flags & DL_OCI_STATE) {
		/* The process is where the engine put it: a partition is
		 * the precreate stage's to choose (or the engine's cgroup
		 * parent), never a move out of the container's cgroup.  The
		 * cluster likewise: its cgroup, or under systemd any outside
		 * the partitions (dl_oci_find_member). */
		char *want = o->member;
		bool cluster = !strcmp(want, DL_CLUSTER);
		int same;

		o->member = NULL;
		free(o->where);
		o->where = NULL;
		if ((err = dl_oci_find_member(o, cg, how))) {
			free(want);
			return err;
		}
		same = cluster ? !o->member && o->in_cluster : o->member && !strcmp(o->member, want);
		if (!same && cluster) {
			char in[128], parent[4300];

			snprintf(in, sizeof(in), "in partition %s", o->member ? o->member : "");
			if (mcg[0])
				snprintf(parent, sizeof(parent), "the cluster's cgroup /%s", mcg);
			else
				snprintf(parent, sizeof(parent), "a cgroup outside the layout's partitions");
			err = dl_fail(-EINVAL, "%s: the container asks for the cluster, but its %s is %s: the engine places it; give the engine %s as the parent (podman --cgroup-parent, or the precreate stage of libdl-oci-hook, which sets it)",
				      o->shown, how, o->member ? in : "outside it", parent);
		} else if (!same && o->pub.ns) {
			/* kubelet chose the cgroup, and CRI-O runs no stage
			 * before the container exists that could move it. */
			err = dl_fail(-EINVAL, "%s: the pod's container asks for partition %s, but its %s is %s, where kubelet put it: no hook of CRI-O's can move a container into a partition's cgroup; ask for the cluster (partition.deadline.libdl.io/NAME: cluster), or place the pod with a plugin that sets its cgroup path as the engine creates it (libdl-containers(7), NRI)",
				      o->shown, want, how, strstr(o->where, "outside") ? "outside the partitions" : o->where);
		} else if (!same) {
			err = dl_fail(-EINVAL, "%s: the container asks for partition %s, but its %s is %s: the engine places it; give the engine the partition's cgroup as the parent (podman --cgroup-parent, or the precreate stage of libdl-oci-hook, which sets it)",
				      o->shown, want, how, strstr(o->where, "outside") ? "outside the partitions" : o->where);
		}
		free(o->member);
		o->member = want;
		return err;
	}
	return 0;
}

DL_EXPORT int dl_oci_parse(const char *text, size_t len, const char *origin, unsigned int flags, struct dl_oci **out)
{
	struct dl_oci_priv *o;
	int err;

	if (!out)
		return dl_fail(-EINVAL, "no place for the result");
	*out = NULL;
	if (!text || (flags & ~(unsigned int)DL_OCI_STATE))
		return dl_fail(-EINVAL, "dl_oci_parse needs a text and flags 0 or DL_OCI_STATE");
	if (!(o = dl_oci_new(origin && *origin ? origin : "stdin")))
		return -ENOMEM;
	err = parse(o, text, len, flags);
	if (err) {
		dl_oci_free(&o->pub);
		return err;
	}
	dl_oci_show(o);
	*out = &o->pub;
	return 0;
}

/* process.scheduler as the spec writes it (config.md "Process"). */
static int scheduler_value(const struct dl_params *p, struct dl_jval **out)
{
	char text[512];
	int n = snprintf(text, sizeof(text),
			 "{\"policy\":\"SCHED_DEADLINE\",\"runtime\":%llu,\"deadline\":%llu,\"period\":%llu,\"flags\":[",
			 (unsigned long long)p->runtime, (unsigned long long)p->deadline,
			 (unsigned long long)p->period);
	static const struct {
		uint64_t flag;
		const char *name;
	} names[] = { { DL_FLAG_RESET_ON_FORK, "SCHED_FLAG_RESET_ON_FORK" },
		      { DL_FLAG_RECLAIM, "SCHED_FLAG_RECLAIM" },
		      { DL_FLAG_DL_OVERRUN, "SCHED_FLAG_DL_OVERRUN" } };
	bool first = true;

	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (p->flags & names[i].flag) {
			n += snprintf(text + n, sizeof(text) - (size_t)n, "%s\"%s\"", first ? "" : ",", names[i].name);
			first = false;
		}
	snprintf(text + n, sizeof(text) - (size_t)n, "]}");
	return dl_json_parse(text, strlen(text), "process.scheduler", out);
}

/* obj's member key, made an empty object when it is none. */
static int object_member(struct dl_jval *obj, const char *key, struct dl_jval **out)
{
	struct dl_jval v = { .type = DL_JOBJ };
	int err;

	for (size_t i = 0; i < obj->n; i++)
		if (!strcmp(obj->items[i].key, key)) {
			if (obj->items[i].type != DL_JOBJ)
				return dl_fail(-EINVAL, "%s must be an object, not %s", key,
					       dl_json_type_name(obj->items[i].type));
			*out = &obj->items[i];
			return 0;
		}
	if ((err = dl_json_set(obj, key, &v)))
		return err;
	*out = &obj->items[obj->n - 1];
	return 0;
}

/* The tree is changed where it is kept (process.scheduler, which the
 * reader refused to find, and linux.cgroupsPath): writing twice gives
 * the same text. */
DL_EXPORT int dl_oci_write(const struct dl_oci *pub, unsigned int flags, char **text, size_t *len)
{
	const struct dl_oci_priv *o = (const struct dl_oci_priv *)pub;
	struct dl_jval *sched = NULL, *proc, *lnx, cgv = { .type = DL_JSTR };
	int err = 0;

	if (!text || !len)
		return dl_fail(-EINVAL, "no place for the result");
	*text = NULL;
	*len = 0;
	if (!o || !o->root || o->pub.pid || (flags & ~(unsigned int)DL_OCI_SCHEDULER))
		return dl_fail(-EINVAL, "dl_oci_write needs a configuration read by dl_oci_parse, and flags 0 or DL_OCI_SCHEDULER");
	if ((flags & DL_OCI_SCHEDULER) &&
	    ((err = object_member(o->root, "process", &proc)) || (err = scheduler_value(&o->pub.params, &sched)) ||
	     (err = dl_json_set(proc, "scheduler", sched))))
		goto out;
	free(sched);
	sched = NULL;
	if (o->newcg) {
		if ((err = object_member(o->root, "linux", &lnx)))
			goto out;
		if (!(cgv.text = strdup(o->newcg))) {
			err = dl_fail(-ENOMEM, "out of memory");
			goto out;
		}
		if ((err = dl_json_set(lnx, "cgroupsPath", &cgv))) {
			free(cgv.text);
			goto out;
		}
	}
	err = dl_json_write(o->root, text, len);
out:
	if (err && sched)
		dl_json_free(sched);
	return err;
}
