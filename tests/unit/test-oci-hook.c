/*
 * The OCI hook's reading and writing (dl_oci_parse(3), dl_oci_write(3),
 * libdl-oci-hook(8)): annotations in human units become the reservation;
 * the configuration comes back whole, in its order, with process.scheduler
 * added; every bad annotation and every malformed configuration or state
 * is refused with a message; a container without the annotations is
 * passed through byte for byte.  Placing in a partition and admission are
 * the kernel suite's (tests/kernel/test-containers.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testlib.h"

#define MS 1000000ULL
#define A(k, v) "\"deadline.libdl.io/" k "\":\"" v "\""
/* A pod's container's annotation, and the kubelet's labels CRI-O writes. */
#define N(k, ctr, v) "\"" k ".deadline.libdl.io/" ctr "\":\"" v "\""
#define POD(ns, ctr) "\"io.kubernetes.pod.namespace\":\"" ns "\",\"io.kubernetes.pod.name\":\"ctl\"," \
	"\"io.kubernetes.container.name\":\"" ctr "\""

static struct dl_oci *parse_ok(const char *text, unsigned int flags)
{
	struct dl_oci *oci = NULL;
	int err = dl_oci_parse(text, strlen(text), "config", flags, &oci);

	ck_assert_msg(err == 0, "refused (%d): %s\n%s", err, dl_errmsg(), text);
	return oci;
}

/* A pod's container reads the keys that name it, and who it is; a
 * container the keys do not name asks for nothing. */
START_TEST(test_pod)
{
	const char *loop = "{\"annotations\":{" N("runtime", "loop", "2ms") "," N("period", "loop", "10ms") ","
			   N("runtime", "side", "5ms") "," POD("rt-team", "loop") "}}";
	const char *side = "{\"annotations\":{" N("runtime", "loop", "2ms") "," N("period", "loop", "10ms") ","
			   POD("rt-team", "side") "}}";
	struct dl_oci *oci = parse_ok(loop, 0);

	ck_assert_uint_eq(oci->params.runtime, 2 * MS);
	ck_assert_uint_eq(oci->params.period, 10 * MS);
	ck_assert_str_eq(oci->ns, "rt-team");
	ck_assert_str_eq(oci->pod, "ctl");
	ck_assert_str_eq(oci->container, "loop");
	dl_oci_free(oci);
	oci = (struct dl_oci *)&oci;
	ck_assert_int_eq(dl_oci_parse(side, strlen(side), "config", 0, &oci), -ENODATA);
	ck_assert_ptr_null(oci);
	/* podman's: no pod, the plain keys. */
	oci = parse_ok("{\"annotations\":{" A("runtime", "2ms") "," A("period", "10ms") "}}", 0);
	ck_assert_ptr_null(oci->ns);
	ck_assert_ptr_null(oci->container);
	dl_oci_free(oci);
}
END_TEST

START_TEST(test_rewrite)
{
	const char *in = "{\"ociVersion\":\"1.1.0\",\"process\":{\"args\":[\"sh\",\"-c\",\"echo \\\"a\\\\b\\u0001\"],"
			 "\"env\":[\"X=\\u00e9\"]},\"n\":-1.5e3,\"t\":[true,false,null],"
			 "\"annotations\":{" A("runtime", "2ms") "," A("period", "10ms") "," A("flags", "reset-on-fork,overrun") "}}";
	const char *want = "{\"ociVersion\":\"1.1.0\",\"process\":{\"args\":[\"sh\",\"-c\",\"echo \\\"a\\\\b\\u0001\"],"
			   "\"env\":[\"X=\xc3\xa9\"],\"scheduler\":{\"policy\":\"SCHED_DEADLINE\",\"runtime\":2000000,"
			   "\"deadline\":10000000,\"period\":10000000,"
			   "\"flags\":[\"SCHED_FLAG_RESET_ON_FORK\",\"SCHED_FLAG_DL_OVERRUN\"]}},\"n\":-1.5e3,\"t\":[true,false,null],"
			   "\"annotations\":{" A("runtime", "2ms") "," A("period", "10ms") "," A("flags", "reset-on-fork,overrun") "}}\n";
	struct dl_oci *oci = parse_ok(in, 0);
	char *out, *again;
	size_t len, len2;

	ck_assert_uint_eq(oci->params.runtime, 2 * MS);
	ck_assert_uint_eq(oci->params.deadline, 10 * MS);
	ck_assert_uint_eq(oci->params.period, 10 * MS);
	ck_assert_uint_eq(oci->params.flags, DL_FLAG_RESET_ON_FORK | DL_FLAG_DL_OVERRUN);
	ck_assert_ptr_null(oci->member);
	ck_assert_int_eq(oci->pid, 0);
	ck_assert_int_eq(dl_oci_write(oci, DL_OCI_SCHEDULER, &out, &len), 0);
	ck_assert_uint_eq(len, strlen(out));
	ck_assert_str_eq(out, want);
	/* Written twice, the same. */
	ck_assert_int_eq(dl_oci_write(oci, DL_OCI_SCHEDULER, &again, &len2), 0);
	ck_assert_str_eq(again, out);
	free(out);
	free(again);
	dl_oci_free(oci);
	/* Without DL_OCI_SCHEDULER and no partition: the same document. */
	oci = parse_ok(in, 0);
	ck_assert_int_eq(dl_oci_write(oci, 0, &out, &len), 0);
	ck_assert_str_eq(out, "{\"ociVersion\":\"1.1.0\",\"process\":{\"args\":[\"sh\",\"-c\",\"echo \\\"a\\\\b\\u0001\"],"
			      "\"env\":[\"X=\xc3\xa9\"]},\"n\":-1.5e3,\"t\":[true,false,null],"
			      "\"annotations\":{" A("runtime", "2ms") "," A("period", "10ms") "," A("flags", "reset-on-fork,overrun") "}}\n");
	free(out);
	ck_assert_int_eq(dl_oci_write(oci, 0x80, &out, &len), -EINVAL);
	dl_oci_free(oci);

	/* No process object: one is made; the deadline defaults to the period. */
	oci = parse_ok("{\"annotations\":{" A("runtime", "500us") "," A("deadline", "1ms") "}}", 0);
	ck_assert_uint_eq(oci->params.period, 1 * MS);
	ck_assert_int_eq(dl_oci_write(oci, DL_OCI_SCHEDULER, &out, &len), 0);
	ck_assert_str_eq(out, "{\"annotations\":{" A("runtime", "500us") "," A("deadline", "1ms") "},\"process\":{\"scheduler\":"
			      "{\"policy\":\"SCHED_DEADLINE\",\"runtime\":500000,\"deadline\":1000000,\"period\":1000000,\"flags\":[]}}}\n");
	free(out);
	dl_oci_free(oci);
}
END_TEST

static const struct {
	const char *text;
	int err;
	const char *msg;
} bad[] = {
	/* A pod's: its own keys are for no container; who it is must agree
	 * with CRI-O's labels; a name is a pod's container's. */
	{ "{\"annotations\":{" A("runtime", "2ms") "," A("period", "10ms") "," POD("t", "loop") "}}", -EINVAL,
	  "is the pod's, for no container: CRI-O copies a pod's annotations into each of its containers" },
	{ "{\"annotations\":{" N("runtime", "loop", "2ms") "," POD("t", "loop") ",\"io.kubernetes.cri-o.Labels\":"
	  "\"{\\\"io.kubernetes.pod.namespace\\\":\\\"u\\\"}\"}}", -EINVAL,
	  "io.kubernetes.pod.namespace is \"t\" but CRI-O's io.kubernetes.cri-o.Labels says \"u\"" },
	{ "{\"annotations\":{" N("runtime", "loop", "2ms") "," N("period", "loop", "10ms") "}}", -EINVAL,
	  "names a container of a Kubernetes pod, but this container is no pod's" },
	{ "{\"annotations\":{" N("runtim", "loop", "2ms") "," POD("t", "loop") "}}", -EINVAL,
	  "unknown annotation \"runtim.deadline.libdl.io/loop\"" },
	{ "{\"annotations\":{" N("runtime", "loop", "2ms") "," POD("T_x", "loop") "}}", -EINVAL,
	  "io.kubernetes.pod.namespace \"T_x\" is not a Kubernetes namespace's name" },
	{ "{\"annotations\":{" A("runtime", "2") "," A("period", "10ms") "}}", -EINVAL, "runtime 2ns is below the kernel's minimum" },
	{ "{\"annotations\":{" A("runtime", "2 ms") "," A("period", "10ms") "}}", -EINVAL, "invalid time" },
	{ "{\"annotations\":{" A("runtime", "20ms") "," A("period", "10ms") "}}", -EINVAL, "runtime 20ms is longer than the deadline 10ms" },
	{ "{\"annotations\":{" A("runtime", "2ms") "," A("deadline", "20ms") "," A("period", "10ms") "}}", -EINVAL, "deadline <= period" },
	{ "{\"annotations\":{" A("runtime", "99999999999999999999s") "," A("period", "10ms") "}}", -EINVAL, "too large" },
	{ "{\"annotations\":{" A("runtime", "1000000000000s") "," A("period", "2000000000000s") "}}", -EINVAL, "" },
	{ "{\"annotations\":{" A("runtime", "2ms") "}}", -EINVAL, "no annotation deadline.libdl.io/period or deadline.libdl.io/deadline" },
	{ "{\"annotations\":{" A("period", "2ms") "}}", -EINVAL, "no annotation deadline.libdl.io/runtime" },
	{ "{\"annotations\":{" A("runtime", "1ms") "," A("period", "2ms") "," A("flags", "reset-on-fork,fast") "}}", -EINVAL, "unknown flag \"fast\"" },
	{ "{\"annotations\":{" A("runtme", "1ms") "}}", -EINVAL, "unknown annotation \"deadline.libdl.io/runtme\"" },
	{ "{\"annotations\":{\"deadline.libdl.io/runtime\":2000000}}", -EINVAL, "must be a string, not a number" },
	{ "{\"annotations\":[]}", -EINVAL, "annotations must be an object" },
	{ "{\"annotations\":{" A("runtime", "1ms") "," A("period", "2ms") "},\"process\":{\"scheduler\":{}}}", -EINVAL, "process.scheduler of its own" },
	{ "{\"annotations\":{" A("runtime", "1ms") "," A("period", "2ms") "},\"linux\":{\"cgroupsPath\":7}}", -EINVAL, "cgroupsPath must be a string" },
	{ "{\"annotations\":{" A("runtime", "1ms") "," A("period", "2ms") "},\"process\":[]}", -EINVAL, "process must be an object" },
	{ "{\"annotations\":{\"x\":\"y\"}}", -ENODATA, "no deadline.libdl.io/ annotation" },
	{ "{}", -ENODATA, "no deadline.libdl.io/ annotation" },
	{ "[]", -EINVAL, "a runtime configuration is a JSON object, not an array" },
	{ "", -EINVAL, "JSON" },
	{ "{\"a\":1,\"a\":2}", -EINVAL, "JSON" },
	{ "{\"a\":\"\xff\"}", -EINVAL, "UTF-8" },
	{ "{\"a\":\"\\u0000\"}", -EINVAL, "JSON" },
	{ "{\"annotations\":{}} x", -EINVAL, "JSON" },
	{ "\x1b[31m{}", -EINVAL, "JSON" },
	/* The container's cgroup in a message: escaped. */
	{ "{\"annotations\":{" A("runtime", "1ms") "," A("period", "2ms") "},\"linux\":{\"cgroupsPath\":\"/a/../\\u001b[31m\\nb\"}}",
	  -EINVAL, "\"/a/../\\x1b[31m\\x0ab\" has a \"..\" component: the runtime resolves it to /\\x1b[31m\\x0ab" },
	{ "{\"annotations\":{" A("runtime", "1ms") "," A("period", "2ms") "},\"linux\":{\"cgroupsPath\":\"\\u001b]0;x\\u0007:libpod:c\"}}",
	  -EINVAL, "\"\\x1b]0;x\\x07\" is not a systemd slice's name" },
};

START_TEST(test_bad)
{
	struct dl_oci *oci = (struct dl_oci *)&oci;
	int err = dl_oci_parse(bad[_i].text, strlen(bad[_i].text), "config", 0, &oci);

	ck_assert_msg(err == bad[_i].err, "%s: %d, not %d: %s", bad[_i].text, err, bad[_i].err, dl_errmsg());
	ck_assert_ptr_null(oci);
	ck_assert_msg(strstr(dl_errmsg(), bad[_i].msg) && strncmp(dl_errmsg(), "config", 6) == 0, "%s: %s", bad[_i].text,
		      dl_errmsg());
	/* The caller's text is printed only escaped. */
	ck_assert_ptr_null(strchr(dl_errmsg(), '\x1b'));
	ck_assert_ptr_null(strchr(dl_errmsg(), '\n'));
}
END_TEST

/*
 * What the container wrote reaches dl_errmsg() and `where` only escaped:
 * the OCI hook puts both into the system log, dl-run --check --oci on a
 * terminal, as they are.  A bundle's folder is the engine's, with the
 * container's id in it; the policy, a flag and the cgroup the file's.
 */
START_TEST(test_escaped)
{
	char dir[] = "/tmp/libdl-oci-\x1b[31m-XXXXXX", path[128];
	static const char *const files[] = {
		"{\"process\":{\"scheduler\":{\"policy\":\"SCHED_\\u001b[2J\\n\"}}}",
		"{\"process\":{\"scheduler\":{\"policy\":\"SCHED_DEADLINE\",\"runtime\":1000000,\"deadline\":2000000,"
		"\"flags\":[\"SCHED_\\u001b[2J\\n\"]}}}",
	};
	struct dl_oci *oci;
	FILE *f;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/config.json", dir);
	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		ck_assert_ptr_nonnull(f = fopen(path, "w"));
		fputs(files[i], f);
		fclose(f);
		ck_assert_int_eq(dl_oci_read(dir, &oci), -EINVAL);
		ck_assert_msg(strstr(dl_errmsg(), "/tmp/libdl-oci-\\x1b[31m-") && strstr(dl_errmsg(), "SCHED_\\x1b[2J\\x0a"),
			      "%s", dl_errmsg());
		ck_assert_msg(!strchr(dl_errmsg(), '\x1b') && !strchr(dl_errmsg(), '\n'), "%s", dl_errmsg());
	}
	unlink(path);
	ck_assert_int_lt(dl_oci_read(dir, &oci), 0); /* a folder without config.json */
	ck_assert_msg(!strchr(dl_errmsg(), '\x1b') && strstr(dl_errmsg(), "\\x1b[31m"), "%s", dl_errmsg());
	rmdir(dir);
	/* Admitted or not, where says how cgroupsPath was read: escaped. */
	oci = parse_ok("{\"linux\":{\"cgroupsPath\":\"/x/\\u001b[31m\\nA\"},\"annotations\":{" A("runtime", "1ms") ","
		       A("period", "4ms") "}}", 0);
	ck_assert_msg(strstr(oci->where, "cgroup /x/\\x1b[31m\\x0aA") && !strchr(oci->where, '\x1b') &&
		      !strchr(oci->where, '\n'), "%s", oci->where);
	/* What the API returns as data stays as written. */
	ck_assert_str_eq(oci->cgroup, "/x/\x1b[31m\nA");
	dl_oci_free(oci);
}
END_TEST

/* Malicious sizes and shapes: refused, in bounded time and memory. */
START_TEST(test_hostile)
{
	size_t big = (4u << 20) + 2, deep = 100000;
	char *text = malloc(big > 2 * deep ? big : 2 * deep);
	struct dl_oci *oci;

	ck_assert_ptr_nonnull(text);
	memset(text, ' ', big);
	text[0] = '{';
	text[big - 1] = '}';
	ck_assert_int_eq(dl_oci_parse(text, big, "config", 0, &oci), -EFBIG);
	ck_assert_msg(strstr(dl_errmsg(), "larger than 4 MiB"), "%s", dl_errmsg());
	memset(text, '[', deep);
	memset(text + deep, ']', deep);
	ck_assert_int_eq(dl_oci_parse(text, 2 * deep, "config", 0, &oci), -EINVAL);
	ck_assert_msg(strstr(dl_errmsg(), "nested too deep"), "%s", dl_errmsg());
	/* A NUL inside the text is no JSON. */
	ck_assert_int_eq(dl_oci_parse("{}\0{}", 5, "config", 0, &oci), -EINVAL);
	ck_assert_int_eq(dl_oci_parse(NULL, 0, "config", 0, &oci), -EINVAL);
	ck_assert_int_eq(dl_oci_parse("{}", 2, "config", 0x80, &oci), -EINVAL);
	free(text);
	{
		/* Its output cleared on a refusal: a buffer passed there would
		 * be lost. */
		static char mark[] = "not cleared";
		char *out = mark;
		size_t len = 1;

		ck_assert_int_eq(dl_oci_write(NULL, 0, &out, &len), -EINVAL);
		ck_assert_ptr_null(out);
		ck_assert_uint_eq(len, 0);
	}
}
END_TEST

/* A state: its pid read, and the process's cgroup from the kernel. */
START_TEST(test_state)
{
	char text[512];
	struct dl_oci *oci;

	snprintf(text, sizeof(text), "{\"ociVersion\":\"1.0.2\",\"id\":\"c\",\"status\":\"created\",\"pid\":%d,\"bundle\":\"/b\","
		 "\"annotations\":{" A("runtime", "1ms") "," A("period", "4ms") "}}", (int)getpid());
	oci = parse_ok(text, DL_OCI_STATE);
	ck_assert_int_eq(oci->pid, getpid());
	ck_assert_str_eq(oci->bundle, "/b");
	ck_assert_uint_eq(oci->params.runtime, 1 * MS);
	/* A state is no configuration to write. */
	{
		char *out;
		size_t len;

		ck_assert_int_eq(dl_oci_write(oci, DL_OCI_SCHEDULER, &out, &len), -EINVAL);
	}
	dl_oci_free(oci);
	static const char *const pids[] = { "0", "-1", "1.5", "\"7\"", "99999999999", "4194305", "null" };
	for (size_t i = 0; i < ARRAY_SIZE(pids); i++) {
		snprintf(text, sizeof(text), "{\"pid\":%s,\"annotations\":{" A("runtime", "1ms") "," A("period", "4ms") "}}",
			 pids[i]);
		ck_assert_msg(dl_oci_parse(text, strlen(text), "state", DL_OCI_STATE, &oci) == -EINVAL, "pid %s", pids[i]);
		ck_assert_msg(strstr(dl_errmsg(), "pid"), "%s", dl_errmsg());
	}
	snprintf(text, sizeof(text), "{\"annotations\":{" A("runtime", "1ms") "," A("period", "4ms") "}}");
	ck_assert_int_eq(dl_oci_parse(text, strlen(text), "state", DL_OCI_STATE, &oci), -EINVAL);
	/* Without annotations of ours, the pid is not even read. */
	ck_assert_int_eq(dl_oci_parse("{\"pid\":\"x\"}", 11, "state", DL_OCI_STATE, &oci), -ENODATA);
}
END_TEST

static char out[1 << 16], err[4096];

static int hook(const char *stage, const char *text)
{
	return tl_run_input((char *[]){ (char *)tl_tool("libdl-oci-hook"), (char *)stage, NULL }, (uid_t)-1, (gid_t)-1,
			    text, out, sizeof(out), err, sizeof(err));
}

/* The program: passes through what is not its own, unchanged; refuses
 * with a message and exit 1; refuses to guess its stage. */
START_TEST(test_program)
{
	const char *theirs = "{ \"ociVersion\" : \"1.1.0\",\n  \"annotations\": {\"io.podman\": \"x\"} }\n";

	ck_assert_msg(hook("precreate", theirs) == 0, "%s", err);
	ck_assert_str_eq(out, theirs);
	ck_assert_str_eq(err, "");
	ck_assert_msg(hook("createRuntime", "{\"pid\":1,\"annotations\":{}}") == 0 && !out[0] && !err[0], "%s%s", out, err);
	ck_assert_int_eq(hook("precreate", "{\"annotations\":{" A("runtime", "5ms") "," A("period", "1ms") "}}"), 1);
	ck_assert_msg(!out[0] && strstr(err, "libdl-oci-hook: refused the container: the runtime configuration: ") &&
		      strstr(err, "runtime 5ms is longer than the deadline 1ms"), "%s%s", out, err);
	ck_assert_int_eq(hook("precreate", "not json"), 1);
	ck_assert_msg(strstr(err, "JSON"), "%s", err);
	/* unreserved: a container that asks nothing is no record; a state
	 * that cannot be read is said so, exit 1. */
	ck_assert_msg(hook("unreserved", "{\"pid\":1,\"annotations\":{}}") == 0 && !out[0] && !err[0], "%s%s", out, err);
	ck_assert_int_eq(hook("unreserved", "not json"), 1);
	ck_assert_msg(!out[0] && strstr(err, "libdl-oci-hook: cannot read the container's state: ") && strstr(err, "JSON"),
		      "%s", err);
	ck_assert_int_eq(hook("poststart", "{}"), 2);
	ck_assert_msg(strstr(err, "precreate or createRuntime") && strstr(err, "unreserved"), "%s", err);
}
END_TEST

static Suite *make(void)
{
	Suite *s = suite_create("oci-hook");
	TCase *tc = tcase_create("parse");

	tcase_add_test(tc, test_rewrite);
	tcase_add_test(tc, test_pod);
	tcase_add_loop_test(tc, test_bad, 0, ARRAY_SIZE(bad));
	tcase_add_test(tc, test_hostile);
	tcase_add_test(tc, test_escaped);
	tcase_add_test(tc, test_state);
	tcase_add_test(tc, test_program);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tl_main(make, TL_UNIT);
}
