# mk/hardening.mk: sanitizers and fuzzing (docs/hardening.md).
# Included by the Makefile, whose variables it uses (make help lists the targets).

# ---- Hardening: sanitizers and fuzzing (docs/hardening.md) ----------------
#
# sanitize-test: the unit tests, and the ./permscope they run as a child,
# built again under ASan+UBSan into OUT/asan and run with leak checking.
# Every report goes to a file under OUT/asan/log (the children's too, whose
# exit status a test may not look at); any file there fails the run.
# tests/sanitizer.supp lists the third-party leaks LeakSanitizer may ignore.
.PHONY: sanitize-test fuzz fuzz-regress fuzz-seeds

sanitize-test: $(ASAN_OUT)/permscope $(ASAN_UNIT_BINS)
	@rm -rf $(ASAN_OUT)/log && mkdir -p $(ASAN_OUT)/log
	@echo "== unit tests under ASan+UBSan (LeakSanitizer on)"
	@rc=0; $(SAN_ENV) PERMSCOPE_BIN=$(abspath $(ASAN_OUT)/permscope) \
		tests/run-all --unit-only $(ASAN_OUT)/tests || rc=$$?; \
	if [ -n "$$(ls -A $(ASAN_OUT)/log)" ]; then \
		for f in $(ASAN_OUT)/log/*; do echo "== $$f"; cat "$$f"; done; \
		echo "sanitizers: $$(ls $(ASAN_OUT)/log | wc -l) report(s)"; exit 1; fi; \
	[ $$rc = 0 ] && echo "sanitizers: no reports"

$(ASAN_OUT)/permscope: $(ASAN_OBJS)
	$(CC) $(PS_CFLAGS) $(SAN_FLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(SKEL_OBJS:$(OUT)/%=$(ASAN_OUT)/%): $(SKELS)
$(ASAN_OUT)/version.o: $(OUT)/gitversion.h

$(ASAN_OUT)/tests:
	@mkdir -p $@

# fuzz: the libFuzzer targets of tests/fuzz/ (one per reader of outside
# input), built with clang against the sources into OUT/fuzz, each run for
# FUZZ_SECONDS on its seeds (tests/fuzz/corpus/TARGET), the crash inputs
# kept as regressions (tests/corpus/TARGET) and what it found before
# (OUT/fuzz/corpus/TARGET), with tests/fuzz/TARGET.dict where there is
# one; `make -j2 fuzz` runs two at once.  A crash leaves
# OUT/fuzz/crash-TARGET-*.  fuzz-regress, in make test, only runs every
# seed and regression input through its target once.
fuzz: $(FUZZ_TARGETS:%=fuzz-run-%)

fuzz-run-%: $(FUZZ_OUT)/%
	@mkdir -p $(FUZZ_OUT)/corpus/$*
	@echo "== $* for $(FUZZ_SECONDS) s"
	@$(FUZZ_ENV) $< -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 \
		$(if $(wildcard tests/fuzz/$*.dict),-dict=tests/fuzz/$*.dict) \
		-artifact_prefix=$(FUZZ_OUT)/crash-$*- $(FUZZ_OUT)/corpus/$* tests/fuzz/corpus/$* $(wildcard tests/corpus/$*) \
		> $(FUZZ_OUT)/$*.log 2>&1 || { tail -n 60 $(FUZZ_OUT)/$*.log; exit 1; }
	@grep -E '^#[0-9]+[[:space:]]+DONE' $(FUZZ_OUT)/$*.log | sed 's/^/$*: /'; \
	grep -E 'stat::number_of_executed_units|stat::peak_rss_mb' $(FUZZ_OUT)/$*.log | sed 's/^/$*: /'

fuzz-regress: $(FUZZ_BINS)
	@n=0; for t in $(FUZZ_TARGETS); do \
		set -- $$(find tests/fuzz/corpus/$$t tests/corpus/$$t -type f 2>/dev/null | sort); \
		[ $$# -gt 0 ] || continue; \
		$(FUZZ_ENV) $(FUZZ_OUT)/$$t "$$@" > $(FUZZ_OUT)/$$t.regress.log 2>&1 || \
			{ tail -n 60 $(FUZZ_OUT)/$$t.regress.log; echo "fuzz-regress: $$t failed"; exit 1; }; \
		n=$$((n + $$#)); done; echo "fuzz-regress: $$n inputs through $(words $(FUZZ_TARGETS)) targets, no crash"

# The kernel images of tests/fuzz/corpus/fuzz_kimage, made by test_kimage's
# own functions; run by hand after those change.
fuzz-seeds: $(FUZZ_OUT)/mkseeds_kimage
	$< tests/fuzz/corpus/fuzz_kimage

$(FUZZ_OUT)/mkseeds_kimage: tests/fuzz/mkseeds_kimage.c tests/unit/test_kimage.c $(LIB_OBJS) | $(FUZZ_OUT)
	$(CC) $(PS_CFLAGS) $(DEPFLAGS) -Itests -Itests/unit $(LDFLAGS) -o $@ $< $(LIB_OBJS) $(LDLIBS) -lcmocka

$(FUZZ_OUT)/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_LIB)
	$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer $(DEPFLAGS) $(LDFLAGS) -o $@ $< $(FUZZ_LIB) $(LDLIBS)

$(FUZZ_LIB): $(LIB_OBJS:$(OUT)/%=$(FUZZ_OUT)/%)
	rm -f $@ && ar rcs $@ $^

$(SKEL_OBJS:$(OUT)/%=$(FUZZ_OUT)/%): $(SKELS)
$(FUZZ_OUT)/version.o: $(OUT)/gitversion.h

$(FUZZ_OUT):
	@mkdir -p $@

-include $(wildcard $(ASAN_OUT)/tests/.*.d)
