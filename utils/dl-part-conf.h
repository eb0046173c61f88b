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

#endif
