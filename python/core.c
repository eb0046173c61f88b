/*
 * libdeadline._core: the module, its exceptions, what crosses between
 * Python and the library (times, reservations, CPU sets, root domains,
 * verdicts), and the calls on threads: set, get, budget, clear, predict.
 *
 * Every call that can block (a system call on another thread, reading the
 * kernel's figures) runs with the GIL released.  dl_errmsg() is the
 * calling thread's, and the thread does not change while the GIL is
 * released, so the message read after the call is the call's.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <string.h>

#include "core.h"

PyObject *pydl_error, *pydl_admission_error, *pydl_policy_error;

PyObject *pydl_raise(int err, int kind)
{
	PyObject *type = pydl_error, *args;

	if (err == -ENOMEM)
		return PyErr_NoMemory();
	if (kind == PYDL_INPUT && err == -EINVAL) {
		PyErr_SetString(PyExc_ValueError, dl_errmsg());
		return NULL;
	}
	if (kind == PYDL_ADMIT && err == -EBUSY)
		type = pydl_admission_error;
	else if (err == -EPERM)
		type = pydl_policy_error;
	args = Py_BuildValue("(is)", -err, dl_errmsg());
	if (args) {
		PyErr_SetObject(type, args);
		Py_DECREF(args);
	}
	return NULL;
}

PyObject *pydl_dict(const char *key, ...)
{
	PyObject *d = PyDict_New(), *v;
	va_list ap;
	bool bad = d == NULL;

	va_start(ap, key);
	for (; key; key = va_arg(ap, const char *)) {
		v = va_arg(ap, PyObject *);
		if (!v) {
			bad = true;
			continue;
		}
		if (!bad && PyDict_SetItemString(d, key, v) < 0)
			bad = true;
		Py_DECREF(v);
	}
	va_end(ap);
	if (bad) {
		Py_XDECREF(d);
		return NULL;
	}
	return d;
}

int pydl_u64(PyObject *obj, const char *name, uint64_t max, uint64_t *out)
{
	PyObject *n = PyNumber_Index(obj);
	unsigned long long v;
	bool out_of_range = false;

	if (!n)
		return -1;
	v = PyLong_AsUnsignedLongLong(n);
	if (v == (unsigned long long)-1 && PyErr_Occurred()) {
		/* Negative, or above 2^64 - 1. */
		if (!PyErr_ExceptionMatches(PyExc_OverflowError)) {
			Py_DECREF(n);
			return -1;
		}
		PyErr_Clear();
		out_of_range = true;
	}
	if (out_of_range || v > max) {
		PyErr_Format(PyExc_OverflowError, "%s %S is out of range: it is 0 to %llu", name, n,
			     (unsigned long long)max);
		Py_DECREF(n);
		return -1;
	}
	Py_DECREF(n);
	*out = v;
	return 0;
}

int pydl_uint(PyObject *obj, const char *name, unsigned int *out)
{
	uint64_t v;

	if (!obj)
		return 0;
	if (pydl_u64(obj, name, UINT_MAX, &v) < 0)
		return -1;
	*out = (unsigned int)v;
	return 0;
}

int pydl_params(PyObject *tuple, struct dl_params *p)
{
	static const char *const names[] = { "runtime", "deadline", "period", "flags", "util_min", "util_max" };
	uint64_t v[6];

	memset(p, 0, sizeof(*p));
	if (!PyTuple_Check(tuple) || PyTuple_GET_SIZE(tuple) != 6) {
		PyErr_SetString(PyExc_TypeError, "a reservation is (runtime, deadline, period, flags, util_min, util_max)");
		return -1;
	}
	/* A tuple holds its items: converting one (its __index__) cannot free another. */
	for (int i = 0; i < 6; i++)
		if (pydl_u64(PyTuple_GET_ITEM(tuple, i), names[i], i < 4 ? UINT64_MAX : UINT32_MAX, &v[i]) < 0)
			return -1;
	p->runtime = v[0];
	p->deadline = v[1];
	p->period = v[2];
	p->flags = v[3];
	p->util_min = (uint32_t)v[4];
	p->util_max = (uint32_t)v[5];
	return 0;
}

PyObject *pydl_params_tuple(const struct dl_params *p)
{
	return Py_BuildValue("(KKKKII)", (unsigned long long)p->runtime, (unsigned long long)p->deadline,
			     (unsigned long long)p->period, (unsigned long long)p->flags, p->util_min, p->util_max);
}

PyObject *pydl_cpus_set(const dl_cpus_t *cpus)
{
	PyObject *s = PyFrozenSet_New(NULL), *n;

	if (!s)
		return NULL;
	for (int cpu = 0; cpu < DL_CPUS_MAX; cpu++) {
		if (!dl_cpus_isset(cpus, cpu))
			continue;
		n = PyLong_FromLong(cpu);
		if (!n || PySet_Add(s, n) < 0) {
			Py_XDECREF(n);
			Py_DECREF(s);
			return NULL;
		}
		Py_DECREF(n);
	}
	return s;
}

int pydl_cpus(PyObject *obj, dl_cpus_t *cpus)
{
	PyObject *it, *item;
	int err;

	dl_cpus_zero(cpus);
	if (PyUnicode_Check(obj)) {
		const char *text = PyUnicode_AsUTF8(obj);

		if (!text)
			return -1;
		err = dl_cpus_parse(text, cpus);
		if (err < 0) {
			pydl_raise(err, PYDL_INPUT);
			return -1;
		}
		return 0;
	}
	it = PyObject_GetIter(obj);
	if (!it)
		return -1;
	while ((item = PyIter_Next(it))) {
		long cpu = PyLong_AsLong(item);

		Py_DECREF(item);
		if (cpu == -1 && PyErr_Occurred())
			break;
		if (cpu < 0 || cpu >= DL_CPUS_MAX) {
			PyErr_Format(PyExc_ValueError, "CPU %ld is out of range: CPUs are numbered 0 to %d", cpu,
				     DL_CPUS_MAX - 1);
			break;
		}
		dl_cpus_set(cpus, (int)cpu);
	}
	Py_DECREF(it);
	return PyErr_Occurred() ? -1 : 0;
}

PyObject *pydl_rd_dict(const struct dl_rd *rd)
{
	return pydl_dict("cpus", pydl_cpus_set(&rd->cpus), "ncpus", PyLong_FromLong(rd->ncpus),
			 "cpu_bw", PyLong_FromLongLong(rd->cpu_bw), "capacity", PyLong_FromLongLong(rd->capacity),
			 "fair_bw", PyLong_FromLongLong(rd->fair_bw), "tasks_bw", PyLong_FromLongLong(rd->tasks_bw),
			 "ntasks", PyLong_FromUnsignedLongLong(rd->ntasks),
			 "total_bw", PyLong_FromLongLong(rd->total_bw), "free_bw", PyLong_FromLongLong(rd->free_bw),
			 "from_kernel", PyBool_FromLong(rd->from_kernel), "unlimited", PyBool_FromLong(rd->unlimited),
			 "uncounted_fair_bw", PyLong_FromLongLong(rd->uncounted_fair_bw),
			 "cap_min", PyLong_FromUnsignedLong(rd->cap_min), "cap_max", PyLong_FromUnsignedLong(rd->cap_max),
			 "cap_sum", PyLong_FromUnsignedLongLong(rd->cap_sum), NULL);
}

PyObject *pydl_verdict_dict(int ret, const struct dl_verdict *v, const char *why)
{
	return pydl_dict("admitted", PyBool_FromLong(ret == 1), "step", PyLong_FromLong(v->step),
			 "cpu", PyLong_FromLong(v->cpu), "threads", PyLong_FromUnsignedLong(v->threads),
			 "need", PyLong_FromLongLong(v->need), "old", PyLong_FromLongLong(v->old),
			 "drift", PyLong_FromLong(v->drift), "cap_need", PyLong_FromUnsignedLong(v->cap_need),
			 "rd", v->step >= DL_VERDICT_AFFINITY || v->step == DL_VERDICT_ADMITTED ? pydl_rd_dict(&v->rd)
											     : Py_NewRef(Py_None),
			 "why", PyUnicode_DecodeUTF8(why, strlen(why), "replace"), NULL);
}

PyObject *pydl_list(const void *base, size_t n, size_t size, PyObject *(*make)(const void *item))
{
	PyObject *list = PyList_New((Py_ssize_t)n);

	for (size_t i = 0; list && i < n; i++) {
		PyObject *d = make((const char *)base + i * size);

		if (!d) {
			Py_CLEAR(list);
			break;
		}
		PyList_SET_ITEM(list, (Py_ssize_t)i, d);
	}
	return list;
}

static PyObject *status_item(const void *item)
{
	const struct dl_thread_status *st = item;

	return Py_BuildValue("(ii)", (int)st->tid, -st->err);
}

PyObject *pydl_status_list(struct dl_thread_status *st, size_t n)
{
	PyObject *list = pydl_list(st, n, sizeof(*st), status_item);

	free(st);
	return list;
}

static PyObject *time_parse(PyObject *self, PyObject *arg)
{
	const char *text = PyUnicode_AsUTF8(arg);
	uint64_t ns;
	int err;

	(void)self;
	if (!text)
		return NULL;
	err = dl_time_parse(text, &ns);
	if (err < 0)
		return pydl_raise(err, PYDL_INPUT);
	return PyLong_FromUnsignedLongLong(ns);
}

static PyObject *time_format(PyObject *self, PyObject *arg)
{
	char buf[DL_TIME_STRLEN];
	uint64_t ns;

	(void)self;
	if (pydl_u64(arg, "time", UINT64_MAX, &ns) < 0)
		return NULL;
	return PyUnicode_FromString(dl_time_format(ns, buf, sizeof(buf)));
}

static PyObject *bw_format(PyObject *self, PyObject *arg)
{
	long long bw = PyLong_AsLongLong(arg);
	char buf[DL_BW_STRLEN];

	(void)self;
	if (bw == -1 && PyErr_Occurred())
		return NULL;
	return PyUnicode_FromString(dl_bw_format(bw, buf, sizeof(buf)));
}

static PyObject *cpus_parse(PyObject *self, PyObject *arg)
{
	dl_cpus_t cpus;

	(void)self;
	if (pydl_cpus(arg, &cpus) < 0)
		return NULL;
	return pydl_cpus_set(&cpus);
}

static PyObject *cpus_format(PyObject *self, PyObject *arg)
{
	char buf[DL_CPUS_STRLEN];
	dl_cpus_t cpus;

	(void)self;
	if (pydl_cpus(arg, &cpus) < 0)
		return NULL;
	return PyUnicode_FromString(dl_cpus_format(&cpus, buf, sizeof(buf)));
}

static PyObject *cpus_online(PyObject *self, PyObject *unused)
{
	dl_cpus_t cpus;
	int err;

	(void)self;
	(void)unused;
	err = dl_cpus_online(&cpus);
	if (err < 0)
		return pydl_raise(err, PYDL_CALL);
	return pydl_cpus_set(&cpus);
}

static PyObject *normalize(PyObject *self, PyObject *arg)
{
	struct dl_params in, out;
	int err;

	(void)self;
	if (pydl_params(arg, &in) < 0)
		return NULL;
	err = dl_params_normalize(&in, &out);
	if (err < 0)
		return pydl_raise(err, PYDL_INPUT);
	return pydl_params_tuple(&out);
}

static PyObject *params_bw(PyObject *self, PyObject *arg)
{
	struct dl_params p;

	(void)self;
	if (pydl_params(arg, &p) < 0)
		return NULL;
	return PyLong_FromLongLong(dl_params_bw(&p));
}

static PyObject *period_limits(PyObject *self, PyObject *unused)
{
	uint64_t min, max;
	int err;

	(void)self;
	(void)unused;
	err = dl_period_limits(&min, &max);
	if (err < 0)
		return pydl_raise(err, PYDL_CALL);
	return Py_BuildValue("(KK)", (unsigned long long)min, (unsigned long long)max);
}

static PyObject *set(PyObject *self, PyObject *args)
{
	struct dl_params p;
	PyObject *tuple;
	int tid, owned = 0, err;

	(void)self;
	if (!PyArg_ParseTuple(args, "iO|p", &tid, &tuple, &owned) || pydl_params(tuple, &p) < 0)
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	err = owned ? dl_set_owned(tid, &p) : dl_set(tid, &p);
	Py_END_ALLOW_THREADS
	if (err < 0)
		return pydl_raise(err, PYDL_ADMIT);
	Py_RETURN_NONE;
}

static PyObject *set_process(PyObject *self, PyObject *args)
{
	struct dl_thread_status *st = NULL;
	unsigned int flags = 0;
	struct dl_params p;
	PyObject *tuple, *fobj;
	size_t n = 0;
	int pid, err;

	(void)self;
	if (!PyArg_ParseTuple(args, "iOO", &pid, &tuple, &fobj) || pydl_params(tuple, &p) < 0 ||
	    pydl_uint(fobj, "flags", &flags) < 0)
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	err = dl_set_process(pid, &p, flags, &st, &n);
	Py_END_ALLOW_THREADS
	if (err < 0) {
		free(st);
		return pydl_raise(err, PYDL_ADMIT);
	}
	return pydl_status_list(st, n);
}

static PyObject *get(PyObject *self, PyObject *args)
{
	struct dl_params p;
	int tid, err;

	(void)self;
	if (!PyArg_ParseTuple(args, "i", &tid))
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	err = dl_get(tid, &p);
	Py_END_ALLOW_THREADS
	if (err < 0)
		return pydl_raise(err, PYDL_CALL);
	if (p.runtime == 0)
		Py_RETURN_NONE;
	return pydl_params_tuple(&p);
}

static PyObject *budget(PyObject *self, PyObject *args)
{
	struct dl_budget b;
	int tid, err;

	(void)self;
	if (!PyArg_ParseTuple(args, "i", &tid))
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	err = dl_get_budget(tid, &b);
	Py_END_ALLOW_THREADS
	if (err < 0)
		return pydl_raise(err, PYDL_CALL);
	return Py_BuildValue("(LK)", (long long)b.runtime, (unsigned long long)b.deadline);
}

static PyObject *clear(PyObject *self, PyObject *args)
{
	int tid, err;

	(void)self;
	if (!PyArg_ParseTuple(args, "i", &tid))
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	err = dl_clear(tid);
	Py_END_ALLOW_THREADS
	if (err < 0)
		return pydl_raise(err, PYDL_CALL);
	Py_RETURN_NONE;
}

/* predict(pid, all_threads, params, member=None, where=None): member
 * names a layout member the task is placed in first (dl_part_predict);
 * where=True judges a task about to start in member (dl_predict_member,
 * member None: outside every member). */
static PyObject *predict(PyObject *self, PyObject *args)
{
	const char *member = NULL;
	struct dl_verdict v;
	struct dl_params p;
	PyObject *tuple;
	int pid, all, start = 0, ret;
	char why[1024];

	(void)self;
	if (!PyArg_ParseTuple(args, "ipO|zp", &pid, &all, &tuple, &member, &start) || pydl_params(tuple, &p) < 0)
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	if (start)
		ret = dl_predict_member(member, &p, &v, why, sizeof(why));
	else if (member)
		ret = dl_part_predict(member, pid, all, &p, &v, why, sizeof(why));
	else
		ret = dl_predict_verdict(pid, all, &p, &v, why, sizeof(why));
	Py_END_ALLOW_THREADS
	if (ret < 0)
		return pydl_raise(ret, PYDL_CALL);
	return pydl_verdict_dict(ret, &v, why);
}

static PyObject *explain(PyObject *self, PyObject *args)
{
	struct dl_params p;
	PyObject *tuple;
	int err, tid, ret;
	char buf[1024];

	(void)self;
	if (!PyArg_ParseTuple(args, "iiO", &err, &tid, &tuple) || pydl_params(tuple, &p) < 0)
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	ret = dl_explain(-err, tid, &p, buf, sizeof(buf));
	Py_END_ALLOW_THREADS
	if (ret < 0)
		return pydl_raise(ret, PYDL_CALL);
	return PyUnicode_DecodeUTF8(buf, strlen(buf), "replace");
}

static PyObject *have_cap_sys_nice(PyObject *self, PyObject *unused)
{
	int ret = dl_have_cap_sys_nice();

	(void)self;
	(void)unused;
	if (ret < 0)
		return pydl_raise(ret, PYDL_CALL);
	return PyBool_FromLong(ret);
}

PyMethodDef pydl_thread_methods[] = {
	{ "time_parse", time_parse, METH_O, "time_parse(text) -> ns (dl_time_parse)" },
	{ "time_format", time_format, METH_O, "time_format(ns) -> str (dl_time_format)" },
	{ "bw_format", bw_format, METH_O, "bw_format(bw) -> str (dl_bw_format)" },
	{ "cpus_parse", cpus_parse, METH_O, "cpus_parse(text or iterable) -> frozenset (dl_cpus_parse)" },
	{ "cpus_format", cpus_format, METH_O, "cpus_format(text or iterable) -> str (dl_cpus_format)" },
	{ "cpus_online", cpus_online, METH_NOARGS, "cpus_online() -> frozenset (dl_cpus_online)" },
	{ "normalize", normalize, METH_O, "normalize(params) -> params (dl_params_normalize)" },
	{ "params_bw", params_bw, METH_O, "params_bw(params) -> bw (dl_params_bw)" },
	{ "period_limits", period_limits, METH_NOARGS, "period_limits() -> (min, max) (dl_period_limits)" },
	{ "set", set, METH_VARARGS, "set(tid, params, owned=False) (dl_set, dl_set_owned)" },
	{ "set_process", set_process, METH_VARARGS, "set_process(pid, params, flags) -> [(tid, errno)]" },
	{ "get", get, METH_VARARGS, "get(tid) -> params or None (dl_get)" },
	{ "budget", budget, METH_VARARGS, "budget(tid) -> (runtime left, absolute deadline) (dl_get_budget)" },
	{ "clear", clear, METH_VARARGS, "clear(tid) (dl_clear)" },
	{ "predict", predict, METH_VARARGS, "predict(pid, all, params, member=None, start=False) -> dict" },
	{ "explain", explain, METH_VARARGS, "explain(errno, tid, params) -> str (dl_explain)" },
	{ "have_cap_sys_nice", have_cap_sys_nice, METH_NOARGS, "have_cap_sys_nice() -> bool" },
	{ NULL, NULL, 0, NULL },
};

static int add_methods(PyObject *m, PyMethodDef *defs)
{
	for (; defs->ml_name; defs++) {
		PyObject *f = PyCFunction_NewEx(defs, NULL, NULL);

		if (!f || PyModule_AddObject(m, defs->ml_name, f) < 0) {
			Py_XDECREF(f);
			return -1;
		}
	}
	return 0;
}

static struct PyModuleDef module = {
	PyModuleDef_HEAD_INIT,
	.m_name = "libdeadline._core",
	.m_doc = "libdeadline's C API for the libdeadline package (use the package, not this module).",
	.m_size = -1,
};

PyMODINIT_FUNC PyInit__core(void);
PyMODINIT_FUNC PyInit__core(void)
{
	PyObject *m = PyModule_Create(&module), *bases;

	if (!m)
		return NULL;
	pydl_error = PyErr_NewExceptionWithDoc("libdeadline.DeadlineError",
					       "A call of libdeadline failed: errno, and strerror holding the "
					       "library's explanation (dl_errmsg()).",
					       PyExc_OSError, NULL);
	if (!pydl_error)
		goto fail;
	pydl_admission_error = PyErr_NewExceptionWithDoc(
		"libdeadline.AdmissionError",
		"EBUSY: the kernel's admission test refused the reservation (not enough free bandwidth).",
		pydl_error, NULL);
	bases = Py_BuildValue("(OO)", pydl_error, PyExc_PermissionError);
	pydl_policy_error = bases ? PyErr_NewExceptionWithDoc(
					    "libdeadline.PolicyError",
					    "EPERM: the kernel's or dl-run.conf's policy refused the change "
					    "(no CAP_SYS_NICE, an affinity that does not cover the root domain...).",
					    bases, NULL)
				  : NULL;
	Py_XDECREF(bases);
	if (!pydl_admission_error || !pydl_policy_error)
		goto fail;
	if (PyModule_AddObjectRef(m, "DeadlineError", pydl_error) < 0 ||
	    PyModule_AddObjectRef(m, "AdmissionError", pydl_admission_error) < 0 ||
	    PyModule_AddObjectRef(m, "PolicyError", pydl_policy_error) < 0)
		goto fail;
	if (add_methods(m, pydl_thread_methods) < 0 || add_methods(m, pydl_system_methods) < 0 ||
	    add_methods(m, pydl_analysis_methods) < 0 || pydl_analysis_init(m) < 0 || pydl_periodic_init(m) < 0)
		goto fail;
	return m;
fail:
	Py_DECREF(m);
	return NULL;
}
