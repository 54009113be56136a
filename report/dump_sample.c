/* dataprof dump -d and -a: one line per sample, decoded or annotated. */
#include "dump.h"
#include "../annotate/annotate.h"
#include "../decode/decode.h"

#include <inttypes.h>

void dp_dump_decoded(FILE *f, const dp_profile *p, const dp_record *r, dp_decoder *dec)
{
	const dp_sample *s = r->sample;
	dp_decoded x;
	char text[128], bytes[64];

	dp_decode_sample(dec, s, &x);
	fprintf(f, "0x%08" PRIx64, r->offset);
	dp_dump_time(f, r);
	fprintf(f, " %s %u/%u ip 0x%" PRIx64, dp_dump_event_name(p, s->event), s->pid, s->tid,
		s->ip);
	if (x.function)
		fprintf(f, " %s+0x%" PRIx64, x.function, x.ip_vaddr - x.function_vaddr);
	else if (x.map)
		fprintf(f, " %s", x.map->name);
	if (x.insn >= 0) {
		dp_decoded_insn_text(dec, &x, text, sizeof(text));
		dp_decoded_insn_bytes(&x, bytes, sizeof(bytes));
		fprintf(f, " | insn 0x%" PRIx64 " [%s] %s", x.insn_ip, bytes, text);
		if (x.distance)
			fprintf(f, " (-%u)", x.distance);
	}
	fprintf(f, " |");
	if (x.has_computed)
		fprintf(f, " addr 0x%" PRIx64, x.computed_addr);
	if (x.has_hw)
		fprintf(f, " hw 0x%" PRIx64 "%s", x.hw_addr,
			x.has_computed ? (x.hw_agrees ? " (agrees)" : " (DIFFERS)") : "");
	fprintf(f, " %s", dp_verdict_name(x.verdict));
	if (x.reason)
		fprintf(f, " (%s)", dp_reason_name(x.reason));
	fputc('\n', f);
}

/* " | KIND OBJECT+OFFSET (why) | TYPE MEMBER (why)" */
static void print_object(FILE *f, const dp_strtab *st, const dp_decoded *x, const dp_annotation *a)
{
	fprintf(f, " | %s", dp_object_kind_name(a->obj_kind));
	if (a->object)
		fprintf(f, " %s+0x%" PRIx64, dp_strtab_get(st, a->object),
			x->data_addr && a->obj_addr ? x->data_addr - a->obj_addr : 0);
	if (a->obj_reason)
		fprintf(f, " (%s)", dp_annot_reason_name(a->obj_reason));
	fprintf(f, " | %s", a->type ? dp_strtab_get(st, a->type) : "-");
	if (a->member)
		fprintf(f, " %s", dp_strtab_get(st, a->member));
	if (a->type_reason)
		fprintf(f, " (%s)", dp_annot_reason_name(a->type_reason));
}

void dp_dump_annotated(FILE *f, const dp_profile *p, const dp_record *r, dp_decoder *dec,
		       dp_annotator *ann)
{
	const dp_sample *s = r->sample;
	const dp_strtab *st = dp_annotator_strings(ann);
	dp_decoded x;
	dp_annotation a;

	dp_decode_sample(dec, s, &x);
	dp_annotate(ann, s, &x, &a);
	fprintf(f, "0x%08" PRIx64, r->offset);
	dp_dump_time(f, r);
	fprintf(f, " %s %u/%u %s", dp_dump_event_name(p, s->event), s->pid, s->tid,
		a.function ? dp_strtab_get(st, a.function) : "?");
	if (a.inline_chain)
		fprintf(f, " [%s]", dp_strtab_get(st, a.inline_chain));
	if (a.line)
		fprintf(f, " %s", dp_strtab_get(st, a.line));
	fprintf(f, " | %s", dp_verdict_name(x.verdict));
	if (x.data_addr)
		fprintf(f, " 0x%" PRIx64, x.data_addr);
	print_object(f, st, &x, &a);
	fputc('\n', f);
}
