#include "synth.h"
#include "procfs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

void dp_synth_trailer(dp_buf *b, const struct perf_event_attr *attr, uint32_t pid, uint32_t tid,
		      uint64_t time, uint64_t id)
{
	uint64_t st = attr->sample_type, zero = 0;
	uint32_t pt[2] = {pid, tid};

	if (!attr->sample_id_all)
		return;
	if (st & PERF_SAMPLE_TID)
		dp_buf_add(b, pt, 8);
	if (st & PERF_SAMPLE_TIME)
		dp_buf_add(b, &time, 8);
	if (st & PERF_SAMPLE_ID)
		dp_buf_add(b, &id, 8);
	if (st & PERF_SAMPLE_STREAM_ID)
		dp_buf_add(b, &id, 8);
	if (st & PERF_SAMPLE_CPU)
		dp_buf_add(b, &zero, 8);
	if (st & PERF_SAMPLE_IDENTIFIER)
		dp_buf_add(b, &id, 8);
}

/* Finishes a record started in b (header at 0): pads the string part, adds
 * the trailer, sets the size, writes it, and adds it to copy (unless NULL). */
static void emit(dp_writer *w, dp_buf *b, const struct perf_event_attr *attr, uint32_t pid,
		 uint32_t tid, uint64_t id, dp_buf *copy)
{
	static const char zeros[8];
	struct perf_event_header *h;

	dp_buf_add(b, zeros, DP_ALIGN(b->len, 8) - b->len);
	dp_synth_trailer(b, attr, pid, tid, dp_now_ns(), id);
	h = (void *)b->p;
	h->size = (uint16_t)b->len;
	dp_writer_add(w, b->p, b->len);
	if (copy)
		dp_buf_add(copy, b->p, b->len);
}

static void synth_comm(dp_writer *w, pid_t pid, int tid, const struct perf_event_attr *attr,
		       uint64_t id)
{
	char path[64], *comm;
	struct perf_event_header h = {PERF_RECORD_COMM, PERF_RECORD_MISC_USER, 0};
	uint32_t pt[2] = {(uint32_t)pid, (uint32_t)tid};
	dp_buf b = {0};

	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)pid, tid);
	comm = dp_read_file(path, NULL);
	if (!comm)
		return;
	comm[strcspn(comm, "\n")] = 0;
	if (strlen(comm) > 15) /* the kernel keeps TASK_COMM_LEN - 1 */
		comm[15] = 0;
	dp_buf_add(&b, &h, sizeof(h));
	dp_buf_add(&b, pt, sizeof(pt));
	dp_buf_add(&b, comm, strlen(comm) + 1);
	emit(w, &b, attr, (uint32_t)pid, (uint32_t)tid, id, NULL);
	dp_buf_free(&b);
	free(comm);
}

int dp_synth_process(dp_writer *w, pid_t pid, const struct perf_event_attr *attr, uint64_t id,
		     dp_buf *copy)
{
	char path[64], *maps, *line, *save = NULL;
	dp_int_vec tids = {0};
	int n = 0;

	if (dp_process_threads(pid, &tids) == 0)
		for (size_t i = 0; i < tids.n; i++)
			synth_comm(w, pid, tids.v[i], attr, id);
	dp_vec_free(&tids);

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	maps = dp_read_file(path, NULL);
	if (!maps)
		return -1;
	for (line = strtok_r(maps, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long start, end, pgoff, ino;
		unsigned maj, min;
		char perms[8];
		int name_at = 0;

		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end, perms, &pgoff,
			   &maj, &min, &ino, &name_at) < 7)
			continue;
		const char *name = line + name_at;
		if (!*name)
			name = "//anon";
		struct perf_event_header h = {PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER, 0};
		struct {
			uint32_t pid, tid;
			uint64_t start, len, pgoff;
			uint32_t maj, min;
			uint64_t ino, ino_gen;
			uint32_t prot, flags;
		} m = {(uint32_t)pid, (uint32_t)pid, start, end - start, pgoff, maj, min, ino, 0, 0, 0};
		m.prot = (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0) |
			 (perms[2] == 'x' ? PROT_EXEC : 0);
		m.flags = perms[3] == 's' ? MAP_SHARED : MAP_PRIVATE;
		if (perms[2] != 'x')
			h.misc |= PERF_RECORD_MISC_MMAP_DATA;
		dp_buf b = {0};
		dp_buf_add(&b, &h, sizeof(h));
		dp_buf_add(&b, &m, sizeof(m));
		dp_buf_add(&b, name, strlen(name) + 1);
		emit(w, &b, attr, (uint32_t)pid, (uint32_t)pid, id, copy);
		dp_buf_free(&b);
		n++;
	}
	free(maps);
	return n;
}
