/*
 * libdeadline._core: the periodic loop (dl_periodic_start(3)) as an
 * iterator.  Each step yields a Job for the job now running; when the
 * loop moves on, dl_periodic_next() ends it and its record (release, end,
 * met...) is copied into that Job.  The wait for the next release runs
 * with the GIL released; the step allocates nothing but the Job it yields.
 *
 * Another thread may close the loop while its own thread waits in
 * dl_periodic_next() without the GIL: the loop cannot be freed under that
 * wait, so close() marks it closing and the waiting thread frees it when
 * the wait ends, and its next() ends the iteration.  One thread iterates
 * a loop at a time: the library's loop is its thread's.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "core.h"

typedef struct {
	PyObject_HEAD
	struct dl_job job;
	uint64_t number; /* its place in the loop, from 0 */
	bool ended;
} Job;

typedef struct {
	PyObject_HEAD
	struct dl_periodic *pt;
	struct dl_params params;
	bool have_params, started, closed;
	bool busy;    /* a thread is in dl_periodic_start() or _next(), the GIL released */
	bool closing; /* close() came while busy: that thread frees the loop */
	int mode;
	uint64_t first_release, limit, count;
	Job *current; /* the job running, or NULL */
	Job *last;    /* the last job ended, or NULL */
} Periodic;

static PyTypeObject JobType, PeriodicType;

static void job_dealloc(Job *self)
{
	PyObject_Free(self);
}

/* A field of the record: None until the job has ended. */
static PyObject *job_field(Job *self, void *closure)
{
	size_t off = (size_t)closure;

	if (!self->ended)
		Py_RETURN_NONE;
	return PyLong_FromUnsignedLongLong(*(uint64_t *)((char *)&self->job + off));
}

static PyObject *job_met(Job *self, void *closure)
{
	(void)closure;
	if (!self->ended)
		Py_RETURN_NONE;
	return PyBool_FromLong(self->job.met);
}

static PyObject *job_overruns(Job *self, void *closure)
{
	(void)closure;
	if (!self->ended)
		Py_RETURN_NONE;
	return PyLong_FromUnsignedLong(self->job.overruns);
}

static PyObject *job_ended(Job *self, void *closure)
{
	(void)closure;
	return PyBool_FromLong(self->ended);
}

static PyObject *job_number(Job *self, void *closure)
{
	(void)closure;
	return PyLong_FromUnsignedLongLong(self->number);
}

static PyObject *job_repr(Job *self)
{
	char rel[DL_TIME_STRLEN], resp[DL_TIME_STRLEN];

	if (!self->ended)
		return PyUnicode_FromFormat("<Job %llu running>", (unsigned long long)self->number);
	return PyUnicode_FromFormat("<Job %llu index=%llu release=%s response=%s %s>",
				    (unsigned long long)self->number, (unsigned long long)self->job.index,
				    dl_time_format(self->job.release, rel, sizeof(rel)),
				    dl_time_format(self->job.response, resp, sizeof(resp)),
				    self->job.met ? "met" : "missed");
}

#define FIELD(name, doc) { #name, (getter)job_field, NULL, doc, (void *)offsetof(struct dl_job, name) }
static PyGetSetDef job_getset[] = {
	{ "number", (getter)job_number, NULL, "Its place in this loop, from 0.", NULL },
	{ "ended", (getter)job_ended, NULL, "Whether it has ended (its record is filled in).", NULL },
	FIELD(index, "Its period's number, from 0 (skipped periods count)."),
	FIELD(release, "CLOCK_MONOTONIC ns: when it was released."),
	FIELD(deadline, "Absolute deadline, ns: release + the relative deadline."),
	FIELD(start, "CLOCK_MONOTONIC ns: when it began to run."),
	FIELD(end, "CLOCK_MONOTONIC ns: when it ended."),
	FIELD(response, "end - release, ns."),
	FIELD(tardiness, "end - deadline when late, else 0."),
	FIELD(skipped, "Periods with no job just before this one."),
	FIELD(reanchor, "Yield mode: ns the kernel moved its grid later just before it."),
	FIELD(cpu, "Its thread's CPU time since the job before ended, ns."),
	{ "overruns", (getter)job_overruns, NULL, "SIGXCPU received during it (DL_FLAG_DL_OVERRUN).", NULL },
	{ "met", (getter)job_met, NULL, "True when it ended by its deadline (None while it runs).", NULL },
	{ NULL, NULL, NULL, NULL, NULL },
};

static PyTypeObject JobType = {
	PyVarObject_HEAD_INIT(NULL, 0).tp_name = "libdeadline.Job",
	.tp_basicsize = sizeof(Job),
	.tp_dealloc = (destructor)job_dealloc,
	.tp_repr = (reprfunc)job_repr,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "A job of a periodic loop: the one running, whose record (release, end, met...) is filled in "
		  "once it has ended (when the loop moves on).  Times are CLOCK_MONOTONIC nanoseconds.",
	.tp_getset = job_getset,
};

static PyObject *periodic_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
	static char *keys[] = { "params", "mode", "first_release", "jobs", NULL };
	PyObject *params = Py_None, *firstobj = NULL, *limitobj = NULL;
	uint64_t first = 0, limit = 0;
	Periodic *self;
	int mode = DL_PERIODIC_SLEEP;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|OiOO", keys, &params, &mode, &firstobj, &limitobj))
		return NULL;
	if ((firstobj && pydl_u64(firstobj, "first_release", UINT64_MAX, &first) < 0) ||
	    (limitobj && pydl_u64(limitobj, "jobs", UINT64_MAX, &limit) < 0))
		return NULL;
	self = (Periodic *)type->tp_alloc(type, 0);
	if (!self)
		return NULL;
	if (params != Py_None) {
		if (pydl_params(params, &self->params) < 0) {
			Py_DECREF(self);
			return NULL;
		}
		self->have_params = true;
	}
	self->mode = mode;
	self->first_release = first;
	self->limit = limit;
	return (PyObject *)self;
}

static void periodic_free(Periodic *self)
{
	struct dl_periodic *pt = self->pt;

	self->pt = NULL;
	self->closed = true;
	if (pt) {
		Py_BEGIN_ALLOW_THREADS
		dl_periodic_free(pt);
		Py_END_ALLOW_THREADS
	}
	Py_CLEAR(self->current);
}

static void periodic_dealloc(Periodic *self)
{
	periodic_free(self);
	Py_CLEAR(self->last);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *periodic_next(Periodic *self)
{
	const struct dl_job *done = NULL;
	struct dl_periodic *pt = NULL;
	Job *job;
	int err;

	if (self->closed)
		return NULL;
	if (self->busy) {
		PyErr_SetString(PyExc_RuntimeError,
				"the loop is running in another thread: a periodic loop is iterated by one thread, "
				"the one it started in");
		return NULL;
	}
	/* Finished at its jobs limit: every further next() ends the iteration
	 * again, with no period waited for and no job counted. */
	if (self->limit && self->count >= self->limit)
		return NULL;
	self->busy = true;
	if (!self->started) {
		self->started = true;
		Py_BEGIN_ALLOW_THREADS
		err = dl_periodic_start(&pt, self->have_params ? &self->params : NULL, self->mode,
					self->first_release);
		Py_END_ALLOW_THREADS
		self->busy = false;
		if (err < 0) {
			self->closed = true;
			return pydl_raise(err, PYDL_ADMIT);
		}
		self->pt = pt;
		if (self->closing) {
			periodic_free(self);
			return NULL;
		}
	} else {
		Py_BEGIN_ALLOW_THREADS
		err = dl_periodic_next(self->pt, &done);
		Py_END_ALLOW_THREADS
		self->busy = false;
		if (err < 0) {
			periodic_free(self);
			return pydl_raise(err, PYDL_CALL);
		}
		/* done is the loop's: copied before a close() that came during the wait frees it. */
		if (self->current && done) {
			self->current->job = *done;
			self->current->ended = true;
			Py_XSETREF(self->last, self->current);
			self->current = NULL;
		}
		if (self->closing) {
			periodic_free(self);
			return NULL;
		}
		self->count++;
		if (self->limit && self->count >= self->limit) {
			/* The loop stays allocated until close() so that stats() still reads it. */
			Py_CLEAR(self->current);
			return NULL;
		}
	}
	job = PyObject_New(Job, &JobType);
	if (!job)
		return NULL;
	memset(&job->job, 0, sizeof(job->job));
	job->number = self->count;
	job->ended = false;
	Py_XSETREF(self->current, (Job *)Py_NewRef(job));
	return (PyObject *)job;
}

/* True when the loop is freed now; False when its thread waits in it,
 * and frees it (its next() ending the iteration) when the wait ends. */
static PyObject *periodic_close(Periodic *self, PyObject *unused)
{
	(void)unused;
	if (self->busy) {
		self->closed = true;
		self->closing = true;
		Py_RETURN_FALSE;
	}
	periodic_free(self);
	Py_RETURN_TRUE;
}

static PyObject *periodic_stats(Periodic *self, PyObject *unused)
{
	const struct dl_periodic_stats *s;

	(void)unused;
	if (!self->pt || self->closing)
		Py_RETURN_NONE;
	s = dl_periodic_stats(self->pt);
	if (!s)
		return pydl_raise(-errno, PYDL_CALL);
	return pydl_dict("jobs", PyLong_FromUnsignedLongLong(s->jobs), "misses", PyLong_FromUnsignedLongLong(s->misses),
			 "skipped", PyLong_FromUnsignedLongLong(s->skipped),
			 "overruns", PyLong_FromUnsignedLongLong(s->overruns),
			 "reanchors", PyLong_FromUnsignedLongLong(s->reanchors),
			 "reanchor_ns", PyLong_FromUnsignedLongLong(s->reanchor_ns),
			 "response_min", PyLong_FromUnsignedLongLong(s->response_min),
			 "response_p50", PyLong_FromUnsignedLongLong(s->response_p50),
			 "response_p90", PyLong_FromUnsignedLongLong(s->response_p90),
			 "response_p99", PyLong_FromUnsignedLongLong(s->response_p99),
			 "response_max", PyLong_FromUnsignedLongLong(s->response_max),
			 "tardiness_max", PyLong_FromUnsignedLongLong(s->tardiness_max), NULL);
}

static PyObject *periodic_last(Periodic *self, void *closure)
{
	(void)closure;
	if (!self->last)
		Py_RETURN_NONE;
	return Py_NewRef((PyObject *)self->last);
}

static PyObject *periodic_started(Periodic *self, void *closure)
{
	(void)closure;
	return PyBool_FromLong(self->started);
}

static PyObject *periodic_closed(Periodic *self, void *closure)
{
	(void)closure;
	return PyBool_FromLong(self->closed);
}

static PyMethodDef periodic_methods[] = {
	{ "close", (PyCFunction)periodic_close, METH_NOARGS,
	  "close() -> bool: free the loop (dl_periodic_free); False when its thread waits in it and frees it "
	  "when the wait ends." },
	{ "stats", (PyCFunction)periodic_stats, METH_NOARGS, "stats() -> dict (dl_periodic_stats), or None." },
	{ NULL, NULL, 0, NULL },
};

static PyGetSetDef periodic_getset[] = {
	{ "last", (getter)periodic_last, NULL, "The last job ended, or None.", NULL },
	{ "started", (getter)periodic_started, NULL, "Whether the loop has started.", NULL },
	{ "closed", (getter)periodic_closed, NULL, "Whether the loop has been closed (or failed).", NULL },
	{ NULL, NULL, NULL, NULL, NULL },
};

static PyTypeObject PeriodicType = {
	PyVarObject_HEAD_INIT(NULL, 0).tp_name = "libdeadline._core.Periodic",
	.tp_basicsize = sizeof(Periodic),
	.tp_dealloc = (destructor)periodic_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "The periodic loop of the library (dl_periodic_start): an iterator of Jobs.",
	.tp_iter = PyObject_SelfIter,
	.tp_iternext = (iternextfunc)periodic_next,
	.tp_methods = periodic_methods,
	.tp_getset = periodic_getset,
	.tp_new = periodic_new,
};

int pydl_periodic_init(PyObject *m)
{
	if (PyType_Ready(&JobType) < 0 || PyType_Ready(&PeriodicType) < 0)
		return -1;
	if (PyModule_AddObjectRef(m, "Job", (PyObject *)&JobType) < 0 ||
	    PyModule_AddObjectRef(m, "Periodic", (PyObject *)&PeriodicType) < 0)
		return -1;
	return 0;
}
