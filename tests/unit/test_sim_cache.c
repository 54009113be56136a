/* The simulator's cache model (sim/sim_cache.c) and the geometry options
 * (sampler/sim_events.c): LRU order, set indexing, lines across a boundary,
 * the sysfs reading, and what --sim-cache refuses. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sampler/sim_events.h"
#include "sim/sim_cache.h"
#include "tu_group.h"

static void test_lru(void **state)
{
	/* one set of 2 ways, 64-byte lines */
	uint64_t tags[2];
	dps_cache c;

	(void)state;
	assert_true(dps_cache_geometry_ok(128, 2, 64));
	dps_cache_init(&c, 128, 2, 64, tags);
	assert_true(dps_cache_access(&c, 0, 8));   /* A: miss */
	assert_true(dps_cache_access(&c, 64, 8));  /* B: miss */
	assert_false(dps_cache_access(&c, 8, 8));  /* A again: hit, now MRU */
	assert_true(dps_cache_access(&c, 128, 8)); /* C evicts B, the LRU */
	assert_false(dps_cache_access(&c, 0, 8));  /* A still there */
	assert_true(dps_cache_access(&c, 64, 8));  /* B was evicted */
}

static void test_sets_and_straddle(void **state)
{
	/* 4 sets of 1 way: lines 0 and 4 conflict, 0 and 1 do not */
	uint64_t tags[4];
	dps_cache c;

	(void)state;
	dps_cache_init(&c, 256, 1, 64, tags);
	assert_true(dps_cache_access(&c, 0, 8));
	assert_true(dps_cache_access(&c, 64, 8));
	assert_false(dps_cache_access(&c, 0, 8));
	assert_true(dps_cache_access(&c, 256, 8)); /* line 4: set 0 */
	assert_true(dps_cache_access(&c, 0, 8));
	/* an access across lines 1 and 2: line 2 is new, so a miss; both stay */
	assert_true(dps_cache_access(&c, 124, 8));
	assert_false(dps_cache_access(&c, 128, 4));
	assert_false(dps_cache_access(&c, 64, 4));
	/* 3 sets (not a power of two): indexed modulo */
	uint64_t t3[3];
	assert_true(dps_cache_geometry_ok(192, 1, 64));
	dps_cache_init(&c, 192, 1, 64, t3);
	assert_true(dps_cache_access(&c, 0, 1));
	assert_true(dps_cache_access(&c, 64 * 3, 1)); /* line 3: set 0 again */
	assert_true(dps_cache_access(&c, 0, 1));
}

static void test_geometry(void **state)
{
	dp_sim_geometry g;
	dp_error err = {{0}};

	(void)state;
	assert_false(dps_cache_geometry_ok(32768, 3, 64) && 32768 % (3 * 64));
	assert_false(dps_cache_geometry_ok(32768, 8, 48));
	assert_false(dps_cache_geometry_ok(0, 8, 64));
	dp_sim_geometry_host(&g, "/nonexistent");
	assert_int_equal(g.l1d[0], 32768);
	assert_int_equal(g.llc[1], 16);
	assert_int_equal(
	    dp_sim_geometry_parse(&g, "l1d=48K:12:64,l2=none,dtlb=32:4,lat=1:2:3:4:5", &err), 0);
	assert_int_equal(g.l1d[0], 48 * 1024);
	assert_int_equal(g.l1d[1], 12);
	assert_int_equal(g.l2[0], 0);
	assert_int_equal(g.dtlb[0], 32);
	assert_int_equal(g.lat[4], 5);
	assert_int_equal(dp_sim_geometry_parse(&g, "l1d=32K:8", &err), -1);
	assert_non_null(strstr(err.msg, "SIZE:WAYS:LINE"));
	assert_int_equal(dp_sim_geometry_parse(&g, "llc=32M:16:100", &err), -1);
	assert_non_null(strstr(err.msg, "impossible"));
	assert_int_equal(dp_sim_geometry_parse(&g, "l4=1M:8:64", &err), -1);
	assert_int_equal(dp_sim_geometry_parse(&g, "lat=1:2", &err), -1);
}

/* A sysfs cache folder written by the test: level 1 data, level 1
 * instruction (ignored), level 2 unified. */
static void put(const char *dir, const char *name, const char *val)
{
	char *p = NULL;
	FILE *f;

	assert_true(asprintf(&p, "%s/%s", dir, name) > 0);
	f = fopen(p, "w");
	assert_non_null(f);
	fprintf(f, "%s\n", val);
	fclose(f);
	free(p);
}

static void test_sysfs(void **state)
{
	const char *base = tu_tmpdir();
	const char *idx[] = {"index0", "index1", "index2"};
	const char *type[] = {"Data", "Instruction", "Unified"};
	const char *level[] = {"1", "1", "2"};
	const char *size[] = {"48K", "32K", "2048K"};
	const char *ways[] = {"12", "8", "16"};
	dp_sim_geometry g;

	(void)state;
	for (int i = 0; i < 3; i++) {
		char *d = NULL;

		assert_true(asprintf(&d, "%s/%s", base, idx[i]) > 0);
		mkdir(d, 0755);
		put(d, "type", type[i]);
		put(d, "level", level[i]);
		put(d, "size", size[i]);
		put(d, "ways_of_associativity", ways[i]);
		put(d, "coherency_line_size", "64");
		free(d);
	}
	dp_sim_geometry_host(&g, base);
	assert_int_equal(g.l1d[0], 48 * 1024);
	assert_int_equal(g.l1d[1], 12);
	assert_int_equal(g.l2[0], 2048 * 1024);
	assert_int_equal(g.l2[1], 16);
	assert_int_equal(g.llc[0], 32 << 20); /* no level 3: the default */
}

TU_MAIN(NULL, tu_teardown, test_lru, test_sets_and_straddle, test_geometry, test_sysfs)
