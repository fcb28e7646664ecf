# permscope — build, test, run.  `make help` lists the targets.

# The version a build from a tarball takes, and the base of one from git
# with no tag; tools/gen-version makes the real one (docs/version.md).
VERSION   := 0.1.0
# The architecture to build for, by the kernel's name of it (the BPF
# programs' -D__TARGET_ARCH_$(ARCH), vmlinux/$(ARCH)), with the names
# uname -m (the GNU triplet's) and Debian give it; debian/rules names it as
# Debian does (DEB_ARCH=arm64).  This machine's by default.  Another one is
# a cross build (README, "Building for arm64"): Debian's cross gcc
# (CROSS_PKGS), the libraries of ARCH from a sysroot made under build/
# (SYSROOT), objects and the program in build/ARCH, apart from this
# machine's in build/.
ARCHS          := x86 arm64
GNU_ARCH_x86   := x86_64
GNU_ARCH_arm64 := aarch64
DEB_ARCH_x86   := amd64
DEB_ARCH_arm64 := arm64
UNAME_M   := $(shell uname -m)
HOST_ARCH := $(strip $(foreach a,$(ARCHS),$(if $(filter $(GNU_ARCH_$(a)),$(UNAME_M)),$(a))))
ifeq ($(origin ARCH),undefined)
ARCH      := $(if $(DEB_ARCH),$(or $(strip $(foreach a,$(ARCHS),$(if $(filter $(DEB_ARCH_$(a)),$(DEB_ARCH)),$(a)))),$(DEB_ARCH)),$(HOST_ARCH))
endif
ifeq ($(filter $(ARCHS),$(ARCH)),)
supported := $(foreach a,$(ARCHS),or ARCH=$(a) ($(GNU_ARCH_$(a))))
$(error $(if $(ARCH),ARCH=$(ARCH),this machine is $(UNAME_M)): permscope builds for \
	$(wordlist 2,$(words $(supported)),$(supported)) only)
endif
DEB_ARCH  := $(DEB_ARCH_$(ARCH))
CROSS     := $(filter-out $(HOST_ARCH),$(ARCH))
CROSS_TRIPLET := $(if $(CROSS),$(GNU_ARCH_$(ARCH))-linux-gnu)
SYSROOT   ?= build/sysroot/$(DEB_ARCH)
# Every tool and flag below can be set from the environment or the command
# line (CC=clang make, OUT=/tmp/ps make; the VM scripts still use build/).
# make predefines CC as `cc`, which `?=` would keep, so the default gcc is
# set only when CC came from make itself.
ifeq ($(origin CC),default)
CC        := $(if $(CROSS),$(CROSS_TRIPLET)-gcc,gcc)
endif
OUT       ?= build$(if $(CROSS),/$(ARCH))
CLANG     ?= clang
BPFTOOL   ?= bpftool
LLVM_STRIP ?= llvm-strip

# Debian packages (see README, "Dependencies"): what building and running
# needs, and what the tests add (cmocka, the QEMU suite, Chromium).
BUILD_PKGS := make gcc clang llvm bpftool libbpf-dev libelf-dev zlib1g-dev libjansson-dev libyajl-dev libarchive-dev \
              libmicrohttpd-dev libgnutls28-dev libyaml-dev libcrypt-dev libsystemd-dev \
              libcurl4-gnutls-dev
# What booting a kernel in the test VM needs (tools/vm/run-vm, mkinitramfs,
# fetch-kernel): QEMU, the guest's busybox and scratch filesystems, the
# initramfs's cpio, the module tools and decompressors for Debian's
# kernels, file(1) for a bzImage's release, bpftrace packed into the guest
# as the other tracer.  tools/permscope-ab needs these (make vm-deps), not
# the rest of the tests' packages.
# The arm64 guests (make test's sid-arm64, make vmtest-arm64): QEMU's arm
# emulators, and the cross compiler their programs are built with
# (make ARCH=arm64; its libraries and busybox come from Debian's arm64
# packages, unpacked under build/).  Set before VM_PKGS, which := expands
# at once.
ARM64_GUEST_PKGS := qemu-system-arm gcc-aarch64-linux-gnu
VM_PKGS    := qemu-system-x86 busybox-static btrfs-progs e2fsprogs cpio kmod xz-utils zstd \
              lz4 bzip2 file bpftrace $(ARM64_GUEST_PKGS)
TEST_PKGS  := libcmocka-dev $(VM_PKGS) prometheus openssl git chromium patch strace \
              libclang-rt-14-dev bash-completion groff man-db
# What tools/vm/build-kernel needs to build the VM's kernel from Debian's
# source: kbuild's tools (bison, flex, bc; libelf for objtool and
# resolve_btfids, libssl for the certificate tools), pahole (dwarves) for
# BTF, ccache, xz and patch.  Not in test-deps: `make kernel-src` installs them.
KERNEL_BUILD_PKGS := make gcc bison flex bc libelf-dev libssl-dev dwarves ccache xz-utils patch
# What `make deb` needs besides BUILD_PKGS (debian/control's Build-Depends
# are those): debhelper's dh, dpkg-buildpackage, lintian to check the
# package, git to export the tree.  No fakeroot: debian/control says
# Rules-Requires-Root: no, and dpkg-deb makes the files root's itself.
PKG_PKGS := debhelper dpkg-dev lintian git
# What a cross build needs besides BUILD_PKGS (whose clang, bpftool and
# libbpf-dev's headers still make the BPF objects): Debian's cross gcc for
# ARCH (gcc-aarch64-linux-gnu), which `make deps ARCH=arm64` installs.  The
# libraries of ARCH are no packages of this system: they are unpacked into
# a sysroot under build/ (mk/build.mk), the -dev packages of BUILD_PKGS
# and libc6-dev with what they depend on.
CROSS_PKGS := $(if $(CROSS),gcc-$(subst _,-,$(CROSS_TRIPLET)))
SYSROOT_PKGS  := libc6-dev $(filter %-dev,$(BUILD_PKGS)) $(SYSROOT_EXTRA)
SYSROOT_STAMP := $(SYSROOT)/.packages

# CFLAGS is the user's (optimisation, debug info); the flags the code needs
# are kept apart in PS_CFLAGS so that `make CFLAGS=-O0` cannot drop them.
CFLAGS    ?= -O2 -g
PS_CFLAGS := -Wall -Wextra -Werror -std=gnu11 -D_GNU_SOURCE \
             -I$(OUT) -Ibpf -Isrc $(CFLAGS)
ifneq ($(CROSS),)
PS_CFLAGS += --sysroot=$(SYSROOT)
endif
# Where "Report bugs to" points (src/cmd/main.c): the issue tracker of the
# origin remote when it is on GitHub or GitLab (https, or ssh as git@; an
# https URL with credentials in it is never matched), else empty and the
# binary points to README.md's "Reporting bugs".  `make BUG_URL=...` sets it.
BUG_URL   ?= $(shell git remote get-url origin 2>/dev/null | sed -E 's,\.git/?$$,,' | sed -nE \
               -e 's,^(https://|ssh://git@|git@)github\.com[:/]([^/@]+/[^/@]+)$$,https://github.com/\2/issues,p' \
               -e 's,^(https://|ssh://git@|git@)gitlab\.com[:/]([^@]+)$$,https://gitlab.com/\2/-/issues,p')
PS_CFLAGS += -DPERMSCOPE_BUG_URL='"$(BUG_URL)"'
LDLIBS    := -lbpf -lelf -lz -ljansson -lyajl -lmicrohttpd -larchive -lm -lgnutls -lyaml -lcrypt -lsystemd -lcurl
# -mcpu=v3: 32-bit subregisters and jumps (every pinned kernel has them,
# 5.1 and later): 14 to 17 fewer guest instructions per probed call on sid
# (docs/benchmarks.md, "What each counter costs").
BPF_CFLAGS := -target bpf -mcpu=v3 -g -O2 -Wall -Werror -D__TARGET_ARCH_$(ARCH) \
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
# The VM suite: its assertions, and the programs tools/vm/mkinitramfs packs
# (it takes them from ./ and build/, whatever OUT says).
VM_BINS   := $(OUT)/tests/test_vm $(OUT)/tests/test_vm_arm64 $(OUT)/tests/test_vm_controls \
             $(OUT)/tests/test_vm_dashboard permscope $(OUT)/tests/workload
# The arm64 guests' programs, cross-built into build/arm64 by a make of
# their own (an x86 machine's; an arm64 one builds them natively), with
# what else the guest runs unpacked into the same sysroot, whose libraries
# tools/vm/mkinitramfs packs: Debian's arm64 busybox-static, and bpftrace
# for the plan's other-tracer cases (some 45 MB with its LLVM).
ARM64_GUEST_BINS := build/arm64/permscope build/arm64/tests/workload
guest_arm64 = $(if $(filter arm64,$(HOST_ARCH)),,@$(MAKE) --no-print-directory ARCH=arm64 \
	SYSROOT_EXTRA="busybox-static bpftrace" $(ARM64_GUEST_BINS))

# Keep the BPF objects, which only the skeleton rule asks for: `bpftool
# prog` users may want them.  Named, because a bare .SECONDARY: makes every
# target intermediate, and make then skips relinking over missing objects.
.SECONDARY: $(FAMILIES:%=$(OUT)/%.bpf.o)
# A recipe that fails must not leave a half-written target that looks new.
.DELETE_ON_ERROR:

.PHONY: all deps test-deps vm-deps kernel-deps kernel-src run test check-layout unit-test live-test vmtest vmtest-arm64 vmtest-src bench bench-vm vmlinux clean help \
        check-tools

all: permscope

# A cross build makes what a machine of ARCH runs: permscope,
# OUT/tests/workload (which an ARCH guest runs) and the package.  What runs
# here, on this machine's CPU and kernel, is built for it alone: the tests
# and the other test programs, make run and bench, the sanitizer and fuzz
# builds, and make vmlinux, which reads this kernel's BTF.
HOST_ONLY := run test unit-test live-test sanitize-test fuzz fuzz-regress fuzz-run-% fuzz-seeds bench vmlinux
ifneq ($(CROSS),)
ifneq ($(filter $(HOST_ONLY),$(MAKECMDGOALS)),)
$(error make $(firstword $(filter $(HOST_ONLY),$(MAKECMDGOALS))) runs on this machine ($(HOST_ARCH)), not with ARCH=$(ARCH): \
	a cross build makes permscope, $(OUT)/tests/workload and the package (make deb ARCH=$(ARCH)))
endif
endif

help:
	@echo "make            build ./permscope"
	@echo "make ARCH=arm64 cross-build ./permscope for aarch64: objects and the program in"
	@echo "                build/arm64, ./permscope a copy (make deps ARCH=arm64 first;"
	@echo "                on an arm64 machine, plain make builds natively)"
	@echo "make deps       install the Debian packages the build needs (apt-get, root);"
	@echo "                with ARCH=arm64 the cross compiler too"
	@echo "make sysroot ARCH=arm64  the cross build's libraries alone, build/sysroot/arm64"
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
	@echo "make vmtest     boot the amd64 kernels of tools/vm/kernels.conf and sid-arm64 in QEMU"
	@echo "                and assert them"
	@echo "make vmtest-arm64  the same on Debian's arm64 builds of all three kernels (long)"
	@echo "make vmtest-src build the controls of tests/vm/patches from Debian's source, A/B each"
	@echo "                against its stock build and assert the verdicts (~1 h cold)"
	@echo "make kernel-src build the VM's kernel from Debian's linux-source-6.12 (KERNEL_SRC=)"
	@echo "                into build/vm/kernels/src-KERNEL_SRC, ~20 min cold on 2 cores"
	@echo "make bench      build, run every benchmark (fast vs slow where it applies), then"
	@echo "                the probes' overhead on access1 and exec-path, ~4 min"
	@echo "make bench-vm   probe cost in guest instructions per call under QEMU -icount, sid, trixie and bookworm, with a per-mode table (long);"
	@echo "                make bench-vm ARCH=arm64: the same on their arm64 builds"
	@echo "make vmlinux    regenerate vmlinux/$(ARCH)/vmlinux.h from this kernel's BTF"
	@echo "make install    binary, man pages, completion, unit, /etc/default, docs (PREFIX, DESTDIR)"
	@echo "make deb        the Debian package build/permscope_VERSION_ARCH.deb, lintian-checked;"
	@echo "                make deb ARCH=arm64: build/arm64/permscope_VERSION_arm64.deb"

# The sanitizer and fuzzing builds (mk/hardening.mk, docs/hardening.md):
# their folders and flags, known before mk/build.mk's rules are made.
ASAN_OUT   := $(OUT)/asan
SAN_FLAGS  := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
ASAN_OBJS  := $(OBJS:$(OUT)/%=$(ASAN_OUT)/%)
ASAN_LIB_OBJS := $(LIB_OBJS:$(OUT)/%=$(ASAN_OUT)/%)
ASAN_UNIT_BINS := $(UNIT_BINS:$(OUT)/tests/%=$(ASAN_OUT)/tests/%)
SAN_ENV     = ASAN_OPTIONS=halt_on_error=1:detect_leaks=1:abort_on_error=0:log_path=$(abspath $(ASAN_OUT)/log/asan) \
              UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:log_path=$(abspath $(ASAN_OUT)/log/ubsan) \
              LSAN_OPTIONS=suppressions=$(abspath tests/sanitizer.supp):print_suppressions=0

FUZZ_OUT     := $(OUT)/fuzz
FUZZ_SECONDS ?= 60
FUZZ_TARGETS := $(patsubst tests/fuzz/%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BINS    := $(FUZZ_TARGETS:%=$(FUZZ_OUT)/%)
FUZZ_CFLAGS   = $(PS_CFLAGS) -Itests/fuzz \
                -DFUZZ_DATA='"$(abspath tests/unit/data)"' -fno-omit-frame-pointer \
                -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all
FUZZ_LIB     := $(FUZZ_OUT)/libpermscope.a
FUZZ_ENV     := ASAN_OPTIONS=halt_on_error=1:detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1

# The rules, one file a concern.
include mk/deps.mk mk/build.mk mk/test.mk mk/vm.mk mk/hardening.mk mk/package.mk

# tests/callsite-windows' reader of kernel images: the call sites of
# tests/unit/data/callsite-windows.txt (run by hand, never by make test).
$(OUT)/tests/callsite-extract: tests/callsite-extract.c $(LIB_OBJS) | $(OUT)/tests
	$(CC) $(PS_CFLAGS) $(DEPFLAGS) $(LDFLAGS) -o $@ $< $(LIB_OBJS) $(LDLIBS)

-include $(wildcard $(OUT)/.*.d $(OUT)/*/.*.d $(OUT)/*/*/.*.d)
