#!/usr/bin/env python3
"""Writes a C program with many compilation units and functions, for the
annotate benchmark: gen_wide.py DIR UNITS FUNCS_PER_UNIT

Each unit has a global array of structs and FUNCS_PER_UNIT functions that
walk it, each touching a different member. main(argv[1]=touched units,
argv[2]=rounds) calls the functions of the first `touched` units only, so
one binary serves both questions: cost per distinct function, and DWARF
loading that grows with the units touched, not with the binary."""
import os
import sys

out, units, per = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
os.makedirs(out, exist_ok=True)
for u in range(units):
    with open(os.path.join(out, f"unit{u}.c"), "w") as f:
        f.write(f"struct rec{u} {{ long key; int a, b, c, d; double w; struct rec{u} *next; }};\n")
        f.write(f"struct rec{u} table{u}[4096];\n")
        members = ["key", "a", "b", "c", "d", "w"]
        for i in range(per):
            m = members[i % len(members)]
            f.write(f"long u{u}_f{i}(long n)\n{{\n\tlong s = 0;\n"
                    f"\tfor (long k = 0; k < n; k++) {{\n"
                    f"\t\tstruct rec{u} *r = &table{u}[(k * {2 * i + 1}) & 4095];\n"
                    f"\t\ts += (long)r->{m};\n\t\tr->{m} += 1;\n\t}}\n\treturn s;\n}}\n")
        f.write(f"long (*const unit{u}_funcs[])(long) = {{ "
                + ", ".join(f"u{u}_f{i}" for i in range(per)) + " };\n")
with open(os.path.join(out, "main.c"), "w") as f:
    f.write("#include <stdio.h>\n#include <stdlib.h>\n")
    for u in range(units):
        f.write(f"extern long (*const unit{u}_funcs[])(long);\n")
    f.write("static long (*const *const units[])(long) = { "
            + ", ".join(f"unit{u}_funcs" for u in range(units)) + " };\n")
    f.write(f"int main(int argc, char **argv)\n{{\n"
            f"\tint touched = argc > 1 ? atoi(argv[1]) : {units};\n"
            f"\tlong rounds = argc > 2 ? atol(argv[2]) : 1, s = 0;\n"
            f"\tif (touched > {units}) touched = {units};\n"
            f"\tfor (long r = 0; r < rounds; r++)\n"
            f"\t\tfor (int u = 0; u < touched; u++)\n"
            f"\t\t\tfor (int i = 0; i < {per}; i++)\n"
            f"\t\t\t\ts += units[u][i](64);\n"
            f"\tprintf(\"%ld\\n\", s);\n\treturn 0;\n}}\n")
