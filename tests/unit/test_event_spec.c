/* Event names to perf_event_attr through libpfm4, with Skylake forced so
 * that hardware encodings are checked on a machine without a PMU. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include <linux/hw_breakpoint.h>

#include "sampler/event_spec.h"

static dp_event_spec parse_ok(const char *s)
{
	dp_event_spec e;
	dp_error err = {{0}};

	if (dp_event_parse(s, &e, &err) < 0)
		fail_msg("'%s': %s", s, err.msg);
	return e;
}

static void parse_fails(const char *s, const char *want)
{
	dp_event_spec e;
	dp_error err = {{0}};

	assert_int_equal(dp_event_parse(s, &e, &err), -1);
	if (!strstr(err.msg, want))
		fail_msg("'%s': message '%s' lacks '%s'", s, err.msg, want);
	assert_null(strchr(err.msg, '\n'));
}

/* Fails the test, naming spec and the field, unless got is want. */
#define EXPECT_FIELD(spec, got, want)                                                              \
	do {                                                                                       \
		if ((uint64_t)(got) != (uint64_t)(want))                                           \
			fail_msg("'%s': %s is %#llx, want %#llx", spec, #got,                      \
				 (unsigned long long)(got), (unsigned long long)(want));           \
	} while (0)

/* A spec and what it must give: its encoding (config1: load latency's
 * threshold; period: 0 when the spec sets none) and what dataprof makes of
 * it. Every event counts in user space alone. */
typedef struct event_case {
	const char *spec;
	uint32_t type;
	uint64_t config, config1, period;
	unsigned precise_ip;
	enum dp_event_class evclass;
	enum dp_ip_semantics ip_sem;
} event_case;

static void check_events(const event_case *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		dp_event_spec e = parse_ok(c[i].spec);
		const char *spec = c[i].spec;

		EXPECT_FIELD(spec, e.attr.type, c[i].type);
		EXPECT_FIELD(spec, e.attr.config, c[i].config);
		EXPECT_FIELD(spec, e.attr.config1, c[i].config1);
		EXPECT_FIELD(spec, e.attr.sample_period, c[i].period);
		EXPECT_FIELD(spec, e.has_period, c[i].period != 0);
		EXPECT_FIELD(spec, e.attr.precise_ip, c[i].precise_ip);
		EXPECT_FIELD(spec, e.attr.exclude_kernel, 1);
		EXPECT_FIELD(spec, e.evclass, c[i].evclass);
		EXPECT_FIELD(spec, e.ip_sem, c[i].ip_sem);
		/* raw and generic hardware events count on the PMU */
		EXPECT_FIELD(spec, e.is_hardware, c[i].type != PERF_TYPE_SOFTWARE);
		dp_event_spec_free(&e);
	}
}

/* Skylake's encodings */
static void test_skl_encodings(void **state)
{
	static const event_case c[] = {
	    {"MEM_LOAD_RETIRED.L3_MISS:precise=2", PERF_TYPE_RAW, 0x20d1, 0, 0, 2, DP_EVC_LOAD,
	     DP_IP_EXACT_AFTER},
	    /* perf's modifiers */
	    {"MEM_INST_RETIRED.ALL_STORES:pp", PERF_TYPE_RAW, 0x82d0, 0, 0, 2, DP_EVC_STORE,
	     DP_IP_EXACT_AFTER},
	    {"MEM_LOAD_RETIRED.L1_MISS:u:ppp", PERF_TYPE_RAW, 0x08d1, 0, 0, 3, DP_EVC_LOAD,
	     DP_IP_EXACT_AFTER},
	    {"MEM_TRANS_RETIRED.LOAD_LATENCY:ldlat=64:precise=2", PERF_TYPE_RAW, 0x1cd, 64, 0, 2,
	     DP_EVC_LOAD, DP_IP_EXACT_AFTER},
	    {"MEM_LOAD_RETIRED.L3_MISS:period=10007", PERF_TYPE_RAW, 0x20d1, 0, 10007, 0,
	     DP_EVC_LOAD, DP_IP_AFTER},
	};

	(void)state;
	check_events(c, sizeof(c) / sizeof(c[0]));
}

/* perf's generic and software events */
static void test_generic_and_software(void **state)
{
	static const event_case c[] = {
	    {"cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, 0, 0, 0, DP_EVC_TIME,
	     DP_IP_AFTER},
	    {"page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, 0, 0, 0, DP_EVC_MEMORY,
	     DP_IP_EXACT},
	    {"cycles:pp", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 0, 0, 2, DP_EVC_TIME,
	     DP_IP_EXACT_AFTER},
	    {"instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 0, 0, 0, DP_EVC_NONE,
	     DP_IP_NONE},
	};

	(void)state;
	check_events(c, sizeof(c) / sizeof(c[0]));
}

static void test_breakpoints(void **state)
{
	dp_event_spec e = parse_ok("mem:0x601040/8:w");

	(void)state;
	assert_int_equal(e.attr.type, PERF_TYPE_BREAKPOINT);
	assert_int_equal(e.attr.bp_addr, 0x601040);
	assert_int_equal(e.attr.bp_len, 8);
	assert_int_equal(e.attr.bp_type, HW_BREAKPOINT_W);
	assert_int_equal(e.evclass, DP_EVC_STORE);
	assert_int_equal(e.ip_sem, DP_IP_AFTER);
	assert_true(e.is_breakpoint);
	dp_event_spec_free(&e);

	e = parse_ok("mem:0x601040");
	assert_int_equal(e.attr.bp_type, HW_BREAKPOINT_RW);
	assert_int_equal(e.evclass, DP_EVC_MEMORY);
	dp_event_spec_free(&e);

	parse_fails("mem:0x601041/8:rw", "not aligned");
	parse_fails("mem:0x601040:r", "reads alone");
	parse_fails("mem:0x601040/3", "1, 2, 4 or 8");
	parse_fails("mem:nowhere", "not an address");
	parse_fails("mem:0x10:q", "not one of");
}

static void test_unknown_events(void **state)
{
	(void)state;
	parse_fails("MEM_LOAD_RETIRD.L3_MISS", "MEM_LOAD_RETIRED");
	parse_fails("no_such_event_at_all", "unknown event");
	parse_fails("MEM_LOAD_RETIRED.L3_MISS:frobnicate=3", "MEM_LOAD_RETIRED");
}

/* An AMD event is known to libpfm4 but not on the forced Skylake PMU. */
static void test_event_of_other_pmu(void **state)
{
	(void)state;
	parse_fails("RETIRED_INSTRUCTIONS_NOT_ON_INTEL_zz", "unknown event");
	parse_fails("LS_DISPATCH", "exists on");
}

/* Two runs: "skl" forces libpfm4 to Skylake (hardware encodings on a
 * machine without a PMU); "host" uses this machine's PMUs (the generic
 * perf:: and software events, which a forced PMU hides). */
int main(int argc, char **argv)
{
	const struct CMUnitTest skl[] = {
	    cmocka_unit_test(test_skl_encodings),
	    cmocka_unit_test(test_event_of_other_pmu),
	    cmocka_unit_test(test_unknown_events),
	};
	const struct CMUnitTest host[] = {
		cmocka_unit_test(test_generic_and_software),
		cmocka_unit_test(test_breakpoints),
	};

	if (argc > 1 && !strcmp(argv[1], "skl")) {
		/* before libpfm4 initialises */
		setenv("LIBPFM_FORCE_PMU", "skl", 1);
		return cmocka_run_group_tests_name("skl", skl, NULL, NULL);
	}
	return cmocka_run_group_tests_name("host", host, NULL, NULL);
}
