/* The machine_probes setup test: what this machine's kernel delivers,
 * probed once for the whole ctest run (tu_feature.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "tu_feature.h"

static void test_probe_machine(void **state)
{
	(void)state;
	tu_probe_machine();
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(test_probe_machine)};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
