-- A table, string and closure heavy Lua program for the corpus tests
-- (tests/e2e/test_corpus.c) and bench/heap.sh: objects made of tables,
-- interned names, closures over them, looked up and walked. Runs for the
-- CPU seconds given (os.clock is CPU time), 1 by default, or exactly ROUNDS
-- rounds when given (fixed work, for timing): tables.lua [SECONDS [ROUNDS]]
local limit = tonumber(arg and arg[1]) or 1.0
local fixed = tonumber(arg and arg[2])
local t0 = os.clock()
local keep, rounds, sum = {}, 0, 0

while (fixed and rounds < fixed) or (not fixed and os.clock() - t0 < limit) do
	local objs, index = {}, {}
	for i = 1, 2000 do
		local o = {id = i, name = "obj" .. i .. ":" .. rounds, vals = {i, i * 2, i * 3}}
		o.get = function() return o.id + i end
		objs[i] = o
		index[o.name] = o
	end
	for _ = 1, 4 do
		for i = 1, #objs do
			local o = index[objs[i].name]
			sum = sum + o.vals[2] + #o.name + o.get()
		end
	end
	keep[rounds % 8 + 1] = objs
	rounds = rounds + 1
end
print(rounds, sum)
