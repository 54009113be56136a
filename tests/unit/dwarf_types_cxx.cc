// libstdc++'s container nodes, whose values are raw bytes (an
// __aligned_buffer<T> or __aligned_membuf<T>) behind empty bases, for
// test_dwarf_util's member paths: built -O2 -g, never run.
#include <list>
#include <map>
#include <unordered_map>

long sum_nodes(const std::unordered_map<long, long> &h, const std::map<long, long> &m,
	       const std::list<long> &l)
{
	long s = 0;

	for (const auto &kv : h)
		s += kv.first + kv.second;
	for (const auto &kv : m)
		s += kv.first + kv.second;
	for (long v : l)
		s += v;
	return s;
}

int main()
{
	std::unordered_map<long, long> h{{1, 2}};
	std::map<long, long> m{{3, 4}};
	std::list<long> l{5};

	return (int)sum_nodes(h, m, l);
}
