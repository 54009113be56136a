/* The main of the test programs (tu_group.h). */
#include "tu_group.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* what a C function's name is made of */
static bool is_name_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

int tu_run_group(const char *names, const CMUnitTestFunction *fns, size_t n, size_t plain,
		 CMFixtureFunction test_setup, CMFixtureFunction test_teardown,
		 CMFixtureFunction group_setup, CMFixtureFunction group_teardown)
{
	struct CMUnitTest *tests = calloc(n, sizeof(*tests));
	char *copy = strdup(names), *p = copy;
	size_t i;
	int rc;

	if (!tests || !copy) {
		fprintf(stderr, "tu_run_group: out of memory\n");
		exit(1);
	}
	/* names is the preprocessor's spelling of the list: "a, b, c" or
	 * "(a, b), c" */
	for (i = 0; i < n; i++) {
		char *end;

		while (*p && !is_name_char(*p))
			p++;
		end = p;
		while (is_name_char(*end))
			end++;
		if (*end)
			*end++ = '\0';
		if (!*p) {
			fprintf(stderr, "tu_run_group: %zu functions, fewer names: %s\n", n, names);
			exit(1);
		}
		tests[i].name = p;
		tests[i].test_func = fns[i];
		if (i >= plain) {
			tests[i].setup_func = test_setup;
			tests[i].teardown_func = test_teardown;
		}
		p = end;
	}
	rc = _cmocka_run_group_tests("tests", tests, n, group_setup, group_teardown);
	free(tests);
	free(copy);
	return rc;
}
