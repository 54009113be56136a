/* The preload object holds only Valgrind's malloc replacement (linked whole). */
