/* dataprof accuracy: decode's and annotate's precision and recall on a
 * profile recorded with -e sim:... --sim-skid N, against the truth the
 * simulator wrote beside each sample. */
#include "cli.h"
#include "../annotate/sim_accuracy.h"

#include <stdio.h>
#include <unistd.h>
#include <string.h>

static void usage(FILE *f)
{
	fprintf(f, "usage: dataprof accuracy [-v] [-m NAME] [-f GLOB] [-i] FILE\n\n"
		   "Decodes and annotates every sample of a simulated profile (record -e sim:...\n"
		   "--sim-skid N) and compares the result with the simulator's truth: the\n"
		   "instruction that caused each sample and the address it touched. Prints the\n"
		   "precision and recall of verified addresses, causing instructions, data\n"
		   "objects and member paths. -v lists every wrong verified address; -m NAME\n"
		   "keeps the samples whose IP is in a mapping whose name contains NAME; -f GLOB\n"
		   "those in functions matching GLOB (as annotate names them: 'luaH_get*').\n");
}

static void print_wrong(void *ctx, const dp_sample *s, const dp_decoded *x, uint64_t true_ip,
			uint64_t true_addr, uint32_t size)
{
	(void)ctx;
	printf("wrong: ip %#llx, %s instruction %#llx (true %#llx) in %s: address %#llx, true "
	       "%#llx/%u\n",
	       (unsigned long long)s->ip, dp_verdict_name(x->verdict),
	       (unsigned long long)x->insn_ip, (unsigned long long)true_ip,
	       x->function ? x->function : "?", (unsigned long long)x->data_addr,
	       (unsigned long long)true_addr, size);
}

static void line(const char *what, uint64_t right, uint64_t claimed, uint64_t all)
{
	printf("%-22s precision %6.2f%% (%llu/%llu)  recall %6.2f%% (%llu/%llu)\n", what,
	       claimed ? 100.0 * (double)right / (double)claimed : 100.0, (unsigned long long)right,
	       (unsigned long long)claimed, all ? 100.0 * (double)right / (double)all : 0.0,
	       (unsigned long long)right, (unsigned long long)all);
}

int cmd_accuracy(int argc, char **argv)
{
	const char *input = NULL;
	dp_sim_accuracy a;
	dp_error err = {{0}};

	int c;

	optind = 1;
	bool verbose = false;

	const char *only = NULL, *only_func = NULL;

	while ((c = getopt(argc, argv, "i:m:f:vh")) != -1) {
		switch (c) {
		case 'm':
			only = optarg;
			break;
		case 'f':
			only_func = optarg;
			break;
		case 'v':
			verbose = true;
			break;
		case 'i':
			input = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (!input && cli_one_profile(argc, argv, "accuracy", &input) < 0)
		return 2;
	if (!input) {
		usage(stderr);
		return 2;
	}
	memset(&a, 0, sizeof(a));
	a.only_map = only;
	a.only_func = only_func;
	if (verbose)
		a.wrong_fn = print_wrong;
	if (dp_sim_accuracy_run(input, &a, &err) < 0) {
		cli_error("%s", err.msg);
		return 1;
	}
	printf("# %s: %llu samples with the simulator's truth, skid %llu instruction%s\n", input,
	       (unsigned long long)a.samples, (unsigned long long)a.skid, a.skid == 1 ? "" : "s");
	line("verified address", a.verified_right, a.verified, a.samples);
	line("causing instruction", a.insn_right, a.insn, a.samples);
	line("data object", a.object_right, a.object, a.samples);
	line("member path", a.member_right, a.member, a.samples);
	return 0;
}
