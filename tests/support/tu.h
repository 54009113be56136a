/* Test support: run commands, read the truth fixtures print, look up
 * symbols of fixture binaries. Used by the end-to-end tests. */
#ifndef DP_TU_H
#define DP_TU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Paths set by CMake. */
#ifndef DATAPROF_BIN
#error "DATAPROF_BIN must be defined"
#endif
#ifndef FIXTURE_DIR
#error "FIXTURE_DIR must be defined"
#endif

typedef struct tu_result {
	int status;      /* exit code, or 128+signal */
	char *out, *err; /* captured stdout and stderr, NUL-terminated */
} tu_result;

/* Runs argv (NULL-terminated) to completion, capturing its output. */
int tu_run(char *const argv[], tu_result *res);
/* Like tu_run with a shell command line (/bin/sh -c). */
int tu_sh(tu_result *res, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void tu_result_free(tu_result *res);

/* Fails the test unless text (a command's output) holds each of the
 * strings that follow, a list ending with NULL; the message names the
 * first missing one and shows text. */
void tu_assert_contains(const char *text, ...) __attribute__((sentinel));

/* A fresh directory under $TMPDIR, removed by tu_cleanup(). */
const char *tu_tmpdir(void);
char *tu_path(const char *name); /* tu_tmpdir()/name, malloc'd */

/* Until process pid has burned ticks more clock ticks (1/100 s) of CPU
 * time, or is gone, or 60 s passed: tests that need "enough samples" of a
 * running target wait for its CPU time, not for the wall clock, so that a
 * loaded machine gives as many. Returns the ticks seen. */
long tu_wait_cpu(int pid, long ticks);
/* Until the file out (a fixture's stdout) holds its TRUTH pid line: the
 * pid. */
int tu_wait_truth_pid(const char *out);
/* The same as a shell script, "sh SCRIPT PID TICKS" (in tu_tmpdir()). */
const char *tu_wait_cpu_script(void);
void tu_cleanup(void);

/* Truth lines printed by fixtures: "TRUTH kind key=value key="a value" ...".
 * Values with spaces are double-quoted. See tests/fixtures/README.md. */
typedef struct tu_truth {
	char kind[32];
	size_t n;
	char key[16][32];
	char val[16][128];
} tu_truth;
/* Parses every TRUTH line of text; returns how many (array malloc'd). */
size_t tu_truth_parse(const char *text, tu_truth **out);
const char *tu_truth_get(const tu_truth *t, const char *key);
uint64_t tu_truth_u64(const tu_truth *t, const char *key);

/* Address and size of a symbol in an ELF file (libelf), 0 if absent. */
uint64_t tu_elf_symbol(const char *path, const char *name, uint64_t *size);

/* A test input committed under tests/data (DATA_DIR): its path, malloc'd. */
char *tu_data_path(const char *rel);
/* Reads the whole test input rel (tests/data/rel) into a malloc'd buffer
 * and its length; a missing or unreadable file fails the test with a
 * message naming it, never a crash. */
char *tu_data_read(const char *rel, size_t *len);
/* The whole file at path, malloc'd, and its length; NULL if it cannot be
 * read (errno says why). */
char *tu_file_read(const char *path, size_t *len);

/* fixture path: FIXTURE_DIR/name */
char *tu_fixture(const char *name);

/* Precision/recall line every accuracy test prints, in one format. */
void tu_report_accuracy(const char *what, size_t true_pos, size_t claimed, size_t relevant);

#endif
