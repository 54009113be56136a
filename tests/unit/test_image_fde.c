/* decode/image_fde.c: the functions of a stripped binary are its FDEs'
 * ranges, the same whichever of their addresses is asked first (a
 * function made from the CFI row of the first address asked depended on
 * the order, and a parallel report's output on its parts). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode/image.h"
#include "tu.h"
#include "tu_group.h"

static dp_image *open_image(const char *path)
{
	dp_image_opts o = {0};
	dp_reason why;
	dp_error err = {{0}};
	dp_image *im = dp_image_open(path, NULL, 0, &o, &why, &err);

	if (!im)
		fail_msg("%s: %s", path, err.msg);
	return im;
}

static void test_stripped_functions_from_fdes(void **state)
{
	dp_image *full = open_image(DWARF_TYPES_O2);
	char *stripped = tu_path("stripped"), *cmd;
	dp_image *mid_first, *start_first;
	size_t checked = 0;

	(void)state;
	cmd = dp_asprintf("strip -o '%s' '%s'", stripped, DWARF_TYPES_O2);
	assert_int_equal(system(cmd), 0);
	mid_first = open_image(stripped);
	start_first = open_image(stripped);
	assert_int_equal(mid_first->syms.n, 0); /* nothing named but the FDEs */
	for (size_t i = 0; i < full->syms.n && checked < 40; i++) {
		const dp_symbol *f = &full->syms.v[i];
		uint64_t mid = f->addr + f->size / 2;
		struct dp_func_table **slot;
		const dp_symbol *a, *b, *c, *d;

		char key[64];

		/* the fixture's own functions (crt's _init has no FDE) */
		snprintf(key, sizeof(key), " %s ", f->name);
		if (f->synthetic ||
		    !strstr(" main sum_keys grid_cell skip_varint join_unknown ", key))
			continue;
		/* one image asked in the middle first, the other at the start */
		a = dp_image_function(mid_first, mid, &slot);
		b = dp_image_function(start_first, f->addr, &slot);
		c = dp_image_function(mid_first, f->addr, &slot);
		d = dp_image_function(start_first, mid, &slot);
		assert_non_null(a);
		assert_ptr_equal(a, c);
		assert_ptr_equal(b, d);
		assert_int_equal(a->addr, b->addr);
		assert_int_equal(a->size, b->size);
		/* gcc's FDE spans the function the symbol names */
		assert_int_equal(a->addr, f->addr);
		assert_int_equal(a->size, f->size);
		assert_true(a->synthetic);
		checked++;
	}
	assert_int_equal(checked, 5);
	dp_image_free(full);
	dp_image_free(mid_first);
	dp_image_free(start_first);
	free(cmd);
	free(stripped);
}

TU_MAIN(NULL, tu_teardown, test_stripped_functions_from_fdes)
