/*
 * rd-table.h: what more than one tool shows of the kernel, written once: the
 * root-domain table of dl-stat --domains, which dl-part status prints
 * too, and each CPU's deadline servers.  The library computes every
 * figure and verdict; this only prints.
 */
#ifndef LIBDL_TOOLS_RD_TABLE_H
#define LIBDL_TOOLS_RD_TABLE_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "libdeadline.h"

#define SERVER_KINDS 2 /* DL_SERVER_FAIR, DL_SERVER_EXT */

/* One CPU's deadline servers, as dl_server_get(3) reads them and
 * dl_server_counted(3) judges them. */
struct cpu_servers {
	int cpu;
	size_t rd;                           /* its root domain: an index */
	struct dl_server srv[SERVER_KINDS];  /* by enum dl_server_kind */
	bool counted[SERVER_KINDS];          /* in its root domain's total_bw now */
};

/* Every CPU of the root domains, by CPU: the count, or -1 when out of
 * memory (*out NULL). */
ssize_t cpu_servers_read(const struct dl_rd *rds, size_t n, struct cpu_servers **out);
/* "fair" or "ext". */
static inline const char *server_kind_name(int kind)
{
	return kind == DL_SERVER_EXT ? "ext" : "fair";
}
/* Its bandwidth as the kernel counts it, to_ratio(period, runtime). */
static inline int64_t server_bw(const struct dl_server *s)
{
	struct dl_params p = { .runtime = s->runtime, .deadline = s->period, .period = s->period };

	return s->runtime ? (int64_t)dl_params_bw(&p) : 0;
}
/* A server's setting as the tools write it: "off", or "50ms/1s". */
const char *server_setting(const struct dl_server *s, char *buf, size_t len);
/* The servers of root domain rd (index) in a few words: each kind with
 * its setting when every CPU has the same ("fair 50ms/1s"), else each
 * CPU's ("fair 0:off,1:50ms/1s"); a ? after a setting not read but
 * taken as the kernel's default; "-" for none. */
const char *rd_servers_text(const struct cpu_servers *cs, size_t ncs, size_t rd, char *buf, size_t len);
/* Whether any server shown was not read (the note the ? refers to). */
bool servers_unread(const struct cpu_servers *cs, size_t ncs);
/* The note under a table with a ?. */
void servers_unread_note(FILE *o);

/* One line per root domain (capacity, fair servers, admitted, free,
 * tasks, the deadline servers' settings), and under each whose count is
 * not what its fair servers and live tasks hold (drift[i], DL_DRIFT_* of
 * dl_rd_drift(3)) a line that says by how much and why; repair: how the
 * tool's user repairs it. */
void show_rd_table(FILE *o, const struct dl_rd *rds, size_t n, const int *drift, const char *repair);

#endif
