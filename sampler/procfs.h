/* What the recorder reads from /proc and /sys. */
#ifndef DP_PROCFS_H
#define DP_PROCFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "util.h"

typedef DP_VEC(int) dp_int_vec;

/* Online CPUs (from /sys/devices/system/cpu/online). */
int dp_online_cpus(dp_int_vec *out);
/* A CPU list as the kernel writes them ("0-3,6") into out; false, with
 * out emptied, when text is not one. */
bool dp_parse_cpu_list(const char *text, dp_int_vec *out);
/* kernel.perf_event_paranoid, or fallback when it cannot be read. */
int dp_perf_paranoid(int fallback);
/* Every process's ID, from /proc. */
int dp_all_processes(dp_int_vec *out);
/* Threads of a process (/proc/PID/task). */
int dp_process_threads(pid_t pid, dp_int_vec *out);
/* The CPU model name, or "unknown". */
void dp_cpu_model(char *out, size_t len);
/* Whole small /proc file into a NUL-terminated buffer; NULL on error. */
char *dp_read_file(const char *path, size_t *len);

#endif
