#include "sim_cache.h"

static uint32_t log2u(uint64_t v)
{
	uint32_t n = 0;

	while (v > 1) {
		v >>= 1;
		n++;
	}
	return n;
}

static bool pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

bool dps_cache_geometry_ok(uint64_t size, uint64_t ways, uint64_t line)
{
	return size && ways && pow2(line) && size % (ways * line) == 0 && size / (ways * line) >= 1;
}

uint64_t dps_cache_words(uint64_t size, uint64_t ways, uint64_t line)
{
	(void)ways; /* sets * ways lines of one tag each */
	return size / line;
}

void dps_cache_init(dps_cache *c, uint64_t size, uint64_t ways, uint64_t line, uint64_t *tags)
{
	c->tags = tags;
	c->ways = ways;
	c->sets = size / (ways * line);
	c->line_bits = log2u(line);
	c->pow2 = pow2(c->sets);
	for (uint64_t i = 0; i < c->sets * ways; i++)
		tags[i] = ~0ull;
}

/* One line: true on a miss. The set is kept in LRU order, MRU first. */
static bool touch(dps_cache *c, uint64_t block)
{
	uint64_t set = c->pow2 ? block & (c->sets - 1) : block % c->sets;
	uint64_t *s = c->tags + set * c->ways;
	uint64_t i;

	if (s[0] == block)
		return false;
	for (i = 1; i < c->ways; i++)
		if (s[i] == block)
			break;
	if (i == c->ways)
		i = c->ways - 1; /* miss: the LRU way is replaced */
	bool miss = s[i] != block;
	for (; i > 0; i--)
		s[i] = s[i - 1];
	s[0] = block;
	return miss;
}

bool dps_cache_access(dps_cache *c, uint64_t addr, uint64_t size)
{
	uint64_t b1 = addr >> c->line_bits, b2 = (addr + (size ? size - 1 : 0)) >> c->line_bits;
	bool miss = touch(c, b1);

	for (uint64_t b = b1 + 1; b <= b2; b++)
		miss |= touch(c, b);
	return miss;
}
