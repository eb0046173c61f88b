/*
 * test-hooks.c: the test machinery's one entry point (sys.h).  NULL in
 * every program but the test builds of the tools, which point it at
 * tests/lib/hooks.c; the installed library has nothing to set it with.
 */
#include "sys/sys.h"

const struct dl_test_hooks *dl_test_hooks;
