# mk/test.mk: make run, make test and its parts, the test programs, the native benchmarks.
# Included by the Makefile, whose variables it uses (make help lists the targets).

run: deps permscope
	./permscope report

# The VM suite runs when QEMU is there (make test-deps installs it), in
# the background beside the host's tests (tests/test-all);
# PERMSCOPE_SKIP_VM=1 leaves it out for a quick run, and test_vm then skips.
test: test-deps check-layout
	@$(MAKE) --no-print-directory permscope $(UNIT_BINS) $(LIVE_BINS) $(VM_BINS)
	$(guest_arm64)
	@tests/test-all $(OUT)

# Each folder of src/ includes only the core and the folders ranked below
# it (kernel/ and prom/ never each other, nothing cmd/'s); no include circle.
check-layout:
	@tests/check-layout

unit-test: permscope $(UNIT_BINS)
	@tests/run-all --unit-only $(OUT)/tests

live-test: permscope $(LIVE_BINS)
	@tests/run-all --live-only $(OUT)/tests

# The native figures of docs/benchmarks.md: 7 interleaved fast/slow pairs
# of 1 s where the fast path can be defeated (as root), 7 runs elsewhere;
# the JSON beside them in OUT/bench.json.  Then the probes' overhead on
# access1 and exec-path: 10 rounds of 0.3 s pairs a configuration (with
# bpftrace when installed), in OUT/bench-overhead.json.
bench: permscope
	./permscope bench all --slow --runs 7 -o $(OUT)/bench.json
	./permscope bench access1 exec-path --overhead --runs 10 --duration 0.3 \
		-o $(OUT)/bench-overhead.json

# One rule links every test program, each against the library (all of
# src/ but cmd/), wherever its source is (unit/, badinput/, live/, vm/),
# for OUT and for OUT/asan.  They run on this machine: its sysroot has no
# cmocka, and a cross build refuses the goals that run them (HOST_ONLY).
vpath test_%.c tests/unit tests/badinput tests/live tests/vm
define test_rule
$(1)/tests/test_%: test_%.c $(2) | $(1)/tests
	$$(CC) $$(PS_CFLAGS) $(3) $$(DEPFLAGS) -Itests $$(LDFLAGS) -o $$@ $$< $(2) $$(LDLIBS) -lcmocka
endef
$(eval $(call test_rule,$(OUT),$$(LIB_OBJS),))
$(eval $(call test_rule,$(ASAN_OUT),$$(ASAN_LIB_OBJS),$$(SAN_FLAGS)))

# Static, so that no dynamic loader adds calls of its own to the counts the
# tests assert (glibc's checks for /etc/ld.so.preload with access(2)).  It
# needs libc alone; permscope itself cannot be linked statically (gnutls,
# under libmicrohttpd, has no static p11-kit or libunistring).  Rebuilt when
# this file changes, so that a dynamically linked one from before goes.
# The one test program a cross build makes: `make ARCH=arm64
# build/arm64/tests/workload` for the arm64 guest (libc.a from the sysroot).
$(OUT)/tests/workload: tests/live/workload.c Makefile mk/test.mk | $(OUT)/tests
	$(CC) $(PS_CFLAGS) $(DEPFLAGS) $(LDFLAGS) -static -o $@ $<
