/*
 * The policy file's reader (dl-run.conf(5)): what it accepts, and every
 * refusal naming the line and the field.  The checks against real users
 * and processes are in tests/kernel/test-security.c.
 */
#include <errno.h>
#include <grp.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testlib.h"

static int parse(const char *text)
{
	struct dl_policy *pol = NULL;
	int err = dl_policy_parse(text, strlen(text), "t.conf", &pol);

	if (err == 0)
		ck_assert_ptr_nonnull(pol);
	else
		ck_assert_ptr_null(pol);
	dl_policy_free(pol);
	return err;
}

START_TEST(test_good)
{
	ck_assert_int_eq(parse(""), 0);
	ck_assert_int_eq(parse("# nothing\n\n   \n"), 0);
	ck_assert_int_eq(parse("allow all"), 0);
	ck_assert_int_eq(parse("allow all # trailing comment\n"), 0);
	ck_assert_int_eq(parse("allow user alice max-task=0.5 max-user=1 min-period=100us\n"), 0);
	ck_assert_int_eq(parse("allow group realtime max-task=30%\tmax-user=100%\n"), 0);
	ck_assert_int_eq(parse("allow user 1000\ndeny group 27\ndeny all\n"), 0);
	ck_assert_int_eq(parse("allow all max-task=.5"), 0);
	ck_assert_int_eq(parse("allow group rt allow-flags=reclaim max-task=1 max-user=1\n"), 0);
	ck_assert_int_eq(parse("allow all allow-flags=reclaim,reclaim"), 0);
	ck_assert_int_eq(parse("allow all allow-flags=util-clamp,reclaim max-task=1 max-user=1"), 0);
	/* Containers' rules. */
	ck_assert_int_eq(parse("allow namespace rt-team max-task=0.2 max-total=1.5 min-period=1ms partitions=rt,cluster\n"
			       "deny namespace kube-system\nallow namespace * max-total=150%\n"), 0);
	ck_assert_int_eq(parse("allow engine podman max-task=0.1 max-total=0.3 allow-flags=reclaim\n"), 0);
}
END_TEST

#define BAD(text, words)                                                            \
	do {                                                                        \
		ck_assert_int_eq(parse(text), -EINVAL);                             \
		ck_assert_msg(strstr(dl_errmsg(), words), "%s: %s", text, dl_errmsg()); \
	} while (0)

START_TEST(test_bad)
{
	BAD("permit all", "t.conf, line 1: \"permit\" is not a rule");
	BAD("\n\nallow", "line 3: allow whom?");
	BAD("allow everyone", "the subject is all, user NAME, group NAME, namespace NAME or engine podman");
	BAD("allow namespace", "namespace needs a Kubernetes namespace's name");
	BAD("allow namespace Team_A", "not \"Team_A\"");
	BAD("allow namespace -a", "not \"-a\"");
	BAD("allow engine docker", "engine needs the engine's name: podman");
	BAD("allow namespace a max-user=0.5", "unknown key \"max-user\" for a container's rule (max-task, max-total, min-period, allow-flags, partitions)");
	BAD("allow all max-total=0.5", "unknown key \"max-total\" for a user's rule");
	BAD("allow all partitions=rt", "unknown key \"partitions\" for a user's rule");
	BAD("allow namespace a max-total=0", "max-total=0: not a bandwidth above 0 in CPUs");
	BAD("allow namespace a max-total=2000", "max-total=2000");
	BAD("allow namespace a partitions=", "partitions=: give partition names");
	BAD("allow namespace a partitions=r/t", "partitions=r/t");
	BAD("deny namespace a max-total=1", "a deny rule takes no limits");
	BAD("allow user", "user needs a name");
	BAD("allow user max-task=0.1", "user needs a name");
	BAD("deny all max-task=0.1", "a deny rule takes no limits");
	BAD("allow all max-task", "\"max-task\" is not KEY=VALUE");
	BAD("allow all max=0.1", "unknown key \"max\"");
	BAD("allow all max-task=0", "max-task=0: not a bandwidth above 0 and at most 1");
	BAD("allow all max-task=1.5", "max-task=1.5");
	BAD("allow all max-task=101%", "max-task=101%");
	BAD("allow all max-task=-0.1", "max-task=-0.1");
	BAD("allow all max-task=0.1x", "max-task=0.1x");
	BAD("allow all max-user=", "max-user=");
	BAD("allow all min-period=fast", "min-period=fast: not a time");
	BAD("allow all a b c d e f g h i j k l m n o p q", "too many words");
	BAD("allow all allow-flags=", "allow-flags=: \"\" is not a flag a rule allows (reclaim, util-clamp;");
	BAD("allow all allow-flags=reclaim,overrun-signal", "\"overrun-signal\" is not a flag a rule allows");
	BAD("allow all allow-flags=util-min", "\"util-min\" is not a flag a rule allows");
	BAD("deny all allow-flags=reclaim", "a deny rule takes no limits");
	BAD("allow all max=0.1", "(max-task, max-user, min-period, allow-flags)");
}
END_TEST

/* A pod's container: refused by default, by a deny rule, and for a
 * namespace that is not one; before any thread is counted. */
START_TEST(test_container_rules)
{
	struct dl_params p = { .runtime = 1000000, .period = 10000000 };
	struct dl_container c = { .ns = "tenant", .pod = "ctl", .name = "loop" };
	struct dl_policy *pol = NULL;
	char why[2048];

	ck_assert_int_eq(dl_policy_parse("allow all", 9, "t.conf", &pol), 0);
	ck_assert_int_eq(dl_policy_container_check(pol, &c, &p, why, sizeof(why)), 0);
	ck_assert_msg(strstr(why, "no rule of t.conf allows namespace tenant (namespace tenant's pod ctl, container loop)") &&
		      strstr(why, "\"allow namespace tenant max-task=0.25 max-total=0.5\""), "%s", why);
	dl_policy_free(pol);
	ck_assert_int_eq(dl_policy_parse("deny namespace tenant\nallow namespace *\n", 40, "t.conf", &pol), 0);
	ck_assert_int_eq(dl_policy_container_check(pol, &c, &p, why, sizeof(why)), 0);
	ck_assert_msg(strstr(why, "refused by t.conf, line 1 (deny namespace tenant)"), "%s", why);
	c.ns = "Not_A\nName";
	ck_assert_int_eq(dl_policy_container_check(pol, &c, &p, why, sizeof(why)), -EINVAL);
	ck_assert_msg(strstr(dl_errmsg(), "\"Not_A\\x0aName\" is not a Kubernetes namespace"), "%s", dl_errmsg());
	dl_policy_free(pol);
}
END_TEST

START_TEST(test_limits)
{
	char big[2048];
	struct dl_policy *pol = NULL;

	memset(big, 'x', sizeof(big));
	memcpy(big, "allow user ", 11);
	big[sizeof(big) - 1] = '\0';
	BAD(big, "longer than");
	ck_assert_int_eq(dl_policy_parse("allow all\0deny all", 18, "t.conf", &pol), -EINVAL);
	ck_assert_msg(strstr(dl_errmsg(), "NUL byte"), "%s", dl_errmsg());
	ck_assert_int_eq(dl_policy_parse("x", 65 * 1024, "t.conf", &pol), -EFBIG);
	/* A missing file is the built-in default. */
	ck_assert_int_eq(dl_policy_read("/nonexistent/libdl/dl-run.conf", &pol), 0);
	dl_policy_free(pol);
}
END_TEST

/* dl_policy_check() of text for the reservation p, as a user who is not
 * root (run as root, in a child that becomes nobody): the verdict, why
 * into why. */
static int check_params_as_user(const char *text, struct dl_params p, char *why, size_t len)
{
	struct dl_policy *pol = NULL;
	int fds[2], status, ret;
	pid_t pid;

	ck_assert_int_eq(dl_policy_parse(text, strlen(text), "t.conf", &pol), 0);
	if (getuid() != 0) {
		ret = dl_policy_check(pol, 0, false, &p, why, len);
		dl_policy_free(pol);
		return ret;
	}
	ck_assert_int_eq(pipe(fds), 0);
	pid = fork();
	if (pid == 0) {
		if (setgroups(0, NULL) < 0 || setgid(65534) < 0 || setuid(65534) < 0)
			_exit(120);
		ret = dl_policy_check(pol, 0, false, &p, why, len);
		(void)!write(fds[1], why, strlen(why) + 1);
		_exit(ret < 0 ? 99 : ret);
	}
	close(fds[1]);
	why[0] = '\0';
	ck_assert_int_ge(read(fds[0], why, len - 1), 0);
	why[len - 1] = '\0';
	close(fds[0]);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	dl_policy_free(pol);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) <= 1);
	return WEXITSTATUS(status);
}

/* The same for a 1 ms / 10 ms reservation. */
static int check_as_user(const char *text, char *why, size_t len)
{
	return check_params_as_user(text, (struct dl_params){ .runtime = 1000000, .period = 10000000 }, why, len);
}

/* The flags that let a reservation take more than its bandwidth, or ask
 * for more than time, need a rule: reclaim and the utilization clamps,
 * each refused by a rule that does not name it. */
START_TEST(test_flags_need_a_rule)
{
	struct dl_params clamp = { .runtime = 1000000, .period = 10000000, .flags = DL_FLAG_UTIL_CLAMP_MAX, .util_max = 512 };
	struct dl_params reclaim = { .runtime = 1000000, .period = 10000000, .flags = DL_FLAG_RECLAIM };
	char why[1024];

	ck_assert_int_eq(check_params_as_user("allow all\n", clamp, why, sizeof(why)), 0);
	ck_assert_msg(strstr(why, "does not allow the utilization clamps") && strstr(why, "allow-flags=util-clamp"),
		      "%s", why);
	clamp.flags = DL_FLAG_UTIL_CLAMP_MIN;
	clamp.util_min = 100;
	ck_assert_int_eq(check_params_as_user("allow all allow-flags=reclaim max-task=1 max-user=1\n", clamp, why, sizeof(why)),
			 0);
	ck_assert_msg(strstr(why, "allow-flags=util-clamp"), "%s", why);
	ck_assert_int_eq(check_params_as_user("allow all allow-flags=util-clamp\n", clamp, why, sizeof(why)), 1);
	ck_assert_msg(strstr(why, "allow-flags util-clamp"), "%s", why);
	ck_assert_int_eq(check_params_as_user("allow all allow-flags=util-clamp\n", reclaim, why, sizeof(why)), 0);
	ck_assert_msg(strstr(why, "allow-flags=reclaim"), "%s", why);
	ck_assert_int_eq(check_params_as_user("allow all allow-flags=reclaim,util-clamp max-task=1 max-user=1\n",
					      reclaim, why, sizeof(why)),
			 1);
	ck_assert_msg(strstr(why, "allow-flags reclaim,util-clamp"), "%s", why);
}
END_TEST

/* A deny rule naming a user the system does not know refuses: a name
 * service that failed may answer "no such user".  An allow rule for one
 * just does not match. */
START_TEST(test_unknown_names_fail_closed)
{
	char why[1024];

	ck_assert_int_eq(check_as_user("deny user libdl-no-such-user\nallow all\n", why, sizeof(why)), 0);
	ck_assert_msg(strstr(why, "t.conf, line 1 denies user libdl-no-such-user, which cannot be looked up") &&
		      strstr(why, "fails closed"), "%s", why);
	ck_assert_int_eq(check_as_user("allow group libdl-no-such-group\ndeny all\n", why, sizeof(why)), 0);
	ck_assert_msg(strstr(why, "refused by t.conf, line 2 (deny all)"), "%s", why);
	/* Control: a user that exists and is not the caller. */
	ck_assert_int_eq(check_as_user("deny user root\nallow all\n", why, sizeof(why)), 1);
	ck_assert_msg(strstr(why, "allowed by t.conf, line 2 (allow all)"), "%s", why);
}
END_TEST

/* Root is never limited, even by deny all. */
START_TEST(test_root_not_limited)
{
	struct dl_params p = { .runtime = 9000000, .period = 10000000 };
	struct dl_policy *pol = NULL;
	char why[256];

	if (getuid() != 0)
		return;
	ck_assert_int_eq(dl_policy_parse("deny all", 8, "t.conf", &pol), 0);
	ck_assert_int_eq(dl_policy_check(pol, 0, false, &p, why, sizeof(why)), 1);
	ck_assert_msg(strstr(why, "root is not limited"), "%s", why);
	dl_policy_free(pol);
}
END_TEST

static Suite *make(void)
{
	Suite *s = suite_create("policy");
	TCase *tc = tcase_create("reader");

	tcase_add_test(tc, test_good);
	tcase_add_test(tc, test_bad);
	tcase_add_test(tc, test_limits);
	tcase_add_test(tc, test_container_rules);
	tcase_add_test(tc, test_root_not_limited);
	tcase_add_test(tc, test_unknown_names_fail_closed);
	tcase_add_test(tc, test_flags_need_a_rule);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tl_main(make, TL_UNIT);
}
