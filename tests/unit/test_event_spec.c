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

static void test_precise_load(void **state)
{
	dp_event_spec e = parse_ok("MEM_LOAD_RETIRED.L3_MISS:precise=2");

	(void)state;
	assert_int_equal(e.attr.type, PERF_TYPE_RAW);
	assert_int_equal(e.attr.config, 0x20d1);
	assert_int_equal(e.attr.precise_ip, 2);
	assert_int_equal(e.attr.exclude_kernel, 1);
	assert_int_equal(e.evclass, DP_EVC_LOAD);
	assert_int_equal(e.ip_sem, DP_IP_EXACT_AFTER);
	assert_true(e.is_hardware);
	dp_event_spec_free(&e);
}

static void test_perf_style_modifiers(void **state)
{
	dp_event_spec e = parse_ok("MEM_INST_RETIRED.ALL_STORES:pp");

	(void)state;
	assert_int_equal(e.attr.config, 0x82d0);
	assert_int_equal(e.attr.precise_ip, 2);
	assert_int_equal(e.evclass, DP_EVC_STORE);
	dp_event_spec_free(&e);

	e = parse_ok("MEM_LOAD_RETIRED.L1_MISS:u:ppp");
	assert_int_equal(e.attr.precise_ip, 3);
	assert_int_equal(e.attr.exclude_kernel, 1);
	dp_event_spec_free(&e);
}

static void test_load_latency(void **state)
{
	dp_event_spec e = parse_ok("MEM_TRANS_RETIRED.LOAD_LATENCY:ldlat=64:precise=2");

	(void)state;
	assert_int_equal(e.attr.config, 0x1cd);
	assert_int_equal(e.attr.config1, 64);
	assert_int_equal(e.evclass, DP_EVC_LOAD);
	dp_event_spec_free(&e);
}

static void test_period_in_spec(void **state)
{
	dp_event_spec e = parse_ok("MEM_LOAD_RETIRED.L3_MISS:period=10007");

	(void)state;
	assert_int_equal(e.attr.sample_period, 10007);
	assert_true(e.has_period);
	dp_event_spec_free(&e);
}

static void test_generic_and_software(void **state)
{
	dp_event_spec e = parse_ok("cpu-clock");

	(void)state;
	assert_int_equal(e.attr.type, PERF_TYPE_SOFTWARE);
	assert_int_equal(e.attr.config, PERF_COUNT_SW_CPU_CLOCK);
	assert_int_equal(e.evclass, DP_EVC_TIME);
	assert_int_equal(e.ip_sem, DP_IP_AFTER);
	assert_false(e.is_hardware);
	dp_event_spec_free(&e);

	e = parse_ok("page-faults");
	assert_int_equal(e.attr.config, PERF_COUNT_SW_PAGE_FAULTS);
	assert_int_equal(e.ip_sem, DP_IP_EXACT);
	assert_int_equal(e.evclass, DP_EVC_MEMORY);
	dp_event_spec_free(&e);

	e = parse_ok("cycles:pp");
	assert_int_equal(e.attr.type, PERF_TYPE_HARDWARE);
	assert_int_equal(e.attr.precise_ip, 2);
	assert_int_equal(e.evclass, DP_EVC_TIME);
	assert_int_equal(e.ip_sem, DP_IP_EXACT_AFTER);
	dp_event_spec_free(&e);

	e = parse_ok("instructions");
	assert_int_equal(e.evclass, DP_EVC_NONE);
	dp_event_spec_free(&e);
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
		cmocka_unit_test(test_precise_load),   cmocka_unit_test(test_perf_style_modifiers),
		cmocka_unit_test(test_load_latency),   cmocka_unit_test(test_period_in_spec),
		cmocka_unit_test(test_event_of_other_pmu), cmocka_unit_test(test_unknown_events),
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
