/* The machine_probes setup test: what this machine's kernel delivers,
 * probed once for the whole ctest run (tu_feature.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "tu_feature.h"
#include "tu_group.h"

static void test_probe_machine(void **state)
{
	(void)state;
	tu_probe_machine();
}

TU_MAIN(NULL, NULL, test_probe_machine)
