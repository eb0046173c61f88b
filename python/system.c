/*
 * libdeadline._core: the machine as it is (root domains, deadline
 * threads, drift), layouts (create, destroy, read, report) and placing
 * threads in their members.  Layout changes and reads of the kernel's
 * figures run with the GIL released.
 */
#include <errno.h>
#include <string.h>

#include "core.h"

static PyObject *str_of(const char *s)
{
	return PyUnicode_DecodeUTF8(s, strlen(s), "surrogateescape");
}

static PyObject *rd_item(const void *item)
{
	return pydl_rd_dict(item);
}

static PyObject *task_item(const void *item)
{
	const struct dl_task *t = item;

	return pydl_dict("pid", PyLong_FromLong(t->pid), "tid", PyLong_FromLong(t->tid), "comm", str_of(t->comm),
			 "params", pydl_params_tuple(&t->params), "bw", PyLong_FromLongLong(t->bw),
			 "cpu", PyLong_FromLong(t->cpu), "rd", PyLong_FromLong(t->rd),
			 "rd_cpus", pydl_cpus_set(&t->rd_cpus), "cpuset", str_of(t->cpuset),
			 "exec_ns", PyLong_FromUnsignedLongLong(t->exec_ns),
			 "when_ns", PyLong_FromUnsignedLongLong(t->when_ns), NULL);
}

static PyObject *snapshot(PyObject *self, PyObject *args)
{
	struct dl_task *tasks = NULL;
	struct dl_rd *rds = NULL;
	size_t ntasks = 0, nrds = 0;
	PyObject *ret = NULL;
	int pid = 0, err;

	(void)self;
	if (!PyArg_ParseTuple(args, "|i", &pid))
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	err = dl_snapshot(pid, &tasks, &ntasks, &rds, &nrds);
	Py_END_ALLOW_THREADS
	if (err < 0)
		pydl_raise(err, PYDL_CALL);
	else
		ret = Py_BuildValue("(NN)", pydl_list(tasks, ntasks, sizeof(*tasks), task_item),
				    pydl_list(rds, nrds, sizeof(*rds), rd_item));
	free(tasks);
	free(rds);
	return ret;
}

static PyObject *rd_of_cpu(PyObject *self, PyObject *args)
{
	struct dl_rd rd;
	int cpu, err;

	(void)self;
	if (!PyArg_ParseTuple(args, "i", &cpu))
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	err = dl_rd_of_cpu(cpu, &rd);
	Py_END_ALLOW_THREADS
	if (err < 0)
		return pydl_raise(err, PYDL_INPUT);
	return pydl_rd_dict(&rd);
}

static PyObject *drift_item(const void *item)
{
	const struct dl_drift *d = item;

	return Py_BuildValue("(NLL)", pydl_cpus_set(&d->cpus), (long long)d->kernel_bw, (long long)d->expected_bw);
}

static PyObject *drift_check(PyObject *self, PyObject *args)
{
	struct dl_drift *d = NULL;
	unsigned int settle = DL_DRIFT_SETTLE_MS;
	PyObject *list, *sobj = NULL;
	size_t n = 0;
	int err;

	(void)self;
	if (!PyArg_ParseTuple(args, "|O", &sobj) || pydl_uint(sobj, "settle_ms", &settle) < 0)
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	err = dl_drift_check(settle, &d, &n);
	Py_END_ALLOW_THREADS
	if (err < 0)
		return pydl_raise(err, PYDL_CALL);
	list = pydl_list(d, n, sizeof(*d), drift_item);
	free(d);
	return list;
}

static PyObject *layout_result(const struct dl_layout_result *r)
{
	return pydl_dict("moved", PyLong_FromUnsignedLongLong(r->moved),
			 "skipped", PyLong_FromUnsignedLongLong(r->skipped),
			 "gone", PyLong_FromUnsignedLongLong(r->gone), "steps", PyLong_FromLong(r->steps),
			 "repaired", PyBool_FromLong(r->repaired), "absent", PyLong_FromUnsignedLongLong(r->absent),
			 "left", PyLong_FromUnsignedLongLong(r->left), NULL);
}

/* A layout from its description: partitions [(name, cpus)], the
 * cluster's CPUs or None, the memory nodes or None, flags.  The
 * partitions are copied into a tuple first, which holds each (name,
 * cpus) and so each name: converting a CPU (its __index__) may change
 * the caller's list without freeing what is in use. */
static struct dl_layout *layout_build(PyObject *parts, PyObject *cluster, const char *mems, unsigned int flags)
{
	struct dl_layout *l = dl_layout_new();
	PyObject *fast, *seq;
	dl_cpus_t cpus;
	int err = 0;

	if (!l)
		return (struct dl_layout *)PyErr_NoMemory();
	fast = PySequence_Fast(parts, "partitions must be a sequence of (name, cpus)");
	seq = fast ? PySequence_Tuple(fast) : NULL;
	Py_XDECREF(fast);
	for (Py_ssize_t i = 0; seq && !err && i < PyTuple_GET_SIZE(seq); i++) {
		PyObject *item = PyTuple_GET_ITEM(seq, i), *cpuobj;
		const char *name;

		if (!PyArg_ParseTuple(item, "zO;a partition is (name, cpus)", &name, &cpuobj) ||
		    pydl_cpus(cpuobj, &cpus) < 0)
			goto fail;
		err = dl_layout_add_partition(l, name, &cpus);
	}
	if (!seq)
		goto fail;
	if (!err && cluster != Py_None) {
		if (pydl_cpus(cluster, &cpus) < 0)
			goto fail;
		err = dl_layout_set_cluster(l, &cpus);
	}
	if (!err && mems)
		err = dl_layout_set_mems(l, mems);
	if (!err)
		err = dl_layout_set_flags(l, flags);
	if (err < 0) {
		pydl_raise(err, PYDL_INPUT);
		goto fail;
	}
	Py_DECREF(seq);
	return l;
fail:
	Py_XDECREF(seq);
	dl_layout_free(l);
	return NULL;
}

static PyObject *layout_create(PyObject *self, PyObject *args)
{
	struct dl_layout_result res = { 0 };
	const char *mems = NULL;
	struct dl_layout *l;
	PyObject *parts, *cluster = Py_None, *fobj = NULL;
	unsigned int flags = 0;
	int err;

	(void)self;
	if (!PyArg_ParseTuple(args, "O|OzO", &parts, &cluster, &mems, &fobj) || pydl_uint(fobj, "flags", &flags) < 0)
		return NULL;
	l = layout_build(parts, cluster, mems, flags);
	if (!l)
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	err = dl_layout_create(l, &res);
	Py_END_ALLOW_THREADS
	dl_layout_free(l);
	if (err < 0)
		return pydl_raise(err, PYDL_CALL);
	return layout_result(&res);
}

/* layout_destroy(partitions=None, cluster=None, mems=None, flags=0):
 * with partitions None, whatever layout is in place; with them, only
 * that layout (ESTALE when another is in place). */
static PyObject *layout_destroy(PyObject *self, PyObject *args)
{
	struct dl_layout_result res = { 0 };
	PyObject *parts = Py_None, *cluster = Py_None, *fobj = NULL;
	const char *mems = NULL;
	struct dl_layout *l = NULL;
	unsigned int flags = 0;
	int err;

	(void)self;
	if (!PyArg_ParseTuple(args, "|OOzO", &parts, &cluster, &mems, &fobj) || pydl_uint(fobj, "flags", &flags) < 0)
		return NULL;
	if (parts != Py_None) {
		l = layout_build(parts, cluster, mems, flags);
		if (!l)
			return NULL;
	} else if (flags) {
		Py_BEGIN_ALLOW_THREADS
		err = dl_layout_load(&l);
		Py_END_ALLOW_THREADS
		if (err < 0)
			return pydl_raise(err, PYDL_CALL);
		err = dl_layout_set_flags(l, dl_layout_flags(l) | flags);
		if (err < 0) {
			dl_layout_free(l);
			return pydl_raise(err, PYDL_INPUT);
		}
	}
	Py_BEGIN_ALLOW_THREADS
	err = dl_layout_destroy(l, &res);
	Py_END_ALLOW_THREADS
	dl_layout_free(l);
	if (err < 0)
		return pydl_raise(err, PYDL_CALL);
	return layout_result(&res);
}

/* The layout as a dict: partitions [(name, cpus)], cluster, version, flags. */
PyObject *pydl_layout_dict(const struct dl_layout *l)
{
	int n = dl_layout_count(l);
	PyObject *parts = PyList_New(0), *t;
	dl_cpus_t cpus;
	const char *name;

	for (int i = 0; parts && i < n; i++) {
		name = dl_layout_member(l, i, &cpus);
		t = name ? Py_BuildValue("(sN)", name, pydl_cpus_set(&cpus)) : NULL;
		if (!t || PyList_Append(parts, t) < 0)
			Py_CLEAR(parts);
		Py_XDECREF(t);
	}
	if (!parts)
		return NULL;
	name = dl_layout_member(l, -1, &cpus);
	return pydl_dict("partitions", parts, "cluster", name ? pydl_cpus_set(&cpus) : Py_NewRef(Py_None),
			 "version", PyLong_FromLong(dl_layout_version(l)),
			 "flags", PyLong_FromUnsignedLong(dl_layout_flags(l)), NULL);
}

static PyObject *layout_load(PyObject *self, PyObject *unused)
{
	struct dl_layout *l = NULL;
	PyObject *d;
	int err;

	(void)self;
	(void)unused;
	Py_BEGIN_ALLOW_THREADS
	err = dl_layout_load(&l);
	Py_END_ALLOW_THREADS
	if (err == -ENOENT)
		Py_RETURN_NONE;
	if (err < 0)
		return pydl_raise(err, PYDL_CALL);
	d = pydl_layout_dict(l);
	dl_layout_free(l);
	return d;
}

static PyObject *part_info_item(const void *item)
{
	const struct dl_part_info *p = item;

	return pydl_dict("name", str_of(p->name), "cgroup", str_of(p->cgroup), "cpus", pydl_cpus_set(&p->cpus),
			 "partition", PyBool_FromLong(p->partition), "state", str_of(p->state),
			 "nthreads", PyLong_FromUnsignedLongLong(p->nthreads),
			 "ndeadline", PyLong_FromUnsignedLongLong(p->ndeadline), "rd", pydl_rd_dict(&p->rd), NULL);
}

static PyObject *layout_report(PyObject *self, PyObject *unused)
{
	struct dl_part_info *info = NULL;
	PyObject *list;
	size_t n = 0;
	int err;

	(void)self;
	(void)unused;
	Py_BEGIN_ALLOW_THREADS
	err = dl_layout_report(&info, &n);
	Py_END_ALLOW_THREADS
	if (err < 0)
		return pydl_raise(err, PYDL_CALL);
	list = pydl_list(info, n, sizeof(*info), part_info_item);
	free(info);
	return list;
}

static PyObject *part_occupants(PyObject *self, PyObject *args)
{
	const char *name;
	char buf[2048];
	int n;

	(void)self;
	if (!PyArg_ParseTuple(args, "s", &name))
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	n = dl_part_occupants(name, buf, sizeof(buf));
	Py_END_ALLOW_THREADS
	if (n < 0)
		return pydl_raise(n, PYDL_CALL);
	return Py_BuildValue("(iN)", n, str_of(buf));
}

static PyObject *part_attach(PyObject *self, PyObject *args)
{
	const char *name;
	unsigned int flags = 0;
	PyObject *fobj = NULL;
	int tid, err;

	(void)self;
	if (!PyArg_ParseTuple(args, "si|O", &name, &tid, &fobj) || pydl_uint(fobj, "flags", &flags) < 0)
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	err = dl_part_attach(name, tid, flags);
	Py_END_ALLOW_THREADS
	if (err < 0)
		return pydl_raise(err, PYDL_CALL);
	Py_RETURN_NONE;
}

/* part_set(name, pid, params, process=False, flags=0): dl_part_set, or
 * dl_part_set_process for every thread of pid. */
static PyObject *part_set(PyObject *self, PyObject *args)
{
	struct dl_thread_status *st = NULL;
	struct dl_params p;
	const char *name;
	PyObject *tuple, *fobj = NULL;
	unsigned int flags = 0;
	int tid, process = 0, err;
	size_t n = 0;

	(void)self;
	if (!PyArg_ParseTuple(args, "siO|pO", &name, &tid, &tuple, &process, &fobj) || pydl_params(tuple, &p) < 0 ||
	    pydl_uint(fobj, "flags", &flags) < 0)
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	err = process ? dl_part_set_process(name, tid, &p, flags, &st, &n) : dl_part_set(name, tid, &p);
	Py_END_ALLOW_THREADS
	if (err < 0) {
		free(st);
		return pydl_raise(err, PYDL_ADMIT);
	}
	if (!process)
		Py_RETURN_NONE;
	return pydl_status_list(st, n);
}

static PyObject *simple(int err)
{
	if (err < 0)
		return pydl_raise(err, PYDL_CALL);
	return PyLong_FromLong(err);
}

static PyObject *rd_rebuild(PyObject *self, PyObject *unused)
{
	int err;

	(void)self;
	(void)unused;
	Py_BEGIN_ALLOW_THREADS
	err = dl_rd_rebuild();
	Py_END_ALLOW_THREADS
	return simple(err);
}

static PyObject *debugfs_mount(PyObject *self, PyObject *unused)
{
	int err;

	(void)self;
	(void)unused;
	Py_BEGIN_ALLOW_THREADS
	err = dl_debugfs_mount();
	Py_END_ALLOW_THREADS
	return simple(err);
}

PyMethodDef pydl_system_methods[] = {
	{ "snapshot", snapshot, METH_VARARGS, "snapshot(pid=0) -> (tasks, rds) (dl_snapshot)" },
	{ "rd_of_cpu", rd_of_cpu, METH_VARARGS, "rd_of_cpu(cpu) -> rd (dl_rd_of_cpu)" },
	{ "drift_check", drift_check, METH_VARARGS, "drift_check(settle_ms) -> [(cpus, kernel, expected)]" },
	{ "rd_rebuild", rd_rebuild, METH_NOARGS, "rd_rebuild() (dl_rd_rebuild)" },
	{ "debugfs_mount", debugfs_mount, METH_NOARGS, "debugfs_mount() (dl_debugfs_mount)" },
	{ "layout_create", layout_create, METH_VARARGS, "layout_create(parts, cluster, mems, flags) -> result" },
	{ "layout_destroy", layout_destroy, METH_VARARGS, "layout_destroy(parts, cluster, mems, flags) -> result" },
	{ "layout_load", layout_load, METH_NOARGS, "layout_load() -> dict or None (dl_layout_load)" },
	{ "layout_report", layout_report, METH_NOARGS, "layout_report() -> [dict] (dl_layout_report)" },
	{ "part_occupants", part_occupants, METH_VARARGS, "part_occupants(name) -> (count, text)" },
	{ "part_attach", part_attach, METH_VARARGS, "part_attach(name, tid, flags) (dl_part_attach)" },
	{ "part_set", part_set, METH_VARARGS, "part_set(name, tid, params, process, flags)" },
	{ NULL, NULL, 0, NULL },
};
