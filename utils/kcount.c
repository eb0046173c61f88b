/*
 * kcount.c: see kcount.h.  The BPF object is built at make time and
 * embedded in dl-stat by bpftool's skeleton (kcount.skel.h), as
 * libbpf-tools do: nothing to install beside the binary.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kcount.h"

#ifdef HAVE_BPF
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "kcount.bpf.h"
#include "kcount.skel.h"

struct kcount {
	struct kcount_bpf *skel;
	bool dl_throttle_tp; /* libdl_kc_dlthr loaded: its throttles count */
	/* The records as kcount_read last read them, by thread id. */
	struct kc_row *rows;
	size_t nrows, cap;
};

/* libbpf's own messages are for BPF developers; kcount_start says what
 * failed in the tool's words. */
static int quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

/* The kernel's BTF as libbpf finds it (/sys/kernel/btf/vmlinux first):
 * 0, or why it found none it could read. */
static int vmlinux_btf(void)
{
	struct btf *btf = btf__load_vmlinux_btf();
	int err = libbpf_get_error(btf);

	btf__free(err ? NULL : btf);
	return err;
}

/* Whether the kernel has the bare tracepoint NAME (a typedef
 * btf_trace_NAME in its BTF, what a tp_btf program attaches by): the
 * sched_dl_*_tp of Linux 7.1 and later. */
static bool has_tracepoint(const char *name)
{
	struct btf *btf = btf__load_vmlinux_btf();
	char type[64];
	bool has;

	if (libbpf_get_error(btf))
		return false;
	snprintf(type, sizeof(type), "btf_trace_%s", name);
	has = btf__find_by_name_kind(btf, type, BTF_KIND_TYPEDEF) >= 0;
	btf__free(btf);
	return has;
}

static void explain(int err, char *why, size_t len)
{
	int btf_err;

	if (access("/sys/kernel/btf/vmlinux", F_OK) != 0 && vmlinux_btf() != 0)
		snprintf(why, len,
			 "the kernel has no BTF (/sys/kernel/btf/vmlinux is missing), so its scheduler's fields cannot be found: boot a kernel built with CONFIG_DEBUG_INFO_BTF=y (Debian's are)");
	else if ((err == -EPERM || err == -EACCES) && geteuid() != 0)
		snprintf(why, len, "counting from the kernel needs root (or CAP_BPF and CAP_PERFMON): run dl-stat --kernel as root");
	else if ((btf_err = vmlinux_btf()) == -ESRCH) /* libbpf: none valid */
		snprintf(why, len,
			 "the kernel's BTF (/sys/kernel/btf/vmlinux) is not valid BTF, so its scheduler's fields cannot be found: it is empty or not the kernel's (is something mounted over it?)");
	else if (btf_err != 0)
		snprintf(why, len,
			 "the kernel's BTF (/sys/kernel/btf/vmlinux) cannot be read (%s), so its scheduler's fields cannot be found",
			 strerror(-btf_err));
	else if (err == -EPERM || err == -EACCES)
		snprintf(why, len,
			 "the kernel refused to load the BPF program (%s): lockdown=confidentiality, a security module or a BPF sysctl forbids it; dmesg may say which",
			 strerror(-err));
	else
		snprintf(why, len, "the BPF program could not be loaded and attached: %s", strerror(-err));
}

int kcount_start(struct kcount **out, char *why, size_t len)
{
	struct kcount *k = calloc(1, sizeof(*k));
	int err;

	*out = NULL;
	if (!k) {
		snprintf(why, len, "out of memory");
		return -ENOMEM;
	}
	libbpf_set_print(quiet);
	k->skel = kcount_bpf__open();
	if (!k->skel) {
		err = errno ? -errno : -EINVAL;
		goto fail;
	}
	/* Where the kernel has no sched_dl_throttle_tp (before 7.1) its
	 * program is neither loaded nor attached: the inferred count alone. */
	k->dl_throttle_tp = has_tracepoint("sched_dl_throttle_tp");
	bpf_program__set_autoload(k->skel->progs.libdl_kc_dlthr, k->dl_throttle_tp);
	err = kcount_bpf__load(k->skel);
	if (err)
		goto fail;
	err = kcount_bpf__attach(k->skel);
	if (err)
		goto fail;
	*out = k;
	return 0;
fail:
	explain(err, why, len);
	kcount_bpf__destroy(k->skel);
	free(k);
	return err;
}

const char *kcount_throttle_source(const struct kcount *k)
{
	return k->dl_throttle_tp ? "sched_dl_throttle_tp" : "sched_switch";
}

static int by_tid(const void *a, const void *b)
{
	const struct kc_row *x = a, *y = b;

	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* Each read of the iterator's file runs the program over the next tasks
 * (kcount.bpf.c, libdl_kc_iter): whole rows, until 0 at the end. */
int kcount_read(struct kcount *k, char *why, size_t len)
{
	int fd = bpf_iter_create(bpf_link__fd(k->skel->links.libdl_kc_iter));
	char *buf = (char *)k->rows;
	size_t have = 0;
	int err = 0;

	k->nrows = 0;
	if (fd < 0) {
		err = -errno;
		snprintf(why, len,
			 "the kernel's counts cannot be read: its task iterator cannot be started (%s)",
			 strerror(-err));
		return err;
	}
	for (;;) {
		ssize_t n;

		if (k->cap - have < 4096 + sizeof(struct kc_row)) {
			size_t cap = k->cap ? 2 * k->cap : 64 * 1024;
			char *more = realloc(buf, cap);

			if (!more) {
				err = -ENOMEM;
				snprintf(why, len, "out of memory");
				break;
			}
			buf = more;
			k->rows = (struct kc_row *)(void *)buf;
			k->cap = cap;
		}
		n = read(fd, buf + have, k->cap - have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = -errno;
			snprintf(why, len,
				 "the kernel's counts cannot be read: its task iterator failed (%s)",
				 strerror(-err));
			break;
		}
		if (n == 0)
			break;
		have += (size_t)n;
	}
	close(fd);
	if (err)
		return err;
	k->nrows = have / sizeof(struct kc_row);
	qsort(k->rows, k->nrows, sizeof(*k->rows), by_tid);
	return (int)k->nrows;
}

void kcount_get(struct kcount *k, pid_t tid, struct dl_task_counts *out, uint64_t *inferred)
{
	struct kc_row key = { .tid = (__u64)tid };
	const struct kc_row *row;
	const struct kc_rec *r;

	_Static_assert(KC_BUCKETS == DL_COUNTS_BUCKETS, "the kernel counter's buckets are the published ones");
	memset(out, 0, sizeof(*out));
	out->tid = tid;
	*inferred = 0;
	/* None: not blocked, yielded or throttled since kcount_start. */
	row = k->nrows ? bsearch(&key, k->rows, k->nrows, sizeof(*k->rows), by_tid) : NULL;
	if (!row)
		return;
	r = &row->rec;
	out->jobs = r->jobs;
	out->misses = r->misses;
	out->overruns = k->dl_throttle_tp ? r->tp_throttles : r->throttles;
	*inferred = r->throttles;
	out->response_max = r->resp_max;
	out->response_sum = r->resp_sum;
	memcpy(out->buckets, r->buckets, sizeof(out->buckets));
}

uint64_t kcount_failed(const struct kcount *k)
{
	return __atomic_load_n(&k->skel->bss->kc_failed, __ATOMIC_RELAXED);
}

void kcount_stop(struct kcount *k)
{
	if (!k)
		return;
	kcount_bpf__destroy(k->skel);
	free(k->rows);
	free(k);
}

#else /* !HAVE_BPF */

struct kcount {
	int unused;
};

int kcount_start(struct kcount **k, char *why, size_t len)
{
	*k = NULL;
	snprintf(why, len,
		 "this dl-stat was built without BPF (configure --disable-bpf, or no clang, libbpf or bpftool: ./bootstrap.sh installs them)");
	return -ENOSYS;
}

const char *kcount_throttle_source(const struct kcount *k)
{
	(void)k;
	return "sched_switch";
}

int kcount_read(struct kcount *k, char *why, size_t len)
{
	(void)k;
	(void)why;
	(void)len;
	return -ENOSYS;
}

uint64_t kcount_failed(const struct kcount *k)
{
	(void)k;
	return 0;
}

void kcount_get(struct kcount *k, pid_t tid, struct dl_task_counts *out, uint64_t *inferred)
{
	(void)k;
	memset(out, 0, sizeof(*out));
	out->tid = tid;
	*inferred = 0;
}

void kcount_stop(struct kcount *k)
{
	(void)k;
}
#endif
