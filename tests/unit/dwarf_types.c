/* Types and functions whose DWARF test_dwarf_util reads (issue 17): built
 * with -g at -O0 and at -O2, never run. The offsets the test expects are
 * in the comments (x86-64). */
#include <stdlib.h>
struct node {
	int key;	   /* 0; 4..8 padding */
	struct node *next; /* 8 */
	long v;		   /* 16 */
	char tag;	   /* 24; 25..32 padding */
};

struct cell {
	double v; /* 0 */
	int n;	  /* 8; 12..16 padding */
};

struct row {
	struct cell cells[4]; /* 0..64 */
	long sum;	      /* 64 */
};

struct grid {
	int nrows;	    /* 0; 4..8 padding */
	struct row rows[3]; /* 8..224, 72 each */
};

union value {
	char c;
	short s;
	int i;
	long l;
	double d;
};

struct tagged {
	int kind;      /* 0 */
	union value u; /* 8 */
};

typedef struct {
	int x, y;
} point;

struct inner {
	int a, b;
};

struct outer {
	char c;		   /* 0 */
	struct inner in;   /* 4: a 4, b 8 */
	struct inner *pin; /* 16 */
};

/* the struct hack, old style and C99's: blocks run on past the struct */
struct chunk1 {
	long size;    /* 0 */
	int n;	      /* 8 */
	char data[1]; /* 12; 13..16 padding */
};

struct chunkf {
	long size;    /* 0 */
	long items[]; /* 8 */
};

/* bitfields: a byte of them is named by the first one in it */
struct flags {
	int id;		 /* 0 */
	unsigned a : 1;	 /* byte 4, bit 0 */
	unsigned b : 3;	 /* byte 4, bits 1-3 */
	unsigned c : 12; /* byte 4 bit 4 to byte 5 bit 7 */
	unsigned char d; /* 6; 7 padding */
};

typedef const struct node *node_cp;

struct node nodes[8];
struct grid the_grid;
struct tagged tagged_one;
point pts[5];
struct outer outer_one;
double samples[16];
char *name_ptr;
node_cp cnode;
void *opaque;
const volatile void *copaque;
int matrix[3][5];
volatile long counter;
struct chunk1 chunk1_one;
struct chunkf *chunkf_ptr;
struct flags flags_one;
/* an opaque handle: declared, defined nowhere in the program */
struct hidden;
struct hidden *hidden_ptr;

__attribute__((noinline)) long get_next_v(struct node *n)
{
	return n->next->v;
}

__attribute__((noinline)) double grid_cell(struct grid *g, int r, int c)
{
	return g->rows[r].cells[c].v;
}

__attribute__((noinline)) long sum_keys(struct node *head)
{
	long s = 0;

	for (struct node *p = head; p; p = p->next)
		s += p->key;
	return s;
}

/* `*(p++)` on bytes (SQLite's cell walk): gcc -O2 reads -1(%reg) after the
 * step */
__attribute__((noinline)) const unsigned char *skip_varint(const unsigned char *p)
{
	while (0x80 <= *(p++))
		;
	return p;
}

/* A join where one way in says nothing of the register (r11: no variable,
 * as a compiler's spilled temporary) and the other holds n: the access
 * after it is n's. Never run: only its DWARF and code are read. */
__attribute__((noinline)) long join_unknown(struct node *n, long k)
{
	long v;

	__asm__ volatile("	movq %[n], %%rax\n"
			 "	testq %[k], %[k]\n"
			 "	jz 1f\n"
			 "	movq %%r11, %%rax\n"
			 "1:	movq 16(%%rax), %[v]\n"
			 : [v] "=r"(v)
			 : [n] "r"(n), [k] "r"(k)
			 : "rax", "r11", "cc");
	return v;
}

/* Blocks typed by the code that asked for them (annotate/alloc_type.c):
 * malloc's result held as the header and as the whole record, the record
 * the larger; */
struct hdr {
	long kind;
};

struct rec {
	struct hdr h;
	long body[4];
};

__attribute__((noinline)) struct rec *rec_make(void)
{
	struct hdr *h = malloc(sizeof(struct rec));
	struct rec *r = (struct rec *)h;

	if (!h)
		return NULL;
	h->kind = 1;
	r->body[0] = 0;
	return r;
}

/* held by a void * only, and stepped into: nothing says */
__attribute__((noinline)) long *raw_make(void)
{
	void *p = malloc(64);

	return p ? (long *)((char *)p + 8) : NULL;
}

/* handed to the function that fills it in: its parameter's type */
__attribute__((noinline)) void node_init(struct node *n)
{
	n->key = 0;
	n->next = NULL;
}

__attribute__((noinline)) void *node_make(void)
{
	void *p = malloc(sizeof(struct node));

	if (p)
		node_init(p);
	return p;
}

struct pair;
long spill_slots(struct pair *p, int k, long x);

int main(void)
{
	nodes[0].next = &nodes[1];
	name_ptr = "x";
	cnode = &nodes[2];
	opaque = &nodes[3];
	copaque = &nodes[4];
	hidden_ptr = (struct hidden *)&nodes[5];
	outer_one.pin = &outer_one.in;
	counter = get_next_v(&nodes[0]) + (long)grid_cell(&the_grid, 1, 2) + sum_keys(&nodes[0]) +
		  tagged_one.u.i + pts[1].y + (long)samples[3] + matrix[1][2] +
		  (long)skip_varint((const unsigned char *)name_ptr) + join_unknown(&nodes[0], 0) +
		  flags_one.c + rec_make()->h.kind + *raw_make() + (long)node_make() +
		  spill_slots(NULL, 1, 2);
	return (int)counter;
}
