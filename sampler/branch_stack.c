/* record -b / -j: branch stack filters by perf's names, and the probe that
 * tells a PMU without LBR from an event that cannot carry a branch stack. */
#include "branch_stack.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static const struct {
	const char *word;
	uint64_t bit;
} words[] = {
    {"u", PERF_SAMPLE_BRANCH_USER},
    {"k", PERF_SAMPLE_BRANCH_KERNEL},
    {"hv", PERF_SAMPLE_BRANCH_HV},
    {"any", PERF_SAMPLE_BRANCH_ANY},
    {"any_call", PERF_SAMPLE_BRANCH_ANY_CALL},
    {"any_ret", PERF_SAMPLE_BRANCH_ANY_RETURN},
    {"ind_call", PERF_SAMPLE_BRANCH_IND_CALL},
    {"abort_tx", PERF_SAMPLE_BRANCH_ABORT_TX},
    {"in_tx", PERF_SAMPLE_BRANCH_IN_TX},
    {"no_tx", PERF_SAMPLE_BRANCH_NO_TX},
    {"cond", PERF_SAMPLE_BRANCH_COND},
    {"ind_jmp", PERF_SAMPLE_BRANCH_IND_JUMP},
    {"call", PERF_SAMPLE_BRANCH_CALL},
    {"stack", PERF_SAMPLE_BRANCH_CALL_STACK},
    {"save_type", PERF_SAMPLE_BRANCH_TYPE_SAVE},
    {"hw_index", PERF_SAMPLE_BRANCH_HW_INDEX},
    {"priv", PERF_SAMPLE_BRANCH_PRIV_SAVE},
};

#define PLM (PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_KERNEL | PERF_SAMPLE_BRANCH_HV)

int dp_branch_filter_parse(const char *list, uint64_t *mode, dp_error *err)
{
	char *copy = dp_strdup(list), *save = NULL;
	int rc = 0;

	*mode = 0;
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		size_t i;

		for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
			if (!strcmp(t, words[i].word))
				break;
		if (i == sizeof(words) / sizeof(words[0])) {
			dp_error_set(err,
				     "-j '%s': unknown branch filter '%s' (any, any_call, any_ret, "
				     "ind_call, ind_jmp, call, cond, u, k, hv, in_tx, no_tx, "
				     "abort_tx, stack, save_type, hw_index, priv)",
				     list, t);
			rc = -1;
			break;
		}
		*mode |= words[i].bit;
	}
	free(copy);
	if (rc == 0 && !*mode) {
		dp_error_set(err, "-j needs a filter: any, call, cond, u... (comma-separated)");
		rc = -1;
	}
	/* as perf: privilege levels alone select every branch at those levels */
	if (rc == 0 && !(*mode & ~(uint64_t)PLM))
		*mode |= PERF_SAMPLE_BRANCH_ANY;
	return rc;
}

void dp_branch_filter_name(uint64_t mode, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = 0;
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		int n;

		if (!(mode & words[i].bit))
			continue;
		n = snprintf(buf + o, len - o, "%s%s", o ? "," : "", words[i].word);
		if (n < 0 || (size_t)n >= len - o)
			break;
		o += (size_t)n;
	}
}

bool dp_branch_stack_supported(char *why, size_t len)
{
	struct perf_event_attr a;
	long fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_CPU_CYCLES;
	a.sample_period = 1000000;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_BRANCH_STACK;
	a.branch_sample_type = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.disabled = 1;
	fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		snprintf(why, len, "%s", strerror(errno));
		return false;
	}
	close((int)fd);
	snprintf(why, len, "cycles opens with a branch stack");
	return true;
}

void dp_branch_open_error(const dp_event_spec *e, uint64_t mode, int en, dp_error *err)
{
	char why[128], filter[160];

	/* the permission errors are the event's own, branch stack or not */
	if (en == EACCES || en == EPERM) {
		dp_event_open_error(e, en, err);
		return;
	}
	if (!dp_branch_stack_supported(why, sizeof(why))) {
		if (!dp_have_hw_pmu())
			dp_error_set(err, "branch stacks are not supported by this machine's PMU "
					  "(no LBR: no hardware PMU at all, a VM without PMU "
					  "passthrough?); record without -b/-j");
		else
			dp_error_set(err,
				     "branch stacks are not supported by this machine's PMU (no "
				     "LBR: the kernel refuses cycles with a branch stack: %s); "
				     "record without -b/-j",
				     why);
		return;
	}
	dp_branch_filter_name(mode, filter, sizeof(filter));
	if (!e->is_hardware)
		dp_error_set(err,
			     "event '%s' cannot carry a branch stack: only hardware events do "
			     "(-e cycles -b)",
			     e->name);
	else
		dp_error_set(err,
			     "event '%s' cannot be sampled with branch filter '%s' here (%s); "
			     "try -b (any branch) or fewer filter words",
			     e->name, filter, strerror(en));
}
