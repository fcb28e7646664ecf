// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The HTML pages as a browser shows them: headless Chromium renders
 * compare's page of two real profiles (lookup, with proc's 0%; access,
 * with latency) and report's page of one to PNGs, kept in screenshots/
 * beside this program (their paths printed); the test decodes each PNG
 * (zlib, no image library) and checks it is not blank and has bars in the
 * sides' colours, and a script added to a copy of the page reads what it
 * shows: every filesystem a chart label, the 0% label, axis ticks with
 * their units, the legend, the table's ratio and p columns, and no SVG
 * text past its chart's edge.  Skipped, saying why, where Debian's
 * chromium is not installed.  Hostile names and values are checked
 * without a browser: escaped, and no NaN drawn.
 */
#include <ctype.h>
#include <linux/types.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "testutil.h"

#include "compare.h"
#include "hist.h"
#include "html.h"
#include "render.h"
#include "schema.h"

static const char *chromium;
static char html[700], png[700];

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3];
}

static int paeth(int a, int b, int c)
{
	int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);

	return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/* Decode an 8-bit RGB or RGBA PNG into RGB pixels; NULL when it is not one. */
static unsigned char *decode_png(const unsigned char *d, size_t len, uint32_t *w, uint32_t *h)
{
	unsigned char *idat = NULL, *raw, *rgb;
	size_t nidat = 0, pos = 8;
	int bpp = 0;

	if (len < 8 || memcmp(d, "\x89PNG\r\n\x1a\n", 8))
		return NULL;
	while (pos + 12 <= len) {
		uint32_t n = be32(d + pos);
		const unsigned char *type = d + pos + 4, *body = d + pos + 8;

		if (pos + 12 + n > len)
			break;
		if (!memcmp(type, "IHDR", 4)) {
			*w = be32(body);
			*h = be32(body + 4);
			if (body[8] != 8 || (body[9] != 2 && body[9] != 6) || body[12])
				return NULL; /* only 8-bit RGB(A), not interlaced */
			bpp = body[9] == 6 ? 4 : 3;
		} else if (!memcmp(type, "IDAT", 4)) {
			idat = realloc(idat, nidat + n);
			memcpy(idat + nidat, body, n);
			nidat += n;
		}
		pos += 12 + n;
	}
	if (!bpp || !idat)
		return NULL;
	uLongf rawlen = (uLongf)*h * (1 + *w * bpp);
	raw = malloc(rawlen);
	rgb = malloc((size_t)*w * *h * 3);
	if (!raw || !rgb || uncompress(raw, &rawlen, idat, nidat) != Z_OK) {
		free(idat), free(raw), free(rgb);
		return NULL;
	}
	for (uint32_t y = 0; y < *h; y++) {
		unsigned char *line = raw + y * (1 + *w * bpp), *cur = line + 1;
		unsigned char *prev = y ? raw + (y - 1) * (1 + *w * bpp) + 1 : NULL;

		for (uint32_t i = 0; i < *w * bpp; i++) {
			int a = i >= (uint32_t)bpp ? cur[i - bpp] : 0, b = prev ? prev[i] : 0;
			int c = prev && i >= (uint32_t)bpp ? prev[i - bpp] : 0;

			switch (line[0]) {
			case 1: cur[i] += a; break;
			case 2: cur[i] += b; break;
			case 3: cur[i] += (a + b) / 2; break;
			case 4: cur[i] += paeth(a, b, c); break;
			}
		}
		for (uint32_t x = 0; x < *w; x++)
			memcpy(rgb + ((size_t)y * *w + x) * 3, cur + x * bpp, 3);
	}
	free(idat);
	free(raw);
	return rgb;
}

/* Pixels within a small distance of the colour (anti-aliasing, opacity). */
static size_t count_colour(const unsigned char *rgb, size_t n, int r, int g, int b)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		const unsigned char *p = rgb + 3 * i;

		k += abs(p[0] - r) + abs(p[1] - g) + abs(p[2] - b) < 24;
	}
	return k;
}

/* A chart colour drawn solid or at the opacities the page uses (0.6, 0.5) over white. */
static size_t bar_pixels(const unsigned char *rgb, size_t n, int r, int g, int b)
{
	static const double alphas[] = { 1.0, 0.6, 0.5 };
	size_t k = 0;

	for (size_t i = 0; i < 3; i++) {
		double a = alphas[i];

		k += count_colour(rgb, n, (int)(a * r + (1 - a) * 255), (int)(a * g + (1 - a) * 255),
				  (int)(a * b + (1 - a) * 255));
	}
	return k;
}

/* Where the screenshots go: screenshots/ beside the test program (build/tests/screenshots). */
static char shots[512];

/*
 * Into html: compare --format html of tests/unit/data/compare-WHAT-{base,new}.json
 * when `compare` names WHAT, else report --format html of tests/unit/data/REPORT.json.
 */
static void render_page(const char *compare, const char *report)
{
	char path[2][600], err[512];
	struct profile p[2];
	struct compare c = {0};
	int n = compare ? 2 : 1;
	FILE *f;

	for (int i = 0; i < n; i++) {
		if (compare)
			snprintf(path[i], sizeof(path[i]), "%s/compare-%s-%s.json", testdata_dir(),
				 compare, i ? "new" : "base");
		else
			snprintf(path[i], sizeof(path[i]), "%s/%s.json", testdata_dir(), report);
		if (profile_read(path[i], &p[i], err, sizeof(err)))
			fail_msg("%s: %s", path[i], err);
	}
	snprintf(html, sizeof(html), "%s/%s-%s.html", tmpdir, compare ? "compare" : "report",
		 compare ? compare : report);
	f = fopen(html, "w");
	assert_non_null(f);
	if (compare) {
		c = (struct compare){ .base = &p[0], .new = &p[1], .base_name = "stock (bookworm)",
				      .new_name = "patched (sid)" };
		assert_int_equal(compare_build(&c), 0);
		compare_html(f, &c);
		compare_free(&c);
	} else {
		render_html(f, &p[0]);
	}
	fclose(f);
	for (int i = 0; i < n; i++)
		profile_free(&p[i]);
}

/*
 * What the page shows, read in the page by a script added to a copy of it
 * (the page itself has none): one line a fact, in a <pre id="probe">.
 *   TEXT<tab>s    the text of an SVG <text> (not its <title>)
 *   OVERFLOW<tab>s  an SVG text whose box passes its SVG's edge
 *   TH<tab>s      a table heading
 *   LEGEND<tab>s  a legend line
 */
static const char probe_js[] =
	"<script>(function(){var out=[];\n"
	"function own(e){var s='';e.childNodes.forEach(function(n){if(n.nodeType==3)s+=n.data;});"
	"return s;}\n"
	"document.querySelectorAll('svg.chart').forEach(function(svg){"
	"var box=svg.getBoundingClientRect();"
	"svg.querySelectorAll('text').forEach(function(t){var b=t.getBoundingClientRect();"
	"out.push('TEXT\\t'+own(t));"
	"if(b.left<box.left-0.5||b.right>box.right+0.5||b.top<box.top-0.5||b.bottom>box.bottom+0.5)"
	"out.push('OVERFLOW\\t'+own(t));});});\n"
	"document.querySelectorAll('th').forEach(function(t){out.push('TH\\t'+t.textContent);});\n"
	"document.querySelectorAll('.legend').forEach(function(t){out.push('LEGEND\\t'+t.textContent);});\n"
	"var pre=document.createElement('pre');pre.id='probe';pre.textContent=out.join('\\n')+'\\n';"
	"document.body.appendChild(pre);})();</script>\n";

static char *probe_page(void)
{
	char probed[800], url[820];
	char *argv[] = { (char *)chromium, "--headless", "--no-sandbox", "--disable-gpu",
			 "--window-size=1100,1400", "--dump-dom", url, NULL };
	char *page = slurp(html, NULL), *end, *from, *to;
	FILE *f;

	assert_non_null(page);
	end = strstr(page, "</body>");
	assert_non_null(end);
	snprintf(probed, sizeof(probed), "%s.probe.html", html);
	f = fopen(probed, "w");
	assert_non_null(f);
	fwrite(page, 1, end - page, f);
	fputs(probe_js, f);
	fputs(end, f);
	fclose(f);
	free(page);
	snprintf(url, sizeof(url), "file://%s", probed);
	assert_int_equal(run_capture(argv), 0);
	from = strstr(out_text, "<pre id=\"probe\">");
	assert_non_null(from);
	from += strlen("<pre id=\"probe\">");
	to = strstr(from, "</pre>");
	assert_non_null(to);
	return strndup(from, to - from);
}

static void skip_without_chromium(void)
{
	if (!chromium) {
		print_message("skipped: no chromium (apt-get install chromium)\n");
		skip();
	}
}

/*
 * Screenshot the page into shots/NAME.png (its path printed), check it is
 * not blank and has bars in `colours` colours (1: base, 2: base and new);
 * the rendered DOM holds `headings`.  Returns what the page shows (probe_page()).
 */
static char *check_page(const char *name, int colours, const char *const *headings)
{
	char url[720], shot[720], size[] = "--window-size=1100,1600";
	char *shot_argv[] = { (char *)chromium, "--headless", "--no-sandbox", "--disable-gpu",
			      "--hide-scrollbars", shot, size, url, NULL };
	unsigned char *data, *rgb;
	size_t len, n;
	uint32_t w = 0, h = 0;
	char *probe;

	snprintf(url, sizeof(url), "file://%s", html);
	snprintf(png, sizeof(png), "%s/%s.png", shots, name);
	snprintf(shot, sizeof(shot), "--screenshot=%s", png);
	assert_int_equal(run_capture(shot_argv), 0);
	probe = probe_page();
	/* out_text: the DOM as rendered */
	for (const char *const *hd = headings; *hd; hd++)
		assert_contains(out_text, *hd);
	assert_not_contains(probe, "OVERFLOW\t"); /* every label inside its chart */

	data = (unsigned char *)slurp(png, &len);
	assert_non_null(data);
	rgb = decode_png(data, len, &w, &h);
	free(data);
	assert_non_null(rgb);
	n = (size_t)w * h;
	print_message("  screenshot %s: %ux%u, base-colour bar pixels %zu, new-colour %zu, "
		      "white %zu\n", png, w, h, bar_pixels(rgb, n, 0x4e, 0x79, 0xa7),
		      bar_pixels(rgb, n, 0xf2, 0x8e, 0x2b), count_colour(rgb, n, 255, 255, 255));
	assert_true(count_colour(rgb, n, 255, 255, 255) < n); /* not blank */
	/* Bars beyond the legend's swatches, in each side's colour. */
	assert_true(bar_pixels(rgb, n, 0x4e, 0x79, 0xa7) > 1000);
	if (colours > 1)
		assert_true(bar_pixels(rgb, n, 0xf2, 0x8e, 0x2b) > 1000);
	free(rgb);
	return probe;
}

/* A page, and what it must show: the test's name says it. */
struct page_case {
	const char *shot;        /* its screenshot's name */
	const char *compare;     /* compare-WHAT-*.json, or NULL: */
	const char *report;      /* report of NAME.json */
	int colours;             /* 2: base and new bars, 1: one profile's */
	const char *const *headings; /* in the rendered DOM */
	const char *const *shows;    /* "KIND\ttext" lines of probe_page() */
};

static void page_shows_what_it_should(void **state)
{
	const struct page_case *t = *state;
	char *probe, line[512];

	skip_without_chromium();
	render_page(t->compare, t->report);
	probe = check_page(t->shot, t->colours, t->headings);
	for (const char *const *l = t->shows; *l; l++) {
		snprintf(line, sizeof(line), "%s\n", *l);
		assert_contains(probe, line);
	}
	free(probe);
}

/*
 * Per filesystem, base and new bars for did skip and would skip, each
 * labelled; proc's 0% (the stock kernel skips nothing) is a labelled mark,
 * not a gap; the legend names both sides, the table has ratio and p.
 */
static const struct page_case lookup_page = {
	"compare-lookup", "lookup", NULL, 2, (const char *const[]){
		"permscope compare", "Lookup: did skip and would skip", "stock (bookworm)",
		"patched (sid)", "did_skip_ratio[ext4]", NULL,
	}, (const char *const[]){
		"TEXT\text4", "TEXT\tproc", "TEXT\trootfs", "TEXT\t0%", "TEXT\t87.5%", "TEXT\t100%",
		"TEXT\tdid skip (fast path taken)", "TEXT\twould skip (eligible)", "TH\tratio",
		"TH\tp (Welch)", "LEGEND\tbase: stock (bookworm) (kernel 6.1.0-57-amd64)new: "
		"patched (sid) (kernel 7.2.13+deb14-cloud-amd64)", NULL,
	},
};

/* Latency with axes: ticks in µs, shares in %, both sides' medians; ratio and p columns. */
static const struct page_case access_page = {
	"compare-access", "access", NULL, 2, (const char *const[]){
		"Access outcomes", "Latency histograms", "avoidable_per_call", "3 runs",
		"24.38±1.44µs", NULL,
	}, (const char *const[]){
		"TEXT\t16.38µs", "TEXT\t2.048µs", "TEXT\t1.049ms", "TEXT\t0%", "TEXT\tshare of calls",
		"TEXT\tbase p50 24.46µs", "TEXT\tnew p50 3.25µs", "TH\tratio", "TH\tp (Welch)", NULL,
	},
};

/* report --format html: one profile's tables and charts; ext4's 0% did skip is drawn. */
static const struct page_case report_page = {
	"report-sample", NULL, "sample-profile", 1, (const char *const[]){
		"permscope report", "buildhost", "6.18.44-fastperm", "not_opted_in (94.0%)",
		"Access: faccessat cred override", "Exec: execve outcomes and ENOENT", NULL,
	}, (const char *const[]){
		"TEXT\text4", "TEXT\ttmpfs", "TEXT\tbtrfs", "TEXT\t0%", "TEXT\t95.0%",
		"TEXT\t1.024µs", "TEXT\t131.1µs", "TEXT\tp50 1.888µs", "TH\tdid skip", NULL,
	},
};

/* ---- hostile input, no browser needed ----------------------------------- */

/* One filesystem's lookup counts: walks, did skip, would skip. */
static void put_fs(struct profile *p, const char *name, __u64 walks, __u64 did, __u64 would)
{
	struct fs_result *r = profile_add_fs(p, name);

	assert_non_null(r);
	r->s.origin[LOOKUP_ORIGIN_WALK] = walks;
	r->s.did_skip = did;
	r->s.would_skip = r->s.walk_would_skip = would;
	schema_fill(&schema[FAMILY_LOOKUP], &r->s);
}

/*
 * A profile whose every outside string is hostile: markup in the host,
 * the kernel, the command and filesystem names, quotes, a name too long
 * for a label; counts of 0 (a share of nothing) and near 2^63.
 */
static void hostile_profile(struct profile *p, bool with_long)
{
	static char *const argv[] = { "sh", "-c", "</title><script>alert(1)</script>", NULL };
	const struct schema_row *first = NULL;

	profile_init(p);
	strcpy(p->hostname, "<img src=x onerror=alert(1)>");
	strcpy(p->kernel_release, "7.2\"><script>x</script>");
	p->command = argv_dup(argv);
	p->start_ns = 1;
	p->end_ns = 2000000001;
	for (int f = 0; f < FAMILY_COUNT; f++) {
		p->fam[f].status = FAMILY_OK;
		p->fam[f].mode = MODE_FENTRY;
	}
	put_fs(p, "<script>alert(1)</script>", 100, 0, 50);
	put_fs(p, "a\"b'c&d<e>", 0, 0, 0);
	put_fs(p, "huge", INT64_MAX / 2, INT64_MAX / 4, INT64_MAX / 2);
	if (with_long)
		put_fs(p, "abcdefghijklmnopqrstuvwxyz01234", 10, 10, 10);
	for (int i = 0; i < schema[FAMILY_ACCESS].nrows && !first; i++)
		if (schema[FAMILY_ACCESS].rows[i].kind == ROW_OUTCOME)
			first = &schema[FAMILY_ACCESS].rows[i];
	{
		struct hist *h = (struct hist *)schema_hist(first, profile_stats(p, FAMILY_ACCESS, 0));

		h->slots[0] = INT64_MAX / 4;
		h->slots[HIST_SLOTS - 1] = INT64_MAX / 4;
		h->count = INT64_MAX / 2;
		h->sum = UINT64_MAX;
		*(__u64 *)schema_counter(first, profile_stats(p, FAMILY_ACCESS, 0)) = h->count;
	}
}

/* Every <svg>...</svg> of `page` holds no NaN, no infinity and no negative size. */
static void assert_svg_numbers_finite(const char *page)
{
	for (const char *svg = strstr(page, "<svg"); svg; svg = strstr(svg + 4, "<svg")) {
		const char *end = strstr(svg, "</svg>");
		char *part;

		assert_non_null(end);
		part = strndup(svg, end - svg);
		for (char *c = part; *c; c++)
			*c = (char)tolower((unsigned char)*c);
		assert_not_contains(part, "nan");
		assert_not_contains(part, "inf");
		assert_not_contains(part, "width=\"-");
		assert_not_contains(part, "height=\"-");
		free(part);
	}
}

static void hostile_names_are_escaped_and_no_nan_is_drawn(void **state)
{
	struct profile p, q;
	struct compare c = {0};
	char *page = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	hostile_profile(&p, true);
	hostile_profile(&q, false); /* the long name on one side only: "not seen" on the other */
	for (int k = 0; k < 2; k++) {
		f = open_memstream(&page, &len);
		if (k) {
			c = (struct compare){ .base = &q, .new = &p, .base_name = "<b>base</b>",
					      .new_name = "new\"'&" };
			assert_int_equal(compare_build(&c), 0);
			compare_html(f, &c);
			compare_free(&c);
		} else {
			render_html(f, &p);
		}
		fclose(f);
		assert_not_contains(page, "<script");
		assert_not_contains(page, "<img");
		assert_not_contains(page, "<b>base");
		assert_contains(page, "&lt;script&gt;alert(1)&lt;/script&gt;");
		assert_contains(page, "&lt;img src=x onerror=alert(1)&gt;");
		assert_contains(page, "a&quot;b&#39;c&amp;d&lt;e&gt;");
		/* cut to fit the label, whole in its tooltip */
		assert_contains(page, "<title>abcdefghijklmnopqrstuvwxyz01234</title>"
				"abcdefghijklmnopqrstu\u2026</text>");
		assert_contains(page, ">0%</text>");
		assert_svg_numbers_finite(page);
		if (k) {
			assert_contains(page, "base: not seen");
			assert_contains(page, "new: new&quot;&#39;&amp;");
		}
		free(page);
		page = NULL;
	}
	profile_free(&p);
	profile_free(&q);
}

/* A chart of nothing: no NaN either. */
static void a_histogram_of_no_calls_draws_no_nan(void **state)
{
	struct hist empty = {0}, one = {0};
	const struct hist *h[2] = { &empty, &one };
	static const struct chart_series two[2] = { { "base", "#000" }, { "new", "#111" } };
	char *page = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&page, &len);

	(void)state;
	svg_hist(f, &(struct hist_chart){ .label = "x", .h = h, .series = two, .nseries = 1 });
	one.slots[3] = 1;
	one.count = 1;
	one.sum = 9;
	svg_hist(f, &(struct hist_chart){ .label = "x", .h = h, .series = two, .nseries = 2 });
	fclose(f);
	assert_contains(page, "base: no calls");
	assert_contains(page, "new p50 ");
	assert_svg_numbers_finite(page);
	free(page);
}

static int setup(void **state)
{
	static const char *const candidates[] = { "/usr/bin/chromium", "/usr/bin/chromium-browser" };

	for (size_t i = 0; i < 2; i++)
		if (!access(candidates[i], X_OK))
			chromium = candidates[i];
	return tmpdir_setup(state);
}

int main(int argc, char **argv)
{
	(void)argc;
	snprintf(shots, sizeof(shots), "%.*s/screenshots",
		 (int)(strrchr(argv[0], '/') ? strrchr(argv[0], '/') - argv[0] : 1),
		 strrchr(argv[0], '/') ? argv[0] : ".");
	mkdir(shots, 0755);
	const struct CMUnitTest tests[] = {
		{ "lookup_page_shows_every_filesystem_and_its_zero", page_shows_what_it_should, NULL,
		  NULL, (void *)&lookup_page },
		{ "access_page_shows_histograms_with_units", page_shows_what_it_should, NULL, NULL,
		  (void *)&access_page },
		{ "report_page_shows_one_profile", page_shows_what_it_should, NULL, NULL,
		  (void *)&report_page },
		cmocka_unit_test(hostile_names_are_escaped_and_no_nan_is_drawn),
		cmocka_unit_test(a_histogram_of_no_calls_draws_no_nan),
	};

	return cmocka_run_group_tests_name("html", tests, setup, tmpdir_teardown);
}
