#include "agent_ticks.h"

void dp_agent_ticks_start(dp_agent_ticks *t)
{
	t->start = t->now = dp_clock_take_pair();
	t->line = dp_clock_line_through(t->start, t->now);
}

void dp_agent_ticks_update(dp_agent_ticks *t)
{
	t->now = dp_clock_take_pair();
	t->line = dp_clock_line_through(t->start, t->now);
	t->fresh = true;
}
