/* The command-line front end: one function per subcommand. */
#ifndef DP_CLI_H
#define DP_CLI_H

#include <stdbool.h>
#include <stdint.h>

int cmd_record(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_stat(int argc, char **argv);

/* Prints "dataprof: <msg>" to stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The whole command line, for the profile header. */
extern const char *cli_cmdline;
/* True when argv[i] is --help or -h. */
bool cli_wants_help(int argc, char **argv);
/* --interval MS: at least 1 ms; prints the error and returns -1 otherwise. */
int cli_parse_interval(const char *arg, uint64_t *ns);

#endif
