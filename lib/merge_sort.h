/* A stable merge sort by one unsigned field, for arrays of records that
 * come mostly in order (runs of one thread's, one kind's): equal keys keep
 * the order they were added in, which qsort does not promise, and a half
 * already in order after its neighbour costs one comparison.
 *
 *	DP_MERGE_SORT(sort_by_time, struct event, time)
 *	sort_by_time(v, tmp, n);	// tmp: room for n elements
 */
#ifndef DP_MERGE_SORT_H
#define DP_MERGE_SORT_H

#include <stddef.h>
#include <string.h>

#define DP_MERGE_SORT(name, T, key)                                                                \
	static void name(T *v, T *tmp, size_t n)                                                   \
	{                                                                                          \
		size_t mid = n / 2, i = 0, j = mid, o = 0;                                         \
                                                                                                   \
		if (n < 2)                                                                         \
			return;                                                                    \
		name(v, tmp, mid);                                                                 \
		name(v + mid, tmp, n - mid);                                                       \
		if (v[mid - 1].key <= v[mid].key)                                                  \
			return;                                                                    \
		while (i < mid && j < n)                                                           \
			tmp[o++] = v[j].key < v[i].key ? v[j++] : v[i++];                          \
		while (i < mid)                                                                    \
			tmp[o++] = v[i++];                                                         \
		while (j < n)                                                                      \
			tmp[o++] = v[j++];                                                         \
		memcpy(v, tmp, n * sizeof(*v));                                                    \
	}

#endif
