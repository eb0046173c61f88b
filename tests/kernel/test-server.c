/*
 * The fair server and admission: what dl-run --check says a one-CPU
 * partition admits, against what the kernel then admits, exactly at the
 * edge and one unit past it, with the partition's fair server as the
 * kernel has it and with it off (runtime 0, written by the suite to
 * debugfs and put back after).  The edge request has a period of 2^20 ns,
 * so that its runtime in ns is its bandwidth in the kernel's units and it
 * can ask for exactly what is left (docs/kernel-notes.md, "The fair
 * server").  Where the kernel refuses to change the server (debugfs in
 * lockdown), the suite checks that dl-run --check and dl-stat say the
 * server as the kernel runs it (its default, not read) and the edge with
 * it on; the edge with it off is then checked in the VM suites
 * (tests/vm/guest/admission.sh on 6.12).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testlib.h"

#define CPUSET "/sys/fs/cgroup/cpuset"
#define FAIR "/sys/kernel/debug/sched/fair_server/cpu0"
#define EDGE_PERIOD (1ULL << 20)

static char root_lb[16];
static char out[16384], err[16384];
/* CPU 0's fair server runtime as found, read before the tests ("": its
 * file refuses, and the server cannot be changed). */
static char fair_runtime[32];
static pid_t held[4];
static int nheld;

static void put_back(void)
{
	for (int i = 0; i < nheld; i++)
		tl_kill(held[i]);
	nheld = 0;
	tl_settle();
	if (fair_runtime[0] && dl_write_file(FAIR "/runtime", fair_runtime) < 0)
		tl_note("cannot put CPU 0's fair server runtime back to %s: %s", fair_runtime, dl_errmsg());
	tl_layout_restore(root_lb);
}

static void setup(void)
{
	put_back();
	tl_settle();
}

/* CPU 0's root domain's capacity less its admitted count, in sched/debug. */
static int64_t kernel_free(void)
{
	uint64_t bw;
	int64_t total;

	ck_assert_int_eq(dl_kernel_bw(0, &bw, &total), 0);
	return (int64_t)bw - total;
}

static int64_t kernel_total(void)
{
	uint64_t bw;
	int64_t total;

	ck_assert_int_eq(dl_kernel_bw(0, &bw, &total), 0);
	return total;
}

/* dl-run --check --partition partition0 for runtime ns every 2^20 ns:
 * 0 admitted, 1 refused (its JSON into out). */
static int check(uint64_t runtime)
{
	char r[32], p[32];

	snprintf(r, sizeof(r), "%" PRIu64 "ns", runtime);
	snprintf(p, sizeof(p), "%" PRIu64 "ns", (uint64_t)EDGE_PERIOD);
	return tl_run((char *[]){ (char *)tl_tool("dl-run"), "--check", "--json", "--partition", "partition0", "-r", r,
				  "-p", p, NULL },
		      out, sizeof(out), err, sizeof(err));
}

/* The kernel's answer for the same request in partition0: 0 admitted
 * (the task kept, held), 1 refused. */
static int ask(uint64_t runtime)
{
	char why[1024];
	pid_t pid = tl_dl_hog_in("partition0", runtime, EDGE_PERIOD, why, sizeof(why));

	if (pid < 0) {
		ck_assert_msg(strstr(why, "refused"), "refused, but not by admission: %s", why);
		return 1;
	}
	ck_assert_int_lt(nheld, (int)ARRAY_SIZE(held));
	held[nheld++] = pid;
	return 0;
}

/* The edge of partition0 as the kernel has it now: --check and the
 * kernel agree that `free` is admitted and one unit more is not, and
 * --check's free figure is the kernel's.  The free figure. */
static int64_t edge(const char *what)
{
	int64_t free_bw = kernel_free();
	char want[64];

	ck_assert_int_gt(free_bw, 1024);
	ck_assert_int_eq(check((uint64_t)free_bw + 1), 1);
	snprintf(want, sizeof(want), "\"free_bw\":%" PRId64, free_bw);
	ck_assert_msg(strstr(out, want), "%s: --check's free figure is not the kernel's %" PRId64 ":\n%s", what,
		      free_bw, out);
	ck_assert_msg(ask((uint64_t)free_bw + 1) == 1, "%s: the kernel admitted one unit past the edge", what);
	ck_assert_int_eq(check((uint64_t)free_bw), 0);
	ck_assert_msg(ask((uint64_t)free_bw) == 0, "%s: --check admitted exactly the edge, the kernel refused it", what);
	ck_assert_int_eq(kernel_free(), 0);
	return free_bw;
}

/* The fair server as the kernel runs it: the partition admits the cap
 * less that server. */
START_TEST(test_edge_with_the_server)
{
	struct dl_server s;
	int64_t free_bw;

	tl_layout_cpu0();
	ck_assert_int_eq(dl_server_get(0, DL_SERVER_FAIR, &s), 0);
	ck_assert(s.present);
	free_bw = edge("server on");
	/* cap less the server (to_ratio each, as the kernel), nothing else. */
	ck_assert_int_eq(free_bw, 996147 - (int64_t)((s.runtime << 20) / s.period));
	tl_note("partition0 admits %" PRId64 " (of 2^20) with its fair server at %" PRIu64 "ns every %" PRIu64
		"ns%s", free_bw, s.runtime, s.period, s.known ? "" : " (not readable: the kernel's default)");
}
END_TEST

/* The server off: the partition admits the whole cap (0.95), not the cap
 * less the server; where the kernel refuses the change, what libdl says
 * of the server it could not read. */
START_TEST(test_edge_without_the_server)
{
	struct dl_server s;
	int fd;

	tl_layout_cpu0();
	if (!fair_runtime[0]) {
		int e;

		fd = open(FAIR "/runtime", O_RDONLY | O_CLOEXEC);
		e = fd < 0 ? errno : 0;
		ck_assert_msg(fd < 0, "CPU 0's fair server reads now, but did not before the tests");
		ck_assert_int_eq(dl_server_get(0, DL_SERVER_FAIR, &s), 0);
		ck_assert(s.present);
		ck_assert_msg(!s.known, "CPU 0's fair server is said read, but its file refuses: %s", strerror(e));
		ck_assert_int_eq(dl_write_file(FAIR "/runtime", "0"), -e);
		tl_note("CPU 0's fair server cannot be changed here (%s: a kernel in lockdown refuses debugfs's writable files); the edge with it off is checked in the VM suites",
			strerror(e));
		ck_assert_int_eq(tl_run((char *[]){ (char *)tl_tool("dl-stat"), "--cpus", NULL }, out, sizeof(out), err,
					sizeof(err)),
				 0);
		ck_assert_msg(strstr(out, "not read"), "dl-stat --cpus does not say the server was not read:\n%s", out);
		edge("server on, unchangeable");
		return;
	}
	ck_assert_int_eq(dl_write_file(FAIR "/runtime", "0"), 0);
	/* The kernel's count: nothing in the partition now. */
	ck_assert_int_eq(kernel_total(), 0);
	ck_assert_int_eq(dl_server_get(0, DL_SERVER_FAIR, &s), 0);
	ck_assert(s.known);
	ck_assert_uint_eq(s.runtime, 0);
	ck_assert_int_eq(edge("server off"), 996147);
	put_back();
}
END_TEST

static Suite *make(void)
{
	Suite *s = suite_create("server");
	TCase *tc = tcase_create("admission");

	tl_require_layout_host();
	if (access("/sys/kernel/debug/sched/fair_server", F_OK) != 0)
		tl_skip_all("this kernel has no fair server (Linux 6.12 and later), or debugfs is not mounted");
	dl_read_file(CPUSET "/cpuset.sched_load_balance", root_lb, sizeof(root_lb));
	if (dl_read_file(FAIR "/runtime", fair_runtime, sizeof(fair_runtime)) < 0)
		fair_runtime[0] = '\0';
	fair_runtime[strcspn(fair_runtime, "\n")] = '\0';
	tcase_set_timeout(tc, 60);
	tcase_add_unchecked_fixture(tc, NULL, put_back);
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_edge_with_the_server);
	tcase_add_test(tc, test_edge_without_the_server);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	int ret = tl_main(make, TL_KERNEL);

	put_back();
	return ret;
}
