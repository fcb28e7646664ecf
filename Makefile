# permscope — build, test, run.  `make help` lists the targets.

# The version a build from a tarball takes, and the base of one from git
# with no tag; tools/gen-version makes the real one (docs/version.md).
VERSION   := 0.1.0
# Every tool and flag below can be set from the environment or the command
# line (CC=clang make, OUT=/tmp/ps make; the VM scripts still use build/).
# make predefines CC as `cc`, which `?=` would keep, so the default gcc is
# set only when CC came from make itself.
ifeq ($(origin CC),default)
CC        := gcc
endif
ARCH      ?= x86
OUT       ?= build
CLANG     ?= clang
BPFTOOL   ?= bpftool
LLVM_STRIP ?= llvm-strip

# Debian packages (see README, "Dependencies"): what building and running
# needs, and what the tests add (cmocka, the QEMU suite, Chromium).
BUILD_PKGS := make gcc clang llvm bpftool libbpf-dev libelf-dev zlib1g-dev libjansson-dev libyajl-dev libarchive-dev \
              libmicrohttpd-dev libgnutls28-dev libyaml-dev libcrypt-dev libsystemd-dev \
              libcurl4-gnutls-dev
# What booting a kernel in the test VM needs (tests/vm/run-vm, mkinitramfs,
# fetch-kernel): QEMU, the guest's busybox and scratch filesystems, the
# initramfs's cpio, the module tools and decompressors for Debian's
# kernels, file(1) for a bzImage's release, bpftrace packed into the guest
# as the other tracer.  tools/permscope-ab needs these (make vm-deps), not
# the rest of the tests' packages.
VM_PKGS    := qemu-system-x86 busybox-static btrfs-progs e2fsprogs cpio kmod xz-utils zstd \
              lz4 bzip2 file bpftrace
TEST_PKGS  := libcmocka-dev $(VM_PKGS) prometheus openssl git chromium patch strace \
              libclang-rt-14-dev bash-completion groff man-db
# What tests/vm/build-kernel needs to build the VM's kernel from Debian's
# source: kbuild's tools (bison, flex, bc; libelf for objtool and
# resolve_btfids, libssl for the certificate tools), pahole (dwarves) for
# BTF, ccache, xz and patch.  Not in test-deps: `make kernel-src` installs them.
KERNEL_BUILD_PKGS := make gcc bison flex bc libelf-dev libssl-dev dwarves ccache xz-utils patch
# What `make deb` needs besides BUILD_PKGS (debian/control's Build-Depends
# are those): debhelper's dh, dpkg-buildpackage, lintian to check the
# package, git to export the tree.  No fakeroot: debian/control says
# Rules-Requires-Root: no, and dpkg-deb makes the files root's itself.
PKG_PKGS := debhelper dpkg-dev lintian git

# CFLAGS is the user's (optimisation, debug info); the flags the code needs
# are kept apart in PS_CFLAGS so that `make CFLAGS=-O0` cannot drop them.
CFLAGS    ?= -O2 -g
PS_CFLAGS := -Wall -Wextra -Werror -std=gnu11 -D_GNU_SOURCE \
             -I$(OUT) -Ibpf -Isrc $(CFLAGS)
# Where "Report bugs to" points (src/cmd/main.c): the issue tracker of the
# origin remote when it is on GitHub or GitLab (https, or ssh as git@; an
# https URL with credentials in it is never matched), else empty and the
# binary points to README.md's "Reporting bugs".  `make BUG_URL=...` sets it.
BUG_URL   ?= $(shell git remote get-url origin 2>/dev/null | sed -E 's,\.git/?$$,,' | sed -nE \
               -e 's,^(https://|ssh://git@|git@)github\.com[:/]([^/@]+/[^/@]+)$$,https://github.com/\2/issues,p' \
               -e 's,^(https://|ssh://git@|git@)gitlab\.com[:/]([^@]+)$$,https://gitlab.com/\2/-/issues,p')
PS_CFLAGS += -DPERMSCOPE_BUG_URL='"$(BUG_URL)"'
LDLIBS    := -lbpf -lelf -lz -ljansson -lyajl -lmicrohttpd -larchive -lm -lgnutls -lyaml -lcrypt -lsystemd -lcurl
BPF_CFLAGS := -target bpf -g -O2 -Wall -Werror -D__TARGET_ARCH_$(ARCH) \
              -Ivmlinux/$(ARCH) -Ibpf
# Each compile writes the headers it read to a hidden OUT/.../.TARGET.d
# (hidden so that tests/run-all's test_* glob never sees them); -MP keeps a
# deleted header from breaking the next build.
DEPFLAGS   = -MMD -MP -MT $@ -MF $(@D)/.$(@F).d

FAMILIES  := access exec lookup
SKELS     := $(FAMILIES:%=$(OUT)/%.skel.h)
# The objects whose sources include a skeleton (the family_*.o glue).  Their
# .d files name the skeletons too, but only after a first build: this is
# what makes a fresh build generate the skeletons before compiling them.
SKEL_OBJS := $(patsubst src/%.c,$(OUT)/%.o,$(shell grep -l '^\#include "[a-z_]*\.skel\.h"' src/*.c src/*/*.c))
# src/ is the core, each folder under it a layer (docs/code-layout.md)
SRCS      := $(wildcard src/*.c src/*/*.c)
OBJS      := $(SRCS:src/%.c=$(OUT)/%.o)
# The command layer (src/cmd/: argp, the commands) and the
# library under it.  The tests link the library alone, and `make
# check-layout` keeps every layer within its rank (docs/code-layout.md).
CMD_OBJS  := $(filter $(OUT)/cmd/%,$(OBJS))
LIB_OBJS  := $(filter-out $(CMD_OBJS),$(OBJS))

# The unit tests, and the bad-input suite (tests/badinput/), a unit test too:
# it runs ./permscope on files it makes, with no privileges needed.
UNIT_SRCS := $(wildcard tests/unit/test_*.c tests/badinput/test_*.c)
UNIT_BINS := $(patsubst %.c,$(OUT)/tests/%,$(notdir $(UNIT_SRCS)))
LIVE_BINS := $(OUT)/tests/test_live $(OUT)/tests/test_live_daemon $(OUT)/tests/test_live_bench \
             $(OUT)/tests/test_live_privilege $(OUT)/tests/test_live_load $(OUT)/tests/workload \
             $(OUT)/tests/test_live_dashboard $(OUT)/tests/test_live_package \
             $(OUT)/tests/test_live_webconfig $(OUT)/tests/test_live_fleet
# The VM suite: its assertions, and the programs tests/vm/mkinitramfs packs
# (it takes them from ./ and build/, whatever OUT says).
VM_BINS   := $(OUT)/tests/test_vm $(OUT)/tests/test_vm_controls $(OUT)/tests/test_vm_dashboard \
             permscope $(OUT)/tests/workload

# Keep the BPF objects, which only the skeleton rule asks for: `bpftool
# prog` users may want them.  Named, because a bare .SECONDARY: makes every
# target intermediate, and make then skips relinking over missing objects.
.SECONDARY: $(FAMILIES:%=$(OUT)/%.bpf.o)
# A recipe that fails must not leave a half-written target that looks new.
.DELETE_ON_ERROR:

.PHONY: all deps test-deps vm-deps kernel-deps kernel-src run test check-layout unit-test live-test vmtest vmtest-src bench bench-vm vmlinux clean help \
        check-tools

all: permscope

help:
	@echo "make            build ./permscope"
	@echo "make deps       install the Debian packages the build needs (apt-get, root)"
	@echo "make test-deps  deps + what the tests need (cmocka, QEMU, Chromium, Prometheus)"
	@echo "make vm-deps    deps + what booting a kernel in the test VM needs (QEMU, busybox)"
	@echo "make kernel-deps  what building a kernel from source needs (kbuild, pahole, ccache)"
	@echo "make run        deps + build, record this machine 5 s and print the per-fs report"
	@echo "make test       test-deps + build + every test: unit, live on this kernel, VM kernels"
	@echo "make unit-test  unit tests only (no privileges needed)"
	@echo "make check-layout  every include of src/ within its layer's rank, no include circle"
	@echo "make live-test  live tests only (root, BPF)"
	@echo "make sanitize-test  unit tests and ./permscope under ASan+UBSan, leaks checked"
	@echo "make fuzz       each libFuzzer target of tests/fuzz for FUZZ_SECONDS (60) s"
	@echo "make vmtest     boot the kernels of tests/vm/kernels.conf in QEMU and assert them"
	@echo "make vmtest-src build the controls of tests/vm/patches from Debian's source, A/B each"
	@echo "                against its stock build and assert the verdicts (~1 h cold)"
	@echo "make kernel-src build the VM's kernel from Debian's linux-source-6.12 (KERNEL_SRC=)"
	@echo "                into build/vm/kernels/src-KERNEL_SRC, ~20 min cold on 2 cores"
	@echo "make bench      build, run every benchmark (fast vs slow where it applies), then"
	@echo "                the probes' overhead on access1 and exec-path, ~4 min"
	@echo "make bench-vm   probe cost in guest instructions per call under QEMU -icount, sid, trixie and bookworm, with a per-mode table (long)"
	@echo "make vmlinux    regenerate vmlinux/$(ARCH)/vmlinux.h from this kernel's BTF"
	@echo "make install    binary, man pages, completion, unit, /etc/default, docs (PREFIX, DESTDIR)"
	@echo "make deb        the Debian package build/permscope_VERSION_ARCH.deb, lintian-checked"

# Installs only what is missing; never touches apt sources.
install_missing = @missing=$$(for p in $(1); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed$$' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		if [ "$$(id -u)" != 0 ]; then echo "Error: missing packages:" $$missing "(run 'make deps' as root)" >&2; exit 1; fi; \
		echo "Installing:" $$missing; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	fi

deps:
	$(call install_missing,$(BUILD_PKGS))

test-deps:
	$(call install_missing,$(BUILD_PKGS) $(TEST_PKGS) $(PKG_PKGS))

# The VM and the kernel build alone, for tools/permscope-ab: no Chromium,
# no Prometheus.  test-deps is their union with the tests' own (the kernel
# build aside: make test builds no kernel).
vm-deps:
	$(call install_missing,$(BUILD_PKGS) $(VM_PKGS))

kernel-deps:
	$(call install_missing,$(KERNEL_BUILD_PKGS))

# The stock kernel of a Debian source package (or a kernel tree's path) with
# tests/vm/kconfig/permscope.config, where tests/vm/run-vm can boot it
# (docs/vm.md, "Kernels built from source").
KERNEL_SRC ?= linux-source-6.12
kernel-src: kernel-deps
	tests/vm/build-kernel $(KERNEL_SRC) build/vm/kernels/src-$(notdir $(KERNEL_SRC))

check-tools:
	@for t in $(CLANG) $(BPFTOOL) $(CC); do command -v $$t >/dev/null || \
		{ echo "Error: $$t not found (run 'make deps' as root)" >&2; exit 1; }; done

run: deps permscope
	./permscope report

# The VM suite runs when QEMU is there (make test-deps installs it);
# PERMSCOPE_SKIP_VM=1 leaves it out for a quick run, and test_vm then skips.
test: test-deps check-layout
	@$(MAKE) --no-print-directory permscope $(UNIT_BINS) $(LIVE_BINS) $(VM_BINS)
	@vm=0; if [ -z "$(PERMSCOPE_SKIP_VM)" ] && command -v qemu-system-x86_64 >/dev/null; then \
		tests/vm/vmtest || vm=$$?; \
	else rm -rf $(OUT)/vm/run; echo "VM suite not run (PERMSCOPE_SKIP_VM or no qemu)"; fi; \
	tests/run-all $(OUT)/tests && [ $$vm = 0 ] || { [ $$vm = 0 ] || echo "tests/vm/vmtest failed"; exit 1; }
	@$(MAKE) --no-print-directory -j2 sanitize-test fuzz-regress

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

# What the probes cost, under QEMU -icount (guest time = executed
# instructions): extra guest instructions per probed call on sid and
# bookworm, against empty programs on the same hooks, and the tax on an
# unrelated stat() (docs/kernels.md, "Probe cost").  Long: not in make test.
bench-vm: test-deps
	@$(MAKE) --no-print-directory $(VM_BINS)
	PARTS="lookup access exec tax bpftrace" tests/vm/overhead sid trixie bookworm

vmtest: test-deps
	@$(MAKE) --no-print-directory $(VM_BINS)
	@vm=0; tests/vm/vmtest || vm=$$?; tests/run-all --vm-only $(OUT)/tests && [ $$vm = 0 ]

# The controls of tests/vm/patches (controls.conf): kernels built from
# Debian's source with one patch each, compared with the stock build by
# tools/permscope-ab, and asserted.  Long (docs/vm.md, "Controls": about an
# hour cold, minutes warm): not in make test, whose unit tests cover the
# patch and cache logic of build-kernel.
vmtest-src: test-deps kernel-deps
	@$(MAKE) --no-print-directory $(VM_BINS)
	@vm=0; tests/vm/controls || vm=$$?; \
		PERMSCOPE_VM_CONTROLS=$(CURDIR)/build/vm/controls $(OUT)/tests/test_vm_controls && [ $$vm = 0 ]

permscope: $(OBJS) | check-tools
	$(CC) $(PS_CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# The bpf headers are named too: the .d file that lists them goes with a
# deleted .bpf.o, and the skeleton must still follow a changed header.
$(OUT)/%.bpf.o: bpf/%.bpf.c $(wildcard bpf/*.h) vmlinux/$(ARCH)/vmlinux.h | $(OUT) check-tools
	$(CLANG) $(BPF_CFLAGS) $(DEPFLAGS) -c $< -o $@
	$(LLVM_STRIP) -g $@ # DWARF is not needed at run time; BTF stays

$(OUT)/%.skel.h: $(OUT)/%.bpf.o
	$(BPFTOOL) gen skeleton $< name $*_bpf > $@

$(SKEL_OBJS): $(SKELS)

$(OUT)/%.o: src/%.c | $(OUT)
	@mkdir -p $(@D)
	$(CC) $(PS_CFLAGS) $(DEPFLAGS) -c $< -o $@

# OUT/gitversion.h: this build's version and revision from git describe.
# Its recipe runs on every make but rewrites the file only when its text
# changes (a commit, a change of the dirty state), so that only version.o
# recompiles then, and nothing at all otherwise.
$(OUT)/gitversion.h: FORCE | $(OUT)
	@tools/gen-version $(VERSION) $@

$(OUT)/version.o: $(OUT)/gitversion.h

.PHONY: FORCE
FORCE:

$(OUT)/tests/test_%: tests/unit/test_%.c $(LIB_OBJS) | $(OUT)/tests
	$(CC) $(PS_CFLAGS) $(DEPFLAGS) -Itests $(LDFLAGS) -o $@ $< $(LIB_OBJS) $(LDLIBS) -lcmocka

$(OUT)/tests/test_%: tests/badinput/test_%.c $(LIB_OBJS) | $(OUT)/tests
	$(CC) $(PS_CFLAGS) $(DEPFLAGS) -Itests $(LDFLAGS) -o $@ $< $(LIB_OBJS) $(LDLIBS) -lcmocka

$(filter $(OUT)/tests/test_live%,$(LIVE_BINS)): $(OUT)/tests/%: tests/live/%.c $(LIB_OBJS) | $(OUT)/tests
	$(CC) $(PS_CFLAGS) $(DEPFLAGS) -Itests $(LDFLAGS) -o $@ $< $(LIB_OBJS) $(LDLIBS) -lcmocka

$(OUT)/tests/test_vm $(OUT)/tests/test_vm_controls $(OUT)/tests/test_vm_dashboard: \
		$(OUT)/tests/%: tests/vm/%.c $(LIB_OBJS) | $(OUT)/tests
	$(CC) $(PS_CFLAGS) $(DEPFLAGS) -Itests $(LDFLAGS) -o $@ $< $(LIB_OBJS) $(LDLIBS) -lcmocka

# Static, so that no dynamic loader adds calls of its own to the counts the
# tests assert (glibc's checks for /etc/ld.so.preload with access(2)).  It
# needs libc alone; permscope itself cannot be linked statically (gnutls,
# under libmicrohttpd, has no static p11-kit or libunistring).  Rebuilt when
# this file changes, so that a dynamically linked one from before goes.
$(OUT)/tests/workload: tests/live/workload.c Makefile | $(OUT)/tests
	$(CC) $(PS_CFLAGS) $(DEPFLAGS) $(LDFLAGS) -static -o $@ $<

$(OUT) $(OUT)/tests:
	@mkdir -p $@

# vmlinux.h and, beside it, SOURCE: which kernel and bpftool it came from
# and its checksum, so a reader can tell what the CO-RE types were taken
# from and whether the header was changed since.
VMLINUX_DIR := vmlinux/$(ARCH)
vmlinux: | check-tools
	$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > $(VMLINUX_DIR)/vmlinux.h.tmp
	{ echo "# Where vmlinux.h came from; written by 'make vmlinux' with it."; \
	  echo "release: $$(uname -r)"; \
	  echo "build: $$(uname -v)"; \
	  echo "machine: $$(uname -m)"; \
	  echo "btf: /sys/kernel/btf/vmlinux"; \
	  echo "bpftool: $$($(BPFTOOL) version | head -n 1)"; \
	  echo "generated: $$(date -u +%Y-%m-%dT%H:%M:%SZ)"; \
	  echo "sha256: $$(sha256sum < $(VMLINUX_DIR)/vmlinux.h.tmp | cut -d' ' -f1)"; \
	} > $(VMLINUX_DIR)/SOURCE.tmp
	mv $(VMLINUX_DIR)/vmlinux.h.tmp $(VMLINUX_DIR)/vmlinux.h
	mv $(VMLINUX_DIR)/SOURCE.tmp $(VMLINUX_DIR)/SOURCE

# ---- Hardening: sanitizers and fuzzing (docs/hardening.md) ----------------
#
# sanitize-test: the unit tests, and the ./permscope they run as a child,
# built again under ASan+UBSan into OUT/asan and run with leak checking.
# Every report goes to a file under OUT/asan/log (the children's too, whose
# exit status a test may not look at); any file there fails the run.
# tests/sanitizer.supp lists the third-party leaks LeakSanitizer may ignore.
ASAN_OUT   := $(OUT)/asan
SAN_FLAGS  := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
ASAN_OBJS  := $(OBJS:$(OUT)/%=$(ASAN_OUT)/%)
ASAN_LIB_OBJS := $(LIB_OBJS:$(OUT)/%=$(ASAN_OUT)/%)
ASAN_UNIT_BINS := $(UNIT_BINS:$(OUT)/tests/%=$(ASAN_OUT)/tests/%)
SAN_ENV     = ASAN_OPTIONS=halt_on_error=1:detect_leaks=1:abort_on_error=0:log_path=$(abspath $(ASAN_OUT)/log/asan) \
              UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:log_path=$(abspath $(ASAN_OUT)/log/ubsan) \
              LSAN_OPTIONS=suppressions=$(abspath tests/sanitizer.supp):print_suppressions=0

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

$(ASAN_OUT)/%.o: src/%.c | $(ASAN_OUT)/tests
	@mkdir -p $(@D)
	$(CC) $(PS_CFLAGS) $(SAN_FLAGS) $(DEPFLAGS) -c $< -o $@

$(ASAN_OUT)/tests/test_%: tests/unit/test_%.c $(ASAN_LIB_OBJS) | $(ASAN_OUT)/tests
	$(CC) $(PS_CFLAGS) $(SAN_FLAGS) $(DEPFLAGS) -Itests $(LDFLAGS) -o $@ $< $(ASAN_LIB_OBJS) $(LDLIBS) -lcmocka

$(ASAN_OUT)/tests/test_%: tests/badinput/test_%.c $(ASAN_LIB_OBJS) | $(ASAN_OUT)/tests
	$(CC) $(PS_CFLAGS) $(SAN_FLAGS) $(DEPFLAGS) -Itests $(LDFLAGS) -o $@ $< $(ASAN_LIB_OBJS) $(LDLIBS) -lcmocka

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
FUZZ_OUT     := $(OUT)/fuzz
FUZZ_SECONDS ?= 60
FUZZ_TARGETS := $(patsubst tests/fuzz/%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BINS    := $(FUZZ_TARGETS:%=$(FUZZ_OUT)/%)
FUZZ_CFLAGS   = $(PS_CFLAGS) -Itests/fuzz \
                -DFUZZ_DATA='"$(abspath tests/unit/data)"' -fno-omit-frame-pointer \
                -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all
FUZZ_LIB     := $(FUZZ_OUT)/libpermscope.a
FUZZ_ENV     := ASAN_OPTIONS=halt_on_error=1:detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1

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

$(FUZZ_OUT)/%.o: src/%.c | $(FUZZ_OUT)
	@mkdir -p $(@D)
	$(CLANG) $(FUZZ_CFLAGS) $(DEPFLAGS) -c $< -o $@

$(FUZZ_OUT):
	@mkdir -p $@

-include $(wildcard $(ASAN_OUT)/tests/.*.d)

# ---- Installing: make install, make deb (README, "Installing") -----------
#
# make install [PREFIX=/usr/local] [DESTDIR=]: the binary, the man pages
# (docs/man/*.8), the bash completion, the systemd unit with the binary's
# path rewritten, /etc/default/permscope (never overwritten: it is the
# admin's), the docs and example files.  Nothing else on the system is
# touched: no daemon-reload, no enabling.  The unit and the defaults file go
# where systemd and the unit look for them whatever PREFIX is: /etc/default
# always (the unit's EnvironmentFile=), /lib/systemd/system for PREFIX=/usr
# (Debian 12 keeps units there), PREFIX/lib/systemd/system otherwise
# (/usr/local/lib/systemd/system is on systemd's search path).
PREFIX      ?= /usr/local
BINDIR      ?= $(PREFIX)/bin
MANDIR      ?= $(PREFIX)/share/man
DOCDIR      ?= $(PREFIX)/share/doc/permscope
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
SYSCONFDIR  ?= /etc
UNITDIR     ?= $(if $(filter /usr,$(PREFIX)),/lib/systemd/system,$(PREFIX)/lib/systemd/system)
MAN8        := $(wildcard docs/man/*.8)
COMPLETION  := $(wildcard contrib/bash-completion/permscope)
# Docs keep the tree's layout (README.md beside docs/) so that the README's
# links to docs/NAME.md still lead somewhere.
DOCS        := $(wildcard docs/*.md)
# contrib/examples/* go into examples/; contrib/prometheus/ (rules and their
# promtool tests) and contrib/grafana/ (the dashboard) keep their names and
# layout under it.
EXAMPLES    := $(wildcard contrib/examples/*)
EXAMPLE_TREES := $(shell find contrib/prometheus contrib/grafana -type f 2>/dev/null | sort)

.PHONY: install uninstall deb

install: permscope
	install -D -m 0755 permscope $(DESTDIR)$(BINDIR)/permscope
	$(if $(MAN8),install -D -m 0644 -t $(DESTDIR)$(MANDIR)/man8 $(MAN8))
	$(if $(COMPLETION),install -D -m 0644 $(COMPLETION) $(DESTDIR)$(BASHCOMPDIR)/permscope)
	install -d -m 0755 $(DESTDIR)$(UNITDIR)
	sed -e 's|/usr/bin/permscope|$(BINDIR)/permscope|g' \
	    -e 's|/etc/default/permscope|$(SYSCONFDIR)/default/permscope|g' \
	    -e 's|/usr/share/doc/permscope|$(DOCDIR)|g' \
		contrib/permscope.service > $(DESTDIR)$(UNITDIR)/permscope.service.tmp
	chmod 0644 $(DESTDIR)$(UNITDIR)/permscope.service.tmp
	mv $(DESTDIR)$(UNITDIR)/permscope.service.tmp $(DESTDIR)$(UNITDIR)/permscope.service
	@if [ -e $(DESTDIR)$(SYSCONFDIR)/default/permscope ]; then \
		echo "kept $(DESTDIR)$(SYSCONFDIR)/default/permscope (contrib/permscope.default is the new one)"; \
	else echo "install -D -m 0644 contrib/permscope.default $(DESTDIR)$(SYSCONFDIR)/default/permscope"; \
		install -D -m 0644 contrib/permscope.default $(DESTDIR)$(SYSCONFDIR)/default/permscope; fi
	install -D -m 0644 README.md $(DESTDIR)$(DOCDIR)/README.md
	install -D -m 0644 -t $(DESTDIR)$(DOCDIR)/docs $(DOCS)
	$(if $(EXAMPLES),install -D -m 0644 -t $(DESTDIR)$(DOCDIR)/examples $(EXAMPLES))
	@for f in $(EXAMPLE_TREES); do echo "install -D -m 0644 $$f $(DESTDIR)$(DOCDIR)/examples/$${f#contrib/}"; \
		install -D -m 0644 $$f $(DESTDIR)$(DOCDIR)/examples/$${f#contrib/} || exit 1; done

# Removes what install wrote, and the defaults file only when it is still
# the one shipped (an edited one is the admin's and stays).
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/permscope $(DESTDIR)$(UNITDIR)/permscope.service \
		$(DESTDIR)$(BASHCOMPDIR)/permscope $(MAN8:docs/man/%=$(DESTDIR)$(MANDIR)/man8/%)
	rm -rf $(DESTDIR)$(DOCDIR)
	@f=$(DESTDIR)$(SYSCONFDIR)/default/permscope; if [ -e $$f ]; then \
		if cmp -s contrib/permscope.default $$f; then echo "rm -f $$f"; rm -f $$f; \
		else echo "kept $$f: it was edited"; fi; fi

# make deb: the Debian package of this tree (debian/; README, "Installing"),
# as OUT/permscope_VERSION_ARCH.deb, then lintian on it (errors fail).  It is
# built in OUT/deb/src, so that neither the tree's own build/ nor
# dh_auto_clean's `make clean` meets the checkout: a clone of this commit
# (--shared: no objects copied) with the work tree's files over it (the ones
# git tracks, and new ones it does not ignore, as they are now), so that
# git describe there says what it says here, -dirty included, and the
# package's binary names its commit.  Without git: the tree minus OUT and
# build/.  OUT and MAKEFLAGS stay out of the package build: there, build/
# is the export's own.  Build-Depends missing here are installed as
# dpkg-checkbuilddeps names them (test_install holds BUILD_PKGS to them).
DEB_ARCH  = $(shell dpkg --print-architecture)
DEB_FILE  = $(OUT)/permscope_$(VERSION)_$(DEB_ARCH).deb
deb:
	$(call install_missing,$(BUILD_PKGS) $(PKG_PKGS))
	@missing=$$(dpkg-checkbuilddeps 2>&1 | sed -n 's/.*Unmet build dependencies: //p' | \
		sed -E 's/ *\([^)]*\)//g'); \
	if [ -n "$$missing" ]; then \
		if [ "$$(id -u)" != 0 ]; then echo "Error: missing build dependencies:" $$missing \
			"(run 'make deb' as root, or apt-get install them)" >&2; exit 1; fi; \
		echo "Installing:" $$missing; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			--no-install-recommends $$missing >/dev/null; \
	fi
	@v=$$(dpkg-parsechangelog -l debian/changelog -S Version); [ "$$v" = "$(VERSION)" ] || \
		{ echo "Error: debian/changelog is at $$v, the Makefile at $(VERSION): add an entry" \
			"(dch -v $(VERSION))" >&2; exit 1; }
	rm -rf $(OUT)/deb && mkdir -p $(OUT)/deb
	@if git rev-parse --verify -q HEAD >/dev/null 2>&1; then \
		git clone -q --shared --no-checkout . $(OUT)/deb/src && \
		git ls-files -z --cached --others --exclude-standard | \
			tar --null -T - --ignore-failed-read -cf - 2>/dev/null | \
			tar -C $(OUT)/deb/src -xf - && \
		git -C $(OUT)/deb/src reset -q; \
	else mkdir $(OUT)/deb/src && \
		tar --exclude=./$(OUT) --exclude=./build --exclude=./permscope -cf - . | \
			tar -C $(OUT)/deb/src -xf -; fi
	cd $(OUT)/deb/src && env -u OUT -u MAKEFLAGS -u MAKELEVEL -u MFLAGS \
		dpkg-buildpackage -b -us -uc -Jauto
	mv $(OUT)/deb/permscope_$(VERSION)_$(DEB_ARCH).deb $(DEB_FILE)
	@ls -l $(DEB_FILE)
	lintian --fail-on error $(DEB_FILE)

clean:
	rm -rf $(OUT) permscope

-include $(wildcard $(OUT)/.*.d $(OUT)/*/.*.d $(OUT)/*/*/.*.d)
