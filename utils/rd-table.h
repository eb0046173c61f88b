/*
 * rd-table.h: what more than one tool shows of the kernel, written once: the
 * root-domain table of dl-stat --domains, which dl-part status prints
 * too.  The library computes every figure and verdict; this only prints.
 */
#ifndef LIBDL_TOOLS_RD_TABLE_H
#define LIBDL_TOOLS_RD_TABLE_H

#include <stddef.h>
#include <stdio.h>

#include "libdeadline.h"

/* One line per root domain (capacity, fair servers, admitted, free,
 * tasks), and under each whose count is not what its fair servers and
 * live tasks hold (drift[i], DL_DRIFT_* of dl_rd_drift(3)) a line that
 * says by how much and why; repair: how the tool's user repairs it. */
void show_rd_table(FILE *o, const struct dl_rd *rds, size_t n, const int *drift, const char *repair);

#endif
