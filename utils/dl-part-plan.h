/*
 * dl-part-plan.h: dl-part's plan and apply commands (dl-part-plan.c).
 */
#ifndef LIBDL_TOOLS_DL_PART_PLAN_H
#define LIBDL_TOOLS_DL_PART_PLAN_H

/* argv[1] is cmd ("plan" or "apply"); options from argv[2].  Returns the
 * exit status: 0 a plan (applied), 1 none (or it failed), 2 bad input. */
int dl_part_plan_main(const char *cmd, int argc, char **argv);

#endif
