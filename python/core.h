/*
 * libdeadline._core: the C half of the Python binding, over the public
 * API only (libdeadline.h).  It converts and calls; the Pythonic layer
 * (types, context managers, defaults) is python/libdeadline/__init__.py.
 *
 * A reservation crosses as a tuple (runtime, deadline, period, flags,
 * util_min, util_max) of ints; CPU sets as frozensets of CPU numbers.
 */
#ifndef PYDL_CORE_H
#define PYDL_CORE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <libdeadline.h>

extern PyObject *pydl_error, *pydl_admission_error, *pydl_policy_error;

/* Raise the exception for a library failure err (a negative errno), with
 * dl_errmsg()'s sentence: PolicyError for EPERM; AdmissionError for
 * EBUSY from a call that sets a reservation (PYDL_ADMIT); ValueError for
 * EINVAL from a call that only checks the caller's values (PYDL_INPUT);
 * DeadlineError otherwise.  Returns NULL. */
enum { PYDL_CALL, PYDL_INPUT, PYDL_ADMIT };
PyObject *pydl_raise(int err, int kind);

/* obj as an int (its __index__) in 0..max, or -1 with OverflowError
 * naming the field name and its range: nothing is truncated. */
int pydl_u64(PyObject *obj, const char *name, uint64_t max, uint64_t *out);
/* The same for an unsigned int (flags, milliseconds); obj NULL (an
 * optional argument not given) leaves *out as it is. */
int pydl_uint(PyObject *obj, const char *name, unsigned int *out);
/* A tuple (runtime, deadline, period, flags, util_min, util_max), each in
 * its field's range: 0, or -1 with an exception. */
int pydl_params(PyObject *tuple, struct dl_params *p);
PyObject *pydl_params_tuple(const struct dl_params *p);
PyObject *pydl_cpus_set(const dl_cpus_t *cpus);
int pydl_cpus(PyObject *obj, dl_cpus_t *cpus); /* a str or an iterable of ints */
PyObject *pydl_rd_dict(const struct dl_rd *rd);
PyObject *pydl_verdict_dict(int ret, const struct dl_verdict *v, const char *why);
/* A list of what make() makes of each of the n items of size bytes at
 * base (an array the library returned); NULL when one fails. */
PyObject *pydl_list(const void *base, size_t n, size_t size, PyObject *(*make)(const void *item));
/* A list of (tid, err) for dl_set_process()'s status array; frees it. */
PyObject *pydl_status_list(struct dl_thread_status *st, size_t n);
/* obj is a platform dict or None; pf NULL-ed for None. */
/* A layout (dl_layout_load, dl_plan_layout) as a dict. */
PyObject *pydl_layout_dict(const struct dl_layout *l);
/* caps: DL_CPUS_MAX entries that hold the capacities pf points at. */
int pydl_platform(PyObject *obj, struct dl_platform *pf, struct dl_platform **use, uint32_t *caps);

/* Each file's functions and types, added to the module at its start. */
extern PyMethodDef pydl_thread_methods[], pydl_system_methods[], pydl_analysis_methods[];
int pydl_analysis_init(PyObject *m);
int pydl_periodic_init(PyObject *m);

/* Build a dict from "key", PyObject* pairs, NULL-terminated; steals the
 * values; NULL (and nothing leaked) when a value is NULL. */
PyObject *pydl_dict(const char *key, ...);

#endif
