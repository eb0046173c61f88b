/*
 * Task sets (libdl-taskset(5)): the line form and the JSON form give the
 * same tasks; every bad input is refused with its file, line and field.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testlib.h"

#define US 1000ULL
#define MS 1000000ULL

static struct dl_taskset *parse_ok(const char *text)
{
	struct dl_taskset *ts = NULL;
	int err = dl_taskset_parse(text, strlen(text), "t.tasks", &ts);

	ck_assert_msg(err == 0, "refused (%d): %s\n%s", err, dl_errmsg(), text);
	return ts;
}

static const char good_lines[] =
	"# the article's scenario\n"
	"\n"
	"heavy   8ms 9ms 9ms    work=7.6ms spin=200us place=partition0   # alone\n"
	"light   2.5ms - 8ms    work=2.4ms count=2 offset=1ms place=cluster flags=reclaim,overrun\n"
	"  probe 500us 5ms -  flags=reset-on-fork -- sh -c 'echo \"a b\" # not a comment' \"x\\\"y\"\r\n"
	"plain 1ms 10ms 10ms";

static const char good_json[] =
	"{\"tasks\": [\n"
	"  {\"name\": \"heavy\", \"runtime\": \"8ms\", \"deadline\": 9000000, \"period\": \"9ms\",\n"
	"   \"work\": 7600000, \"spin\": \"200us\", \"place\": \"partition0\"},\n"
	"  {\"name\": \"light\", \"runtime\": 2500000, \"period\": 8000000, \"work\": \"2.4ms\",\n"
	"   \"count\": 2, \"offset\": \"1ms\", \"place\": \"cluster\", \"flags\": [\"reclaim\", \"overrun-signal\"]},\n"
	"  {\"name\": \"probe\", \"runtime\": \"500us\", \"deadline\": \"5ms\", \"flags\": [\"reset-on-fork\"],\n"
	"   \"command\": [\"sh\", \"-c\", \"echo \\\"a b\\\" # not a comment\", \"x\\\"y\"]},\n"
	"  {\"name\": \"plain\", \"runtime\": \"1ms\", \"deadline\": \"10ms\", \"period\": \"10ms\", \"flags\": []}\n"
	"]}\n";

/* Both forms above describe these tasks. */
static void check_good(const struct dl_taskset *ts, bool json)
{
	const struct dl_taskspec *t;

	ck_assert_uint_eq(dl_taskset_count(ts), 5);
	t = dl_taskset_task(ts, 0);
	ck_assert_str_eq(t->name, "heavy");
	ck_assert_uint_eq(t->params.runtime, 8 * MS);
	ck_assert_uint_eq(t->params.deadline, 9 * MS);
	ck_assert_uint_eq(t->params.period, 9 * MS);
	ck_assert_uint_eq(t->params.flags, 0);
	ck_assert_uint_eq(t->work, 7600 * US);
	ck_assert_uint_eq(t->spin, 200 * US);
	ck_assert_uint_eq(t->offset, 0);
	ck_assert_str_eq(t->place, "partition0");
	ck_assert_ptr_null(t->argv);
	ck_assert_int_eq(t->line, json ? 2 : 3);
	for (int i = 1; i <= 2; i++) {
		t = dl_taskset_task(ts, (size_t)i);
		ck_assert_str_eq(t->name, i == 1 ? "light.1" : "light.2");
		ck_assert_uint_eq(t->params.runtime, 2500 * US);
		ck_assert_uint_eq(t->params.deadline, 8 * MS); /* "-": the period */
		ck_assert_uint_eq(t->params.period, 8 * MS);
		ck_assert_uint_eq(t->params.flags, DL_FLAG_RECLAIM | DL_FLAG_DL_OVERRUN);
		ck_assert_uint_eq(t->work, 2400 * US);
		ck_assert_uint_eq(t->spin, 0);
		ck_assert_uint_eq(t->offset, 1 * MS);
		ck_assert_str_eq(t->place, DL_CLUSTER);
		ck_assert_int_eq(t->line, json ? 4 : 4);
	}
	t = dl_taskset_task(ts, 3);
	ck_assert_str_eq(t->name, "probe");
	ck_assert_uint_eq(t->params.deadline, 5 * MS);
	ck_assert_uint_eq(t->params.period, 5 * MS); /* "-": the deadline */
	ck_assert_uint_eq(t->params.flags, DL_FLAG_RESET_ON_FORK);
	ck_assert_uint_eq(t->work, 450 * US); /* 90% of the runtime */
	ck_assert_ptr_null(t->place);
	ck_assert_ptr_nonnull(t->argv);
	ck_assert_str_eq(t->argv[0], "sh");
	ck_assert_str_eq(t->argv[1], "-c");
	ck_assert_str_eq(t->argv[2], "echo \"a b\" # not a comment");
	ck_assert_str_eq(t->argv[3], "x\"y");
	ck_assert_ptr_null(t->argv[4]);
	ck_assert_int_eq(t->line, json ? 6 : 5);
	t = dl_taskset_task(ts, 4);
	ck_assert_str_eq(t->name, "plain");
	ck_assert_uint_eq(t->work, 900 * US);
	ck_assert_ptr_null(dl_taskset_task(ts, 5));
}

START_TEST(test_good_lines)
{
	struct dl_taskset *ts = parse_ok(good_lines);

	check_good(ts, false);
	dl_taskset_free(ts);
	/* A spin alone: no work besides (the 90% default is for a task
	 * that says nothing of its jobs). */
	ts = parse_ok("s 1ms 10ms 10ms spin=2ms\n");
	ck_assert_uint_eq(dl_taskset_task(ts, 0)->work, 0);
	ck_assert_uint_eq(dl_taskset_task(ts, 0)->spin, 2 * MS);
	dl_taskset_free(ts);
}
END_TEST

START_TEST(test_good_json)
{
	struct dl_taskset *ts = parse_ok(good_json);
	const char *bare = "  [{\"name\": \"a\", \"runtime\": 1000000, \"period\": 10000000}]";

	check_good(ts, true);
	dl_taskset_free(ts);
	/* A bare array of tasks, after blanks. */
	ts = parse_ok(bare);
	ck_assert_uint_eq(dl_taskset_count(ts), 1);
	ck_assert_uint_eq(dl_taskset_task(ts, 0)->params.deadline, 10 * MS);
	dl_taskset_free(ts);
	/* Escapes and non-ASCII text in a command. */
	ts = parse_ok("[{\"name\": \"u\", \"runtime\": \"1ms\", \"period\": \"5ms\", "
		      "\"command\": [\"echo\", \"\\u00e9\\ud83d\\ude00\\t\\/\", \"\xc3\xa9\"]}]");
	ck_assert_str_eq(dl_taskset_task(ts, 0)->argv[1], "\xc3\xa9\xf0\x9f\x98\x80\t/");
	ck_assert_str_eq(dl_taskset_task(ts, 0)->argv[2], "\xc3\xa9");
	dl_taskset_free(ts);
}
END_TEST

/* Each must be refused with -EINVAL and a message holding every string. */
static const struct {
	const char *text;
	const char *says[4];
} bad[] = {
	/* the line form */
	{ "a 1ms 10ms\n", { "t.tasks:1:", "3 fields", "NAME RUNTIME DEADLINE PERIOD" } },
	{ "\n\n9a 1ms 10ms 10ms\n", { "t.tasks:3: name:", "\"9a\"", "starting with a letter" } },
	{ "a/b 1ms 10ms 10ms\n", { "t.tasks:1: name:", "\"a/b\"" } },
	{ "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa 1ms 10ms 10ms\n", { "t.tasks:1: name:", "up to 32" } },
	{ "a 1xs 10ms 10ms\n", { "t.tasks:1: runtime:", "unknown unit \"xs\"" } },
	{ "a 1ms ten 10ms\n", { "t.tasks:1: deadline:", "\"ten\"" } },
	{ "a 1ms 10ms -5ms\n", { "t.tasks:1: period:", "negative" } },
	{ "a 1ms - -\n", { "t.tasks:1: deadline:", "not for both" } },
	{ "a - 10ms 10ms\n", { "t.tasks:1: runtime:", "\"-\"" } },
	{ "x 1ms 10ms 10ms\na 3ms 2ms 10ms\n",
	  { "t.tasks:2: runtime:", "task \"a\"", "runtime 3ms is longer than the deadline 2ms" } },
	{ "a 1ms 20ms 10ms\n", { "t.tasks:1: deadline:", "deadline 20ms is longer than the period 10ms" } },
	{ "a 1ms 50us 50us\n", { "t.tasks:1: runtime:", "longer than the deadline" } },
	{ "a 1ms 10ms 10ms work=11ms\n", { "t.tasks:1: work:", "11ms", "period 10ms", "work <= period" } },
	{ "a 1ms 10ms 10ms work=2\n b 1ms 10ms 10ms work=1.5xs\n", { "t.tasks:2: work:", "unknown unit" } },
	{ "a 1ms 10ms 10ms count=0\n", { "t.tasks:1: count:", "0 copies", "1 to 1024" } },
	{ "a 1ms 10ms 10ms count=two\n", { "t.tasks:1: count:", "\"two\"" } },
	{ "a 1ms 10ms 10ms count=-1\n", { "t.tasks:1: count:", "\"-1\"" } },
	{ "a 1ms 10ms 10ms count=1025\n", { "t.tasks:1: count:", "1 to 1024" } },
	{ "a 1ms 10ms 10ms offset=soon\n", { "t.tasks:1: offset:", "\"soon\"" } },
	{ "a 1ms 10ms 10ms flags=reclaim,fast\n", { "t.tasks:1: flags:", "unknown flag \"fast\"", "reset-on-fork" } },
	{ "a 1ms 10ms 10ms flags=\n", { "t.tasks:1: flags:", "unknown flag \"\"" } },
	{ "a 1ms 10ms 10ms flags=reclaim,\n", { "t.tasks:1: flags:", "unknown flag \"\"" } },
	{ "a 1ms 10ms 10ms place=\n", { "t.tasks:1: place:", "\"\"", "cluster" } },
	{ "a 1ms 10ms 10ms place=../etc\n", { "t.tasks:1: place:", "\"../etc\"" } },
	{ "a 1ms 10ms 10ms work=1ms work=2ms\n", { "t.tasks:1: work:", "twice" } },
	{ "a 1ms 10ms 10ms work=6ms spin=5ms\n", { "t.tasks:1: spin:", "5ms after a work of 6ms", "period 10ms", "fit in its period" } },
	{ "a 1ms 10ms 10ms spin=11ms\n", { "t.tasks:1: spin:", "11ms is longer", "period 10ms" } },
	{ "a 1ms 10ms 10ms spin=soon\n", { "t.tasks:1: spin:", "\"soon\"" } },
	{ "a 1ms 10ms 10ms speed=2\n", { "t.tasks:1:", "\"speed=2\"", "KEY=VALUE" } },
	{ "a 1ms 10ms 10ms extra\n", { "t.tasks:1:", "\"extra\"", "-- before a command" } },
	{ "a 1ms 10ms 10ms --\n", { "t.tasks:1: command:", "nothing after --" } },
	{ "a 1ms 10ms 10ms -- '' x\n", { "t.tasks:1: command:", "empty command" } },
	{ "a 1ms 10ms 10ms -- echo 'hi\n", { "t.tasks:1:", "single quote is not closed" } },
	{ "a 1ms 10ms 10ms -- echo \"hi\n", { "t.tasks:1:", "double quote is not closed" } },
	{ "a 1ms 10ms 10ms\nb 1ms 10ms 10ms\na 2ms 10ms 10ms\n",
	  { "t.tasks:3: name:", "second task named \"a\"", "first is on line 1" } },
	{ "l.2 1ms 10ms 10ms\nl 1ms 10ms 10ms count=3\n",
	  { "t.tasks:2: name:", "second task named \"l.2\"", "line 1" } },
	{ "big 1ms 100ms 100ms count=1000\nmore 1ms 100ms 100ms count=25\n",
	  { "t.tasks:2: count:", "at most 1024" } },
	{ "# only a comment\n\n", { "t.tasks: no task", "NAME RUNTIME DEADLINE PERIOD" } },
	{ "", { "t.tasks: no task" } },
	{ "a 1ms 10ms 10ms\x1b[2J\n", { "t.tasks:1: period:", "?[2J" } },
	/* the JSON form */
	{ "{\"tasks\": [ ]}", { "t.tasks: no task" } },
	{ "{\"task\": []}", { "t.tasks:1:", "one key, \"tasks\"" } },
	{ "{\"tasks\": [], \"x\": 1}", { "t.tasks:1:", "one key, \"tasks\"" } },
	{ "{\"tasks\": 5}", { "t.tasks:1: tasks:", "an array of tasks" } },
	{ "[1]", { "t.tasks:1:", "a task is an object", "a number" } },
	{ "[{\"name\": \"a\",\n \"runtime\": \"1ms\", \"period\": \"10ms\",\n \"speed\": 2}]",
	  { "t.tasks:3: speed:", "unknown key", "command" } },
	{ "[{\"runtime\": \"1ms\", \"period\": \"10ms\"}]", { "t.tasks:1: name:", "no \"name\"" } },
	{ "[{\"name\": \"a\", \"period\": \"10ms\"}]", { "t.tasks:1: runtime:", "no \"runtime\"" } },
	{ "[{\"name\": \"a\", \"runtime\": \"1ms\"}]", { "t.tasks:1: period:", "neither" } },
	{ "[{\"name\": 7, \"runtime\": \"1ms\", \"period\": \"10ms\"}]", { "t.tasks:1: name:", "a string, not a number" } },
	{ "[{\"name\": \"a\", \"runtime\": 1.5, \"period\": \"10ms\"}]", { "t.tasks:1: runtime:", "1.5", "integer nanoseconds" } },
	{ "[{\"name\": \"a\", \"runtime\": -1, \"period\": \"10ms\"}]", { "t.tasks:1: runtime:", "-1" } },
	{ "[{\"name\": \"a\", \"runtime\": 1e6, \"period\": \"10ms\"}]", { "t.tasks:1: runtime:", "1e6" } },
	{ "[{\"name\": \"a\", \"runtime\": true, \"period\": \"10ms\"}]", { "t.tasks:1: runtime:", "not true" } },
	{ "[{\"name\": \"a\", \"runtime\": 99999999999999999999, \"period\": \"10ms\"}]", { "t.tasks:1: runtime:", "too large" } },
	{ "[{\"name\": \"a\", \"runtime\": \"1ms\",\n \"period\": \"1s\",\n \"work\": \"2s\"}]", { "t.tasks:3: work:", "work <= period" } },
	{ "[{\"name\": \"a\", \"runtime\": \"1ms\", \"period\": \"10ms\", \"count\": \"2\"}]", { "t.tasks:1: count:", "a string" } },
	{ "[{\"name\": \"a\", \"runtime\": \"1ms\", \"period\": \"10ms\", \"flags\": \"reclaim\"}]", { "t.tasks:1: flags:", "array of strings" } },
	{ "[{\"name\": \"a\", \"runtime\": \"1ms\", \"period\": \"10ms\", \"flags\": [\"reclaim,overrun\"]}]", { "t.tasks:1: flags:", "one per element" } },
	{ "[{\"name\": \"a\", \"runtime\": \"1ms\", \"period\": \"10ms\", \"command\": []}]", { "t.tasks:1: command:", "non-empty array" } },
	{ "[{\"name\": \"a\", \"runtime\": \"1ms\", \"period\": \"10ms\", \"command\": [\"x\", 1]}]", { "t.tasks:1: command:", "element 1", "a number" } },
	{ "[{\"name\": \"a\", \"runtime\": \"1ms\", \"period\": \"10ms\", \"place\": null}]", { "t.tasks:1: place:", "not null" } },
	{ "[{\"name\": \"a\", \"runtime\": \"1ms\", \"period\": \"10ms\"},\n {\"name\": \"a\", \"runtime\": \"1ms\", \"period\": \"10ms\"}]",
	  { "t.tasks:2: name:", "second task named \"a\"" } },
	/* strict JSON */
	{ "[{\"name\": \"a\", \"runtime\": \"1ms\", \"period\": \"10ms\"},]", { "t.tasks:1: JSON:", "comma before ']'" } },
	{ "[{\"name\": \"a\", \"runtime\": \"1ms\", \"period\": \"10ms\",}]", { "t.tasks:1: JSON:", "comma before '}'" } },
	{ "[{\"name\": \"a\", \"name\": \"b\"}]", { "t.tasks:1: JSON:", "\"name\" appears twice" } },
	{ "[{\"a\": 1,\n \"b\": 2,\n \"b\": 3,\n \"a\": 4, \"a\": 5}]",
	  { "t.tasks:3: JSON:", "\"b\" appears twice in one object (lines 2 and 3)" } },
	{ "[\n// comment\n]", { "t.tasks:2: JSON:", "expected a value" } },
	{ "[{'name': 1}]", { "t.tasks:1: JSON:", "key in double quotes" } },
	{ "[01]", { "t.tasks:1: JSON:", "leading zero" } },
	{ "[1.]", { "t.tasks:1: JSON:", "after its point" } },
	{ "[1e]", { "t.tasks:1: JSON:", "exponent" } },
	{ "[\"a\tb\"]", { "t.tasks:1: JSON:", "control character" } },
	{ "[\"a\nb\"]", { "t.tasks:1: JSON:", "past the end of its line" } },
	{ "[\"\\x\"]", { "t.tasks:1: JSON:", "unknown escape" } },
	{ "[\"\\u12\"]", { "t.tasks:1: JSON:", "four hex digits" } },
	{ "[\"\\ud800\"]", { "t.tasks:1: JSON:", "high surrogate" } },
	{ "[\"\\udc00\"]", { "t.tasks:1: JSON:", "lone low surrogate" } },
	{ "[\"\\u0000\"]", { "t.tasks:1: JSON:", "\\u0000" } },
	{ "[\"\xc3\"]", { "t.tasks:1: JSON:", "invalid UTF-8" } },
	{ "[\"\xc0\xaf\"]", { "t.tasks:1: JSON:", "invalid UTF-8" } },
	{ "[\"\xed\xa0\x80\"]", { "t.tasks:1: JSON:", "invalid UTF-8" } },
	{ "[\"abc", { "t.tasks:1: JSON:", "not closed" } },
	{ "[1 2]", { "t.tasks:1: JSON:", "',' or ']'" } },
	{ "{\"tasks\" []}", { "t.tasks:1: JSON:", "':'" } },
	{ "{\"tasks\": [] \"x\": 1}", { "t.tasks:1: JSON:", "',' or '}'" } },
	{ "[]\n[]", { "t.tasks:2: JSON:", "more text after" } },
	{ "[tru]", { "t.tasks:1: JSON:", "expected a value" } },
	{ "[\n\n", { "t.tasks:3: JSON:", "ends where a value should be" } },
	{ "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]", { "t.tasks:1: JSON:", "nested too deep" } },
};

START_TEST(test_bad)
{
	struct dl_taskset *ts = (void *)0x1;
	int err = dl_taskset_parse(bad[_i].text, strlen(bad[_i].text), "t.tasks", &ts);

	ck_assert_msg(err == -EINVAL, "case %d accepted (%d): %s", _i, err, bad[_i].text);
	ck_assert_ptr_null(ts); /* NULL after a failure */
	for (int k = 0; k < 4 && bad[_i].says[k]; k++)
		ck_assert_msg(strstr(dl_errmsg(), bad[_i].says[k]),
			      "case %d: \"%s\" lacks \"%s\"", _i, dl_errmsg(), bad[_i].says[k]);
}
END_TEST

START_TEST(test_nul_and_size)
{
	static const char nul[] = "a 1ms 10ms 10ms\nb 1ms\0 10ms 10ms\n";
	struct dl_taskset *ts = NULL;
	size_t big = 1024 * 1024 + 1;
	char *text = malloc(big);

	ck_assert_int_eq(dl_taskset_parse(nul, sizeof(nul) - 1, "n.tasks", &ts), -EINVAL);
	ck_assert_str_eq(dl_errmsg(), "n.tasks:2: a NUL byte: a task set is text");
	ck_assert_ptr_nonnull(text);
	memset(text, '#', big);
	ck_assert_int_eq(dl_taskset_parse(text, big, "big.tasks", &ts), -EFBIG);
	ck_assert_msg(strstr(dl_errmsg(), "big.tasks") && strstr(dl_errmsg(), "1048576 bytes"), "%s", dl_errmsg());
	/* One byte less is only a comment: no task. */
	ck_assert_int_eq(dl_taskset_parse(text, big - 1, "big.tasks", &ts), -EINVAL);
	ck_assert_msg(strstr(dl_errmsg(), "no task"), "%s", dl_errmsg());
	free(text);
	ck_assert_ptr_null(ts);
	/* No origin: the messages still say where. */
	ck_assert_int_eq(dl_taskset_parse("a 1\n", 4, NULL, &ts), -EINVAL);
	ck_assert_msg(strncmp(dl_errmsg(), "(text):1:", 9) == 0, "%s", dl_errmsg());
}
END_TEST

START_TEST(test_count_limit)
{
	struct dl_taskset *ts = parse_ok("big 1ms 100ms 100ms count=1000\nmore 1ms 100ms 100ms count=24\n");

	ck_assert_uint_eq(dl_taskset_count(ts), 1024);
	ck_assert_str_eq(dl_taskset_task(ts, 999)->name, "big.1000");
	ck_assert_str_eq(dl_taskset_task(ts, 1023)->name, "more.24");
	ck_assert_int_eq(dl_taskset_task(ts, 1023)->line, 2);
	dl_taskset_free(ts);
}
END_TEST

/*
 * A task object of 92,000 keys in 1 MB, as anyone may hand to dl-part plan:
 * read in O(n log n) key comparisons, not the n^2/2 (4.2 billion, 13 s
 * of CPU) of comparing each key with every one before it.  The count, not
 * a time, is the assertion (speed figures are make bench's).
 */
#include "workload/taskset.h"

static char *many_keys(size_t n, bool duplicate, size_t *len)
{
	char *text = malloc(n * 16 + 64), *p = text;

	p += sprintf(p, "{\"tasks\": [{");
	for (size_t i = 0; i < n; i++)
		p += sprintf(p, "%s\"k%zu\":%zu", i ? "," : "", duplicate && i == n - 1 ? (size_t)7 : i, i % 10);
	p += sprintf(p, "}]}");
	*len = (size_t)(p - text);
	return text;
}

START_TEST(test_many_keys)
{
	const size_t n = 92000;
	struct dl_taskset *ts = NULL;
	struct dl_jval *v = NULL;
	uint64_t compares, bound = 0;
	size_t len;
	char *text = many_keys(n, false, &len);

	for (size_t k = n; k > 1; k /= 2)
		bound += 2 * n; /* 2 n log2(n): a sort's worst case, with room */
	ck_assert_uint_ge(len, 900000);
	ck_assert_msg(dl_json_parse_counted(text, len, "big.json", &v, &compares) == 0, "%s", dl_errmsg());
	ck_assert_uint_eq(v->items[0].items[0].n, n);
	ck_assert_msg(compares <= bound, "%llu key comparisons for %zu keys (at most %llu)",
		      (unsigned long long)compares, n, (unsigned long long)bound);
	dl_json_free(v);
	/* As a task set it is refused, at its first unknown key. */
	ck_assert_int_eq(dl_taskset_parse(text, len, "big.json", &ts), -EINVAL);
	ck_assert_msg(strstr(dl_errmsg(), "k0"), "%s", dl_errmsg());
	free(text);

	/* The one duplicate, last: found, with both lines, as cheaply. */
	text = many_keys(n, true, &len);
	ck_assert_int_eq(dl_json_parse_counted(text, len, "big.json", &v, &compares), -EINVAL);
	ck_assert_msg(strstr(dl_errmsg(), "\"k7\" appears twice in one object (lines 1 and 1)"), "%s", dl_errmsg());
	ck_assert_uint_le(compares, bound);
	free(text);
}
END_TEST

static char *write_tmp(const char *text, size_t len)
{
	static char path[64];
	int fd;

	snprintf(path, sizeof(path), "/tmp/test-taskset.XXXXXX");
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, len), (ssize_t)len);
	close(fd);
	return path;
}

START_TEST(test_read)
{
	struct dl_taskset *ts = NULL;
	char *path = write_tmp(good_lines, sizeof(good_lines) - 1), *big;
	int fd, saved;

	ck_assert_msg(dl_taskset_read(path, &ts) == 0, "%s", dl_errmsg());
	check_good(ts, false);
	dl_taskset_free(ts);
	unlink(path);

	/* "-" is stdin, named so in messages. */
	path = write_tmp("x 1ms 10ms\n", 11);
	fd = open(path, O_RDONLY);
	saved = dup(STDIN_FILENO);
	dup2(fd, STDIN_FILENO);
	close(fd);
	ck_assert_int_eq(dl_taskset_read("-", &ts), -EINVAL);
	dup2(saved, STDIN_FILENO);
	close(saved);
	ck_assert_msg(strncmp(dl_errmsg(), "(stdin):1:", 10) == 0, "%s", dl_errmsg());
	unlink(path);

	ck_assert_int_eq(dl_taskset_read("/nonexistent/x.tasks", &ts), -ENOENT);
	ck_assert_msg(strstr(dl_errmsg(), "/nonexistent/x.tasks"), "%s", dl_errmsg());
	ck_assert_int_eq(dl_taskset_read("/", &ts), -EISDIR);
	ck_assert_msg(strstr(dl_errmsg(), "cannot read /"), "%s", dl_errmsg());
	ck_assert_int_eq(dl_taskset_read("", &ts), -EINVAL);

	/* A file past the limit is refused before it is all read. */
	big = malloc(3 * 1024 * 1024);
	ck_assert_ptr_nonnull(big);
	memset(big, '\n', 3 * 1024 * 1024);
	path = write_tmp(big, 3 * 1024 * 1024);
	free(big);
	ck_assert_int_eq(dl_taskset_read(path, &ts), -EFBIG);
	ck_assert_msg(strstr(dl_errmsg(), path) && strstr(dl_errmsg(), "1048576"), "%s", dl_errmsg());
	unlink(path);
}
END_TEST

/* The period limits are the machine's the set is planned for: a set is
 * read whatever this host's sysctls say, and a plan checks the
 * platform's limits (the kernel's defaults, or the ones it was given). */
START_TEST(test_period_limits_of_the_platform)
{
	static const char text[] = "ok 1ms 10ms 10ms\nfast 10us 50us 50us\nslow 1ms 5s 5s\n";
	struct dl_taskset *ts = NULL;
	struct dl_global_result *g = NULL;
	struct dl_platform pf;
	struct dl_plan *plan = NULL;

	ck_assert_int_eq(dl_taskset_parse(text, strlen(text), "t.tasks", &ts), 0);
	ck_assert_uint_eq(dl_taskset_count(ts), 3);
	ck_assert_int_eq(dl_platform_init(&pf, 4), 0);
	ck_assert_uint_eq(pf.period_min, 100 * US);
	ck_assert_uint_eq(pf.period_max, 4194304 * US);
	ck_assert_int_eq(dl_plan_taskset(ts, &pf, &plan), -EINVAL);
	ck_assert_ptr_null(plan);
	ck_assert_msg(strstr(dl_errmsg(), "t.tasks:2: period: task \"fast\": period 50us is below the platform's minimum of 100us"),
		      "%s", dl_errmsg());
	ck_assert_int_eq(dl_global_test_taskset(ts, &pf, &g), -EINVAL);
	ck_assert_ptr_null(g);
	/* A machine whose limits allow both. */
	pf.period_min = 10 * US;
	pf.period_max = 10000 * MS;
	ck_assert_int_eq(dl_plan_taskset(ts, &pf, &plan), 0);
	ck_assert(plan->feasible);
	dl_plan_free(plan);
	ck_assert_int_eq(dl_global_test_taskset(ts, &pf, &g), 0);
	ck_assert_int_eq(g->ncpus, 4);
	ck_assert_uint_eq(g->ntasks, 3);
	free(g);
	/* One that allows neither: the first is named. */
	pf.period_min = 0;
	pf.period_max = 1000 * MS;
	ck_assert_int_eq(dl_plan_taskset(ts, &pf, &plan), -EINVAL);
	ck_assert_msg(strstr(dl_errmsg(), "t.tasks:2: period: task \"fast\""), "%s", dl_errmsg());
	pf.period_min = 10 * US;
	ck_assert_int_eq(dl_plan_taskset(ts, &pf, &plan), -EINVAL);
	ck_assert_msg(strstr(dl_errmsg(), "t.tasks:3: period: task \"slow\": period 5s is above the platform's maximum of 1s"),
		      "%s", dl_errmsg());
	ck_assert_int_eq(dl_plan_taskset(NULL, &pf, &plan), -EINVAL);
	ck_assert_int_eq(dl_plan_taskset(ts, &pf, NULL), -EINVAL);
	dl_taskset_free(ts);
}
END_TEST

START_TEST(test_api)
{
	struct dl_taskset *ts = dl_taskset_new();
	struct dl_params p = { .runtime = 2 * MS, .period = 10 * MS, .flags = DL_FLAG_RECLAIM };
	const struct dl_taskspec *t;

	ck_assert_ptr_nonnull(ts);
	ck_assert_uint_eq(dl_taskset_count(ts), 0);
	ck_assert_ptr_null(dl_taskset_task(ts, 0));
	ck_assert_int_eq(dl_taskset_add(ts, "ctl", &p), 0);
	t = dl_taskset_task(ts, 0);
	ck_assert_str_eq(t->name, "ctl");
	ck_assert_uint_eq(t->params.deadline, 10 * MS);
	ck_assert_uint_eq(t->params.flags, DL_FLAG_RECLAIM);
	ck_assert_uint_eq(t->work, 1800 * US);
	ck_assert_uint_eq(t->offset, 0);
	ck_assert_ptr_null(t->place);
	ck_assert_ptr_null(t->argv);
	ck_assert_int_eq(t->line, 0);
	/* An odd runtime: 90% rounds down, exactly. */
	p.runtime = 1111;
	ck_assert_int_eq(dl_taskset_add(ts, "odd", &p), 0);
	ck_assert_uint_eq(dl_taskset_task(ts, 1)->work, 999);
	/* The pointer to an earlier task survives growth. */
	for (int i = 0; i < 40; i++) {
		char name[16];

		snprintf(name, sizeof(name), "n%d", i);
		ck_assert_int_eq(dl_taskset_add(ts, name, &p), 0);
	}
	ck_assert_ptr_eq(dl_taskset_task(ts, 0), t);
	ck_assert_str_eq(t->name, "ctl");

	ck_assert_int_eq(dl_taskset_add(ts, "ctl", &p), -EINVAL);
	ck_assert_str_eq(dl_errmsg(), "name: a second task named \"ctl\": give each task its own name");
	ck_assert_int_eq(dl_taskset_add(ts, "a b", &p), -EINVAL);
	ck_assert_msg(strstr(dl_errmsg(), "name: \"a b\" is not a task name"), "%s", dl_errmsg());
	ck_assert_int_eq(dl_taskset_add(ts, NULL, &p), -EINVAL);
	p.runtime = 20 * MS;
	ck_assert_int_eq(dl_taskset_add(ts, "x", &p), -EINVAL);
	ck_assert_msg(strstr(dl_errmsg(), "runtime: task \"x\": runtime 20ms is longer than the deadline 10ms"),
		      "%s", dl_errmsg());
	ck_assert_int_eq(dl_taskset_add(ts, "x", NULL), -EINVAL);
	/* Reserved bytes are named as such, not as a field of the file. */
	p.runtime = 1 * MS;
	p.reserved[1] = 1;
	ck_assert_int_eq(dl_taskset_add(ts, "x", &p), -EINVAL);
	ck_assert_msg(strstr(dl_errmsg(), "task \"x\": reserved: struct dl_params has non-zero bytes in its reserved space"),
		      "%s", dl_errmsg());
	ck_assert_ptr_null(strstr(dl_errmsg(), "period"));
	ck_assert_uint_eq(dl_taskset_count(ts), 42);
	dl_taskset_free(ts);

	ck_assert_uint_eq(dl_taskset_count(NULL), 0);
	ck_assert_ptr_null(dl_taskset_task(NULL, 0));
	dl_taskset_free(NULL);
}
END_TEST

static Suite *make(void)
{
	Suite *s = suite_create("taskset");
	TCase *tc = tcase_create("good");

	tcase_add_test(tc, test_good_lines);
	tcase_add_test(tc, test_good_json);
	tcase_add_test(tc, test_count_limit);
	tcase_add_test(tc, test_many_keys);
	tcase_add_test(tc, test_api);
	tcase_add_test(tc, test_period_limits_of_the_platform);
	suite_add_tcase(s, tc);
	tc = tcase_create("bad");
	tcase_add_loop_test(tc, test_bad, 0, ARRAY_SIZE(bad));
	tcase_add_test(tc, test_nul_and_size);
	suite_add_tcase(s, tc);
	tc = tcase_create("read");
	tcase_add_test(tc, test_read);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tl_main(make, TL_UNIT);
}
