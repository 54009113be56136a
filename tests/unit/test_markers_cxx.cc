// dataprof/markers.h from C++: it compiles cleanly (C++11, all warnings),
// links with libdataprof_markers.a, and is off without a collector.
#include <dataprof/markers.h>

#include <cstdlib>

int main()
{
	unsetenv("DATAPROF_COLLECTOR");
	if (dp_markers_init("c++") != 0 || dp_markers_enabled())
		return 1;
	dp_marker_define(1, "one");
	for (int i = 0; i < 10; i++)
		dp_mark(1);
	dp_mark_name("two");
	dp_markers_uninit();
	return dp_markers_error()[0] ? 0 : 1;
}
