// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The HTML comparison as a browser shows it: headless Chromium renders the
 * page of two real profiles to a PNG; the test decodes the PNG (zlib, no
 * image library) and checks the page is not blank and that bars in both
 * chart colours were drawn, and checks the headings in the rendered DOM.
 * Skipped, saying why, where Debian's chromium is not installed.
 */
#include <linux/types.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "testutil.h"

#include "compare.h"

static const char *chromium;
static char html[600], png[600];

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

static void render_page(const char *what)
{
	char base[600], cur[600], err[512];
	struct profile pb, pc;
	struct compare c = {0};
	const char *dir = testdata_dir();
	FILE *f;

	snprintf(base, sizeof(base), "%s/compare-%s-base.json", dir, what);
	snprintf(cur, sizeof(cur), "%s/compare-%s-new.json", dir, what);
	if (profile_read(base, &pb, err, sizeof(err)) || profile_read(cur, &pc, err, sizeof(err)))
		fail_msg("%s", err);
	c.base = &pb;
	c.new = &pc;
	c.base_name = "stock (bookworm)";
	c.new_name = "patched (sid)";
	assert_int_equal(compare_build(&c), 0);
	snprintf(html, sizeof(html), "%s/%s.html", tmpdir, what);
	f = fopen(html, "w");
	assert_non_null(f);
	compare_html(f, &c);
	fclose(f);
	compare_free(&c);
	profile_free(&pb);
	profile_free(&pc);
}

static void check_page(const char *what, const char *const *headings)
{
	char url[700], shot[700], size[] = "--window-size=1200,1600";
	char *shot_argv[] = { (char *)chromium, "--headless", "--no-sandbox", "--disable-gpu",
			      "--hide-scrollbars", shot, size, url, NULL };
	char *dom_argv[] = { (char *)chromium, "--headless", "--no-sandbox", "--disable-gpu",
			     "--dump-dom", url, NULL };
	unsigned char *data, *rgb;
	size_t len, n;
	uint32_t w = 0, h = 0;

	if (!chromium) {
		print_message("skipped: no chromium (apt-get install chromium)\n");
		skip();
	}
	render_page(what);
	snprintf(url, sizeof(url), "file://%s", html);
	snprintf(png, sizeof(png), "%s/%s.png", tmpdir, what);
	snprintf(shot, sizeof(shot), "--screenshot=%s", png);
	assert_int_equal(run_capture(shot_argv), 0);
	assert_int_equal(run_capture(dom_argv), 0);
	/* out_text: the DOM as rendered */
	for (const char *const *hd = headings; *hd; hd++)
		assert_contains(out_text, *hd);

	data = (unsigned char *)slurp(png, &len);
	assert_non_null(data);
	rgb = decode_png(data, len, &w, &h);
	free(data);
	assert_non_null(rgb);
	n = (size_t)w * h;
	print_message("  %s: %ux%u screenshot, base-colour bar pixels %zu, new-colour %zu, "
		      "white %zu\n", png, w, h, bar_pixels(rgb, n, 0x4e, 0x79, 0xa7),
		      bar_pixels(rgb, n, 0xf2, 0x8e, 0x2b), count_colour(rgb, n, 255, 255, 255));
	assert_true(count_colour(rgb, n, 255, 255, 255) < n); /* not blank */
	/* Bars beyond the two 16x16 legend squares, in both colours. */
	assert_true(bar_pixels(rgb, n, 0x4e, 0x79, 0xa7) > 1000);
	assert_true(bar_pixels(rgb, n, 0xf2, 0x8e, 0x2b) > 1000);
	free(rgb);
}

static void lookup_page_renders_with_skip_bars(void **state)
{
	static const char *const headings[] = {
		"permscope compare", "Lookup: did skip and would skip", "stock (bookworm)",
		"patched (sid)", "did_skip_ratio[ext4]", NULL,
	};

	(void)state;
	check_page("lookup", headings);
}

static void access_page_renders_with_histograms(void **state)
{
	static const char *const headings[] = {
		"Access outcomes", "Latency histograms", "avoidable_per_call", "3 runs", NULL,
	};

	(void)state;
	check_page("access", headings);
}

static int setup(void **state)
{
	static const char *const candidates[] = { "/usr/bin/chromium", "/usr/bin/chromium-browser" };

	for (size_t i = 0; i < 2; i++)
		if (!access(candidates[i], X_OK))
			chromium = candidates[i];
	return tmpdir_setup(state);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(lookup_page_renders_with_skip_bars),
		cmocka_unit_test(access_page_renders_with_histograms),
	};

	return cmocka_run_group_tests_name("html", tests, setup, tmpdir_teardown);
}
