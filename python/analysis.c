/*
 * libdeadline._core: task sets (a type over struct dl_taskset), the
 * platform the analysis assumes, the schedulability tests and plans.
 * The tests and plans are pure computation but may take a while for a
 * large set: they run with the GIL released too.
 *
 * A TaskSet may be shared between threads: a plan or test reads the set
 * without the GIL while another thread's add() may grow it, so the set
 * has a lock of its own, held by both (see taskset_lock()).
 */
#include <errno.h>
#include <string.h>

#include "core.h"

typedef struct {
	PyObject_HEAD
	struct dl_taskset *ts;
	PyThread_type_lock lock; /* held by what reads ts without the GIL, and by what changes it */
} TaskSet;

static PyTypeObject TaskSetType;

static PyObject *str_or_none(const char *s)
{
	if (!s)
		Py_RETURN_NONE;
	return PyUnicode_DecodeUTF8(s, strlen(s), "surrogateescape");
}

static PyObject *taskset_wrap(struct dl_taskset *ts)
{
	TaskSet *self = PyObject_New(TaskSet, &TaskSetType);
	PyThread_type_lock lock = self ? PyThread_allocate_lock() : NULL;

	if (!lock) {
		dl_taskset_free(ts);
		PyObject_Free(self);
		return PyErr_NoMemory();
	}
	self->ts = ts;
	self->lock = lock;
	return (PyObject *)self;
}

/* Take the set's lock, holding the GIL.  Its holder may be a plan in
 * another thread, which needs the GIL to finish: the wait lets it go. */
static void taskset_lock(TaskSet *self)
{
	if (PyThread_acquire_lock(self->lock, NOWAIT_LOCK))
		return;
	Py_BEGIN_ALLOW_THREADS
	PyThread_acquire_lock(self->lock, WAIT_LOCK);
	Py_END_ALLOW_THREADS
}

static PyObject *taskset_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
	struct dl_taskset *ts;

	(void)type;
	if (kw && PyDict_GET_SIZE(kw)) {
		PyErr_SetString(PyExc_TypeError, "TaskSet() takes no arguments");
		return NULL;
	}
	if (!PyArg_ParseTuple(args, ""))
		return NULL;
	ts = dl_taskset_new();
	if (!ts)
		return PyErr_NoMemory();
	return taskset_wrap(ts);
}

static void taskset_dealloc(TaskSet *self)
{
	dl_taskset_free(self->ts);
	PyThread_free_lock(self->lock);
	PyObject_Free(self);
}

static PyObject *taskset_read(PyObject *cls, PyObject *args)
{
	struct dl_taskset *ts = NULL;
	PyObject *path;
	int err;

	(void)cls;
	if (!PyArg_ParseTuple(args, "O&", PyUnicode_FSConverter, &path))
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	err = dl_taskset_read(PyBytes_AS_STRING(path), &ts);
	Py_END_ALLOW_THREADS
	Py_DECREF(path);
	if (err < 0)
		return pydl_raise(err, PYDL_INPUT);
	return taskset_wrap(ts);
}

static PyObject *taskset_parse(PyObject *cls, PyObject *args)
{
	struct dl_taskset *ts = NULL;
	const char *text, *origin = NULL;
	Py_ssize_t len;
	int err;

	(void)cls;
	if (!PyArg_ParseTuple(args, "s#|z", &text, &len, &origin))
		return NULL;
	err = dl_taskset_parse(text, (size_t)len, origin, &ts);
	if (err < 0)
		return pydl_raise(err, PYDL_INPUT);
	return taskset_wrap(ts);
}

static PyObject *taskset_add(TaskSet *self, PyObject *args)
{
	struct dl_params p;
	const char *name;
	PyObject *tuple;
	int err;

	if (!PyArg_ParseTuple(args, "sO", &name, &tuple) || pydl_params(tuple, &p) < 0)
		return NULL;
	taskset_lock(self);
	err = dl_taskset_add(self->ts, name, &p);
	PyThread_release_lock(self->lock);
	if (err < 0)
		return pydl_raise(err, PYDL_INPUT);
	Py_RETURN_NONE;
}

static PyObject *taskset_set_place(TaskSet *self, PyObject *args)
{
	const char *place;
	Py_ssize_t i;
	int err;

	if (!PyArg_ParseTuple(args, "nz", &i, &place))
		return NULL;
	if (i < 0 || (size_t)i >= dl_taskset_count(self->ts)) {
		PyErr_SetString(PyExc_IndexError, "no such task in the set");
		return NULL;
	}
	taskset_lock(self);
	err = dl_taskset_set_place(self->ts, (size_t)i, place);
	PyThread_release_lock(self->lock);
	if (err < 0)
		return pydl_raise(err, PYDL_INPUT);
	Py_RETURN_NONE;
}

static PyObject *taskset_duration(TaskSet *self, PyObject *unused)
{
	(void)unused;
	return PyLong_FromUnsignedLongLong(dl_taskset_duration(self->ts));
}

static Py_ssize_t taskset_len(TaskSet *self)
{
	return (Py_ssize_t)dl_taskset_count(self->ts);
}

static PyObject *taskset_item(TaskSet *self, Py_ssize_t i)
{
	const struct dl_taskspec *t;
	PyObject *argv = Py_NewRef(Py_None);

	if (i < 0 || (size_t)i >= dl_taskset_count(self->ts)) {
		Py_DECREF(argv);
		PyErr_SetString(PyExc_IndexError, "no such task in the set");
		return NULL;
	}
	t = dl_taskset_task(self->ts, (size_t)i);
	if (t->argv) {
		Py_DECREF(argv);
		argv = PyList_New(0);
		for (char *const *a = t->argv; argv && *a; a++) {
			PyObject *s = str_or_none(*a);

			if (!s || PyList_Append(argv, s) < 0)
				Py_CLEAR(argv);
			Py_XDECREF(s);
		}
		if (argv)
			Py_SETREF(argv, PyList_AsTuple(argv));
	}
	return pydl_dict("name", str_or_none(t->name), "params", pydl_params_tuple(&t->params),
			 "work", PyLong_FromUnsignedLongLong(t->work), "offset", PyLong_FromUnsignedLongLong(t->offset),
			 "place", str_or_none(t->place), "argv", argv, "line", PyLong_FromLong(t->line),
			 "spin", PyLong_FromUnsignedLongLong(t->spin), NULL);
}

static PyMethodDef taskset_methods[] = {
	{ "read", taskset_read, METH_VARARGS | METH_CLASS, "read(path) -> TaskSet (dl_taskset_read)" },
	{ "parse", taskset_parse, METH_VARARGS | METH_CLASS, "parse(text, origin=None) -> TaskSet" },
	{ "add", (PyCFunction)taskset_add, METH_VARARGS, "add(name, params) (dl_taskset_add)" },
	{ "set_place", (PyCFunction)taskset_set_place, METH_VARARGS, "set_place(i, place)" },
	{ "duration", (PyCFunction)taskset_duration, METH_NOARGS, "duration() -> ns (dl_taskset_duration)" },
	{ NULL, NULL, 0, NULL },
};

static PySequenceMethods taskset_seq = {
	.sq_length = (lenfunc)taskset_len,
	.sq_item = (ssizeargfunc)taskset_item,
};

static PyTypeObject TaskSetType = {
	PyVarObject_HEAD_INIT(NULL, 0).tp_name = "libdeadline._core.TaskSet",
	.tp_basicsize = sizeof(TaskSet),
	.tp_dealloc = (destructor)taskset_dealloc,
	.tp_as_sequence = &taskset_seq,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "A task set of the library's (struct dl_taskset): items are dicts.",
	.tp_methods = taskset_methods,
	.tp_new = taskset_new,
};

/* A list of reservation tuples into an array (free() it).  The sequence
 * is copied into a tuple first: a list that an item's __index__ empties
 * is converted as it was given, every item held until the end. */
static struct dl_params *params_array(PyObject *list, size_t *n)
{
	PyObject *fast = PySequence_Fast(list, "tasks must be a sequence of reservations"), *seq;
	struct dl_params *a;
	Py_ssize_t len;

	seq = fast ? PySequence_Tuple(fast) : NULL;
	Py_XDECREF(fast);
	if (!seq)
		return NULL;
	len = PyTuple_GET_SIZE(seq);
	a = calloc(len ? (size_t)len : 1, sizeof(*a));
	if (!a) {
		Py_DECREF(seq);
		return (struct dl_params *)PyErr_NoMemory();
	}
	for (Py_ssize_t i = 0; i < len; i++) {
		if (pydl_params(PyTuple_GET_ITEM(seq, i), &a[i]) < 0) {
			free(a);
			Py_DECREF(seq);
			return NULL;
		}
	}
	Py_DECREF(seq);
	*n = (size_t)len;
	return a;
}

static int server_arg(PyObject *obj, struct dl_params *p, const struct dl_params **use)
{
	*use = NULL;
	if (obj == Py_None)
		return 0;
	if (pydl_params(obj, p) < 0)
		return -1;
	*use = p;
	return 0;
}

/* A platform's capacity: None, or each CPU's, in the order of its CPUs,
 * into caps (DL_CPUS_MAX entries) by CPU number. */
static int capacity_arg(PyObject *obj, const dl_cpus_t *cpus, uint32_t *caps)
{
	PyObject *seq;
	Py_ssize_t n, k = 0;
	int err = 0;

	if (obj == Py_None)
		return 0;
	seq = PySequence_Fast(obj, "a platform's capacity is a sequence of each CPU's capacity, or None");
	if (!seq)
		return -1;
	n = PySequence_Fast_GET_SIZE(seq);
	if (n != dl_cpus_count(cpus)) {
		PyErr_Format(PyExc_ValueError, "the platform has %d CPUs but its capacity gives %zd: give one per CPU, in the order of the CPUs",
			     dl_cpus_count(cpus), n);
		err = -1;
	}
	for (int c = 0; !err && c < DL_CPUS_MAX; c++) {
		uint64_t v;

		if (!dl_cpus_isset(cpus, c))
			continue;
		if (pydl_u64(PySequence_Fast_GET_ITEM(seq, k++), "capacity", UINT32_MAX, &v) < 0)
			err = -1;
		else
			caps[c] = (uint32_t)v;
	}
	Py_DECREF(seq);
	return err;
}

int pydl_platform(PyObject *obj, struct dl_platform *pf, struct dl_platform **use, uint32_t *caps)
{
	PyObject *cpus, *server, *bwobj, *minobj, *maxobj, *capobj = Py_None;
	uint64_t cpu_bw;
	int ncpus, unlimited;
	static char *keys[] = { "ncpus", "cpus", "cpu_bw", "unlimited", "server", "period_min", "period_max", "capacity", NULL };
	PyObject *empty, *copy;
	int ok;

	memset(pf, 0, sizeof(*pf));
	*use = NULL;
	if (obj == Py_None)
		return 0;
	if (!PyDict_Check(obj)) {
		PyErr_SetString(PyExc_TypeError, "a platform is a Platform");
		return -1;
	}
	/* A copy holds the values: a value's __index__ or __bool__ that
	 * takes another out of the caller's dict frees nothing in use.
	 * The admission cap is an int64_t of the library's but never
	 * negative. */
	copy = PyDict_Copy(obj);
	empty = PyTuple_New(0);
	ok = copy && empty &&
	     PyArg_ParseTupleAndKeywords(empty, copy, "iOOpOOO|O", keys, &ncpus, &cpus, &bwobj, &unlimited, &server,
					 &minobj, &maxobj, &capobj) &&
	     pydl_u64(bwobj, "cpu_bw", INT64_MAX, &cpu_bw) == 0 &&
	     pydl_u64(minobj, "period_min", UINT64_MAX, &pf->period_min) == 0 &&
	     pydl_u64(maxobj, "period_max", UINT64_MAX, &pf->period_max) == 0 && pydl_cpus(cpus, &pf->cpus) == 0 &&
	     pydl_params(server, &pf->server) == 0 && capacity_arg(capobj, &pf->cpus, caps) == 0;
	Py_XDECREF(empty);
	Py_XDECREF(copy);
	if (!ok)
		return -1;
	if (capobj != Py_None)
		pf->capacity = caps;
	pf->ncpus = ncpus;
	pf->cpu_bw = (int64_t)cpu_bw;
	pf->unlimited = unlimited;
	*use = pf;
	return 0;
}

static PyObject *capacity_tuple(const struct dl_platform *pf)
{
	PyObject *t;
	Py_ssize_t k = 0;

	if (!pf->capacity)
		return Py_NewRef(Py_None);
	t = PyTuple_New(dl_cpus_count(&pf->cpus));
	for (int c = 0; t && c < DL_CPUS_MAX; c++)
		if (dl_cpus_isset(&pf->cpus, c))
			PyTuple_SET_ITEM(t, k++, PyLong_FromUnsignedLong(pf->capacity[c]));
	return t;
}

static PyObject *platform_dict(const struct dl_platform *pf)
{
	return pydl_dict("ncpus", PyLong_FromLong(pf->ncpus), "cpus", pydl_cpus_set(&pf->cpus),
			 "cpu_bw", PyLong_FromLongLong(pf->cpu_bw), "unlimited", PyBool_FromLong(pf->unlimited),
			 "server", pydl_params_tuple(&pf->server),
			 "period_min", PyLong_FromUnsignedLongLong(pf->period_min),
			 "period_max", PyLong_FromUnsignedLongLong(pf->period_max),
			 "capacity", capacity_tuple(pf), NULL);
}

/* platform(ncpus, here): this host's (dl_platform_get), or the kernel's
 * defaults for a machine of ncpus CPUs (dl_platform_init). */
static PyObject *platform(PyObject *self, PyObject *args)
{
	struct dl_platform pf;
	int ncpus, here, err;

	(void)self;
	if (!PyArg_ParseTuple(args, "ip", &ncpus, &here))
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	err = here ? dl_platform_get(&pf, ncpus) : dl_platform_init(&pf, ncpus);
	Py_END_ALLOW_THREADS
	if (err < 0)
		return pydl_raise(err, PYDL_INPUT);
	return platform_dict(&pf);
}

static PyObject *ssize_or_none(ssize_t v)
{
	if (v < 0)
		Py_RETURN_NONE;
	return PyLong_FromSsize_t(v);
}

static PyObject *edf_test(PyObject *self, PyObject *args)
{
	struct dl_edf_result *r = NULL;
	struct dl_params server;
	const struct dl_params *sp;
	struct dl_params *tasks;
	PyObject *list, *sobj = Py_None, *d;
	size_t n = 0;
	int err;

	(void)self;
	if (!PyArg_ParseTuple(args, "O|O", &list, &sobj) || server_arg(sobj, &server, &sp) < 0)
		return NULL;
	tasks = params_array(list, &n);
	if (!tasks)
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	err = dl_edf_test(tasks, n, sp, &r);
	Py_END_ALLOW_THREADS
	free(tasks);
	if (err < 0)
		return pydl_raise(err, PYDL_INPUT);
	d = pydl_dict("verdict", PyLong_FromLong(r->verdict), "util", PyLong_FromLongLong(r->util),
		      "bound", PyLong_FromUnsignedLongLong(r->bound), "fail_t", PyLong_FromUnsignedLongLong(r->fail_t),
		      "fail_demand", PyLong_FromUnsignedLongLong(r->fail_demand), "limiting", ssize_or_none(r->limiting),
		      "scaling", PyLong_FromLongLong(r->scaling), "steps", PyLong_FromUnsignedLongLong(r->steps), NULL);
	free(r);
	return d;
}

static PyObject *global_dict(const struct dl_global_result *r)
{
	PyObject *results = PyTuple_New(DL_TEST_COUNT), *resp = PyTuple_New(r->response ? (Py_ssize_t)r->ntasks : 0);

	for (int i = 0; results && i < DL_TEST_COUNT; i++)
		PyTuple_SET_ITEM(results, i, PyLong_FromLong(r->result[i]));
	for (size_t i = 0; resp && r->response && i < r->ntasks; i++)
		PyTuple_SET_ITEM(resp, (Py_ssize_t)i, PyLong_FromUnsignedLongLong(r->response[i]));
	return pydl_dict("verdict", PyLong_FromLong(r->verdict), "ncpus", PyLong_FromLong(r->ncpus),
			 "accepted_by", PyLong_FromLong(r->accepted_by), "results", results,
			 "limiting", ssize_or_none(r->limiting), "margin", PyLong_FromLongLong(r->margin),
			 "util", PyLong_FromLongLong(r->util), "scaling", PyLong_FromLongLong(r->scaling),
			 "why", str_or_none(r->why), "response", resp,
			 "miss_at", PyLong_FromUnsignedLongLong(r->miss_at), NULL);
}

/* global_test(tasks, ncpus, server) for a list of reservations, or
 * global_test(taskset, platform) for a TaskSet. */
static PyObject *global_test(PyObject *self, PyObject *args)
{
	struct dl_global_result *r = NULL;
	struct dl_platform pf, *pfp;
	uint32_t caps[DL_CPUS_MAX];
	struct dl_params server, *tasks;
	const struct dl_params *sp;
	PyObject *list, *sobj = Py_None, *d;
	int ncpus = 0, err;
	size_t n = 0;

	(void)self;
	if (PyTuple_GET_SIZE(args) > 0 && PyObject_TypeCheck(PyTuple_GET_ITEM(args, 0), &TaskSetType)) {
		TaskSet *ts;

		if (!PyArg_ParseTuple(args, "O!|O", &TaskSetType, &ts, &sobj) || pydl_platform(sobj, &pf, &pfp, caps) < 0)
			return NULL;
		Py_BEGIN_ALLOW_THREADS
		PyThread_acquire_lock(ts->lock, WAIT_LOCK);
		err = dl_global_test_taskset(ts->ts, pfp, &r);
		PyThread_release_lock(ts->lock);
		Py_END_ALLOW_THREADS
	} else {
		if (!PyArg_ParseTuple(args, "Oi|O", &list, &ncpus, &sobj) || server_arg(sobj, &server, &sp) < 0)
			return NULL;
		tasks = params_array(list, &n);
		if (!tasks)
			return NULL;
		Py_BEGIN_ALLOW_THREADS
		err = dl_global_test(tasks, n, ncpus, sp, &r);
		Py_END_ALLOW_THREADS
		free(tasks);
	}
	if (err < 0)
		return pydl_raise(err, PYDL_INPUT);
	d = global_dict(r);
	free(r);
	return d;
}

static PyObject *exact_dict(const struct dl_exact_result *r, PyObject *taskfile)
{
	PyObject *arr = PyTuple_New((Py_ssize_t)r->narrivals), *ties = PyTuple_New((Py_ssize_t)r->nties);

	for (size_t k = 0; arr && k < r->narrivals; k++)
		PyTuple_SET_ITEM(arr, (Py_ssize_t)k,
				 Py_BuildValue("(nK)", (Py_ssize_t)r->arrivals[k].task,
					       (unsigned long long)r->arrivals[k].release));
	for (size_t k = 0; ties && k < r->nties; k++)
		PyTuple_SET_ITEM(ties, (Py_ssize_t)k,
				 Py_BuildValue("(KKK)", (unsigned long long)r->ties[k].from,
					       (unsigned long long)r->ties[k].to,
					       (unsigned long long)r->ties[k].ahead));
	return pydl_dict("verdict", PyLong_FromLong(r->verdict), "ncpus", PyLong_FromLong(r->ncpus),
			 "any_tie_order", PyBool_FromLong(!(r->flags & DL_EXACT_TIES_INDEX)), "budget_spent",
			 PyLong_FromLong(r->budget_spent), "unit", PyLong_FromUnsignedLongLong(r->unit),
			 "states", PyLong_FromUnsignedLongLong(r->states), "expanded",
			 PyLong_FromUnsignedLongLong(r->expanded), "elapsed_ns",
			 PyLong_FromUnsignedLongLong(r->elapsed_ns), "task", ssize_or_none(r->task),
			 "miss_at", PyLong_FromUnsignedLongLong(r->miss_at), "ntasks",
			 PyLong_FromSize_t(r->ntasks), "arrivals", arr, "ties", ties, "why",
			 str_or_none(r->why), "taskfile", taskfile, NULL);
}

/* exact_test(tasks, ncpus, server, max_states, max_ns, ties_index) ->
 * dict (dl_exact_test), the witness as a task file (dl_exact_witness)
 * or None. */
static PyObject *exact_test(PyObject *self, PyObject *args)
{
	struct dl_exact_opts o = { 0 };
	struct dl_exact_result *r = NULL;
	struct dl_params server, *tasks;
	const struct dl_params *sp;
	PyObject *list, *sobj, *msobj, *mnobj, *d, *tf;
	int ncpus, index, err;
	char *text = NULL;
	size_t n = 0;

	(void)self;
	if (!PyArg_ParseTuple(args, "OiOOOp", &list, &ncpus, &sobj, &msobj, &mnobj, &index) ||
	    server_arg(sobj, &server, &sp) < 0 ||
	    pydl_u64(msobj, "max_states", UINT32_MAX - 1, &o.max_states) < 0 ||
	    pydl_u64(mnobj, "max_ns", UINT64_MAX, &o.max_ns) < 0)
		return NULL;
	o.flags = index ? DL_EXACT_TIES_INDEX : 0;
	tasks = params_array(list, &n);
	if (!tasks)
		return NULL;
	Py_BEGIN_ALLOW_THREADS err = dl_exact_test(tasks, n, ncpus, sp, &o, &r);
	if (err == 0 && r->verdict == DL_UNSCHEDULABLE && dl_exact_witness(r, tasks, NULL, &text) < 0)
		text = NULL;
	Py_END_ALLOW_THREADS free(tasks);
	if (err < 0)
		return pydl_raise(err, PYDL_INPUT);
	tf = text ? str_or_none(text) : Py_NewRef(Py_None);
	free(text);
	d = exact_dict(r, tf);
	dl_exact_free(r);
	return d;
}

static PyObject *part_dict(const struct dl_plan_part *p)
{
	PyObject *tasks = PyTuple_New((Py_ssize_t)p->ntasks);

	for (size_t i = 0; tasks && i < p->ntasks; i++)
		PyTuple_SET_ITEM(tasks, (Py_ssize_t)i, PyLong_FromSize_t(p->tasks[i]));
	return pydl_dict("name", str_or_none(p->name), "cpus", pydl_cpus_set(&p->cpus),
			 "ncpus", PyLong_FromLong(p->ncpus), "tasks", tasks, "load", PyLong_FromLongLong(p->load),
			 "free_bw", PyLong_FromLongLong(p->free_bw), "test", PyLong_FromLong(p->test),
			 "scaling", PyLong_FromLongLong(p->scaling), "cap_min", PyLong_FromUnsignedLong(p->cap_min),
			 "cap_max", PyLong_FromUnsignedLong(p->cap_max), NULL);
}

static PyObject *plan_dict(const struct dl_plan *plan)
{
	struct dl_layout *l = NULL;
	PyObject *parts = PyTuple_New((Py_ssize_t)plan->nparts), *layout, *need = PyTuple_New((Py_ssize_t)plan->ntasks);

	for (size_t i = 0; need && i < plan->ntasks; i++)
		PyTuple_SET_ITEM(need, (Py_ssize_t)i, PyLong_FromUnsignedLong(plan->cap_need[i]));

	for (size_t i = 0; parts && i < plan->nparts; i++)
		PyTuple_SET_ITEM(parts, (Py_ssize_t)i, part_dict(plan->parts[i]));
	if (plan->feasible && plan->nparts > 0 && dl_plan_layout(plan, &l) == 0) {
		layout = pydl_layout_dict(l);
		dl_layout_free(l);
	} else {
		layout = Py_NewRef(Py_None);
	}
	return pydl_dict("feasible", PyBool_FromLong(plan->feasible), "method", PyLong_FromLong(plan->method),
			 "method_name", PyUnicode_FromString(dl_plan_method_name(plan->method)),
			 "k", PyLong_FromLong(plan->k), "parts", parts,
			 "cluster", plan->cluster ? part_dict(plan->cluster) : Py_NewRef(Py_None),
			 "margin", PyLong_FromLongLong(plan->margin),
			 "global_", plan->global ? global_dict(plan->global) : Py_NewRef(Py_None),
			 "unplaced", ssize_or_none(plan->unplaced), "why", str_or_none(plan->why),
			 "layout", layout, "cap_need", need, "cap_min", PyLong_FromUnsignedLong(plan->cap_min),
			 "cap_max", PyLong_FromUnsignedLong(plan->cap_max), NULL);
}

/* plan(tasks or taskset, platform) -> dict (dl_plan_compute, dl_plan_taskset). */
static PyObject *plan(PyObject *self, PyObject *args)
{
	struct dl_platform pf, *pfp;
	uint32_t caps[DL_CPUS_MAX];
	struct dl_plan *pl = NULL;
	struct dl_params *tasks = NULL;
	PyObject *obj, *pobj = Py_None, *d;
	size_t n = 0;
	int err;

	(void)self;
	if (!PyArg_ParseTuple(args, "O|O", &obj, &pobj) || pydl_platform(pobj, &pf, &pfp, caps) < 0)
		return NULL;
	if (PyObject_TypeCheck(obj, &TaskSetType)) {
		TaskSet *ts = (TaskSet *)obj;

		Py_BEGIN_ALLOW_THREADS
		PyThread_acquire_lock(ts->lock, WAIT_LOCK);
		err = dl_plan_taskset(ts->ts, pfp, &pl);
		PyThread_release_lock(ts->lock);
		Py_END_ALLOW_THREADS
	} else {
		tasks = params_array(obj, &n);
		if (!tasks)
			return NULL;
		if (!pfp) {
			/* dl_plan_compute() needs a platform: this host's, as dl_plan_taskset() takes it. */
			Py_BEGIN_ALLOW_THREADS
			err = dl_platform_get(&pf, 0);
			Py_END_ALLOW_THREADS
			if (err < 0) {
				free(tasks);
				return pydl_raise(err, PYDL_CALL);
			}
			pfp = &pf;
		}
		Py_BEGIN_ALLOW_THREADS
		err = dl_plan_compute(tasks, n, pfp, &pl);
		Py_END_ALLOW_THREADS
		free(tasks);
	}
	if (err < 0)
		return pydl_raise(err, PYDL_INPUT);
	d = plan_dict(pl);
	dl_plan_free(pl);
	return d;
}

static PyObject *test_name(PyObject *self, PyObject *arg)
{
	int t;

	(void)self;
	/* "i": an int's range or OverflowError, never cut to one. */
	if (!PyArg_Parse(arg, "i", &t))
		return NULL;
	return str_or_none(dl_test_name(t));
}

PyMethodDef pydl_analysis_methods[] = {
	{ "platform", platform, METH_VARARGS,
	  "platform(ncpus, here) -> dict (dl_platform_get, dl_platform_init)" },
	{ "edf_test", edf_test, METH_VARARGS, "edf_test(tasks, server=None) -> dict (dl_edf_test)" },
	{ "global_test", global_test, METH_VARARGS,
	  "global_test(tasks, ncpus, server) or (taskset, platform)" },
	{ "exact_test", exact_test, METH_VARARGS,
	  "exact_test(tasks, ncpus, server, max_states, max_ns, ties_index) -> dict (dl_exact_test)" },
	{ "plan", plan, METH_VARARGS, "plan(tasks or taskset, platform=None) -> dict" },
	{ "test_name", test_name, METH_O, "test_name(test) -> str (dl_test_name)" },
	{ NULL, NULL, 0, NULL },
};

int pydl_analysis_init(PyObject *m)
{
	if (PyType_Ready(&TaskSetType) < 0)
		return -1;
	return PyModule_AddObjectRef(m, "TaskSet", (PyObject *)&TaskSetType);
}
