/* Writing system counter records: sensor descriptions and readings. */
#ifndef DP_WRITER_TIMELINE_H
#define DP_WRITER_TIMELINE_H

#include "writer.h"

void dp_writer_add_sensor(dp_writer *w, uint32_t id, enum dp_sensor_kind kind, const char *unit,
			  const char *name);
/* One collection: values of sensors first..first+n-1, split over as many
 * READING records as a u16 record size needs. */
void dp_writer_add_reading(dp_writer *w, uint64_t time, uint32_t duration, uint32_t first,
			   const uint64_t *values, size_t n);

#endif
