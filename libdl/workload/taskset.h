/*
 * taskset.h: the task-set readers' shared parts (internal).
 *
 * Both forms of libdl-taskset(5), the line form and the JSON form, fill
 * a struct dl_rawtask per task, with the line each field came from; one
 * function checks it and adds it (and its count= copies) to the set, so
 * both forms obey exactly the same rules and say the same things.
 */
#ifndef LIBDL_TASKSET_H
#define LIBDL_TASKSET_H

#include "sys/sys.h"

#define DL_TASKSET_MAX_BYTES (1024 * 1024) /* a file larger than this is refused */
#define DL_TASKSET_MAX_TASKS 1024          /* tasks in a set, copies included */
#define DL_TASKSET_MAX_COUNT 1024          /* count= */
#define DL_TASKSET_NAME_MAX 32             /* a NAME's characters */

/* A task as read, before the rules: 0 lines mean "not given". */
enum dl_rawfield {
	DL_RF_NAME, DL_RF_RUNTIME, DL_RF_DEADLINE, DL_RF_PERIOD, DL_RF_WORK,
	DL_RF_COUNT, DL_RF_OFFSET, DL_RF_FLAGS, DL_RF_PLACE, DL_RF_COMMAND,
	DL_RF_SPIN, DL_RF_N
};
struct dl_rawtask {
	const char *origin;      /* the file's name, for messages */
	int line;                /* where the task begins */
	int at[DL_RF_N];         /* the line of each field given; 0: absent */
	const char *name;
	struct dl_params params; /* deadline/period 0: the other one */
	uint64_t work, offset, count, spin;
	const char *place;
	char **argv;             /* NULL-terminated, or NULL */
	/* rt-app's files: its timer mode, loop and phases (dl_taskspec's). */
	int timer;
	uint64_t jobs;
	size_t nphases;
	const struct dl_taskphase *phases;
	bool late_ok;            /* a job may run past its period: what follows
				  * is the timer mode's (rt-app accepts it) */
};
/* Field names as the line form spells them (and the JSON form's keys). */
extern const char *const dl_rawfield_name[DL_RF_N];

/* Check raw and add it (count copies) to ts; messages say origin:line:
 * field.  The strings are copied. */
int dl_taskset_add_raw(struct dl_taskset *ts, const struct dl_rawtask *raw);
/* Every task's period within a machine's limits (0: the kernel's
 * defaults), whose naming them; the message names the file, line and
 * task.  Reading a set leaves these out: they are a machine's sysctls. */
int dl_taskset_check_periods(const struct dl_taskset *ts, uint64_t min, uint64_t max, const char *whose);
/* A flags= word: comma-separated dl-run flag names. */
int dl_taskset_flags(const char *text, uint64_t *flags);

/* json-read.c: a small strict JSON reader (RFC 8259) into a tree that
 * remembers each value's line.  Strings are UTF-8 without NUL bytes. */
enum dl_jtype { DL_JNULL, DL_JFALSE, DL_JTRUE, DL_JNUM, DL_JSTR, DL_JARR, DL_JOBJ };
struct dl_jval {
	enum dl_jtype type;
	int line;
	char *key;             /* a member's key; NULL in arrays and at the top */
	char *text;            /* JSTR: the string; JNUM: the number as written */
	struct dl_jval *items; /* JARR: the elements; JOBJ: the members */
	size_t n;
};
#define DL_JSON_MAX_DEPTH 32
int dl_json_parse(const char *text, size_t len, const char *origin, struct dl_jval **out);
/* The same, saying how many key comparisons its duplicate check made:
 * O(n log n) in an object's members, never O(n^2) (tests count them). */
int dl_json_parse_counted(const char *text, size_t len, const char *origin, struct dl_jval **out,
			  uint64_t *compares);
void dl_json_free(struct dl_jval *v);
/* The member of object obj named key; NULL when obj is no object (NULL
 * included) or has none of that name. */
const struct dl_jval *dl_json_get(const struct dl_jval *obj, const char *key);
const char *dl_json_type_name(enum dl_jtype t);
/* What a value holds freed, the value itself not (an item of an array). */
void dl_json_free_members(struct dl_jval *v);
/* json-write.c: a tree as compact JSON text, malloc'ed, with a newline;
 * an object's member set, replaced in place or appended, v taken over. */
int dl_json_write(const struct dl_jval *v, char **text, size_t *len);
int dl_json_set(struct dl_jval *obj, const char *key, struct dl_jval *v);

/* taskset-json.c: the JSON form into ts. */
int dl_taskset_from_json(struct dl_taskset *ts, const char *text, size_t len, const char *origin);

/* taskset-rtapp.c: rt-app's workload files.  Whether a JSON-looking text
 * is one; it into ts; and rt-app's text with its comments and trailing
 * commas blanked (same length and lines; NULL: out of memory). */
bool dl_taskset_is_rtapp(const char *text, size_t len);
int dl_taskset_from_rtapp(struct dl_taskset *ts, const char *text, size_t len, const char *origin);
/* The same, saying how much work it did: the JSON reader's key
 * comparisons, then the values visited and timer names compared to find
 * shared timers.  O(n log n) in the file's values (tests count it). */
int dl_taskset_from_rtapp_counted(struct dl_taskset *ts, const char *text, size_t len, const char *origin,
				  uint64_t *steps);
char *dl_rtapp_clean(const char *text, size_t len);

/* taskset.c: which field dl_params_normalize() refused in in (for the
 * message's line); the run's length a file asks for (0: none). */
enum dl_rawfield dl_taskset_bad_field(const struct dl_params *in);
void dl_taskset_set_duration(struct dl_taskset *ts, uint64_t ns);

#endif
