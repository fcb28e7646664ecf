/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The call sites of the pinned kernels, as tests/callsite-windows wrote
 * them (tests/unit/data/CALLSITE_DATA), read and classified by
 * bpf/callsite.h: the half of test_callsite.c (x86) and
 * test_callsite_arm64.c that is the same on both.  Include it after
 * callsite.h, with CALLSITE_DATA naming the data file and
 * CALLSITE_KERNELS the number of kernels it must hold, and define
 * image_text(), which reads an image of the architecture.
 */
#ifndef PERMSCOPE_TESTS_CALLSITE_DATA_H
#define PERMSCOPE_TESTS_CALLSITE_DATA_H

static unsigned long cases; /* every classification asserted, printed at the end */

static const char *const site_names[] = {
	[SITE_IP_WALK] = "ip_walk", [SITE_IP_OTHER] = "ip_other",
	[SITE_DIRECT_WALK] = "direct_walk", [SITE_DIRECT_OTHER] = "direct_other",
	[SITE_FOREIGN] = "foreign", [SITE_ORIG] = "orig",
};

static int site_named(const char *name)
{
	for (size_t i = 0; i < sizeof(site_names) / sizeof(site_names[0]); i++)
		if (site_names[i] && !strcmp(site_names[i], name))
			return (int)i;
	fail_msg("unknown class '%s' in the data file", name);
	return -1;
}

static bool hex_window(const char *hex, __u8 w[CALLSITE_WINDOW])
{
	if (strlen(hex) != 2 * CALLSITE_WINDOW)
		return false;
	for (int i = 0; i < CALLSITE_WINDOW; i++)
		if (sscanf(hex + 2 * i, "%2hhx", &w[i]) != 1)
			return false;
	return true;
}

/* The data file, read once: its kernels and their call sites. */
#define MAX_KERNELS 8
#define MAX_SITES 1024

static struct kernel {
	char name[32];
	struct callsite_syms k;
	__u64 image; /* arm64: _text, where the image's first byte lies; 0 on x86 */
} kernels[MAX_KERNELS];
static struct site {
	int kernel;
	__u64 ret;
	__u8 w[CALLSITE_WINDOW];
	int want;
	char caller[256], op[8];
} sites[MAX_SITES];
static int nkernels, nsites;

static void read_data(void)
{
	char path[512], line[512], word[64], hex[64], want[32];
	unsigned long long v[9], ret;
	FILE *f;

	if (nkernels)
		return;
	snprintf(path, sizeof(path), "%s/%s", testdata_dir(), CALLSITE_DATA);
	f = fopen(path, "re");
	if (!f)
		fail_msg("%s: %s (tests/callsite-windows makes it)", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		struct site *s = &sites[nsites];

		if (line[0] == '#' || sscanf(line, "%63s", word) != 1)
			continue;
		if (!strcmp(word, "kernel")) {
			assert_true(nkernels < MAX_KERNELS);
			assert_int_equal(sscanf(line, "kernel %31s", kernels[nkernels++].name), 1);
		} else if (!strcmp(word, "syms")) {
			assert_true(nkernels > 0);
			assert_int_equal(sscanf(line, "syms %llx %llx %llx %llx %llx %llx %llx %llx %llx",
						&v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8]), 9);
			kernels[nkernels - 1].k = (struct callsite_syms){
				.ip_lo = v[0], .ip_len = v[1], .sip_lo = v[2], .ip_pad = v[3],
				.sip_pad = v[4], .walk_lo = v[5], .walk_len = v[6],
				.rethook_tramp = v[7], .fgraph_tramp = v[8],
				.text_top = callsite_text_top(v[0]),
			};
		} else if (!strcmp(word, "image")) {
			assert_true(nkernels > 0);
			assert_int_equal(sscanf(line, "image %llx", &v[0]), 1);
			kernels[nkernels - 1].image = v[0];
		} else {
			assert_string_equal(word, "site");
			assert_true(nkernels > 0 && kernels[nkernels - 1].k.ip_lo && nsites < MAX_SITES);
			assert_int_equal(sscanf(line, "site %llx %63s %31s %255s %7s", &ret, hex, want,
						s->caller, s->op), 5);
			assert_true(hex_window(hex, s->w));
			s->kernel = nkernels - 1;
			s->ret = ret;
			s->want = site_named(want);
			nsites++;
		}
	}
	fclose(f);
}

static void every_call_site_of_the_pinned_kernels_is_what_its_symbols_say(void **state)
{
	unsigned n[MAX_KERNELS] = { 0 }, walker_ip[MAX_KERNELS] = { 0 }, walker_sip[MAX_KERNELS] = { 0 };
	int bad = 0;

	(void)state;
	read_data();
	for (int i = 0; i < nsites; i++) {
		const struct site *s = &sites[i];
		enum callsite_reason why;
		enum lookup_site got = callsite_classify(&kernels[s->kernel].k, s->ret, s->w, &why);

		/* a jmp is never taken for a call, wherever it is */
		if (!strcmp(s->op, "jmp")) {
			__u64 tgt;

			assert_false(callsite_call_target(s->w, s->ret, &tgt));
		}
		if ((int)got != s->want) {
			print_error("%s: site %llx in %s: classified %s, its symbols say %s\n",
				    kernels[s->kernel].name, (unsigned long long)s->ret, s->caller,
				    got < SITE_ORIG + 1 && site_names[got] ? site_names[got] : "unread/hooked",
				    site_names[s->want]);
			bad++;
		}
		n[s->kernel]++;
		walker_ip[s->kernel] += s->want == SITE_IP_WALK && strncmp(s->caller, "inode_permission+", 17);
		walker_sip[s->kernel] += s->want == SITE_DIRECT_WALK;
		cases++;
	}
	assert_int_equal(bad, 0);
	/* the pinned kernels, each with walker calls of IP; sid's walker calls SIP too */
	assert_int_equal(nkernels, CALLSITE_KERNELS);
	for (int i = 0; i < nkernels; i++) {
		print_message("%s: %u call sites, %u walker calls of IP, %u of SIP\n", kernels[i].name,
			      n[i], walker_ip[i], walker_sip[i]);
		assert_true(n[i] > 10);
		assert_true(walker_ip[i] > 0);
		assert_int_equal(walker_sip[i] > 0, !strncmp(kernels[i].name, "sid", 3));
	}
}

static void expect(const struct callsite_syms *k, __u64 ret, const __u8 *w, enum lookup_site site,
		   enum callsite_reason reason)
{
	enum callsite_reason why = (enum callsite_reason)-1;

	assert_int_equal(callsite_classify(k, ret, w, &why), site);
	assert_int_equal(why, reason);
	cases++;
}

/* Each test's own: kernel k's text in the image at PATH, its first byte's address, malloc'ed. */
static void image_text(int k, const char *path, __u64 *lo, __u8 **text, size_t *size);

/*
 * The windows are the images' own bytes: each pinned kernel fetched here
 * (build/vm/kernels/NAME, or under $PERMSCOPE_VM_CACHE) is read again
 * (image_text()) and every site's window found in its text.
 */
static void the_windows_are_the_images_own_bytes(void **state)
{
	const char *cache = getenv("PERMSCOPE_VM_CACHE");
	int tried = 0;

	(void)state;
	read_data();
	for (int k = 0; k < nkernels; k++) {
		char path[PATH_MAX];
		__u8 *text = NULL;
		unsigned checked = 0;
		size_t size = 0;
		__u64 lo = 0;

		snprintf(path, sizeof(path), "%s/kernels/%s/vmlinuz", cache && *cache ? cache : "build/vm",
			 kernels[k].name);
		if (access(path, R_OK)) {
			print_message("no %s: not fetched here (tools/vm/fetch-kernel)\n", path);
			continue;
		}
		image_text(k, path, &lo, &text, &size);
		for (int i = 0; i < nsites; i++) {
			if (sites[i].kernel != k)
				continue;
			assert_true(sites[i].ret - lo >= CALLSITE_WINDOW && sites[i].ret - lo <= size);
			assert_memory_equal(text + (sites[i].ret - lo) - CALLSITE_WINDOW, sites[i].w,
					    CALLSITE_WINDOW);
			checked++;
		}
		print_message("%s: %u windows found in the image\n", kernels[k].name, checked);
		assert_true(checked > 0);
		free(text);
		tried++;
	}
	if (!tried) {
		print_message("skipped: no pinned kernel image here (tools/vm/fetch-kernel)\n");
		skip();
	}
}

static int print_cases(void **state)
{
	(void)state;
	print_message("callsite: %lu cases classified and asserted\n", cases);
	return 0;
}

#endif
