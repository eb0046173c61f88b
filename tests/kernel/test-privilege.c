/*
 * Privilege: an unprivileged user is told about CAP_SYS_NICE; a dl-run
 * given the capability with setcap works for that user and hands no
 * capability on to the command.
 */
#include <errno.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testlib.h"

#define CAP_SYS_NICE_BIT (1ULL << 23)

static char out[16384], err[16384];
static char dlrun[4200], cat[4200];

/* Copies nobody can reach, the test's own (setcap changes them): the
 * build tree may be under a private home. */
static void setup(void)
{
	const char *c = tl_copy_for_anyone("/bin/cat", "cat");

	ck_assert_ptr_nonnull(c);
	snprintf(cat, sizeof(cat), "%s", c);
	snprintf(dlrun, sizeof(dlrun), "%s", tl_tool_for_anyone("dl-run"));
}

static int setcap(const char *caps, const char *file)
{
	return tl_run((char *[]){ "/usr/sbin/setcap", (char *)caps, (char *)file, NULL },
		      NULL, 0, err, sizeof(err));
}

/* As nobody, with no group, through util-linux's setpriv. */
static int as_nobody(char *const cmd[], const char *inh)
{
	char *argv[32] = { "/usr/bin/setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups" };
	int i = 4;

	if (inh)
		argv[i++] = (char *)inh;
	for (; *cmd && i < 31; cmd++)
		argv[i++] = *cmd;
	argv[i] = NULL;
	return tl_run(argv, out, sizeof(out), err, sizeof(err));
}

static uint64_t status_field(const char *text, const char *name)
{
	const char *p = strstr(text, name);
	uint64_t v = ~0ULL;

	ck_assert_msg(p, "no %s in: %s", name, text);
	sscanf(p + strlen(name), ": %lx", &v);
	return v;
}

START_TEST(test_unprivileged_told_cap_sys_nice)
{
	int rc = as_nobody((char *[]){ dlrun, "-r", "1ms", "-p", "10ms", "--", "/bin/true", NULL }, NULL);

	ck_assert_int_eq(rc, 125);
	ck_assert_msg(strstr(err, "dl-run: cannot set SCHED_DEADLINE"), "%s", err);
	ck_assert_msg(strstr(err, "needs the CAP_SYS_NICE capability"), "%s", err);
	ck_assert_msg(strstr(err, "setcap cap_sys_nice+ep"), "%s", err);
	/* --check says the same, and changes nothing: its answer no, 1. */
	rc = as_nobody((char *[]){ dlrun, "--check", "-r", "1ms", "-p", "10ms", NULL }, NULL);
	ck_assert_int_eq(rc, 1);
	ck_assert_msg(strstr(out, "not admissible"), "%s", out);
	ck_assert_msg(strstr(out, "CAP_SYS_NICE"), "%s", out);
}
END_TEST

START_TEST(test_setcap_dl_run_drops_capabilities)
{
	int rc;

	ck_assert_int_eq(setcap("cap_sys_nice+ep", dlrun), 0);
	rc = as_nobody((char *[]){ dlrun, "-r", "1ms", "-p", "10ms", "--", "/bin/cat",
				  "/proc/self/sched", "/proc/self/status", NULL }, NULL);
	ck_assert_msg(rc == 0, "rc %d: %s", rc, err);
	/* The command ran under the reservation... */
	{
		uint64_t pol = 0;
		const char *p = strstr(out, "policy");

		ck_assert_ptr_nonnull(p);
		sscanf(strchr(p, ':') + 1, "%lu", &pol);
		ck_assert_uint_eq(pol, 6);
	}
	/* ...with no capability at all. */
	ck_assert_uint_eq(status_field(out, "CapEff"), 0);
	ck_assert_uint_eq(status_field(out, "CapPrm"), 0);
	ck_assert_uint_eq(status_field(out, "CapAmb"), 0);
}
END_TEST

/*
 * The one path the kernel leaves open: CAP_SYS_NICE in the inheritable
 * set meets a command with it in its file-inheritable set.  The control
 * shows the leak is real; dl-run must close it.
 */
START_TEST(test_setcap_dl_run_closes_inheritable_path)
{
	int rc;

	ck_assert_int_eq(setcap("cap_sys_nice+ep", dlrun), 0);
	ck_assert_int_eq(setcap("cap_sys_nice+ei", cat), 0);
	rc = as_nobody((char *[]){ cat, "/proc/self/status", NULL }, "--inh-caps=+sys_nice");
	ck_assert_msg(rc == 0, "control: %s", err);
	ck_assert_msg(status_field(out, "CapEff") & CAP_SYS_NICE_BIT,
		      "control: the inheritable path does not leak here: %s", out);

	rc = as_nobody((char *[]){ dlrun, "-r", "1ms", "-p", "10ms", "--", cat, "/proc/self/status", NULL },
		       "--inh-caps=+sys_nice");
	ck_assert_msg(rc == 0, "rc %d: %s", rc, err);
	ck_assert_uint_eq(status_field(out, "CapEff"), 0);
	ck_assert_uint_eq(status_field(out, "CapInh"), 0);
}
END_TEST

/* Root's command keeps root's capabilities (it would regain them at exec). */
START_TEST(test_root_keeps_capabilities)
{
	int rc = tl_run((char *[]){ dlrun, "-r", "1ms", "-p", "10ms", "--", "/bin/cat", "/proc/self/status", NULL },
			out, sizeof(out), err, sizeof(err));

	ck_assert_int_eq(rc, 0);
	ck_assert(status_field(out, "CapEff") & CAP_SYS_NICE_BIT);
}
END_TEST

static Suite *make(void)
{
	Suite *s = suite_create("privilege");
	TCase *tc = tcase_create("caps");

	if (!getpwnam("nobody"))
		tl_skip_all("no user 'nobody' to run unprivileged tests as");
	if (access("/usr/bin/setpriv", X_OK) || access("/usr/sbin/setcap", X_OK))
		tl_skip_all("setpriv (util-linux) or setcap (libcap2-bin) is missing: run ./bootstrap.sh as root");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_unprivileged_told_cap_sys_nice);
	tcase_add_test(tc, test_setcap_dl_run_drops_capabilities);
	tcase_add_test(tc, test_setcap_dl_run_closes_inheritable_path);
	tcase_add_test(tc, test_root_keeps_capabilities);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tl_main(make, TL_KERNEL);
}
