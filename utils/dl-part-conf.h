/*
 * dl-part-conf.h: dl-part's layout file (dl-part.conf(5)) into a layout.
 */
#ifndef LIBDL_TOOLS_DL_PART_CONF_H
#define LIBDL_TOOLS_DL_PART_CONF_H

#include "libdeadline.h"

/* The longest line, its newline not counted: a longer one is refused
 * (dl-part.conf(5)), never read in pieces. */
#define DL_PART_CONF_LINE_MAX 4096

/* Read FILE into l (partitions, cluster, mems, flags).  0 on success;
 * otherwise -1 with "FILE:LINE: what is wrong and how to fix it" in msg. */
int conf_load(const char *file, struct dl_layout *l, unsigned int *flags, int *nparts,
	      char *msg, size_t len);

/* A deadline server's setting as dl-part takes it: "off", or
 * "RUNTIME/PERIOD" in dl_time_parse(3)'s units ("20ms/25ms").  0, or -1
 * with why. */
int conf_server_value(const char *v, uint64_t *runtime, uint64_t *period, char *why, size_t len);
/* "NAME=off|RUNTIME/PERIOD" (NAME a partition's, or the cluster's) set
 * on l for kind's server.  0, or -1 with why. */
int conf_server(struct dl_layout *l, int kind, const char *arg, char *why, size_t len);

#endif
